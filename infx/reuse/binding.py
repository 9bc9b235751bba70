"""An authorization covers the PR as it was when the command was posted (PRODUCT §4.6).

The head the commenter saw is read from GitHub's own clock, never from commit dates (which
the PR author writes): every push to a PR queues `pull_request` workflow runs whose
`created_at` GitHub stamps and whose `head_sha` is the new head, so the head when a comment
was posted is the head of the newest such run created at or before the comment. If that
head and the one being decided differ in benchmark-affecting content
(infx.benchmark_content: the plan's changelog entries, the affected config blocks,
recipes, launchers), the command no longer covers the PR and a new one is needed.

Fail closed: no run before the comment, a head force-pushed out of the PR, or content
that cannot be compared all void the authorization, with a message saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from infx import trust
from infx.benchmark_content import Tree, Unreadable, differences
from infx.reuse.model import RunFacts

NEW_COMMAND = "post a new /reuse-sweep-run (or /use <run_id>) command for the current head"


def _when(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, str) and value:
        try:
            return _when(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def head_when_posted(runs: Sequence[RunFacts] | Sequence[Any], posted_at: object, *, branch: str,
                     head_repo: str | None) -> str | None:
    """The PR head at `posted_at`: the head of the newest pull_request run created by then."""
    posted = _when(posted_at)
    if posted is None:
        return None
    best: tuple[datetime, int, str] | None = None
    for run in runs:
        created = _when(run.created_at)
        if run.event != "pull_request" or created is None or created > posted or not run.head_sha:
            continue
        if run.head_branch not in (None, branch):
            continue
        run_repo = trust.head_repo_of(run)
        if head_repo and run_repo and run_repo != head_repo:
            continue
        if best is None or (created, run.id) > best[:2]:
            best = (created, run.id, run.head_sha)
    return None if best is None else best[2]


def binding_problem(*, comment_ref: str, seen: str | None, head: str, pr_commits: Sequence[str],
                    base: str, tree: Callable[[str], Tree]) -> str | None:
    """Why the authorization does not cover `head`, or None when it does.

    `seen` is the head when the command was posted (head_when_posted); `tree(sha)` reads a
    commit's files; `base` is the PR's base commit.
    """
    if seen is None:
        return (f"{comment_ref} cannot be tied to a PR head: no pull_request workflow run was "
                f"created before it, so what it authorized is unknown; {NEW_COMMAND}")
    if seen == head:
        return None
    if seen not in set(pr_commits):
        return (f"{comment_ref} was posted when the PR head was {seen[:12]}, which is no longer "
                f"part of the PR (force-pushed away); {NEW_COMMAND}")
    try:
        changed = differences(tree(seen), tree(head), tree(base))
    except Unreadable as exc:
        return (f"{comment_ref} was posted when the PR head was {seen[:12]}; whether the head "
                f"{head[:12]} changed what it benchmarks cannot be told ({exc}); {NEW_COMMAND}")
    if changed:
        return (f"{comment_ref} was posted when the PR head was {seen[:12]}; a later push changed "
                f"benchmark-affecting content ({', '.join(changed)}), so the command no longer "
                f"covers head {head[:12]}; {NEW_COMMAND}")
    return None
