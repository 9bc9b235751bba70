"""Check 2: evals of the in-PR sweep are valid, above threshold and ran the PR's image."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from infx.signoff.checks import evals
from infx.signoff.model import Artifact, CheckRun, Evidence, PullInfo, SignOff, Status

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
    pr = PullInfo(1, "t", "", "carol", "open", False, "main", "c" * 40, "x", HEAD, "o/r")
    runs = [CheckRun(1, "single-node 8k1k / a", "completed", "success", "https://x/actions/runs/5/job/1"),
            CheckRun(2, "eval / a", "completed", "success", "https://x/actions/runs/5/job/2")]
    if artifacts is None:
        artifacts = [Artifact("eval_results_all", False, {"agg_eval_all.json": json.dumps(rows).encode()})]
    return Evidence(
        repo="o/r", default_branch="main", now=datetime(2026, 9, 30, tzinfo=timezone.utc), pr=pr,
        signoff=SignOff("alice", "", None, 1, "issue_comment"), commits=[RUN_SHA, HEAD],
        check_runs={HEAD: [], RUN_SHA: runs},
        head_files={"configs/amd-master.yaml": ENTRY.format(image=head_image)},
        base_files={"configs/amd-master.yaml": ENTRY.format(image="vllm/vllm-openai-rocm:v0")},
        default_branch_files={"configs/evals/thresholds.yaml": thresholds},
        commit_files={RUN_SHA: {"configs/amd-master.yaml": ENTRY.format(image=run_image)}},
        artifacts={5: artifacts})


def test_pass_names_score_floor_and_source() -> None:
    outcome = evals.run(evidence([row()]))
    assert outcome.status is Status.PASS
    assert "gsm8k em_strict 0.95, n=1319 (floor 0.94, models.qwen3.5.gsm8k)" in outcome.reason


def test_scenario_10_below_per_model_floor_and_infrastructure_failure() -> None:
    rows = [row(score=0.932), row(conc=32, infrastructure_success=False,
                                  integration_error={"type": "InvalidEffectiveSampleCount", "message": "n"})]
    outcome = evals.run(evidence(rows))
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
    outcome = evals.run(evidence([bad]))
    assert outcome.status is Status.FAIL and text in outcome.reason


def test_different_image_fails() -> None:
    outcome = evals.run(evidence([row()], run_image="vllm/vllm-openai-rocm:v0"))
    assert outcome.status is Status.FAIL and "different image" in outcome.reason


def test_uncovered_config_fails() -> None:
    outcome = evals.run(evidence([row(model_prefix="dsr1")]))
    assert outcome.status is Status.FAIL and "no eval row covers" in outcome.reason


@pytest.mark.parametrize("artifacts,text", [
    ([], "no eval_results_all artifact"),
    ([Artifact("eval_results_all", True, None)], "expired"),
    ([Artifact("eval_results_all", False, None)], "could not be downloaded"),
    ([Artifact("eval_results_all", False, {"agg_eval_all.json": b"[]"})], "is empty"),
    ([Artifact("eval_results_all", False, {"agg_eval_all.json": b"{"})], "not valid JSON"),
    (None, "could not be read"),
])
def test_missing_or_broken_artifacts_fail_closed(artifacts, text) -> None:
    ev = evidence([row()], artifacts=artifacts or [])
    if artifacts is None:
        ev.artifacts = {}
    outcome = evals.run(ev)
    assert outcome.status is Status.FAIL and text in outcome.reason


def test_unreadable_thresholds_or_run_tree_fail_closed() -> None:
    ev = evidence([row()])
    ev.default_branch_files = {}
    assert evals.run(ev).status is Status.FAIL
    ev = evidence([row()], thresholds="default: {gsm8k: 2}\n")
    assert "invalid" in evals.run(ev).reason
    ev = evidence([row()])
    ev.commit_files = {}
    assert "could not be read" in evals.run(ev).reason


def test_no_green_sweep_means_no_evals() -> None:
    ev = evidence([row()])
    ev.check_runs = {HEAD: [], RUN_SHA: []}
    outcome = evals.run(ev)
    assert outcome.status is Status.FAIL and "Check 1" in outcome.reason


def test_eval_concs_must_all_have_results() -> None:
    ev = evidence([row(conc=48)])
    ev.base_files["perf-changelog.yaml"] = "- config-keys: [a]\n  pr-link: x\n"
    ev.head_files["perf-changelog.yaml"] = (ev.base_files["perf-changelog.yaml"] +
                                            "- config-keys: [qwen3.5-*]\n  eval-concs: [48, 64]\n")
    outcome = evals.run(ev)
    assert outcome.status is Status.FAIL and "eval-concs [64]" in outcome.reason
    ev.head_files["perf-changelog.yaml"] = ev.head_files["perf-changelog.yaml"].replace("48, 64", "48")
    assert evals.run(ev).status is Status.PASS
