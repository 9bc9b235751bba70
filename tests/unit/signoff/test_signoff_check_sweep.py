"""Check `sweep`: a green sweep on an in-PR commit, judged from the run's own jobs (latest attempt)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.signoff_policy_support import SWEEP_TEXT, bare_evidence

from infx.inert import unwrap
from infx.plan.identity import job_name
from infx.signoff.checks import sweep
from infx.signoff.model import CheckRun, Evidence, Job, Status, WorkflowRun
from infx.signoff.rules import sweeps
from infx.signoff.rules.provenance import SWEEP_WORKFLOW
from infx.signoff.table import load_table

SETTINGS = load_table().settings

A, B = "a" * 40, "b" * 40


def job(name, conclusion="success", job_id=1, status="completed", sha=B, attempt=1) -> Job:
    return Job(job_id, name, status, conclusion, run_attempt=attempt, head_sha=sha)


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
                                      A, "x", run_attempt=2, created_at="2026-09-29T00:00:00Z", head_repo="o/r")
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
    rows of the head's plan, so a green run of another config does not count for this one, and
    when the plan cannot be read (here: no changelog, no runner config) nothing can be shown to
    cover it (the rows-covered PASS: test_every_planned_row_swept_green_passes)."""
    other = ROW | {"model-prefix": "other"}
    evals = job("eval / " + job_name(ROW | {"eval-only": True}), job_id=9)
    ev = _changed(evidence({7: [job("agentic / " + job_name(other)), evals]}))
    assert sweep.run(ev, SETTINGS).status is Status.FAIL
    ev = _changed(evidence({7: [job("agentic / " + job_name(ROW)), evals]}))
    assert sweeps.head_plan(ev) is None
    assert sweep.run(ev, SETTINGS).status is Status.FAIL


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


# --- fail-open mistakes mutation testing found untested (issue 12 item 13) -------------------


def test_every_bad_conclusion_of_the_latest_attempt_spoils_the_run() -> None:
    """timed_out, cancelled, action_required and startup_failure are not green, however many
    successful jobs share the run (and a cancelled re-run spoils an earlier success)."""
    for bad in ("failure", "cancelled", "timed_out", "action_required", "startup_failure"):
        jobs = [job("single-node 1k1k / a"), job("single-node 1k1k / b", bad, job_id=2),
                job("eval / a", job_id=3)]
        outcome = sweep.run(evidence({7: jobs}), SETTINGS)
        assert outcome.status is Status.FAIL, bad
        assert f"run 7: `single-node 1k1k / b` ({bad})" in outcome.details[0]
    rerun = [job("agentic / c1"), job("agentic / c1", "cancelled", job_id=2, attempt=2),
             job("agentic eval / c1", job_id=3)]
    assert sweep.run(evidence({7: rerun}), SETTINGS).status is Status.FAIL


def test_a_run_with_only_eval_jobs_is_not_a_sweep() -> None:
    evals = [job("eval / a"), job("agentic eval / b", job_id=2), job("multi-node eval / c", job_id=3)]
    outcome = sweep.run(evidence({7: evals}), SETTINGS)
    assert outcome.status is Status.FAIL and sweeps.find_green_run(evidence({7: evals})) is None


FIXED = ("k:\n  model-prefix: m\n  precision: fp4\n  runner: mi355x\n  framework: sglang\n"
         "  multinode: {multi}\n  image: {image}\n  scenarios:\n    {kind}: []\n")


def _changed_fixed(ev: Evidence, multi: str = "false", kind: str = "fixed-seq-len") -> Evidence:
    ev.head_files |= {"configs/amd-master.yaml": FIXED.format(image="i:2", multi=multi, kind=kind)}
    ev.base_files = {"configs/amd-master.yaml": FIXED.format(image="i:1", multi=multi, kind=kind)}
    return ev


def test_a_changed_fixed_seq_len_config_needs_a_fixed_seq_len_job() -> None:
    """An agentic or eval job never stands in for the fixed-seq-len rows a config change
    needs; single-node and multi-node are told apart."""
    wrong = [job("agentic / a"), job("eval / a", job_id=2), job("multi-node 1k1k / a", job_id=3)]
    ev = _changed_fixed(evidence({7: wrong}))
    assert sweeps.required_families(ev) == {"k": ("single-node 1k1k", "single-node 8k1k")}
    assert sweep.run(ev, SETTINGS).status is Status.FAIL
    right = _changed_fixed(evidence({7: [*wrong, job("single-node 8k1k / a", job_id=4)]}))
    assert sweep.run(right, SETTINGS).status is Status.PASS
    multi = _changed_fixed(evidence({7: wrong}), multi="true")
    assert sweeps.required_families(multi) == {"k": ("multi-node 1k1k", "multi-node 8k1k")}
    assert sweep.run(multi, SETTINGS).status is Status.PASS
    agentic_multi = _changed_fixed(evidence({7: wrong}), multi="true", kind="agentic-coding")
    assert sweeps.required_families(agentic_multi) == {"k": ("multi-node agentic",)}
    assert sweep.run(agentic_multi, SETTINGS).status is Status.FAIL


def test_a_changed_config_without_benchmark_scenarios_asks_for_no_family() -> None:
    ev = _changed_fixed(evidence({7: [job("agentic / a"), job("eval / a", job_id=2)]}),
                        kind="unknown-kind")
    assert sweeps.required_families(ev) == {}
    assert sweep.run(ev, SETTINGS).status is Status.PASS
    assert sweeps._entry_families({"scenarios": ["agentic-coding"]}) == set()  # not a mapping


def test_the_newest_commit_and_the_newest_run_win() -> None:
    """Two green sweeps: the one on the newest in-PR commit is reported, and of two green
    runs on one commit the newest (highest id)."""
    older = [job("agentic / a", sha=A), job("agentic eval / a", job_id=2, sha=A)]
    newer = [job("agentic / a", job_id=3), job("agentic eval / a", job_id=4)]
    green = sweeps.find_green_run(evidence({5: newer, 9: older}))
    assert (green.commit, green.run_id) == (B, 5)
    twin = [job("agentic / a", job_id=6), job("agentic eval / a", job_id=7)]
    green = sweeps.find_green_run(evidence({5: newer, 6: twin, 9: older}))
    assert (green.commit, green.run_id) == (B, 6)
    assert sweeps.candidate_runs(evidence({5: newer, 6: twin, 9: older}), B) == [6, 5]


def test_unreadable_check_runs_never_yield_a_green_run() -> None:
    ev = evidence({7: [job("agentic / a"), job("agentic eval / a", job_id=2)]})
    assert sweeps.find_green_run(ev) is not None
    ev.check_runs = None
    assert sweeps.find_green_run(ev) is None


def test_the_green_run_reports_exact_counts_and_the_latest_attempt() -> None:
    jobs = [job("agentic / a"), job("agentic / a", job_id=2, attempt=2), job("agentic / b", job_id=3),
            job("agentic eval / a", job_id=4), job("collect-results", "failure", job_id=5)]
    ev = evidence({7: jobs})
    green = sweeps.green_run(ev, 7)
    assert (green.benchmarks, green.evals, green.attempt) == (2, 1, ev.workflow_runs[7].run_attempt)
    assert "has 2 benchmark and 1 eval check-runs at success" in sweep.run(ev, SETTINGS).reason
    del ev.workflow_runs[7]  # no run record: the jobs' latest attempt
    assert sweeps.green_jobs(ev, 7).attempt == 2


def test_a_run_without_one_head_commit_is_not_green() -> None:
    split = [job("agentic / a", sha=A), job("agentic eval / a", job_id=2, sha=B)]
    assert sweeps.run_commit(evidence({7: split}), 7) is None
    assert sweeps.green_run(evidence({7: split}), 7) is None
    partial = [job("agentic / a", sha=None), job("agentic eval / a", job_id=2)]
    assert sweeps.run_commit(evidence({7: partial}), 7) == B
    ev = evidence({7: [job("agentic / a", sha=None), job("agentic eval / a", job_id=2, sha=None)]})
    ev.workflow_runs[7] = WorkflowRun(7, "Run Sweep", None, "pull_request", "completed", "success", A)
    assert sweeps.run_commit(ev, 7) == A


def test_a_mixed_changelog_still_needs_benchmarks() -> None:
    """One appended entry evals-only and one not: benchmark jobs are still required."""
    ev = _appended(evidence({7: [job("eval / a")]}), "  evals-only: true\n\n- config-keys:\n"
                   "    - k\n  description:\n    - \"bench\"\n  pr-link: XXX\n")
    assert sweeps.benchmarks_required(ev) is True
    assert sweep.run(ev, SETTINGS).status is Status.FAIL


def test_run_ids_come_only_from_well_formed_run_urls() -> None:
    def url(u):
        return sweeps.run_id_of(CheckRun(1, "x", "completed", "success", u))

    assert url("https://github.com/o/r/actions/runs/123/job/4") == 123
    assert url("https://github.com/o/r/actions/runs/123") == 123
    for bad in (None, "", "https://github.com/o/r/actions/runs//job/4",
                "https://github.com/o/r/actions/runs/12x/job/4", "https://example.com/checks/5"):
        assert url(bad) is None, bad


def test_the_failure_details_name_what_was_unreadable_spoiled_skipped_or_orphaned() -> None:
    jobs = {9: None, 3: None,
            8: [job("single-node 1k1k / " + n, "failure", job_id=i) for i, n in enumerate("abcde", 10)],
            6: [job("agentic / s", "skipped", job_id=30, sha=A),
            job("agentic eval / s", "skipped", job_id=31, sha=A)]}
    ev = evidence(jobs)
    ev.check_runs[A] = None
    ev.read_errors[f"check-runs:{A}"] = "502 Bad Gateway"
    ev.orphan_runs.extend(WorkflowRun(i, "Run Sweep", None, "pull_request", "completed", "success",
                                      "c" * 40) for i in (41, 42, 43, 44))
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.details == (
        "check runs could not be read for commit(s) aaaaaaaa (502 Bad Gateway)",
        "the jobs of run(s) 3, 9 could not be read",
        "runs with a failed, cancelled or unfinished job: run 8: `single-node 1k1k / a` (failure), "
        "`single-node 1k1k / b` (failure), `single-node 1k1k / c` (failure) and 2 more",
        "runs with only skipped or ignored jobs: aaaaaaaa (every benchmark/eval job skipped)",
        "run 41 succeeded on cccccccc, which is no longer a commit of this PR",
        "run 42 succeeded on cccccccc, which is no longer a commit of this PR",
        "run 43 succeeded on cccccccc, which is no longer a commit of this PR",
    )
    ev.read_errors.clear()
    assert sweep.run(ev, SETTINGS).details[0] == "check runs could not be read for commit(s) aaaaaaaa"


def test_at_most_three_spoiled_runs_newest_first_and_three_jobs_each() -> None:
    runs = {r: [job(f"eval / {r}", "failure", job_id=r * 10)] for r in (1, 2, 3, 4)}
    runs[5] = [job(f"single-node 1k1k / {n}", "timed_out", job_id=50 + i) for i, n in enumerate("abc")]
    outcome = sweep.run(evidence(runs), SETTINGS)
    spoiled = next(d for d in outcome.details if d.startswith("runs with a failed"))
    assert spoiled == ("runs with a failed, cancelled or unfinished job: run 5: "
                       "`single-node 1k1k / a` (timed_out), `single-node 1k1k / b` (timed_out), "
                       "`single-node 1k1k / c` (timed_out); run 4: `eval / 4` (failure); "
                       "run 3: `eval / 3` (failure)")
    unfinished = sweep.run(evidence({7: [job("agentic / a", None, status="queued")]}), SETTINGS)
    assert "run 7: `agentic / a` (queued)" in unfinished.details[0]


def test_a_skipped_note_needs_every_relevant_job_skipped() -> None:
    mixed = [job("agentic / s", "skipped"), job("agentic eval / s", "failure", job_id=2)]
    details = sweep.run(evidence({7: mixed}), SETTINGS).details
    assert not any("skipped" in d for d in details)
    none_relevant = [job("collect-results", "skipped")]
    assert not any("skipped" in d for d in sweep.run(evidence({7: none_relevant}), SETTINGS).details)


def test_details_list_several_unreadable_and_skipped_commits_and_nothing_that_was_fine() -> None:
    ev = evidence({6: [job("agentic / s", "skipped", job_id=30, sha=A)],
                   7: [job("agentic / s", "skipped", job_id=31)]})
    outcome = sweep.run(ev, SETTINGS)
    assert unwrap(outcome.reason) == ("No passing sweep/eval was found on any commit in this PR. Fix: run a "
                              "full sweep on a commit in this PR, or re-anchor with `/use <run_id>`.")
    assert outcome.details == ("runs with only skipped or ignored jobs: aaaaaaaa (every benchmark/eval "
                               "job skipped), bbbbbbbb (every benchmark/eval job skipped)",)
    ev.check_runs[A] = ev.check_runs[B] = None
    assert sweep.run(ev, SETTINGS).details[0] == "check runs could not be read for commit(s) aaaaaaaa, bbbbbbbb"


def test_four_bad_jobs_show_three_and_one_more() -> None:
    bad = [job(f"eval / {n}", "failure", job_id=i) for i, n in enumerate("abcd", 1)]
    assert sweep.run(evidence({7: bad}), SETTINGS).details[0].endswith("(failure) and 1 more")


# --- runs provenance sets aside, and drift between the swept commit and the head -------------

MASTER = "configs/amd-master.yaml"
LAUNCHER = "runners/launch_mi355x-amds.sh"
RUNNERS = "configs/runners.yaml"
TREE = {SWEEP_WORKFLOW: SWEEP_TEXT, MASTER: AGENTIC.format(image="i:2"), LAUNCHER: "sglang serve\n",
        "README.md": "hello\n"}


def swept_on_a(head: dict[str, str | None] | None = None, **runs: list[Job]) -> Evidence:
    """A green agentic sweep (run 7) of the PR's config change on the older commit A; the
    head B has `head` (default: the swept tree)."""
    green = [job("agentic / c1", sha=A), job("agentic eval / c1", job_id=2, sha=A)]
    ev = evidence({7: green, **{int(k[1:]): v for k, v in runs.items()}})
    ev.commit_files[A] = dict(TREE)
    ev.head_files = dict(TREE if head is None else head)
    ev.base_files = TREE | {MASTER: AGENTIC.format(image="i:1")}
    return ev


def test_a_head_with_the_swept_content_passes_saying_so() -> None:
    outcome = sweep.run(swept_on_a(), SETTINGS)
    assert outcome.status is Status.PASS and outcome.details == ()
    assert unwrap(outcome.reason) == ("in-PR commit aaaaaaaa has 1 benchmark and 1 eval check-runs at success "
                                      "(run [7](https://github.com/o/r/actions/runs/7), attempt 1); the head "
                                      "bbbbbbbb has the same files.")


NEUTRAL = "(benchmark-neutral: no sweep job runs them, or the default branch changed them and a merge brought them in)."


def test_a_benchmark_neutral_head_names_what_differs() -> None:
    """The swept commit is read whole; what differs and no sweep job runs is named as neutral."""
    removed = {k: v for k, v in TREE.items() if k != "README.md"}
    outcome = sweep.run(swept_on_a(removed | {"docs/a.md": "new\n"}), SETTINGS)
    assert outcome.status is Status.PASS
    assert outcome.reason.endswith(f"; the head bbbbbbbb differs from it only in README.md, docs/a.md {NEUTRAL}")


@pytest.mark.parametrize("path", [RUNNERS, "utils/bench_serving/benchmark_serving.py", "tools/warm.py"])
def test_a_file_outside_the_configs_and_docs_changed_after_the_sweep_is_drift(path) -> None:
    """Everything but the neutral files may run in a sweep job (the runner config picks the
    machines; the recipes run the client from utils/)."""
    outcome = sweep.run(swept_on_a(TREE | {path: "changed\n"}), SETTINGS)
    assert outcome.status is Status.FAIL and path in outcome.reason

    def recipes_changed_on_main(count: int) -> str:
        """The swept commit predates main's change of other configs' recipes (in base and head)."""
        recipes = {f"configs/recipes/o{i}.yaml": "x\n" for i in range(count)}
        ev = swept_on_a(TREE | recipes)
        ev.base_files |= recipes
        ev.commit_files[A] |= {path: "old\n" for path in recipes}
        return sweep.run(ev, SETTINGS).reason

    listed = ", ".join(f"configs/recipes/o{i}.yaml" for i in range(5))
    assert recipes_changed_on_main(6).endswith(f"differs from it only in {listed} and 1 more {NEUTRAL}")
    assert recipes_changed_on_main(5).endswith(f"differs from it only in {listed} {NEUTRAL}")


def test_benchmark_affecting_drift_after_the_sweep_fails_naming_it() -> None:
    head = TREE | {LAUNCHER: "sglang serve --max-num-seqs 4096\n",
                   MASTER: AGENTIC.format(image="i:3")}
    outcome = sweep.run(swept_on_a(head), SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.reason == ("benchmark-affecting content changed after the sweep: the head bbbbbbbb "
                              "differs from the swept commit aaaaaaaa in configs/amd-master.yaml [k], "
                              f"{LAUNCHER}. Fix: run a full sweep on the head bbbbbbbb (or "
                              f"{sweep.code('/use <run_id>')} a run of it).")
    assert unwrap(outcome.details[0]).startswith("in-PR commit aaaaaaaa has 1 benchmark and 1 eval")


def test_drift_that_cannot_be_judged_fails_closed() -> None:
    outcome = sweep.run(swept_on_a(TREE | {MASTER: "k: [\n"}), SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.reason.startswith("whether the head bbbbbbbb has the benchmark-affecting content of the "
                                     "swept commit aaaaaaaa cannot be told (configs/amd-master.yaml cannot "
                                     "be parsed")
    assert len(outcome.details) == 1


def test_a_sweep_of_the_head_itself_needs_no_drift_comparison() -> None:
    ev = evidence({7: [job("agentic / c1"), job("agentic eval / c1", job_id=2)]})
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS
    assert outcome.reason.endswith("attempt 1); it is the assessed head.")


def _foreign(run_id: int, sha: str = A, **changes: object) -> WorkflowRun:
    fields = dict(id=run_id, name="Bench", path=".github/workflows/bench.yml", event="pull_request",
                  status="completed", conclusion="success", head_sha=sha, head_repo="o/r")
    return WorkflowRun(**(fields | changes))


FOREIGN = "it is a run of .github/workflows/bench.yml, not .github/workflows/run-sweep.yml"


def test_runs_that_provenance_rules_out_are_named_newest_first() -> None:
    """Green jobs of another workflow and of a fork are set aside, each named with why, the
    newest first; the check fails when nothing else is green."""
    forged = {f"r{i}": [job("single-node 1k1k / x", job_id=10 * i, sha=A),
                        job("eval / x", job_id=10 * i + 1, sha=A)] for i in (5, 9)}
    ev = evidence({int(k[1:]): v for k, v in forged.items()})
    ev.workflow_runs[5] = _foreign(5)
    ev.workflow_runs[9] = _foreign(9, path=SWEEP_WORKFLOW, head_repo="mallory/r")
    assert sweep.set_aside(ev) == [(9, "its head commit comes from mallory/r, not o/r (a fork's runs never count)"),
                                   (5, FOREIGN)]
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL
    assert outcome.details[:2] == ("set aside: run 9 — its head commit comes from mallory/r, not o/r "
                                   "(a fork's runs never count)", f"set aside: run 5 — {FOREIGN}")


def test_a_pass_still_names_what_was_set_aside() -> None:
    ev = swept_on_a(r9=[job("single-node 1k1k / x", job_id=90), job("eval / x", job_id=91)])
    ev.workflow_runs[9] = _foreign(9, sha=B)
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS
    assert outcome.details == (f"set aside: run 9 — {FOREIGN}",)
    assert outcome.reason.endswith(f"the head bbbbbbbb has the same files; set aside: run 9 — {FOREIGN}.")


def test_only_runs_that_were_looked_at_and_benchmark_jobs_point_at_are_judged() -> None:
    ev = evidence({9: [job("single-node 1k1k / x", job_id=90, sha=A), job("eval / x", job_id=91, sha=A)],
                   11: [job("lint", job_id=110, sha=A)]})
    ev.workflow_runs[11] = _foreign(11)  # a non-sweep job's run is never named
    del ev.workflow_runs[9]  # never read (no record, no read error): not judged
    assert sweep.set_aside(ev) == []
    ev.read_errors["run:9"] = "502 Bad Gateway"
    assert sweep.set_aside(ev) == [(9, "GitHub's record of the run could not be read")]


def test_an_unread_workflow_tree_is_named_only_for_a_run_whose_jobs_were_green() -> None:
    """The tree at a run's commit is read only for a green run: a red run whose tree was
    never read is reported by its jobs, not as set aside."""
    green = evidence({9: [job("single-node 1k1k / x", job_id=90, sha=A), job("eval / x", job_id=91, sha=A)]})
    del green.commit_files[A]
    unread = (9, "the sweep workflow files at its commit aaaaaaaa could not be read")
    assert sweep.set_aside(green) == [unread]
    red = evidence({9: [job("single-node 1k1k / x", "failure", job_id=90, sha=A),
                        job("eval / x", job_id=91, sha=A)]})
    del red.commit_files[A]
    assert sweep.set_aside(red) == []
    outcome = sweep.run(red, SETTINGS)
    assert not any(d.startswith("set aside") for d in outcome.details)
    # a red run of another workflow is still named: its record alone rules it out
    red.workflow_runs[9] = _foreign(9)
    assert sweep.set_aside(red) == [(9, FOREIGN)]
    # and a red run whose tree was read and differs is named too
    changed = evidence({9: [job("single-node 1k1k / x", "failure", job_id=90, sha=A),
                            job("eval / x", job_id=91, sha=A)]})
    changed.commit_files[A] = {SWEEP_WORKFLOW: SWEEP_TEXT + "# edited\n"}
    assert sweep.set_aside(changed) == [(9, "its commit aaaaaaaa has sweep workflow files that differ "
                                             f"from the default branch's ({SWEEP_WORKFLOW})")]


def test_set_aside_runs_are_all_found_past_runs_that_are_skipped() -> None:
    """Newer runs that were never looked at, that are ours, or whose red jobs already rule
    them out do not end the search: every older set-aside run is still named, newest first,
    and a PASS lists them all."""
    C = "c" * 40
    red = [job("single-node 1k1k / r", "failure", job_id=130, sha=C), job("eval / r", job_id=131, sha=C)]
    forged = {f"r{i}": [job("single-node 1k1k / x", job_id=10 * i, sha=A),
                        job("eval / x", job_id=10 * i + 1, sha=A)] for i in (3, 5)}
    ev = swept_on_a(r12=[job("agentic / c2", job_id=120, sha=A), job("agentic eval / c2", job_id=121, sha=A)],
                    r13=red, r14=[job("eval / y", job_id=140)], **forged)
    ev.commits = [A, C, B]
    ev.check_runs.setdefault(C, [])
    del ev.commit_files[C]  # the red run's workflow files were never read
    del ev.workflow_runs[14]  # never looked at
    ev.workflow_runs[3], ev.workflow_runs[5] = _foreign(3), _foreign(5)
    assert sweep.set_aside(ev) == [(5, FOREIGN), (3, FOREIGN)]
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS and "(run [12](" in unwrap(outcome.reason)
    assert outcome.reason.endswith(f"has the same files; set aside: run 5 — {FOREIGN}; "
                                   f"set aside: run 3 — {FOREIGN}.")
    assert outcome.details == (f"set aside: run 5 — {FOREIGN}", f"set aside: run 3 — {FOREIGN}")


def test_an_incremental_resweep_passes_naming_every_run_of_the_union() -> None:
    from lib.union_world import union_world

    ev, benchmarks, evals = union_world()
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS and outcome.details == ()
    assert unwrap(outcome.reason) == (
        f"every row of the head's plan ({len(benchmarks)} benchmark and {len(evals)} eval rows) has a green "
        "job in run(s) [21](https://github.com/o/r/actions/runs/21), [20](https://github.com/o/r/actions/runs/20), "
        "on content whose row fingerprints equal the head's (incremental re-sweep).")


def test_a_sweep_of_a_commit_that_patched_infx_is_judged_on_what_it_ran() -> None:
    """Issue 20: an earlier commit patched the collector, the sweep ran on it, the head reverted
    the patch. In infx's own repository (its package on the base) the sweep's jobs ran the default
    branch's infx (the PR's is data), so the run counts and the patch is neutral; the launcher,
    which does run from the PR's checkout, patched and reverted the same way, fails."""
    collect = "infx/workflow/collect.py"
    tool = {collect: "def collect(): ...\n", "infx/__init__.py": "VERSION = '1'\n"}
    ev = swept_on_a(TREE | tool)
    ev.commit_files[A] |= tool | {collect: "def collect(): return 0.99\n"}
    ev.base_files |= tool
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS, outcome.reason
    assert outcome.reason.endswith(f"differs from it only in {collect} {NEUTRAL}")
    ev.commit_files[A] |= {LAUNCHER: "sglang serve --fake-scores\n"}
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL
    assert f"differs from the swept commit aaaaaaaa in {LAUNCHER}" in outcome.reason


# ---- coverage per planned row (issue 19 problem 4, issue 26 Check `sweep`) ---------------------------

def _one_run(keep, conclusion_of=lambda name: "success", trees=None):
    """Run 20 alone on commit A, with the jobs of the planned rows `keep(names)` picks."""
    from lib.union_world import union_world

    ev, benchmarks, evals = union_world(reuse=False, trees=trees)
    names = benchmarks + evals
    picked = set(keep(benchmarks, evals))
    ev.run_jobs[20] = [replace(j, conclusion=conclusion_of(j.name.split(" / ", 1)[1]))
                       for j in ev.run_jobs[20] if j.name.split(" / ", 1)[1] in picked]
    del ev.run_jobs[21], ev.workflow_runs[21]
    ev.check_runs = {sha: [c for c in runs if "/runs/21/" not in c.details_url] for sha, runs in ev.check_runs.items()}
    return ev, names


def test_every_planned_row_swept_green_passes() -> None:
    ev, names = _one_run(lambda b, e: b + e)
    assert len(names) > 2
    assert sweep.run(ev, SETTINGS).status is Status.PASS


def test_one_of_n_planned_rows_run_is_no_sweep() -> None:
    """One benchmark row and one eval row of the plan ran green, the rest never ran: one green
    job per config entry used to PASS ("1 benchmark and 1 eval check-runs at success")."""
    ev, names = _one_run(lambda b, e: b[:1] + e[:1])
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and "No passing sweep" in outcome.reason


def test_all_but_one_row_skipped_is_no_sweep() -> None:
    kept: list[str] = []

    def skipped_but_one(name: str) -> str:
        if sweeps.is_eval_name(name) or not kept:
            kept.append(name)
            return "success"
        return "skipped"

    ev, names = _one_run(lambda b, e: b + e, skipped_but_one)
    skipped = [j for j in ev.run_jobs[20] if j.conclusion == "skipped"]
    assert len(skipped) == len([n for n in names if not sweeps.is_eval_name(n)]) - 1
    assert sweep.run(ev, SETTINGS).status is Status.FAIL


def test_a_plan_without_eval_rows_passes_with_an_honest_green_sweep() -> None:
    """Issue 26: an entry for which the planner plans no eval row (`no-evals: true`, as for an
    append-only entry): a green job for every planned row is the whole sweep."""
    from lib.project_trees import BASE, ENTRY

    head = BASE | {"perf-changelog.yaml": BASE["perf-changelog.yaml"] + ENTRY + "  no-evals: true\n"}
    ev, names = _one_run(lambda b, e: b + e, trees=(BASE, head))
    assert names and not any(sweeps.is_eval_name(n) for n in names)
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.PASS, outcome.reason
    missing = _one_run(lambda b, e: b[1:], trees=(BASE, head))[0]
    assert sweep.run(missing, SETTINGS).status is Status.FAIL  # still every row


def test_configs_changed_without_a_changelog_entry_fail_naming_them() -> None:
    """Issue 26 / PRODUCT §4.8: the PR also changes the block of a config its changelog entries
    do not name. The sweep of the listed config stands, but the unlisted config's benchmark
    changes unswept, so `success` would be a lie: Check `sweep` fails, naming the config, the
    file that changes it and the fix (red team 3: it used to be an advisory WARN)."""
    from lib.project_trees import BASE, ENTRY, KEY, MASTER, SIBLING
    from lib.reuse_world import _key_block

    from infx.signoff.model import ChangedFile

    script = {"benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_sglang.sh": "sglang serve\n"}
    base = BASE | script | {MASTER: _key_block(KEY) + "\n" + _key_block(SIBLING)}
    listed, sibling = base[MASTER].split("\n\n", 1)
    head = base | {"perf-changelog.yaml": base["perf-changelog.yaml"] + ENTRY,
                   MASTER: listed + "\n\n" + sibling.replace("image: ", "image: other/", 1)}
    changed = [ChangedFile("perf-changelog.yaml", "modified"), ChangedFile(MASTER, "modified")]

    def world(keep):
        ev, _ = _one_run(keep, trees=(base, head))
        ev.files = changed
        return ev

    outcome = sweep.run(world(lambda b, e: b + e), SETTINGS)
    assert outcome.status is Status.FAIL, outcome
    assert unwrap(outcome.reason) == (
        "1 config(s) whose own benchmark-affecting content this PR changes have no changelog entry "
        f"that benchmarks them, so no sweep covers them: `{SIBLING}` (`{MASTER}`). Fix: append a "
        "changelog entry naming them (not evals-only; not append-only for a changed recipe or "
        "script), then sweep.")
    assert outcome.details[0].startswith("in-PR commit")  # the listed config's sweep, still said
    failed = sweep.run(world(lambda b, e: b[:1]), SETTINGS)
    assert failed.status is Status.FAIL and failed.reason.startswith("No passing sweep")  # root cause first
    assert SIBLING in unwrap(failed.details[-1])
    honest = world(lambda b, e: b + e)
    honest.head_files = head | {MASTER: base[MASTER]}
    honest.files = changed[:1]
    assert sweep.run(honest, SETTINGS).status is Status.PASS  # nothing unlisted: no warning


def test_an_adopters_job_names_in_another_workflow_are_set_aside_like_any_look_alike() -> None:
    """Red-team: `sweep / <caller> / <row>` (an adopter's names, read as our rows) from another
    workflow's run is a family job, so its run is judged, and provenance sets it aside."""
    ev = evidence({7: [job("sweep / single-node 1k1k / x", job_id=70, sha=A),
                       job("sweep / eval / x", job_id=71, sha=A)]})
    ev.workflow_runs[7] = _foreign(7)
    assert sweep.set_aside(ev) == [(7, FOREIGN)]
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and outcome.details[0] == f"set aside: run 7 — {FOREIGN}"


def test_a_pr_whose_plan_has_no_rows_needs_no_sweep() -> None:
    """Issue 26, real #2561/#2531/#2527 (retiring configs, moving their scripts to deprecated/,
    no changelog entry): the head's plan has no rows, so no sweep is asked for. A config the PR
    still changes without an entry fails (PRODUCT §4.8, red team 3); a plan that cannot be read
    still fails closed."""
    from lib.project_trees import BASE, KEY, MASTER, SIBLING
    from lib.reuse_world import _key_block

    from infx.signoff.model import ChangedFile

    base = BASE | {MASTER: _key_block(KEY) + "\n" + _key_block(SIBLING)}
    retired = base | {MASTER: _key_block(KEY)}
    ev = evidence({})
    ev.head_files, ev.base_files = retired, base
    ev.files = [ChangedFile(MASTER, "modified")]
    outcome = sweep.run(ev, SETTINGS)
    assert outcome.status is Status.NA and "no sweep is needed" in outcome.reason, outcome
    listed, sibling = base[MASTER].split("\n\n", 1)
    ev.head_files = base | {MASTER: listed + "\n\n" + sibling.replace("image: ", "image: other/", 1)}
    unswept = sweep.run(ev, SETTINGS)
    assert unswept.status is Status.FAIL and SIBLING in unwrap(unswept.reason), unswept
    assert "no sweep is needed" in unswept.details[0]
    ev.head_files = retired | {"perf-changelog.yaml": "- config-keys: [\n"}
    assert sweep.run(ev, SETTINGS).status is Status.FAIL  # no plan can be read: not "nothing"


def test_configs_changed_only_through_a_shared_helper_are_named_in_a_warning() -> None:
    """Issue 26: a PR that changes only a helper many configs source (seed 003's multi-node
    bench.sh), with no changelog entry, is not asked to sweep every config behind it: Check
    `sweep` warns (advisory), naming the configs and the helper."""
    from dataclasses import replace

    from lib.signoff_policy_support import changed, world_evidence

    evidence = world_evidence("seed003")
    helper = "benchmarks/multi_node/amd_utils/bench.sh"
    base = {**evidence.head_files, "perf-changelog.yaml": evidence.base_files["perf-changelog.yaml"]}
    head = {**base, helper: base[helper] + "\necho done\n"}
    evidence = replace(evidence, base_files=base, head_files=head, files=changed(base, head),
                       check_runs={commit: [] for commit in evidence.commits})
    outcome = sweep.run(evidence, SETTINGS)
    assert outcome.status is Status.WARN, outcome
    note = unwrap(outcome.details[-1])
    assert note.startswith("2 config(s) whose launch this PR changes only through a file they share") \
        and f"(`{helper}`)" in note and "(advisory)" in note, note
