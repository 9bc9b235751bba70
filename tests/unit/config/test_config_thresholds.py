"""Eval thresholds: schema, lookup order, located errors."""

from __future__ import annotations

import pytest

from infx.config.thresholds import FALLBACK, load_thresholds, load_thresholds_text
from infx.errors import InfxError

AGENTIC_FLOORS = {"minimax_m3_*", "kimi_tool_call_*", "bfcl_*", "cruxeval_*", "mmlu_pro_2800",
                  "ruler_lite"}


def test_our_file_keeps_the_reference_values_and_adds_agentic_floors(repo_root,
                                                                   upstream_dir) -> None:
    ours = load_thresholds(repo_root / "configs/evals/thresholds.yaml")
    reference = load_thresholds(upstream_dir / "evals/thresholds.yaml")
    assert ours.models == reference.models
    assert {k: v for k, v in ours.default.items() if k in reference.default} == reference.default
    extras = {k: v for k, v in ours.default.items() if k not in reference.default}
    assert set(extras) == AGENTIC_FLOORS and set(extras.values()) == {0.0}
    assert ours.default["gsm8k"] == 0.90 and ours.models["qwen3.5"]["gsm8k"] == 0.94


def test_agentic_suites_have_a_zero_floor_in_our_file(repo_root) -> None:
    ours = load_thresholds(repo_root / "configs/evals/thresholds.yaml")
    assert ours.floor("minimaxm3", "minimax_m3_full") == (0.0, "default.minimax_m3_*")
    assert ours.floor("kimik3", "kimi_tool_call_schema_full") == (0.0, "default.kimi_tool_call_*")
    assert ours.floor("dsr1", "gsm8k") == (0.91, "models.dsr1.gsm8k")


def test_exact_task_beats_a_pattern_and_patterns_go_in_order() -> None:
    t = load_thresholds_text("default: {'bfcl_*': 0.1, bfcl_live: 0.3, 'bfcl_l*': 0.2}\n", "t.yaml")
    assert t.floor(None, "bfcl_live") == (0.3, "default.bfcl_live")
    assert t.floor(None, "bfcl_lite") == (0.1, "default.bfcl_*")
    assert t.floor(None, "bfclx") == (FALLBACK, "fallback")


def test_lookup_order() -> None:
    t = load_thresholds_text("default: {gsm8k: 0.9, bfcl: 0.0}\nmodels: {dsr1: {gsm8k: 0.91}}\n", "t.yaml")
    assert t.floor("dsr1", "gsm8k") == (0.91, "models.dsr1.gsm8k")
    assert t.floor("glm5", "gsm8k") == (0.9, "default.gsm8k")
    assert t.floor("dsr1", "bfcl") == (0.0, "default.bfcl")
    assert t.floor("dsr1", "unknown_task") == (FALLBACK, "fallback")


def test_legacy_flat_mapping_means_defaults_only() -> None:
    t = load_thresholds_text("gsm8k: 0.8\n", "t.yaml")
    assert t.floor("any", "gsm8k") == (0.8, "default.gsm8k")


@pytest.mark.parametrize("text,where", [
    ("default:\n  gsm8k: 1.5\n", "t.yaml:2 [default.gsm8k]"),
    ("default:\n  gsm8k: 0.9\nmodels:\n  dsr1:\n    gsm8k: high\n", "t.yaml:5 [models.dsr1.gsm8k]"),
    ("default: {gsm8k: 0.9}\nextra: 1\n", "t.yaml"),
    ("- 0.9\n", "t.yaml"),
    ("default: {gsm8k: 0.9\n", "t.yaml:"),
])
def test_errors_name_file_line_and_key(text, where) -> None:
    with pytest.raises(InfxError) as info:
        load_thresholds_text(text, "t.yaml")
    assert str(info.value).startswith(where)


def test_missing_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(InfxError, match="cannot read thresholds"):
        load_thresholds(tmp_path / "nope.yaml")
