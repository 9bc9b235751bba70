"""Incremental re-sweeps and GPU-free merges through the real run-sweep.yml (local runner,
fake MI355X node, fake GitHub).

A labeled PR is swept; a push that changes one search-space entry plans only the rows that
entry gained (the others are listed as reused with their source run); every result row
carries its fingerprint. The merge to main sweeps nothing: the PR's two runs are handed to
ingestion by a repository_dispatch, or, when they do not cover the merged plan, the run fails
naming the rows.
"""

from __future__ import annotations

import json
import shutil

import pytest
from lib.actions_runner import Event
from lib.loop_scenarios import (
    CHANGELOG,
    FIRST_SWEEP,
    MASTER,
    SINGLE_NODE_DETAILS,
    assert_pass,
    edit_block,
    failed_jobs,
    refresh,
    report_checks,
    report_comment,
    sign,
    single_node_pr,
    sweep,
)
from lib.sweep_loop import (
    MAINTAINER,
    REPO,
    WEBHOOKS,
    GpuPlan,
    SweepRepo,
    add_comment,
    git,
    make_base_repo,
    run_with_github,
    verify,
)

from infx.plan.identity import FINGERPRINT_FIELD

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
    first, world = sweep(repo, pr, tmp_path, FIRST_SWEEP)
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
    assert reused_lines and all(str(FIRST_SWEEP) in line for line in reused_lines)
    assert {line.split("`")[1] for line in reused_lines} <= first_rows
    # every new result row carries the fingerprint its row was planned with
    assert set(result_prints(second)) <= new_rows and result_prints(second)
    # the sign-off accepts the union of the two runs: every row of the head's plan is green in
    # one of them, on content with the head's row fingerprints (a maintainer's bare command
    # authorizes reusing the PR's runs for the merge: Check `reuse`)
    add_comment(world, MAINTAINER, "MEMBER", "/reuse-sweep-run", "2026-09-29T20:00:00Z")
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert_pass(verdict)
    assert str(FIRST_SWEEP) in verdict.check(1)["reason"] and "9202" in verdict.check(1)["reason"], verdict.check(1)
    assert "incremental re-sweep" in verdict.check(1)["reason"]


# ---- the merge to main: no sweep; the PR's runs are published, or the run fails ----------------

def push_event(repo: SweepRepo, before: str, after: str) -> Event:
    """A real `push` webhook payload (octokit's example), rewritten for a merge to main."""
    payload = json.loads((WEBHOOKS / "push" / "payload.json").read_text(encoding="utf-8"))
    owner, name = REPO.split("/")
    payload |= {"ref": "refs/heads/main", "before": before, "after": after, "base_ref": None}
    payload["repository"] = payload["repository"] | {"name": name, "full_name": REPO, "default_branch": "main",
                                                     "master_branch": "main"}
    payload["head_commit"] = dict(payload["head_commit"] or {}) | {"id": after, "message": "Merge the PR"}
    payload["sender"] = dict(payload["sender"]) | {"login": MAINTAINER}
    return Event("push", payload, after, "refs/heads/main")


def merge_pr(repo: SweepRepo, world: dict, pr) -> tuple[str, str, dict]:
    """Merge the PR into main (a merge commit); the world as GitHub shows it afterwards."""
    before = repo.sha("main")
    git(repo.path, "checkout", "--quiet", "main")
    git(repo.path, "merge", "--quiet", "--no-ff", "--no-edit", "-m", f"Merge pull request #{pr.number}",
        pr.branch)
    after = repo.sha("main")
    world = refresh(world, repo, pr)
    pull = world["pulls"][0]
    pull |= {"state": "closed", "merged": True, "merged_at": "2026-09-30T11:00:00Z", "merge_commit_sha": after}
    return before, after, world


def sweep_jobs(record) -> list:
    return [j for j in record.jobs if " / " in j.name]


def test_a_covered_merge_runs_no_sweep_and_publishes_the_union_of_runs(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    first, world = sweep(repo, pr, tmp_path, FIRST_SWEEP)
    swept = widen_one_entry(repo, pr)
    second, world = sweep(repo, pr, tmp_path, 9302, world=refresh(world, repo, pr), action="synchronize",
                          before=swept)
    assert first.conclusion == second.conclusion == "success"
    before, after, world = merge_pr(repo, world, pr)
    record, world = run_with_github(world, repo, push_event(repo, before, after), 9303, tmp_path / "run9303")
    assert record.conclusion == "success", failed_jobs(record)
    assert not sweep_jobs(record)
    plan = record.job("setup")
    assert plan.outputs["reuse-enabled"] == "true"
    assert set(plan.outputs["reuse-source-run-ids"].split(",")) == {str(FIRST_SWEEP), "9302"}
    assert record.results["publish"] == "success"
    assert world["dispatches"] == [{"event_type": "infx-sweep-results", "sender": world["token_login"],
                                    "created_at": world["now"], "client_payload": {
                                        "repository": REPO, "sha": after, "pr_number": pr.number,
                                        "run_ids": [int(i) for i in plan.outputs["reuse-source-run-ids"].split(",")]}}]
    assert "no sweep on main" in plan.summary


def test_an_uncovered_merge_fails_naming_what_to_do_and_runs_nothing(base_repo, tmp_path):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    first, world = sweep(repo, pr, tmp_path, FIRST_SWEEP)
    assert first.conclusion == "success"
    widen_one_entry(repo, pr)  # pushed, but merged before its sweep ran
    before, after, world = merge_pr(repo, world, pr)
    record, world = run_with_github(world, repo, push_event(repo, before, after), 9312, tmp_path / "run9312")
    assert record.conclusion == "failure"
    assert record.results["plan"] == "failure" and record.results["publish"] == "skipped"
    assert not sweep_jobs(record) and not world.get("dispatches")
    log = record.job("setup").log
    assert "PR #41 was merged without a green result for every row of its plan" in log
    assert "1 row(s) without a green job: `dsr1 fp4 mi355x atom 8k1k TP8 c8 #" in log  # never swept


def test_a_push_fixing_a_failed_row_reruns_only_the_missing_rows_and_the_union_passes(base_repo, tmp_path):
    """The first sweep fails one row (fail-fast cancels its siblings); the fixing push (the
    entry's wording only: no row's fingerprint changes) plans exactly the failed and cancelled
    rows, and the sign-off passes on the union of the failed run and the fix."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    first, world = sweep(repo, pr, tmp_path, 9401, gpu=GpuPlan(fail=[{"tp": 4, "conc": 8}]))
    assert first.conclusion == "failure"
    green = {j.name.split(" / ", 1)[1] for j in sweep_jobs(first) if j.conclusion == "success"}
    missing = {j.name.split(" / ", 1)[1] for j in sweep_jobs(first) if j.conclusion != "success"}
    assert green and any(" TP4 c8 " in name for name in missing)
    first_report = report_comment(world)
    assert first_report["body"].startswith("<!-- infx-sweep-report run=9401 attempt=1 -->")
    changelog = repo.read(pr.head_sha, CHANGELOG).replace(
        "Bump the ATOM image of DeepSeek-R1 FP4 on MI355X", "Bump the ATOM image of DeepSeek-R1 FP4 (node fixed)")
    swept = pr.head_sha
    pr.head_sha = repo.commit(pr.branch, pr.branch, {CHANGELOG: changelog}, "fix: the c8 node is back")
    pr.commits.append(pr.head_sha)
    second, world = sweep(repo, pr, tmp_path, 9402, world=refresh(world, repo, pr), action="synchronize",
                          before=swept)
    assert second.conclusion == "success", failed_jobs(second)
    assert swept_rows(second) == missing  # rows of failed or cancelled jobs count as missing
    # the second run's report edits the first one's comment: its rows, and the first run's green
    # rows as reused (re-derived by the coverage rule from what GitHub lists, not the plan job's word)
    report = report_comment(world)
    assert report["id"] == first_report["id"]
    body = report["body"]
    assert body.startswith("<!-- infx-sweep-report run=9402 attempt=1 -->")
    assert f"| `{KEY}` | {len(missing)} | 0 | 0 | {len(green)} | — |" in body
    assert ("Reused rows ran green, with the head's row fingerprints, in run(s) "
            f"[9401](https://github.com/{REPO}/actions/runs/9401)") in body
    add_comment(world, MAINTAINER, "MEMBER", "/reuse-sweep-run", "2026-09-29T20:00:00Z")
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert_pass(verdict)
    assert "9401" in verdict.check(1)["reason"] and "9402" in verdict.check(1)["reason"]
    assert report_checks(body) == {n: verdict.check(int(n))["status"] for n in ("1", "2", "14")}


def test_a_rebase_reuses_the_sweep_of_the_head_it_removed(base_repo, tmp_path):
    """The PR is swept, main moves on elsewhere, and the author rebases (a force-push: the swept
    commit is no longer the PR's). Every row keeps its fingerprint, so the push sweeps nothing:
    its rows come from the run on the removed commit, which is ours (infx.trust.counts_for_pr);
    the sign-off passes on that run and the merge publishes it without a sweep."""
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    first, world = sweep(repo, pr, tmp_path, FIRST_SWEEP)
    assert first.conclusion == "success", failed_jobs(first)
    first_rows = swept_rows(first)
    files = {rel: repo.read(pr.head_sha, rel) for rel in (MASTER, CHANGELOG)}
    removed = pr.head_sha
    repo.commit("main", "main", {"README.md": "main moved on\n"}, "docs: another PR")
    git(repo.path, "checkout", "--quiet", "main")
    git(repo.path, "branch", "--quiet", "-D", pr.branch)
    pr.base_sha = repo.sha("main")
    pr.head_sha = repo.commit(pr.branch, "main", files, "perf(amd): bump the dsr1 fp4 ATOM image (rebased)")
    pr.commits = [pr.head_sha]
    second, world = sweep(repo, pr, tmp_path, 9502, world=refresh(world, repo, pr), action="synchronize",
                          before=removed)
    assert second.conclusion == "success", failed_jobs(second)
    assert not swept_rows(second)
    summary = second.job("setup").summary
    reused_lines = [line for line in summary.splitlines() if "actions/runs/" in line]
    assert {line.split("`")[1] for line in reused_lines} == first_rows
    assert all(str(FIRST_SWEEP) in line for line in reused_lines)
    add_comment(world, MAINTAINER, "MEMBER", "/reuse-sweep-run", "2026-09-29T20:00:00Z")
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert_pass(verdict)
    assert str(FIRST_SWEEP) in verdict.check(1)["reason"], verdict.check(1)
    before, after, world = merge_pr(repo, world, pr)
    record, world = run_with_github(world, repo, push_event(repo, before, after), 9503, tmp_path / "run9503")
    assert record.conclusion == "success", record.job("setup").log[-3000:]
    assert not sweep_jobs(record)
    assert record.job("setup").outputs["reuse-source-run-ids"].split(",")[0] == str(FIRST_SWEEP)
