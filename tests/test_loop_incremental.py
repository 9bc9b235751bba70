"""Incremental re-sweeps through the real run-sweep.yml (local runner, fake MI355X node).

A labeled PR is swept; a push that changes one search-space entry plans only the rows that
entry gained (the others are listed as reused with their source run); every result row
carries its fingerprint, which equals the one the planner computed.
"""

from __future__ import annotations

import json
import shutil

import pytest
from support.sweep_loop import SweepRepo, make_base_repo
from test_loop import MASTER, edit_block, failed_jobs, refresh, single_node_pr, sweep

from infx.matrix.identity import FINGERPRINT_FIELD

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
KEY = "dsr1-fp4-mi355x-atom"


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory):
    return make_base_repo(tmp_path_factory.mktemp("incremental") / "base")


def swept_rows(record) -> set[str]:
    return {j.name.split(" / ", 1)[1] for j in record.jobs if " / " in j.name}


def result_prints(record) -> dict[str, str]:
    """job name -> fingerprint, from the bmk_* artifacts the jobs uploaded."""
    out = {}
    for name, artifact in record.artifacts.items.items():
        if not name.startswith("bmk_"):
            continue
        for data in artifact.files.values():
            for row in json.loads(data):
                out[row["job_name"]] = row[FINGERPRINT_FIELD]
    return out


def widen_one_entry(repo: SweepRepo, pr) -> str:
    """A push that changes one search-space entry of KEY: its tp8 entry gains concurrency 8."""
    master = edit_block(repo.read(pr.head_sha, MASTER), KEY,
                        "{ tp: 8, ep: 1, conc-start: 4, conc-end: 4 }", "{ tp: 8, ep: 1, conc-start: 4, conc-end: 8 }")
    swept = pr.head_sha
    pr.head_sha = repo.commit(pr.branch, pr.branch, {MASTER: master}, "perf: tp8 also at c8")
    pr.commits.append(pr.head_sha)
    return swept


def test_a_push_changing_one_entry_plans_only_its_new_rows(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    first, world = sweep(repo, pr, tmp_path, 9201)
    assert first.conclusion == "success", failed_jobs(first)
    first_rows = swept_rows(first)
    prints = result_prints(first)
    assert prints and set(prints) <= first_rows and all(len(p) == 64 for p in prints.values())
    swept = widen_one_entry(repo, pr)
    world = refresh(world, repo, pr)
    second, world = sweep(repo, pr, tmp_path, 9202, world=world, action="synchronize", before=swept)
    assert second.conclusion == "success", failed_jobs(second)
    new_rows = swept_rows(second)
    assert new_rows and not new_rows & first_rows
    assert all(" TP8 " in n and " c8 " in n for n in new_rows if "eval" not in n), new_rows
    plan_job = second.job("setup")
    assert int(plan_job.outputs["jobs"]) == len(new_rows)
    summary = plan_job.summary
    assert f"{len(new_rows)} row(s) to run" in summary and "| source run |" in summary
    reused_lines = [line for line in summary.splitlines() if "actions/runs/" in line]
    assert reused_lines and all("9201" in line for line in reused_lines)
    assert {line.split("`")[1] for line in reused_lines} <= first_rows
    # every new result row carries the fingerprint its row was planned with
    assert set(result_prints(second)) <= new_rows and result_prints(second)
