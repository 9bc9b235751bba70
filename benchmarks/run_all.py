"""Run every benchmark script in this folder and print their figures one after another.

Each script times whole processes (best of several runs) and prints its figures next
to the bars of PRODUCT.md §5. Exit status is non-zero when any figure is over its bar.
Run: python benchmarks/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# scripts that measure one case a person names, not a bar: run by hand
ON_DEMAND = {"bench_realpr_checks.py": "times the checks on one named PR: bench_realpr_checks.py N"}


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        if script.name in ON_DEMAND:
            print(f"not run here ({ON_DEMAND[script.name]})\n", flush=True)
            continue
        result = subprocess.run([sys.executable, str(script), *sys.argv[1:]], check=False)
        if result.returncode != 0:
            failed.append(script.name)
        print(flush=True)
    if failed:
        print("over a bar or failed: " + ", ".join(failed))
        return 1
    print("every figure within its bar")
    return 0


if __name__ == "__main__":
    sys.exit(main())
