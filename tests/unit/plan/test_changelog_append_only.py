"""append-only: master scope checks and the new-points delta."""

from __future__ import annotations

import pytest

from infx.errors import InfxError
from infx.plan.append_only import check_scope, delta_rows


def row(conc, **extra):
    return {"image": "img", "model": "m", "model-prefix": "p", "precision": "fp8",
            "framework": "vllm", "runner": "r", "isl": 8192, "osl": 1024, "tp": 4,
            "spec-decoding": "none", "disagg": False, "conc": conc, "exp-name": "p_8k1k",
            **extra}


def mrow(concs):
    return row(concs, prefill={"num-worker": 1, "tp": 4, "ep": 1, "dp-attn": False},
               decode={"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False})


def test_single_node_delta():
    assert [r["conc"] for r in delta_rows([row(4), row(8)], [row(4), row(8), row(12)])] == [12]


@pytest.mark.parametrize("head", [[8, 16, 24], [8, 16, 24, 24]])
def test_multinode_delta_slices_lists(head):
    assert [r["conc"] for r in delta_rows([mrow([8, 16])], [mrow(head)])] == [[24]]


def test_repeated_new_point_once():
    assert [r["conc"] for r in delta_rows([row(4)], [row(4), row(8), row(8)])] == [8]


def test_new_variant_joins_existing_series():
    head = [row(4), row(12, tp=8), row(16, tp=8)]
    assert [(r["tp"], r["conc"]) for r in delta_rows([row(4)], head)] == [(8, 12), (8, 16)]
    assert delta_rows([row(4)], [row(4), row(4, duration=60)])[0]["duration"] == 60


def test_series_treats_missing_defaults_as_their_values():
    bare = {k: v for k, v in row(8).items() if k not in ("disagg", "spec-decoding")}
    assert delta_rows([row(4, **{"kv-offloading": ""})],
                      [row(4, **{"kv-offloading": ""}), {**bare, "tp": 8}])[0]["conc"] == 8


@pytest.mark.parametrize("base, head, fragment", [
    ([], [row(4)], "existing curve in the base revision"),
    ([row(4)], [row(4, image="new"), row(8, image="new")], "remove or modify"),
    ([row(4), row(8, tp=2)], [row(4), row(12)], "remove or modify"),
    ([row(4, duration=60)], [row(4, duration=90), row(8, duration=90)], "remove or modify"),
    ([row(4), row(8)], [row(8), row(12)], "remove existing concurrency points: [4]"),
    ([row(4)], [row(4)], "did not add any generated points"),
    ([row(4)], [row(4), row(8, tp=8, image="other")], "unchanged non-null image"),
])
def test_delta_errors(base, head, fragment):
    with pytest.raises(InfxError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        delta_rows(base, head)


def config(**scenarios):
    return {"image": "i", "scenarios": scenarios}


def test_scope_allows_edits_inside_selected_scenario():
    base = {"a": config(**{"fixed-seq-len": [1]}), "b": config(**{"fixed-seq-len": [1]})}
    head = {"a": config(**{"fixed-seq-len": [1, 2]}), "b": base["b"]}
    check_scope(base, head, {"a": {"fixed-seq-len", "agentic-coding"}})


@pytest.mark.parametrize("head_a, head_b, fragment", [
    (None, config(**{"fixed-seq-len": [9]}), "changed configs not selected"),
    ({**config(**{"fixed-seq-len": [1], "agentic-coding": [1]}), "image": "j"}, None,
     "config-wide fields"),
    (config(**{"fixed-seq-len": [1], "agentic-coding": [2]}), None,
     "changed a scenario outside its changelog scope: 'a' / 'agentic-coding'"),
    (config(**{"fixed-seq-len": [1]}), None, "added or removed a scenario"),
])
def test_scope_errors(head_a, head_b, fragment):
    base = {"a": config(**{"fixed-seq-len": [1], "agentic-coding": [1]}),
            "b": config(**{"fixed-seq-len": [1]})}
    head = {"a": head_a or base["a"], "b": head_b or base["b"]}
    with pytest.raises(InfxError, match=fragment):
        check_scope(base, head, {"a": {"fixed-seq-len"}})


def test_scope_requires_selected_config_at_base():
    with pytest.raises(InfxError, match=r"missing: \['new'\]"):
        check_scope({}, {"new": config()}, {"new": {"fixed-seq-len"}})
