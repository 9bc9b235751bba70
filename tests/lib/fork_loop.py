"""The sweep loop for a fork PR (tests only): the fork's own runs, `/approve-sweep` through
fork-sweep.yml, the dispatch it sends run as run-sweep.yml, and a push through fork-push.yml and
fork-sweep-drop.yml, each a real workflow file on the local runner against the fake GitHub."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from lib.actions_runner import Event, RunRecord
from lib.sweep_loop import (
    REPO,
    WEBHOOKS,
    SweepRepo,
    record_run,
    run_comment_workflow,
    run_with_github,
)

FORK = "vendor-dev/inferencex"


def _repository(payload: dict[str, Any]) -> dict[str, Any]:
    owner, name = REPO.split("/")
    repository = dict(payload["repository"]) | {"name": name, "full_name": REPO, "default_branch": "main",
                                                "private": False}
    repository["owner"] = dict(repository["owner"]) | {"login": owner}
    return repository


def make_fork(world: dict[str, Any]) -> dict[str, Any]:
    """The world's PR comes from the fork (the pulls API names the fork as its head repository)."""
    world["pulls"][0]["head"]["repo"] = FORK
    return world


def fork_event(event: Event) -> Event:
    """A pull_request event of the same PR whose head is the fork's branch."""
    payload = copy.deepcopy(event.payload)
    head = payload["pull_request"]["head"]
    head["repo"] = dict(head["repo"]) | {"full_name": FORK, "fork": True, "name": FORK.split("/")[1]}
    head["label"] = f"{FORK.split('/')[0]}:{head['ref']}"
    return Event(event.name, payload, event.sha, event.ref, head_ref=event.head_ref, base_ref=event.base_ref)


def recorded_from_fork(world: dict[str, Any], record: RunRecord) -> None:
    """Record a run of the fork's own event: GitHub names the fork as its head repository."""
    record_run(world, record)
    entry = next(r for r in world["workflow_runs"] if r["id"] == record.run_id)
    entry["head_repository"] = FORK


def dispatch_event(world: dict[str, Any], dispatch: dict[str, Any]) -> Event:
    """The workflow_dispatch event GitHub delivers for a recorded dispatch (fake GitHub's
    `workflow_dispatches`), on the tip of the branch it names."""
    payload = json.loads((WEBHOOKS / "workflow_dispatch" / "payload.json").read_text(encoding="utf-8"))
    payload["repository"] = _repository(payload)
    payload |= {"inputs": dict(dispatch["inputs"]), "ref": f"refs/heads/{dispatch['ref']}",
                "workflow": dispatch["workflow"]}
    payload["sender"] = dict(payload["sender"]) | {"login": dispatch["sender"]}
    return Event("workflow_dispatch", payload, dispatch["sha"], f"refs/heads/{dispatch['ref']}")


def run_dispatch(world: dict[str, Any], repo: SweepRepo, dispatch: dict[str, Any], run_id: int, work: Path,
                 **kw: Any) -> tuple[RunRecord, dict[str, Any]]:
    """run-sweep.yml for a dispatch, the run recorded in the world as GitHub records it."""
    return run_with_github(world, repo, dispatch_event(world, dispatch), run_id, work / f"run{run_id}", **kw)


def run_workflow(world: dict[str, Any], repo: SweepRepo, event: Event, workflow: str, run_id: int,
                 work: Path) -> tuple[RunRecord, dict[str, Any]]:
    """Any non-sweep workflow on the local runner while the fake GitHub serves `world`."""
    return run_comment_workflow(world, repo, event, workflow, run_id, work / f"run{run_id}")
