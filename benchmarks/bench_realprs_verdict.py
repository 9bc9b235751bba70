"""Verdict time on the real-PR corpus (tests/data/realprs): whole-process p95, beside the typical world.

Each corpus PR is replayed once through the sweep loop (tests/lib/realprs.replay: its real base
and head trees, the real run-sweep.yml on the fake MI355X node, a CODEOWNER's sign-off), which
gives the world the verdict reads. Then `infx signoff verify --world` runs whole-process (fake
server start included) ROUNDS times on each world, interleaved with bench_signoff's typical
world (30 files, 10 commits, 100 comments). Printed: per world p50 / p95 / max, and the p95 over
every corpus verdict, next to the bar (p95 <= 3 s). The replays are not timed. infx runs from a
bytecode-compiled copy, as after `pip install` (bench_floor's rule); ``--no-bytecode`` compiles
every module on every run instead (PYTHONDONTWRITEBYTECODE from a source folder).

Run: ``python benchmarks/bench_realprs_verdict.py [--rounds N] [--keep DIR] [--profile PR] [--code REF]
[--no-bytecode]`` (``--code``: time infx as of a git ref, e.g. before a speed change;
``--keep``: write the worlds there and reuse them on the next run; ``--profile``: print
cProfile's top functions of one in-process verdict of that PR's world).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
from bench_signoff import typical_world  # noqa: E402

BAR = 3.0


def corpus_worlds(folder: Path) -> dict[str, tuple[Path, int, int]]:
    """name -> (world file, PR number, sign-off comment id), replaying what ``folder`` lacks."""
    from lib import realprs

    found: dict[str, tuple[Path, int, int]] = {}
    project = None
    for number in realprs.corpus_numbers():
        path, meta = folder / f"pr{number}.json", folder / f"pr{number}.meta.json"
        if not (path.exists() and meta.exists()):
            work = Path(tempfile.mkdtemp(prefix=f"replay{number}-", dir=folder))
            if project is None:
                templates = folder / "git-templates"
                templates.mkdir(exist_ok=True)
                os.environ["GIT_TEMPLATE_DIR"] = str(templates)  # clones without sample hooks
                kept = folder / "project"  # a kept folder's project repository, from an earlier run
                project = kept if kept.exists() else realprs.make_project_repo(kept)
            pr = realprs.load(number)
            details = ["- No speculative decoding in this config."]
            _, world, pull, comment = realprs.replay(pr, work, project, "sweep-enabled", details, 90000 + number)
            path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
            meta.write_text(json.dumps({"pr": pull, "comment": comment}), encoding="utf-8")
        ids = json.loads(meta.read_text(encoding="utf-8"))
        found[f"#{number}"] = (path, ids["pr"], ids["comment"])
    return found


def run_once(path: Path, pr: int, comment: int, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "infx", "signoff", "verify", "--world", str(path),
                           "--pr", str(pr), "--comment-id", str(comment), "--format", "json"],
                          capture_output=True, text=True, cwd=path.parent, env=env)
    seconds = time.perf_counter() - start
    found = re.search(r'"(?:overall|result)":\s*"([\w-]+)"', done.stdout)
    return seconds, found.group(1) if found else f"error (exit {done.returncode})"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered) + 0.5) - 1))]


def profile(path: Path, pr: int, comment: int) -> None:
    import cProfile
    import pstats

    from infx.cli import main as cli

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        cli(["signoff", "verify", "--world", str(path), "--pr", str(pr), "--comment-id", str(comment),
             "--format", "json"])
    except SystemExit:
        pass
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stderr)
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(20)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--profile", type=int, default=None)
    parser.add_argument("--code", default=None,
                        help="time infx as of this git ref (the worlds are replayed with the current code)")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE as set (compile on every run)")
    args = parser.parse_args()
    os.environ.setdefault("INFX_BOT_LOGIN", "github-actions[bot]")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        worlds = corpus_worlds(folder)
        if args.profile is not None:
            profile(*worlds[f"#{args.profile}"])
            return 0
        site = Path(tmp) / "site"
        if args.code:
            site.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.code, "infx"], check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "x", "-C", str(site)], input=archive, check=True)
        else:
            shutil.copytree(ROOT / "infx", site / "infx", ignore=shutil.ignore_patterns("__pycache__"))
        env = os.environ | {"GITHUB_STEP_SUMMARY": "", "PYTHONPATH": str(site)}
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        elif not compileall.compile_dir(site / "infx", quiet=1):
            sys.exit("compiling the copy of infx failed")
        typical = Path(tmp) / "typical.json"
        typical.write_text(json.dumps(typical_world()), encoding="utf-8")
        runs = {"typical world": (typical, 3412, 5003)} | worlds
        times: dict[str, list[float]] = {name: [] for name in runs}
        verdicts: dict[str, str] = {}
        for _ in range(args.rounds):
            for name, (path, pr, comment) in runs.items():
                seconds, verdicts[name] = run_once(path, pr, comment, env)
                times[name].append(seconds)
        sizes = {name: path.stat().st_size / 1e6 for name, (path, _, _) in runs.items()}
    print(f"{'world':<15}{'MB':>6}{'p50':>9}{'p95':>9}{'max':>9}  verdict")
    for name in runs:
        print(f"{name:<15}{sizes[name]:>6.1f}{statistics.median(times[name]):>8.2f}s{p95(times[name]):>8.2f}s"
              f"{max(times[name]):>8.2f}s  {verdicts[name]}")
    corpus = [t for name, values in times.items() if name != "typical world" for t in values]
    high = p95(corpus)
    print(f"{'corpus (all)':<15}{'':>6}{statistics.median(corpus):>8.2f}s{high:>8.2f}s{max(corpus):>8.2f}s"
          f"  bar p95 {BAR:.1f}s: {'within' if high <= BAR else 'OVER'}")
    return 0 if high <= BAR else 1


if __name__ == "__main__":
    sys.exit(main())
