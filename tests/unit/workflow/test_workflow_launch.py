"""infx.workflow.launch: row fields as environment variables for the runner's launch script."""

from __future__ import annotations

import json
import os

import pytest

from infx.errors import InfxError
from infx.plan.identity import digest, job_name
from infx.workflow.launch import (
    artifact_prefix,
    check_job_name,
    launch_script,
    node_counts,
    result_name,
    row_env,
    run_launch,
)

SINGLE = {"exp-name": "dsr1_1k1k", "image": "rocm/sgl:v1", "model": "deepseek-ai/DeepSeek-R1",
          "model-prefix": "dsr1", "framework": "sglang", "precision": "fp8", "runner": "mi355x",
          "tp": 8, "ep": 1, "dp-attn": False, "conc": 4, "isl": 1024, "osl": 1024,
          "spec-decoding": "none", "run-eval": True, "recipe-fingerprint": "abcdef0123456789ffff"}
MULTI = {"exp-name": "dsr1_mn", "runner": "mi355x-disagg", "conc": [8, 16],
         "prefill": {"tp": 4, "num-worker": 2, "additional-settings": ["A=1", "B=2"]},
         "decode": {"tp": 8, "dp-attn": True}, "kv-offload-backend": {"name": "lmcache"}}


def test_single_node_env():
    env = row_env(SINGLE)
    assert env["EXP_NAME"] == "dsr1_1k1k" and env["TP"] == "8" and env["DP_ATTN"] == "false"
    assert env["RUN_EVAL"] == "true" and env["ISL"] == "1024" and env["RUNNER"] == "mi355x"
    assert json.loads(env["CONFIG_JSON"]) == SINGLE


def test_nested_and_list_fields():
    env = row_env(MULTI)
    assert env["CONC"] == "8 16" and env["PREFILL_TP"] == "4" and env["DECODE_DP_ATTN"] == "true"
    assert env["PREFILL_ADDITIONAL_SETTINGS"] == "A=1 B=2"
    assert env["KV_OFFLOAD_BACKEND_NAME"] == "lmcache"
    assert env["ISL"] == "0" and env["OSL"] == "0"


def test_the_launch_exports_what_the_references_templates_and_launchers_do():
    # scripts written for the reference read these (infx.plan.launch_graph.exported_variables,
    # the same definition the launch graph and the sign-off's shell reading use)
    single = row_env(SINGLE)
    assert (single["IS_AGENTIC"], single["SCENARIO_SUBDIR"], single["IS_MULTINODE"]) == ("0", "fixed_seq_len/", "false")
    assert "MODEL_NAME" not in single  # the reference's launcher sets it for multi-node rows only
    multi = row_env(MULTI | {"model": "deepseek-ai/DeepSeek-V4-Pro", "scenario-type": "agentic-coding",
                             "decode": {"tp": 8, "additional-settings": ["DECODE_MTP_SIZE=3", "B='x y'"]}})
    assert (multi["IS_AGENTIC"], multi["IS_MULTINODE"], multi["MODEL_NAME"]) == ("1", "true", "DeepSeek-V4-Pro")
    # NAME=value additional-settings are exported after the fields, the decode side's last
    assert (multi["A"], multi["B"], multi["DECODE_MTP_SIZE"]) == ("1", "x y", "3")


@pytest.mark.parametrize("setting", ["PATH=/evil", "HF_TOKEN=x", "INFX_TIMEOUT=1", "RESULT_NAME=x", "X=a\0b",
                                     # a setting never replaces what the row or the launch sets (the
                                     # launcher picks the script and the image from them)
                                     "EXP_NAME=x", "IS_AGENTIC=0", "IS_MULTINODE=false", "PREFILL_TP=1",
                                     # nor where the job connects, what it trusts, or its node's place
                                     "HTTPS_PROXY=http://x", "REQUESTS_CA_BUNDLE=/x", "GIT_SSH_COMMAND=x",
                                     "MODAL_TOKEN_ID=x", "SBATCH_ACCOUNT=x", "RANK=0", "NODE_OPTIONS=x"])
def test_a_setting_cannot_set_a_protected_variable(setting):
    with pytest.raises(InfxError):
        row_env(MULTI | {"decode": {"tp": 8, "additional-settings": [setting]}})


@pytest.mark.parametrize("row", [{"path": "/evil"}, {"github-token": "x"}, {"runner-name": "x"},
                                 {"hf-token": "x"}, {"hf": {"token": "x"}}, {"infx-timeout-minutes": 1},
                                 {"result-name": "x"}, {"results-dir": "/"},
                                 {"bad key!": 1}, {"x": "a\0b"}, [1, 2]])
def test_rejected_rows(row):
    with pytest.raises(InfxError):
        row_env(row)


def test_result_and_artifact_names():
    name = result_name(SINGLE, "mi355x-amds_03")
    assert name == f"dsr1_fp8_mi355x_sglang_1k1k_TP8_c4_{digest(SINGLE)}_mi355x-amds_03"
    assert result_name(MULTI, "n_1").startswith("-_-_mi355x-disagg_-_-_P2xTP4_D-xTP8-DPA_c8x16_")
    assert result_name({"model-prefix": "a/b c", "conc": 1}, "r:1").startswith("a-b-c_")
    assert result_name(SINGLE, "r:1").endswith("_r-1")
    # one name per row: rows differing only in a field the old name left out get two names
    assert result_name(SINGLE | {"ep": 8}, "n") != result_name(SINGLE, "n")
    assert result_name(SINGLE | {"dp-attn": True}, "n") != result_name(SINGLE, "n")
    assert artifact_prefix(SINGLE) == "bmk_"
    assert artifact_prefix({"eval-only": True}) == "eval_"
    assert artifact_prefix({"scenario-type": "agentic-coding"}) == "bmk_agentic_"


def test_launch_runs_the_prefix_script_with_the_row(tmp_path):
    runners = tmp_path / "runners"
    runners.mkdir()
    (runners / "launch_mi355x-amds.sh").write_text('echo "$TP $CONC $RESULT_NAME" > out.txt\n')
    code = run_launch(SINGLE, "mi355x-amds_03", tmp_path, {"PATH": os.environ["PATH"]})
    assert code == 0
    assert (tmp_path / "out.txt").read_text().startswith("8 4 dsr1_fp8_mi355x_sglang_1k1k_TP8_c4_")


def test_launch_script_errors(tmp_path):
    with pytest.raises(InfxError, match="no launch script"):
        launch_script("mi355x_01", tmp_path)
    with pytest.raises(InfxError, match="no usable prefix"):
        launch_script("../x_01", tmp_path)


def test_a_row_must_carry_its_own_job_name():
    check_job_name(SINGLE)  # rows from before the shard step carry none
    check_job_name(SINGLE | {"job-name": job_name(SINGLE)})
    with pytest.raises(InfxError, match="is not its identity"):
        check_job_name(SINGLE | {"job-name": job_name(SINGLE | {"conc": 8})})


def _side(workers: int, tp: int, *settings: str, **extra) -> dict:
    return {"num-worker": workers, "tp": tp, "pp": 1, "pcp-size": 1, "additional-settings": list(settings)} | extra


def test_node_counts_of_multi_node_rows():
    assert node_counts({"tp": 8, "conc": 4}) is None
    # PREFILL_NODES= / DECODE_NODES= of the search-space entry decide
    row = {"prefill": _side(2, 8, "PREFILL_NODES=2"), "decode": _side(1, 8, "DECODE_NODES=1")}
    assert node_counts(row) == (2, 1)
    # else the workers' GPUs over whole nodes (JSON numbers as GitHub writes them)
    assert node_counts({"prefill": _side(3, 4.0), "decode": _side(1, 16)}) == (2, 2)
    assert node_counts({"prefill": _side(1, 8, pp=2), "decode": _side(1, 8)}, gpus_per_node=16) == (1, 1)
    # an aggregated multi-node row has no decode workers
    assert node_counts({"prefill": _side(2, 8), "decode": _side(0, 8)}) == (2, 0)
    assert node_counts(row | {"node-count": 3}) == (2, 1)


@pytest.mark.parametrize("row, message", [
    ({"prefill": _side(2, 8, "PREFILL_NODES=two"), "decode": _side(1, 8)}, "is not a node count"),
    ({"prefill": _side(2, "8"), "decode": _side(1, 8)}, "prefill.tp of the row is not a whole number"),
    ({"prefill": _side(2, 8), "decode": _side(1, 8), "node-count": 5}, "but says node-count 5"),
    ({"prefill": _side(0, 8), "decode": _side(0, 8)}, "needs 0 prefill and 0 decode"),
    ({"decode": _side(1, 8)}, "has no prefill block"),
])
def test_node_counts_refuse_rows_they_cannot_place(row, message):
    with pytest.raises(InfxError, match=message):
        node_counts(row)


def test_multi_node_rows_get_their_node_counts(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "launch_node.sh").write_text(
        'echo "$INFX_NODES $INFX_PREFILL_NODES $INFX_DECODE_NODES" > "$INFX_RAW_DIR/nodes"\n')
    row = {"model": "m", "prefill": _side(1, 8), "decode": _side(2, 8)}
    assert run_launch(row, "node_01", tmp_path, {"PATH": os.environ["PATH"]}) == 0
    assert (tmp_path / "results-raw" / "nodes").read_text() == "3 1 2\n"
    with pytest.raises(InfxError, match="INFX_GPUS_PER_NODE='x'"):
        run_launch(row, "node_01", tmp_path, {"PATH": os.environ["PATH"], "INFX_GPUS_PER_NODE": "x"})


PREFILL_ONLY = """dsr1-fp4-mi355x-sglang-disagg:
  image: lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260519
  model: amd/DeepSeek-R1-0528-MXFP4-v2
  model-prefix: dsr1
  runner: mi355x-disagg
  precision: fp4
  framework: sglang-disagg
  kv-p2p-transfer: mori
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - spec-decoding: "none"
        conc-list: [ 64 ]
        prefill: { num-worker: 2, tp: 8, ep: 1, dp-attn: false, additional-settings: ["PREFILL_NODES=2"] }
        decode: { num-worker: 0, tp: 8, ep: 1, dp-attn: false, additional-settings: ["DECODE_NODES=0"] }
"""


def test_a_prefill_only_row_decode_workers_zero_finishes_with_a_row(tmp_path):
    """The planner's own row of a decode `num-worker: 0` layout: honest results are written."""
    from pathlib import Path

    from lib.fake_results import write_raw

    from infx.config.master import load_master_configs_from_texts
    from infx.config.runners import load_runners
    from infx.plan.generate import generate_full_sweep
    from infx.results import normalise
    from infx.workflow.launch import finish, raw_dir

    configs = load_master_configs_from_texts([("configs/amd-master.yaml", PREFILL_ONLY)])
    runners = load_runners(Path(__file__).parents[2] / "data" / "upstream" / "runners.yaml")
    (row,) = [r for r in generate_full_sweep(configs, runners, evals="none") if not r.get("eval-only")]
    assert row["decode"]["num-worker"] == 0 and node_counts(row) == (2, 0)
    results = tmp_path / "results"
    write_raw(raw_dir(results), row)
    results.mkdir()
    (path,) = finish(row, "mi355x-amds_06", results)
    (written,) = json.loads(path.read_text())
    assert written["decode_num_workers"] == 0 and written["num_decode_gpu"] == 0
    assert written["num_prefill_gpu"] == 16 and normalise.row_problem(written, normalise.BENCHMARK) is None
