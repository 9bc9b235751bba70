"""The head a command or sign-off was posted on, and whether it still covers the PR (PRODUCT §4.6, §4.8).

The head the commenter saw is read from GitHub's own records, never from commit dates (which
the PR author writes). A review carries it: its `commit_id`. For a comment, every push to a
PR queues `pull_request` workflow runs whose `created_at` GitHub stamps and whose `head_sha`
is the new head, so the head of the newest such run created by then was the head at some
moment before the comment. What came after it is not recorded: a push may start no run (a
`[skip ci]` message, a workflow the PR disabled, a merge conflict), a run may be created long
after its push (an `edited` PR), and the timeline lists commits by their author-set dates.
So every commit of the PR that descends from that run's head (its parents, which git hashes
and GitHub reports, lead back to it; or whose parents are not given) may have been the head
seen (`HeadSeen.later`), and a binding holds only when each of them is covered. A force-push,
deletion or restoration of the head branch after that run (it can bring back a head whose runs
predate what the signer saw), an unreadable timeline or no run before the comment leave the
head unknown: the authorization or sign-off covers nothing (fail closed, with the reason). A
run is created a moment after its push, so a move just before the run may have followed the
push it records: the moved-to commit (the event's `commit_id`) and its descendants may have
been seen too, and a move whose commit is not named leaves the head unknown within RUN_DELAY.
Sign-off binding (infx.signoff.trigger.binding) and reuse binding use this one rule.

If the head seen and the one being decided differ in benchmark-affecting content
(infx.plan.benchmark_content), a reuse command no longer covers the PR and a new one is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from infx import trust
from infx.github.models import WorkflowRun
from infx.plan.benchmark_content import Tree, Unreadable, differences

NEW_COMMAND = "post a new /reuse-sweep-run (or /use <run_id>) command for the current head"
# commits pushed after the newest run's head, besides the head, a binding compares at most:
# each costs a tree and a compare, and more of them leave the head seen too uncertain anyway
MAX_LATER_HEADS = 8
# as many as the sign-off's advisory Check `reuse` compares, within the verdict's request budget
# (the resolver, which decides whether a run is reused, compares up to MAX_LATER_HEADS)
ADVISORY_LATER_HEADS = 2


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


# timeline events that move the head branch without any new commit being listed
HEAD_MOVES = {"head_ref_force_pushed": "force-pushed", "head_ref_deleted": "deleted",
              "head_ref_restored": "restored"}
# how long after a push GitHub may take to create the workflow run that records it: a head
# move this close before a run, whose new head the timeline does not name, may follow its push
RUN_DELAY = timedelta(minutes=10)


@dataclass(frozen=True)
class HeadSeen:
    """The head when a command or sign-off was posted, or None with why it cannot be known."""

    sha: str | None
    problem: str = ""
    # commits pushed after `sha` (its descendants in the PR) that may have been the head then
    later: tuple[str, ...] = ()

    @property
    def candidates(self) -> tuple[str, ...]:
        """Every head the commenter may have seen: `sha`, then `later` (none when unknown)."""
        return () if self.sha is None else (self.sha, *self.later)


def _committed(event: Any) -> str | None:
    """The sha of a timeline `committed` event, else None."""
    if not isinstance(event, dict) or event.get("event") != "committed" or not isinstance(event.get("sha"), str):
        return None
    return event["sha"]


def timeline_gap(timeline: Sequence[Any], head: str, commits: Sequence[str] = ()) -> str | None:
    """Why a listed timeline cannot be the PR's whole record, or None: GitHub lists a
    `committed` event for every commit of the PR, so a listing without the head, or without
    one of `commits` (the PR's commit list, when read), ended early. The head alone is not
    enough: the timeline orders commits by their author-set dates, so a back-dated head can
    come before a commit a listing cut short leaves out."""
    listed = {sha for sha in map(_committed, timeline) if sha is not None}
    missing = [sha for sha in (head, *commits) if sha not in listed]
    if not missing:
        return None
    what = "its head" if missing[0] == head else "its commit"
    return (f"the PR's timeline lists no commit event for {what} {missing[0][:12]}, so the listing "
            "is incomplete")


def head_seen(runs: Sequence[WorkflowRun] | Sequence[Any], posted_at: object, *, branch: str,
              head_repo: str | None, timeline: Sequence[Any] | None,
              review_commit: str | None = None, pr_number: int | None = None,
              pulls: trust.BranchPulls | None = None) -> HeadSeen:
    """The PR head at `posted_at` from records a push cannot suppress (see the module docstring).

    `runs` are the PR branch's workflow runs, `timeline` the PR's timeline events as GitHub
    lists them (None: not readable), `review_commit` a review's `commit_id`. `pulls`: the
    PRs the branch heads (PR `pr_number` among them); a run on the frozen head of another,
    closed one, created after it closed, may be that PR's (editing a closed PR runs its
    workflows with its old head) and does not show where the branch was.
    """
    if review_commit:
        return HeadSeen(review_commit)  # GitHub's record of the head the review was submitted on
    posted = github_time(posted_at)
    if posted is None:
        return HeadSeen(None, "when it was posted is not recorded")
    best: tuple[datetime, int, str] | None = None
    moves = [(github_time(e.get("created_at")), e.get("commit_id")) for e in timeline or ()
             if isinstance(e, dict) and e.get("event") in HEAD_MOVES]
    for run in runs:
        created = github_time(run.created_at)
        if run.event != "pull_request" or created is None or not run.head_sha:
            continue
        if run.head_branch not in (None, branch):
            continue
        if not trust.same_head_repo(run, head_repo):
            continue  # another repository's run on a branch of the same name, or one whose
            # repository is not recorded (a deleted fork's): never the head this PR showed
        if _frozen_head_run(run.head_sha, created, pulls, pr_number, moves):
            continue
        if created <= posted and (best is None or (created, run.id) > best[:2]):
            best = (created, run.id, run.head_sha)
    if best is None:
        return HeadSeen(None, "no pull_request workflow run was created before it")
    since, _, sha = best
    if timeline is None:
        return HeadSeen(None, "the PR's timeline, which shows whether the head moved without a "
                        "workflow run, could not be read")
    if pr_number is not None and pulls is None:
        return HeadSeen(None, "the pull requests the PR's branch heads, whose closed heads its runs "
                        "may show, could not be read")
    moved: tuple[datetime, str | None] | None = None  # the newest head move before that run
    for event in timeline:
        kind = event.get("event") if isinstance(event, dict) else None
        if kind in HEAD_MOVES:
            when = github_time(event.get("created_at"))
            if when is None or when > since:
                stamp = event.get("created_at") or "an unrecorded time"
                return HeadSeen(None, f"the PR's head branch was {HEAD_MOVES[kind]} at {stamp}, after "
                                f"the newest workflow run before it (head {sha[:12]}), so a head no "
                                "run records may be what was seen")
            commit = event.get("commit_id")
            if moved is None or when >= moved[0]:
                moved = (when, commit if isinstance(commit, str) and commit else None)
    later = descendants(timeline, sha)
    if moved is not None and since - moved[0] <= RUN_DELAY:
        # a run is created a moment after its push: a head move just before it may have come
        # after the push it records, leaving the branch on the moved-to commit. With that
        # commit known, it and what descends from it may have been seen too; without it, the
        # head is unknown. An older move is accounted for by the run
        when, commit = moved
        if commit is not None and commit != sha and commit not in later:
            later = tuple(dict.fromkeys((*later, commit, *descendants(timeline, commit))))
        elif commit is None:
            return HeadSeen(None, f"the PR's head branch was moved at {when.isoformat()}, within "
                            f"{int(RUN_DELAY.total_seconds() // 60)} minutes before the newest "
                            f"workflow run before it (head {sha[:12]}) was created, so the run may "
                            "record the head before the move")
    return HeadSeen(sha, later=tuple(c for c in later if c != sha))


def _frozen_head_run(sha: str, created: datetime, pulls: trust.BranchPulls | None,
                     pr_number: int | None, moves: Sequence[tuple[datetime | None, Any]]) -> bool:
    """Whether a run on `sha` created at `created` may be another, closed PR's and not show
    where the branch was: `sha` is that PR's frozen head, the run came after it closed, and a
    head move of this PR at or after the close may have taken the branch off `sha`, unless the
    newest move before the run names `sha` (the branch was on it again). A branch only pushed
    forward since still descends from `sha`: head_seen's descendants of it cover whatever it
    showed."""
    if pulls is None:
        return False
    before = [(when, commit) for when, commit in moves if when is not None and when <= created]
    if before and max(before, key=lambda move: move[0])[1] == sha:
        return False  # the newest move before the run put the branch on `sha` itself
    for number, head, closed in pulls.frozen:
        if number == pr_number or head != sha:
            continue
        when = github_time(closed)
        if when is None or created >= when and any(move is None or move >= when for move, _ in moves):
            return True
    return False


def parent_shas(event: dict) -> list[str] | None:
    """The parent shas of a `committed` event (GitHub's objects or bare shas), None if not given."""
    listed = event.get("parents")
    if not isinstance(listed, list):
        return None
    shas = [p.get("sha") if isinstance(p, dict) else p for p in listed]
    return shas if all(isinstance(p, str) and p for p in shas) else None


def descendants(timeline: Sequence[Any], sha: str) -> tuple[str, ...]:
    """The PR's commits (its timeline's `committed` events) that descend from `sha`, in
    timeline order; one whose parents are not given counts too (fail closed). The timeline's
    order is the commits' dates, which their author sets, so only parents tell what came after.
    One walk over a parent -> children map: linear in the timeline, whatever its order."""
    parents = {event["sha"]: parent_shas(event) for event in timeline
               if _committed(event) is not None and event["sha"] != sha}
    children: dict[str, list[str]] = {}
    after: set[str] = set()
    for commit, above in parents.items():
        if above is None:
            after.add(commit)
        else:
            for parent in above:
                children.setdefault(parent, []).append(commit)
    waiting = [sha, *after]
    while waiting:
        for child in children.pop(waiting.pop(), ()):
            if child not in after:
                after.add(child)
                waiting.append(child)
    return tuple(c for c in parents if c in after)


def too_many_later(later: Sequence[str], head: str, limit: int = MAX_LATER_HEADS) -> str | None:
    """Why the commits pushed after the newest run's head are too many to compare (more than
    `limit` besides the head), or None."""
    count = len(set(later) - {head})
    if count <= limit:
        return None
    return (f"{count} commits were pushed after it besides the head, and any of them may have "
            f"been the head then (more than the {limit} compared)")


def binding_problem(*, comment_ref: str, seen: str | None, head: str, pr_commits: Sequence[str],
                    base: str, tree: Callable[[str], Tree], unknown: str = "",
                    own: Callable[[str], Collection[str] | None] | None = None,
                    later: Sequence[str] = (), limit: int = MAX_LATER_HEADS) -> str | None:
    """Why the authorization does not cover `head`, or None when it does.

    `seen` is the head of the newest run before the command was posted and `later` the
    commits pushed after it that may have been the head then (head_seen; `unknown` says why
    `seen` is None): each of them must cover `head`, and more than `limit` are not compared. `tree(sha)` reads a commit's files;
    `base` is the PR's base commit; `own(sha)` the paths the PR itself changes at `sha` or at
    the head (benchmark_content.own_paths: a merge of the default branch is neutral; None or
    not given, every executed file counts).
    """
    if seen is None:
        why = unknown or "no pull_request workflow run was created before it"
        return (f"{comment_ref} cannot be tied to a PR head: {why}, so what it authorized is "
                f"unknown; {NEW_COMMAND}")
    crowd = too_many_later(later, head, limit)
    if crowd:
        return (f"{comment_ref} was posted when the PR head was {seen[:12]} or a later commit: "
                f"{crowd}; {NEW_COMMAND}")
    for candidate in dict.fromkeys((seen, *later)):
        if candidate == head:
            continue
        when = (f"was posted when the PR head was {seen[:12]}" if candidate == seen else
                f"was posted when the PR head was {seen[:12]} or a commit pushed after it, such as "
                f"{candidate[:12]} (no record tells when it was pushed)")
        if candidate not in set(pr_commits):
            return (f"{comment_ref} {when}, which is no longer part of the PR (force-pushed away); "
                    f"{NEW_COMMAND}")
        try:
            changed = differences(tree(candidate), tree(head), tree(base),
                                  None if own is None else own(candidate))
        except Unreadable as exc:
            return (f"{comment_ref} {when}; whether the head {head[:12]} changed what it benchmarks "
                    f"cannot be told ({exc}); {NEW_COMMAND}")
        if changed:
            return (f"{comment_ref} {when}; a later push changed benchmark-affecting content "
                    f"({', '.join(changed)}), so the command no longer covers head {head[:12]}; "
                    f"{NEW_COMMAND}")
    return None
