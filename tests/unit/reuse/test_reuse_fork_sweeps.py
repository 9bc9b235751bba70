"""Merge-time reuse of a fork PR's trusted fork sweeps, on the fake GitHub: the merge of a fork PR
whose approved fork sweep (run-sweep.yml dispatched on main, titled with the PR and its head)
covers the merge commit's plan is GPU-free and publishes that run; a dispatch pinned to another
PR or to a commit not in the PR is not the PR's sweep, and the fork's own runs never count."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner
from lib.reuse_world import C0, C1, C9, FORK, M1, REPO, add_comment, base_world, merged, pr, start

from infx import trust
from infx.cli.reuse import reuse
from infx.reuse.facts import ReuseError
from infx.reuse.resolver import ResolveRequest, resolve

PUSH = ResolveRequest(event_name="push", ref="refs/heads/main", commit_sha=M1)
SWEEP = 201


def _fork_world(title: str | None = None) -> dict:
    """PR #12 as a fork PR (its head in vendor/inferencex, so its own pull_request runs are the
    fork's), and run 201: run-sweep.yml dispatched on main at C0, pinned by its title to #12 at
    C1, with the green row jobs run 101 had (its check runs on the commit it ran, C0)."""
    world = base_world()
    pr(world)["head"]["repo"] = FORK
    for run in world["workflow_runs"]:
        if run["event"] == "pull_request":
            run["head_repository"] = FORK
    source = next(r for r in world["workflow_runs"] if r["id"] == 101)
    world["workflow_runs"].append(copy.deepcopy(source) | {
        "id": SWEEP, "event": trust.FORK_SWEEP_EVENT, "head_branch": "main", "head_sha": C0,
        "display_title": title or trust.fork_sweep_title(12, C1), "run_attempt": 1,
        "created_at": "2026-09-29T18:00:00Z", "head_repository": REPO})
    jobs = [j for j in world["check_runs"][C1] if j["run_id"] == 101 and j["name"].startswith("single-node")]
    world["check_runs"].setdefault(C0, []).extend(
        j | {"id": j["id"] + 5000, "run_id": SWEEP, "run_attempt": 1,
             "details_url": j["details_url"].replace("/runs/101/", f"/runs/{SWEEP}/")} for j in jobs)
    return merged(world)


def test_a_fork_prs_merge_covered_by_its_fork_sweep_is_gpu_free_and_publishes_it(fake_github, tmp_path):
    fake, gateway = start(fake_github, _fork_world())
    result = resolve(gateway, PUSH)
    outputs = result.outputs()
    assert outputs["reuse-enabled"] == "true", result.reason
    assert outputs["reuse-source-run-ids"] == str(SWEEP) and outputs["reuse-source-pr-number"] == "12"
    assert "no sweep on main" in result.reason
    # the publish step of the same workflow, fed the plan job's outputs
    ran = CliRunner().invoke(reuse, ["publish", "--repo", REPO, "--run-ids", outputs["reuse-source-run-ids"],
                                     "--pr-number", outputs["reuse-source-pr-number"], "--commit-sha", M1],
                             env=fake.env() | {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")})
    assert ran.exit_code == 0, ran.output
    (sent,) = fake.world["dispatches"]
    assert sent["client_payload"]["run_ids"] == [SWEEP] and json.loads(ran.output)["client_payload"]["sha"] == M1


@pytest.mark.parametrize("title", [
    trust.fork_sweep_title(13, C1),  # a sweep of another PR
    trust.fork_sweep_title(12, C9),  # a commit that is not one of the PR's
    "Run Sweep",  # a dispatch that pins nothing
])
def test_a_dispatch_pinned_elsewhere_is_not_the_prs_sweep(fake_github, title):
    _, gateway = start(fake_github, _fork_world(title))
    with pytest.raises(ReuseError, match="merged without a green result for every row") as caught:
        resolve(gateway, PUSH)
    assert str(SWEEP) not in str(caught.value)


def test_the_sign_off_and_reuse_take_the_same_fork_sweeps(fake_github):
    """One rule: the reuse path's runs of the PR are those the sign-off's evidence reads."""
    from infx.reuse.resolver import sweep_runs

    world = _fork_world()
    extra = copy.deepcopy(next(r for r in world["workflow_runs"] if r["id"] == SWEEP))
    world["workflow_runs"].append(extra | {"id": 202, "display_title": trust.fork_sweep_title(13, C1)})
    _, gateway = start(fake_github, world)
    pull = gateway.pull(12)
    taken = sweep_runs(gateway, pull, gateway.pull_commits(12))
    assert [r.id for r in taken] == [SWEEP]
    listed = gateway.dispatched_runs("main")
    assert {r.id for r in listed} == {SWEEP, 202}
    assert trust.fork_sweeps(12, gateway.pull_commits(12), head_repo=FORK, repo=REPO,
                             dispatched=lambda: listed) == [r for r in listed if r.id == SWEEP]


@pytest.mark.parametrize("body", [f"/reuse-sweep-run {SWEEP}", "/reuse-sweep-run", f"/use {SWEEP}"])
def test_a_maintainers_reuse_command_may_name_the_fork_sweep(fake_github, body):
    world = _fork_world()
    add_comment(world, "root", "OWNER", body, "2026-09-29T18:30:00Z")
    _, gateway = start(fake_github, world)
    result = resolve(gateway, PUSH)
    assert result.enabled and result.sources == (SWEEP,), result.reason
    assert "approved sweep reuse" in result.reason


def test_a_reuse_command_naming_another_prs_dispatch_is_refused(fake_github):
    world = _fork_world(trust.fork_sweep_title(13, C1))
    add_comment(world, "root", "OWNER", f"/reuse-sweep-run {SWEEP}", "2026-09-29T18:30:00Z")
    _, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match=f"run {SWEEP} was triggered by workflow_dispatch, expected pull_request"):
        resolve(gateway, PUSH)


def test_merge_time_reuse_lists_dispatches_only_since_the_pr_was_opened(fake_github):
    """The gateway bounds its listing of dispatched runs as the sign-off does
    (posted_head.dispatched_since: from the day before the PR was opened): an older dispatch
    is not even listed, the PR's own fork sweep is."""
    world = _fork_world()
    pr(world)["created_at"] = "2026-09-28T12:00:00Z"
    old = copy.deepcopy(next(r for r in world["workflow_runs"] if r["id"] == SWEEP))
    world["workflow_runs"].append(old | {"id": 203, "created_at": "2026-09-20T00:00:00Z"})
    _, gateway = start(fake_github, world)
    gateway.pull(12)
    assert {r.id for r in gateway.dispatched_runs("main")} == {SWEEP, 203}  # unbounded
    assert {r.id for r in gateway.dispatched_runs("main", since_pr=12)} == {SWEEP}
    assert resolve(gateway, PUSH).outputs()["reuse-source-run-ids"] == str(SWEEP)
