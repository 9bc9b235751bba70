"""Markdown step summary of a sweep plan: jobs per bucket, per recipe and per runner."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from infx.workflow.shard import BUCKETS, bucket_rows


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(title: str, header: tuple[str, str], counts: Counter) -> list[str]:
    lines = [f"#### {title}", "", f"| {header[0]} | {header[1]} |", "|---|---:|"]
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], str(item[0]))):
        lines.append(f"| {_cell(name)} | {count} |")
    return lines + [""]


def recipe_of(row: Mapping[str, Any]) -> str:
    """A readable recipe identity: model prefix, precision, framework and runner."""
    parts = [row.get("model-prefix"), row.get("precision"), row.get("framework"), row.get("runner")]
    return " ".join(str(p) for p in parts if p not in (None, ""))


def shard_summary(shards: Mapping[str, list]) -> str:
    """The shard jobs the plan starts (each a matrix of at most 256 jobs)."""
    if not shards:
        return "### Matrix jobs\n\nNo matrix job starts: every bucket is empty.\n"
    sizes = Counter({f"sweep-{name}": len(rows) for name, rows in shards.items()})
    return "\n".join(["### Matrix jobs", "", *_table("Jobs per matrix (max 256 each)",
                                                      ("workflow job", "jobs"), sizes)])


def plan_summary(plan: Mapping[str, Any]) -> str:
    """Job counts per bucket, recipe and runner (the planner's own summary adds config keys)."""
    per_bucket: Counter = Counter()
    per_recipe: Counter = Counter()
    per_runner: Counter = Counter()
    for bucket in BUCKETS:
        for row in bucket_rows(plan, bucket):
            per_bucket[bucket.id] += 1
            per_recipe[recipe_of(row)] += 1
            per_runner[row.get("runner", "?")] += 1
    total = sum(per_bucket.values())
    lines = ["### Sweep plan", "", f"**{total}** job(s) planned."]
    metadata = plan.get("changelog_metadata") or {}
    keys = [k for entry in metadata.get("entries") or [] for k in entry.get("config-keys") or []]
    if keys:
        lines += ["", "Changelog config keys: " + ", ".join(f"`{_cell(k)}`" for k in keys)]
    lines.append("")
    if total == 0:
        lines.append("Nothing to dispatch: every bucket is empty.")
        return "\n".join(lines) + "\n"
    lines += _table("Per bucket", ("bucket", "jobs"), per_bucket)
    lines += _table("Per recipe", ("recipe", "jobs"), per_recipe)
    lines += _table("Per runner", ("runner", "jobs"), per_runner)
    return "\n".join(lines)
