"""Which events start a verification (signoff.md §1.2–1.3, gating cases G2–G4)."""

from __future__ import annotations

import copy
import json

import pytest

from infx.signoff.trigger import gating

PHRASE = "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] ok"


@pytest.fixture
def payloads(test_data):
    root = test_data / "github" / "webhooks"
    if not root.is_dir():
        pytest.skip("webhook fixtures are not bundled")

    def load(name: str) -> dict:
        return json.loads((root / name).read_text())
    return load


def with_body(payload: dict, key: str, body: str) -> dict:
    data = copy.deepcopy(payload)
    data[key]["body"] = body
    return data


def test_new_pr_comment_with_the_phrase_runs(payloads) -> None:
    payload = with_body(payloads("issue_comment/created.payload.json"), "comment", PHRASE)
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    trigger = gating.from_event("issue_comment", payload)
    assert trigger.run and trigger.ref == gating.SignoffRef("issue_comment", payload["comment"]["id"])
    assert trigger.pr_number == payload["issue"]["number"] and not trigger.dispatched
    assert trigger.actor == payload["comment"]["user"]["login"]


def test_comment_on_a_plain_issue_or_without_the_phrase_is_ignored(payloads) -> None:
    payload = with_body(payloads("issue_comment/created.payload.json"), "comment", PHRASE)
    payload["issue"].pop("pull_request", None)
    assert not gating.from_event("issue_comment", payload).run
    payload["issue"]["pull_request"] = {"url": "x"}
    payload["comment"]["body"] = "as a pr reviewer and codeowner (wrong case)"
    assert not gating.from_event("issue_comment", payload).run


def test_g3_edits_never_run(payloads) -> None:
    payload = with_body(payloads("issue_comment/edited.payload.json"), "comment", PHRASE)
    payload["issue"]["pull_request"] = {"url": "x"}
    trigger = gating.from_event("issue_comment", payload)
    assert not trigger.run and "only newly created" in trigger.reason
    inline = with_body(payloads("pull_request_review_comment/edited.payload.json"), "comment", PHRASE)
    assert not gating.from_event("pull_request_review_comment", inline).run


def test_g3_reviews_submitted_run_dismissed_and_pending_do_not(payloads) -> None:
    review = with_body(payloads("pull_request_review/submitted.payload.json"), "review", PHRASE)
    trigger = gating.from_event("pull_request_review", review)
    assert trigger.run and trigger.ref.kind == "review"
    for state in ("dismissed", "pending", "changes_requested"):
        review["review"]["state"] = state
        assert not gating.from_event("pull_request_review", review).run
    dismissed = with_body(payloads("pull_request_review/dismissed.payload.json"), "review", PHRASE)
    assert not gating.from_event("pull_request_review", dismissed).run


def test_inline_comment_runs(payloads) -> None:
    inline = with_body(payloads("pull_request_review_comment/created.payload.json"), "comment", PHRASE)
    trigger = gating.from_event("pull_request_review_comment", inline)
    assert trigger.run and trigger.ref.kind == "review_comment"


def test_g4_bots_are_ignored(payloads) -> None:
    payload = with_body(payloads("issue_comment/created.payload.json"), "comment", PHRASE)
    payload["issue"]["pull_request"] = {"url": "x"}
    payload["comment"]["user"] = {"login": "renovate[bot]", "type": "Bot"}
    payload["sender"] = {"login": "renovate[bot]", "type": "Bot"}
    assert not gating.from_event("issue_comment", payload).run


@pytest.mark.parametrize("permission,allowed", [
    ({"permission": "admin", "role_name": "admin"}, True),
    ({"permission": "write", "role_name": "maintain"}, True),
    ({"permission": "write", "role_name": "write"}, True),
    ({"permission": "read", "role_name": "triage"}, False),
    ({"permission": "read", "role_name": "read"}, False),
    (None, False),
])
def test_g4_actor_needs_write_access(permission, allowed) -> None:
    assert (gating.actor_problem("carol", permission) is None) is allowed
    assert gating.actor_problem("ci[bot]", {"permission": "admin", "role_name": "admin"})


def test_g2_pr_state() -> None:
    assert gating.pr_state_problem("open", False, False) is None
    assert "draft" in gating.pr_state_problem("open", True, False)
    assert "closed" in gating.pr_state_problem("closed", False, False)
    assert gating.pr_state_problem("closed", True, True) is None  # dispatch may target any state


def test_g2_dispatch_with_matching_and_mismatched_numbers(payloads) -> None:
    payload = payloads("workflow_dispatch/payload.json")
    payload["inputs"] = {"pr-number": "12",
                         "comment_url": "https://github.com/o/r/pull/12#issuecomment-101"}
    trigger = gating.from_event("workflow_dispatch", payload)
    assert trigger.run and trigger.dispatched and trigger.ref == gating.SignoffRef("issue_comment", 101)
    payload["inputs"]["pr-number"] = "13"
    with pytest.raises(ValueError, match="points at PR #12 but pr-number is 13"):
        gating.from_event("workflow_dispatch", payload)


@pytest.mark.parametrize("url,kind,ident", [
    ("https://github.com/o/r/pull/5#issuecomment-7", "issue_comment", 7),
    ("https://github.com/o/r/pull/5#pullrequestreview-8", "review", 8),
    ("https://github.com/o/r/pull/5/files#discussion_r9", "review_comment", 9),
])
def test_comment_url_forms(url, kind, ident) -> None:
    assert gating.parse_comment_url(url) == (5, gating.SignoffRef(kind, ident))


@pytest.mark.parametrize("url", ["https://github.com/o/r/issues/5#issuecomment-7",
                                 "https://github.com/o/r/pull/5", "not a url"])
def test_other_url_forms_are_errors(url) -> None:
    with pytest.raises(ValueError, match="unsupported comment URL"):
        gating.parse_comment_url(url)


def test_other_events_do_not_run() -> None:
    assert not gating.from_event("push", {"sender": {"login": "a"}}).run
