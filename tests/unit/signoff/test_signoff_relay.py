"""infx.signoff.trigger.relay: which review sign-off a relayed review event asks to verify."""

from __future__ import annotations

import pytest

from infx.signoff.model import Comment
from infx.signoff.trigger.gating import SignoffRef
from infx.signoff.trigger.relay import relayed_signoff

PHRASE = "As a PR reviewer and CODEOWNER, I confirm"
RUN_AT = "2026-09-24T10:00:00Z"


def item(cid: int, when: str, *, kind: str = "review", user: str = "owner", body: str = PHRASE,
         state: str = "COMMENTED", user_type: str = "User") -> Comment:
    return Comment(cid, user, body, "MEMBER", when, kind=kind, state=state if kind == "review" else "",
                   user_type=user_type)


def test_the_newest_standing_review_signoff_posted_before_the_run_is_verified() -> None:
    items = [item(1, "2026-09-24T08:00:00Z"), item(2, "2026-09-24T09:00:00Z", kind="review_comment"),
             item(3, "2026-09-24T11:00:00Z")]  # after the run was created: another event's
    assert relayed_signoff(items, set(), RUN_AT) == SignoffRef("review_comment", 2)


@pytest.mark.parametrize("other", [
    item(5, "2026-09-24T09:30:00Z", state="DISMISSED"),
    item(5, "2026-09-24T09:30:00Z", user="renovate[bot]"),
    item(5, "2026-09-24T09:30:00Z", user="helper", user_type="Bot"),
    item(5, "2026-09-24T09:30:00Z", body="LGTM"),
    item(5, "2026-09-24T09:30:00Z", kind="issue_comment"),  # the verify job takes these itself
    item(5, "not a time"),
])
def test_what_is_not_a_standing_human_review_signoff_is_passed_over(other) -> None:
    assert relayed_signoff([item(1, "2026-09-24T08:00:00Z"), other], set(), RUN_AT) == SignoffRef("review", 1)


def test_a_signoff_any_verdict_judged_is_not_verified_again_and_nothing_older_replaces_it() -> None:
    items = [item(1, "2026-09-24T08:00:00Z"), item(2, "2026-09-24T09:00:00Z")]
    assert relayed_signoff(items, {("review", 2)}, RUN_AT) is None  # edits never start a run
    assert relayed_signoff(items, {("review", 1)}, RUN_AT) == SignoffRef("review", 2)


def test_without_the_runs_time_nothing_is_attributed_to_it() -> None:
    assert relayed_signoff([item(1, "2026-09-24T08:00:00Z")], set(), None) is None
    assert relayed_signoff([item(1, "2026-09-24T08:00:00Z")], set(), "yesterday") is None
    assert relayed_signoff([], set(), RUN_AT) is None
