"""Benchmark: `infx matrix full-sweep` over both reference master files, as a whole process.

Prints the best-of-N wall time next to the quality bar (PRODUCT.md §5: ≤ 0.4 s; the
reference generator takes 1.9 s). Skips with a message when ../shared is absent.
Run: python benchmarks/bench_matrix.py [--runs N]
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


def command() -> list[str]:
    return [sys.executable, "-m", "infx.cli", "matrix", "full-sweep",
            "--config-files", str(UPSTREAM / "amd-master.yaml"),
            str(UPSTREAM / "nvidia-master.yaml"),
            "--runner-config", str(UPSTREAM / "runners.yaml")]


def best_of(runs: int) -> tuple[float, int]:
    best, rows = float("inf"), 0
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command(), capture_output=True, text=True, cwd=ROOT, check=False)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"full-sweep failed:\n{result.stderr}")
        rows = len(json.loads(result.stdout))
        best = min(best, elapsed)
    return best, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not UPSTREAM.is_dir():
        print(f"skipped: reference configs not found at {UPSTREAM}")
        return 0
    seconds, rows = best_of(args.runs)
    verdict = "OK" if seconds <= BAR_SECONDS else "OVER BAR"
    print(f"{'benchmark':<44} {'measured':>9} {'bar':>7} {'reference':>10}")
    print(f"{f'matrix full-sweep, both masters ({rows} rows)':<44} {seconds:>8.3f}s "
          f"{BAR_SECONDS:>6.2f}s {REFERENCE_SECONDS:>9.1f}s  {verdict} (best of {args.runs})")
    return 0 if seconds <= BAR_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
