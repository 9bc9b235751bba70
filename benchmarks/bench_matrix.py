"""Benchmark: `infx matrix full-sweep` over both reference master files, as a whole process.

Prints the best-of-N wall time next to the quality bar (PRODUCT.md §5: ≤ 0.4 s; the
reference generator takes 1.9 s). Skips with a message when ../shared is absent.
With ``--reference PATH`` (the reference repository's ``generate_sweep_configs.py``,
from a local checkout) the reference is timed in the same run, side by side; the reference
needs pydantic, installed with the benchmark extra: ``pip install -e '.[bench]'``.
Run: python benchmarks/bench_matrix.py [--runs N] [--reference PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "fixtures" / "upstream-inferencex" / "configs"
BAR_SECONDS = 0.4
REFERENCE_SECONDS = 1.9


SWEEP_ARGS = ["full-sweep", "--config-files", str(UPSTREAM / "amd-master.yaml"),
              str(UPSTREAM / "nvidia-master.yaml"), "--runner-config", str(UPSTREAM / "runners.yaml")]


def command() -> list[str]:
    return [sys.executable, "-m", "infx.cli", "matrix", *SWEEP_ARGS]


def best_of(runs: int, argv: list[str] | None = None) -> tuple[float, int]:
    best, rows = float("inf"), 0
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(argv or command(), capture_output=True, text=True, cwd=ROOT,
                                check=False)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"full-sweep failed:\n{result.stderr}")
        rows = len(json.loads(result.stdout))
        best = min(best, elapsed)
    return best, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reference", type=Path, default=None,
                        help="the reference generate_sweep_configs.py, timed side by side "
                             "(needs pydantic: pip install -e '.[bench]')")
    args = parser.parse_args()
    if not UPSTREAM.is_dir():
        print(f"skipped: reference configs not found at {UPSTREAM}")
        return 0
    seconds, rows = best_of(args.runs)
    reference, label = REFERENCE_SECONDS, "quoted"
    if args.reference is not None:
        reference, ref_rows = best_of(args.runs, [sys.executable, str(args.reference), *SWEEP_ARGS])
        label = f"measured, {ref_rows} rows"
    verdict = "OK" if seconds <= BAR_SECONDS else "OVER BAR"
    print(f"{'benchmark':<44} {'measured':>9} {'bar':>7} {'reference':>10}")
    print(f"{f'matrix full-sweep, both masters ({rows} rows)':<44} {seconds:>8.3f}s "
          f"{BAR_SECONDS:>6.2f}s {reference:>9.3f}s  {verdict} (best of {args.runs}; "
          f"reference {label})")
    return 0 if seconds <= BAR_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
