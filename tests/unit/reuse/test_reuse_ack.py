"""infx.reuse.ack against the fake GitHub server: 👍/👎 reactions with a reason, never a reply comment."""

from __future__ import annotations

import dataclasses
import re

import pytest
from lib.reuse_world import add_comment, base_world, pr, start

from infx.github.failures import GitHubError
from infx.reuse.ack import CommentEvent, acknowledge, looks_like_command

T1, T2 = "2026-09-29T18:00:00Z", "2026-09-29T19:00:00Z"
BOT = "github-actions[bot]"


def _event(world: dict, comment_id: int, action: str = "created", on_pr: bool = True) -> CommentEvent:
    comment = next(c for p in world["pulls"] for c in p["comments"] if c["id"] == comment_id)
    return CommentEvent.of(action=action, issue_number=12, is_pull_request=on_pr, comment_id=comment_id,
                        body=comment["body"], updated_at=comment["updated_at"])


def _reactions(fake, comment_id: int) -> list[tuple[str, str]]:
    comment = next(c for p in fake.world["pulls"] for c in p["comments"] if c["id"] == comment_id)
    return sorted((r["user"], r["content"]) for r in comment.get("reactions", []))


def _ack(fake_github, world, comment_id, **event_overrides):
    fake, gateway = start(fake_github, world)
    event = _event(world, comment_id)
    if event_overrides:
        event = CommentEvent.of(**({"action": event.action, "issue_number": event.issue_number,
                                    "is_pull_request": event.is_pull_request, "comment_id": event.comment_id,
                                    "body": event.body, "updated_at": event.updated_at} | event_overrides))
    outcome = acknowledge(gateway, event)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0  # never a reply comment
    return fake, dataclasses.replace(outcome, summary=_as_shown(outcome.summary))


def _as_shown(summary: str) -> str:
    """The summary as GitHub shows it: reasons are inert markdown (escapes, zero-width breaks)."""
    return re.sub(r"\\(.)", r"\1", summary).replace("\u200b", "")


def test_accepted_command_gets_thumbs_up_and_a_reason(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "+1" and not outcome.failed
    assert outcome.summary.startswith("Reuse accepted for PR #12: run 101 (success)")
    assert _reactions(fake, cid) == [(BOT, "+1")]


@pytest.mark.parametrize(("user", "association", "body", "message"), [
    ("carol", "CONTRIBUTOR", "/reuse-sweep-run 101", "Reuse requires write, maintain or admin permission"),
    ("bob", "COLLABORATOR", "/use 101", "Reuse requires write, maintain or admin permission"),
    ("alice", "MEMBER", "/use 103", "is not in PR #12's commit list"),
    ("alice", "MEMBER", "/use 105", "no benchmark, eval, or agentic result artifact"),
    ("alice", "MEMBER", "/use 102", "pinning a run that did not succeed needs a request from a maintain"),
    ("alice", "MEMBER", "<!--\n/use 101\n-->", "not in an HTML comment, code or a quote"),
    ("alice", "MEMBER", "```\n/use 101\n```", "not in an HTML comment, code or a quote"),
    ("renovate[bot]", "MEMBER", "/use 101", "Reuse cannot be authorized by a bot account."),
])
def test_rejected_command_gets_thumbs_down_and_the_reason(fake_github, user, association, body, message):
    world = base_world()
    cid = add_comment(world, user, association, body, T1)
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "-1" and outcome.failed
    assert outcome.summary.startswith("Reuse rejected for PR #12: ")
    assert message in outcome.summary
    assert _reactions(fake, cid) == [(BOT, "-1")]


@pytest.mark.parametrize("body", ["/use nope", "/use", "/reuse-sweep-run 12x"])
def test_a_near_miss_is_left_to_the_command_answer(fake_github, body):
    """A line that nearly spells a reuse command gets the 😕 and the suggestion from
    slash-commands.yml (infx.commands.answer), not a 👎 from the acknowledgement."""
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", body, T1)
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction is None and not outcome.failed and "slash-commands.yml" in outcome.summary
    assert _reactions(fake, cid) == []


def test_superseded_request_is_rejected(fake_github):
    world = base_world()
    old = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T2)
    _, outcome = _ack(fake_github, world, old)
    assert outcome.reaction == "-1"
    assert "A newer reuse request supersedes this comment." in outcome.summary


def test_incompatible_label_and_closed_pr_are_rejected(fake_github):
    world = base_world()
    pr(world)["labels"] = ["full-sweep-enabled", "evals-only"]
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    _, outcome = _ack(fake_github, world, cid)
    assert "reuse-incompatible label(s): evals-only" in outcome.summary
    world = base_world()
    pr(world)["state"] = "closed"
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    _, outcome = _ack(fake_github, world, cid)
    assert "PR #12 is closed, not open." in outcome.summary


def test_stale_event_does_nothing(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    fake, outcome = _ack(fake_github, world, cid, body="/use 102")  # the comment was edited since
    assert outcome.reaction is None and not outcome.failed
    assert fake.count("POST") == 0 and fake.count("DELETE") == 0


def test_edit_that_removes_the_command_clears_only_the_bots_reaction(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "never mind", T1)
    comment = pr(world)["comments"][-1]
    comment["reactions"] = [{"user": BOT, "content": "+1"}, {"user": "root", "content": "+1"}]
    fake, outcome = _ack(fake_github, world, cid, action="edited")
    assert outcome.reaction is None and not outcome.failed
    assert _reactions(fake, cid) == [("root", "+1")]


def test_reacking_replaces_the_previous_verdict(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    pr(world)["comments"][-1]["reactions"] = [{"user": BOT, "content": "-1"}]
    fake, outcome = _ack(fake_github, world, cid, action="edited")
    assert _reactions(fake, cid) == [(BOT, "+1")]


@pytest.mark.parametrize(("body", "on_pr", "action"), [
    ("/useful 42 is a nice word", True, "created"),
    ("/reuse-sweep-run", False, "created"),
    ("/reuse-sweep-run", True, "deleted"),
])
def test_ignored_comments(fake_github, body, on_pr, action):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", body, T1)
    fake, outcome = _ack(fake_github, world, cid, is_pull_request=on_pr, action=action)
    assert outcome.reaction is None and not outcome.failed
    assert fake.count("POST") == 0


def test_looks_like_command():
    assert looks_like_command("/use nope")
    assert looks_like_command("text\n  /reuse-sweep-run extra")
    assert not looks_like_command("/useful")
    assert not looks_like_command("please /use 5")


def test_event_from_a_real_webhook_payload(test_data):
    from infx.github.events import load_event

    path = test_data / "github" / "webhooks" / "issue_comment" / "edited.payload.json"
    event = CommentEvent.from_event(load_event(path, "issue_comment"))
    assert (event.action, event.issue_number, event.is_pull_request) == ("edited", 1, False)
    assert event.comment_id == 492700400 and event.updated_at


def test_the_permission_api_decides_not_the_association(fake_github):
    """A write-permission maintainer whose organisation membership is private comments as a
    CONTRIBUTOR: accepted; a CONTRIBUTOR without access is refused by the same lookup."""
    world = base_world()
    world["collaborators"]["pat"] = {"permission": "write", "role_name": "maintain"}
    cid = add_comment(world, "pat", "CONTRIBUTOR", "/use 101", T1)
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "+1" and fake.count("GET", "/collaborators/pat/permission") >= 1
    world = base_world()
    cid = add_comment(world, "carol", "CONTRIBUTOR", "/use 101", T1)
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "-1" and "write, maintain or admin permission" in outcome.summary
    assert fake.count("GET", "/collaborators/carol/permission") >= 1


def test_faults_never_duplicate_a_reaction_or_post_a_comment(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    world["faults"] = [
        {"method": "POST", "path": r"/reactions$", "status": 502, "times": 1},
        {"method": "GET", "path": r"/pulls/12/commits", "status": 503, "times": 2},
    ]
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "+1"
    assert _reactions(fake, cid) == [(BOT, "+1")]


def test_api_that_keeps_failing_leaves_no_verdict(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    world["faults"] = [{"method": "GET", "path": r"/actions/runs/101$", "status": 500, "times": 100}]
    fake, gateway = start(fake_github, world)
    with pytest.raises(GitHubError):
        acknowledge(gateway, _event(world, cid))
    assert _reactions(fake, cid) == []  # fail closed: no 👍 on evidence we could not read


SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."


@pytest.mark.parametrize("fault", [
    {"method": "POST", "path": r"/reactions$", "status": 502, "times": 2, "apply": True},  # stored, answer lost
    {"method": "POST", "path": r"/reactions$", "status": 403, "headers": {"Retry-After": "2"}, "times": 1},
    {"method": "POST", "path": r"/reactions$", "status": 403, "message": SECONDARY, "times": 1},
    {"method": "GET", "path": r"/permission$", "status": 429, "times": 1},
])
def test_reaction_survives_faults_and_is_never_doubled(fake_github, fault):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    world["faults"] = [fault]
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "+1"
    assert _reactions(fake, cid) == [(BOT, "+1")]


def test_command_on_the_third_page_of_250_comments(fake_github):
    world = base_world()
    for i in range(248):
        add_comment(world, "carol", "CONTRIBUTOR", f"status update {i}", T1)
    old = add_comment(world, "root", "OWNER", "/use 102", T1)
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T2)
    assert len(pr(world)["comments"]) == 251
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "+1" and _reactions(fake, cid) == [(BOT, "+1")]
    pages = {r["query"].get("page", "1") for r in fake.matching("GET", r"/issues/12/comments$")}
    assert pages == {"1", "2", "3"}
    _, superseded = _ack(fake_github, world, old)
    assert "A newer reuse request supersedes this comment." in superseded.summary


def test_a_maintainer_may_pin_a_failed_run(fake_github):
    world = base_world()  # dave: permission write, role_name maintain
    cid = add_comment(world, "dave", "MEMBER", "/use 102", T1)
    fake, outcome = _ack(fake_github, world, cid)
    assert outcome.reaction == "+1" and "run 102 (failure)" in outcome.summary


def test_an_edited_command_older_than_a_plan_changing_push_is_rejected(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/reuse-sweep-run", T1)  # posted on C2
    swapped = "c3" + "3" * 38
    world["commits"][swapped] = {"parents": [pr(world)["head"]["sha"]], "message": "swap", "files_from":
                                 pr(world)["head"]["sha"], "files": {"perf-changelog.yaml": "- config-keys: [x]\n"
                                                                     "  description: [y]\n  pr-link: XXX\n"}}
    pr(world)["commits"].append(swapped)
    pr(world)["head"]["sha"] = swapped
    world["workflow_runs"].append({"id": 110, "path": ".github/workflows/run-sweep.yml", "event": "pull_request",
                                   "status": "queued", "conclusion": None, "head_sha": swapped,
                                   "head_branch": "carol/bump", "created_at": T2, "artifacts": []})
    fake, outcome = _ack(fake_github, world, cid, action="edited")
    assert outcome.reaction == "-1"
    assert "was posted when the PR head was c22222222222" in outcome.summary and "post a new" in outcome.summary
