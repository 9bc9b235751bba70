"""Speed against the floor: `infx matrix full-sweep` and `infx plan` beside a bare YAML parse.

The floor of a run is the interpreter starting and C-parsing the same YAML inputs (both
reference master files and runners.yaml), nothing else. Each command and the floor run
interleaved, as fresh processes, best of N after one warm-up round; the ratio is printed
beside its 1.3x bar.

infx runs from a bytecode-compiled copy, as after `pip install` (which compiles it), like
PyYAML in the floor. `--no-bytecode` runs a copy without bytecode under
PYTHONDONTWRITEBYTECODE, so every infx module is compiled on every run (as from a source
folder in this sandbox), a cost the floor never pays.
Run: python benchmarks/bench_floor.py [--repeat N] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_changelog import UPSTREAM, build_repo

ROOT = Path(__file__).resolve().parent.parent
BAR = 1.3
FLOOR = ("import sys, yaml\n"
         "for name in sys.argv[1:]:\n"
         "    with open(name, encoding='utf-8') as handle:\n"
         "        yaml.load(handle.read(), Loader=yaml.CSafeLoader)\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE as set (compile on every run)")
    args = parser.parse_args()
    if not UPSTREAM.is_dir():
        print(f"skipped: reference data not found at {UPSTREAM}")
        return 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_OUTPUT", None)
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as site:
        # a copy without any __pycache__ the source folder may hold (tests run elsewhere
        # can leave bytecode there): compiled here, or compiled on every run
        shutil.copytree(ROOT / "infx", Path(site) / "infx",
                        ignore=shutil.ignore_patterns("__pycache__"))
        env["PYTHONPATH"] = site
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        elif not compileall.compile_dir(Path(site) / "infx", quiet=1):
            sys.exit("compiling the copy of infx failed")
        repo = Path(tmp)
        refs = build_repo(repo)
        inputs = [str(repo / "configs" / n) for n in ("amd-master.yaml", "nvidia-master.yaml",
                                                       "runners.yaml")]
        commands = {
            "floor": [sys.executable, "-c", FLOOR, *inputs],
            "full-sweep": [sys.executable, "-m", "infx", "matrix", "full-sweep", "--config-files",
                           *inputs[:2], "--runner-config", inputs[2]],
            "plan": [sys.executable, "-m", "infx", "plan", "--base-ref", refs["base"],
                     "--head-ref", refs["append"]],
        }
        best = dict.fromkeys(commands, float("inf"))
        for round_ in range(args.repeat + 1):  # round 0 warms the caches and is not counted
            for name, command in commands.items():
                start = time.perf_counter()
                result = subprocess.run(command, cwd=repo, env=env, capture_output=True)
                elapsed = time.perf_counter() - start
                if result.returncode != 0:
                    sys.exit(f"{name} failed:\n{result.stderr.decode()}")
                if round_:
                    best[name] = min(best[name], elapsed)
    floor = best["floor"]
    bytecode = "compiled on every run" if args.no_bytecode else "compiled copy"
    print(f"{'measurement (best of ' + str(args.repeat) + ', interleaved, ' + bytecode + ')':52} "
          f"{'best':>8} {'ratio':>6} {'bar':>5}")
    print(f"{'floor: python + C-parse of the 3 YAML inputs':52} {floor:7.3f}s")
    over = False
    for name in ("full-sweep", "plan"):
        ratio = best[name] / floor
        over |= ratio > BAR
        label = ("matrix full-sweep, both reference masters" if name == "full-sweep"
                 else "plan one entry vs both reference masters")
        print(f"{label:52} {best[name]:7.3f}s {ratio:5.2f}x {BAR:4.1f}x  "
              f"{'ok' if ratio <= BAR else 'OVER BAR'}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
