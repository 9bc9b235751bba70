"""Locate a config path in YAML text cheaply, for error messages only.

A master file is ten thousand lines; composing it whole to find one line costs more than
loading it. ``line_of`` finds the top-level block of the path's first key with plain
string search, composes only that block (C composer), and keeps it for the next lookup
in the same block, so a run that reports several findings composes each block once.
"""

from __future__ import annotations

import bisect
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
        if len(path) == 2 and isinstance(path[1], str):
            line = _child_line(text, path[0], path[1])
            if line is not None:
                return line
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
    return _line_at(text, start), node


def _child_line(text: str, key: str, child: str) -> int | None:
    """The line of ``child`` when it is a direct key of the block-style mapping ``key``
    opens (``runner:`` of a config, reported for every config that names an unknown label),
    found by its indentation without composing the block; None for any other shape."""
    start = _key_offset(text, key)
    if start is None:
        return None
    following = _NEXT_TOP_LEVEL.search(text, start)
    lines = text[start:following.start() if following else len(text)].split("\n")
    indent = next((ln[:len(ln) - len(ln.lstrip(" "))] for ln in lines[1:]
                   if ln.strip() and not ln.lstrip(" ").startswith("#")), "")
    if not indent:
        return None
    for index, line in enumerate(lines[1:], 1):
        if not line.startswith(indent) or line[len(indent):len(indent) + 1] in (" ", "\t", ""):
            continue
        rest = line[len(indent):]
        for spelling in (child, f"'{child}'", f'"{child}"'):
            if rest.startswith(spelling) and rest[len(spelling):].lstrip(" ").startswith(":"):
                return _line_at(text, start) + index
    return None


def _line_at(text: str, offset: int) -> int:
    """1-based line of a character offset (newline offsets indexed once per text)."""
    return bisect.bisect_right(_newlines(text), offset - 1) + 1


@lru_cache(maxsize=8)
def _newlines(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]


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
