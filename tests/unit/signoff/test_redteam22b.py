"""Red team 22b: configs that "only lose rows" (configs_at.runs_new_rows / _prunes, commit 51ad554).

An entry at head that is its base entry with scenarios, scenario items or search-space entries
left out is no changed config for any check. These tests look for a head entry that passes as
such yet runs something its base entry did not.
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from infx.config.master import load_master_configs_from_texts
from infx.config.runners import load_runners
from infx.plan.generate import generate_test_config
from infx.signoff.rules import configs_at

ROOT = Path(__file__).resolve().parents[3]

ENTRY = {
    "image": "lmsysorg/sglang:v0.5.12-rocm700-mi35x", "model": "amd/DeepSeek-R1-0528-MXFP4-Preview",
    "model-prefix": "dsr1", "runner": "mi355x", "precision": "fp4", "framework": "sglang",
    "multinode": False,
    "scenarios": {"fixed-seq-len": [
        {"isl": 1024, "osl": 1024, "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64}]},
        {"isl": 8192, "osl": 1024, "search-space": [
            {"tp": 4, "conc-start": 4, "conc-end": 256}, {"tp": 8, "conc-start": 4, "conc-end": 64}]}]}}


def _rows(entry: dict, key: str = "k") -> list[dict]:
    """The rows the planner generates for one entry (default eval subset marked)."""
    configs = load_master_configs_from_texts([("configs/amd-master.yaml", yaml.safe_dump({key: entry}))])
    return generate_test_config(configs, load_runners(ROOT / "configs" / "runners.yaml"), [key])


def _eval_rows(rows: list[dict]) -> set[tuple]:
    return {(r["isl"], r["osl"], r["tp"], r["conc"]) for r in rows if r["run-eval"]}


def _lane_removed(entry: dict, block: int, lane: int) -> dict:
    out = copy.deepcopy(entry)
    del out["scenarios"]["fixed-seq-len"][block]["search-space"][lane]
    return out


# --- finding 1: removing a search-space entry moves the eval subset onto other rows -------------

def test_pruning_a_lane_that_holds_the_eval_target_runs_a_new_eval():
    after = _lane_removed(ENTRY, 1, 0)  # tp4 4..256 out: the group's median eligible conc becomes 32
    new_evals = _eval_rows(_rows(after)) - _eval_rows(_rows(ENTRY))
    assert new_evals == {(8192, 1024, 8, 32)}  # the planner really runs an eval it did not
    assert configs_at.runs_new_rows(ENTRY, after)


def test_control_pruning_that_keeps_the_eval_rows_is_not_a_change():
    """The 1k1k block never evaluates: retiring it (#2263) leaves every row and eval as before."""
    after = copy.deepcopy(ENTRY)
    del after["scenarios"]["fixed-seq-len"][0]
    before_rows = _rows(ENTRY)
    assert all(row in before_rows for row in _rows(after))
    assert not configs_at.runs_new_rows(ENTRY, after)


# --- finding 2 (pre-existing, not 51ad554's): Python equality hides a type change --------------

def test_a_float_tp_is_a_change_though_it_compares_equal():
    after = _lane_removed(ENTRY, 1, 0)
    after["scenarios"]["fixed-seq-len"][1]["search-space"][0]["tp"] = 8.0
    launched = [row["tp"] for row in _rows(after)]
    assert any(isinstance(tp, float) for tp in launched)  # the jobs get TP=8.0
    assert configs_at.runs_new_rows(ENTRY, after)


# --- controls: shapes that must count as a change (checked: they do) --------------------------

def test_control_a_conc_list_shortened_or_range_rewritten_is_a_change():
    listed = copy.deepcopy(ENTRY)
    listed["scenarios"]["fixed-seq-len"][1]["search-space"][1] = {"tp": 8, "conc-list": [4, 8, 16, 32, 64]}
    assert configs_at.runs_new_rows(ENTRY, listed)  # same concurrencies, another spelling
    shorter = copy.deepcopy(ENTRY)
    shorter["scenarios"]["fixed-seq-len"][1]["search-space"][1]["conc-end"] = 32
    assert configs_at.runs_new_rows(ENTRY, shorter)  # fewer rows, but the lane itself is edited


def test_control_duplicates_reordering_and_moved_lanes_are_changes():
    dup = copy.deepcopy(ENTRY)
    lanes = dup["scenarios"]["fixed-seq-len"][1]["search-space"]
    lanes[1] = dict(lanes[0])  # [a, b] -> [a, a]
    assert configs_at.runs_new_rows(ENTRY, dup)
    swapped = copy.deepcopy(ENTRY)
    swapped["scenarios"]["fixed-seq-len"][1]["search-space"].reverse()
    assert configs_at.runs_new_rows(ENTRY, swapped)
    moved = copy.deepcopy(ENTRY)  # 1k1k's lane under 8k1k instead of its own
    moved["scenarios"]["fixed-seq-len"] = [{"isl": 8192, "osl": 1024,
                                            "search-space": [{"tp": 8, "conc-start": 4, "conc-end": 64}]}]
    moved["scenarios"]["fixed-seq-len"][0]["search-space"][0]["conc-end"] = 64
    assert configs_at.runs_new_rows(ENTRY, moved)  # 8k1k's tp4 lane taken out: evals may move
    moved["scenarios"]["fixed-seq-len"][0]["isl"] = 2048
    assert configs_at.runs_new_rows(ENTRY, moved)


def test_control_removed_defaults_and_block_fields_are_changes():
    agentic = {"runner": "cluster:mi355x-amds", "scenarios": {"agentic-coding": [
        {"dram-utilization": 0.5, "search-space": [{"tp": 8, "conc-list": [4], "kv-offloading": "dram"},
                                                   {"tp": 8, "conc-list": [8]}]}]}}
    no_util = copy.deepcopy(agentic)
    del no_util["scenarios"]["agentic-coding"][0]["dram-utilization"]
    assert configs_at.runs_new_rows(agentic, no_util)
    no_key = copy.deepcopy(ENTRY)
    del no_key["multinode"]
    assert configs_at.runs_new_rows(ENTRY, no_key)


def test_control_yaml_anchors_and_merge_keys_compare_by_what_they_parse_to():
    base = {"configs/amd-master.yaml": yaml.safe_dump({"k": ENTRY}, sort_keys=False)}
    anchored = (
        "k:\n  <<: &common {image: 'lmsysorg/sglang:v0.5.12-rocm700-mi35x', model: amd/DeepSeek-R1-0528-MXFP4-Preview,"
        " model-prefix: dsr1, runner: mi355x, precision: fp4, framework: sglang, multinode: false}\n"
        "  scenarios:\n    fixed-seq-len:\n"
        "    - {isl: 8192, osl: 1024, search-space: [{tp: 8, conc-start: 4, conc-end: 64}]}\n"
        "j:\n  <<: *common\n  image: other:1\n  scenarios: {}\n")
    # k loses its 1k1k item and 8k1k's tp4 lane: an 8k1k lane taken out may move evals, so it counts
    assert configs_at.changed_keys({"configs/amd-master.yaml": anchored}, base) == ["j", "k"]
    kept = anchored.replace("[{tp: 8, conc-start: 4, conc-end: 64}]}",
                            "[{tp: 4, conc-start: 4, conc-end: 256}, {tp: 8, conc-start: 4, conc-end: 64}]}")
    assert configs_at.changed_keys({"configs/amd-master.yaml": kept}, base) == ["j"]  # 1k1k alone: pruned
    overridden = kept.replace("k:\n  <<: &common {", "k:\n  framework: vllm\n  <<: &common {")
    assert configs_at.changed_keys({"configs/amd-master.yaml": overridden}, base) == ["j", "k"]


def _master_rows(entries: dict) -> list[dict]:
    configs = load_master_configs_from_texts([("configs/amd-master.yaml", yaml.safe_dump(entries))])
    return generate_test_config(configs, load_runners(ROOT / "configs" / "runners.yaml"), list(entries))


def test_pruning_one_key_moves_the_evals_of_another():
    k = copy.deepcopy(ENTRY)
    k["scenarios"]["fixed-seq-len"] = [{"isl": 8192, "osl": 1024, "search-space": [
        {"tp": 4, "conc-start": 4, "conc-end": 256}, {"tp": 2, "conc-start": 4, "conc-end": 8}]}]
    j = copy.deepcopy(ENTRY)
    j["image"] = "lmsysorg/sglang:v0.5.13-rocm700-mi35x"
    j["scenarios"]["fixed-seq-len"] = [{"isl": 8192, "osl": 1024, "search-space": [
        {"tp": 8, "conc-start": 4, "conc-end": 64}]}]
    pruned = _lane_removed(k, 0, 0)

    def j_evals(entries):
        return {r["conc"] for r in _master_rows(entries) if r["run-eval"] and r["image"] == j["image"]}
    assert j_evals({"k": k, "j": j}) == {64}
    assert j_evals({"k": pruned, "j": j}) == {32, 64}  # j's new eval row (32), j untouched
    base = {"configs/amd-master.yaml": yaml.safe_dump({"k": k, "j": j})}
    head = {"configs/amd-master.yaml": yaml.safe_dump({"k": pruned, "j": j})}
    assert configs_at.changed_keys(head, base)
