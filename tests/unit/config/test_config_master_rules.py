"""Tests for infx.config.master_rules: the cross-field master config rules (research §1, §5)."""

from __future__ import annotations

import copy

import pytest

from infx.config.master_rules import concurrency_problems, semantic_problems

SINGLE = {
    "image": "img", "model": "m", "model-prefix": "dsr1", "runner": "mi355x",
    "precision": "fp4", "framework": "sglang", "multinode": False,
    "scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [
        {"tp": 8, "conc-start": 4, "conc-end": 64}]}]},
}
WORKER = {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False}
DISAGG = {
    "image": "img", "model": "m", "model-prefix": "dsr1", "runner": "mi355x-disagg",
    "precision": "fp4", "framework": "sglang-disagg", "multinode": True, "disagg": True,
    "router": {"name": "sglang-router", "version": "0.3.2"}, "kv-p2p-transfer": "mori",
    "scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [
        {"conc-list": [64, 4, 16], "prefill": dict(WORKER), "decode": dict(WORKER)}]}]},
}
AGENTIC = {
    "image": "img", "model": "m", "model-prefix": "glm5.2", "runner": "cluster:mi355x-amds",
    "precision": "fp4", "framework": "sglang", "multinode": False,
    "scenarios": {"agentic-coding": [{"dram-utilization": 0.8, "search-space": [
        {"tp": 8, "kv-offloading": "none", "conc-list": [1, 4]},
        {"tp": 4, "kv-offloading": "dram", "kv-offload-backend": {"name": "hicache"},
         "conc-list": [8, 16]}]}]},
}
MN_AGENTIC = {
    "image": "img", "model": "m", "model-prefix": "dsv4", "runner": "cluster:mi355x-amds",
    "precision": "fp4", "framework": "sglang-disagg", "kv-p2p-transfer": "mori",
    "multinode": True, "disagg": True,
    "scenarios": {"agentic-coding": [{"dram-utilization": 0.8, "search-space": [
        {"conc-list": [8, 16, 32], "kv-offloading": "dram",
         "kv-offload-backend": {"name": "hicache"},
         "prefill": dict(WORKER), "decode": dict(WORKER)}]}]},
}


def messages(entry: dict) -> list[str]:
    return [message for _, message in semantic_problems(entry)]


def fixed_item(entry: dict) -> dict:
    return entry["scenarios"]["fixed-seq-len"][0]["search-space"][0]


def agentic_item(entry: dict, index: int = 0) -> dict:
    return entry["scenarios"]["agentic-coding"][0]["search-space"][index]


@pytest.mark.parametrize("base", [SINGLE, DISAGG, AGENTIC, MN_AGENTIC])
def test_valid_entries_have_no_problems(base):
    assert semantic_problems(copy.deepcopy(base)) == []


@pytest.mark.parametrize("item, needle", [
    ({"conc-start": 4, "conc-end": 64, "conc-list": [4]}, "Cannot specify both"),
    ({}, "Must specify either"),
    ({"conc-start": 4}, "Must specify either"),
    ({"conc-list": []}, "Must specify either"),
    ({"conc-start": 64, "conc-end": 4}, "must be <="),
    ({"conc-start": 0, "conc-end": 4}, "must be greater than 0"),
    ({"conc-start": -1, "conc-end": 4}, "must be greater than 0"),
    ({"conc-start": 1, "conc-end": 0}, "must be greater than 0"),
    ({"conc-list": [4, 0]}, "must be greater than 0"),
])
def test_concurrency_rules(item, needle):
    found = concurrency_problems(item)
    assert len(found) == 1 and needle in found[0][1]


def test_empty_list_next_to_a_range_counts_as_absent():
    assert concurrency_problems({"conc-list": [], "conc-start": 1, "conc-end": 2}) == []


def test_list_keeps_order_and_duplicates_valid():
    assert concurrency_problems({"conc-list": [10, 6, 3, 6]}) == []


def test_dcp_must_divide_tp_single_node():
    entry = copy.deepcopy(SINGLE)
    fixed_item(entry)["dcp-size"] = 3
    assert any("must be divisible" in m for m in messages(entry))
    fixed_item(entry)["dcp-size"] = 4
    assert messages(entry) == []


@pytest.mark.parametrize("role", ["prefill", "decode"])
def test_dcp_must_divide_worker_tp(role):
    entry = copy.deepcopy(DISAGG)
    fixed_item(entry)[role]["dcp-size"] = 3
    found = semantic_problems(entry)
    assert any("must be divisible" in m and role in path for path, m in found)


def test_hardware_on_one_worker_only():
    entry = copy.deepcopy(DISAGG)
    fixed_item(entry)["prefill"]["hardware"] = "mi355x"
    assert any("both 'prefill' and 'decode'" in m for m in messages(entry))
    fixed_item(entry)["decode"]["hardware"] = "mi355x"
    assert messages(entry) == []


def test_at_least_one_scenario():
    entry = copy.deepcopy(SINGLE)
    entry["scenarios"] = {"fixed-seq-len": [], "agentic-coding": []}
    assert any("At least one scenario type" in m for m in messages(entry))


def test_agentic_needs_cluster_runner():
    entry = copy.deepcopy(AGENTIC)
    entry["runner"] = "mi355x"
    assert any("Agentic master configs must use a 'cluster:<name>' runner" in m
               for m in messages(entry))
    entry = copy.deepcopy(MN_AGENTIC)
    entry["runner"] = "mi355x-disagg"
    assert any("Agentic master configs must use" in m for m in messages(entry))


def test_dram_offload_needs_dram_utilization():
    entry = copy.deepcopy(AGENTIC)
    del entry["scenarios"]["agentic-coding"][0]["dram-utilization"]
    assert any("requires dram-utilization" in m for m in messages(entry))


def test_single_node_agentic_needs_kv_offloading():
    entry = copy.deepcopy(AGENTIC)
    del agentic_item(entry)["kv-offloading"]
    assert any("must specify kv-offloading" in m for m in messages(entry))


@pytest.mark.parametrize("mode, backend, needle", [
    ("none", {"name": "hicache"}, "can only be set when kv-offloading is not 'none'"),
    ("dram", None, "is required when kv-offloading is 'dram'"),
])
def test_kv_offload_backend_rules(mode, backend, needle):
    entry = copy.deepcopy(AGENTIC)
    item = agentic_item(entry, 1)
    item["kv-offloading"] = mode
    item.pop("kv-offload-backend")
    if backend:
        item["kv-offload-backend"] = backend
    assert any(needle in m for m in messages(entry))


def test_backend_without_kv_offloading_on_multinode():
    entry = copy.deepcopy(MN_AGENTIC)
    del agentic_item(entry)["kv-offloading"]
    assert any("kv-offload-backend requires kv-offloading" in m for m in messages(entry))


def test_multinode_agentic_defaults_kv_offloading_to_none():
    entry = copy.deepcopy(MN_AGENTIC)
    item = agentic_item(entry)
    del item["kv-offloading"], item["kv-offload-backend"]
    assert messages(entry) == []


@pytest.mark.parametrize("change", [
    lambda item: item.pop("tp"),
    lambda item: item.update({"prefill": dict(WORKER), "decode": dict(WORKER)}),
    lambda item: item.update({"prefill": dict(WORKER)}),
])
def test_agentic_topology_is_tp_xor_prefill_and_decode(change):
    entry = copy.deepcopy(AGENTIC)
    change(agentic_item(entry))
    assert any("must specify either tp or both prefill and decode" in m for m in messages(entry))


@pytest.mark.parametrize("field", ["pp", "dcp-size", "pcp-size"])
def test_multinode_agentic_entries_cannot_set_entry_level_parallelism(field):
    entry = copy.deepcopy(MN_AGENTIC)
    agentic_item(entry)[field] = 1
    assert any("cannot specify" in m for m in messages(entry))


def test_topology_must_match_master_mode():
    entry = copy.deepcopy(MN_AGENTIC)
    item = agentic_item(entry)
    del item["prefill"], item["decode"]
    item["tp"] = 8
    assert any("not tp" in m for m in messages(entry))
    entry = copy.deepcopy(AGENTIC)
    item = agentic_item(entry)
    del item["tp"]
    item.update({"prefill": dict(WORKER), "decode": dict(WORKER)})
    assert any("cannot declare prefill or decode" in m for m in messages(entry))


@pytest.mark.parametrize("field, value", [
    ("router", {"name": "sglang-router", "version": "0.3.2"}), ("kv-p2p-transfer", "mori")])
def test_component_declared_at_both_scopes(field, value):
    entry = copy.deepcopy(DISAGG)
    fixed_item(entry)[field] = value
    assert any(f"{field} must be declared either at the top level" in m for m in messages(entry))


def test_kv_p2p_transfer_only_on_multinode():
    entry = copy.deepcopy(AGENTIC)
    agentic_item(entry)["kv-p2p-transfer"] = "mori"
    assert any("only valid when multinode=true" in m for m in messages(entry))


def test_disagg_requires_transfer_everywhere():
    entry = copy.deepcopy(DISAGG)
    del entry["kv-p2p-transfer"]
    assert any("disagg=true requires kv-p2p-transfer" in m for m in messages(entry))
    fixed_item(entry)["kv-p2p-transfer"] = "mori"
    assert messages(entry) == []
    second = copy.deepcopy(fixed_item(entry))
    del second["kv-p2p-transfer"]
    entry["scenarios"]["fixed-seq-len"][0]["search-space"].append(second)
    assert any("disagg=true requires kv-p2p-transfer" in m for m in messages(entry))


def test_aggregated_multinode_may_carry_transfer():
    entry = copy.deepcopy(DISAGG)
    entry["disagg"] = False
    assert messages(entry) == []
    del entry["kv-p2p-transfer"]
    assert messages(entry) == []


def test_paths_point_into_the_entry():
    entry = copy.deepcopy(SINGLE)
    fixed_item(entry)["conc-start"] = 100
    [(path, _)] = semantic_problems(entry)
    assert path == ("scenarios", "fixed-seq-len", 0, "search-space", 0, "conc-start")


# Differential testing: the reference's pp / dcp-size / pcp-size fields are strict integers,
# so 2.0 is rejected there although JSON Schema's "integer" accepts it.
@pytest.mark.parametrize("field", ["pp", "dcp-size", "pcp-size"])
def test_parallelism_sizes_must_not_be_floats(field):
    entry = copy.deepcopy(SINGLE)
    entry["scenarios"]["fixed-seq-len"][0]["search-space"][0][field] = 2.0
    assert [(path[-1], "decimal point" in message) for path, message in
            semantic_problems(entry)] == [(field, True)]
    worker_entry = copy.deepcopy(MN_AGENTIC)
    worker_entry["scenarios"]["agentic-coding"][0]["search-space"][0]["decode"][field] = 1.0
    assert [path[-2:] for path, _ in semantic_problems(worker_entry)] == [("decode", field)]
    entry["scenarios"]["fixed-seq-len"][0]["search-space"][0][field] = 2
    assert semantic_problems(entry) == []
