"""Fake GitHub rename matching: a real-sized recipe reshuffle, before and after side by side.

A PR of the reference deleted 9 srt-slurm recipes and added 14 (renamed and edited ones
among them); the fake server's old rename matching compared every (removed, added) pair
character by character (difflib.SequenceMatcher) and took about a minute there. This
builds trees of that shape (recipe-sized YAML, 9 removed, 14 added: 6 renamed with an
edit, 3 renamed with a bigger rewrite, 5 new), then times the old pairwise matching (kept
below as the "before" reference) and the current ``tree_changes`` pairing, the old one once, the new best of three,
and checks both pair the same files. Run: ``python benchmarks/bench_fake_renames.py``
(40-line recipes; ``--full``: 120-line ones, where "before" takes minutes: measured
166.5 s before vs 0.014 s after on the shared 2-core machine, same 9 renames).
"""

from __future__ import annotations

import difflib
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infx.github.fake.pr_files import RENAME_SIMILARITY, tree_changes  # noqa: E402

REMOVED, ADDED = 9, 14
LINES = 120 if "--full" in sys.argv else 40  # lines per recipe; the old matching is quadratic in size


def recipe(seed: int) -> str:
    rng = random.Random(seed)
    out = [f"name: recipe-{seed}\n", "model:\n", f"  path: /models/m{seed}\n"]
    for i in range(LINES):
        out.append(f"  setting_{rng.randrange(10_000)}_{i}: {rng.choice(['true', 'false', rng.random()])}\n")
    return "".join(out)


def trees() -> tuple[dict[str, str], dict[str, str]]:
    base = {f"recipes/old/r{i}.yaml": recipe(i) for i in range(REMOVED)}
    head = {}
    for i in range(6):  # renamed with a one-line edit
        head[f"recipes/new/r{i}.yaml"] = base[f"recipes/old/r{i}.yaml"].replace("true", "TRUE", 1)
    for i in range(6, 9):  # renamed with a quarter of the lines rewritten
        lines = base[f"recipes/old/r{i}.yaml"].splitlines(keepends=True)
        head[f"recipes/new/r{i}.yaml"] = "".join(
            line if n % 4 else f"  rewritten_{n}: 1\n" for n, line in enumerate(lines))
    for i in range(9, ADDED):
        head[f"recipes/new/r{i}.yaml"] = recipe(100 + i)
    return base, head


def before(gone: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    """The previous matching: exact content, then SequenceMatcher over every pair."""
    pairs: dict[str, str] = {}
    by_text: dict[str, list[str]] = {}
    for path, text in new.items():
        by_text.setdefault(text, []).append(path)
    for old, text in gone.items():
        if by_text.get(text):
            pairs[old] = by_text[text].pop(0)
    free_new = [p for p in new if p not in pairs.values()]
    candidates = []
    for old in (p for p in gone if p not in pairs):
        for cand in free_new:
            matcher = difflib.SequenceMatcher(None, gone[old], new[cand], autojunk=False)
            if matcher.real_quick_ratio() >= RENAME_SIMILARITY and matcher.ratio() >= RENAME_SIMILARITY:
                candidates.append((-matcher.ratio(), old, cand))
    for _, old, cand in sorted(candidates):
        if old not in pairs and cand not in pairs.values():
            pairs[old] = cand
    return pairs


def best_of(runs: int, action) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> int:
    base, head = trees()
    old_seconds, old_pairs = best_of(1, lambda: before(base, head))  # once: it is the slow one
    new_seconds, changes = best_of(3, lambda: tree_changes(base, head))
    new_pairs = {c.previous_filename: c.filename for c in changes if c.status == "renamed"}
    size = sum(map(len, base.values())) + sum(map(len, head.values()))
    print(f"rename matching, {REMOVED} removed x {ADDED} added recipes ({size / 1024:.0f} KiB of text):")
    print(f"  before (pairwise SequenceMatcher): {old_seconds:8.3f} s   renames {len(old_pairs)}")
    print(f"  after  (line index, git's score):  {new_seconds:8.3f} s   renames {len(new_pairs)}"
          f"   (whole tree_changes, patches included)")
    same = old_pairs == new_pairs
    print(f"  same pairs: {'yes' if same else 'NO'}   speed-up: {old_seconds / max(new_seconds, 1e-9):.0f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
