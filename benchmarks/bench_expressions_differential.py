"""Our workflow-expression evaluator against GitHub's (npm @actions/expressions) on 3,000 generated contexts.

tests/repo/test_support_expressions_differential.py compares every `${{ }}` of our workflows in
200 generated contexts so the suite stays fast; this runs that module with
INFX_EXPRESSION_CONTEXTS=--contexts (the contexts come from one seeded generator, so the
suite's 200 are the first of these) and prints pytest's summary and the case count.
Run: python benchmarks/bench_expressions_differential.py [--contexts N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = "tests/repo/test_support_expressions_differential.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=3_000)
    args = parser.parse_args()
    env = dict(os.environ, INFX_EXPRESSION_CONTEXTS=str(args.contexts))
    with tempfile.TemporaryDirectory(prefix="bench-expressions-") as basetemp:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                               f"--basetemp={basetemp}", "--durations=3", MODULE], cwd=ROOT, env=env, check=False)
    print("PASS" if done.returncode == 0 else "FAIL")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
