"""A sign-off or reuse command binds to every commit pushed after the newest run's head (red team 21,
findings 10 and 11), replayed on the fake server.

Seed 000's signed head 296a93 has a run at 09:00; the CODEOWNER signs at 09:30 and the reuse
command is moved to 09:35. X, a child of 296a93 whose recipe differs, was pushed before the
sign-off, but its run was created only at 09:45 (GitHub runs a PR's workflows again when it is
edited, say) or never (its message says [skip ci]), and the timeline lists it first because its
author back-dated it. Y, pushed at 10:00 with a run, restores 296a93's files. The runs alone say
both were posted on 296a93, which Y matches; X may have been what the signer saw, so nothing
carries to Y. A plain merge of main in X's place keeps both bound.
"""

from __future__ import annotations

import copy

import pytest
from lib.trust_replay import posted, trust_worlds, verify_seed

from infx.reuse.gateway import GitHubGateway
from infx.reuse.resolver import find_request, unbound_reason

X = "c0ffee0000000000000000000000000000000030"
Y = "c0ffee0000000000000000000000000000000031"
MAIN2 = "c0ffee0000000000000000000000000000000032"


def _world(request, x_run: str | None, *, merge: bool = False, back_dated: bool = False) -> dict:
    m = trust_worlds(request, "make_trust_worlds_later")
    world = m.SEED.seed000()
    pull = world["pulls"][0]
    signed = m.HEAD
    script = world["commits"][m.SWEEP]["files"][m.SCRIPT]
    command = next(c for c in pull["comments"] if c["id"] == 5002)
    command.update(created_at="2026-09-24T09:35:00Z", updated_at="2026-09-24T09:35:00Z")
    if merge:  # X merges main, which moved on (README): the PR's own changes stay the signed ones
        main = world["branches"]["main"]
        readme = world["commits"][m._root_sha(world)]["files"]["README.md"] + "\nSee docs/.\n"
        world["commits"][MAIN2] = {"parents": [main], "files_from": main, "message": "README",
                                   "files": {"README.md": readme}}
        world["branches"]["main"] = MAIN2
        pull["base"]["sha"] = MAIN2
        world["commits"][X] = {"parents": [signed, MAIN2], "files_from": signed,
                               "message": "Merge branch 'main'", "files": {"README.md": readme}}
    else:
        world["commits"][X] = {"parents": [signed], "files_from": signed, "message": "tidy [skip ci]",
                               "files": {m.SCRIPT: script + "export ATOM_SAFE_MODE=1\n"}}
    pull["commits"] = [*pull["commits"], X]
    if x_run:
        world["workflow_runs"].append(m.SEED.head_status_run(35873197731, X, m.BRANCH, x_run))
    # Y takes X's recipe change back (after a merge, an empty commit: X's files again)
    world["commits"][Y] = {"parents": [X], "files_from": X, "message": "restore",
                           "files": {} if merge else {m.SCRIPT: script}}
    pull["commits"] = [*pull["commits"], Y]
    pull["head"]["sha"] = Y
    world["workflow_runs"].append(m.SEED.head_status_run(35873197732, Y, m.BRANCH, "2026-09-24T10:00:00Z"))
    if back_dated:  # GitHub lists a commit by its (author-set) date: X comes first
        pull["timeline"] = [{"event": "committed", "sha": sha}
                            for sha in [X, *(c for c in pull["commits"] if c != X)]]
    return world


def _reuse_reason(fake_github, world: dict) -> str | None:
    gateway = GitHubGateway(fake_github(copy.deepcopy(world)).client(), world["repo"])
    found = find_request(gateway, 3412)
    assert found is not None
    return unbound_reason(gateway, 3412, found)


@pytest.mark.parametrize("x_run, back_dated", [
    ("2026-09-24T09:45:00Z", False),  # finding 10: X's first run was created after the sign-off
    (None, True),                     # finding 11: X has no run and the timeline lists it first
])
def test_a_commit_pushed_after_the_runs_head_keeps_the_signoff_and_command_off_a_head_like_it(
        request, fake_github, x_run, back_dated) -> None:
    world = _world(request, x_run, back_dated=back_dated)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert "success" not in posted(fake, Y), result.reason
    assert result.kind == "skipped" and f"such as {X[:12]}" in result.reason, result.reason
    why = _reuse_reason(fake_github, world)
    assert why is not None and f"such as {X[:12]}" in why, why


def test_control_a_plain_merge_of_main_in_between_keeps_both_bound(request, fake_github) -> None:
    world = _world(request, "2026-09-24T09:45:00Z", merge=True)
    fake = fake_github(copy.deepcopy(world))
    result = verify_seed(fake)
    assert posted(fake, Y)[-1:] == ["success"], result.reason
    assert _reuse_reason(fake_github, world) is None
