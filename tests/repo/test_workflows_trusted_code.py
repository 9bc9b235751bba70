"""The sweep workflows run the default branch's infx; the PR's checkout is data (PRODUCT §4.8).

Provenance counts a run only when its sweep workflow files are the default branch's, and the
verdict no longer treats the PR's `infx/`, build files or lock as evidence: that is sound only
while these files hold every sweep job to it (the loop test tests/e2e/test_loop_trusted_code.py
shows it end to end)."""

from __future__ import annotations

from pathlib import Path

import pytest

from infx.trust import sweep_files
from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BRANCH = "${{ github.event.repository.default_branch }}"
TRUSTED, PR = "trusted", "pr"
# a fork sweep's pinned head (run-sweep.yml dispatched; empty, so the event's commit, otherwise)
PINNED = "${{ github.event.inputs.head-sha }}"


def _sweep_workflows() -> list[Path]:
    tree = {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8")
            for p in (REPO / ".github" / "workflows").glob("*.yml")}
    return [REPO / f for f in sweep_files(tree)]


def _jobs() -> list[tuple[str, dict, dict]]:
    found = []
    for path in _sweep_workflows():
        workflow = load_file(path)
        for job_id, job in (workflow.get("jobs") or {}).items():
            if job.get("steps"):
                found.append((f"{path.name}:{job_id}", job, dict(workflow.get("env") or {})))
    return found


def test_the_sweep_workflows_are_the_two_we_check():
    assert sorted(p.name for p in _sweep_workflows()) == ["benchmark-tmpl.yml", "run-sweep.yml"]
    assert len(_jobs()) >= 8


@pytest.mark.parametrize("name,job,workflow_env", _jobs(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_job_installs_the_default_branchs_infx_and_reads_the_pr_as_data(name, job, workflow_env):
    steps = job["steps"]
    checkouts = {s["with"].get("path"): s["with"] for s in steps
                 if str(s.get("uses", "")).startswith("actions/checkout@")}
    # nothing is checked out at the workspace root: a step without a folder sees no PR file
    assert set(checkouts) <= {TRUSTED, PR} and None not in checkouts, name
    assert checkouts[TRUSTED].get("ref") == DEFAULT_BRANCH, name
    # the event's commit or a fork sweep's pinned head, never the default branch's name
    assert checkouts.get(PR, {}).get("ref", PINNED) == PINNED, name
    installs = [i for i, s in enumerate(steps) if "pip install" in str(s.get("run", ""))]
    assert len(installs) == 1 and steps[installs[0]].get("working-directory") == TRUSTED, name
    first_checkout = min(i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("actions/checkout@"))
    for index, step in enumerate(steps):
        run = str(step.get("run", ""))
        if "infx" in run and index != installs[0]:
            assert index > installs[0], f"{name}: {step.get('name')} runs infx before it is installed"
        # only the install step runs in the default branch's folder; everything else that runs
        # code is in the PR's folder (as data) or the workspace root, never importing from there
        if run and index > first_checkout:
            assert step.get("working-directory") in (None, PR, TRUSTED), name
            if step.get("working-directory") == TRUSTED:
                assert index == installs[0], f"{name}: {step.get('name')} runs in the default branch's folder"
    env = workflow_env | dict(job.get("env") or {})
    assert env.get("PYTHONSAFEPATH") == "1", f"{name}: `python -m` would import the current folder's infx"
