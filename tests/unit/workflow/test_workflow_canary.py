"""infx.workflow.canary: the lowest-concurrency single-node non-eval row, taken out of its bucket."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.errors import InfxError
from infx.plan.identity import identity_fields, job_name
from infx.plan.sweep_plan import Plan
from infx.workflow.canary import outputs, pick, split


def _row(conc, **extra) -> dict:
    return {"model-prefix": "dsr1", "precision": "fp4", "runner": "mi355x", "framework": "atom",
            "isl": 1024, "osl": 1024, "tp": 8, "conc": conc} | extra


def test_lowest_concurrency_wins_ties_go_to_the_earlier_row():
    plan = {"single_node": {"1k1k": [_row(8), _row(4, tp=4)], "8k1k": [_row(4, isl=8192), _row(2, **{"run-eval": True})]}}
    assert pick(Plan.from_json(plan)) == ("1k1k", 1)
    row, rest = split(Plan.from_json(plan))
    assert row == _row(4, tp=4)
    assert rest.bucket(("single_node", "1k1k")) == [_row(8)]
    assert rest.bucket(("single_node", "8k1k")) == plan["single_node"]["8k1k"]
    assert plan["single_node"]["1k1k"] == [_row(8), _row(4, tp=4)]  # input untouched


@pytest.mark.parametrize("plan", [
    {},
    {"single_node": {"agentic": [_row(1, **{"scenario-type": "agentic-coding"})]}},
    {"multi_node": {"1k1k": [_row(1)]}},
    {"evals": [_row(1, **{"eval-only": True})]},
    {"single_node": {"1k1k": [_row(1, **{"run-eval": True}), _row("4"), _row(True)]}},
])
def test_no_candidate(plan):
    assert pick(Plan.from_json(plan)) is None
    assert outputs(Plan.from_json(plan), True)[0]["canary"] == []


def test_outputs_name_the_canary_and_count_it():
    plan = {"single_node": {"1k1k": [_row(1)]}, "evals": [_row(4, **{"eval-only": True})]}
    out, _ = outputs(Plan.from_json(plan), True)
    assert out["shards"] == ["evals-1"] and out["jobs"] == 2
    assert out["has-throughput"] is True  # collect-results must collect the canary's result
    assert [identity_fields(r) for r in out["canary"]] == [_row(1)]
    assert out["canary"][0]["job-name"] == job_name(_row(1))  # the same name its family gives it
    off, _ = outputs(Plan.from_json(plan), False)
    assert off["canary"] == [] and off["shards"] == ["single-node-1k1k-1", "evals-1"]


def test_an_exact_repeat_of_the_canary_runs_once_as_the_canary():
    out, duplicates = outputs(Plan.from_json({"single_node": {"1k1k": [_row(1), _row(8), _row(1)]}}), True)
    assert [r["conc"] for r in out["canary"]] == [1]
    assert [r["conc"] for r in out["matrix"]["single-node-1k1k-1"]] == [8]
    assert out["jobs"] == 2 and [d.dropped for d in duplicates] == [1]
    with pytest.raises(InfxError, match="not a JSON object"):
        split(Plan.from_json([]))


_concs = st.lists(st.integers(min_value=1, max_value=512), max_size=8)


@settings(max_examples=60, deadline=None)
@given(_concs, _concs, st.lists(st.booleans(), max_size=8))
def test_property_canary_is_a_minimum_and_rows_are_kept(a, b, evals):
    plan = {"single_node": {
        "1k1k": [_row(c, tp=i + 1, **{"run-eval": evals[i] if i < len(evals) else False}) for i, c in enumerate(a)],
        "8k1k": [_row(c, isl=8192, tp=i + 1) for i, c in enumerate(b)]}}
    before = copy.deepcopy(plan)
    row, rest = split(Plan.from_json(plan))
    candidates = [r for r in plan["single_node"]["1k1k"] + plan["single_node"]["8k1k"] if r.get("run-eval") is not True]
    if not candidates:
        assert row is None and rest.to_json() == plan
        return
    assert row["conc"] == min(r["conc"] for r in candidates) and row.get("run-eval") is not True
    remaining = rest.bucket(("single_node", "1k1k")) + rest.bucket(("single_node", "8k1k"))
    everything = before["single_node"]["1k1k"] + before["single_node"]["8k1k"]
    assert sorted(map(repr, remaining + [row] * everything.count(row))) == sorted(map(repr, everything))
    assert plan == before
