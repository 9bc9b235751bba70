"""CPU and wall of loop tests with the local runner's fork server and with its plain shims.

Usage: python benchmarks/bench_loop_shims.py [--repeat N] [pytest node ids...]
(default: tests/e2e/test_loop.py::test_single_node_fixed_seq_pr_passes; N rounds of the two runs
one after the other, the best CPU of each kept; no bar: it prints figures and exits 0 unless a run fails)
Runs the tests twice in one go, as pytest processes of their own: with the fork server
(tests/lib/fork_server.py, the default) and with INFX_TEST_FORK_SERVER=0 (every `python` /
`infx` step a fresh interpreter), and prints each run's wall time and the CPU of the pytest
process and everything it started (every forked or exec'd step is reaped before it exits), then
the ratio. The machine's other load changes both; compare runs made side by side.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["tests/e2e/test_loop.py::test_single_node_fixed_seq_pr_passes"]


def run(tests: list[str], fork_server: bool) -> tuple[float, float, float]:
    """(wall, user, system) seconds of one pytest run of `tests`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ) | {"INFX_TEST_FORK_SERVER": "1" if fork_server else "0"}
    with tempfile.TemporaryDirectory(prefix="bench-loop-") as basetemp:
        began = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", f"--basetemp={basetemp}",
                               *tests], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        wall = time.monotonic() - began
    if proc.returncode != 0:
        sys.exit(f"the tests failed ({'fork server' if fork_server else 'plain shims'}):\n{proc.stdout[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("tests", nargs="*")
    options = parser.parse_args(argv)
    tests = options.tests or DEFAULT
    best: dict[str, tuple[float, float, float]] = {}
    for _ in range(max(1, options.repeat)):
        for name, on in (("fork server", True), ("plain shims", False)):
            figures = run(tests, on)
            if name not in best or sum(figures[1:]) < sum(best[name][1:]):
                best[name] = figures
    print(f"{'':12} {'wall s':>8} {'user s':>8} {'sys s':>8} {'cpu s':>8}")
    for name, (wall, user, system) in best.items():
        print(f"{name:12} {wall:8.1f} {user:8.1f} {system:8.1f} {user + system:8.1f}")
    (w1, u1, s1), (w0, u0, s0) = best["fork server"], best["plain shims"]
    print(f"{'ratio':12} {w1 / w0:8.2f} {u1 / u0:8.2f} {s1 / s0:8.2f} {(u1 + s1) / (u0 + s0):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
