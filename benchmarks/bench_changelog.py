"""Whole-process timings of the changelog planner and strict validator on the reference data.

Usage: python benchmarks/bench_changelog.py [--repeat N]
Builds a throw-away git repository from ../shared/fixtures/upstream-inferencex, then runs
each command as a fresh process N times and prints the best time beside its bar.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "fixtures" / "upstream-inferencex"
URL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
ENTRY = ("- config-keys:\n    - qwen3.5-fp8-mi355x-sglang\n    - qwen3.5-fp8-mi355x-sglang-mtp\n"
         "  description:\n    - \"Update the SGLang image\"\n  pr-link: XXX\n")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True,
                          capture_output=True).stdout.decode().strip()


def build_repo(where: Path) -> dict[str, str]:
    """Base commit = reference data; then one appended entry; then a link correction."""
    (where / "configs").mkdir()
    for name in ("amd-master.yaml", "nvidia-master.yaml", "runners.yaml"):
        shutil.copy(UPSTREAM / "configs" / name, where / "configs" / name)
    changelog = where / "perf-changelog.yaml"
    history = (UPSTREAM / "perf-changelog.yaml").read_text()
    changelog.write_text(history)
    git(where, "init", "-q", "-b", "main")
    git(where, "config", "user.email", "bench@example.com")
    git(where, "config", "user.name", "bench")
    git(where, "add", ".")
    git(where, "commit", "-q", "-m", "base")
    refs = {"base": git(where, "rev-parse", "HEAD")}
    changelog.write_text(history + "\n" + ENTRY)
    git(where, "commit", "-q", "-am", "append")
    refs["append"] = git(where, "rev-parse", "HEAD")
    git(where, "checkout", "-q", refs["base"])
    changelog.write_text(history.replace(URL + "XXX", URL + "4242"))
    git(where, "commit", "-q", "-am", "correct a link")
    refs["correction"] = git(where, "rev-parse", "HEAD")
    git(where, "checkout", "-q", refs["append"])
    return refs


def best_of(command: list[str], cwd: Path, repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_OUTPUT", None)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            sys.exit(f"command failed: {' '.join(command)}\n{result.stderr.decode()}")
        best = min(best, elapsed)
    return best


def main() -> int:
    """Print every figure; exit status 1 when any is over its bar."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if not UPSTREAM.is_dir():
        print(f"skipped: reference data not found at {UPSTREAM}")
        return 0
    python = [sys.executable, "-m", "infx"]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        refs = build_repo(repo)
        rows = [
            ("plan one entry (2 keys) vs both reference master files",
             [*python, "plan", "--base-ref", refs["base"], "--head-ref", refs["append"]],
             0.35, "reference 3.8-5.2 s"),
            ("plan the same entry with --trim-conc --all-evals",
             [*python, "plan", "--base-ref", refs["base"], "--head-ref", refs["append"],
              "--trim-conc", "--all-evals"], 0.35, "reference 3.8-5.2 s"),
            ("strict validation, 772-entry changelog (pr-link correction)",
             [*python, "changelog", "validate", "--base-ref", refs["base"], "--head-ref",
              refs["correction"], "--pr-number", "4242"], 0.3, "-"),
            ("strict validation + planning of one appended entry",
             [*python, "changelog", "validate", "--base-ref", refs["base"], "--head-ref",
              refs["append"], "--pr-number", "4242"], None, "-"),
        ]
        print(f"{'measurement':62} {'best':>8} {'bar':>8}  note")
        over = []
        for label, command, bar, note in rows:
            seconds = best_of(command, repo, args.repeat)
            bar_text = f"{bar:.2f} s" if bar else "-"
            verdict = "" if bar is None else ("ok" if seconds <= bar else "OVER BAR")
            print(f"{label:62} {seconds:7.3f}s {bar_text:>8}  {note} {verdict}")
            if verdict == "OVER BAR":
                over.append(label)
    if over:
        print(f"over its bar: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
