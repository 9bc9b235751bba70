"""Plan row helpers: filters, trim, fingerprints, buckets and serialised field order."""

from __future__ import annotations

import pytest

from infx.plan.shaping import (
    bucket_name,
    filter_eval_concs,
    filter_min_prefill_ep,
    recipe_fingerprint,
    serialise_row,
    trim_rows,
)
from infx.plan.sweep_plan import eval_bucket


def fixed(conc, **extra):
    return {"image": "i", "model": "m", "model-prefix": "p", "precision": "fp8",
            "framework": "vllm", "spec-decoding": "none", "runner": "r", "isl": 8192,
            "osl": 1024, "tp": 8, "conc": conc, "exp-name": "p_8k1k", "disagg": False,
            "run-eval": False, **extra}


def multi(conc, **extra):
    single = {k: v for k, v in fixed(conc).items() if k != "tp"}
    return {**single, "prefill": {"num-worker": 1, "tp": 4, "ep": 1, "dp-attn": False},
            "decode": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True}, **extra}


def test_buckets():
    assert bucket_name(fixed(1)) == "8k1k"
    assert bucket_name({**fixed(1), "isl": 1024}) == "1k1k"
    assert bucket_name({**fixed(1), "isl": 1024, "osl": 8192}) == "1024_8192"
    assert bucket_name({"scenario-type": "agentic-coding"}) == "agentic"
    assert eval_bucket(fixed(1)) == "evals"
    assert eval_bucket(multi([1])) == "multinode_evals"
    assert eval_bucket({"scenario-type": "agentic-coding"}) == "agentic_evals"
    assert eval_bucket({"scenario-type": "agentic-coding", "prefill": {}}) == (
        "multinode_agentic_evals")


def test_min_prefill_ep_thresholds():
    rows = [fixed(1), {**multi([1]), "prefill": {}}, multi([2]),
            {**multi([3]), "prefill": {"ep": "3"}}, {**multi([4]), "prefill": {"ep": None}},
            {**multi([5]), "prefill": {"ep": "bad"}}]
    assert filter_min_prefill_ep(rows, None) == rows
    assert [r["conc"] for r in filter_min_prefill_ep(rows, 1)] == [1, [1], [2], [3]]
    rows[2]["prefill"]["ep"] = 2
    assert [r["conc"] for r in filter_min_prefill_ep(rows, 2)] == [1, [2], [3]]
    assert [r["conc"] for r in filter_min_prefill_ep(rows, 4)] == [1]


def test_eval_concs_filter():
    rows = [fixed(32), fixed(64), multi([8, 256], **{"eval-conc": 256}),
            multi([16, 64, 128], **{"eval-all-concs": True})]
    kept = filter_eval_concs(rows, [64, 256])
    assert [r["conc"] for r in kept] == [64, [8, 256], [64]]
    assert rows[3]["conc"] == [16, 64, 128]  # input rows are not mutated
    assert filter_eval_concs(rows, [7]) == []


def test_trim_single_node_nested_shapes():
    backend = {"kv-offload-backend": {"name": "a", "version": "1"}}
    rows = [fixed(8, **backend), fixed(2, **backend),
            fixed(4, **{"kv-offload-backend": {"name": "b"}})]
    assert [r["conc"] for r in trim_rows(rows)] == [2, 4]


def test_trim_keeps_the_surviving_row_in_its_own_place():
    rows = [fixed(8), fixed(4, tp=4), fixed(2), fixed(2), fixed(16, tp=4)]
    assert [(r["tp"], r["conc"]) for r in trim_rows(rows)] == [(4, 4), (8, 2)]
    assert trim_rows(rows)[1] is rows[2]  # ties keep the first row


def test_trim_multinode_lists_not_merged():
    assert [r["conc"] for r in trim_rows([multi([64, 4, 16]), multi([8])])] == [[4], [8]]


def test_fingerprint_ignores_concurrency_only():
    assert recipe_fingerprint(fixed(4)) == recipe_fingerprint(fixed(16, **{"exp-name": "x"}))
    prints = {recipe_fingerprint(fixed(4, tp=t)) for t in (1, 2, 4)}
    assert len(prints) == 3
    assert len(recipe_fingerprint(fixed(4))) == 64


@pytest.mark.parametrize("row, first, last", [
    (fixed(4), "image", "eval-only"),
    (multi([4]), "image", "eval-all-concs"),
])
def test_serialised_order_and_defaults(row, first, last):
    shaped = serialise_row({**row, "router": None})
    assert list(shaped)[0] == first and list(shaped)[-1] == last
    assert "router" not in shaped


def test_serialised_workers_get_default_settings():
    shaped = serialise_row(multi([4]))
    assert shaped["decode"]["additional-settings"] == []
    assert list(shaped["prefill"]) == ["num-worker", "tp", "ep", "dp-attn",
                                       "additional-settings"]
    assert shaped["eval-only"] is False and shaped["eval-all-concs"] is False
