"""Eval thresholds: schema, lookup order, located errors."""

from __future__ import annotations

import pytest

from infx.config.thresholds import FALLBACK, load_thresholds, load_thresholds_text
from infx.errors import InfxError


def test_our_file_matches_the_reference_values(repo_root, upstream_dir) -> None:
    ours = load_thresholds(repo_root / "configs/evals/thresholds.yaml")
    reference = load_thresholds(upstream_dir / "evals/thresholds.yaml")
    assert ours == reference
    assert ours.default["gsm8k"] == 0.90 and ours.models["qwen3.5"]["gsm8k"] == 0.94


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
