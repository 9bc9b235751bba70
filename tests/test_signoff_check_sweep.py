"""Check 1: a green sweep on an in-PR commit, judged from the run's own jobs (latest attempt)."""

from __future__ import annotations

from signoff_policy_support import bare_evidence

from infx.matrix.identity import job_name
from infx.signoff import sweeps
from infx.signoff.checks import sweep
from infx.signoff.inert import unwrap
from infx.signoff.model import CheckRun, Evidence, RunJob, Status, WorkflowRun
from infx.signoff.provenance import SWEEP_WORKFLOW
from infx.signoff.table import load_table

SETTINGS = load_table().settings

A, B = "a" * 40, "b" * 40


def job(name, conclusion="success", job_id=1, status="completed", sha=B, attempt=1) -> RunJob:
    return RunJob(job_id, name, status, conclusion, run_attempt=attempt, head_sha=sha)


def evidence(run_jobs, commits=(A, B)) -> Evidence:
    """Evidence whose check runs point at the given runs (as GitHub lists a run's jobs)."""
    check_runs: dict = {sha: [] for sha in commits}
    for run_id, jobs in run_jobs.items():
        for j in jobs or []:
            check_runs.setdefault(j.head_sha, []).append(
                CheckRun(j.id, j.name, j.status, j.conclusion, f"https://github.com/o/r/actions/runs/{run_id}/job/{j.id}"))
    return bare_evidence(head_sha=B, commits=list(commits), check_runs=check_runs, run_jobs=dict(run_jobs))


def test_green_run_on_an_older_commit_passes() -> None:
    ev = evidence({7: [job("agentic / c1", sha=A), job("agentic eval / c48", job_id=2, sha=A)]})
    ev.workflow_runs[7] = WorkflowRun(7, "Run Sweep", SWEEP_WORKFLOW, "pull_request", "completed", "success",
                                      A, run_attempt=2, head_repo="o/r")
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS
    assert "aaaaaaaa" in outcome.reason and "run [7](https://github.com/o/r/actions/runs/7), attempt 2" in unwrap(outcome.reason)


def test_skipped_jobs_and_collectors_do_not_count() -> None:
    jobs = [job("agentic / c1", "skipped"), job("agentic eval / c1", "skipped", job_id=2),
            job("collect-evals", job_id=3), job("collect-results", job_id=4)]
    outcome = sweep.run(evidence({7: jobs}), SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.reason.startswith("No passing sweep/eval was found on any commit in this PR.")
    assert any("every benchmark/eval job skipped" in d for d in outcome.details)


def test_a_failed_job_spoils_its_run_but_not_other_runs() -> None:
    bad = [job("single-node 1k1k / a", job_id=1), job("eval / a", job_id=2),
           job("single-node 1k1k / b", "failure", job_id=3)]
    outcome = sweep.run(evidence({8: bad}), SETTINGS)
    assert outcome.status is Status.FAIL
    assert any("run 8: `single-node 1k1k / b` (failure)" in d for d in outcome.details)
    good = [job("multi-node 8k1k / a", job_id=4, sha=A), job("multi-node eval / a", job_id=5, sha=A)]
    assert sweep.run(evidence({8: bad, 9: good}), SETTINGS).status is Status.PASS


def test_a_failed_job_cannot_hide_behind_a_same_named_success() -> None:
    """Two rows that once shared a job name: the failure of one is never overwritten by the
    success of the other, whatever their order or completion times."""
    twins = [job("single-node 8k1k / dsr1 fp4 mi355x sglang c4", "failure", job_id=1),
             job("single-node 8k1k / dsr1 fp4 mi355x sglang c4", "success", job_id=2),
             job("eval / e", job_id=3)]
    assert sweep.run(evidence({7: twins}), SETTINGS).status is Status.FAIL
    assert sweep.run(evidence({7: list(reversed(twins))}), SETTINGS).status is Status.FAIL


def test_a_job_rerun_in_a_later_attempt_counts_by_that_attempt() -> None:
    failed = job("agentic / c1", "failure", job_id=1, attempt=1)
    rerun = [failed, job("agentic / c1", "success", job_id=2, attempt=2), job("agentic eval / c1", job_id=3)]
    assert sweep.run(evidence({7: rerun}), SETTINGS).status is Status.PASS
    # and the other way round: a later failed attempt spoils an earlier success
    worse = [job("agentic / c1", "success", job_id=1), job("agentic / c1", "failure", job_id=2, attempt=2),
             job("agentic eval / c1", job_id=3)]
    assert sweep.run(evidence({7: worse}), SETTINGS).status is Status.FAIL
    assert sweeps.latest_attempt(rerun) == rerun[1:]


def test_unfinished_jobs_are_not_green() -> None:
    jobs = [job("agentic / c1"), job("agentic / c2", None, job_id=2, status="in_progress"),
            job("agentic eval / c1", job_id=3)]
    assert sweep.run(evidence({7: jobs}), SETTINGS).status is Status.FAIL


def test_needs_both_benchmark_and_eval() -> None:
    assert sweep.run(evidence({7: [job("agentic / c1")]}), SETTINGS).status is Status.FAIL


def test_unreadable_evidence_fails_closed() -> None:
    assert sweep.run(bare_evidence(head_sha=B, commits=[A, B], check_runs=None), SETTINGS).status is Status.FAIL
    ev = evidence({7: [job("agentic / c1")]})
    ev.check_runs[A] = None
    ev.run_jobs[7] = None
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL
    assert any("check runs could not be read" in d for d in outcome.details)
    assert any("the jobs of run(s) 7 could not be read" in d for d in outcome.details)


AGENTIC = ("k:\n  model-prefix: m\n  precision: fp4\n  runner: cluster:mi355x-amds\n  framework: sglang\n"
           "  multinode: false\n  image: {image}\n  scenarios:\n    agentic-coding: []\n")
ROW = {"model-prefix": "m", "precision": "fp4", "runner": "cluster:mi355x-amds", "framework": "sglang",
       "scenario-type": "agentic-coding", "tp": 8, "conc": 4}


def _changed(ev: Evidence) -> Evidence:
    ev.head_files |= {"configs/amd-master.yaml": AGENTIC.format(image="i:2")}
    ev.base_files = {"configs/amd-master.yaml": AGENTIC.format(image="i:1")}
    return ev


def test_the_run_must_cover_the_families_of_the_changed_configs() -> None:
    multi_only = [job("multi-node 8k1k / a"), job("multi-node eval / a", job_id=2)]
    assert sweep.run(_changed(evidence({7: multi_only})), SETTINGS).status is Status.FAIL
    ev = _changed(evidence({7: multi_only + [job("agentic / a", job_id=3)]}))
    assert sweep.run(ev, SETTINGS).status is Status.PASS
    assert sweeps.required_families(ev) == {"k": ("agentic",)}


def test_jobs_named_by_row_identity_must_be_rows_of_the_changed_config() -> None:
    """Our template names each job by its row identity; the bot matches those names to the
    changed configs, so a green run of another config does not count for this one."""
    other = ROW | {"model-prefix": "other"}
    evals = job("eval / " + job_name(ROW | {"eval-only": True}), job_id=9)
    ev = _changed(evidence({7: [job("agentic / " + job_name(other)), evals]}))
    assert sweep.run(ev, SETTINGS).status is Status.FAIL
    ev = _changed(evidence({7: [job("agentic / " + job_name(ROW)), evals]}))
    assert sweep.run(ev, SETTINGS).status is Status.PASS


BASE_LOG = "- config-keys:\n    - k\n  description:\n    - \"first\"\n  pr-link: XXX\n"


def _appended(ev: Evidence, extra: str) -> Evidence:
    ev.base_files = {"perf-changelog.yaml": BASE_LOG}
    ev.head_files |= {"perf-changelog.yaml": BASE_LOG + "\n- config-keys:\n    - k\n  description:\n"
                     "    - \"evals again\"\n  pr-link: XXX\n" + extra}
    return ev


def test_an_evals_only_pr_needs_no_benchmark_job() -> None:
    """Every appended entry `evals-only: true`: the plan has eval rows only, so the sweep has
    no benchmark job to run; anything else (or an unreadable changelog) still needs one."""
    evals_only = [job("eval / a")]
    assert sweep.run(_appended(evidence({7: evals_only}), "  evals-only: true\n"), SETTINGS).status is Status.PASS
    assert sweep.run(_appended(evidence({7: evals_only}), ""), SETTINGS).status is Status.FAIL
    assert sweep.run(evidence({7: evals_only}), SETTINGS).status is Status.FAIL
    unreadable = _appended(evidence({7: evals_only}), "  evals-only: true\n")
    unreadable.head_files["perf-changelog.yaml"] = BASE_LOG + "\n- config-keys: [\n"
    assert sweep.run(unreadable, SETTINGS).status is Status.FAIL
    assert sweep.run(_appended(evidence({7: [job("eval / a", "failure")]}), "  evals-only: true\n"),
                     SETTINGS).status is Status.FAIL
