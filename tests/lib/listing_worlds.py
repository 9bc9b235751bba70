"""Worlds at GitHub's listing caps, built from the seed world (signoff_seed000.yaml, PR 3412).

- `many_commits`: the PR has `count` commits, its only sweep (on the seed's swept commit)
  failed; the others have no sweep run.
- `truncation`: the swept commit has 5,000 check runs, the sweep's jobs listed after the
  first 1,000 (the other check runs belong to another workflow's check suite), so GitHub's
  ref listing, cut at 1,000 results, never shows them.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

from infx import yamlio

SEED = Path(__file__).resolve().parents[1] / "data" / "worlds" / "signoff_seed000.yaml"
PR, SIGNOFF = 3412, 5003
SWEPT = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"
HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
SWEEP_RUN = 35873197630
OTHER_RUN = 36100000001  # another workflow on the swept commit (its own check suite)


def seed() -> dict:
    return copy.deepcopy(yamlio.load_file(SEED))


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def many_commits(count: int = 60) -> dict:
    """The seed PR with `count` commits (oldest first, ending with the swept commit and the
    head) and a failed sweep: one benchmark job of the sweep run failed."""
    world = seed()
    pull = world["pulls"][0]
    base = pull["base"]["sha"]
    extra = [sha(f"commit-{i}") for i in range(count - 2)]
    parent = base
    for i, commit in enumerate(extra):
        world["commits"][commit] = {"parents": [parent], "message": f"wip {i}",
                                    "files_from": parent, "files": {}}
        parent = commit
    world["commits"][SWEPT]["parents"] = [parent]
    pull["commits"] = [*extra, SWEPT, HEAD]
    jobs = world["check_runs"][SWEPT]
    failed = next(job for job in jobs if job["name"].startswith(("single-node", "agentic")))
    failed["conclusion"] = "failure"
    for job in jobs:
        if job["name"] == failed["name"] and job is not failed:
            job["conclusion"] = "failure"  # every attempt of that job failed
    for run in world["workflow_runs"]:
        if run["id"] == SWEEP_RUN:
            run["conclusion"] = "failure"
    return world


def truncation(total: int = 5_000) -> dict:
    """The seed world with `total` check runs on the swept commit, the sweep's jobs last."""
    world = seed()
    jobs = world["check_runs"][SWEPT]
    filler = [{"id": 200_000 + i, "name": f"lint / shard {i}", "status": "completed",
               "conclusion": "success", "started_at": "2026-09-23T12:00:00Z",
               "completed_at": "2026-09-23T12:05:00Z",
               "details_url": f"https://github.com/{world['repo']}/actions/runs/{OTHER_RUN}/job/{200_000 + i}"}
              for i in range(total - len(jobs))]
    world["check_runs"][SWEPT] = filler + jobs
    return world
