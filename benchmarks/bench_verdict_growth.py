"""Verdict growth: CPU and requests of one sign-off verification as a PR grows, beside a baseline.

Each world is seed 000 (tests/data/worlds/signoff_seed000.yaml) grown along one axis:
- keys: the PR appends N more config keys to its changelog entry, each a copy of the
  entry it changes under a new key in configs/amd-master.yaml (so the sweep's jobs still
  cover every row and the verdict stays PASS: every check judges all N configs); the
  entry's DRAM-offload rows are given a backend first, so that the head's master config
  passes validation and its plan is built (the typical PR's path, not the error path);
- comments: N more conversation comments before the sign-off.
Every world is verified in process against the fake server (infx.github.fake) after one
warm-up verification, ROUNDS times, the sizes of an axis in turn within each round (paired);
each verification starts with infx's module-level caches empty (cold_caches: a bot process
gives one verdict, so nothing it parsed for an earlier one may be reused); printed per size: the bot's CPU (the main thread's CPU time: the client and the verdict, the
least over the rounds), the whole process's CPU (the fake server's threads too, least),
the HTTP requests the fake served, and the verdict. The bar (issue 21): the bot's CPU at
1,000 keys <= 10x its CPU at 10 keys (the ratio of the least figures; the per-round paired
ratios are printed beside it).

The same worlds are verified side by side by the code of a baseline revision (default
BASELINE, main before the verdict's costs were made linear), read with `git archive` into
a temporary folder; `--baseline none` skips it, and so does a checkout without git.
Run: ``python benchmarks/bench_verdict_growth.py [--rounds N] [--baseline REV|none]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests/data/worlds/signoff_seed000.yaml"
MASTER, CHANGELOG = "configs/amd-master.yaml", "perf-changelog.yaml"
CHANGED = "minimaxm3-fp4-mi355x-atom-agentic-mtp"  # the entry seed 000's PR changes
BASELINE = "4106f5e"  # main before the verdict's costs were made linear (issue 21)
SIZES = {"keys": (10, 100, 300, 1000), "comments": (10, 100, 300, 1000)}
BAR = 10.0
DRAM = "kv-offloading: dram, kv-offload-backend: { name: vllm-simple },"


def grown_world(axis: str, size: int) -> dict:
    """Seed 000 with `size` appended config keys, or `size` more comments."""
    from infx import yamlio

    world = yamlio.load_file(SEED)
    for commit in world["commits"].values():  # seed 000's `kv-offloading: dram` rows name no
        files = commit.get("files") or {}     # backend, which the master schema's rules refuse:
        if MASTER in files:                   # its head plan is unreadable, an error path
            files[MASTER] = files[MASTER].replace("kv-offloading: dram,", DRAM)
    pull = world["pulls"][0]
    if axis == "keys":
        files = world["commits"][pull["commits"][0]]["files"]
        master = files[MASTER]
        block = master[master.index(f"{CHANGED}:"):].rstrip("\n")
        keys = [f"{CHANGED}-g{i:04d}" for i in range(size)]
        files[MASTER] = master.rstrip("\n") + "\n" + "".join(
            "\n" + block.replace(f"{CHANGED}:", f"{key}:", 1) + "\n" for key in keys)
        named = f"    - {CHANGED}\n"
        files[CHANGELOG] = files[CHANGELOG].replace(named, named + "".join(f"    - {k}\n" for k in keys))
    else:
        chatter = [{"id": 7000 + i, "user": f"user{i % 7}", "author_association": "CONTRIBUTOR",
                    "body": f"review note {i}", "created_at": "2026-09-23T10:00:00Z",
                    "updated_at": "2026-09-23T10:00:00Z"} for i in range(size)]
        pull["comments"] = pull["comments"][:1] + chatter + pull["comments"][1:]
    return world


def cold_caches() -> None:
    """Empty every module-level functools cache of infx, as a new process has them: a bot
    process gives one verdict, so a parse or scan remembered from an earlier verification of
    the same world (an equal text) is not part of what a verdict costs."""
    for name, module in list(sys.modules.items()):
        if name == "infx" or name.startswith("infx."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                    value.cache_clear()


def verify_once(world: dict) -> tuple[float, float, int, str]:
    """(bot CPU, process CPU, requests served, verdict) of one verification."""
    from infx.github.fake import FakeGitHub
    from infx.signoff import pipeline
    from infx.signoff.trigger.gating import SignoffRef, Trigger

    cold_caches()
    with FakeGitHub(world) as fake:
        trigger = Trigger(True, "bench", 3412, SignoffRef("issue_comment", 5003))
        options = pipeline.Options(now=datetime(2026, 9, 24, tzinfo=timezone.utc))
        thread, process = time.thread_time(), time.process_time()
        result = pipeline.verify(fake.client(), world["repo"], trigger, options)
        thread, process = time.thread_time() - thread, time.process_time() - process
        verdict = result.verdict.overall.value if result.verdict else f"{result.kind}: {result.reason}"
        return thread, process, len(fake.requests), verdict


def measure(rounds: int) -> dict[str, list[dict]]:
    """Every size of every axis, measured with the infx on sys.path: the sizes of an axis are
    verified in turn within each round (paired: a slower stretch of a shared machine hits every
    size of that round alike), and each size keeps its least CPU over the rounds (the least
    noise-inflated figure of the same work) and the per-round CPU for the paired ratios."""
    os.environ.setdefault("INFX_BOT_LOGIN", "github-actions[bot]")  # as the workflows name it
    verify_once(grown_world("keys", 1))  # imports and first-use caches are not the verdict's growth
    table: dict[str, list[dict]] = {}
    for axis, sizes in SIZES.items():
        worlds = {size: grown_world(axis, size) for size in sizes}
        runs: dict[int, list[tuple[float, float, int, str]]] = {size: [] for size in sizes}
        for _ in range(rounds):
            for size in sizes:
                runs[size].append(verify_once(worlds[size]))
        table[axis] = [{"size": size, "bot": min(r[0] for r in runs[size]),
                        "process": min(r[1] for r in runs[size]), "requests": runs[size][-1][2],
                        "verdict": runs[size][-1][3], "rounds": [r[0] for r in runs[size]]}
                       for size in sizes]
    return table


def baseline(rev: str, rounds: int) -> tuple[dict[str, list[dict]] | None, str]:
    """The same measurement with the code of `rev` (its `infx` package), or None and why not."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "infx"], capture_output=True)
    if archive.returncode:
        return None, f"baseline {rev} skipped: {archive.stderr.decode().strip() or 'git archive failed'}"
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        child = subprocess.run([sys.executable, __file__, "--child", tmp, "--rounds", str(rounds)],
                               capture_output=True, text=True, timeout=3600)
    if child.returncode:
        return None, f"baseline {rev} failed: {child.stderr.strip().splitlines()[-1:]}"
    return json.loads(child.stdout), f"baseline: {rev}"


def show(table: dict[str, list[dict]], base: dict[str, list[dict]] | None) -> float:
    """Print the table; return the bot-CPU ratio 1,000 keys / 10 keys."""
    print(f"{'axis':<9}{'size':>6}{'bot CPU':>10}{'process':>10}{'requests':>9}"
          + (f"{'baseline':>10}{'speed-up':>9}" if base else "") + "  verdict")
    for axis, rows in table.items():
        for index, row in enumerate(rows):
            line = (f"{axis:<9}{row['size']:>6}{row['bot']:>9.3f}s{row['process']:>9.3f}s"
                    f"{row['requests']:>9}")
            if base:
                old = base[axis][index]
                line += f"{old['bot']:>9.3f}s{old['bot'] / row['bot']:>8.1f}x"
            print(line + f"  {row['verdict']}")
    keys = {row["size"]: row for row in table["keys"]}
    ratio = keys[1000]["bot"] / keys[10]["bot"]
    paired = sorted(big / small for big, small in zip(keys[1000]["rounds"], keys[10]["rounds"], strict=True))
    old = ""
    if base:
        before = {row["size"]: row["bot"] for row in base["keys"]}
        old = f" (baseline {before[1000] / before[10]:.0f}x)"
    print(f"bot CPU 1,000 keys / 10 keys: {ratio:.1f}x (least CPU of {len(paired)} rounds each){old}, "
          f"bar {BAR:.0f}x; paired per round: {', '.join(f'{r:.1f}x' for r in paired)} "
          f"(median {statistics.median(paired):.1f}x)")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default=BASELINE, help="a git revision, or 'none'")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # measure with the infx under this folder
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, args.child)
        import infx

        if not Path(infx.__file__).resolve().is_relative_to(Path(args.child).resolve()):
            raise SystemExit(f"the baseline's infx was not imported (got {infx.__file__})")
        print(json.dumps(measure(args.rounds)))
        return 0
    sys.path.insert(0, str(ROOT))
    table = measure(args.rounds)
    base, note = (None, "baseline skipped (--baseline none)") if args.baseline == "none" else \
        baseline(args.baseline, max(1, args.rounds // 3))
    print(note)
    ratio = show(table, base)
    ok = ratio <= BAR
    print("within bars" if ok else "OVER BAR")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
