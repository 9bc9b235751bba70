"""Shared helpers for the reuse tests (worlds, comments, the fake server), plus their own checks."""

from __future__ import annotations

from lib.reuse_world import C0, C1, C2, M1, base_world, start


def test_world_file_loads_and_the_merge_commit_maps_to_its_pr(fake_github):
    fake, gateway = start(fake_github, base_world())
    assert [p["number"] for p in gateway.pulls_for_commit(M1)] == [12]
    assert gateway.pulls_for_commit(C0) == []
    assert gateway.pull_commits(12) == [C1, C2]


def test_gateway_lists_branch_runs_newest_first_and_completed_only(fake_github):
    _, gateway = start(fake_github, base_world())
    ids = [r.id for r in gateway.branch_runs("carol/bump")]
    assert ids == [109, 107, 105, 104, 103, 102, 101]  # push run 106 and running 108 excluded
    assert gateway.run(424242) is None
    assert gateway.run(101).run_attempt == 2

