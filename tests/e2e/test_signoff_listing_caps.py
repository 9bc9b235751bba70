"""GitHub's listing caps and the request budget, through the live code path (issue 21).

The fake serves GitHub's documented caps (a ref's check runs and searched workflow runs stop
at 1,000 results, a PR's commits at 250): a verification reads listings whole or fails
closed naming the cap, never judges a cut list, and its request budget does not grow with
the PR's commits."""

from __future__ import annotations

from datetime import datetime

from lib import listing_worlds as worlds

from infx.signoff import pipeline as publish
from infx.signoff.model import Status
from infx.signoff.table import load_table
from infx.signoff.trigger.gating import SignoffRef, Trigger

CONTEXT = "codeowner-signoff-verify"
CHECK_RUNS_OF_A_COMMIT = r"^/repos/[^/]+/[^/]+/commits/[0-9a-f]{40}/check-runs$"


def verify(fake) -> publish.Result:
    world = fake.world
    now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
    trigger = Trigger(True, "test", worlds.PR, SignoffRef("issue_comment", worlds.SIGNOFF))
    return publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now))


def statuses(fake) -> list[str]:
    return [s["state"] for s in fake.world["statuses"].get(worlds.HEAD, []) if s["context"] == CONTEXT]


def sweep_row(result: publish.Result):
    return next(row for row in result.verdict.rows if row.spec.id == "sweep")


def test_a_pr_with_60_commits_and_a_failed_sweep_is_rejected_within_budget(fake_github) -> None:
    fake = fake_github(worlds.many_commits(60))
    result = verify(fake)
    assert result.kind == "verdict" and result.verdict.overall.value == "REJECTED"
    row = sweep_row(result)
    assert row.status == Status.FAIL and "No passing sweep" in row.outcome.reason
    assert any("failure" in detail for detail in row.outcome.details)
    assert not any("could not be read" in detail for detail in row.outcome.details)
    assert statuses(fake) == ["pending", "failure"]
    # only the commit the branch's workflow runs show a sweep on is read, whatever the PR's length
    assert fake.count("GET", CHECK_RUNS_OF_A_COMMIT) == 1
    # the budget counts HTTP requests, every reader's: exactly what the server served
    assert result.api_calls == len(fake.requests) <= load_table().settings.max_api_calls


def test_the_truncation_world_passes_through_the_sweeps_check_suite(fake_github) -> None:
    fake = fake_github(worlds.truncation(5_000))
    result = verify(fake)
    assert result.kind == "verdict" and result.verdict.overall.value == "PASS", result.reason
    assert sweep_row(result).status == Status.PASS
    assert statuses(fake) == ["pending", "success"]
    # the ref listing stopped at page 10 (1,000 results); the sweep's suite was listed instead
    assert fake.count("GET", CHECK_RUNS_OF_A_COMMIT) == 10
    assert fake.count("GET", r"/check-suites/\d+/check-runs$") == 1
    assert result.api_calls == len(fake.requests) <= load_table().settings.max_api_calls


def test_the_truncation_world_without_the_branch_listing_is_an_error_naming_the_cap(fake_github) -> None:
    world = worlds.truncation(5_000)
    world["faults"] = [{"method": "GET", "path": r"/actions/runs$", "status": 422}]
    fake = fake_github(world)
    result = verify(fake)
    assert result.kind == "error" and result.status == "error" and result.verdict is None
    assert statuses(fake)[-1] == "error"
    cut = result.evidence.unreadable[f"check-runs:{worlds.SWEPT}"]
    assert "GitHub lists at most 1,000 results" in cut and "5,000" in cut
    assert "GitHub lists at most 1,000 results" in result.body


def test_a_pr_past_githubs_250_commits_is_an_error_naming_the_cap_and_a_remedy(fake_github) -> None:
    fake = fake_github(worlds.many_commits(260))
    result = verify(fake)
    assert result.kind == "error" and result.status == "error"
    why = result.evidence.unreadable["commits"]
    assert "260 commits" in why and "at most 250 commits" in why and "squash" in why
    assert "budget" not in why
    assert fake.count("GET", r"/pulls/\d+/commits$") == 0  # known from the PR's own count
