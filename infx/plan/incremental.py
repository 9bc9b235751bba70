"""Incremental re-sweeps: a head's plan from its tree, and that plan less the rows earlier runs cover.

On a push to a labeled PR only rows whose fingerprint (infx.plan.fingerprint) has no
green result in an earlier in-PR run are planned (infx.plan.coverage decides); the rest
are listed as reused with their source run. Pure: trees are path -> text mappings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from infx.config.master import load_master_configs_from_texts
from infx.config.runners import load_runners_from_text
from infx.errors import InfxError, Problem
from infx.plan.benchmark_content import CHANGELOG, Tree
from infx.plan.coverage import Coverage
from infx.plan.identity import job_name
from infx.plan.planner import (
    PlanFlags,
    Sources,
    appended_entries,
    build_plan,
    link_corrections,
    no_plan,
)
from infx.plan.sweep_plan import Plan
from infx.yamlio import load_text

RUNNERS = "configs/runners.yaml"
ROOT_MASTER = re.compile(r"^configs/[^/]+-master\.yaml$")  # what `infx plan` reads by default


def _masters(tree: Tree) -> list[tuple[str, str]]:
    return [(p, t) for p, t in sorted(tree.items()) if t is not None and ROOT_MASTER.match(p)]


def _runners(tree: Tree, where: str) -> Any:
    text = tree.get(RUNNERS)
    if text is None:
        raise InfxError(Problem(f"{RUNNERS} is missing at {where}", file=RUNNERS))
    return load_runners_from_text(RUNNERS, text)


def plan_from_trees(base: Tree, head: Tree, flags: PlanFlags, *, base_ref: str, head_ref: str) -> Plan:
    """The plan `infx plan --base-ref base --head-ref head` prints, from the two trees."""
    head_text = head.get(CHANGELOG)
    if head_text is None:
        raise InfxError(Problem(f"{CHANGELOG} is missing at {head_ref}", file=CHANGELOG))
    entries = appended_entries(base.get(CHANGELOG), head_text, CHANGELOG)
    base_text = base.get(CHANGELOG)
    if not entries and base_text is not None and base_text != head_text and link_corrections(
            base_text.encode("utf-8"), head_text.encode("utf-8"), CHANGELOG, None):
        # only pr-link corrections: nothing to plan, as `infx plan` decides (every bucket empty)
        return no_plan(base_ref, head_ref)
    if not entries:
        raise InfxError(Problem(f"{CHANGELOG} at {head_ref} appends no entry to {base_ref}",
                                file=CHANGELOG, fix="append an entry at the end of the changelog"))

    def load_base() -> tuple[Any, Any, dict, dict]:
        base_raw: dict = {}
        for name, text in _masters(base):
            base_raw.update(load_text(text, name) or {})
        head_raw: dict = {}
        for name, text in _masters(head):
            head_raw.update(load_text(text, name) or {})
        return (load_master_configs_from_texts(_masters(base)), _runners(base, base_ref), base_raw, head_raw)

    sources = Sources(load_configs=lambda: load_master_configs_from_texts(_masters(head)),
                      load_runners=lambda: _runners(head, head_ref), load_base=load_base)
    return build_plan(entries, base_ref=base_ref, head_ref=head_ref, flags=flags, sources=sources)


def without(plan: Plan, names: set[str] | frozenset[str]) -> Plan:
    """A copy of the plan without the rows whose job name is in `names` (empty buckets kept)."""
    return plan.filter_rows(lambda row, _place: job_name(row) not in names)


def summary(coverage: Coverage, planned: int, urls: Mapping[int, str], limit: int = 200) -> str:
    """Markdown for the step summary: how many rows run now, and every reused row with its run."""
    lines = [f"### Incremental re-sweep: {planned} row(s) to run, {len(coverage.reused)} reused", ""]
    if coverage.stale:
        lines += [f"{len(coverage.stale)} row(s) ran green before, but on other benchmark content: "
                  "they run again.", ""]
    if coverage.reused:
        lines += ["| reused row | source run |", "|---|---|"]
        for name, run_id in sorted(coverage.reused.items())[:limit]:
            run = f"[{run_id}]({urls[run_id]})" if urls.get(run_id) else str(run_id)
            lines.append(f"| `{name}` | {run} |")
        if len(coverage.reused) > limit:
            lines.append(f"| … and {len(coverage.reused) - limit} more | |")
    return "\n".join(lines) + "\n"
