"""Tests for infx.plan.generate: the in-process API and acceptance scenarios A1–A10."""

from __future__ import annotations

from pathlib import Path

import pytest

from infx.config.master import load_master_configs_from_texts
from infx.config.runners import load_runners
from infx.errors import InfxError
from infx.plan.generate import (
    eval_mode_for_flags,
    generate_full_sweep,
    generate_test_config,
    resolve_config_keys,
    select_matrix_evals,
)

RUNNERS = load_runners(Path(__file__).parents[2] / "data" / "upstream" / "runners.yaml")

A1 = """\
dsr1-fp4-mi355x-sglang:
  image: lmsysorg/sglang:v0.5.12-rocm700-mi35x
  model: amd/DeepSeek-R1-0528-MXFP4-Preview
  model-prefix: dsr1
  runner: mi355x
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 4, conc-start: 4, conc-end: 64 }
      - { tp: 8, conc-start: 4, conc-end: 64 }
"""
A2 = """\
qwen3.5-fp8-mi355x-atom-mtp:
  {image: "rocm/atom:rocm7.2.2_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.2.post", model: Qwen/Qwen3.5-397B-A17B-FP8,
   model-prefix: qwen3.5, runner: mi355x, precision: fp8, framework: atom, multinode: false,
   scenarios: {fixed-seq-len: [{isl: 8192, osl: 1024, search-space: [
     { tp: 8, ep: 1, conc-start: 3, conc-end: 40, spec-decoding: mtp }]}]}}
"""
A3 = """\
dsv4-fp4-mi355x-atom:
  {image: "rocm/atom-dev:nightly_202607231538", model: deepseek-ai/DeepSeek-V4-Pro, model-prefix: dsv4,
   runner: mi355x, precision: fp4, framework: atom, multinode: false,
   scenarios: {fixed-seq-len: [{isl: 8192, osl: 1024, search-space: [
     { tp: 4, ep: 1, dp-attn: false, conc-start: 1, conc-end: 64 },
     { tp: 8, ep: 1, dp-attn: true, conc-start: 64, conc-end: 2048 }]}]}}
"""
A4 = """\
dsr1-fp4-mi355x-sglang-disagg:
  image: lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260519
  model: amd/DeepSeek-R1-0528-MXFP4-v2
  model-prefix: dsr1
  runner: mi355x-disagg
  precision: fp4
  framework: sglang-disagg
  router: { name: sglang-router, version: "0.3.2" }
  kv-p2p-transfer: mori
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - spec-decoding: "none"
        conc-list: [ 64, 4, 16 ]
        prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false, additional-settings: ["PREFILL_NODES=1"] }
        decode:  { num-worker: 2, tp: 8, ep: 1, dp-attn: false, additional-settings: ["DECODE_NODES=2", "DECODE_MTP_SIZE=0"] }
"""
A5_SECOND = """\
      - spec-decoding: "none"
        conc-list: [ 64, 128, 256 ]
        prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false, additional-settings: ["PREFILL_NODES=1"] }
        decode:  { num-worker: 2, tp: 8, ep: 1, dp-attn: false, additional-settings: ["DECODE_NODES=2", "DECODE_MTP_SIZE=0"] }
"""
A5 = A4.replace("[ 64, 4, 16 ]", "[ 2, 4, 8, 16, 32 ]") + A5_SECOND
A6 = """\
glm5.2-fp4-mi355x-sglang-agentic-mtp:
  image: lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260728
  model: amd/GLM-5.2-MXFP4
  model-prefix: glm5.2
  runner: cluster:mi355x-amds
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.8
      search-space:
      - { tp: 8, ep: 8, kv-offloading: none, conc-list: [1, 4], spec-decoding: mtp }
      - { tp: 4, ep: 4, kv-offloading: dram, kv-offload-backend: { name: hicache }, conc-list: [8, 16], spec-decoding: mtp }
"""
A8 = """\
dsv4-fp4-mi355x-sglang-disagg-agentic-hicache-mtp:
  image: lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260817
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: cluster:mi355x-amds
  precision: fp4
  framework: sglang-disagg
  kv-p2p-transfer: mori
  multinode: true
  disagg: true
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - spec-decoding: "mtp"
        conc-list: [ 8, 16, 32 ]
        kv-offloading: dram
        kv-offload-backend: { name: hicache }
        prefill: { num-worker: 1, tp: 8, ep: 8, dp-attn: true, additional-settings: ["PREFILL_NODES=1"] }
        decode:  { num-worker: 1, tp: 8, ep: 8, dp-attn: true, additional-settings: ["DECODE_NODES=1", "DECODE_MTP_SIZE=3"] }
"""
A10 = """\
kimik3-fp4-mi355x-vllm-agentic-mtp:
  {image: "vllm/vllm-openai-rocm:nightly-cb8104839c141609d99f1254459ef3a4f1bd4263", model: moonshotai/Kimi-K3,
   model-prefix: kimik3, runner: "cluster:mi355x-amds", precision: fp4, framework: vllm, multinode: false,
   scenarios: {agentic-coding: [{dram-utilization: 0.50, search-space: [
     { tp: 8, kv-offloading: none, conc-list: [1, 4, 8], spec-decoding: mtp },
     { tp: 8, ep: 1, kv-offloading: dram, kv-offload-backend: { name: vllm-simple }, conc-list: [10], spec-decoding: mtp }]}]}}
"""


def configs_of(*texts: str):
    return load_master_configs_from_texts([(f"m{i}.yaml", t) for i, t in enumerate(texts)])


def test_config(text: str, **opts) -> list[dict]:
    configs = configs_of(text)
    return generate_test_config(configs, RUNNERS, list(configs), **opts)


test_config.__test__ = False  # a helper, not a test


def full_sweep(text: str, **opts) -> list[dict]:
    return generate_full_sweep(configs_of(text), RUNNERS, **opts)


def concs(rows):
    return [row["conc"] for row in rows]


def load_error(text: str) -> str:
    with pytest.raises(InfxError) as caught:
        configs_of(text)
    return str(caught.value)


# --- A1 ---------------------------------------------------------------------------------

def test_a1_rows_and_fields():
    rows = test_config(A1, evals="none")
    assert [(r["tp"], r["conc"]) for r in rows] == [(4, c) for c in (4, 8, 16, 32, 64)] + [
        (8, c) for c in (4, 8, 16, 32, 64)]
    first = rows[0]
    assert list(first) == ["image", "model", "model-prefix", "precision", "framework", "runner",
                           "isl", "osl", "tp", "pp", "dcp-size", "pcp-size", "conc",
                           "max-model-len", "ep", "dp-attn", "spec-decoding", "exp-name",
                           "disagg", "run-eval"]
    assert {(r["ep"], r["dp-attn"], r["pp"], r["dcp-size"], r["pcp-size"], r["spec-decoding"],
             r["max-model-len"], r["exp-name"], r["disagg"], r["run-eval"], r["runner"])
            for r in rows} == {(1, False, 1, 1, 1, "none", 9472, "dsr1_8k1k", False, False,
                                "mi355x")}


def test_a1_eval_modes():
    marked = [(r["tp"], r["conc"]) for r in test_config(A1) if r["run-eval"]]
    assert marked == [(4, 32), (4, 64), (8, 32), (8, 64)]
    only = test_config(A1, evals="subset")
    assert [(r["tp"], r["conc"]) for r in only] == marked
    assert all(r["eval-only"] is True and r["run-eval"] is True for r in only)
    assert len(test_config(A1, evals="all")) == 10


def test_a1_runner_node_filter_and_max_tp():
    rows = test_config(A1, evals="none", runner_node_filter="amds_07")
    assert len(rows) == 10 and {r["runner"] for r in rows} == {"mi355x-amds_07"}
    assert len(full_sweep(A1, max_tp=4)) == 5


# --- A2 ---------------------------------------------------------------------------------

def test_a2_non_power_of_two_range_and_mtp():
    rows = test_config(A2)
    assert concs(rows) == [3, 6, 12, 24, 40]
    assert {r["spec-decoding"] for r in rows} == {"mtp"}
    assert [r["conc"] for r in rows if r["run-eval"]] == [40]


def test_a2_full_sweep_filters():
    assert concs(full_sweep(A2, min_conc=5, max_conc=30)) == [5, 10, 20, 30]
    assert concs(full_sweep(A2, step_size=4)) == [3, 12, 40]
    assert concs(test_config(A2, conc=[6, 7])) == [6]
    assert test_config(A2, conc=[7]) == []


# --- A3 ---------------------------------------------------------------------------------

def test_a3_dp_attn_splits_eval_groups():
    rows = test_config(A3)
    assert concs(rows) == [1, 2, 4, 8, 16, 32, 64, 64, 128, 256, 512, 1024, 2048]
    assert [(r["tp"], r["conc"]) for r in rows if r["run-eval"]] == [
        (4, 32), (4, 64), (8, 512), (8, 2048)]


# --- A4 / A5 ----------------------------------------------------------------------------

def test_a4_multinode_disagg_row():
    [row] = test_config(A4, evals="none")
    assert row["conc"] == [64, 4, 16]
    assert row["prefill"] == {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False,
                              "additional-settings": ["PREFILL_NODES=1"], "pp": 1,
                              "dcp-size": 1, "pcp-size": 1}
    assert row["decode"]["num-worker"] == 2 and row["decode"]["pp"] == 1
    assert row["router"] == {"name": "sglang-router", "version": "0.3.2"}
    assert (row["kv-p2p-transfer"], row["max-model-len"], row["exp-name"], row["disagg"]) == (
        "mori", 9472, "dsr1_8k1k", True)
    assert list(row) == ["image", "model", "model-prefix", "precision", "framework", "runner",
                         "isl", "osl", "spec-decoding", "prefill", "decode", "conc",
                         "max-model-len", "exp-name", "disagg", "run-eval", "router",
                         "kv-p2p-transfer"]


def test_a4_eval_modes():
    [row] = test_config(A4)
    assert row["run-eval"] is True and row["eval-conc"] == 64
    [row] = test_config(A4, evals="all")
    assert row["conc"] == [4, 16, 64] and row["eval-all-concs"] is True
    assert "eval-conc" not in row and row["eval-only"] is True


def test_a5_split_conc_lists_share_one_eval():
    rows = test_config(A5)
    assert [(r["conc"], r["run-eval"], r.get("eval-conc")) for r in rows] == [
        ([2, 4, 8, 16, 32], False, None), ([64, 128, 256], True, 256)]
    [merged] = test_config(A5, evals="all")
    assert merged["conc"] == [2, 4, 8, 16, 32, 64, 128, 256] and merged["eval-all-concs"]
    distinct = A5[: len(A5) - len(A5_SECOND)] + A5_SECOND.replace(
        "decode:  { num-worker: 2", "decode:  { num-worker: 1")
    assert [r["eval-conc"] for r in test_config(distinct) if r["run-eval"]] == [32, 256]


# --- A6 / A7 ----------------------------------------------------------------------------

def test_a6_single_node_agentic_rows():
    rows = test_config(A6, evals="none")
    assert [r["exp-name"] for r in rows] == [
        "glm5.2_tp8_conc1_kvnone_spec-mtp", "glm5.2_tp8_conc4_kvnone_spec-mtp",
        "glm5.2_tp4_conc8_kvdram-hicache_spec-mtp", "glm5.2_tp4_conc16_kvdram-hicache_spec-mtp"]
    assert [r["total-cpu-dram-gb"] for r in rows] == [0, 0, 1199, 1199]
    assert {(r["duration"], r["scenario-type"]) for r in rows} == {(3600, "agentic-coding")}
    assert not any(field in row for row in rows
                   for field in ("isl", "osl", "max-model-len", "disagg", "run-eval"))
    assert ["kv-offload-backend" in r for r in rows] == [False, False, True, True]
    assert list(rows[2]) == ["image", "model", "model-prefix", "precision", "framework",
                             "runner", "tp", "pp", "dcp-size", "pcp-size", "ep", "dp-attn",
                             "spec-decoding", "conc", "kv-offloading", "total-cpu-dram-gb",
                             "duration", "exp-name", "scenario-type", "kv-offload-backend"]


def test_a6_agentic_evals():
    assert [r["run-eval"] for r in test_config(A6)] == [False] * 4
    [only] = test_config(A6, evals="subset")
    assert (only["tp"], only["conc"], only["eval-only"]) == (4, 16, True)
    assert len(test_config(A6, evals="all")) == 4


@pytest.mark.parametrize("change, needle", [
    (lambda t: t.replace("runner: cluster:mi355x-amds", "runner: mi355x"),
     "Agentic master configs must use a 'cluster:<name>' runner"),
    (lambda t: t.replace("- dram-utilization: 0.8\n      search-space:", "- search-space:"),
     "dram-utilization"),
    (lambda t: t.replace("{ tp: 8, ep: 8, kv-offloading: none,", "{ tp: 8, ep: 8,"),
     "must specify kv-offloading"),
    (lambda t: t.replace("kv-offloading: none,", "kv-offloading: none, kv-offload-backend: {name: x},"),
     "kv-offload-backend can only be set"),
])
def test_a7_agentic_errors(change, needle):
    assert needle in load_error(change(A6))


# --- A8 ---------------------------------------------------------------------------------

def test_a8_multinode_agentic_rows():
    rows = test_config(A8, evals="none")
    assert concs(rows) == [[8], [16], [32]]
    assert [r["exp-name"] for r in rows] == [
        f"dsv4_p1x8ep8dpa_d1x8ep8dpa_conc{c}_kvdram-hicache" for c in (8, 16, 32)]
    assert {(r["total-cpu-dram-gb"], r["duration"], r["disagg"], r["kv-p2p-transfer"])
            for r in rows} == {(2399, 3600, True, "mori")}
    assert list(rows[0]) == ["image", "model", "model-prefix", "precision", "framework",
                             "runner", "spec-decoding", "prefill", "decode", "conc",
                             "kv-offloading", "total-cpu-dram-gb", "duration", "exp-name",
                             "disagg", "scenario-type", "kv-offload-backend", "kv-p2p-transfer"]


def test_a8_evals():
    [only] = test_config(A8, evals="subset")
    assert (only["conc"], only["eval-conc"], only["eval-only"]) == ([32], 32, True)
    [merged] = test_config(A8, evals="all")
    assert (merged["conc"], merged["eval-conc"]) == ([8, 16, 32], 32)
    assert "eval-all-concs" not in merged


def test_a8_errors():
    bad_tp = A8.replace("prefill: { num-worker: 1, tp: 8", "prefill: { num-worker: 1, tp: 6")
    with pytest.raises(InfxError, match="does not divide"):
        test_config(bad_tp)
    assert "disagg=true requires kv-p2p-transfer" in load_error(
        A8.replace("  kv-p2p-transfer: mori\n", ""))


# --- A9 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("entry, needle", [
    ("{ tp: 8, conc-start: 4, conc-end: 64, conc-list: [4] }", "Cannot specify both"),
    ("{ tp: 8 }", "Must specify either"),
    ("{ tp: 8, conc-start: 64, conc-end: 4 }", "must be <="),
    ("{ tp: 8, dcp-size: 3, conc-list: [4] }", "must be divisible"),
    ("{ tp: 8, pp: 0, conc-list: [4] }", "greater than 0"),
    ("{ tp: 8, spec-decoding: eagle, conc-list: [4] }", "'spec-decoding' must be one of"),
    ("{ tp: 8, max-num-seqs: 8, conc-list: [4] }", "unknown field 'max-num-seqs'"),
])
def test_a9_search_space_rejections(entry, needle):
    text = A1.replace("{ tp: 8, conc-start: 4, conc-end: 64 }", entry)
    assert needle in load_error(text)


def test_a9_master_rejections():
    assert "'disagg' must be false" in load_error(A1.replace("multinode: false",
                                                             "multinode: false\n  disagg: true"))
    both = A4.replace('spec-decoding: "none"',
                      'spec-decoding: "none"\n        router: { name: r, version: "1" }')
    assert "must be declared either at the top level" in load_error(both)
    one_hw = A4.replace("prefill: { num-worker: 1,", "prefill: { hardware: mi355x, num-worker: 1,")
    assert "both 'prefill' and 'decode'" in load_error(one_hw)
    assert "Wildcard '*' is not allowed" in load_error(
        A1.replace("dsr1-fp4-mi355x-sglang:", "dsr1-*-mi355x:"))


# --- A10 --------------------------------------------------------------------------------

def test_a10_agentic_topology_vs_node_size():
    rows = test_config(A10, evals="none")
    assert concs(rows) == [1, 4, 8, 10]
    assert [r["total-cpu-dram-gb"] for r in rows] == [0, 0, 0, 1499]
    assert rows[3]["exp-name"] == "kimik3_tp8_conc10_kvdram-vllm-simple_spec-mtp"
    assert concs(test_config(A10, evals="subset")) == [10]


def test_a10_dram_entry_must_fit_one_node_even_when_filtered_out():
    too_big = A10.replace("{ tp: 8, ep: 1, kv-offloading: dram", "{ tp: 8, pp: 2, ep: 1, kv-offloading: dram")
    with pytest.raises(InfxError, match="exceeds gpus-per-node=8"):
        test_config(too_big, conc=[1])
    fine = A10.replace("{ tp: 8, kv-offloading: none", "{ tp: 8, pp: 2, kv-offloading: none")
    assert len(test_config(fine)) == 4


# --- API --------------------------------------------------------------------------------

def test_resolve_config_keys_globs_dedupe_and_errors():
    configs = configs_of(A1 + A2 + A3)
    assert resolve_config_keys(["*-atom", "dsr1*", "dsv4-fp4-mi355x-atom"], configs) == [
        "dsv4-fp4-mi355x-atom", "dsr1-fp4-mi355x-sglang"]
    assert resolve_config_keys(["?sr1-fp4-mi355x-sglang"], configs) == ["dsr1-fp4-mi355x-sglang"]
    with pytest.raises(InfxError, match="matched no config keys"):
        resolve_config_keys(["zeta-*"], configs)
    with pytest.raises(InfxError, match="not found"):
        resolve_config_keys(["zeta"], configs)


def test_select_matrix_evals_equals_generating_with_a_mode():
    configs = configs_of(A1 + A4 + A6)
    keys = list(configs)
    for mode in ("default", "subset", "all"):
        plain = generate_test_config(configs, RUNNERS, keys, evals="none")
        assert select_matrix_evals(plain, mode) == generate_test_config(
            configs, RUNNERS, keys, evals=mode)


def test_rows_are_independent_objects():
    configs = configs_of(A4)
    first = generate_test_config(configs, RUNNERS, list(configs))
    first[0]["prefill"]["tp"] = 99
    first[0]["router"]["name"] = "changed"
    again = generate_test_config(configs, RUNNERS, list(configs))
    assert again[0]["prefill"]["tp"] == 8 and again[0]["router"]["name"] == "sglang-router"


def test_eval_mode_for_flags():
    assert eval_mode_for_flags() == "default"
    assert eval_mode_for_flags(no_evals=True) == "none"
    assert eval_mode_for_flags(evals_only=True) == "subset"
    assert eval_mode_for_flags(all_evals=True) == "all"
    assert eval_mode_for_flags(evals_only=True, all_evals=True) == "all"
    with pytest.raises(ValueError):
        eval_mode_for_flags(no_evals=True, all_evals=True)


def test_unknown_eval_mode_is_rejected():
    with pytest.raises(ValueError, match="unknown eval mode"):
        test_config(A1, evals="smoke")


def test_scenario_type_filter():
    fixed = ("    fixed-seq-len:\n"
             "    - {isl: 8192, osl: 1024, search-space: [{tp: 8, conc-list: [16]}]}\n")
    text = A6.replace("    agentic-coding:\n", fixed + "    agentic-coding:\n")
    assert len(test_config(text, evals="none")) == 5
    assert len(test_config(text, evals="none", scenario_type=["agentic-coding"])) == 4
    assert len(test_config(text, evals="none", scenario_type=["fixed-seq-len"])) == 1


def test_empty_conc_list_beside_a_range_matches_the_reference():
    # Pinned against the rebuilt reference generator: full-sweep ignores an empty
    # conc-list and expands the range, test-config takes the (empty) list as written:
    # no single-node rows, and a multi-node row with an empty conc list.
    single = A1.replace("{ tp: 8, conc-start: 4, conc-end: 64 }",
                        "{ tp: 8, conc-list: [], conc-start: 4, conc-end: 64 }")
    assert [r["tp"] for r in full_sweep(single, evals="none")] == [4] * 5 + [8] * 5
    assert [r["tp"] for r in test_config(single, evals="none")] == [4] * 5
    multi = A4.replace("conc-list: [ 64, 4, 16 ]", "conc-list: []\n        conc-start: 16\n"
                       "        conc-end: 64")
    assert "conc-end: 64" in multi
    assert [r["conc"] for r in full_sweep(multi, evals="none")] == [[16, 32, 64]]
    assert [r["conc"] for r in test_config(multi, evals="none")] == [[]]
