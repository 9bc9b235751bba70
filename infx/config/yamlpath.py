"""Locate a config path in YAML text cheaply, for error messages only.

A master file is ten thousand lines; composing it whole to find one line costs more than
loading it. ``line_of`` finds the top-level block of the path's first key with plain
string search, composes only that block (C composer), and keeps it for the next lookup
in the same block, so a run that reports several findings composes each block once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import yaml

from infx.yamlio import compose, find_line, node_line

_NEXT_TOP_LEVEL = re.compile(r"\n(?=[^\s#])")


def line_of(text: str, path: Sequence[Any]) -> int | None:
    """1-based line of ``path`` (top-level key first) in ``text``."""
    if not path:
        return 1
    if isinstance(path[0], str):
        block = _block(text, path[0])
        if block is not None:
            first_line, node = block
            line = node_line(node, list(path))
            if line is not None:
                return first_line - 1 + line
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


@lru_cache(maxsize=64)
def _block(text: str, key: str) -> tuple[int, yaml.Node] | None:
    """(first line, composed node) of the top-level block that defines ``key``."""
    start = _key_offset(text, key)
    if start is None:
        return None
    following = _NEXT_TOP_LEVEL.search(text, start)
    end = following.start() + 1 if following else len(text)
    node = compose(text[start:end])
    if node is None:
        return None
    return text.count("\n", 0, start) + 1, node


def _key_offset(text: str, key: str) -> int | None:
    for spelling in (key, f"'{key}'", f'"{key}"'):
        for lead in ("\n", ""):
            needle = f"{lead}{spelling}"
            position = text.find(needle) if lead else (0 if text.startswith(needle) else -1)
            while position >= 0:
                begin = position + len(lead)
                rest = text[begin + len(spelling):begin + len(spelling) + 256]
                if rest.lstrip(" \t").startswith(":"):
                    return begin
                if not lead:
                    break
                position = text.find(needle, position + 1)
    return None
