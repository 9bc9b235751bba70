"""The `agentx-fast` modifier: AgentX throughput rows run the short profile (PRODUCT §4.4).

As the reference defines it: with the label, every agentic-coding throughput row (the
`single_node.agentic` and `multi_node.agentic` buckets; never fixed-sequence rows, never eval
rows) runs one warmup request per trajectory lane after the primers and a 20-minute profile
instead of ten warmups and the recipe's duration. The launcher tells the recipe through
`AIPERF_EXPERIMENTAL_FAST=1` (infx.workflow.launch), the variable the reference's benchmark
library reads.

A fast row carries `agentx-fast: true`, which is part of its identity (not an annotation):
its job name, result names and fingerprint differ from the canonical row's, so no coverage
decision (incremental re-sweep, merge-time reuse, the sign-off's matching of jobs to plan rows)
can ever take a fast result for a canonical one. A PR with the label never reuses a sweep
(infx.plan.labels.REUSE_INCOMPATIBLE_LABELS). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infx.config.scenarios import AGENTIC_ID
from infx.plan.sweep_plan import MULTI_NODE, SINGLE_NODE, Plan

FAST_FIELD = "agentx-fast"
FAST_BUCKETS = ((SINGLE_NODE, AGENTIC_ID), (MULTI_NODE, AGENTIC_ID))


def is_fast_target(row: Any) -> bool:
    """An AgentX throughput row: agentic-coding and not an eval."""
    return (isinstance(row, Mapping) and row.get("scenario-type") == "agentic-coding"
            and row.get("eval-only") is not True)


def mark_fast(plan: Plan) -> Plan:
    """A copy of the plan whose AgentX throughput rows carry `agentx-fast: true`."""
    return plan.map_rows(lambda row, place: {**row, FAST_FIELD: True}
                         if place.bucket in FAST_BUCKETS and is_fast_target(row) else row)


def is_fast(row: Mapping[str, Any]) -> bool:
    return row.get(FAST_FIELD) is True
