"""The report chart's random-curve property at scale: >= 2,000 hypothesis curves, each chart read by mermaid.

tests/unit/report/test_report_chart.py runs the same property
(test_random_curves_have_a_true_axis_and_samples_at_their_latency: a true axis top, samples at
their latency, the frontier never below a lane) on 100 curves so the unit suite stays fast; this
runs it on --count curves and then has mermaid's own parser (npm mermaid) read every chart drawn.
Printed: curves checked, charts mermaid rejected, and the rate.
Run: python benchmarks/bench_chart_curves.py [--count N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "report"))

import test_report_chart as suite  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from lib import report_charts  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2_000)
    args = parser.parse_args()
    prop = suite.test_random_curves_have_a_true_axis_and_samples_at_their_latency.hypothesis.inner_test
    started = time.perf_counter()
    settings(max_examples=args.count, deadline=None, database=None)(given(suite.curve_points)(prop))()
    seconds = time.perf_counter() - started
    blocks = list(dict.fromkeys(report_charts._CHARTS_SEEN))
    answers = report_charts.mermaid_reads([report_charts.mermaid_source(b) for b in blocks])
    rejected = [(block, answer["error"]) for block, answer in zip(blocks, answers, strict=True) if not answer["ok"]]
    print(f"random curves: {args.count} examples, property held ({args.count / seconds:.0f} curves/s); "
          f"mermaid read {len(blocks)} charts, rejected {len(rejected)}")
    for block, error in rejected[:3]:
        print(f"  {error}: {block[:200]!r}")
    print("FAIL" if rejected else "PASS")
    return 1 if rejected else 0


if __name__ == "__main__":
    raise SystemExit(main())
