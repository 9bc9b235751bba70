"""Markdown summary of a plan for the step summary: jobs and GPUs per bucket, per config key and per runner."""

from __future__ import annotations

import os
import sys
from typing import Any

from infx.config.keys import KeyResolutionError, Wildcards, resolve_config_keys
from infx.inert import cell, code
from infx.plan.gpus import row_gpus
from infx.plan.sweep_plan import Plan

COLLAPSE_AFTER = 10  # a table of more rows is folded into <details>


def summary_markdown(plan: Plan, configs: Any = None) -> str:
    """Jobs and GPUs per bucket, per config key and per runner, as markdown: each table sorted by
    jobs (most first), tables of more than COLLAPSE_AFTER rows folded in <details>."""
    buckets = [(".".join(path), rows) for path, rows in plan.buckets()]
    every_row = [row for _, rows in buckets for row in rows]
    total_gpus = sum(row_gpus(row) for row in every_row)
    lines = ["### Sweep plan", "",
             f"{len(every_row)} job(s) on {total_gpus} GPU(s) in all (a job's GPUs: tp x pp x pcp-size, "
             "for a disaggregated row over every prefill and decode worker).", ""]
    tagged = [(name, row) for name, rows in buckets for row in rows]
    lines += _count_table("bucket", tagged, total=True)
    candidates = _planned_keys(plan, configs) if configs is not None else []
    lines += _count_table("config key", [(_key_of(row, configs, candidates), row) for row in every_row])
    lines += _count_table("runner", [(str(row.get("runner")), row) for row in every_row])
    return "\n".join(lines) + "\n"


def _count_table(title: str, tagged: list[tuple[str, dict]], total: bool = False) -> list[str]:
    """Jobs and GPUs per name, most jobs first (ties by name); folded when long."""
    jobs: dict[str, int] = {}
    gpus: dict[str, int] = {}
    for name, row in tagged:
        jobs[name] = jobs.get(name, 0) + 1
        gpus[name] = gpus.get(name, 0) + row_gpus(row)
    order = sorted(jobs, key=lambda name: (-jobs[name], name))
    table = [f"| {title} | jobs | GPUs |", "|---|---:|---:|"]
    table += [f"| {cell(code(name))} | {jobs[name]} | {gpus[name]} |" for name in order]
    if total:
        table.append(f"| **total** | {sum(jobs.values())} | {sum(gpus.values())} |")
    if len(order) <= COLLAPSE_AFTER:
        return [*table, ""]
    # the summary line is raw HTML, where markdown escapes do not hold: numbers only, no names
    head = f"{len(order)} {title}s, most jobs first: {sum(jobs.values())} jobs, {sum(gpus.values())} GPUs"
    return [f"<details><summary>{head}</summary>", "", *table, "", "</details>", ""]


_IDENTITY = ("image", "model", "model-prefix", "precision", "framework", "runner")


def _planned_keys(plan: Plan, configs: Any) -> list[str]:

    keys: dict[str, None] = {}
    for entry in plan.entries():
        try:
            keys.update(dict.fromkeys(resolve_config_keys(entry["config-keys"], configs, Wildcards.STAR)))
        except KeyResolutionError:
            continue
    return list(keys)


def _spec_decodings(config: dict) -> set[str]:
    found: set[str] = set()
    for blocks in (config.get("scenarios") or {}).values():
        for block in blocks or []:
            for item in block.get("search-space") or []:
                found.add(item.get("spec-decoding", "none"))
    return found


def _key_of(row: dict, configs: Any, candidates: list[str]) -> str:
    """The config key a row came from (rows do not carry it; match on identity fields)."""
    if configs is None:
        return "?"
    names = [k for k in candidates if all(configs[k].get(f) == row.get(f) for f in _IDENTITY)]
    if len(names) > 1:
        names = [k for k in names if row.get("spec-decoding") in _spec_decodings(configs[k])]
    return " / ".join(names) if names else "?"


def write_summary(markdown: str) -> None:
    """Append to the Actions step summary when there is one, else print to stderr."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(markdown)
    else:
        sys.stderr.write(markdown)
