"""Sign-off Evidence from the NVIDIA real-PR corpus (tests/data/realprs_nvidia), tests only.

A corpus PR is a squash-merged PR of the reference repository whose base and head trees were
trimmed to what the tree-only checks read (make_realprs_nvidia.py). Its Evidence is the one
the probe of issue 26 built from the full trees: the policy world ``seed000`` (its sign-off,
which ticks every item and carries a draft-precision record), this checkout's trusted policy
and golden curves on the default branch, the PR's trees and changed files, and the merge's
commit time as the clock. The generator builds the same Evidence from the full trees, so the
two are compared like for like.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from infx.signoff import per_verdict
from infx.signoff.checks import arch, chat, deprecated, draft, golden, images, patch
from infx.signoff.model import ChangedFile, Evidence, Outcome
from infx.signoff.table import load_table
from lib.signoff_policy_support import trusted_policy_files, world_evidence

CORPUS = Path(__file__).resolve().parents[1] / "data" / "realprs_nvidia"
# the checks that read only the PR's trees and the trusted policy (no sweep, comment or API)
CHECKS = {"images": images, "deprecated": deprecated, "arch": arch, "chat": chat, "patch": patch,
          "golden": golden, "draft": draft}
WORLD = "seed000"
CONTEXT = 3  # context lines around each change, as git and GitHub show them


@dataclass(frozen=True)
class NvidiaPR:
    number: int
    title: str
    base_sha: str
    head_sha: str
    merged_at: datetime
    base: dict[str, str]
    head: dict[str, str]  # the whole head tree (base files the PR leaves alone included)


def corpus_numbers() -> list[int]:
    if not CORPUS.is_dir():
        return []
    return sorted(int(p.name) for p in CORPUS.iterdir() if p.is_dir() and p.name.isdigit())


def _files(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


def load(number: int) -> NvidiaPR:
    """A corpus PR: its base tree, and its head tree (the base with the PR's files laid over
    it and its deletions, listed in pr.json, taken out)."""
    folder = CORPUS / str(number)
    meta = json.loads((folder / "pr.json").read_text(encoding="utf-8"))
    base = _files(folder / "base")
    head = {**base, **_files(folder / "head")}
    for path in meta.get("deleted", []):
        head.pop(path, None)
    return NvidiaPR(number, meta["title"], meta["base"], meta["head"],
                    datetime.fromisoformat(meta["merged_at"]), base, head)


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """How ``new`` is made of ``old``: the lines both ends share are matched first, as git
    does, and the rest is aligned without difflib's popular-line heuristic (which, on a file of
    thousands of lines, depends on the file's length; a trimmed master config would then
    diff unlike the whole one)."""
    top = 0
    while top < min(len(old), len(new)) and old[top] == new[top]:
        top += 1
    tail = 0
    while tail < min(len(old), len(new)) - top and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    inner = difflib.SequenceMatcher(None, old[top:len(old) - tail], new[top:len(new) - tail],
                                    autojunk=False).get_opcodes()
    ops = [("equal", 0, top, 0, top)]
    ops += [(tag, i1 + top, i2 + top, j1 + top, j2 + top) for tag, i1, i2, j1, j2 in inner]
    ops.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    merged: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if merged and op[0] == "equal" == merged[-1][0]:
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    return merged


def _span(start: int, stop: int) -> str:
    """A hunk header's range: first line (1-based) and count, the count left out when 1."""
    count = stop - start
    if count == 1:
        return str(start + 1)
    return f"{start if count == 0 else start + 1},{count}"


def patch_between(old: str | None, new: str | None) -> str:
    """The unified-diff hunks from ``old`` to ``new`` (no file header lines), as GitHub's
    ``patch`` field gives them."""
    a, b = (old or "").splitlines(), (new or "").splitlines()
    lines: list[str] = []
    for group in _groups(_opcodes(a, b)):
        first, last = group[0], group[-1]
        lines.append(f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[i1:i2]]
                continue
            lines += ["-" + line for line in a[i1:i2]]
            lines += ["+" + line for line in b[j1:j2]]
    return "\n".join(lines)


def _groups(ops: list[tuple[str, int, int, int, int]]) -> list[list[tuple[str, int, int, int, int]]]:
    """The changes in hunks: each with up to CONTEXT shared lines around it, and two changes
    closer than twice that in one hunk."""
    groups: list[list[tuple[str, int, int, int, int]]] = []
    current: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            current.append((tag, i1, i2, j1, j2))
            continue
        if not current:  # shared lines before the first change: keep the last few
            keep = min(CONTEXT, i2 - i1)
            current = [("equal", i2 - keep, i2, j2 - keep, j2)] if keep else []
            continue
        if i2 - i1 > 2 * CONTEXT:  # a long shared run closes the hunk and opens the next
            current.append(("equal", i1, i1 + CONTEXT, j1, j1 + CONTEXT))
            groups.append(current)
            current = [("equal", i2 - CONTEXT, i2, j2 - CONTEXT, j2)]
        else:
            current.append((tag, i1, i2, j1, j2))
    if any(op[0] != "equal" for op in current):
        if current[-1][0] == "equal":  # trailing shared lines: keep the first few
            _, i1, i2, j1, j2 = current[-1]
            keep = min(CONTEXT, i2 - i1)
            current[-1] = ("equal", i1, i1 + keep, j1, j1 + keep)
        groups.append(current)
    return [[op for op in group if op[1] != op[2] or op[3] != op[4]] for group in groups]


def changed(base: Mapping[str, str], head: Mapping[str, str]) -> list[ChangedFile]:
    """The PR's changed files between two trees, with their patches."""
    files = []
    for path in sorted(set(base) | set(head)):
        old, new = base.get(path), head.get(path)
        if old == new:
            continue
        text = patch_between(old, new)
        body = text.splitlines()
        files.append(ChangedFile(path, "added" if old is None else "removed" if new is None else "modified",
                                 patch=text, additions=sum(1 for ln in body if ln.startswith("+")),
                                 deletions=sum(1 for ln in body if ln.startswith("-"))))
    return files


def evidence(base: Mapping[str, str], head: Mapping[str, str], merged_at: datetime,
             base_sha: str, head_sha: str) -> Evidence:
    """The PR's Evidence over the given trees (full or trimmed), judged at ``merged_at``."""
    seed = world_evidence(WORLD)
    default = {**seed.default_branch_files, **trusted_policy_files()}
    return replace(seed, base_files=dict(base), head_files=dict(head), files=changed(dict(base), dict(head)),
                   now=merged_at, default_branch_files=default,
                   pr=replace(seed.pr, base_sha=base_sha, head_sha=head_sha))


def pr_evidence(pr: NvidiaPR) -> Evidence:
    return evidence(pr.base, pr.head, pr.merged_at, pr.base_sha, pr.head_sha)


def run_checks(ev: Evidence) -> dict[str, Outcome]:
    """Each tree-only check's outcome, the facts they share worked out once."""
    settings = load_table().settings
    with per_verdict.shared(ev):
        return {name: module.run(ev, settings) for name, module in CHECKS.items()}
