"""The names table: generator, planner buckets, workflow jobs and policy ids all spell scenarios from it."""

from __future__ import annotations

from pathlib import Path

from infx import yamlio
from infx.config.scenarios import (
    AGENTIC,
    AGENTIC_ID,
    SEQ_LENS,
    SWEPT_SEQ_LENS,
    scenario_id,
    scenario_title,
    seq_name,
)
from infx.plan.shaping import bucket_name
from infx.plan.sweep_plan import EVAL_BUCKETS
from infx.workflow.shard import BUCKETS

WORKFLOW = Path(__file__).resolve().parents[3] / ".github/workflows/run-sweep.yml"


def test_swept_names_and_the_fallbacks():
    assert SWEPT_SEQ_LENS == {"1k1k": (1024, 1024), "8k1k": (8192, 1024)}
    assert seq_name(8192, 1024) == "8k1k" and seq_name(1024, 8192) == "1024_8192"
    assert scenario_id(1024, 8192) == "1k8k" and scenario_id(2048, 128) == "2048/128"
    assert scenario_title("8k1k") == "Single-turn 8k1k"
    assert scenario_title(AGENTIC_ID) == "Agentic coding" and scenario_title("x") == "x"
    assert [s.name for s in SEQ_LENS if not s.swept] == ["1k8k"]


def test_plan_buckets_use_the_table():
    assert bucket_name({"isl": 1024, "osl": 1024}) == "1k1k"
    assert bucket_name({"scenario-type": AGENTIC}) == AGENTIC_ID


def test_the_workflow_buckets_are_the_tables_buckets():
    """Every benchmark bucket the planner can fill (node × swept sequence length or agentic)
    and every eval bucket has shard jobs, and no bucket is left over."""
    planned = {(node, name) for node in ("single_node", "multi_node")
               for name in [*SWEPT_SEQ_LENS, AGENTIC_ID]} | {(name,) for name in EVAL_BUCKETS}
    assert {bucket.path for bucket in BUCKETS} == planned


def test_run_sweep_declares_every_slot_of_every_bucket():
    jobs = yamlio.load_file(WORKFLOW)["jobs"]
    declared = {name for name in jobs if name.startswith("sweep-")}
    wanted = {f"sweep-{bucket.id}-{i}" for bucket in BUCKETS for i in range(1, bucket.slots + 1)}
    assert declared == wanted
