"""Which review sign-off a relayed review event asks to verify (pure).

Review and inline-comment events run on the PR's merge ref, where the sign-off App's
environment (default branch only) never deploys, and for a fork with a read-only token. So
`signoff-verify.yml` only records them (a job with no permissions), and when that run
completes, `signoff-head-status.yml` (default-branch code, `workflow_run`) relays: it never
reads the event's text, it asks the API which review sign-offs exist and decides here.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from infx.reuse.posted_head import github_time
from infx.signoff.model import Comment
from infx.signoff.trigger.checklist import has_trigger
from infx.signoff.trigger.gating import SignoffRef, is_bot, withdrawn_problem


def standing_signoff(item: Comment) -> bool:
    """A human's comment, review or inline comment carrying the sign-off phrase that still
    stands (a dismissed review is withdrawn)."""
    return (not is_bot(item.user, item.user_type) and has_trigger(item.body)
            and withdrawn_problem(item.kind, item.state, "the sign-off") is None)


def newest_signoff(items: Iterable[Comment], *, kinds: tuple[str, ...] = ("issue_comment", "review", "review_comment"),
                   until: datetime | None = None) -> Comment | None:
    """The newest human comment, review or inline comment of `kinds` carrying the sign-off
    phrase and still standing (a dismissed review is withdrawn), posted no later than `until`."""
    candidates = []
    for item in items:
        posted = github_time(item.created_at)
        if (item.kind not in kinds or posted is None or (until is not None and posted > until)
                or not standing_signoff(item)):
            continue
        candidates.append((posted, item.id, item))
    return max(candidates)[2] if candidates else None


def relayed_signoff(items: Iterable[Comment], judged: set[tuple[str, int]],
                    run_created_at: str | None) -> SignoffRef | None:
    """The newest human review or inline comment carrying the sign-off phrase, standing (not
    dismissed) and posted no later than the relayed run was created, when no verdict of the
    bot has judged it yet (`judged`: the (kind, id) every verdict records, whatever version of
    the text; edits never start a verification, as for conversation comments). None: nothing
    new to verify (the caller decides the head's status again, for an edit or a dismissal)."""
    limit = github_time(run_created_at)
    if limit is None:
        return None  # without GitHub's own time of the event nothing can be attributed to it
    newest = newest_signoff(items, kinds=("review", "review_comment"), until=limit)
    if newest is None or (newest.kind, newest.id) in judged:
        return None
    return SignoffRef(newest.kind, newest.id)
