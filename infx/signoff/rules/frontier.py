"""Pareto frontier of a benchmark curve: throughput per GPU (up) against end-to-end latency (left)."""

from __future__ import annotations

import math
from typing import Any

FRONTIER_FLAG = "isOnNormalizedInteractivityFrontier"


def measured(value: Any) -> float | None:
    """A latency or throughput as a point of a curve: a positive, finite number, else None (an
    integer beyond the float range, which JSON allows, is no measurement either)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def frontier(points: list[dict[str, Any]], x_key: str, y_key: str) -> tuple[list[tuple[float, float]], int]:
    """The upper-right frontier (lower latency, higher throughput) and the count of invalid points."""
    eligible: list[tuple[float, float, dict[str, Any]]] = []
    invalid = 0
    for point in points:
        x, y = measured(point.get(x_key)), measured(point.get(y_key))
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


def coverage(curves: list[dict[str, Any]], recommended: int = 5,
             y_key: str = "tput_per_gpu") -> list[dict[str, Any]]:
    """One report per curve: {key, status, measuredPoints, invalidPoints, frontierPoints,
    recommendedPoints, canonicalRestriction, frontier}.

    Each curve is ``{"key": str, "x": latency metric, "points": [...]}``. A curve passes
    when it has no invalid point and at least ``recommended`` frontier points; otherwise it
    warns. An empty curve list, a duplicate key, or a curve without a key or points array is
    an input error (ValueError): coverage is then unverifiable, never guessed.
    """
    if not curves:
        raise ValueError("no curves were given")
    seen: set[str] = set()
    reports = []
    for index, curve in enumerate(curves):
        key, points = curve.get("key"), curve.get("points")
        if not isinstance(key, str) or not key or not isinstance(points, list):
            raise ValueError(f"curve {index} needs a non-empty key and a points array")
        if key in seen:
            raise ValueError(f"duplicate curve key {key!r}")
        seen.add(key)
        front, invalid = frontier([p for p in points if isinstance(p, dict)], curve["x"], y_key)
        invalid += sum(1 for p in points if not isinstance(p, dict))
        reports.append({
            "key": key, "status": "PASS" if invalid == 0 and len(front) >= recommended else "WARN",
            "measuredPoints": len(points), "invalidPoints": invalid, "frontierPoints": len(front),
            "recommendedPoints": recommended,
            "canonicalRestriction": any(isinstance(p, dict) and FRONTIER_FLAG in p for p in points),
            "frontier": [list(point) for point in front],
        })
    return reports
