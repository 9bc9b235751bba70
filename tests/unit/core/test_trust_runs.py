"""Runs that are not ours (a fork's, or made with the PR's own edited sweep workflow) offered to
every reuse consumer on the fake server: `/use`, a bare `/reuse-sweep-run`, the incremental
planner's run choice and the merge; and a merge whose covering runs' results expired. Never a
skipped sweep, never a publish, the reason named (infx.trust.our_run decides for all)."""

from __future__ import annotations

import pytest
from lib.reuse_world import C1, C2, FORK, M1, add_comment, base_world, merged, pr, start

from infx.reuse.covering import eligible_runs
from infx.reuse.facts import ReuseError
from infx.reuse.resolver import ResolveRequest, ours_by, resolve

SYNC = ResolveRequest(event_name="pull_request", event_action="synchronize", pr_number=12, commit_sha=C2)
PUSH = ResolveRequest(event_name="push", ref="refs/heads/main", commit_sha=M1)
T1 = "2026-09-29T18:00:00Z"
EDITED = "name: Run Sweep\non: pull_request\njobs:\n  fake: {runs-on: ubuntu-latest, steps: [{run: 'true'}]}\n"
FORK_WHY = f"its head commit comes from {FORK}, not acme/inferencex (a fork's runs never count)"
EDIT_WHY = "has sweep workflow files that differ from the default branch's (.github/workflows/run-sweep.yml)"


def _fork_runs(world: dict) -> dict:
    """Every finished run of PR #12 says its head commit came from the fork (run 108, still
    running, is the PR's own: GitHub's record of the head a command was posted at)."""
    for run in world["workflow_runs"]:
        if run["id"] != 108:
            run["head_repository"] = FORK
    return world


def _edited_workflow(world: dict) -> dict:
    """The PR's first commit edits run-sweep.yml (its later commits and the merge inherit it):
    its runs ran the PR's workflow, not ours."""
    world["commits"][C1]["files"][".github/workflows/run-sweep.yml"] = EDITED
    return world


UNTRUSTED = [pytest.param(_fork_runs, FORK_WHY, id="fork"),
             pytest.param(_edited_workflow, EDIT_WHY, id="edited-workflow")]


@pytest.mark.parametrize(("spoil", "why"), UNTRUSTED)
def test_use_of_an_untrusted_run_is_refused_at_the_push_and_the_merge(fake_github, spoil, why):
    world = spoil(base_world())
    add_comment(world, "root", "OWNER", "/use 101", T1)
    _, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match="run 101 is not our sweep: ") as caught:
        resolve(gateway, SYNC)
    assert why in caught.value.message
    _, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError, match="run 101 is not our sweep: "):
        resolve(gateway, PUSH)


@pytest.mark.parametrize(("spoil", "why"), UNTRUSTED)
def test_bare_reuse_never_skips_the_sweep_on_untrusted_runs(fake_github, spoil, why):
    world = spoil(base_world())
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    _, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match="no successful run-sweep.yml run") as caught:
        resolve(gateway, SYNC)  # the plan job fails: the sweep is not skipped on them
    assert f"passed over run 101 ({why.split(' (')[0]}" in caught.value.message or why in caught.value.message


@pytest.mark.parametrize(("spoil", "why"), UNTRUSTED)
def test_the_merge_never_publishes_untrusted_runs(fake_github, spoil, why):
    """No command: the neutral merge takes no untrusted run's rows, so nothing is published
    and the rows are named as never swept green."""
    _, gateway = start(fake_github, merged(spoil(base_world())))
    with pytest.raises(ReuseError, match="merged without a green result for every row of its plan"):
        resolve(gateway, PUSH)


@pytest.mark.parametrize(("spoil", "why"), UNTRUSTED)
def test_the_incremental_planner_takes_no_rows_from_untrusted_runs(fake_github, spoil, why):
    """The runs `infx reuse incremental` may drop rows for (infx.cli.reuse.incremental_command
    asks exactly this): none of an untrusted world, all sweep runs of the honest one."""
    def chosen(world: dict) -> list[int]:
        _, gateway = start(fake_github, world)
        pull = gateway.pull(12)
        return [r.id for r in eligible_runs(gateway.branch_runs(pull.head_ref), gateway.pull_commits(12),
                                            ours=ours_by(gateway, pull))]

    assert chosen(base_world()) == [109, 105, 104, 102, 101]
    assert chosen(spoil(base_world())) == []


def test_the_merge_never_publishes_runs_whose_results_expired(fake_github):
    world = merged(base_world())
    for run in world["workflow_runs"]:
        for artifact in run.get("artifacts", []):
            artifact["expired"] = True
    _, gateway = start(fake_github, world)
    with pytest.raises(ReuseError) as caught:
        resolve(gateway, PUSH)
    text = caught.value.message
    assert "runs cover the merge commit's plan, but run" in text
    assert "holds no unexpired result artifact" in text and "(expired: " in text


def test_honest_world_still_merges_without_a_sweep(fake_github):
    _, gateway = start(fake_github, merged(base_world()))
    result = resolve(gateway, PUSH)
    assert result.enabled and "no sweep on main" in result.reason
    assert pr(merged(base_world()))["head"]["repo"] == "acme/inferencex"
