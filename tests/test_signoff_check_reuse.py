"""Check 4 (advisory): an authorised reuse command."""

from __future__ import annotations

from signoff_policy_support import bare_evidence

from infx.signoff.checks import reuse
from infx.signoff.model import Comment, Evidence, Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings


def evidence(comments) -> Evidence:
    return bare_evidence(comments=comments)


def comment(i, user, association, body, kind="issue_comment"):
    return Comment(i, user, body, association, f"2026-09-0{i}T00:00:00Z", kind=kind)


def test_authorised_command_passes() -> None:
    outcome = reuse.run(evidence([comment(1, "chunfangamd", "COLLABORATOR", "/reuse-sweep-run 35873197630")]), SETTINGS)
    assert outcome.status is Status.PASS
    assert outcome.reason == "/reuse-sweep-run 35873197630 was posted by chunfangamd (COLLABORATOR)."


def test_newest_authorised_command_wins() -> None:
    outcome = reuse.run(evidence([comment(1, "a", "MEMBER", "/use 1"), comment(2, "b", "OWNER", "/use 2")]), SETTINGS)
    assert "/use 2 was posted by b" in outcome.reason


def test_scenario_12_contributor_and_inline_mentions_only_warn() -> None:
    comments = [comment(1, "stranger", "CONTRIBUTOR", "/use 123"),
                comment(2, "maint", "MEMBER", "please /use 456"),
                comment(3, "maint", "MEMBER", "/use 789", kind="review_comment")]
    outcome = reuse.run(evidence(comments), SETTINGS)
    assert outcome.status is Status.WARN
    assert "no authorised reuse command" in outcome.reason and "stranger (CONTRIBUTOR)" in outcome.reason


def test_nothing_posted_or_unreadable_warns() -> None:
    assert reuse.run(evidence([]), SETTINGS).status is Status.WARN
    assert reuse.run(evidence(None), SETTINGS).status is Status.WARN
