"""Tests for infx.plan.evals: default, subset and all-evals selection policies."""

from __future__ import annotations

import pytest

from infx.plan.evals import apply_eval_mode, mark_subset, topology_key, widen_to_all

WORKER = {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False, "pp": 1, "dcp-size": 1,
          "pcp-size": 1}


def sn(conc, tp=8, isl=8192, osl=1024, dp_attn=False, **extra) -> dict:
    return {"model": "m", "runner": "mi355x", "framework": "sglang", "precision": "fp4",
            "isl": isl, "osl": osl, "tp": tp, "conc": conc, "dp-attn": dp_attn,
            "spec-decoding": "none", "exp-name": "x_8k1k", "run-eval": False, **extra}


def mn(conc, decode_workers=1, isl=8192, **extra) -> dict:
    return {"model": "m", "runner": "mi355x-disagg", "framework": "sglang-disagg",
            "precision": "fp4", "isl": isl, "osl": 1024, "spec-decoding": "none",
            "prefill": dict(WORKER), "decode": {**WORKER, "num-worker": decode_workers},
            "conc": list(conc), "exp-name": "x_8k1k", "disagg": True, "run-eval": False, **extra}


def sn_agentic(conc, **extra) -> dict:
    return {"model": "m", "runner": "cluster:mi355x-amds", "framework": "sglang",
            "precision": "fp4", "tp": 8, "conc": conc, "scenario-type": "agentic-coding",
            "exp-name": f"x_tp8_conc{conc}", **extra}


def mn_agentic(conc) -> dict:
    return {"model": "m", "runner": "cluster:mi355x-amds", "framework": "sglang-disagg",
            "precision": "fp4", "prefill": dict(WORKER), "decode": dict(WORKER), "conc": [conc],
            "scenario-type": "agentic-coding", "exp-name": f"x_conc{conc}", "disagg": True}


def tagged(rows):
    return [(index, row) for index, row in enumerate(rows)]


def marked(rows, include_agentic=False):
    items = tagged(rows)
    mark_subset(items, include_agentic)
    return [row for _, row in items]


def test_single_node_upper_median_and_max_across_tps():
    rows = marked([sn(c) for c in (8, 16, 32, 64)] + [sn(c, tp=4) for c in (16, 32)])
    assert [(r["tp"], r["conc"]) for r in rows if r["run-eval"]] == [
        (8, 32), (8, 64), (4, 32)]


@pytest.mark.parametrize("values, chosen", [((16, 32, 64), {32, 64}), ((24, 40), {40}),
                                            ((32, 128, 512), {128, 512}), ((4, 8), set())])
def test_single_node_targets(values, chosen):
    rows = marked([sn(c) for c in values])
    assert {r["conc"] for r in rows if r["run-eval"]} == chosen


def test_only_8k1k_rows_are_eligible():
    rows = marked([sn(64, isl=1024, osl=1024), sn(64)])
    assert [r["run-eval"] for r in rows] == [False, True]


def test_dp_attn_and_spec_split_groups():
    # {16, 64}: upper median and max are both 64; the dp-attn row is its own group
    rows = marked([sn(16), sn(64), sn(16, dp_attn=True), sn(16, **{"spec-decoding": "mtp"})])
    assert [r["run-eval"] for r in rows] == [False, True, True, True]


def test_multinode_highest_eligible_row_gets_eval_conc():
    rows = marked([mn([2, 4, 8, 16, 32]), mn([64, 128, 256])])
    assert [(r["run-eval"], r.get("eval-conc")) for r in rows] == [(False, None), (True, 256)]


def test_multinode_topologies_are_distinct_by_worker_counts():
    rows = marked([mn([16, 32]), mn([64], decode_workers=2)])
    assert [r.get("eval-conc") for r in rows] == [32, 64]


def test_multinode_below_threshold_is_not_marked():
    [row] = marked([mn([1])])
    assert row["run-eval"] is False and "eval-conc" not in row


def test_default_never_marks_agentic_but_sets_run_eval():
    rows = marked([sn_agentic(32), sn_agentic(64), mn_agentic(32)])
    assert [r["run-eval"] for r in rows] == [False, False, False]
    assert all("eval-conc" not in r for r in rows)


def test_agentic_subset_highest_conc_per_group():
    rows = marked([sn_agentic(32), sn_agentic(64), sn_agentic(4, tp=4)], include_agentic=True)
    assert [r["run-eval"] for r in rows] == [False, True, False]


def test_multinode_agentic_subset_picks_one_conc_per_topology():
    rows = marked([mn_agentic(8), mn_agentic(16), mn_agentic(32)], include_agentic=True)
    assert [(r["run-eval"], r.get("eval-conc")) for r in rows] == [
        (False, None), (False, None), (True, 32)]


def test_all_evals_merges_multinode_and_keeps_others():
    rows = [sn(4, isl=1024, osl=1024), sn(4), mn([4, 8, 16]), mn([16, 32])]
    items = tagged(rows)
    mark_subset(items, include_agentic=True)
    out = [row for _, row in widen_to_all(items)]
    assert [r["conc"] for r in out] == [4, 4, [4, 8, 16, 32]]
    assert [r["run-eval"] for r in out] == [False, True, True]
    assert out[2]["eval-all-concs"] is True and "eval-conc" not in out[2]


def test_all_evals_multinode_agentic_merge_keeps_max_eval_conc():
    items = tagged([mn_agentic(2), mn_agentic(16), mn_agentic(32)])
    mark_subset(items, include_agentic=True)
    [(tag, row)] = widen_to_all(items)
    assert (tag, row["conc"], row["eval-conc"]) == (0, [2, 16, 32], 32)
    assert "eval-all-concs" not in row


def test_apply_eval_mode_filters_and_stamps():
    rows = [sn(c) for c in (4, 16, 32, 64)] + [sn(1, isl=1024, osl=1024)]
    subset = apply_eval_mode(tagged([dict(r) for r in rows]), "subset")
    assert [r["conc"] for _, r in subset] == [32, 64]
    assert all(r["eval-only"] is True for _, r in subset)
    everything = apply_eval_mode(tagged([dict(r) for r in rows]), "all")
    assert [r["conc"] for _, r in everything] == [4, 16, 32, 64]
    untouched = apply_eval_mode(tagged([dict(r) for r in rows]), "none")
    assert [r["run-eval"] for _, r in untouched] == [False] * 5
    default = apply_eval_mode(tagged([dict(r) for r in rows]), "default")
    assert len(default) == 5 and "eval-only" not in default[0][1]


def test_default_marking_never_marks_every_row():
    rows = marked([sn(c) for c in (16, 32, 64, 128)])
    assert not all(r["run-eval"] for r in rows)


def test_topology_key_ignores_conc_and_eval_fields():
    a = mn([4], **{"eval-conc": 4})
    b = mn([8, 16], **{"run-eval": True, "eval-only": True, "exp-name": "other"})
    assert topology_key(a) == topology_key(b)
    assert topology_key(a) != topology_key(mn([4], decode_workers=2))
