"""The head a command or sign-off was posted on, and whether it still covers the PR (PRODUCT §4.6, §4.8).

The head the commenter saw is read from GitHub's own records, never from commit dates (which
the PR author writes). A review carries it: its `commit_id`. For a comment, every push to a
PR queues `pull_request` workflow runs whose `created_at` GitHub stamps and whose `head_sha`
is the new head, so the head when the comment was posted is the head of the newest such run
created by then, unless the PR's timeline shows that the head may have moved without a run
recording it: a force-push, deletion or restoration of the head branch after that run (a
force-push can bring back a head whose runs predate what the signer saw), or a commit
pushed after it whose message tells GitHub to skip workflows (`[skip ci]` and its kin) and
that no run has as head. Such a gap, an unreadable timeline or no run before the comment
leave the head unknown: the authorization or sign-off covers nothing (fail closed, with
the reason). Sign-off binding (infx.signoff.trigger.binding) and reuse binding use this one rule.

If the head seen and the one being decided differ in benchmark-affecting content
(infx.plan.benchmark_content), a reuse command no longer covers the PR and a new one is needed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from infx import trust
from infx.github.models import WorkflowRun
from infx.plan.benchmark_content import Tree, Unreadable, differences

NEW_COMMAND = "post a new /reuse-sweep-run (or /use <run_id>) command for the current head"


def github_time(value: object) -> datetime | None:
    """A GitHub timestamp (ISO 8601, `Z` or offset; a datetime as is) as an aware datetime, or None."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, str) and value:
        try:
            return github_time(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def dispatched_since(opened: str | None) -> str | None:
    """The first day (YYYY-MM-DD) whose dispatched runs may be a PR's fork sweeps: the day
    before GitHub's `created_at` of the PR (a day's margin, whatever zone GitHub reads a
    bare date in); None when `opened` is no GitHub time. An approval is a comment on the
    PR, so no sweep of it was dispatched before it was opened."""
    when = github_time(opened)
    return (when.astimezone(timezone.utc) - timedelta(days=1)).date().isoformat() if when else None


# GitHub starts no push or pull_request workflow for a head commit whose message has one of
# these (matched without regard to case, to err towards a gap), or a `skip-checks: true` trailer
_SKIP_MARKERS = ("[skip ci]", "[ci skip]", "[no ci]", "[skip actions]", "[actions skip]")
_SKIP_TRAILER = re.compile(r"^skip-checks:\s*true\s*$", re.IGNORECASE | re.MULTILINE)
# timeline events that move the head branch without any new commit being listed
HEAD_MOVES = {"head_ref_force_pushed": "force-pushed", "head_ref_deleted": "deleted",
              "head_ref_restored": "restored"}


def skips_workflows(message: str) -> bool:
    """Would GitHub start no workflow run for a push whose head commit has this message?"""
    lowered = message.lower()
    return any(marker in lowered for marker in _SKIP_MARKERS) or bool(_SKIP_TRAILER.search(message))


@dataclass(frozen=True)
class HeadSeen:
    """The head when a command or sign-off was posted, or None with why it cannot be known."""

    sha: str | None
    problem: str = ""


def _committed(event: Any) -> tuple[str, str] | None:
    """(sha, message) of a timeline `committed` event, else None."""
    if not isinstance(event, dict) or event.get("event") != "committed" or not isinstance(event.get("sha"), str):
        return None
    message = event.get("message")
    return event["sha"], message if isinstance(message, str) else ""


def timeline_gap(timeline: Sequence[Any], head: str) -> str | None:
    """Why a listed timeline cannot be the PR's whole record, or None: GitHub lists a
    `committed` event for every commit of the PR, its head among them, so a listing without
    the head's ended early."""
    if any(c is not None and c[0] == head for c in map(_committed, timeline)):
        return None
    return (f"the PR's timeline lists no commit event for its head {head[:12]}, so the listing "
            "is incomplete")


def head_seen(runs: Sequence[WorkflowRun] | Sequence[Any], posted_at: object, *, branch: str,
              head_repo: str | None, timeline: Sequence[Any] | None,
              review_commit: str | None = None) -> HeadSeen:
    """The PR head at `posted_at` from records a push cannot suppress (see the module docstring).

    `runs` are the PR branch's workflow runs, `timeline` the PR's timeline events as GitHub
    lists them (None: not readable), `review_commit` a review's `commit_id`.
    """
    if review_commit:
        return HeadSeen(review_commit)  # GitHub's record of the head the review was submitted on
    posted = github_time(posted_at)
    if posted is None:
        return HeadSeen(None, "when it was posted is not recorded")
    best: tuple[datetime, int, str] | None = None
    heads: set[str] = set()
    for run in runs:
        created = github_time(run.created_at)
        if run.event != "pull_request" or created is None or not run.head_sha:
            continue
        if run.head_branch not in (None, branch):
            continue
        if not trust.same_head_repo(run, head_repo):
            continue  # another repository's run on a branch of the same name, or one whose
            # repository is not recorded (a deleted fork's): never the head this PR showed
        heads.add(run.head_sha)
        if created <= posted and (best is None or (created, run.id) > best[:2]):
            best = (created, run.id, run.head_sha)
    if best is None:
        return HeadSeen(None, "no pull_request workflow run was created before it")
    since, _, sha = best
    if timeline is None:
        return HeadSeen(None, "the PR's timeline, which shows whether the head moved without a "
                        "workflow run, could not be read")
    for event in timeline:
        kind = event.get("event") if isinstance(event, dict) else None
        if kind in HEAD_MOVES:
            when = github_time(event.get("created_at"))
            if when is None or when > since:
                stamp = event.get("created_at") or "an unrecorded time"
                return HeadSeen(None, f"the PR's head branch was {HEAD_MOVES[kind]} at {stamp}, after "
                                f"the newest workflow run before it (head {sha[:12]}), so a head no "
                                "run records may be what was seen")
    committed = [c for c in map(_committed, timeline) if c is not None]
    order = [c[0] for c in committed]
    if sha in order:
        # a later commit with a run was pushed after `posted` (its run is newer than every run
        # before it), and so was all that follows it; one with none before that may have been
        # pushed earlier, when GitHub started no run for it (a [skip ci] message, a workflow the
        # PR disabled, a merge conflict), or together with the next (a push of several commits):
        # the two cannot be told apart, so the head then is not known
        for later, message in committed[order.index(sha) + 1:]:
            if later in heads:
                break
            why = "tells GitHub to skip workflows" if skips_workflows(message) else "has no workflow run"
            return HeadSeen(None, f"commit {later[:12]}, pushed after head {sha[:12]}, {why} and no run "
                            "has it as head, so it may have been the head then")
    return HeadSeen(sha)


def binding_problem(*, comment_ref: str, seen: str | None, head: str, pr_commits: Sequence[str],
                    base: str, tree: Callable[[str], Tree], unknown: str = "",
                    own: Callable[[str], Collection[str] | None] | None = None) -> str | None:
    """Why the authorization does not cover `head`, or None when it does.

    `seen` is the head when the command was posted (head_seen; `unknown` says why it is
    None); `tree(sha)` reads a commit's files; `base` is the PR's base commit; `own(seen)`
    the paths the PR itself changes at `seen` or at the head (benchmark_content.own_paths:
    a merge of the default branch is neutral; None or not given, every executed file counts).
    """
    if seen is None:
        why = unknown or "no pull_request workflow run was created before it"
        return (f"{comment_ref} cannot be tied to a PR head: {why}, so what it authorized is "
                f"unknown; {NEW_COMMAND}")
    if seen == head:
        return None
    if seen not in set(pr_commits):
        return (f"{comment_ref} was posted when the PR head was {seen[:12]}, which is no longer "
                f"part of the PR (force-pushed away); {NEW_COMMAND}")
    try:
        changed = differences(tree(seen), tree(head), tree(base), None if own is None else own(seen))
    except Unreadable as exc:
        return (f"{comment_ref} was posted when the PR head was {seen[:12]}; whether the head "
                f"{head[:12]} changed what it benchmarks cannot be told ({exc}); {NEW_COMMAND}")
    if changed:
        return (f"{comment_ref} was posted when the PR head was {seen[:12]}; a later push changed "
                f"benchmark-affecting content ({', '.join(changed)}), so the command no longer "
                f"covers head {head[:12]}; {NEW_COMMAND}")
    return None
