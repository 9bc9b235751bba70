"""Check 1: a green sweep on an in-PR commit."""

from __future__ import annotations

from signoff_policy_support import bare_evidence

from infx.signoff import sweeps
from infx.signoff.checks import sweep
from infx.signoff.model import CheckRun, Evidence, Status, WorkflowRun
from infx.signoff.table import load_table

SETTINGS = load_table().settings

A, B = "a" * 40, "b" * 40


def evidence(check_runs, commits=(A, B)) -> Evidence:
    return bare_evidence(head_sha=B, commits=list(commits), check_runs=check_runs)


def job(name, conclusion="success", run=7, job_id=1, status="completed", completed="2026-09-01"):
    return CheckRun(job_id, name, status, conclusion,
                    f"https://github.com/o/r/actions/runs/{run}/job/{job_id}", completed_at=completed)


def test_green_run_on_an_older_commit_passes() -> None:
    ev = evidence({A: [job("agentic / c1"), job("agentic eval / c48", job_id=2)], B: []})
    ev.workflow_runs[7] = WorkflowRun(7, "Run Sweep", None, "pull_request", "completed", "success", A, run_attempt=2)
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS
    assert "aaaaaaaa" in outcome.reason and "run [7](https://github.com/o/r/actions/runs/7), attempt 2" in outcome.reason


def test_skipped_jobs_and_collectors_do_not_count() -> None:
    runs = [job("agentic / c1", "skipped"), job("agentic eval / c1", "skipped", job_id=2),
            job("collect-evals", job_id=3), job("collect-results", job_id=4)]
    outcome = sweep.run(evidence({A: [], B: runs}), SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.reason.startswith("No passing sweep/eval was found on any commit in this PR.")
    assert any("every benchmark/eval job skipped" in d for d in outcome.details)


def test_a_failed_job_spoils_its_run_but_not_other_runs() -> None:
    bad = [job("single-node 1k1k / a", run=8, job_id=1), job("eval / a", run=8, job_id=2),
           job("single-node 1k1k / b", "failure", run=8, job_id=3)]
    assert sweep.run(evidence({A: [], B: bad}), SETTINGS).status is Status.FAIL
    good = [job("multi-node 8k1k / a", run=9, job_id=4), job("multi-node eval / a", run=9, job_id=5)]
    assert sweep.run(evidence({A: good, B: bad}), SETTINGS).status is Status.PASS


def test_latest_attempt_of_a_job_wins() -> None:
    runs = [job("agentic / c1", "cancelled", job_id=1, completed="2026-09-01"),
            job("agentic / c1", "success", job_id=2, completed="2026-09-02"),
            job("agentic eval / c1", job_id=3)]
    assert sweep.run(evidence({A: [], B: runs}), SETTINGS).status is Status.PASS


def test_needs_both_benchmark_and_eval() -> None:
    assert sweep.run(evidence({A: [], B: [job("agentic / c1")]}), SETTINGS).status is Status.FAIL


def test_unreadable_evidence_fails_closed() -> None:
    assert sweep.run(evidence(None), SETTINGS).status is Status.FAIL
    outcome = sweep.run(evidence({A: None, B: []}), SETTINGS)
    assert outcome.status is Status.FAIL and any("could not be read" in d for d in outcome.details)


AGENTIC = "k:\n  model-prefix: m\n  multinode: false\n  image: {image}\n  scenarios:\n    agentic-coding: []\n"


def test_the_run_must_cover_the_families_of_the_changed_configs() -> None:
    multi_only = [job("multi-node 8k1k / a"), job("multi-node eval / a", job_id=2)]
    ev = evidence({A: [], B: multi_only})
    ev.head_files = {"configs/amd-master.yaml": AGENTIC.format(image="i:2")}
    ev.base_files = {"configs/amd-master.yaml": AGENTIC.format(image="i:1")}
    assert sweep.run(ev, SETTINGS).status is Status.FAIL
    ev.check_runs[B] = multi_only + [job("agentic / a", job_id=3)]
    assert sweep.run(ev, SETTINGS).status is Status.PASS
    assert sweeps.required_families(ev) == {"k": ("agentic",)}
