"""Binding: which PR and which head a sign-off speaks for (PRODUCT §4.8), decided without I/O.

A sign-off belongs to the PR its comment or review is on, and covers the head the signer
saw: a review's `commit_id`, or for a comment the PR head when it was posted, read from
records a push cannot suppress exactly as the reuse resolver reads it
(`infx.reuse.posted_head.head_seen`: the newest `pull_request` run's head by then, or any commit
pushed after it, each of which must be inherited from; a force-push after that run or an
unreadable timeline binds the sign-off to nothing). A later head inherits the sign-off only when
the PR's own changes are identical to what was signed, decided as GitHub's patch-id
would: the PR's diff against its merge base, path by path (status, previous name and
the patch with hunk line numbers dropped), for the signed head (GitHub's compare of the
default branch with it) and for the assessed head (the PR's files). A plain merge of the
default branch leaves every path's patch unchanged, so the head inherits; any change of
the author's own, benchmark-neutral or not, changes a patch or the set of paths, and a new
sign-off is needed. Patch-id drops where a hunk is, so a hunk that sits at other lines than
signed is taken as the same only where the default branch's change of that file between the
signed head's merge base and the assessed head's moved it, line for line (`explained`);
elsewhere the change itself moved (to another block of the same lines). A path whose patch GitHub does not give (binary or too large) can
never be proven identical: no inheritance (fail closed).

Who may re-verify: a dispatched re-verification is started by the signer, or by someone
whose `role_name` is maintain or admin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from infx.commands.authorization import ELEVATED_ROLES
from infx.plan.benchmark_content import COMPARE_FILE_LIMIT
from infx.reuse.posted_head import head_seen, too_many_later
from infx.signoff.model import ChangedFile, Comment

DISPATCH_ROLES = ELEVATED_ROLES  # besides the signer, who may re-verify a sign-off
_RANGES = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)  # a hunk's header
NEW_SIGNOFF = "a CODEOWNER must sign off the current head"


def signoff_record(kind: str, source_id: int | None, body: str) -> str:
    """What a verdict records of the sign-off it judged: which one (kind and id) and a hash
    of its text, so that a later head can tell it was deleted or edited since."""
    import hashlib

    text = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{kind}:{int(source_id or 0)}:{text}"


def judged_signoff(record: str | None) -> tuple[str, int] | None:
    """(kind, id) of the sign-off a verdict's record (signoff_record) names; None when the
    record is absent or not in that form."""
    parts = (record or "").split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1])


@dataclass(frozen=True)
class Binding:
    """Whether the sign-off covers the assessed head; `seen` is the head it was posted on."""

    covered: bool
    reason: str
    seen: str | None = None
    # paths whose own change is the same text at other lines: decided once it is known whether
    # the default branch changed them since the signed head's merge base (inherits' `base_changed`)
    moved: tuple[str, ...] = ()
    # commits pushed after `seen` that may have been the head the signer saw (HeadSeen.later):
    # each must be inherited from too
    later: tuple[str, ...] = ()

    @property
    def carried_from(self) -> str | None:
        """The signed head when the assessed head inherits the sign-off from it."""
        return self.seen if self.covered and self.seen else None


def signoff_pr(signoff: Comment, repo: str) -> int | None:
    """The PR (or issue) of `repo` the sign-off is on, as GitHub's own `issue_url` /
    `pull_request_url` name it (Comment.issue_repo, issue_number); None when they name none
    of `repo`'s (another repository's, or a draft that was never posted)."""
    if signoff.issue_number is None or signoff.issue_repo.lower() != repo.lower():
        return None
    return signoff.issue_number


def reviewed_head(signoff: Comment) -> str | None:
    """The head a review sign-off was submitted on (GitHub's `commit_id`); None for a
    conversation or inline review comment, whose head is the PR head when it was posted."""
    return (signoff.commit_id or None) if signoff.kind == "review" else None


def belongs_problem(comment_pr: int | None, pr_number: int, what: str) -> str | None:
    """Why the sign-off cannot be used for this PR, or None when it is this PR's."""
    if comment_pr == pr_number:
        return None
    where = f"PR #{comment_pr}" if comment_pr is not None else "no pull request of this repository"
    return (f"{what} is on {where}, not on PR #{pr_number}: a sign-off only speaks for the PR it "
            "was posted on")


def dispatch_problem(actor: str, signer: str, record: dict[str, str] | None) -> str | None:
    """A dispatched re-verification needs the signer, or maintain/admin (`role_name`)."""
    if actor.lower() == signer.lower():
        return None
    if record is not None and record.get("role_name") in DISPATCH_ROLES:
        return None
    role = (record or {}).get("role_name") or "no"
    return (f"{actor} has {role} access and is not the signer (@{signer}); a re-verification of "
            "a sign-off is dispatched by its signer or by a maintainer or admin")


def normalised_patch(patch: str) -> str:
    """A patch without its hunk line numbers: what patch-id compares."""
    return _RANGES.sub("@@", patch.replace("\r\n", "\n"))


def own_changes(files: Sequence[ChangedFile]) -> tuple[dict[str, tuple], list[str]]:
    """path -> (status, previous name, normalised patch), and the paths without a patch."""
    changes: dict[str, tuple] = {}
    unknown: list[str] = []
    for item in files:
        if item.patch is None:
            # a pure rename or a mode change has no patch and nothing to compare inside
            if item.status == "renamed" and not (item.additions or item.deletions):
                changes[item.filename] = (item.status, item.previous_filename, "")
                continue
            unknown.append(item.filename)
            continue
        changes[item.filename] = (item.status, item.previous_filename, normalised_patch(item.patch))
    return changes, unknown


def hunk_positions(patch: str | None) -> tuple[str, ...]:
    """The hunk headers of a patch: where in the file (old and new line numbers) each change is."""
    return tuple(m.group(0) for m in _RANGES.finditer((patch or "").replace("\r\n", "\n")))


def hunk_ranges(patch: str | None) -> list[tuple[int, int, int, int]]:
    """(old start, old length, new start, new length) of each hunk of a patch."""
    return [(int(a), int(b) if b is not None else 1, int(c), int(d) if d is not None else 1)
            for a, b, c, d in _RANGES.findall((patch or "").replace("\r\n", "\n"))]


def _shift(base_patch: str, first: int, last: int) -> int | None:
    """How many lines the default branch's change of a file (``base_patch``) moves old lines
    ``first``..``last``: the lines it adds above them less those it removes there; None when it
    removes one of them or adds lines between them (they changed: not a move of the lines
    around them). Its hunks' context lines are not changes."""
    removed: list[int] = []
    inserted: list[int] = []  # the old line each added line comes before
    patch = base_patch.replace("\r\n", "\n")
    for header in _RANGES.finditer(patch):
        old = int(header.group(1)) if header.group(2) != "0" else int(header.group(1)) + 1
        for row in patch[header.end():].split("\n")[1:]:
            if row.startswith("@@"):
                break
            if row.startswith("+"):
                inserted.append(old)
            elif row.startswith("-"):
                removed.append(old)
                old += 1
            elif row.startswith(" ") or row == "":
                old += 1
    if any(first <= n <= last for n in removed) or any(first < n <= last for n in inserted):
        return None
    return sum(1 for n in inserted if n <= first) - sum(1 for n in removed if n < first)


def explained(signed: ChangedFile, head: ChangedFile, base_patch: str | None) -> bool:
    """Whether the same change (patch-id) at other lines in the assessed head is where the
    default branch's change of the file since the signed head's merge base (``base_patch``,
    None: not given) moved it: each hunk's old lines shifted by exactly what that change adds
    and removes above them, and none of them changed."""
    if base_patch is None:
        return False
    before, after = hunk_ranges(signed.patch), hunk_ranges(head.patch)
    if len(before) != len(after):
        return False
    for (start, length, _, _), (moved_to, _, _, _) in zip(before, after, strict=True):
        shift = _shift(base_patch, start, start + max(length, 1) - 1)
        if shift is None or start + shift != moved_to:
            return False
    return True


def moved_paths(signed: Sequence[ChangedFile], head: Sequence[ChangedFile]) -> list[str]:
    """Paths whose own change is the same text in both diffs (patch-id equal) at other lines."""
    before = {f.filename: hunk_positions(f.patch) for f in signed}
    after = {f.filename: hunk_positions(f.patch) for f in head}
    return sorted(p for p in set(before) & set(after) if before[p] != after[p])


def changed_paths(signed: Sequence[ChangedFile], head: Sequence[ChangedFile]) -> list[str]:
    """Paths whose own change differs between the signed head and the assessed head."""
    before, _ = own_changes(signed)
    after, _ = own_changes(head)
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def decide(*, posted_at: object, runs: Sequence[Any], head: str, head_ref: str,
           head_repo: str | None, head_files: Sequence[ChangedFile] | None,
           signed_files: Sequence[ChangedFile] | None, timeline: Sequence[Any] | None,
           review_commit: str | None = None, pr_number: int | None = None,
           pulls: Any = None) -> Binding:
    """Whether the sign-off posted at `posted_at` covers `head`.

    `runs` are the PR branch's workflow runs, `timeline` the PR's timeline events (None:
    unreadable), `review_commit` a review's `commit_id` (`pr_number`, `pulls`: head_seen's);
    `head_files` the PR's files now;
    `signed_files` the diff of the signed head against its merge base (None when not read).
    """
    seen = head_seen(runs, posted_at, branch=head_ref, head_repo=head_repo, timeline=timeline,
                     review_commit=review_commit, pr_number=pr_number, pulls=pulls)
    if seen.sha is None:
        return Binding(False, f"the head the sign-off covers is unknown: {seen.problem}; {NEW_SIGNOFF}")
    crowd = too_many_later(seen.later, head)
    if crowd:  # no single head to carry from (`seen` None: nothing is compared)
        return Binding(False, f"the sign-off was posted when the PR head was {seen.sha[:12]} or a later "
                       f"commit: {crowd}; {NEW_SIGNOFF}")
    return replace(inherits(seen.sha, head, head_files, signed_files), later=seen.later)


def inherits(seen: str, head: str, head_files: Sequence[ChangedFile] | None,
             signed_files: Sequence[ChangedFile] | None,
             base_changes: Mapping[str, str | None] | None = None, *,
             after: str | None = None) -> Binding:
    """Whether `head` inherits what was signed (or verified) on `seen`: the same commit, or
    the PR's own changes identical path by path (`signed_files`: `seen`'s diff against its
    merge base; `head_files`: the PR's files now). A change of the same text at other lines of
    its file is identical only where the default branch's change of that file between the two
    merge bases moved it there (`base_changes`: path -> that change's patch, None when not
    read; `explained`); otherwise the change itself moved (to a repeated block, say). Without
    `base_changes`, the result names the paths that need it (`Binding.moved`). `after`: the
    newest run's head, when `seen` is a commit pushed after it (HeadSeen.later)."""
    if seen == head:
        return Binding(True, f"the sign-off was posted on the assessed head {head[:12]}", seen)
    short = f"the sign-off was posted when the PR head was {seen[:12]}"
    if after is not None:
        short = (f"the sign-off was posted when the PR head was {after[:12]} or a commit pushed "
                 f"after it, such as {seen[:12]} (no record tells when it was pushed)")
    if head_files is None or signed_files is None:
        return Binding(False, f"{short}; the PR's changes then and now could not be compared; "
                       f"{NEW_SIGNOFF}", seen)
    if len(signed_files) >= COMPARE_FILE_LIMIT:
        return Binding(False, f"{short}; its diff lists {len(signed_files)} files, more than can "
                       f"be compared; {NEW_SIGNOFF}", seen)
    _, unknown = own_changes([*signed_files, *head_files])
    if unknown:
        return Binding(False, f"{short}; GitHub gives no patch for {', '.join(sorted(set(unknown))[:3])}, "
                       f"so the changes cannot be proven identical; {NEW_SIGNOFF}", seen)
    differ = changed_paths(signed_files, head_files)
    if differ:
        shown = ", ".join(differ[:5]) + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
        return Binding(False, f"{short}; since then the PR's own changes differ in {shown}; "
                       f"{NEW_SIGNOFF}", seen)
    moved = moved_paths(signed_files, head_files)
    signed_by, head_by = {f.filename: f for f in signed_files}, {f.filename: f for f in head_files}
    unexplained = [p for p in moved if base_changes is None
                   or not explained(signed_by[p], head_by[p], base_changes.get(p))]
    if unexplained:
        shown = ", ".join(unexplained[:5]) + (f" and {len(unexplained) - 5} more" if len(unexplained) > 5 else "")
        why = ("what the default branch changed since could not be read" if base_changes is None else
               "where the default branch's change of the file since does not move it: the change "
               "itself moved")
        return Binding(False, f"{short}; the PR's change to {shown} is the same text at other lines of "
                       f"the file, {why}; {NEW_SIGNOFF}", seen, tuple(unexplained) if base_changes is None else ())
    return Binding(True, f"carried from {seen[:12]}: the PR's own changes (its diff against the "
                   "merge base, path by path) are identical to what was signed", seen)
