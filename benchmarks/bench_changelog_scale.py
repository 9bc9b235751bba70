"""Scale of the changelog caps: strict validation of an 80,000-entry changelog, time and memory.

`infx changelog validate` of a head that appends 80,000 entries (one config key and one
description line each, the densest legitimate shape: 9 YAML nodes an entry, 7.2 MB) to a
one-entry history, as a fresh process: best CPU time (user + system, its git children
included) and wall-clock time of N runs, and the peak resident memory of that process (bar:
4 s of CPU and 300 MB; wall-clock is printed too, but on a shared machine it measures the
other tenants as well), beside a plain PyYAML load of the same head
file (``yaml.load`` with the C loader: libyaml parses, PyYAML's constructor builds). With the reference data (../shared) it also validates the
ten-year projection of the reference changelog (infx/limits.yaml: 16.4 MB, about 32,000
entries in the reference's own shape), which must fit the shipped caps.
Run: python benchmarks/bench_changelog_scale.py [--repeat N] [--entries N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_changelog import ENTRY as APPENDED
from bench_scale import ENTRY, F_DATA, FLOOR, HISTORY, UPSTREAM, commit_changelog, new_repo

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
for _name in ("GITHUB_OUTPUT", "INFX_MAX_YAML_BYTES", "INFX_MAX_YAML_NODES"):
    ENV.pop(_name, None)  # the shipped caps are what is measured
TIME_BAR, MEMORY_BAR = 4.0, 300.0
TEN_YEARS_BYTES = 16_400_000  # infx/limits.yaml: 0.40 MB + 10 years x 1.60 MB a year


def measure(command: list[str], cwd: Path) -> tuple[float, float, float, int, str]:
    """(CPU seconds, wall seconds, peak RSS in MB, exit status, stderr) of one fresh process
    (os.wait4: its own usage and that of the children it waited for)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return (usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, process.returncode,
            stderr)


def best(command: list[str], cwd: Path, repeat: int) -> tuple[float, float, float, int, str]:
    """Best CPU and wall time and highest peak memory over ``repeat`` runs (the first
    failure ends it)."""
    cpu, wall, megabytes = float("inf"), float("inf"), 0.0
    for _ in range(repeat):
        used, elapsed, peak, code, stderr = measure(command, cwd)
        if code != 0:
            return used, elapsed, peak, code, stderr
        cpu, wall, megabytes = min(cpu, used), min(wall, elapsed), max(megabytes, peak)
    return cpu, wall, megabytes, 0, ""


def synthetic(repo: Path, entries: int) -> tuple[str, str, int]:
    """(base, head, head bytes): a one-entry history, then ``entries`` appended entries."""
    base = new_repo(repo, {"f-master.yaml": F_DATA / "f-master.yaml",
                           "runners.yaml": F_DATA / "f-runners.yaml"}, HISTORY)
    text = HISTORY + "".join("\n" + ENTRY.format(n=n) for n in range(entries))
    return base, commit_changelog(repo, base, text), len(text.encode())


def reference_ten_years(repo: Path) -> tuple[str, str, int] | None:
    """(base, head, head bytes): the reference repository with its changelog grown to the
    ten-year size by repeating its own entries, then one appended entry (the everyday PR)."""
    if not UPSTREAM.is_dir():
        return None
    history = (UPSTREAM / "perf-changelog.yaml").read_text(encoding="utf-8")
    blocks = ["- config-keys:" + block.rstrip("\n") + "\n"
              for block in history.split("\n- config-keys:")[1:]]
    grown, size, index = [history], len(history.encode()), 0
    while size < TEN_YEARS_BYTES:
        block = "\n" + blocks[index % len(blocks)]
        grown.append(block)
        size += len(block.encode())
        index += 1
    text = "".join(grown)
    base = new_repo(repo, {n: UPSTREAM / "configs" / n for n in
                           ("amd-master.yaml", "nvidia-master.yaml", "runners.yaml")}, text)
    head = text + "\n" + APPENDED
    return base, commit_changelog(repo, base, head), len(head.encode())


def row(label: str, repo: Path, refs: tuple[str, str, int], repeat: int,
        bars: bool) -> bool:
    base, head, size = refs
    command = [sys.executable, "-m", "infx", "changelog", "validate", "--base-ref", base,
               "--head-ref", head, "--pr-number", "7"]
    seconds, wall, megabytes, code, stderr = best(command, repo, repeat)
    if code != 0:
        print(f"{label}: validate failed (exit {code}): {stderr.strip()[:400]}")
        return False
    floor, _, floor_mb, _, _ = best(
        [sys.executable, "-c", FLOOR, str(repo / "perf-changelog.yaml")], repo, repeat)
    ok = seconds <= TIME_BAR and megabytes <= MEMORY_BAR
    verdict = ("ok" if ok else "OVER BAR") if bars else ""
    print(f"{label:44} {size / 1e6:5.1f} MB {seconds:6.2f}s {wall:6.2f}s {megabytes:6.0f} MB   "
          f"{floor:6.2f}s {floor_mb:5.0f} MB  {seconds / floor:4.1f}x  {verdict}")
    return ok or not bars


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--entries", type=int, default=80_000)
    args = parser.parse_args()
    print(f"{'changelog validate (best of ' + str(args.repeat) + ')':44} {'head':>8} "
          f"{'cpu':>7} {'wall':>7} {'peak RSS':>9}   {'plain PyYAML load (cpu)':>23}  ratio")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ok = row(f"{args.entries:,} appended entries (9 nodes each)", work / "synthetic",
                 synthetic(work / "synthetic", args.entries), args.repeat, bars=True)
        projected = reference_ten_years(work / "reference")
        if projected is None:
            print(f"ten-year reference changelog: skipped, reference data not found at {UPSTREAM}")
        else:
            ok &= row("reference changelog grown to its 10-year size", work / "reference",
                      projected, args.repeat, bars=False)
    print(f"bars: {TIME_BAR:.0f} s of CPU and {MEMORY_BAR:.0f} MB at 80,000 entries; "
          + ("within bars" if ok else "OVER A BAR"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
