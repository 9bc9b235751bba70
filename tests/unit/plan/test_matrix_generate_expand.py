"""Tests for infx.plan.expand (through the generator API): rows, filters, derived fields."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.config.master import load_master_configs_from_texts
from infx.config.runners import load_runners, load_runners_from_text
from infx.config.scenarios import seq_name
from infx.errors import InfxError
from infx.plan.expand import conc_range, dram_offload_gb
from infx.plan.generate import generate_full_sweep, generate_test_config

RUNNERS = load_runners(Path(__file__).parents[2] / "data" / "upstream" / "runners.yaml")
WORKER = {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False}


def single(*items, blocks=((8192, 1024),), runner="mi355x", **extra) -> dict:
    return {"image": "img", "model": "m", "model-prefix": "dsr1", "runner": runner,
            "precision": "fp4", "framework": "sglang", "multinode": False, **extra,
            "scenarios": {"fixed-seq-len": [
                {"isl": isl, "osl": osl, "search-space": [dict(i) for i in items]}
                for isl, osl in blocks]}}


def multi(*items, runner="mi355x-disagg") -> dict:
    return {"image": "img", "model": "m", "model-prefix": "dsr1", "runner": runner,
            "precision": "fp4", "framework": "sglang-disagg", "multinode": True,
            "disagg": True, "kv-p2p-transfer": "mori",
            "scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [
                {"prefill": dict(WORKER), "decode": dict(WORKER), **item} for item in items]}]}}


def agentic(*items, util=0.8, runner="cluster:mi355x-amds") -> dict:
    return {"image": "img", "model": "m", "model-prefix": "dsv4", "runner": runner,
            "precision": "fp4", "framework": "sglang", "multinode": False,
            "scenarios": {"agentic-coding": [{"dram-utilization": util,
                                              "search-space": [dict(i) for i in items]}]}}


def configs_of(**entries):
    return load_master_configs_from_texts([("m.yaml", yaml.safe_dump(entries, sort_keys=False))])


def full(entries: dict, runners=RUNNERS, **opts) -> list[dict]:
    return generate_full_sweep(configs_of(**entries), runners, evals="none", **opts)


def tc(entries: dict, runners=RUNNERS, **opts) -> list[dict]:
    configs = configs_of(**entries)
    return generate_test_config(configs, runners, list(configs), evals="none", **opts)


def concs(rows):
    return [row["conc"] for row in rows]


@pytest.mark.parametrize("isl, osl, name", [(1024, 1024, "1k1k"), (8192, 1024, "8k1k"),
                                            (2048, 2048, "2048_2048")])
def test_seq_names(isl, osl, name):
    assert seq_name(isl, osl) == name


@pytest.mark.parametrize("start, end, step, expected", [
    (4, 64, 2, [4, 8, 16, 32, 64]), (3, 10, 2, [3, 6, 10]), (3, 40, 2, [3, 6, 12, 24, 40]),
    (7, 7, 2, [7]), (4, 64, 4, [4, 16, 64]), (3, 10, 3, [3, 9, 10])])
def test_conc_range(start, end, step, expected):
    assert conc_range(start, end, step) == expected


def test_conc_range_1_to_2048_has_12_values():
    assert len(conc_range(1, 2048, 2)) == 12


def test_two_seq_blocks_and_seq_len_filter():
    entries = {"k": single({"tp": 8, "conc-start": 4, "conc-end": 64},
                           blocks=((1024, 1024), (8192, 1024)))}
    rows = full(entries)
    assert len(rows) == 10 and {r["max-model-len"] for r in rows} == {2304, 9472}
    only = full(entries, seq_lens=["1k1k"])
    assert len(only) == 5 and {r["exp-name"] for r in only} == {"dsr1_1k1k"}
    assert len(tc(entries, seq_lens=["8k1k"])) == 5


def test_explicit_parallelism_flows_through():
    rows = full({"k": single({"tp": 8, "pp": 2, "dcp-size": 2, "pcp-size": 2, "conc-list": [4]})})
    assert (rows[0]["pp"], rows[0]["dcp-size"], rows[0]["pcp-size"]) == (2, 2, 2)
    worker = {**WORKER, "pp": 2, "dcp-size": 2, "pcp-size": 2}
    [row] = full({"k": multi({"conc-list": [4], "prefill": worker, "decode": worker})})
    assert all((row[r]["pp"], row[r]["dcp-size"], row[r]["pcp-size"]) == (2, 2, 2)
               for r in ("prefill", "decode"))


@pytest.mark.parametrize("opts", [{"model_prefix": ["gpt"]}, {"precision": ["fp8"]},
                                  {"framework": ["vllm"]}, {"runner_type": ["b200"]}])
def test_key_filters_mismatch_yields_nothing(opts):
    assert full({"k": single({"tp": 8, "conc-list": [4]})}, **opts) == []


def test_model_prefix_matches_the_config_key():
    entries = {"dsr1-x": single({"tp": 8, "conc-list": [4]}),
               "other": single({"tp": 8, "conc-list": [4]})}
    assert len(full(entries, model_prefix=["dsr1"])) == 1


def test_unknown_runner_type_is_an_error():
    with pytest.raises(InfxError, match="Invalid runner type"):
        full({"k": single({"tp": 8, "conc-list": [4]})}, runner_type=["nope"])


@pytest.mark.parametrize("max_conc, expected", [(16, [4, 8, 16]), (1, [1]), (0, []), (-3, [])])
def test_max_conc_on_single_node_range(max_conc, expected):
    assert concs(full({"k": single({"tp": 8, "conc-start": 4, "conc-end": 64})},
                      max_conc=max_conc)) == expected


def test_min_and_max_conc_clip_the_range_before_expansion():
    item = {"tp": 8, "conc-start": 3, "conc-end": 10}
    assert concs(full({"k": single(item)}, min_conc=5, max_conc=7)) == [5, 7]
    assert concs(full({"k": single(item)}, min_conc=11)) == []
    assert concs(full({"k": single(item)}, min_conc=0)) == []


def test_conc_list_single_node_filters():
    entries = {"k": single({"tp": 8, "conc-list": [4, 16, 64]})}
    assert concs(full(entries)) == [4, 16, 64]
    assert concs(full(entries, min_conc=8, max_conc=32)) == [16]
    assert concs(full(entries, max_conc=2)) == [2]
    assert concs(full(entries, min_conc=100)) == []


@pytest.mark.parametrize("max_tp, expected", [(4, [4]), (2, []), (0, [])])
def test_max_tp(max_tp, expected):
    entries = {"k": single({"tp": 4, "conc-list": [4]}, {"tp": 8, "conc-list": [4]})}
    assert [r["tp"] for r in full(entries, max_tp=max_tp)] == expected


def test_max_ep_clamps_and_non_positive_skips():
    entries = {"k": single({"tp": 8, "ep": 8, "conc-list": [4]}, {"tp": 8, "conc-list": [4]})}
    assert [r["ep"] for r in full(entries, max_ep=2)] == [2, 1]
    assert full(entries, max_ep=0) == []


def test_combined_single_node_limits():
    entries = {"k": single({"tp": 8, "ep": 8, "conc-start": 100, "conc-end": 200},
                           {"tp": 2, "ep": 8, "conc-start": 100, "conc-end": 200})}
    [row] = full(entries, max_tp=2, max_ep=1, max_conc=1)
    assert (row["tp"], row["ep"], row["conc"]) == (2, 1, 1)


def test_step_and_conc_bounds_are_checked():
    entries = {"k": single({"tp": 8, "conc-list": [4]})}
    with pytest.raises(InfxError, match="greater than 1"):
        full(entries, step_size=1)
    with pytest.raises(InfxError, match="less than or equal"):
        full(entries, min_conc=8, max_conc=4)


def test_multinode_conc_lists_and_filters():
    assert concs(full({"k": multi({"conc-start": 1, "conc-end": 8})})) == [[1, 2, 4, 8]]
    assert concs(full({"k": multi({"conc-list": [2150]})})) == [[2150]]
    assert concs(full({"k": multi({"conc-list": [100, 200, 400]})}, max_conc=1)) == [[1]]
    assert full({"k": multi({"conc-list": [100]})}, max_conc=0) == []
    assert full({"k": multi({"conc-list": [100]})}, min_conc=0) == []
    assert concs(full({"k": multi({"conc-start": 3, "conc-end": 10})},
                      min_conc=5, max_conc=7)) == [[6]]
    assert concs(full({"k": multi({"conc-list": [10, 6, 3, 6]})},
                      min_conc=5, max_conc=7)) == [[6, 6]]


def test_node_type_flags():
    entries = {"s": single({"tp": 8, "conc-list": [4]}), "m": multi({"conc-list": [4]}),
               "a": agentic({"tp": 8, "kv-offloading": "none", "conc-list": [1]})}
    assert len(full(entries)) == 3
    assert [("prefill" in r) for r in full(entries, single_node=True)] == [False, False]
    assert [("prefill" in r) for r in full(entries, multi_node=True)] == [True]
    assert len(full(entries, single_node=True, multi_node=True)) == 3


def test_disagg_defaults_to_false_and_fields_pass_through():
    entries = {"k": single({"tp": 8, "ep": 4, "dp-attn": True, "spec-decoding": "mtp",
                            "conc-list": [4]})}
    [row] = full(entries)
    assert (row["disagg"], row["ep"], row["dp-attn"], row["spec-decoding"]) == (
        False, 4, True, "mtp")


NODES = load_runners_from_text("r.yaml", "labels:\n  amd: [amd_0, amd_1, cr_0]\n")


def test_runner_node_filter_full_sweep():
    entries = {"k": single({"tp": 8, "conc-list": [4, 8]}, runner="amd")}
    rows = full(entries, runners=NODES, runner_node_filter="amd")
    assert [(r["conc"], r["runner"]) for r in rows] == [
        (4, "amd_0"), (4, "amd_1"), (8, "amd_0"), (8, "amd_1")]
    assert full(entries, runners=NODES, runner_node_filter="zzz") == []


def test_runner_node_filter_test_config_keeps_matching_label_first():
    entries = {"k": single({"tp": 8, "conc-list": [4]}, runner="amd")}
    assert [r["runner"] for r in tc(entries, runners=NODES, runner_node_filter="amd")] == [
        "amd", "amd_0", "amd_1"]
    assert [r["runner"] for r in tc(entries, runners=NODES, runner_node_filter="cr_0")] == ["cr_0"]
    assert tc(entries, runners=NODES, runner_node_filter="nothing") == []


def test_multinode_rows_are_runner_major_for_agentic():
    entry = agentic({"conc-list": [16, 32], "kv-offloading": "none"})
    entry.update({"multinode": True, "disagg": True, "kv-p2p-transfer": "mori",
                  "framework": "sglang-disagg"})
    item = entry["scenarios"]["agentic-coding"][0]["search-space"][0]
    item.update({"prefill": {**WORKER, "num-worker": 2, "tp": 4, "ep": 4},
                 "decode": {**WORKER, "tp": 4}})
    rows = tc({"k": entry}, runner_node_filter="amds_0")
    assert [(r["runner"], r["conc"]) for r in rows][:3] == [
        ("mi355x-amds_00", [16]), ("mi355x-amds_00", [32]), ("mi355x-amds_01", [16])]
    assert rows[0]["exp-name"] == "dsv4_p2x4ep4_d1x4_conc16"


def test_test_config_conc_filter_on_multinode():
    assert concs(tc({"k": multi({"conc-list": [4, 8, 16]})}, conc=[8, 16, 99])) == [[8, 16]]
    assert tc({"k": multi({"conc-list": [4]})}, conc=[5]) == []


def test_agentic_full_sweep_filters_only_remove_points():
    entries = {"a": agentic({"tp": 8, "kv-offloading": "none", "conc-list": [1, 4, 64]})}
    assert concs(full(entries, min_conc=2, max_conc=8)) == [4]
    assert full(entries, max_conc=0) == []
    assert concs(full(entries, max_tp=1, max_ep=1)) == [1, 4, 64]
    assert concs(full({"a": agentic({"tp": 8, "kv-offloading": "none",
                                     "conc-start": 1, "conc-end": 16})}, step_size=4)) == [1, 4, 16]


@pytest.mark.parametrize("util, topology, expected", [
    (0.8, {"tp": 8}, 2399), (0.8, {"tp": 4}, 1199), (0.8, {"tp": 2}, 599), (0.8, {"tp": 1}, 299),
    (0.5, {"tp": 8}, 1499), (0.6, {"tp": 8}, 1799), (0.2, {"tp": 4}, 299),
    (0.14, {"tp": 4}, 209), (0.086, {"tp": 8}, 257),
    (0.8, {"tp": 4, "dcp-size": 2}, 1199), (0.8, {"tp": 4, "pcp-size": 2}, 2399),
    (0.8, {"tp": 4, "pp": 2}, 2399)])
def test_dram_budget_on_mi355x(util, topology, expected):
    item = {**topology, "kv-offloading": "dram"}
    assert dram_offload_gb({"dram-utilization": util}, item, "cluster:mi355x-amds", RUNNERS) == expected


def test_dram_budget_errors():
    small = load_runners_from_text("r.yaml", "labels:\n  cluster:x: [x_0]\nhardware:\n"
                                   "  cluster:x: {available-cpu-dram-mib: 1000, gpus-per-node: 2}\n")
    item = {"tp": 4, "kv-offloading": "dram"}
    with pytest.raises(ValueError, match="exceeds gpus-per-node=2"):
        dram_offload_gb({"dram-utilization": 0.5}, item, "cluster:x", small)
    with pytest.raises(ValueError, match="requires 'available-cpu-dram-mib'"):
        dram_offload_gb({"dram-utilization": 0.5}, item, "cluster:nowhere", small)
    assert dram_offload_gb({}, {"tp": 64, "kv-offloading": "none"}, "cluster:nowhere", small) == 0


@pytest.mark.parametrize("prefill_tp, expected", [(8, 2399), (16, 2399), (4, 1199)])
def test_multinode_dram_budget_uses_the_prefill_replica(prefill_tp, expected):
    item = {"kv-offloading": "dram", "prefill": {**WORKER, "tp": prefill_tp},
            "decode": {**WORKER, "tp": 2}}
    assert dram_offload_gb({"dram-utilization": 0.8}, item, "cluster:mi355x-amds", RUNNERS) == expected


@pytest.mark.parametrize("prefill_tp, needle", [(6, "does not divide"), (12, "not a multiple")])
def test_multinode_dram_budget_rejects_ragged_replicas(prefill_tp, needle):
    item = {"kv-offloading": "dram", "prefill": {**WORKER, "tp": prefill_tp}, "decode": WORKER}
    with pytest.raises(ValueError, match=needle):
        dram_offload_gb({"dram-utilization": 0.8}, item, "cluster:mi355x-amds", RUNNERS)


def test_generation_errors_name_file_line_and_key():
    entry = agentic({"tp": 8, "pp": 2, "kv-offloading": "dram",
                     "kv-offload-backend": {"name": "x"}, "conc-list": [1]})
    with pytest.raises(InfxError) as caught:
        tc({"k": entry})
    problem = caught.value.problems[0]
    assert problem.file == "m.yaml" and problem.key == "k" and problem.line > 1


def test_components_copied_from_entry_or_top_level():
    [top] = full({"k": single({"tp": 8, "conc-list": [4]},
                              router={"name": "r", "version": "1"})})
    assert top["router"] == {"name": "r", "version": "1"}
    [entry] = full({"k": single({"tp": 8, "conc-list": [4], "router": {"name": "e", "version": "2"}})})
    assert entry["router"] == {"name": "e", "version": "2"} and list(entry)[-1] == "router"


def test_test_config_uses_step_two_and_keeps_list_order():
    entries = {"k": single({"tp": 8, "conc-list": [64, 4, 4]}, {"tp": 4, "conc-start": 3, "conc-end": 10})}
    assert concs(tc(entries)) == [64, 4, 4, 3, 6, 10]


def test_generation_does_not_mutate_configs():
    configs = configs_of(k=multi({"conc-list": [4, 16]}))
    before = copy.deepcopy(dict(configs))
    generate_test_config(configs, RUNNERS, ["k"], evals="all")
    generate_full_sweep(configs, RUNNERS, evals="all")
    assert dict(configs) == before


@settings(max_examples=100, deadline=None)
@given(start=st.integers(1, 500), span=st.integers(0, 5000), step=st.integers(2, 5))
def test_conc_range_properties(start, span, step):
    end = start + span
    values = conc_range(start, end, step)
    assert values[0] == start and values[-1] == end
    assert all(a < b for a, b in zip(values, values[1:], strict=False))
    assert all(b == min(a * step, end) for a, b in zip(values, values[1:], strict=False))


def test_non_mapping_entry_is_a_schema_error():
    with pytest.raises(InfxError, match="must be of type object"):
        load_master_configs_from_texts([("m.yaml", "k: 5\n")])
