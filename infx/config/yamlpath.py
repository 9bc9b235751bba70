"""Locate a config path in YAML text cheaply, for error messages only."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from infx.yamlio import find_line


def line_of(text: str, path: Sequence[Any]) -> int | None:
    """1-based line of ``path`` (top-level key first) in ``text``.

    Composing a whole 10k-line master file node by node is slow, so when the first
    step is a top-level block key, only that block's lines are composed.
    """
    if not path:
        return 1
    block = _top_level_block(text, path[0])
    if block is not None:
        start, chunk = block
        line = find_line(chunk, list(path))
        if line is not None:
            return start + line
    return find_line(text, list(path))


def format_path(path: Sequence[Any]) -> str:
    """``scenarios.fixed-seq-len[0].search-space[1].tp`` style rendering."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + str(step)
    return out


def _top_level_block(text: str, key: Any) -> tuple[int, str] | None:
    if not isinstance(key, str):
        return None
    lines = text.splitlines(keepends=True)
    pattern = re.compile(rf"^(?:{re.escape(key)}|'{re.escape(key)}'|\"{re.escape(key)}\")\s*:")
    for index, line in enumerate(lines):
        if pattern.match(line):
            end = index + 1
            while end < len(lines) and not _starts_top_level(lines[end]):
                end += 1
            return index, "".join(lines[index:end])
    return None


def _starts_top_level(line: str) -> bool:
    return bool(line) and not line[0].isspace() and not line.startswith("#")
