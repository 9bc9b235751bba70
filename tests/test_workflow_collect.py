"""infx.workflow.collect: aggregation of downloaded result files and the eval table."""

from __future__ import annotations

import json

import pytest

from infx.errors import InfxError
from infx.workflow.collect import collect_rows, eval_table


def test_collect_flattens_in_path_order(tmp_path):
    (tmp_path / "bmk_b").mkdir()
    (tmp_path / "bmk_a").mkdir()
    (tmp_path / "bmk_b" / "agg_b.json").write_text(json.dumps({"conc": 2}))
    (tmp_path / "bmk_a" / "agg_a.json").write_text(json.dumps([{"conc": 1}, {"conc": 0}]))
    (tmp_path / "bmk_a" / "notes.txt").write_text("ignored")
    assert collect_rows(tmp_path) == [{"conc": 1}, {"conc": 0}, {"conc": 2}]


def test_collect_rejects_bad_json(tmp_path):
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(InfxError, match="not valid JSON"):
        collect_rows(tmp_path)


def test_eval_table():
    text = eval_table([{"model_prefix": "dsr1", "hw": "MI355X", "framework": "sglang", "precision": "fp8",
                        "conc": 4, "task": "gsm8k", "score": 0.95123}])
    assert "| dsr1 | MI355X | sglang | fp8 | 4 | gsm8k | 0.9512 |" in text
    assert "No eval results" in eval_table([])
