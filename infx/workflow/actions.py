"""Writing step outputs ($GITHUB_OUTPUT) and step summaries ($GITHUB_STEP_SUMMARY) safely."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from infx.errors import InfxError, Problem

STEP_SUMMARY_LIMIT = 1024 * 1024  # bytes GitHub accepts per step summary
JOB_OUTPUT_LIMIT = 1_000_000  # GitHub measures job outputs roughly as UTF-16: keep margin
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def compact_json(value: Any) -> str:
    """Single-line JSON, as step outputs must be."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def output_text(value: Any) -> str:
    """An output value as the single-line string written to $GITHUB_OUTPUT."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else compact_json(value)


def output_size(text: str) -> int:
    """Size of an output as GitHub counts it against JOB_OUTPUT_LIMIT (UTF-16 bytes)."""
    return len(text.encode("utf-16-le"))


def render_outputs(outputs: Mapping[str, Any]) -> str:
    """`name=value` lines; values are single-line strings (dicts and lists become JSON)."""
    lines = []
    for name, value in outputs.items():
        if not _OUTPUT_NAME.fullmatch(name):
            raise InfxError(Problem(f"invalid step output name {name!r}", key=name))
        text = output_text(value)
        if "\n" in text or "\r" in text:
            raise InfxError(Problem(f"step output {name} would span several lines", key=name,
                                    fix="serialise it as single-line JSON"))
        if output_size(text) > JOB_OUTPUT_LIMIT:
            raise InfxError(Problem(
                f"step output {name} is {len(text)} characters, over GitHub's 1 MB job-output limit",
                key=name, fix="narrow the sweep (fewer config keys per PR) or split the changelog entry"))
        lines.append(f"{name}={text}\n")
    return "".join(lines)


def write_outputs(outputs: Mapping[str, Any], path: str | None = None) -> None:
    """Append outputs to $GITHUB_OUTPUT (or the given file); no-op when neither is set."""
    text = render_outputs(outputs)
    target = path or os.environ.get("GITHUB_OUTPUT")
    if target:
        with Path(target).open("a", encoding="utf-8") as handle:
            handle.write(text)


def append_summary(markdown: str, path: str | None = None) -> bool:
    """Append markdown to $GITHUB_STEP_SUMMARY, truncated to GitHub's limit; False if unset."""
    target = path or os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    text = markdown if markdown.endswith("\n") else markdown + "\n"
    data = text.encode("utf-8")
    if len(data) > STEP_SUMMARY_LIMIT:
        note = b"\n\n_(summary truncated at GitHub's 1 MiB limit)_\n"
        data = data[: STEP_SUMMARY_LIMIT - len(note)].decode("utf-8", "ignore").encode() + note
    with Path(target).open("ab") as handle:
        handle.write(data)
    return True
