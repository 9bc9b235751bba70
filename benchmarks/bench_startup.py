"""Start-up: whole-process CPU of a sign-off verdict against the in-process fake GitHub.

`infx signoff verify --world W --pr 3412 --comment-id 5003` as a fresh process, on the
shipped world tests/data/worlds/signoff_seed000.yaml and on the typical PR of
bench_signoff.py (seed 000 grown to 30 files, 10 commits, 100 comments). The figure is the
process's user + system CPU (os.wait4), which includes the fake server's thread, best of N
after one warm-up round, beside two floors: the bare interpreter, and the interpreter
importing PyGithub (the client's HTTP layer, which every verdict needs). Bar: 0.4 s.

infx runs from a bytecode-compiled copy, as after `pip install`; `--no-bytecode` compiles
every infx module on every run instead (PYTHONDONTWRITEBYTECODE from a source folder).
`--baseline REF` runs the same verdicts with infx as of a git ref too, interleaved, and
prints both columns. `--importtime` prints the slowest imports of one run.
Run: python benchmarks/bench_startup.py [--repeat N] [--no-bytecode] [--baseline REF] [--importtime]
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


def install(site: Path, ref: str | None, compiled: bool) -> None:
    """A copy of infx (the working tree's, or ``ref``'s) in ``site``, compiled unless asked."""
    if ref is None:
        shutil.copytree(ROOT / "infx", site / "infx", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        site.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "infx"],
                                 capture_output=True, check=False)
        if archive.returncode != 0:
            sys.exit(f"git archive {ref} failed: {archive.stderr.decode(errors='replace')}")
        subprocess.run(["tar", "-x", "-C", str(site)], input=archive.stdout, check=True)
    if compiled and not compileall.compile_dir(site / "infx", quiet=1):
        sys.exit("compiling the copy of infx failed")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--no-bytecode", action="store_true")
    parser.add_argument("--baseline", metavar="REF", help="also time infx as of this git ref")
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench_signoff import typical_world

    env = {**os.environ, "INFX_BOT_LOGIN": "github-actions[bot]"}  # as the workflows set it
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    if args.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    sites = {"infx": None, "baseline": args.baseline} if args.baseline else {"infx": None}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        envs = {}
        for column, ref in sites.items():
            install(work / column, ref, not args.no_bytecode)
            envs[column] = {**env, "PYTHONPATH": str(work / column)}
        typical = work / "typical.yaml"
        typical.write_text(yaml.safe_dump(typical_world(), sort_keys=False), encoding="utf-8")
        python = sys.executable
        commands = {
            "interpreter: python -c pass": [python, "-c", "pass"],
            "floor: python -c 'import github' (PyGithub)": [python, "-c", "import github"],
            "verify, shipped world signoff_seed000.yaml": [python, *VERIFY, str(SEED)],
            "verify, typical PR (bench_signoff.py)": [python, *VERIFY, str(typical)],
        }
        best = {(label, column): float("inf") for label in commands for column in sites
                if column == "infx" or label.startswith("verify")}
        for round_ in range(args.repeat + 1):  # round 0 warms the caches and is not counted
            for label, column in best:
                seconds = cpu_seconds(commands[label], envs[column], work)
                if round_:
                    best[label, column] = min(best[label, column], seconds)
        if args.importtime:
            print("slowest imports of one verify (shipped world), cumulative:")
            print(slowest_imports(commands["verify, shipped world signoff_seed000.yaml"],
                                  envs["infx"], work))
    mode = "compiled on every run" if args.no_bytecode else "compiled copy"
    baseline = f"{'baseline':>9}" if args.baseline else ""
    print(f"{'whole-process CPU (best of ' + str(args.repeat) + ', ' + mode + ')':50} "
          f"{'infx':>7}{baseline} {'bar':>6}")
    over = []
    for label in commands:
        seconds = best[label, "infx"]
        bar = label.startswith("verify")
        verdict = ("ok" if seconds <= BAR else "OVER BAR") if bar else ""
        then = ""
        if args.baseline:
            then = f"{best[label, 'baseline']:8.3f}s" if bar else f"{'':9}"
        print(f"{label:50} {seconds:6.3f}s{then} {(f'{BAR:.2f}s' if bar else ''):>6}  {verdict}")
        if verdict == "OVER BAR":
            over.append(label)
    if args.baseline:
        print(f"baseline: infx as of {args.baseline}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
