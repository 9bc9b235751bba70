"""Markdown step summary of the shard jobs a plan starts (the plan itself is summarised by infx.plan.summary)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from infx.inert import cell, code, render_inert

if TYPE_CHECKING:
    from infx.workflow.shard import Duplicate


def _table(title: str, header: tuple[str, str], counts: Counter) -> list[str]:
    lines = [f"#### {title}", "", f"| {header[0]} | {header[1]} |", "|---|---:|"]
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], str(item[0]))):
        lines.append(f"| {cell(name, raw=True)} | {count} |")
    return lines + [""]


def shard_summary(shards: Mapping[str, list], duplicates: Sequence[Duplicate] = (),
                  canary: list | None = None) -> str:
    """The shard jobs the plan starts (each a matrix of at most 256 jobs) after the canary, and
    the exact repeats of a row the shard step dropped (one job per row)."""
    lines = ["### Matrix jobs", ""]
    if canary and isinstance(canary[0], Mapping):
        name = render_inert(code(str(canary[0].get("job-name", ""))))
        lines += [f"**Canary:** {name} runs first, alone; if it fails, no other job starts.", ""]
    if duplicates:
        total = sum(d.dropped for d in duplicates)
        lines += [f"Dropped {total} exact duplicate row(s): planned more than once, identical in every "
                  "field; each runs once.", "", "| bucket | job | copies dropped |", "|---|---|---:|"]
        lines += [f"| {cell(d.bucket, raw=True)} | {cell(d.job_name, raw=True)} | {d.dropped} |" for d in duplicates]
        lines.append("")
    if not shards:
        return "\n".join(lines + ["No matrix job starts: every bucket is empty.", ""])
    sizes = Counter({f"sweep-{name}": len(rows) for name, rows in shards.items()})
    return "\n".join(lines + _table("Jobs per matrix (max 256 each)", ("workflow job", "jobs"), sizes))
