"""Red team 22: the head a sign-off or `/reuse-sweep-run` was posted on (ef40d4a: the newest run's
head S or any PR commit descending from it), replayed on the fake server.

Seed 000's head 296a93 (S) has a run at 09:00; the CODEOWNER signs at 09:30 (5003) and the reuse
command (5002) is moved to 09:35. In each world the signer may have seen a commit X whose
recipe differs from S's, and the head the bot assesses, Y, has S's files again: a binding that
holds carries the sign-off (or the command) from S to Y although X was what was approved.

- nine commits after S (more than are compared): the resolver refuses, the sign-off carries;
- X force-pushed while S's run was still queued (or in its second): no force-push "after" S's run;
- a closed sibling PR on the same branch, whose run records its own frozen head as the branch's;
- a timeline GitHub cut short after a back-dated head, with X listed later.
"""

from __future__ import annotations

import copy

import pytest
from lib.trust_replay import posted, trust_worlds, verify_seed

from infx.reuse.gateway import GitHubGateway
from infx.reuse.resolver import find_request, unbound_reason

X = "c0ffee0000000000000000000000000000000040"
Y = "c0ffee0000000000000000000000000000000041"
BAD = "c0ffee0000000000000000000000000000000042"
SIBLING_PR = 3499


def _seed(request, name: str):
    m = trust_worlds(request, name)
    world = m.SEED.seed000()
    command = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5002)
    command.update(created_at="2026-09-24T09:35:00Z", updated_at="2026-09-24T09:35:00Z")
    return m, world


def _recipe(m, world: dict) -> str:
    return world["commits"][m.SWEEP]["files"][m.SCRIPT]


def _reuse_reason(fake_github, world: dict) -> str | None:
    gateway = GitHubGateway(fake_github(copy.deepcopy(world)).client(), world["repo"])
    found = find_request(gateway, 3412)
    assert found is not None
    return unbound_reason(gateway, 3412, found)


def _crowd_world(request, count: int) -> dict:
    """X (what was seen, [skip ci], no run) on S, then `count - 1` empty commits, then Y
    restoring S's recipe (run 10:00): `count` commits besides the head descend from S."""
    m, world = _seed(request, "rt22_crowd")
    pull = world["pulls"][0]
    script = _recipe(m, world)
    world["commits"][X] = {"parents": [m.HEAD], "files_from": m.HEAD, "message": "tidy [skip ci]",
                           "files": {m.SCRIPT: script + "export ATOM_SAFE_MODE=1\n"}}
    chain = [X]
    for i in range(count - 1):
        sha = f"c0ffee00000000000000000000000000000005{i:02d}"
        world["commits"][sha] = {"parents": [chain[-1]], "files_from": chain[-1],
                                 "message": f"wip {i} [skip ci]", "files": {}}
        chain.append(sha)
    world["commits"][Y] = {"parents": [chain[-1]], "files_from": chain[-1], "message": "restore",
                           "files": {m.SCRIPT: script}}
    pull["commits"] = [*pull["commits"], *chain, Y]
    pull["head"]["sha"] = Y
    world["workflow_runs"].append(m.SEED.head_status_run(35873197742, Y, m.BRANCH, "2026-09-24T10:00:00Z"))
    return world


def test_nine_later_commits_do_not_let_the_signoff_carry_from_the_runs_head(request, fake_github) -> None:
    world = _crowd_world(request, 9)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y), result.reason


def test_control_nine_later_commits_refuse_the_reuse_command(request, fake_github) -> None:
    why = _reuse_reason(fake_github, _crowd_world(request, 9))
    assert why is not None and "9 commits were pushed after it" in why, why


def test_control_eight_later_commits_are_each_compared_and_refuse_the_signoff(request, fake_github) -> None:
    world = _crowd_world(request, 8)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y), result.reason
    assert f"such as {X[:12]}" in result.reason, result.reason
    why = _reuse_reason(fake_github, world)
    assert why is not None and f"such as {X[:12]}" in why, why


def _late_run_world(request, run_at: str, forced_at: str) -> dict:
    """S's run is created at `run_at`, a few seconds after its push (GitHub queues runs); at
    `forced_at`, before that, the author force-pushed X, a sibling of S with another recipe and
    [skip ci] (no run), which the signer then sees. Y (10:00) merges S into X with S's files."""
    m, world = _seed(request, "rt22_late_run")
    pull = world["pulls"][0]
    script = _recipe(m, world)
    run = next(r for r in world["workflow_runs"] if r["head_sha"] == m.HEAD)
    run["created_at"] = run_at
    world["commits"][X] = {"parents": list(world["commits"][m.HEAD]["parents"]), "files_from": m.HEAD,
                           "message": "tidy [skip ci]",
                           "files": {m.SCRIPT: script + "export ATOM_SAFE_MODE=1\n"}}
    world["commits"][Y] = {"parents": [X, m.HEAD], "files_from": m.HEAD, "message": "Merge S", "files": {}}
    pull["commits"] = [*pull["commits"], X, Y]
    pull["head"]["sha"] = Y
    pull["timeline"] = [*({"event": "committed", "sha": sha} for sha in pull["commits"]),
                        {"event": "head_ref_force_pushed", "created_at": forced_at, "commit_id": X,
                         "actor": pull["user"]}]
    world["workflow_runs"].append(m.SEED.head_status_run(35873197743, Y, m.BRANCH, "2026-09-24T10:00:00Z"))
    return world


LATE_RUNS = [("2026-09-24T09:00:05Z", "2026-09-24T09:00:02Z"),   # force-pushed while S's run was queued
             ("2026-09-24T09:00:00Z", "2026-09-24T09:00:00Z")]   # in the same second as S's run


@pytest.mark.parametrize("run_at, forced_at", LATE_RUNS)
def test_a_force_push_before_the_runs_creation_leaves_the_signoff_head_unknown(
        request, fake_github, run_at, forced_at) -> None:
    world = _late_run_world(request, run_at, forced_at)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y), result.reason


@pytest.mark.parametrize("run_at, forced_at", LATE_RUNS)
def test_a_force_push_before_the_runs_creation_leaves_the_reuse_head_unknown(
        request, fake_github, run_at, forced_at) -> None:
    why = _reuse_reason(fake_github, _late_run_world(request, run_at, forced_at))
    assert why is not None, why


def test_control_a_force_push_after_the_runs_creation_leaves_the_head_unknown(request, fake_github) -> None:
    world = _late_run_world(request, "2026-09-24T09:00:00Z", "2026-09-24T09:00:01Z")
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y) and "force-pushed" in result.reason, result.reason
    why = _reuse_reason(fake_github, world)
    assert why is not None and "force-pushed" in why, why


def _sibling_world(request) -> dict:
    """The author's PR #3499 heads the same branch. 08:00: BAD (S plus a recipe change) is pushed
    and heads both PRs; 08:10: #3499 is closed (GitHub keeps its head at BAD); 08:20: the branch
    is force-pushed back to S, which #3412 then shows; 09:10: the author edits #3499's title, and
    GitHub runs its pull_request workflows with #3499's head, BAD, on the branch; 09:30: the
    signer signs S as #3412 shows it; 10:00: BAD is pushed again (a fast-forward)."""
    m, world = _seed(request, "rt22_sibling")
    pull = world["pulls"][0]
    world["commits"][BAD] = {"parents": [m.HEAD], "files_from": m.HEAD, "message": "tidy the recipe",
                             "files": {m.SCRIPT: _recipe(m, world) + "export ATOM_SAFE_MODE=0\n"}}
    sibling = {k: v for k, v in copy.deepcopy(pull).items() if k not in ("comments", "reviews", "review_comments")}
    sibling.update(number=SIBLING_PR, title="perf(amd): MiniMax-M3 (superseded)", state="closed",
                   head={**pull["head"], "sha": BAD}, commits=[*pull["commits"], BAD],
                   comments=[], reviews=[], review_comments=[])
    world["pulls"].append(sibling)
    pull["commits"] = [*pull["commits"], BAD]
    pull["head"]["sha"] = BAD
    pull["timeline"] = [*({"event": "committed", "sha": sha} for sha in pull["commits"]),
                        {"event": "head_ref_force_pushed", "created_at": "2026-09-24T08:20:00Z",
                         "commit_id": m.HEAD, "actor": pull["user"]}]
    world["workflow_runs"] += [m.SEED.head_status_run(35873197744, BAD, m.BRANCH, at) for at in
                               ("2026-09-24T08:00:00Z", "2026-09-24T09:10:00Z", "2026-09-24T10:00:00Z")]
    for i, run in enumerate(world["workflow_runs"][-3:]):
        run["id"] += i
    return world


def test_a_closed_sibling_prs_run_does_not_bind_the_signoff_to_its_head(request, fake_github) -> None:
    world = _sibling_world(request)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    # bound today: a verdict is judged for BAD (failing here only on the stale sweep, which
    # BAD's own 08:00 push would have refreshed), where the sign-off must not cover BAD at all
    assert result.kind == "skipped" and "does not cover" in result.reason, result.reason


def test_a_closed_sibling_prs_run_does_not_bind_the_reuse_command_to_its_head(request, fake_github) -> None:
    why = _reuse_reason(fake_github, _sibling_world(request))
    assert why is not None, why


def _truncated_world(request) -> dict:
    """X (what was seen, [skip ci], no run) on S, then Y restoring S's recipe (run 10:00). The
    author back-dates Y so GitHub lists it before 100 title edits, and post-dates X so it comes
    last; GitHub ends the timeline's pages after the first (the listing still shows the head)."""
    world = _crowd_world(request, 1)
    pull = world["pulls"][0]
    first = [c for c in pull["commits"] if c != X]
    pull["timeline"] = [*({"event": "committed", "sha": sha} for sha in first),
                        *({"event": "renamed", "created_at": f"2026-09-24T08:{i // 2:02d}:{i % 2 * 30:02d}Z"}
                          for i in range(100)),
                        {"event": "committed", "sha": X}]
    world["faults"] = [{"method": "GET", "path": "^/repos/[^/]+/[^/]+/issues/\\d+/timeline$", "truncate": True}]
    return world


def test_a_timeline_cut_short_after_a_back_dated_head_leaves_the_signoff_head_unknown(
        request, fake_github) -> None:
    world = _truncated_world(request)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y), result.reason


def test_a_timeline_cut_short_after_a_back_dated_head_leaves_the_reuse_head_unknown(
        request, fake_github) -> None:
    why = _reuse_reason(fake_github, _truncated_world(request))
    assert why is not None, why


def test_control_the_whole_timeline_with_x_listed_last_still_refuses(request, fake_github) -> None:
    world = _truncated_world(request)
    world["faults"] = []
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y) and f"such as {X[:12]}" in result.reason, result.reason
    why = _reuse_reason(fake_github, world)
    assert why is not None and f"such as {X[:12]}" in why, why
