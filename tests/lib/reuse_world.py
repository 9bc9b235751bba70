"""Helpers of the reuse support tests, shared with other test modules."""

from __future__ import annotations

import copy
from pathlib import Path

from infx.reuse.gateway import GitHubGateway
from infx.yamlio import load_file

WORLD_FILE = Path(__file__).resolve().parents[1] / "data" / "worlds" / "reuse_base.yaml"


REPO = "acme/inferencex"


FORK = "vendor/inferencex"


C0, C1, C2, C9, M1 = ("c0" + "0" * 38, "c1" + "1" * 38, "c2" + "2" * 38, "c9" + "9" * 38,
                      "d1" + "1" * 38)


ROOT = Path(__file__).resolve().parents[2]


KEY = "dsr1-fp8-mi355x-sglang"


OTHER_KEY = "dsr1-fp4-mi355x-atom"  # what a later push of the tests swaps the plan to


SPOILERS = {102: ("collect-results", "failure"), 109: ("results-link comment", "cancelled")}


def _key_block(key: str) -> str:
    """The key's block of our master config, as text."""
    text = (ROOT / "configs" / "amd-master.yaml").read_text(encoding="utf-8")
    start = text.index(f"\n{key}:\n") + 1
    end = text.find("\n\n", start)
    return text[start:end if end > 0 else len(text)] + "\n"


def _row_jobs(world: dict) -> None:
    """Give the world's master config and runners to its first commit, and every sweep run the
    jobs of the PR's plan (one `single-node 8k1k / <row>` job per row, green; the runs that did
    not succeed carry a failed or cancelled job that is not a row)."""
    from infx.plan.identity import job_name
    from infx.plan.incremental import plan_from_trees
    from infx.plan.planner import PlanFlags

    first = world["commits"][C0]["files"]
    first["configs/amd-master.yaml"] = _key_block(KEY) + "\n" + _key_block(OTHER_KEY)
    first["configs/runners.yaml"] = (ROOT / "configs" / "runners.yaml").read_text(encoding="utf-8")
    first.update(sweep_workflow_files())
    head = dict(first) | world["commits"][C1]["files"]
    names = [job_name(row) for row in plan_from_trees(first, head, PlanFlags(),
                                                      base_ref=C0, head_ref=C1).rows()]
    check_runs = world.setdefault("check_runs", {})
    next_id = 90000
    for run in world["workflow_runs"]:
        if not run["path"].endswith("run-sweep.yml") or run["event"] != "pull_request":
            continue
        jobs = [(f"single-node 8k1k / {name}", "success") for name in names]
        if run["id"] in SPOILERS:
            jobs.append(SPOILERS[run["id"]])
        for name, conclusion in jobs if run["status"] == "completed" else []:
            next_id += 1
            check_runs.setdefault(run["head_sha"], []).append({
                "id": next_id, "name": name, "status": "completed", "conclusion": conclusion,
                "started_at": run["created_at"], "completed_at": run["created_at"],
                "details_url": f"https://github.com/{REPO}/actions/runs/{run['id']}/job/{next_id}",
                "run_id": run["id"], "run_attempt": run.get("run_attempt", 1)})


def sweep_workflow_files() -> dict[str, str]:
    """Our real sweep workflow and the local workflows and actions it calls (infx.trust
    compares them between a run's commit and the default branch)."""
    from infx import trust

    class Checkout(dict):
        def get(self, path, default=None):
            file = ROOT / path
            return file.read_text(encoding="utf-8") if file.is_file() else default

    return {path: text for path in trust.sweep_files(Checkout())
            if (text := Checkout().get(path)) is not None}


def base_world() -> dict:
    world = copy.deepcopy(load_file(WORLD_FILE))
    _row_jobs(world)
    return world


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

