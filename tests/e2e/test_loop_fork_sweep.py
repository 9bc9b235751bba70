"""Trusted fork sweeps, end to end (issue 22 point 5; PRODUCT §4.4, §4.8): a fork PR's own run
of run-sweep.yml sweeps nothing; a maintainer's `/approve-sweep <head>` runs fork-sweep.yml,
whose dispatch runs run-sweep.yml from the default branch on the pinned head (canary first, the
shards, collection, the report) and a CODEOWNER's sign-off then PASSes on that run, which the
sign-off's provenance counts as ours; a push after the approval sweeps nothing and drops the
approval (label removed, one note), and an old or forged dispatch is refused by the run's own
gate; a write-only collaborator's approval is refused. Every workflow is the real file on the
local runner against the fake GitHub."""

from __future__ import annotations

import copy
import shutil

import pytest
from lib.fork_loop import (
    FORK,
    fork_event,
    make_fork,
    recorded_from_fork,
    run_dispatch,
    run_workflow,
)
from lib.loop_scenarios import (
    LABEL,
    SINGLE_NODE_DETAILS,
    assert_pass,
    authorize_reuse,
    failed_jobs,
    jobs_of,
    report_comment,
    sign,
    single_node_pr,
)
from lib.sweep_loop import (
    MAINTAINER,
    SIGNER,
    SweepRepo,
    add_comment,
    base_world,
    comment_event,
    pull_request_event,
    run_with_github,
    verify,
    workflow_run_event,
)

from infx import trust
from infx.workflow.fork_sweep import NOTE_MARKER

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

APPROVED_AT = "2026-09-29T09:00:00Z"
GPU_JOBS = ("canary", "sweep-")


def _gpu_jobs(record) -> list:
    """The run's GPU jobs that ran (skipped ones are listed too, as GitHub lists them)."""
    return [j for j in record.jobs if j.key.startswith(GPU_JOBS) and j.conclusion != "skipped"]


def _fork_pr(repo: SweepRepo, tmp_path):
    """The fork PR, labeled, and its own labeled run of run-sweep.yml (validates, sweeps nothing)."""
    pr = single_node_pr(repo)
    merge = repo.pull_refs(pr.number, pr.head_sha)
    world = make_fork(base_world(repo, pr))
    event = fork_event(pull_request_event(pr, "labeled", merge, label=LABEL))
    own, world = run_with_github(world, repo, event, 9301, tmp_path / "run9301", start="2026-09-28T10:00:00Z")
    world["workflow_runs"] = [r for r in world["workflow_runs"] if r["id"] != own.run_id]
    recorded_from_fork(world, own)
    return pr, world, own


def _approve(world, repo, tmp_path, user: str, sha: str, run_id: int):
    cid = add_comment(world, user, "MEMBER", f"Read the recipe and the launcher.\n\n/approve-sweep {sha}\n",
                      APPROVED_AT)
    record, after = run_workflow(world, repo, comment_event(world, cid, repo.sha("main")),
                                 ".github/workflows/fork-sweep.yml", run_id, tmp_path)
    return cid, record, after


def _reactions(world, cid: int) -> list[str]:
    return [r["content"] for r in next(c for c in world["pulls"][0]["comments"] if c["id"] == cid)["reactions"]]


def test_approve_then_sweep_then_the_verdict_passes(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr, world, own = _fork_pr(repo, tmp_path)
    assert own.job("check-changelog").conclusion == "success"
    assert own.job("setup").conclusion == "skipped" and not _gpu_jobs(own)  # a fork's own run

    cid, approving, world = _approve(world, repo, tmp_path, MAINTAINER, pr.head_sha, 9302)
    assert approving.conclusion == "success", failed_jobs(approving)
    assert _reactions(world, cid) == ["+1"]
    (dispatch,) = world["workflow_dispatches"]
    assert dispatch["inputs"] == {"pr-number": str(pr.number), "head-sha": pr.head_sha}

    record, world = run_dispatch(world, repo, dispatch, 9303, tmp_path)
    assert record.conclusion == "success", failed_jobs(record)
    assert record.display_title == trust.fork_sweep_title(pr.number, pr.head_sha)
    assert record.head_sha == repo.sha("main") and record.head_branch == "main"
    assert record.concurrency == f"sweep-fork-{pr.number}-active"
    canary = jobs_of(record, "canary")
    rows = jobs_of(record, "sweep-single-node-8k1k-1") + jobs_of(record, "sweep-evals-1")
    assert len(canary) == 1 and rows and {j.conclusion for j in canary + rows} == {"success"}
    # canary first: every row job started after the canary ended
    assert all(j.started_at >= canary[0].completed_at for j in rows)
    # every GPU job checked the pinned head out as the PR's files (the code: the default branch's)
    assert all(f"checked out {pr.head_sha} ({pr.head_sha})" in j.log for j in canary + rows)
    assert record.job("check-changelog").outputs["head-sha"] == pr.head_sha
    assert "Fork sweep of PR #41" in record.job("check-changelog").summary
    report = report_comment(world)
    assert str(record.run_id) in report["body"]

    # the run is ours under §4.8 provenance, and the verdict on the head PASSes on it
    run = next(r for r in world["workflow_runs"] if r["id"] == record.run_id)
    assert run["event"] == "workflow_dispatch" and run["display_title"] == record.display_title
    authorize_reuse(world, record.run_id)  # the merge takes this run's rows (Check `reuse`)
    signed = sign(world, SINGLE_NODE_DETAILS)
    verdict = verify(world, pr.number, signed, tmp_path)
    assert_pass(verdict)
    assert str(record.run_id) in str(verdict.check("1")), verdict.check("1")

    # the same run pinned to another PR, or dispatched from another branch, is no sweep of this PR
    for change in ({"display_title": trust.fork_sweep_title(pr.number + 1, pr.head_sha)},
                   {"head_branch": pr.branch}):
        spoiled = copy.deepcopy(world)
        next(r for r in spoiled["workflow_runs"] if r["id"] == record.run_id).update(change)
        other = verify(spoiled, pr.number, signed, tmp_path)
        assert other.verdict != "PASS" and other.status != "success", change
        assert other.check("1")["status"] == "FAIL", change


def test_a_push_after_the_approval_sweeps_nothing_and_drops_it(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr, world, _ = _fork_pr(repo, tmp_path)
    _, approving, world = _approve(world, repo, tmp_path, MAINTAINER, pr.head_sha, 9312)
    (old_dispatch,) = world["workflow_dispatches"]
    approved = pr.head_sha

    # the fork pushes: its own runs (run-sweep.yml and Fork PR push) sweep nothing
    before = pr.head_sha
    pr.head_sha = repo.commit(pr.branch, pr.head_sha, {"benchmarks/NOTE.md": "later\n"}, "a later push")
    pr.commits.append(pr.head_sha)
    merge = repo.pull_refs(pr.number, pr.head_sha)
    fresh = make_fork(base_world(repo, pr))
    fresh["pulls"][0]["comments"] = world["pulls"][0]["comments"]
    fresh["workflow_runs"], fresh["check_runs"] = world["workflow_runs"], world["check_runs"]
    world = fresh
    push = fork_event(pull_request_event(pr, "synchronize", merge, before=before))
    own, world = run_with_github(world, repo, push, 9313, tmp_path / "run9313")
    assert not _gpu_jobs(own) and own.job("setup").conclusion == "skipped"
    handoff, world = run_workflow(world, repo, push, ".github/workflows/fork-push.yml", 9314, tmp_path)
    assert handoff.conclusion == "success" and [j.name for j in handoff.jobs] == ["hand over to the approval dropper"]
    recorded_from_fork(world, handoff)

    # the follow-up drops the approval: the primary label goes, one note says what to do
    dropping, world = run_workflow(world, repo, workflow_run_event(handoff, push, world["branches"]["main"]),
                                   ".github/workflows/fork-sweep-drop.yml", 9315, tmp_path)
    assert dropping.conclusion == "success", failed_jobs(dropping)
    assert LABEL not in world["pulls"][0]["labels"]
    (note,) = [c for c in world["pulls"][0]["comments"] if NOTE_MARKER in c["body"]]
    assert approved[:12] in note["body"] and f"/approve-sweep {pr.head_sha}" in note["body"]

    # the old approval's dispatch (re-sent, or a write user's copy of it) sweeps nothing
    stale, _ = run_dispatch(world, repo, old_dispatch, 9316, tmp_path)
    assert stale.job("check-changelog").conclusion == "failure" and not _gpu_jobs(stale)
    assert "a push after an approval drops it" in stale.job("check-changelog").log


def test_an_approval_by_a_write_only_collaborator_is_refused(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr, world, _ = _fork_pr(repo, tmp_path)
    assert world["collaborators"][SIGNER]["role_name"] == "write"
    cid, approving, world = _approve(world, repo, tmp_path, SIGNER, pr.head_sha, 9322)
    assert approving.conclusion == "failure"
    assert "needs the maintain or admin role" in approving.job("approve a fork sweep").log
    assert _reactions(world, cid) == ["-1"] and "workflow_dispatches" not in world
    # the same collaborator dispatches run-sweep.yml directly (write access may): the gate refuses
    forged = {"workflow": trust.SWEEP_WORKFLOW, "ref": "main", "sha": repo.sha("main"), "sender": SIGNER,
              "inputs": {"pr-number": str(pr.number), "head-sha": pr.head_sha}}
    record, world = run_dispatch(world, repo, forged, 9323, tmp_path)
    assert record.job("check-changelog").conclusion == "failure" and not _gpu_jobs(record)
    signed = sign(world, SINGLE_NODE_DETAILS)
    verdict = verify(world, pr.number, signed, tmp_path)
    assert verdict.verdict != "PASS" and verdict.status != "success"
    assert verdict.check("1")["status"] == "FAIL"
    assert FORK != world["repo"]
