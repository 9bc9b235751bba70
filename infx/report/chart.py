"""The Pareto chart of one benchmark curve as a mermaid xychart: latency to scale, one line per parallel layout plus the frontier.

Pure. Mermaid's xychart has no scatter plot: on a numeric x-axis (`x-axis 0 --> top`) it
spreads a line's n values evenly from 0 to `top` (the i-th at `0 + i * (top - 0) / (n - 1)`).
So every line here is sampled at exactly those latencies, and each sample holds a true value:
the best throughput per GPU the layout (for the frontier line, any frontier point) reaches at
that latency or less, 0 before its first point. Axis tops come from `axis_top`, the one
rounding rule for both axes: the written number is never below the data. Titles are inert
(infx.inert.mermaid_text); everything else in a block is a number this module wrote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from infx.inert import mermaid_text
from infx.plan.identity import result_layout

SAMPLES = 41  # values per line: the latency axis from 0 to its top in 40 equal steps
MAX_LANES = 6  # layouts drawn per chart; the others are listed as not drawn
# (colour, legend name): the frontier first, then one per drawn layout
FRONTIER_COLOUR = ("#d62728", "🟥 red")
LANE_COLOURS = (("#1f77b4", "🟦 blue"), ("#2ca02c", "🟩 green"), ("#ff7f0e", "🟧 orange"),
                ("#9467bd", "🟪 purple"), ("#8c564b", "🟫 brown"), ("#e6b400", "🟨 yellow"))
_NICE = tuple(Decimal(m) for m in ("1", "1.2", "1.5", "2", "2.5", "3", "4", "5", "6", "8", "10"))
_VALUE_DIGITS = 4  # significant digits of a plotted value, relative to the axis top

Point = tuple[float, float, dict[str, Any]]  # (latency, throughput per GPU, result row)


def axis_top(value: float) -> str:
    """The top of an axis from 0 that holds `value` (a finite number >= 0), as mermaid reads it:
    a plain decimal (no exponent, which mermaid's number token lacks) whose value is at least
    `value`, the smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten. Above the
    largest double such a number would be infinite; the value's own exact decimal is used then."""
    if not value > 0:
        return "1"
    exact = Decimal(value)  # the double's exact value
    scale = Decimal(1).scaleb(exact.adjusted())
    top = next(step * scale for step in _NICE if step * scale >= exact)
    if not math.isfinite(float(top)):
        top = exact
    return _plain(top)


def _plain(number: Decimal) -> str:
    text = format(number, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def sample_latencies(top: str, count: int = SAMPLES) -> list[float]:
    """Where mermaid puts the values of a line of `count` values on the axis 0 --> top."""
    high = float(top)
    step = (high - 0) / (count - 1)
    return [0 + index * step for index in range(count)]


def envelope(points: Sequence[tuple[float, float]], latencies: Sequence[float]) -> list[float]:
    """At each latency, the best throughput of a point at that latency or less (0 if none)."""
    ordered = sorted(points)
    out, best, index = [], 0.0, 0
    for latency in latencies:
        while index < len(ordered) and ordered[index][0] <= latency:
            best = max(best, ordered[index][1])
            index += 1
        out.append(best)
    return out


def value_text(value: float, top: str) -> str:
    """A plotted value, rounded to _VALUE_DIGITS significant digits of the axis top and never
    written above it (the axis top is at least every value)."""
    high = float(top)
    digits = max(0, _VALUE_DIGITS - 1 - math.floor(math.log10(high)))
    text = f"{value:.{digits}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return top if float(text) > high else text


@dataclass(frozen=True)
class Lane:
    """The points of one parallel layout on a curve."""

    layout: str
    points: tuple[Point, ...]
    colour: tuple[str, str] | None  # None: not drawn (more layouts than colours)

    @property
    def best(self) -> Point:
        return max(self.points, key=lambda p: (p[1], -p[0]))


def lanes(points: Sequence[Point]) -> list[Lane]:
    """The curve's points per parallel layout, the layout with the best throughput first; the
    first MAX_LANES get a colour."""
    grouped: dict[str, list[Point]] = {}
    for point in points:
        grouped.setdefault(result_layout(point[2]), []).append(point)
    order = sorted(grouped, key=lambda name: (-max(p[1] for p in grouped[name]), name))
    return [Lane(name, tuple(grouped[name]), LANE_COLOURS[i] if i < len(LANE_COLOURS) else None)
            for i, name in enumerate(order)]


def block(title: str, x_title: str, y_title: str, points: Sequence[Point],
          frontier: Sequence[Point]) -> str:
    """The ```mermaid fenced xychart of one curve: a line per drawn lane, then the frontier."""
    drawn = [lane for lane in lanes(points) if lane.colour is not None]
    x_top = axis_top(max((p[0] for p in points), default=0.0))
    y_top = axis_top(max((p[1] for p in points), default=0.0))
    latencies = sample_latencies(x_top)
    lines = [envelope([(x, y) for x, y, _ in lane.points], latencies) for lane in drawn]
    lines.append(envelope([(x, y) for x, y, _ in frontier], latencies))
    palette = ", ".join(colour for colour, _ in [lane.colour for lane in drawn if lane.colour]
                        + [FRONTIER_COLOUR])
    return "\n".join([
        "```mermaid", "---", "config:", "  themeVariables:", "    xyChart:",
        f'      plotColorPalette: "{palette}"', "---", "xychart-beta",
        f'    title "{mermaid_text(title)}"',
        f'    x-axis "{mermaid_text(x_title)}" 0 --> {x_top}',
        f'    y-axis "{mermaid_text(y_title)}" 0 --> {y_top}',
        *("    line [" + ", ".join(value_text(v, y_top) for v in values) + "]" for values in lines),
        "```"])


def lane_rows(points: Sequence[Point], frontier: Sequence[Point]) -> list[tuple[str, str, int, Point | None]]:
    """(colour legend, layout, points, best point) per lane, the frontier line first."""
    rows: list[tuple[str, str, int, Point | None]] = [
        (FRONTIER_COLOUR[1], "frontier (every layout)", len(frontier),
         max(frontier, key=lambda p: (p[1], -p[0])) if frontier else None)]
    for lane in lanes(points):
        rows.append((lane.colour[1] if lane.colour else "not drawn", lane.layout, len(lane.points), lane.best))
    return rows
