"""infx.workflow.posting through the fake server: one welcome per PR, results link never regresses."""

from __future__ import annotations

from test_reuse_support import REPO, base_world

from infx.workflow.posting import post_results_link, post_welcome


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
