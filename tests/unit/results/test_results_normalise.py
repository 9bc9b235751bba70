"""infx.results.normalise: raw benchmark/lm-eval output into the documented row schemas."""

from __future__ import annotations

import json
import re

import pytest
from lib.fake_results import bench_serving, lm_eval

from infx.plan.identity import job_name, result_slug
from infx.results import normalise

SINGLE = {"image": "img:1", "model": "m/M", "model-prefix": "dsr1", "precision": "fp4",
          "framework": "sglang", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 8, "pp": 1,
          "dcp-size": 1, "pcp-size": 1, "ep": 8, "dp-attn": True, "spec-decoding": "mtp", "conc": 64,
          "max-model-len": 9472, "exp-name": "dsr1_8k1k", "disagg": False, "run-eval": False}
MULTI = {"image": "img:2", "model": "m/M", "model-prefix": "dsv4", "precision": "fp4",
         "framework": "sglang-disagg", "runner": "mi355x-disagg", "isl": 8192, "osl": 1024,
         "spec-decoding": "none", "conc": [8, 16], "disagg": True, "kv-p2p-transfer": "mori",
         "prefill": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True, "pp": 1, "dcp-size": 1, "pcp-size": 1},
         "decode": {"num-worker": 2, "tp": 8, "ep": 1, "dp-attn": False, "pp": 1, "dcp-size": 1, "pcp-size": 1},
         "exp-name": "dsv4_8k1k", "run-eval": False}
AGENTIC = {"image": "img:3", "model": "m/Q", "model-prefix": "qwen3.5", "precision": "fp4",
           "framework": "sglang", "runner": "cluster:mi355x-amds", "tp": 2, "pp": 1, "dcp-size": 1,
           "pcp-size": 1, "ep": 2, "dp-attn": False, "spec-decoding": "mtp", "conc": 4,
           "kv-offloading": "dram", "kv-offload-backend": {"name": "hicache"}, "total-cpu-dram-gb": 599,
           "duration": 3600, "exp-name": "q", "scenario-type": "agentic-coding", "run-eval": False}


def test_schemas_are_packaged_and_documented():
    for kind in (normalise.BENCHMARK, normalise.EVAL):
        data = normalise.schema(kind)
        assert data["description"] and data["additionalProperties"] is False


def test_single_node_row():
    raw = bench_serving(64)
    (row,) = normalise.benchmark_rows(SINGLE, {"benchmark.json": raw}, "mi355x-amds_03", "r")
    assert row["identity"] == result_slug(SINGLE) and row["job_name"] == job_name(SINGLE)
    assert row["hw"] == "mi355x" and row["runner_name"] == "mi355x-amds_03" and row["num_gpus"] == 8
    assert row["tput_per_gpu"] == pytest.approx(raw["total_token_throughput"] / 8)
    assert row["output_tput_per_gpu"] == pytest.approx(raw["output_throughput"] / 8)
    assert row["input_tput_per_gpu"] == pytest.approx(raw["input_throughput"] / 8)
    assert row["median_e2el"] == pytest.approx(raw["median_e2el_ms"] / 1000)
    assert row["p90_e2el"] == pytest.approx(raw["p90_e2el_ms"] / 1000)
    assert row["median_intvty"] == pytest.approx(1000 / raw["median_tpot_ms"])
    assert (row["infmax_model_prefix"], row["spec_decoding"], row["dp_attention"]) == ("dsr1", "mtp", True)
    assert normalise.row_problem(row, normalise.BENCHMARK) is None


def test_multi_node_row_per_concurrency_and_gpu_count():
    runs = {"benchmark_conc16.json": bench_serving(16), "benchmark_conc8.json": bench_serving(8)}
    rows = normalise.benchmark_rows(MULTI, runs, "mi355x-amds_06", "r")
    assert [r["conc"] for r in rows] == [8, 16]
    assert rows[0]["num_prefill_gpu"] == 8 and rows[0]["num_decode_gpu"] == 16 and rows[0]["num_gpus"] == 24
    assert rows[0]["is_multinode"] and rows[0]["decode_num_workers"] == 2 and "tp" not in rows[0]
    assert rows[0]["kv_p2p_transfer"] == "mori"


def test_agentic_row():
    (row,) = normalise.benchmark_rows(AGENTIC, {"benchmark.json": bench_serving(4)}, "n_1", "r")
    assert row["scenario_type"] == "agentic-coding" and row["isl"] is None and row["osl"] is None
    assert row["kv_offloading"] == "dram" and row["kv_offload_backend"] == {"name": "hicache"}
    assert row["num_gpus"] == 2


def test_input_throughput_is_derived_when_absent_and_total_when_only_parts_exist():
    raw = bench_serving(64)
    del raw["input_throughput"]
    (row,) = normalise.benchmark_rows(SINGLE, {"b.json": raw}, "n", "r")
    assert row["input_tput_per_gpu"] == pytest.approx((raw["total_token_throughput"] - raw["output_throughput"]) / 8)
    raw = bench_serving(64)
    del raw["total_token_throughput"]
    (row,) = normalise.benchmark_rows(SINGLE, {"b.json": raw}, "n", "r")
    assert row["tput_per_gpu"] == pytest.approx((raw["input_throughput"] + raw["output_throughput"]) / 8)


@pytest.mark.parametrize(("runs", "message"), [
    ({}, r"no benchmark result for concurrency \[8, 16\]"),
    ({"benchmark_conc8.json": bench_serving(8)}, r"concurrency \[16\]"),
    ({"a.json": bench_serving(8), "b.json": bench_serving(8), "c.json": bench_serving(16)}, "a second result"),
    ({"a.json": bench_serving(32)}, "32 is not one the row planned"),
    ({"a.json": bench_serving(8) | {"output_throughput": "fast"}, "b.json": bench_serving(16)}, "non-negative"),
    ({"a.json": {k: v for k, v in bench_serving(8).items() if "e2el" not in k},
      "b.json": bench_serving(16)}, "median_e2el_ms"),
    ({"a.json": [1, 2]}, "not a JSON object"),
])
def test_bad_raw_results_are_refused(runs, message):
    with pytest.raises(normalise.ResultError, match=message):
        normalise.benchmark_rows(MULTI, runs, "n", "r")


def test_row_problem_names_the_field():
    assert "a benchmark row must be a JSON object" in normalise.row_problem([1], normalise.BENCHMARK)
    assert "missing required field 'identity'" in normalise.row_problem({}, normalise.BENCHMARK)
    (row,) = normalise.benchmark_rows(SINGLE, {"b.json": bench_serving(64)}, "n", "r")
    assert normalise.row_problem(row | {"tput_per_gpu": -1}, normalise.BENCHMARK).startswith("tput_per_gpu:")
    unknown = normalise.row_problem(row | {"speed": 1}, normalise.BENCHMARK)
    assert "unknown field" in unknown and "'speed'" in unknown


def _eval_files(row: dict, *results: tuple[str, dict]) -> dict[str, bytes]:
    files = {normalise.META_FILE: json.dumps(normalise.eval_meta(row, "mi355x-amds_01")).encode()}
    files.update({name: json.dumps(data).encode() for name, data in results})
    return files


def test_eval_rows_carry_task_metric_score_samples_and_infrastructure():
    row = SINGLE | {"eval-only": True, "run-eval": True}
    job = normalise.eval_job("eval_x", _eval_files(row, ("gsm8k/results_1.json", lm_eval(score=0.93))))
    (out,) = job.rows
    assert (out["task"], out["score_name"], out["score"], out["n_eff"]) == ("gsm8k", "em_strict", 0.93, 1319)
    assert out["infrastructure_success"] is True and out["integration_error"] is None
    assert (out["model_prefix"], out["hw"], out["conc"], out["job_name"]) == ("dsr1", "MI355X", 64, job_name(row))
    assert out["source"] == "eval_x/gsm8k/results_1.json"
    assert normalise.row_problem(out, normalise.EVAL) is None


def test_eval_integration_errors_become_typed_and_rows_stay_rows():
    row = SINGLE | {"eval-only": True}
    job = normalise.eval_job("eval_x", _eval_files(row, ("results_a.json", lm_eval(error="server died"))))
    (out,) = job.rows
    assert out["integration_error"] == {"type": "IntegrationError", "message": "server died"}
    assert out["infrastructure_success"] is False and normalise.row_problem(out, normalise.EVAL) is None
    bad = lm_eval()
    bad["results"]["gsm8k"]["exact_match,strict-match"] = "n/a"
    (out,) = normalise.eval_job("eval_x", _eval_files(row, ("results_b.json", bad))).rows
    assert out["score_name"] == "em_strict" and out["infrastructure_success"] is False


def test_multi_node_all_concs_meta_is_a_batch():
    row = MULTI | {"eval-only": True, "eval-all-concs": True}
    meta = normalise.eval_meta(row, "n")
    assert meta["eval_concs"] == [8, 16] and meta["dp_attention"] == "prefill=true,decode=false"
    job = normalise.eval_job("eval_m", _eval_files(row, ("results_conc8.json", lm_eval()),
                                                   ("results_conc16.json", lm_eval())))
    assert job.batched and job.file_concs == {8, 16} and sorted(r["conc"] for r in job.rows) == [8, 16]


@pytest.mark.parametrize(("files", "message"), [
    ({}, "no valid meta_env.json"),
    ({"meta_env.json": b"[]"}, "no valid meta_env.json"),
    ({"meta_env.json": b"{}"}, "holds no eval result"),
    ({"meta_env.json": b"{}", "results.json": b"{"}, "is not a JSON object of lm-eval results"),
])
def test_unusable_eval_files(files, message):
    assert message in normalise.eval_job("eval_x", files)


# --- multi-node throughput denominators (issue 22 points 1 and 2) ----------------------------

def test_multi_node_throughput_per_role_gpus_as_the_reference():
    """Output throughput per decode GPU, input per prefill GPU, total per every GPU."""
    raw = bench_serving(8, gpus=24)
    rows = normalise.benchmark_rows(MULTI, {"benchmark_conc8.json": raw, "benchmark_conc16.json":
                                            bench_serving(16, gpus=24)}, "n_1", "r")
    assert rows[0]["tput_per_gpu"] == pytest.approx(raw["total_token_throughput"] / 24)
    assert rows[0]["output_tput_per_gpu"] == pytest.approx(raw["output_throughput"] / 16)
    assert rows[0]["input_tput_per_gpu"] == pytest.approx(raw["input_throughput"] / 8)


def test_issue_22_reproduction_figures():
    row = MULTI | {"conc": 8, "decode": MULTI["decode"] | {"num-worker": 1}}
    raw = bench_serving(8) | {"output_throughput": 12000.0, "input_throughput": 3000.48,
                              "total_token_throughput": 15000.48}
    (out,) = normalise.benchmark_rows(row, {"benchmark.json": raw}, "n_1", "r")
    assert out["output_tput_per_gpu"] == pytest.approx(1500.0)
    assert out["input_tput_per_gpu"] == pytest.approx(375.06)


def test_prefill_only_row_decode_workers_zero_is_written():
    row = MULTI | {"conc": 8, "decode": MULTI["decode"] | {"num-worker": 0}}
    raw = bench_serving(8)
    (out,) = normalise.benchmark_rows(row, {"benchmark.json": raw}, "n_1", "r")
    assert out["decode_num_workers"] == 0 and out["num_decode_gpu"] == 0 and out["num_gpus"] == 8
    # the decode side as the reference writes it: no tensor/expert parallelism, sizes 1
    assert (out["decode_tp"], out["decode_ep"], out["decode_pp"], out["decode_pcp_size"]) == (0, 0, 1, 1)
    # the prefill workers produced the output tokens too: divided by the row's GPUs, never by 0
    assert out["output_tput_per_gpu"] == pytest.approx(raw["output_throughput"] / 8)
    assert out["input_tput_per_gpu"] == pytest.approx(raw["input_throughput"] / 8)
    assert normalise.row_problem(out, normalise.BENCHMARK) is None
    assert normalise.row_problem(out | {"prefill_num_workers": 0}, normalise.BENCHMARK)
    assert normalise.row_problem(out | {"decode_num_workers": -1}, normalise.BENCHMARK)


# --- batched eval manifests (issue 22 point 1) ---------------------------------------------------

def _batch(meta: dict, *concs: int) -> normalise.EvalJob:
    row = MULTI | {"eval-only": True, "eval-all-concs": True}
    files = _eval_files(row, *((f"results_conc{c}.json", lm_eval()) for c in concs))
    files["meta_env.json"] = json.dumps(normalise.eval_meta(row, "n") | meta).encode()
    job = normalise.eval_job("eval_m", files)
    assert isinstance(job, normalise.EvalJob)
    return job


def test_batch_manifest_from_the_result_files():
    assert normalise.batch_manifest([8, 16, 32], frozenset({16, 8})) == {
        "eval_concs": [8, 16, 32], "completed_eval_concs": [8, 16], "failed_eval_concs": [32]}
    assert normalise.result_conc("gsm8k/results_2026_conc16.json") == 16
    assert normalise.result_conc("samples_conc16.json") is None and normalise.result_conc("results.json") is None


def test_collected_rows_keep_only_completed_concurrencies():
    job = _batch({"completed_eval_concs": [8], "failed_eval_concs": []}, 8, 16)
    assert [r["conc"] for r in normalise.collected_rows(job)] == [8]
    # the reference's default: a manifest without the completed list completes what it requested
    legacy = _batch({}, 8, 16)
    assert sorted(r["conc"] for r in normalise.collected_rows(legacy)) == [8, 16]


@pytest.mark.parametrize(("meta", "concs", "message"), [
    ({"completed_eval_concs": [8], "failed_eval_concs": [16]}, (8,), r"concurrencies \[16\] failed"),
    ({"completed_eval_concs": [8, 32], "failed_eval_concs": []}, (8,), r"\[32\] were not requested"),
    ({"completed_eval_concs": [8, 16], "failed_eval_concs": []}, (8,), r"\[16\] have no \*_conc<N>.json"),
    ({"completed_eval_concs": "8", "failed_eval_concs": []}, (8,), "completed_eval_concs is not a list"),
    ({"completed_eval_concs": [8], "failed_eval_concs": [True]}, (8,), "failed_eval_concs is not a list"),
])
def test_collected_rows_refuse_a_failed_or_inconsistent_batch(meta, concs, message):
    problem = normalise.collected_rows(_batch(meta, *concs))
    assert isinstance(problem, str)
    assert re.search(message, problem), problem
