"""Trusted fork sweeps against the fake GitHub (infx.workflow.fork_sweep): `/approve-sweep` by a
maintainer dispatches run-sweep.yml on the default branch pinned to the head, anyone else gets a
👎 and no dispatch; the dispatched run's gate refuses a dispatch nobody approved (anyone with
write access can dispatch) or a head that moved; a push drops an outdated approval (labels off,
one note), once."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from lib.reuse_world import C1, C2, FORK, REPO, add_comment, add_fork_pr, base_world, pr

from infx import trust
from infx.cli.workflow import workflow
from infx.errors import InfxError
from infx.reuse.ack import CommentEvent
from infx.workflow.fork_sweep import NOTE_MARKER, approve, drop, gate

T1, T2 = "2026-09-29T18:00:00Z", "2026-09-29T19:00:00Z"


def _world(**fields) -> dict:
    world = add_fork_pr(base_world(), **fields)
    pr(world, 14)["draft"] = False
    return world


def _event(world: dict, comment_id: int) -> CommentEvent:
    comment = next(c for c in pr(world, 14)["comments"] if c["id"] == comment_id)
    return CommentEvent.of(action="created", issue_number=14, is_pull_request=True, comment_id=comment_id,
                        body=comment["body"], updated_at=comment["updated_at"])


def _reactions(fake, comment_id: int) -> list[str]:
    comment = next(c for c in pr(fake.world, 14)["comments"] if c["id"] == comment_id)
    return [r["content"] for r in comment.get("reactions", [])]


@pytest.mark.parametrize("approver", ["dave", "root"])  # maintain (reported as write), admin
def test_a_maintainers_approval_dispatches_the_sweep_of_that_head(fake_github, approver):
    world = _world()
    cid = add_comment(world, approver, "MEMBER", f"Read it.\n\n/approve-sweep {C2}\n", T1, number=14)
    fake = fake_github(world)
    outcome = approve(fake.client(), REPO, _event(world, cid))
    assert outcome.reaction == "+1" and not outcome.failed
    (sent,) = fake.world["workflow_dispatches"]
    assert sent["workflow"] == trust.SWEEP_WORKFLOW and sent["ref"] == "main"
    assert sent["inputs"] == {"pr-number": "14", "head-sha": C2}
    assert C2 in outcome.summary  # the run's title names it (shown inert)
    assert _reactions(fake, cid) == ["+1"]


@pytest.mark.parametrize(("user", "body", "why"), [
    ("alice", f"/approve-sweep {C2}", "needs the maintain or admin role; alice has write"),
    ("bob", f"/approve-sweep {C2}", "needs the maintain or admin role; bob has read"),
    ("dave", f"/approve-sweep {C1}", "a push after an approval drops it"),
    ("dave", f"`/approve-sweep {C2}`", None),  # in code: no command, nothing to answer
])
def test_anyone_else_or_another_head_gets_no_dispatch(fake_github, user, body, why):
    world = _world()
    cid = add_comment(world, user, "MEMBER", body, T1, number=14)
    fake = fake_github(world)
    outcome = approve(fake.client(), REPO, _event(world, cid))
    assert "workflow_dispatches" not in fake.world
    if why is None:
        assert outcome.reaction is None and not outcome.failed
        return
    assert outcome.reaction == "-1" and outcome.failed and why in outcome.summary
    assert _reactions(fake, cid) == ["-1"]


def test_a_same_repository_pr_needs_no_approval(fake_github):
    world = base_world()
    cid = add_comment(world, "root", "OWNER", f"/approve-sweep {pr(world)['head']['sha']}", T1)
    fake = fake_github(world)
    event = CommentEvent.of("created", 12, True, cid, pr(world)["comments"][-1]["body"], T1)
    outcome = approve(fake.client(), REPO, event)
    assert outcome.failed and "its own run-sweep.yml run sweeps it" in outcome.summary


def test_the_gate_passes_an_approved_head_with_the_labels_that_choose_the_sweep(fake_github):
    world = _world()
    add_comment(world, "dave", "MEMBER", f"/approve-sweep {C2}", T1, number=14)
    outputs = gate(fake_github(world).client(), REPO, 14, C2)
    assert outputs == {"labels-json": json.dumps(["full-sweep-fail-fast"]), "base-ref": "main",
                       "head-sha": C2, "approver": "dave"}


@pytest.mark.parametrize(("comments", "dispatched", "why"), [
    ([], C2, "no comment approves a sweep"),  # a write user dispatched without any approval
    ([("alice", C2)], C2, "needs the maintain or admin role; alice has write"),
    ([("dave", C1)], C2, "a push after an approval drops it"),  # approved an earlier head
    ([("dave", C2)], C1, "the dispatch names c11111111111, but the approval is for c22222222222"),
])
def test_the_gate_refuses_what_no_maintainer_approved(fake_github, comments, dispatched, why):
    world = _world()
    for user, sha in comments:
        add_comment(world, user, "MEMBER", f"/approve-sweep {sha}", T1, number=14)
    with pytest.raises(InfxError, match="no fork sweep of PR #14") as caught:
        gate(fake_github(world).client(), REPO, 14, dispatched)
    assert why in caught.value.problems[0].message


def test_the_gate_refuses_an_edited_a_bots_or_another_prs_approval(fake_github):
    """Red-team: the dispatched run's gate, on the fake GitHub. A maintainer's approval edited
    since it was posted (anyone with write may edit it), an approval by an App account with the
    admin role, and an approval of #14's head posted on another PR approve nothing; a dispatch
    naming a same-repository PR with its head is refused though a maintainer approved it."""
    T0 = "2026-09-29T17:00:00Z"
    edited = _world()
    cid = add_comment(edited, "dave", "MEMBER", f"/approve-sweep {C2}", T0, number=14)
    next(c for c in pr(edited, 14)["comments"] if c["id"] == cid)["updated_at"] = T1
    bot = _world()
    bot["collaborators"]["infx-app[bot]"] = {"permission": "admin", "role_name": "admin"}
    add_comment(bot, "infx-app[bot]", "NONE", f"/approve-sweep {C2}", T1, number=14)
    elsewhere = _world()
    add_comment(elsewhere, "dave", "MEMBER", f"/approve-sweep {C2}", T1, number=12)
    for world, why in ((edited, "the comment was edited, not posted"), (bot, "a bot account never approves"),
                       (elsewhere, "no comment approves a sweep")):
        with pytest.raises(InfxError, match="no fork sweep of PR #14") as caught:
            gate(fake_github(world).client(), REPO, 14, C2)
        assert why in caught.value.problems[0].message
    same_repo = _world()
    add_comment(same_repo, "dave", "MEMBER", f"/approve-sweep {pr(same_repo, 12)['head']['sha']}", T1)
    with pytest.raises(InfxError, match="no fork sweep of PR #12") as caught:
        gate(fake_github(same_repo).client(), REPO, 12, pr(same_repo, 12)["head"]["sha"])
    assert "the PR's head is in this repository" in caught.value.problems[0].message


def test_a_push_after_the_approval_drops_it_once(fake_github):
    world = _world(labels=["full-sweep-fail-fast", "all-evals"])
    add_comment(world, "dave", "MEMBER", f"/approve-sweep {C1}", T1, number=14)  # the head then
    fake = fake_github(world)
    client = fake.client()
    outcome = drop(client, REPO, 14)
    assert pr(fake.world, 14)["labels"] == ["all-evals"]  # the primary label only
    notes = [c for c in pr(fake.world, 14)["comments"] if NOTE_MARKER in c["body"]]
    assert len(notes) == 1 and f"/approve-sweep {C2}" in notes[0]["body"]
    assert "`full-sweep-fail-fast`" in notes[0]["body"] and "Removed" in outcome.summary
    drop(client, REPO, 14)  # the next push: the note is edited in place, never repeated
    assert len([c for c in pr(fake.world, 14)["comments"] if NOTE_MARKER in c["body"]]) == 1
    with pytest.raises(InfxError, match="a push after an approval drops it"):
        gate(client, REPO, 14, C1)  # and a dispatch of the old head sweeps nothing


@pytest.mark.parametrize(("comments", "number"), [
    ([], 14),  # nothing was approved
    ([("alice", C1)], 14),  # a write user's line approves nothing, so it drops nothing
    ([("dave", C1), ("dave", C2)], 14),  # the newest approval is for the head
    ([("dave", C1)], 12),  # not a fork PR
])
def test_nothing_to_drop(fake_github, comments, number):
    world = _world()
    for user, sha in comments:
        add_comment(world, user, "MEMBER", f"/approve-sweep {sha}", T1 if sha == C1 else T2, number=number)
    fake = fake_github(world)
    before = [list(p["labels"]) for p in fake.world["pulls"]]
    drop(fake.client(), REPO, number)
    assert [list(p["labels"]) for p in fake.world["pulls"]] == before
    assert not any(NOTE_MARKER in c["body"] for p in fake.world["pulls"] for c in p["comments"])


def test_the_drop_step_finds_the_pr_from_the_finished_fork_run(fake_github, tmp_path):
    """`infx workflow fork-drop` on the workflow_run event of a `Fork PR push` run: the fork's
    head (validated) names the branch, this repository's API the PR."""
    world = _world()
    add_comment(world, "dave", "MEMBER", f"/approve-sweep {C1}", T1, number=14)
    fake = fake_github(world)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "completed", "workflow_run": {
        "id": 5001, "name": "Fork PR push", "event": "pull_request", "status": "completed",
        "conclusion": "success", "head_sha": C2, "head_branch": "main", "path": ".github/workflows/fork-push.yml",
        "head_repository": {"full_name": FORK}}, "repository": {"full_name": REPO, "default_branch": "main"}}))
    result = CliRunner().invoke(workflow, ["fork-drop", "--repo", REPO, "--event-path", str(event)],
                                env=fake.env() | {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")})
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["pulls"] == [14]
    assert pr(fake.world, 14)["labels"] == []
