"""Markdown summary of a plan: job counts per bucket, per config key and per runner."""

from __future__ import annotations

import os
import sys
from typing import Any

from infx.config.keys import KeyResolutionError, Wildcards, resolve_config_keys
from infx.plan.shaping import EVAL_BUCKETS


def summary_markdown(plan: dict, configs: Any = None) -> str:
    """Counts per bucket, per config key and per runner, as markdown."""
    buckets: list[tuple[str, list[dict]]] = []
    for node in ("single_node", "multi_node"):
        buckets += [(f"{node}.{name}", rows) for name, rows in plan[node].items()]
    buckets += [(name, plan[name]) for name in EVAL_BUCKETS]
    lines = ["### Sweep plan", "", "| bucket | jobs |", "|---|---|"]
    lines += [f"| `{name}` | {len(rows)} |" for name, rows in buckets if rows]
    total = sum(len(rows) for _, rows in buckets)
    lines += [f"| **total** | {total} |", ""]
    every_row = [row for _, rows in buckets for row in rows]
    candidates = _planned_keys(plan, configs) if configs is not None else []
    lines += _count_table("config key",
                          [_key_of(row, configs, candidates) for row in every_row])
    lines += _count_table("runner", [str(row.get("runner")) for row in every_row])
    return "\n".join(lines) + "\n"


def _count_table(title: str, values: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    rows = [f"| `{name}` | {count} |" for name, count in sorted(counts.items())]
    return [f"| {title} | jobs |", "|---|---|", *rows, ""]


_IDENTITY = ("image", "model", "model-prefix", "precision", "framework", "runner")


def _planned_keys(plan: dict, configs: Any) -> list[str]:

    keys: dict[str, None] = {}
    for entry in plan["changelog_metadata"]["entries"]:
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
