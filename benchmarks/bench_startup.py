"""Start-up: whole-process CPU of a sign-off verdict against the in-process fake GitHub.

`infx signoff verify --world W --pr 3412 --comment-id 5003` as a fresh process, on the
shipped world tests/data/worlds/signoff_seed000.yaml and on the typical PR of
bench_signoff.py (seed 000 grown to 30 files, 10 commits, 100 comments). The figure is the
process's user + system CPU (os.wait4), which includes the fake server's thread, best of N
after one warm-up round, beside two floors: the bare interpreter, and the interpreter
importing PyGithub (the client's HTTP layer, which every verdict needs). Bar: 0.4 s.

infx runs from a bytecode-compiled copy, as after `pip install`; `--no-bytecode` compiles
every infx module on every run instead (PYTHONDONTWRITEBYTECODE from a source folder).
`--importtime` prints the slowest imports of one run (python -X importtime).
Run: python benchmarks/bench_startup.py [--repeat N] [--no-bytecode] [--importtime]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests/data/worlds/signoff_seed000.yaml"
VERIFY = ["-m", "infx", "signoff", "verify", "--pr", "3412", "--comment-id", "5003",
          "--format", "json", "--world"]
BAR = 0.4


def cpu_seconds(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU of one process (its threads included), or exit on failure."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    stderr = process.stderr.read() if process.stderr else b""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}\n{stderr.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def slowest_imports(command: list[str], env: dict[str, str], cwd: Path, count: int = 15) -> str:
    """The ``count`` imports with the largest cumulative time, top-level ones only."""
    run = subprocess.run([command[0], "-X", "importtime", *command[1:]], cwd=cwd, env=env,
                         capture_output=True, text=True, check=True)
    rows = []
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|", 2)
        if cumulative.strip().isdigit() and not name.startswith("  "):  # imported from our code
            rows.append((int(cumulative), name.strip()))
    rows.sort(reverse=True)
    return "\n".join(f"  {us / 1e6:6.3f}s  {name}" for us, name in rows[:count])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--no-bytecode", action="store_true")
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench_signoff import typical_world

    env = {**os.environ, "INFX_BOT_LOGIN": "github-actions[bot]"}  # as the workflows set it
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    with tempfile.TemporaryDirectory() as site, tempfile.TemporaryDirectory() as work:
        shutil.copytree(ROOT / "infx", Path(site) / "infx",
                        ignore=shutil.ignore_patterns("__pycache__"))
        env["PYTHONPATH"] = site
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        elif not compileall.compile_dir(Path(site) / "infx", quiet=1):
            sys.exit("compiling the copy of infx failed")
        typical = Path(work) / "typical.yaml"
        typical.write_text(yaml.safe_dump(typical_world(), sort_keys=False), encoding="utf-8")
        python = sys.executable
        commands = {
            "interpreter: python -c pass": [python, "-c", "pass"],
            "floor: python -c 'import github' (PyGithub)": [python, "-c", "import github"],
            "verify, shipped world signoff_seed000.yaml": [python, *VERIFY, str(SEED)],
            "verify, typical PR (bench_signoff.py)": [python, *VERIFY, str(typical)],
        }
        best = dict.fromkeys(commands, float("inf"))
        for round_ in range(args.repeat + 1):  # round 0 warms the caches and is not counted
            for label, command in commands.items():
                seconds = cpu_seconds(command, env, Path(work))
                if round_:
                    best[label] = min(best[label], seconds)
        if args.importtime:
            print("slowest imports of one verify (shipped world), cumulative:")
            print(slowest_imports(commands["verify, shipped world signoff_seed000.yaml"], env,
                                  Path(work)))
    mode = "compiled on every run" if args.no_bytecode else "compiled copy"
    print(f"{'whole-process CPU (best of ' + str(args.repeat) + ', ' + mode + ')':50} "
          f"{'cpu':>7} {'bar':>6}")
    over = []
    for label, seconds in best.items():
        bar = label.startswith("verify")
        verdict = ("ok" if seconds <= BAR else "OVER BAR") if bar else ""
        print(f"{label:50} {seconds:6.3f}s {(f'{BAR:.2f}s' if bar else ''):>6}  {verdict}")
        if verdict == "OVER BAR":
            over.append(label)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
