"""infx.workflow.shard: no matrix above 256 jobs, empty buckets never produce a shard."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.errors import InfxError
from infx.inert import cell
from infx.plan.identity import identity_fields, job_name
from infx.plan.sweep_plan import Plan
from infx.workflow.shard import (
    BUCKETS,
    MAX_MATRIX_JOBS,
    all_shard_ids,
    bucket_of_job,
    caller_name,
    check_output_size,
    shard_id,
    shard_outputs,
    shard_plan,
    shard_rows,
    split_evenly,
)
from infx.workflow.shard_summary import shard_summary


def _rows(n: int, tag: str = "r") -> list[dict]:
    return [{"exp-name": f"{tag}{i}", "conc": i} for i in range(n)]


def test_small_plan_keeps_one_shard_per_non_empty_bucket():
    plan = {"single_node": {"1k1k": _rows(3), "agentic": []}, "multi_node": {},
            "evals": _rows(2, "e"), "agentic_evals": [], "changelog_metadata": {"entries": []}}
    out = shard_outputs(Plan.from_json(plan))
    assert out["shards"] == ["single-node-1k1k-1", "evals-1"]
    assert out["jobs"] == 5 and out["has-throughput"] and out["has-evals"]


def test_large_bucket_is_split_evenly_in_order():
    plan = {"single_node": {"8k1k": _rows(300)}}
    shards = shard_plan(Plan.from_json(plan))
    assert [len(v) for v in shards.values()] == [150, 150]
    joined = shards["single-node-8k1k-1"] + shards["single-node-8k1k-2"]
    assert [identity_fields(r) for r in joined] == plan["single_node"]["8k1k"]
    assert all(r["job-name"] == job_name(r) for r in joined)


def test_bucket_above_its_slots_fails_naming_bucket_and_size():
    with pytest.raises(InfxError) as info:
        shard_plan(Plan.from_json({"evals": _rows(257)}))
    assert "bucket evals has 257 jobs" in str(info.value)
    with pytest.raises(InfxError, match="single-node-1k1k has 513 jobs"):
        shard_plan(Plan.from_json({"single_node": {"1k1k": _rows(513)}}))


def test_unknown_bucket_fails_instead_of_dropping_rows():
    with pytest.raises(InfxError, match="single_node.2k2k"):
        shard_plan(Plan.from_json({"single_node": {"2k2k": _rows(1)}}))
    with pytest.raises(InfxError, match="not a list"):
        shard_plan(Plan.from_json({"evals": {"x": 1}}))
    with pytest.raises(InfxError, match="not a JSON object"):
        shard_plan(Plan.from_json([]))


def test_empty_plan():
    out = shard_outputs(Plan.from_json({"single_node": {}, "multi_node": {}, "evals": []}))
    assert out == {"matrix": {}, "shards": [], "jobs": 0, "has-throughput": False, "has-evals": False}


def test_outputs_over_githubs_per_job_limit_fail_naming_the_largest_shard():
    plan = {"single_node": {"1k1k": _rows(200),
                            "8k1k": [{"exp-name": "b", "conc": 1000 + i} for i in range(10)]}}
    outputs = shard_outputs(Plan.from_json(plan))  # well under 1 MB
    with pytest.raises(InfxError) as info:
        check_output_size(outputs, limit=2000)
    text = str(info.value)
    assert "GitHub allows 2,000 bytes of outputs per job" in text
    assert "largest shards: single-node-1k1k-1 " in text
    assert info.value.problems[0].key == "single-node-1k1k-1"
    big = [{"exp-name": "x" * 5000, "model": "y" * 5000, "conc": i} for i in range(250)]
    with pytest.raises(InfxError, match=r"plan's matrix output is [\d,]+ bytes"):
        shard_outputs(Plan.from_json({"single_node": {"1k1k": big}}))


def test_shard_ids_cover_every_slot():
    assert len(all_shard_ids()) == sum(b.slots for b in BUCKETS)
    assert len(set(all_shard_ids())) == len(all_shard_ids())


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2000), st.integers(min_value=1, max_value=300))
def test_property_split_evenly(n, limit):
    rows = list(range(n))
    chunks = split_evenly(rows, limit)
    assert [x for c in chunks for x in c] == rows
    assert all(0 < len(c) <= limit for c in chunks)
    if chunks:
        assert max(map(len, chunks)) - min(map(len, chunks)) <= 1
        assert len(chunks) == -(-n // limit)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.sampled_from([b.id for b in BUCKETS]), st.integers(0, 600), max_size=10))
def test_property_every_row_lands_in_exactly_one_small_shard(sizes):
    plan: dict = {}
    for bucket in BUCKETS:
        rows = _rows(sizes.get(bucket.id, 0), bucket.id)
        node = plan
        for step in bucket.path[:-1]:
            node = node.setdefault(step, {})
        node[bucket.path[-1]] = rows
    over = [b for b in BUCKETS if sizes.get(b.id, 0) > b.slots * MAX_MATRIX_JOBS]
    if over:
        with pytest.raises(InfxError):
            shard_plan(Plan.from_json(plan))
        return
    shards = shard_plan(Plan.from_json(plan))
    assert all(0 < len(rows) <= MAX_MATRIX_JOBS for rows in shards.values())
    assert sum(len(r) for r in shards.values()) == sum(sizes.values())


def test_rows_are_named_by_their_identity():
    row = {"model-prefix": "dsr1", "precision": "fp4", "runner": "mi355x", "framework": "sglang",
           "isl": 1024, "osl": 1024, "tp": 8, "conc": 4}
    shards = shard_plan(Plan.from_json({"single_node": {"1k1k": [row, row | {"conc": 8}]}}))
    names = [r["job-name"] for r in shards["single-node-1k1k-1"]]
    assert names[0].startswith("dsr1 fp4 mi355x sglang 1k1k TP8 c4 #") and len(set(names)) == 2
    # an annotation from an earlier pass never changes the name
    again = shard_plan(Plan.from_json({"single_node": {"1k1k": shards["single-node-1k1k-1"]}}))
    assert [r["job-name"] for r in again["single-node-1k1k-1"]] == names
    with pytest.raises(InfxError, match="row 1 of bucket evals is not a JSON object"):
        shard_plan(Plan.from_json({"evals": [row | {"eval-only": True}, 3]}))


def test_exact_repeats_of_a_row_run_once_and_are_reported():
    row = {"model-prefix": "qwen3.5", "precision": "fp8", "runner": "b200", "framework": "sglang",
           "scenario-type": "agentic-coding", "tp": 4, "conc": 8}
    other = row | {"conc": 16}
    # JSON numbers as GitHub reads them and scheduling annotations do not make a row different
    plan = {"single_node": {"agentic": [row, other, dict(row), row | {"conc": 8.0, "priority": 3}, other]}}
    sharding = shard_rows(Plan.from_json(plan))
    rows = sharding.shards["single-node-agentic-1"]
    assert [r["conc"] for r in rows] == [8, 16]
    assert [(d.bucket, d.dropped) for d in sharding.duplicates] == [("single-node-agentic", 2),
                                                                    ("single-node-agentic", 1)]
    assert sharding.duplicates[0].job_name == rows[0]["job-name"]
    assert shard_outputs(Plan.from_json(plan))["jobs"] == 2
    summary = shard_summary(sharding.shards, sharding.duplicates)
    assert "Dropped 3 exact duplicate row(s)" in summary and f"| {cell(rows[1]['job-name'], raw=True)} | 1 |" in summary
    assert "Dropped" not in shard_summary(sharding.shards)
    # the same row planned in two buckets is still one job (artifact names are run-wide)
    twice = shard_rows(Plan.from_json({"single_node": {"agentic": [row]}, "agentic_evals": [row]}))
    assert sum(map(len, twice.shards.values())) == 1 and twice.duplicates[0].bucket == "agentic-evals"


def test_two_different_rows_with_one_identity_are_refused(monkeypatch):
    row = {"model-prefix": "dsr1", "precision": "fp4", "runner": "mi355x", "framework": "sglang",
           "isl": 1024, "osl": 1024, "tp": 8, "conc": 4}
    monkeypatch.setattr("infx.plan.identity.digest", lambda _row: "00000000")  # a collision
    with pytest.raises(InfxError, match="two different rows of the plan have the same identity") as info:
        shard_plan(Plan.from_json({"single_node": {"1k1k": [row, row | {"image": "other"}]}}))
    assert "digest collision" in str(info.value)


def test_caller_names_match_run_sweep_and_are_recognised_exactly():
    from pathlib import Path

    from infx.yamlio import load_file

    workflow = load_file(Path(__file__).resolve().parents[3] / ".github/workflows/run-sweep.yml")
    for bucket in BUCKETS:
        for index in range(1, bucket.slots + 1):
            job = workflow["jobs"][f"sweep-{shard_id(bucket, index)}"]
            assert job["name"] == caller_name(bucket, index)
            assert bucket_of_job(f"{job['name']} / x #00000000") is bucket
    assert bucket_of_job("agentic / x").id == "single-node-agentic"
    assert bucket_of_job("single-node 8k1k (shard 2) / x").id == "single-node-8k1k"
    assert bucket_of_job("canary / x").id == "canary"  # the canary job counts like its family
    assert workflow["jobs"]["canary"]["name"] == "canary"
    for other in ("single-node agentic / x", "canary-sweep / x", "collect-results", "single-node 8k1k", "eval x / y"):
        assert bucket_of_job(other) is None


def test_an_adopters_sweep_prefix_is_dropped_once_and_only_that_prefix():
    """An adopter's run-sweep.yml calls ours as one job `sweep`, so GitHub names its rows
    `sweep / <caller> / <row>`: the same bucket and row; no other prefix, and not twice."""
    from infx.plan.coverage import row_name
    from infx.plan.identity import ADOPTED_SWEEP_JOB, parse_job_name

    row = "dsr1 fp4 mi355x atom 8k1k TP8 c4 #1a2b3c4d"
    assert ADOPTED_SWEEP_JOB == "sweep"
    for caller in ("canary", "single-node 8k1k (shard 2)", "eval"):
        assert bucket_of_job(f"sweep / {caller} / {row}") is bucket_of_job(f"{caller} / {row}") is not None
        assert row_name(f"sweep / {caller} / {row}") == row_name(f"{caller} / {row}") == row
        assert parse_job_name(f"sweep / {caller} / {row}") == parse_job_name(f"{caller} / {row}") is not None
    for other in ("sweep / sweep / canary / x", "run / canary / x", "sweep / setup", "sweep / collect-results",
                  "sweep/canary / x", "Sweep / canary / x"):
        assert bucket_of_job(other) is None, other
