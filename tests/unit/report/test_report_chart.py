"""infx.report.chart: the sweep report's Pareto chart tells the truth, as mermaid's own parser reads it.

Random curves (hypothesis) check the axis rule and the sampling against a brute-force
envelope; a fixed set of curves goes through mermaid's parser (npm mermaid), which says where
it puts each value and what the title shows."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lib import tools
from lib.report_charts import mermaid_reads, mermaid_source, parse_xychart

from infx.inert import mermaid_text
from infx.report import chart

LAYOUTS = ({"tp": 8, "ep": 1, "dp_attention": False}, {"tp": 8, "ep": 8, "dp_attention": True},
           {"tp": 4, "ep": 1, "dp_attention": False}, {"tp": 2, "ep": 2, "dp_attention": False},
           {"tp": 1, "ep": 1, "dp_attention": False}, {"tp": 8, "pp": 2, "ep": 1, "dp_attention": False},
           {"tp": 4, "ep": 4, "dp_attention": True}, {"tp": 16, "ep": 1, "dp_attention": False})
finite = st.floats(min_value=0, max_value=1.7e308, allow_nan=False, allow_infinity=False)
latency = st.floats(min_value=1e-3, max_value=5e4, allow_nan=False, allow_infinity=False)
throughput = st.floats(min_value=1e-2, max_value=1e6, allow_nan=False, allow_infinity=False)
curve_points = st.lists(st.tuples(latency, throughput, st.integers(0, len(LAYOUTS) - 1)), min_size=1, max_size=60)


def points_of(raw) -> list[tuple[float, float, dict]]:
    return [(x, y, {"is_multinode": False, "pp": 1, **LAYOUTS[lane], "conc": i})
            for i, (x, y, lane) in enumerate(raw)]


def pareto(points):
    """The frontier by brute force: no other point is at most as slow and strictly faster."""
    return [p for p in points if not any(q[0] <= p[0] and q[1] > p[1] for q in points)]


def best_within(points, at: float) -> float:
    return max([y for x, y, *_ in points if x <= at], default=0.0)


@given(finite)
def test_an_axis_top_is_a_plain_number_at_or_above_the_value(value):
    top = chart.axis_top(value)
    assert re.fullmatch(r"\d+(\.\d+)?", top)  # mermaid's number token has no exponent
    assert math.isfinite(float(top)) and float(top) >= value
    if 1e-300 < value < 1e307:
        assert float(top) <= value * 4 / 3 * (1 + 1e-12)  # the next of 1-1.2-1.5-2-2.5-3-4-5-6-8-10


def test_the_axis_top_that_lost_its_zeros():
    """The bug of issue 23: an integer top was stripped of its trailing zeros (2800 -> 28)."""
    assert [chart.axis_top(v) for v in (2545.5, 909.1, 1000.0, 0.0113, 7.0)] == ["3000", "1000", "1000", "0.012", "8"]


# 100 random curves here; benchmarks/bench_chart_curves.py runs the same property on 2,000
# (and mermaid's parser on every chart drawn)
@settings(max_examples=100, deadline=None)
@given(curve_points)
def test_random_curves_have_a_true_axis_and_samples_at_their_latency(raw):
    points = points_of(raw)
    front = pareto(points)
    drawn = chart.block("t", "x", "y", points, front)
    parsed = parse_xychart(drawn)
    lanes = [lane for lane in chart.lanes(points) if lane.colour is not None]
    assert len(parsed["lines"]) == len(lanes) + 1 == len(parsed["palette"])
    # the y-axis top holds every measured value and every plotted one; the x-axis every latency
    assert parsed["y"][0] == 0 and all(parsed["y"][1] >= y for _, y, _ in points)
    assert all(parsed["y"][1] >= v for line in parsed["lines"] for v in line)
    assert parsed["x"][0] == 0 and all(parsed["x"][1] >= x for x, _, _ in points)
    # mermaid spreads a line's n values evenly over 0..top: value i is at i * top / (n - 1), and
    # it must be the best throughput at that latency or less (spacing proportional to latency)
    tolerance = 10 ** (math.floor(math.log10(parsed["y"][1])) - 3)
    for line, source in zip(parsed["lines"], [lane.points for lane in lanes] + [front], strict=True):
        assert len(line) == chart.SAMPLES
        for i, value in enumerate(line):
            at = 0 + i * ((parsed["x"][1] - 0) / (len(line) - 1))
            assert abs(value - best_within(source, at)) <= tolerance, (i, at)
    # the frontier line is the best of all lanes, never below any of them
    for i, value in enumerate(parsed["lines"][-1]):
        assert value + tolerance >= max(line[i] for line in parsed["lines"][:-1])


@given(st.text(max_size=200))
def test_a_mermaid_title_never_holds_what_mermaid_or_markdown_would_read(text):
    written = mermaid_text(text)
    assert re.fullmatch(r"[A-Za-z0-9 ./:=+,()_#;-]*", written)
    assert "\n" not in written and "```" not in written and "%%" not in written


def random_curves(seed: int, count: int) -> list[tuple[str, list]]:
    rng = random.Random(seed)
    out = []
    for n in range(count):
        scale = 10 ** rng.uniform(-2, 3)
        raw = [(scale * rng.uniform(0.05, 1), 10 ** rng.uniform(0, 4), rng.randrange(len(LAYOUTS)))
               for _ in range(rng.randint(1, 50))]
        out.append((f"m{n} <fp8> \"q\" #1; %%{{init}}%% 😀 ü", points_of(raw)))
    return out


CURVES = random_curves(23, 40)
RAW_TITLE = 'xychart-beta\n    title "a < b"\n    x-axis "x" 0 --> 1\n    y-axis "y" 0 --> 1\n    line [0, 1]\n'
BROKEN = 'xychart-beta\n    x-axis "x" 0 --> 1e3\n    line [1, 2]\n'


@pytest.fixture(scope="module")
def curve_blocks() -> list[str]:
    return [chart.block(title, "median e2e latency (s)", "tput_per_gpu (tok/s/GPU)", points, pareto(points))
            for title, points in CURVES]


@pytest.fixture(scope="module")
def oracle(curve_blocks) -> dict[str, dict]:
    """Mermaid's answers for every text the tests below ask about, from one Node.js process."""
    texts = [mermaid_source(b) for b in curve_blocks] + [RAW_TITLE, BROKEN]
    return dict(zip(texts, tools.need(mermaid_reads, texts), strict=True))


def test_mermaid_reads_the_charts_as_written(curve_blocks, oracle):
    """Mermaid's own parser: its x-axis is 0..top, it puts every value at the latency the chart
    sampled it at, its y-axis top holds every value, and the title shows the label as written
    (`<` as `<`, not `&lt;`; `#`, `%` and quotes as themselves)."""
    curves, blocks = CURVES, curve_blocks
    answers = [oracle[mermaid_source(b)] for b in blocks]
    for (title, points), block, answer in zip(curves, blocks, answers, strict=True):
        assert answer["ok"], answer["error"]
        parsed = parse_xychart(block)
        assert answer["type"] == "xychart" and answer["title"] == title
        assert answer["xAxis"]["title"] == "median e2e latency (s)"
        assert answer["config"]["themeVariables"]["xyChart"]["plotColorPalette"] == ", ".join(parsed["palette"])
        assert (answer["xAxis"]["min"], answer["xAxis"]["max"]) == (0, float(parsed["x_top"]))
        assert (answer["yAxis"]["min"], answer["yAxis"]["max"]) == (0, float(parsed["y_top"]))
        samples = chart.sample_latencies(parsed["x_top"])
        assert [plot["type"] for plot in answer["plots"]] == ["line"] * len(parsed["lines"])
        for plot, line in zip(answer["plots"], parsed["lines"], strict=True):
            assert [float(x) for x, _ in plot["data"]] == samples
            assert [y for _, y in plot["data"]] == line
            assert all(y <= answer["yAxis"]["max"] for y in line)
        assert max(x for x, _, _ in points) <= answer["xAxis"]["max"]


def test_a_title_written_raw_would_show_an_entity(oracle):
    """The oracle sees the bug the entity codes avoid: a raw `<` in a title shows as `&lt;`."""
    answer = oracle[RAW_TITLE]
    assert answer["ok"] and answer["title"] == "a &lt; b"


def test_mermaid_rejects_a_broken_chart(oracle):
    answer = oracle[BROKEN]
    assert not answer["ok"] and "Parse error" in answer["error"]


def test_lanes_beyond_the_palette_are_listed_not_drawn():
    points = points_of([(1.0 + i, 100.0 * (i + 1), i) for i in range(len(LAYOUTS))])
    rows = chart.lane_rows(points, pareto(points))
    assert rows[0][:3] == ("🟥 red", "frontier (every layout)", len(LAYOUTS))
    assert [row[1] for row in rows[1:]] == ["TP16", "TP4/EP4/DPA", "TP8/PP2", "TP1", "TP2/EP2", "TP4",
                                            "TP8/EP8/DPA", "TP8"]
    assert [row[0] for row in rows[1:]].count("not drawn") == len(LAYOUTS) - len(chart.LANE_COLOURS)
    assert len(parse_xychart(chart.block("t", "x", "y", points, pareto(points)))["lines"]) == 1 + len(chart.LANE_COLOURS)
