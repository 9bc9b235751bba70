"""Per-job eval artifacts: rows from lm-eval result files, and the batched-eval manifest rule."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.results import normalise
from infx.signoff.model import Artifact, ArtifactMembers
from infx.signoff.rules.eval_jobs import is_job_artifact, manifest_problem, read_job

META = {"infmax_model_prefix": "qwen3.5", "hw": "mi355x-amds_0", "framework": "vllm",
        "precision": "fp4", "conc": 64, "image": "vllm/vllm-openai-rocm:v1"}


def lm_eval(score=0.95, task="gsm8k", effective=1319, **extra) -> dict:
    return {"results": {task: {"exact_match,strict-match": score, "exact_match,flexible-extract": 0.96}},
            "n-samples": {task: {"original": 1319, "effective": effective}}} | extra


def artifact(files: dict, name="eval_qwen3.5_tp4_conc64", expired=False) -> Artifact:
    return ArtifactMembers(Artifact(0, name, expired), {k: json.dumps(v).encode() for k, v in files.items()})


def batched(eval_concs, completed, failed=(), files=None) -> Artifact:
    meta = META | {"eval_concs": list(eval_concs), "completed_eval_concs": list(completed),
                   "failed_eval_concs": list(failed)}
    names = files if files is not None else completed
    return artifact({"meta_env.json": meta} | {f"results_2026-09-23T10-00-00_conc{c}.json": lm_eval()
                                               for c in names})


@pytest.mark.parametrize("name,expected", [
    ("eval_qwen3.5_tp4_conc64", True), ("eval_results_all", False),
    ("eval_server_logs_x", False), ("eval_gpu_metrics_x", False), ("results_bmk", False),
    ("bmk_agentic_x", False),
])
def test_job_artifact_names(name, expected) -> None:
    assert is_job_artifact(name) is expected


def test_rows_take_identity_from_meta_and_score_from_strict_match() -> None:
    job = read_job(artifact({"meta_env.json": META, "results_2026-09-23T10-00-00.json": lm_eval()}))
    (row,) = job.rows
    assert row["model_prefix"] == "qwen3.5" and row["hw"] == "MI355X-AMDS_0" and row["conc"] == 64
    assert (row["task"], row["score"], row["score_name"], row["n_eff"]) == ("gsm8k", 0.95, "em_strict", 1319)
    assert row["infrastructure_success"] is True and row["image"] == META["image"]
    assert row["source"].endswith("results_2026-09-23T10-00-00.json")


def test_accuracy_is_used_when_there_is_no_exact_match() -> None:
    data = {"results": {"mmlu_pro_2800": {"acc,none": 0.7}}}
    (row,) = read_job(artifact({"meta_env.json": META, "results.json": data})).rows
    assert (row["score"], row["score_name"]) == (0.7, "accuracy")


@pytest.mark.parametrize("data,kind", [
    (lm_eval(effective=0), "InvalidEffectiveSampleCount"),
    (lm_eval(effective=None), "InvalidEffectiveSampleCount"),
    (lm_eval(integration_error={"type": "ServerCrashed", "message": "x"}), "ServerCrashed"),
])
def test_invalid_results_are_infrastructure_failures(data, kind) -> None:
    (row,) = read_job(artifact({"meta_env.json": META, "results.json": data})).rows
    assert row["infrastructure_success"] is False and row["integration_error"]["type"] == kind


def test_a_score_outside_the_unit_interval_is_invalid() -> None:
    (row,) = read_job(artifact({"meta_env.json": META, "results.json": lm_eval(score=95)})).rows
    assert row["infrastructure_success"] is False


@pytest.mark.parametrize("art,text", [
    (ArtifactMembers(Artifact(0, "eval_x", True), None), "expired"),
    (ArtifactMembers(Artifact(0, "eval_x", False), None), "could not be downloaded"),
    (artifact({"results.json": lm_eval()}), "no valid meta_env.json"),
    (artifact({"meta_env.json": [1], "results.json": lm_eval()}), "no valid meta_env.json"),
    (artifact({"meta_env.json": META}), "holds no eval result"),
    (artifact({"meta_env.json": META, "results.json": [1]}), "not a JSON object"),
])
def test_unusable_artifacts_say_why(art, text) -> None:
    problem = read_job(art)
    assert isinstance(problem, str) and text in problem


def test_a_complete_batch_passes() -> None:
    assert manifest_problem(read_job(batched([8, 16], [8, 16]))) is None


def test_a_non_batched_job_has_no_manifest_rule() -> None:
    job = read_job(artifact({"meta_env.json": META, "results.json": lm_eval()}))
    assert not job.batched and manifest_problem(job) is None


@pytest.mark.parametrize("art,narrowed,text", [
    (batched([8, 16], [8], failed=[16]), None, "[16] failed"),
    (batched([8, 16], [8]), None, "[16] have no completed"),
    (batched([8, 16], [8, 16], files=[8]), None, "completed eval concurrencies [16] have no *_conc<N>.json"),
    (batched([8, 0], [8]), None, "eval_concs is not a list of positive integer"),
    (batched([8, 16], [8, 16, 32]), None, "completed eval concurrencies [32] were not requested"),
    (batched([8], [8], files=[8, 32]), None, "unexpected eval concurrencies [32]"),
    (batched([8, 16], [8, 16]), frozenset({16}), "unexpected eval concurrencies [8]"),
    (batched([8], [8]), frozenset({8, 64}), "[64] have no completed"),
])
def test_batch_manifest_failures(art, narrowed, text) -> None:
    problem = manifest_problem(read_job(art), narrowed)
    assert problem is not None and text in problem


def test_changelog_narrowing_accepts_the_narrowed_batch() -> None:
    assert manifest_problem(read_job(batched([16], [16])), frozenset({16})) is None


def test_malformed_manifest_lists_fail() -> None:
    art = artifact({"meta_env.json": META | {"eval_concs": "8,16"}, "results_conc8.json": lm_eval()})
    assert "not a list" in manifest_problem(read_job(art))


concs = st.frozensets(st.sampled_from([1, 4, 8, 16, 32, 64]), max_size=6)


@settings(max_examples=100, deadline=None)
@given(concs, concs, concs, concs)
def test_manifest_passes_exactly_when_the_batch_matches_the_request(requested, completed, failed,
                                                                    files) -> None:
    art = batched(sorted(requested), sorted(completed), sorted(failed), files=sorted(files))
    job = read_job(art)
    if isinstance(job, str):  # no result file at all
        assert not files
        return
    ok = not failed and completed == requested and files == requested
    assert (manifest_problem(job) is None) is ok


def test_a_manifest_without_the_completed_list_completes_its_request() -> None:
    """The reference's reading of an older manifest: no `completed_eval_concs` means every
    requested point completed; the result files still have to be there."""
    meta = META | {"eval_concs": [8, 16]}
    whole = artifact({"meta_env.json": meta} | {f"results_conc{c}.json": lm_eval() for c in (8, 16)})
    assert manifest_problem(read_job(whole)) is None
    short = artifact({"meta_env.json": meta, "results_conc8.json": lm_eval()})
    assert "[16] have no *_conc<N>.json" in manifest_problem(read_job(short))


@settings(max_examples=150, deadline=None)
@given(concs, st.one_of(st.none(), concs), concs, concs)
def test_the_sign_off_accepts_only_batches_collection_keeps(requested, completed, failed, files) -> None:
    """One batch rule: the sign-off's manifest rule is collection's, made whole. Whatever the
    sign-off accepts, collection keeps every row of; whatever collection refuses, the sign-off
    refuses with the same reason."""
    meta = META | {"eval_concs": sorted(requested), "failed_eval_concs": sorted(failed)}
    if completed is not None:
        meta["completed_eval_concs"] = sorted(completed)
    job = read_job(artifact({"meta_env.json": meta} | {f"results_conc{c}.json": lm_eval() for c in files}))
    if isinstance(job, str):
        assert not files
        return
    kept = normalise.collected_rows(job)
    signed = manifest_problem(job)
    if isinstance(kept, str):
        assert signed == kept
    if signed is None:
        assert not isinstance(kept, str) and len(kept) == len(job.rows)
