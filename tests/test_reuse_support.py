"""Shared helpers for the reuse tests (worlds, comments, the fake server), plus their own checks."""

from __future__ import annotations

import copy
from pathlib import Path

from infx.reuse.gateway import GitHubGateway
from infx.yamlio import load_file

WORLD_FILE = Path(__file__).resolve().parent / "data" / "worlds" / "reuse_base.yaml"
REPO = "acme/inferencex"
FORK = "vendor/inferencex"
C0, C1, C2, C9, M1 = ("c0" + "0" * 38, "c1" + "1" * 38, "c2" + "2" * 38, "c9" + "9" * 38,
                      "d1" + "1" * 38)


def base_world() -> dict:
    return copy.deepcopy(load_file(WORLD_FILE))


def pr(world: dict, number: int = 12) -> dict:
    return next(p for p in world["pulls"] if p["number"] == number)


def add_comment(world: dict, user: str, association: str, body: str, when: str,
                number: int = 12, comment_id: int | None = None) -> int:
    pull = pr(world, number)
    ids = [c["id"] for p in world["pulls"] for c in p.get("comments", [])]
    new_id = comment_id or (max(ids, default=600) + 1)
    pull["comments"].append({"id": new_id, "user": user, "author_association": association,
                             "body": body, "created_at": when, "updated_at": when})
    return new_id


def add_fork_pr(world: dict, **fields) -> dict:
    """PR #14: a copy of #12 whose head is the fork's `main` at C2, without comments."""
    fork_pr = copy.deepcopy(pr(world)) | {"number": 14, "comments": [],
                                          "head": {"ref": "main", "sha": C2, "repo": FORK}}
    world["pulls"].append(fork_pr | fields)
    return world


def merged(world: dict, number: int = 12) -> dict:
    pull = pr(world, number)
    pull.update(state="closed", merged=True, merged_at="2026-09-30T11:00:00Z")
    world["branches"]["main"] = M1
    return world


def start(fake_github, world: dict):
    """(fake server, gateway) for a world."""
    fake = fake_github(world)
    return fake, GitHubGateway(fake.client(), REPO)


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
