"""infx.workflow.shard_summary: the shard jobs a plan starts."""

from __future__ import annotations

from infx.plan.sweep_plan import Plan
from infx.workflow.shard import shard_plan
from infx.workflow.shard_summary import shard_summary


def _row(runner: str, conc: int, prefix: str = "dsr1") -> dict:
    return {"model-prefix": prefix, "precision": "fp8", "framework": "sglang", "runner": runner,
            "conc": conc}


def test_shard_summary():
    plan = {"single_node": {"1k1k": [_row("mi355x", 4), _row("mi355x", 8)]},
            "evals": [_row("cluster:mi355x-amds", 4, "gptoss")],
            "changelog_metadata": {"entries": [{"config-keys": ["dsr1-fp8-mi355x-sglang"]}]}}
    shards = shard_summary(shard_plan(Plan.from_json(plan)))
    assert "| sweep-single-node-1k1k-1 | 2 |" in shards and "| sweep-evals-1 | 1 |" in shards
    assert "every bucket is empty" in shard_summary({})


def test_shard_summary_names_the_canary():
    canary = [{"job-name": "dsr1 fp8 mi355x sglang 1k1k TP8 c4 #0123abcd"}]
    text = shard_summary({}, (), canary)
    assert "**Canary:** `dsr1 fp8 mi355x sglang 1k1k TP8 c4 #0123abcd` runs first" in text
    assert "every bucket is empty" in text
