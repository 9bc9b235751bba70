"""Markdown step summary of the shard jobs a plan starts (the plan itself is summarised by infx.changelog.summary)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(title: str, header: tuple[str, str], counts: Counter) -> list[str]:
    lines = [f"#### {title}", "", f"| {header[0]} | {header[1]} |", "|---|---:|"]
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], str(item[0]))):
        lines.append(f"| {_cell(name)} | {count} |")
    return lines + [""]


def shard_summary(shards: Mapping[str, list]) -> str:
    """The shard jobs the plan starts (each a matrix of at most 256 jobs)."""
    if not shards:
        return "### Matrix jobs\n\nNo matrix job starts: every bucket is empty.\n"
    sizes = Counter({f"sweep-{name}": len(rows) for name, rows in shards.items()})
    return "\n".join(["### Matrix jobs", "", *_table("Jobs per matrix (max 256 each)",
                                                      ("workflow job", "jobs"), sizes)])
