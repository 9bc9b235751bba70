"""Pareto frontier of a benchmark curve: throughput per GPU (up) against end-to-end latency (left)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

FRONTIER_FLAG = "isOnNormalizedInteractivityFrontier"


@dataclass(frozen=True)
class CurveResult:
    key: str
    measured: int
    invalid: int
    frontier: tuple[tuple[float, float], ...]
    restricted: bool  # the interactivity-frontier flag narrowed the frontier

    def passes(self, recommended: int) -> bool:
        return self.invalid == 0 and len(self.frontier) >= recommended


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value > 0 else None


def frontier(points: list[dict[str, Any]], x_key: str, y_key: str) -> tuple[list[tuple[float, float]], int]:
    """The upper-right frontier (lower latency, higher throughput) and the count of invalid points."""
    eligible: list[tuple[float, float, dict[str, Any]]] = []
    invalid = 0
    for point in points:
        x, y = _number(point.get(x_key)), _number(point.get(y_key))
        if x is None or y is None:
            invalid += 1
        else:
            eligible.append((x, y, point))
    eligible.sort(key=lambda item: (item[0], -item[1]))
    kept: list[tuple[float, float, dict[str, Any]]] = []
    max_y = -math.inf
    for x, y, point in eligible:
        if kept and (x, y) == kept[-1][:2]:
            continue  # exact duplicates count once
        if y > max_y or (y == max_y and kept and x > kept[-1][0]):
            if kept and x == kept[-1][0]:
                kept[-1] = (x, y, point)
            else:
                kept.append((x, y, point))
            max_y = max(max_y, y)
    if any(FRONTIER_FLAG in point for point in points):
        kept = [item for item in kept if item[2].get(FRONTIER_FLAG) is True]
    return [(x, y) for x, y, _ in kept], invalid
