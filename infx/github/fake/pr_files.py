"""Compare two trees the way GitHub's pull request files endpoint reports them."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass

RENAME_SIMILARITY = 0.5  # git's default rename threshold (-M50%)


@dataclass(frozen=True)
class FileChange:
    """One changed path: GitHub's `status`, the patch body and line counts."""

    filename: str
    status: str  # added | removed | modified | renamed
    patch: str
    additions: int
    deletions: int
    previous_filename: str | None = None

    @property
    def changes(self) -> int:
        return self.additions + self.deletions


def tree_changes(base: dict[str, str], head: dict[str, str]) -> list[FileChange]:
    """Every changed path between two trees, renames paired by content, sorted by path."""
    removed = sorted(p for p in base if p not in head)
    added = sorted(p for p in head if p not in base)
    renames = _pair_renames({p: base[p] for p in removed}, {p: head[p] for p in added})
    changes = [
        _change(path, base[path], head[path], "modified")
        for path in sorted(set(base) & set(head))
        if base[path] != head[path]
    ]
    for old, new in renames.items():
        changes.append(_change(new, base[old], head[new], "renamed", previous=old))
    paired_new = set(renames.values())
    changes += [_change(p, "", head[p], "added") for p in added if p not in paired_new]
    changes += [_change(p, base[p], "", "removed") for p in removed if p not in renames]
    return sorted(changes, key=lambda c: c.filename)


def _pair_renames(gone: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    """old path -> new path: exact content first, then the most similar above the threshold.

    Similarity is git's rename score: the bytes of the old file found again in the new one
    (here: its lines, as a multiset) over the larger file's size. Candidates are found
    through an index of lines, so the work grows with the lines the files share, never
    with a character-level comparison of every (removed, added) pair.
    """
    pairs: dict[str, str] = {}
    by_text: dict[str, list[str]] = {}
    for path, text in new.items():
        by_text.setdefault(text, []).append(path)
    for old, text in gone.items():
        if by_text.get(text):
            pairs[old] = by_text[text].pop(0)
    taken = set(pairs.values())
    free_new = [p for p in new if p not in taken]
    if not free_new or len(pairs) == len(gone):
        return pairs
    counts = {path: Counter(_lines(new[path])) for path in free_new}
    index: dict[str, list[str]] = {}
    for path, lines in counts.items():
        for line in lines:
            index.setdefault(line, []).append(path)
    candidates = []
    for old in (p for p in gone if p not in pairs):
        size = len(gone[old])
        shared: dict[str, int] = {}
        for line, count in Counter(_lines(gone[old])).items():
            for cand in index.get(line, ()):
                shared[cand] = shared.get(cand, 0) + len(line) * min(count, counts[cand][line])
        for cand, common in shared.items():
            score = common / max(size, len(new[cand]), 1)
            if score >= RENAME_SIMILARITY:
                candidates.append((-score, old, cand))
    for _, old, cand in sorted(candidates):
        if old not in pairs and cand not in taken:
            pairs[old] = cand
            taken.add(cand)
    return pairs


def _lines(text: str) -> list[str]:
    """Lines with their line ends (so their lengths add up to the file's size)."""
    return text.splitlines(keepends=True)


def _change(path: str, old: str, new: str, status: str, previous: str | None = None) -> FileChange:
    patch, additions, deletions = unified_patch(old, new)
    return FileChange(path, status, patch, additions, deletions, previous)


def unified_patch(old: str, new: str) -> tuple[str, int, int]:
    """GitHub's `patch` field (hunks only, no ---/+++ header) and +/- line counts."""
    old_lines = old.splitlines()
    new_lines = new.splitlines()
    hunks = list(difflib.unified_diff(old_lines, new_lines, lineterm="", n=3))[2:]
    additions = sum(1 for line in hunks if line.startswith("+"))
    deletions = sum(1 for line in hunks if line.startswith("-"))
    return "\n".join(hunks), additions, deletions


def full_diff(changes: list[FileChange]) -> str:
    """The `application/vnd.github.diff` text of a pull request."""
    parts = []
    for change in changes:
        old = change.previous_filename or change.filename
        parts.append(f"diff --git a/{old} b/{change.filename}")
        if change.status == "renamed":
            parts += [f"rename from {old}", f"rename to {change.filename}"]
        if change.status == "added":
            parts.append("new file mode 100644")
        if change.status == "removed":
            parts.append("deleted file mode 100644")
        if change.patch:
            parts.append("--- " + ("/dev/null" if change.status == "added" else f"a/{old}"))
            parts.append("+++ " + ("/dev/null" if change.status == "removed" else f"b/{change.filename}"))
            parts.append(change.patch)
    return "\n".join(parts) + ("\n" if parts else "")
