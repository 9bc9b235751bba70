"""Master-config entries read from an evidence tree (path -> text), for checks that compare them."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from infx import yamlio
from infx.errors import InfxError

MASTER_CONFIG = re.compile(r"^(?:inferencex-e2e/)?configs/[^/]+-master\.yaml$")


def master_entries(tree: dict[str, str | None]) -> dict[str, dict[str, Any]] | None:
    """Every config key -> entry in the tree's master configs; None if one cannot be parsed.

    Treat the result as read-only: parsed files are cached (several checks read them).
    """
    entries: dict[str, dict[str, Any]] = {}
    for path in sorted(tree):
        text = tree[path]
        if text is None or not MASTER_CONFIG.match(path):
            continue
        data = _parse(path, text)
        if data is None:
            return None
        entries.update(data)
    return entries


@lru_cache(maxsize=32)
def load_master(path: str, text: str) -> Any:
    """One master-config text parsed once per process (the checks and the scope all read the
    same files); raises InfxError on bad YAML. Treat the result as read-only."""
    return yamlio.load_text(text, path)


@lru_cache(maxsize=32)
def _parse(path: str, text: str) -> dict[str, dict[str, Any]] | None:
    try:
        data = load_master(path, text)
    except InfxError:
        return None
    if not isinstance(data, dict):
        return None
    return {str(key): entry for key, entry in data.items() if isinstance(entry, dict)}


def changed_keys(head: dict[str, str | None], base: dict[str, str | None]) -> list[str] | None:
    """Config keys added or changed at head compared with base (removals are not listed)."""
    at_head, at_base = master_entries(head), master_entries(base)
    if at_head is None or at_base is None:
        return None
    return sorted(key for key, entry in at_head.items() if at_base.get(key) != entry)


def runner_sku(runner: str | None) -> str:
    """'cluster:mi355x-amds' -> 'mi355x'."""
    text = (runner or "").removeprefix("cluster:")
    return text.split("-", 1)[0].lower()


def unread_trees(read_errors: dict[str, str]) -> str | None:
    """Why the head or base tree is missing from the evidence, or None when both were read."""
    for key in ("head tree", "base tree"):
        if key in read_errors:
            return f"the {key} could not be read ({read_errors[key]})"
    return None
