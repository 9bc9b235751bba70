"""infx.workflow.summary: counts per bucket, per recipe and per runner."""

from __future__ import annotations

import json

from infx.workflow.shard import shard_plan
from infx.workflow.summary import plan_summary, recipe_of, shard_summary


def _row(runner: str, conc: int, prefix: str = "dsr1") -> dict:
    return {"model-prefix": prefix, "precision": "fp8", "framework": "sglang", "runner": runner,
            "conc": conc}


def test_summary_tables():
    plan = {"single_node": {"1k1k": [_row("mi355x", 4), _row("mi355x", 8)]},
            "evals": [_row("cluster:mi355x-amds", 4, "gptoss")],
            "changelog_metadata": {"entries": [{"config-keys": ["dsr1-fp8-mi355x-sglang"]}]}}
    text = plan_summary(plan)
    assert "**3** job(s) planned." in text
    assert "`dsr1-fp8-mi355x-sglang`" in text
    assert "| single-node-1k1k | 2 |" in text and "| evals | 1 |" in text
    assert "| dsr1 fp8 sglang mi355x | 2 |" in text
    assert "| mi355x | 2 |" in text and "| cluster:mi355x-amds | 1 |" in text
    shards = shard_summary(shard_plan(plan))
    assert "| sweep-single-node-1k1k-1 | 2 |" in shards and "| sweep-evals-1 | 1 |" in shards
    assert "every bucket is empty" in shard_summary({})


def test_empty_plan_says_nothing_to_dispatch():
    assert "Nothing to dispatch" in plan_summary({"single_node": {}, "evals": []})


def test_pipes_are_escaped():
    assert recipe_of({"model-prefix": "a|b"}) == "a|b"
    assert "a\\|b" in plan_summary({"evals": [{"model-prefix": "a|b", "runner": "r"}]})


def test_reference_plan_summary(upstream_dir):
    plan = json.loads((upstream_dir / "expected" / "plan-2.json").read_text())["plan"]
    text = plan_summary(plan)
    assert "**6** job(s) planned." in text
    assert "| single-node-8k1k | 2 |" in text and "| evals | 4 |" in text
