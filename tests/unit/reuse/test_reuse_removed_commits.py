"""Sweep runs on a commit a force-push or rebase removed from the PR, offered to the coverage
consumers on the fake server (the incremental planner's run choice, the merge, a bare
`/reuse-sweep-run` when no run of the PR's commits qualifies): they count only when
infx.trust.counts_for_pr admits them — our sweep workflow, this repository, sweep files identical
to the default branch's, and the head's fingerprint for every planned row — and never for a
`/use <run_id>` pin (research/workflows.md §3, scenario 8)."""

from __future__ import annotations

import pytest
from lib.reuse_world import C1, C2, C9, FORK, M1, add_comment, base_world, merged, start

from infx.reuse.facts import ReuseError
from infx.reuse.resolver import ResolveRequest, cover_by, plan_of, resolve, sweep_runs

PUSH = ResolveRequest(event_name="push", ref="refs/heads/main", commit_sha=M1)
SYNC = ResolveRequest(event_name="pull_request", event_action="synchronize", pr_number=12, commit_sha=C2)
LAUNCHER = "runners/launch_mi355x-amds.sh"
T1 = "2026-09-29T18:00:00Z"


def _only_removed_green(world: dict) -> dict:
    """The PR's own sweeps on C1 and C2 never happened: the one sweep of the PR's content is
    run 103, green on C9, a head the author force-pushed away (C9 has C1's files)."""
    world["workflow_runs"] = [r for r in world["workflow_runs"] if r["id"] in (103, 108)]  # 108: running on C2
    for sha in (C1, C2):
        world["check_runs"].pop(sha, None)
    return world


def _candidates(fake_github, world: dict) -> list[int]:
    """The runs `infx reuse incremental` takes rows from for the head's plan (it asks exactly
    this: sweep_runs with the head's plan), and which of them cover a row."""
    _, gateway = start(fake_github, world)
    pull = gateway.pull(12)
    wanted = plan_of(gateway, pull, pull.head_sha)
    runs = sweep_runs(gateway, pull, gateway.pull_commits(12), wanted=wanted)
    return [r.id for r in runs]


def test_a_removed_commit_with_the_heads_content_counts_for_coverage(fake_github):
    world = _only_removed_green(base_world())
    assert 103 in _candidates(fake_github, world)
    _, gateway = start(fake_github, world)
    pull = gateway.pull(12)
    wanted = plan_of(gateway, pull, pull.head_sha)
    found = cover_by(gateway, wanted, sweep_runs(gateway, pull, gateway.pull_commits(12), wanted=wanted),
                     pull.base_sha)
    assert found.complete and found.runs() == [103]
    _, gateway = start(fake_github, merged(world))
    result = resolve(gateway, PUSH)  # the GPU-free merge publishes it
    assert result.enabled and result.sources == (103,) and "no sweep on main" in result.reason


def test_without_the_heads_plan_a_removed_commit_never_counts(fake_github):
    """The listing alone (no plan to compare fingerprints with) keeps the in-PR rule."""
    world = _only_removed_green(base_world())
    _, gateway = start(fake_github, world)
    pull = gateway.pull(12)
    assert 103 not in [r.id for r in sweep_runs(gateway, pull, gateway.pull_commits(12))]


def _launcher_differs(world: dict) -> dict:
    """C9 ran another launcher (what the attacker pushed before force-pushing it away)."""
    world["commits"][C9]["files"][LAUNCHER] = "#!/bin/sh\necho 'results without a benchmark'\n"
    return world


def _sweep_template_differs(world: dict) -> dict:
    """C9 carries its own benchmark-tmpl.yml (called by run-sweep.yml, not in any fingerprint):
    the launch steps the run executed were the author's, whatever the fingerprints say."""
    world["commits"][C9]["files"][".github/workflows/benchmark-tmpl.yml"] = (
        "name: t\non: workflow_call\njobs:\n  b: {runs-on: ubuntu-latest, steps: [{run: 'true'}]}\n")
    return world


def _from_a_fork(world: dict) -> dict:
    next(r for r in world["workflow_runs"] if r["id"] == 103)["head_repository"] = FORK
    return world


def _another_workflow(world: dict) -> dict:
    next(r for r in world["workflow_runs"] if r["id"] == 103)["path"] = ".github/workflows/my-sweep.yml"
    return world


def _a_push_run(world: dict) -> dict:
    next(r for r in world["workflow_runs"] if r["id"] == 103)["event"] = "push"
    return world


SPOILED = [pytest.param(_launcher_differs, id="launcher-differs"),
           pytest.param(_sweep_template_differs, id="sweep-template-differs"),
           pytest.param(_from_a_fork, id="fork"),
           pytest.param(_another_workflow, id="other-workflow"),
           pytest.param(_a_push_run, id="push-event")]


@pytest.mark.parametrize("spoil", SPOILED)
def test_a_removed_commit_that_is_not_our_sweep_of_the_heads_content_never_counts(fake_github, spoil):
    world = spoil(_only_removed_green(base_world()))
    assert 103 not in _candidates(fake_github, world)
    _, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError, match="merged without a green result for every row of its plan"):
        resolve(gateway, PUSH)  # nothing published: the rows are named as never swept green


def test_a_pin_of_a_removed_commit_stays_refused(fake_github):
    """`/use <run_id>` keeps research/workflows.md §3: a pinned run must be on a PR commit, even
    when its content is the head's (C9 has C1's files)."""
    world = base_world()
    add_comment(world, "root", "OWNER", "/use 103", T1)
    _, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match="not in PR #12's commit list"):
        resolve(gateway, SYNC)


def test_a_bare_command_takes_a_removed_commits_sweep_only_when_the_pr_has_none(fake_github):
    world = _only_removed_green(base_world())
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    _, gateway = start(fake_github, merged(world))
    result = resolve(gateway, PUSH)
    assert result.enabled and result.source.id == 103 and result.sources == (103,)
    for spoil in (_launcher_differs, _sweep_template_differs):
        spoiled = spoil(_only_removed_green(base_world()))
        add_comment(spoiled, "root", "OWNER", "/reuse-sweep-run", T1)
        _, gateway = start(fake_github, merged(spoiled))
        with pytest.raises(ReuseError, match="no successful run-sweep.yml run"):
            resolve(gateway, PUSH)
