"""The canary: a PR sweep's lowest-concurrency single-node non-eval row, run alone before every family.

A broken image or launcher then fails one GPU job instead of every job of every family
(research/workflows.md §1.7). Candidates are the single-node `1k1k` and `8k1k` rows whose
`run-eval` is not true; the lowest `conc` wins, ties going to the earlier row in plan order
(1k1k before 8k1k). The row is taken out of its bucket, so it runs exactly once; a plan
without a candidate has no canary and its families start at once.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from infx.plan.sweep_plan import SINGLE_NODE, Plan
from infx.workflow.shard import (
    CANARY,
    MAX_MATRIX_JOBS,
    Duplicate,
    check_output_size,
    name_rows,
    shard_outputs,
    shard_rows,
)

CANDIDATE_BUCKETS: tuple[str, ...] = ("1k1k", "8k1k")  # single-node buckets


def _conc(row: Mapping[str, Any]) -> float | None:
    value = row.get("conc")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def pick(plan: Plan) -> tuple[str, int] | None:
    """(single-node bucket, index) of the canary row, or None when no row qualifies.

    A row whose concurrency is not a number is never picked (it could not be ordered)."""
    best: tuple[float, str, int] | None = None
    for bucket in CANDIDATE_BUCKETS:
        for index, row in enumerate(plan.bucket((SINGLE_NODE, bucket))):
            if row.get("run-eval") is True:
                continue
            conc = _conc(row)
            if conc is not None and (best is None or conc < best[0]):
                best = (conc, bucket, index)
    return None if best is None else (best[1], best[2])


def split(plan: Plan) -> tuple[dict[str, Any] | None, Plan]:
    """(the canary row or None, the plan without it); the input is not modified."""
    chosen = pick(plan)
    if chosen is None:
        return None, plan
    bucket, index = chosen
    path = (SINGLE_NODE, bucket)
    row = copy.deepcopy(plan.bucket(path)[index])
    # exact repeats of the row are the same job (the shard step runs one): none stays behind
    return row, plan.filter_rows(lambda r, place: not (place.bucket == path and r == row))


def outputs(plan: Plan, enabled: bool, limit: int = MAX_MATRIX_JOBS
            ) -> tuple[dict[str, Any], tuple[Duplicate, ...]]:
    """The plan job's outputs (infx.workflow.shard.shard_outputs) plus `canary`: the canary row,
    named by its identity, as a 0- or 1-element list; the matrix then holds the other rows.
    Also the exact repeats the shard step dropped (for the summary).

    `jobs` and `has-throughput` count the canary too (collect-results must run for it)."""
    whole = shard_rows(plan, limit)  # the whole plan named: identities checked, repeats counted
    row, rest = split(plan) if enabled else (None, plan)
    result = shard_outputs(whole if row is None else shard_rows(rest, limit))
    canary = [] if row is None else name_rows([row], CANARY, {})
    if canary:
        result["jobs"] += 1
        result["has-throughput"] = True
    result["canary"] = canary
    check_output_size(result)
    return result, whole.duplicates
