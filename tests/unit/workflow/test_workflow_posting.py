"""infx.workflow.posting through the fake server: one welcome per PR (forks too), results link never regresses."""

from __future__ import annotations

import copy

import pytest
from lib.reuse_world import C1, C2, FORK, REPO, add_fork_pr, base_world

from infx.errors import InfxError
from infx.github.failures import GitHubError
from infx.github.models import WorkflowRun
from infx.workflow.posting import (
    RunHead,
    post_results_link,
    post_welcome,
    pulls_for_run_head,
    run_head,
)


def _bot_comments(fake, marker: str) -> list[dict]:
    pull = next(p for p in fake.world["pulls"] if p["number"] == 12)
    return [c for c in pull["comments"] if c["user"] == "github-actions[bot]" and marker in c["body"]]


def test_welcome_is_posted_once(fake_github):
    fake = fake_github(base_world())
    client = fake.client()
    assert post_welcome(client, REPO, 12).action == "created"
    assert post_welcome(client, REPO, 12).action == "unchanged"
    comments = _bot_comments(fake, "<!-- infx-welcome -->")
    assert len(comments) == 1
    assert comments[0]["body"].startswith("<!-- infx-welcome -->\nThanks for opening this PR!")


def test_welcome_retry_after_a_lost_post_does_not_duplicate(fake_github):
    world = base_world()
    world["faults"] = [{"method": "POST", "path": r"/issues/12/comments$", "status": 502, "times": 1}]
    fake = fake_github(world)
    post_welcome(fake.client(), REPO, 12)
    assert len(_bot_comments(fake, "<!-- infx-welcome -->")) == 1


def test_results_link_is_upserted_and_never_regresses(fake_github):
    fake = fake_github(base_world())
    client = fake.client()
    assert post_results_link(client, REPO, 12, 200) == "created"
    assert post_results_link(client, REPO, 12, 200) == "unchanged"
    assert post_results_link(client, REPO, 12, 300) == "updated"
    assert post_results_link(client, REPO, 12, 250) == "kept-newer"  # a re-run of an older run
    comments = _bot_comments(fake, "infx-results-link")
    assert len(comments) == 1
    assert "<!-- infx-results-link run=300 -->" in comments[0]["body"]
    assert "unofficialRun=300" in comments[0]["body"] and "unofficialRun=250" not in comments[0]["body"]


# ---- fork PRs: welcomed from a workflow_run job, PR number from our own API ----------------

def _fork_world() -> dict:
    return add_fork_pr(base_world(), user="vendor-dev")


def _run(**changes) -> WorkflowRun:
    fields = {"id": 900, "name": "PR welcome", "path": ".github/workflows/pr-welcome.yml",
              "event": "pull_request", "status": "completed", "conclusion": "success",
              "head_sha": C2, "head_branch": "main", "run_attempt": 1, "pull_requests": (),
              "head_repo": FORK}
    return WorkflowRun(**(fields | changes))


def test_run_head_accepts_a_normal_fork_run():
    assert run_head(_run()) == RunHead(FORK, "main", C2)
    assert run_head(_run(head_branch="feature/mi355x-bump")).branch == "feature/mi355x-bump"


@pytest.mark.parametrize("changes", [
    {"head_repo": None}, {"head_repo": "not a repo"}, {"head_branch": ""},
    {"head_branch": "x\ny"}, {"head_branch": "a b"}, {"head_sha": "abc"}, {"head_sha": "Z" * 40},
])
def test_run_head_rejects_unusable_data(changes):
    with pytest.raises(InfxError, match="workflow run 900 has no usable"):
        run_head(_run(**changes))


def test_fork_pr_is_found_by_its_head_in_our_repository(fake_github):
    fake = fake_github(_fork_world())
    client = fake.client()
    assert pulls_for_run_head(client, REPO, RunHead(FORK, "main", C2)) == [14]
    query = fake.matching("GET", r"/repos/acme/inferencex/pulls$")[-1]["query"]
    assert query["head"] == "vendor:main" and query["state"] == "open"
    # a same-named branch of another fork, or of our own repository, is not this PR
    assert pulls_for_run_head(client, REPO, RunHead("mallory/inferencex", "main", C2)) == []
    assert pulls_for_run_head(client, REPO, RunHead(REPO, "carol/bump", C2)) == [12]
    # the branch moved on after the run: still that PR
    assert pulls_for_run_head(client, REPO, RunHead(FORK, "main", C1)) == [14]


def test_closed_fork_pr_is_not_welcomed(fake_github):
    world = _fork_world()
    next(p for p in world["pulls"] if p["number"] == 14)["state"] = "closed"
    client = fake_github(world).client()
    assert pulls_for_run_head(client, REPO, RunHead(FORK, "main", C2)) == []


def test_fork_welcome_survives_faults_and_posts_once(fake_github):
    world = _fork_world()
    world["faults"] = [{"method": "GET", "path": r"/repos/acme/inferencex/pulls$", "status": 502, "times": 2},
                       {"method": "POST", "path": r"/issues/14/comments$", "status": 502, "times": 1,
                        "apply": True}]
    fake = fake_github(world)
    client = fake.client()
    (number,) = pulls_for_run_head(client, REPO, RunHead(FORK, "main", C2))
    assert post_welcome(client, REPO, number).action == "created"
    assert post_welcome(client, REPO, number).action == "unchanged"
    fork_comments = next(p for p in fake.world["pulls"] if p["number"] == 14)["comments"]
    assert [c["user"] for c in fork_comments] == ["github-actions[bot]"]
    assert fake.count("POST") == 1


# ---- faults: bounded retries, never a second comment, a clear failure when giving up -------

SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
POST_COMMENT = r"/issues/12/comments$"
FAULTS = {
    "502s": [{"method": "GET", "path": POST_COMMENT, "status": 502, "times": 2},
             {"method": "POST", "path": POST_COMMENT, "status": 502, "times": 1, "apply": True}],
    "403 + Retry-After": [{"method": "POST", "path": POST_COMMENT, "status": 403,
                           "headers": {"Retry-After": "3"}, "times": 1}],
    "secondary rate limit": [{"method": "POST", "path": POST_COMMENT, "status": 403, "message": SECONDARY,
                              "times": 1}],
    "primary rate limit": [{"method": "GET", "path": POST_COMMENT, "status": 403,
                            "message": "API rate limit exceeded for installation.",
                            "headers": {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1030"},
                            "times": 1}],
}


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_comment_bots_ride_out_faults_and_post_once(fake_github, fault):
    world = base_world()
    world["faults"] = copy.deepcopy(FAULTS[fault])
    fake = fake_github(world)
    sleeps = Sleeps()
    client = fake.client(sleep=sleeps, clock=lambda: 1000.0, max_wait=120)
    assert post_welcome(client, REPO, 12).action == "created"
    assert post_results_link(client, REPO, 12, 77) == "created"
    assert len(_bot_comments(fake, "<!-- infx-welcome -->")) == 1
    assert len(_bot_comments(fake, "infx-results-link")) == 1
    assert 0 < sum(sleeps) <= 120  # it did wait, within the budget


def test_comments_on_page_three_are_found_not_duplicated(fake_github):
    world = base_world()
    pull = next(p for p in world["pulls"] if p["number"] == 12)
    pull["comments"] = [{"id": 5000 + i, "user": "carol", "author_association": "CONTRIBUTOR",
                         "body": f"note {i}", "created_at": "2026-09-29T09:00:00Z"} for i in range(248)]
    pull["comments"] += [
        {"id": 6000, "user": "github-actions[bot]", "body": "<!-- infx-welcome -->\nold text",
         "created_at": "2026-09-29T10:00:00Z"},
        {"id": 6001, "user": "github-actions[bot]", "body": "<!-- infx-results-link run=90 -->\nold",
         "created_at": "2026-09-29T10:00:00Z"}]  # 250 comments: both bot comments are on page 3
    fake = fake_github(world)
    client = fake.client()
    assert post_welcome(client, REPO, 12).action == "updated"
    assert post_results_link(client, REPO, 12, 80) == "kept-newer"
    assert post_results_link(client, REPO, 12, 95) == "updated"
    assert fake.count("POST") == 0 and len(next(p for p in fake.world["pulls"] if p["number"] == 12)["comments"]) == 250
    pages = {r["query"].get("page", "1") for r in fake.matching("GET", POST_COMMENT)}
    assert pages == {"1", "2", "3"}


def test_rate_limit_that_outlasts_the_budget_fails_clearly_without_posting(fake_github):
    world = base_world()
    world["faults"] = [{"method": "POST", "path": POST_COMMENT, "status": 403, "message": SECONDARY}]
    fake = fake_github(world)
    sleeps = Sleeps()
    with pytest.raises(GitHubError) as info:
        post_welcome(fake.client(sleep=sleeps, max_wait=100, secondary_wait=60), REPO, 12)
    assert info.value.status == 403
    assert "GitHub rate limit while commenting on acme/inferencex#12" in str(info.value)
    assert sum(sleeps) <= 100 and fake.count("POST") == 2  # one wait of 60 s fits, a second does not
    assert _bot_comments(fake, "<!-- infx-welcome -->") == []
