"""Check `evals`: evals of the in-PR sweep are valid, above threshold and ran the PR's image."""

from __future__ import annotations

import json

import pytest
from lib.signoff_policy_support import bare_evidence

from infx.signoff.checks import evals
from infx.signoff.model import Artifact, ArtifactMembers, ChangedFile, CheckRun, Evidence, Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

RUN_SHA, HEAD = "a" * 40, "b" * 40
THRESHOLDS = "default:\n  gsm8k: 0.90\nmodels:\n  qwen3.5:\n    gsm8k: 0.94\n"
ENTRY = """qwen3.5-fp4-mi355x-vllm:
  image: {image}
  model: Qwen/Qwen3.5
  model-prefix: qwen3.5
  runner: mi355x
  precision: fp4
  framework: vllm
  multinode: false
"""


def row(**kw):
    base = {"model_prefix": "qwen3.5", "hw": "MI355X", "framework": "vllm", "precision": "fp4",
            "task": "gsm8k", "score": 0.95, "score_name": "em_strict", "n_eff": 1319, "conc": 64,
            "infrastructure_success": True, "integration_error": None}
    return base | kw


def evidence(rows, *, run_image="vllm/vllm-openai-rocm:v1", head_image="vllm/vllm-openai-rocm:v1",
             artifacts=None, thresholds=THRESHOLDS) -> Evidence:
    runs = [CheckRun(1, "single-node 8k1k / a", "completed", "success", "https://x/actions/runs/5/job/1"),
            CheckRun(2, "eval / a", "completed", "success", "https://x/actions/runs/5/job/2")]
    if artifacts is None:
        artifacts = [ArtifactMembers(Artifact(0, "eval_results_all", False), {"agg_eval_all.json": json.dumps(rows).encode()})]
    return bare_evidence(
        head_sha=HEAD, commits=[RUN_SHA, HEAD],
        check_runs={HEAD: [], RUN_SHA: runs},
        files=[ChangedFile("configs/amd-master.yaml", "modified")],
        head_files={"configs/amd-master.yaml": ENTRY.format(image=head_image)},
        base_files={"configs/amd-master.yaml": ENTRY.format(image="vllm/vllm-openai-rocm:v0")},
        default_branch_files={"configs/evals/thresholds.yaml": thresholds},
        commit_files={RUN_SHA: {"configs/amd-master.yaml": ENTRY.format(image=run_image)}},
        artifacts={5: artifacts})


def test_pass_names_score_floor_and_source() -> None:
    outcome = evals.run(evidence([row()]), SETTINGS)
    assert outcome.status is Status.PASS
    assert "gsm8k em_strict 0.95, n=1319 (floor 0.94, models.qwen3.5.gsm8k)" in outcome.reason


def test_scenario_10_below_per_model_floor_and_infrastructure_failure() -> None:
    rows = [row(score=0.932), row(conc=32, infrastructure_success=False,
                                  integration_error={"type": "InvalidEffectiveSampleCount", "message": "n"})]
    outcome = evals.run(evidence(rows), SETTINGS)
    assert outcome.status is Status.FAIL
    assert "gsm8k" in outcome.reason and "0.932" in outcome.reason and "0.94" in outcome.reason
    assert "models.qwen3.5.gsm8k" in outcome.reason
    assert any("InvalidEffectiveSampleCount" in d for d in outcome.details)


@pytest.mark.parametrize("bad,text", [
    (row(score=1.5, em_strict=None), "no valid score"),
    (row(score=float("nan")), "no valid score"),
    (row(score=True), "no valid score"),
    (row(infrastructure_success=None), "infrastructure_success is not true"),
])
def test_invalid_rows_fail(bad, text) -> None:
    outcome = evals.run(evidence([bad]), SETTINGS)
    assert outcome.status is Status.FAIL and text in outcome.reason


def test_different_image_fails() -> None:
    outcome = evals.run(evidence([row()], run_image="vllm/vllm-openai-rocm:v0"), SETTINGS)
    assert outcome.status is Status.FAIL and "different image" in outcome.reason


def test_uncovered_config_fails() -> None:
    outcome = evals.run(evidence([row(model_prefix="dsr1")]), SETTINGS)
    assert outcome.status is Status.FAIL and "no eval row covers" in outcome.reason


@pytest.mark.parametrize("artifacts,text", [
    ([], "no eval_results_all artifact"),
    ([ArtifactMembers(Artifact(0, "eval_results_all", True), None)], "expired"),
    ([ArtifactMembers(Artifact(0, "eval_results_all", False), None)], "could not be downloaded"),
    ([ArtifactMembers(Artifact(0, "eval_results_all", False), {"agg_eval_all.json": b"[]"})], "is empty"),
    ([ArtifactMembers(Artifact(0, "eval_results_all", False), {"agg_eval_all.json": b"{"})], "not valid JSON"),
    (None, "could not be read"),
])
def test_missing_or_broken_artifacts_fail_closed(artifacts, text) -> None:
    ev = evidence([row()], artifacts=artifacts or [])
    if artifacts is None:
        ev.artifacts = {}
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and text in outcome.reason


def test_unreadable_thresholds_or_run_tree_fail_closed() -> None:
    ev = evidence([row()])
    ev.default_branch_files = {}
    assert evals.run(ev, SETTINGS).status is Status.FAIL
    ev = evidence([row()], thresholds="default: {gsm8k: 2}\n")
    assert "invalid" in evals.run(ev, SETTINGS).reason
    ev = evidence([row()])
    ev.commit_files = {}  # without the run's tree its provenance is unproven: no green run at all
    assert "no in-PR commit has a passing sweep" in evals.run(ev, SETTINGS).reason


def test_no_green_sweep_means_no_evals() -> None:
    ev = evidence([row()])
    ev.check_runs = {HEAD: [], RUN_SHA: []}
    ev.run_jobs = {}
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and "Check 1" in outcome.reason


def test_eval_concs_must_all_have_results() -> None:
    ev = evidence([row(conc=48)])
    ev.base_files["perf-changelog.yaml"] = "- config-keys: [a]\n  pr-link: x\n"
    ev.head_files["perf-changelog.yaml"] = (ev.base_files["perf-changelog.yaml"] +
                                            "- config-keys: [qwen3.5-*]\n  description: [x]\n  pr-link: y\n"
                                                "  eval-concs: [48, 64]\n")
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and "eval-concs [64]" in outcome.reason
    ev.head_files["perf-changelog.yaml"] = ev.head_files["perf-changelog.yaml"].replace("48, 64", "48")
    assert evals.run(ev, SETTINGS).status is Status.PASS


# --- per-job eval_* artifacts when eval_results_all is absent ---------------------------------

META = {"infmax_model_prefix": "qwen3.5", "hw": "mi355x-amds_0", "framework": "vllm",
        "precision": "fp4", "conc": 64, "image": "vllm/vllm-openai-rocm:v1"}


def lm_eval(score=0.95) -> bytes:
    return json.dumps({"results": {"gsm8k": {"exact_match,strict-match": score}},
                       "n-samples": {"gsm8k": {"original": 1319, "effective": 1319}}}).encode()


def job(meta=None, results=None, name="eval_qwen3.5_tp4_conc64") -> Artifact:
    files = {"meta_env.json": json.dumps(META | (meta or {})).encode()}
    files |= results if results is not None else {"results_2026-09-23T10-00-00.json": lm_eval()}
    return ArtifactMembers(Artifact(0, name, False), files)


def batch(concs, completed, failed=(), files=None) -> Artifact:
    meta = {"eval_concs": concs, "completed_eval_concs": completed, "failed_eval_concs": list(failed)}
    return job(meta, {f"results_2026-09-23T10-00-00_conc{c}.json": lm_eval()
                      for c in (completed if files is None else files)})


def test_per_job_artifacts_stand_in_for_a_missing_aggregate() -> None:
    outcome = evals.run(evidence([], artifacts=[job(), ArtifactMembers(Artifact(0, "results_bmk", False), {})]), SETTINGS)
    assert outcome.status is Status.PASS
    assert outcome.reason.startswith("1 per-job eval artifact(s) (eval_results_all absent) of run 5")
    assert "gsm8k em_strict 0.95, n=1319 (floor 0.94, models.qwen3.5.gsm8k)" in outcome.reason


def test_per_job_artifacts_are_held_to_the_same_floors() -> None:
    outcome = evals.run(evidence([], artifacts=[job(results={"results.json": lm_eval(0.93)})]), SETTINGS)
    assert outcome.status is Status.FAIL and "0.93 is below the threshold 0.94" in outcome.reason


def test_an_expired_aggregate_falls_back_to_fresh_job_artifacts() -> None:
    outcome = evals.run(evidence([], artifacts=[ArtifactMembers(Artifact(0, "eval_results_all", True), None), job()]), SETTINGS)
    assert outcome.status is Status.PASS


def test_an_unusable_job_artifact_fails_closed() -> None:
    outcome = evals.run(evidence([], artifacts=[job(), ArtifactMembers(Artifact(0, "eval_other", False), None)]), SETTINGS)
    assert outcome.status is Status.FAIL and "eval_other could not be downloaded" in outcome.reason


def test_a_job_that_ran_another_image_fails() -> None:
    outcome = evals.run(evidence([], artifacts=[job({"image": "rocm/vllm-dev:fork"})]), SETTINGS)
    assert outcome.status is Status.FAIL and "different image" in outcome.reason
    assert "rocm/vllm-dev:fork" in outcome.reason


@pytest.mark.parametrize("artifact,text", [
    (batch([32, 64], [32, 64]), None),
    (batch([32, 64], [32], failed=[64]), "[64] failed"),
    (batch([32, 64], [32]), "[64] have no completed"),
    (batch([32], [32, 64]), "completed eval concurrencies [64] were not requested"),
    (batch([32], [32], files=[32, 64]), "unexpected eval concurrencies [64]"),
])
def test_batched_job_manifest(artifact, text) -> None:
    outcome = evals.run(evidence([], artifacts=[artifact]), SETTINGS)
    if text is None:
        assert outcome.status is Status.PASS
    else:
        assert outcome.status is Status.FAIL and text in outcome.reason


def test_changelog_eval_concs_narrow_the_batch() -> None:
    ev = evidence([], artifacts=[batch([32, 64], [32, 64])])
    ev.base_files["perf-changelog.yaml"] = "- config-keys: [a]\n  pr-link: x\n"
    ev.head_files["perf-changelog.yaml"] = (ev.base_files["perf-changelog.yaml"] +
                                            "- config-keys: [qwen3.5-*]\n  description: [x]\n  pr-link: y\n"
                                                "  eval-concs: [64]\n")
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL and "unexpected eval concurrencies [32]" in outcome.reason
    ev.artifacts = {5: [batch([64], [64])]}
    assert evals.run(ev, SETTINGS).status is Status.PASS


def test_no_aggregate_and_no_job_artifacts_fails() -> None:
    outcome = evals.run(evidence([], artifacts=[ArtifactMembers(Artifact(0, "results_bmk", False), {})]), SETTINGS)
    assert outcome.status is Status.FAIL and "no per-job eval_* artifacts" in outcome.reason


def test_every_affected_config_needs_a_row() -> None:
    ev = evidence([row()])
    second = ENTRY.replace("qwen3.5-fp4-mi355x-vllm", "qwen3.5-fp8-mi355x-vllm").replace("fp4", "fp8")
    ev.head_files["configs/amd-master.yaml"] += second.format(image="vllm/vllm-openai-rocm:v1")
    assert "has no config qwen3.5-fp8-mi355x-vllm" in evals.run(ev, SETTINGS).reason
    ev.commit_files[RUN_SHA]["configs/amd-master.yaml"] += second.format(image="vllm/vllm-openai-rocm:v1")
    outcome = evals.run(ev, SETTINGS)
    assert outcome.status is Status.FAIL
    assert "no eval row covers the affected config qwen3.5-fp8-mi355x-vllm" in outcome.reason


# --- Checks `evals` and `pareto` judge what the plan sweeps ---------------------------------------------

DSR1 = ENTRY.replace("qwen3.5-fp4-mi355x-vllm", "dsr1-fp4-mi355x-vllm").replace(
    "model-prefix: qwen3.5", "model-prefix: dsr1")
LISTED = "- config-keys:\n    - {key}\n  description:\n    - \"Change\"\n  pr-link: XXX\n"


def _with_shared_only(monkeypatch, changelog: str | None) -> Evidence:
    """The qwen config changed; the dsr1 config is affected only through a shared helper."""
    from dataclasses import replace

    from infx.signoff.rules.affected import AffectedConfig

    ev = evidence([row()])
    head = dict(ev.head_files)
    head["configs/amd-master.yaml"] += DSR1.format(image="vllm/vllm-openai-rocm:v1")
    base = dict(ev.base_files)
    base["configs/amd-master.yaml"] += DSR1.format(image="vllm/vllm-openai-rocm:v1")
    run_tree = {"configs/amd-master.yaml": head["configs/amd-master.yaml"]}
    if changelog is not None:
        head["perf-changelog.yaml"] = changelog
        base["perf-changelog.yaml"] = ""
    ev = replace(ev, head_files=head, base_files=base, commit_files={RUN_SHA: run_tree})
    configs = [AffectedConfig("dsr1-fp4-mi355x-vllm", {}, "shared helper changed", "configs/amd-master.yaml"),
               AffectedConfig("qwen3.5-fp4-mi355x-vllm", {}, "changed", "configs/amd-master.yaml")]
    monkeypatch.setattr(evals, "affected_configs", lambda _: configs)
    return ev


def test_a_config_affected_only_through_a_shared_file_and_not_swept_needs_no_eval(monkeypatch) -> None:
    ev = _with_shared_only(monkeypatch, LISTED.format(key="qwen3.5-fp4-mi355x-vllm"))
    # the coverage rule of Check `evals` (the sweep itself is Check `sweep`'s): nothing missing
    assert evals._coverage_and_image(ev, RUN_SHA, [row()]) is None


def test_a_swept_config_affected_through_a_shared_file_still_needs_its_eval(monkeypatch) -> None:
    ev = _with_shared_only(monkeypatch, LISTED.format(key="qwen3.5-fp4-mi355x-vllm")
                           + LISTED.format(key="dsr1-fp4-mi355x-vllm"))
    assert evals._coverage_and_image(ev, RUN_SHA, [row()]) == \
        "no eval row covers the affected config dsr1-fp4-mi355x-vllm."


def test_unreadable_swept_keys_fail_closed(monkeypatch) -> None:
    ev = _with_shared_only(monkeypatch, LISTED.format(key="no-such-key"))
    problem = evals._coverage_and_image(ev, RUN_SHA, [row()])
    assert "the configs the PR's plan sweeps could not be read" in problem


def test_a_plan_without_eval_rows_asks_for_no_eval() -> None:
    """Issue 26: an entry the planner plans no eval for (`no-evals: true`, append-only), or no
    changelog entry at all: Check `evals` is N/A instead of failing for a sweep it never needed."""
    from lib.project_trees import BASE, ENTRY
    from lib.signoff_policy_support import bare_evidence

    from infx.signoff.checks import evals
    from infx.signoff.table import load_table

    settings = load_table().settings
    ev = bare_evidence(head_sha="b" * 40, commits=["b" * 40], check_runs={"b" * 40: []}, run_jobs={})
    for head in (BASE | {"perf-changelog.yaml": BASE["perf-changelog.yaml"] + ENTRY + "  no-evals: true\n"},
                 dict(BASE)):
        ev.head_files, ev.base_files = head, BASE
        outcome = evals.run(ev, settings)
        assert outcome.status.value == "N/A" and "no eval rows" in outcome.reason, outcome
    ev.head_files = BASE | {"perf-changelog.yaml": BASE["perf-changelog.yaml"] + ENTRY}
    assert evals.run(ev, settings).status.value == "FAIL"  # evals planned, none swept
