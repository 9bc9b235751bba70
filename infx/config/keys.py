"""Config-key resolution: exact keys and wildcards over the master configs' keys (one rule, two dialects)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from enum import Enum


class Wildcards(Enum):
    """Which wildcard syntax a caller speaks; the reference's two tools differ, and we stay drop-in.

    STAR: only ``*`` is special, every other character is literal (the changelog planner).
    GLOB: ``*``, ``?`` and ``[...]`` as shell globs (the test-config generator).
    """

    STAR = "star"
    GLOB = "glob"


class KeyResolutionError(ValueError):
    """A config key or wildcard that names nothing in the master configs."""

    def __init__(self, message: str, pattern: str) -> None:
        super().__init__(message)
        self.pattern = pattern


def resolve_config_keys(patterns: Sequence[str], master_keys: Iterable[str],
                        wildcards: Wildcards) -> list[str]:
    """Exact keys keep their given order; a wildcard expands in master order; each key once.

    Any unknown key or unmatched wildcard fails the whole list (KeyResolutionError, worded
    as the reference tool of that dialect words it).
    """
    ordered = list(master_keys)
    known = set(ordered)
    resolved: dict[str, None] = {}
    for pattern in patterns:
        if _is_wildcard(pattern, wildcards):
            matches = _matches(pattern, ordered, wildcards)
            if not matches:
                raise KeyResolutionError(_NO_MATCH[wildcards].format(pattern=pattern), pattern)
            resolved.update(dict.fromkeys(matches))
        elif pattern in known:
            resolved.setdefault(pattern, None)
        else:
            raise KeyResolutionError(_UNKNOWN[wildcards].format(pattern=pattern), pattern)
    return list(resolved)


_NO_MATCH = {Wildcards.STAR: "No config keys matched the wildcard pattern '{pattern}' in master configs.",
             Wildcards.GLOB: "Pattern '{pattern}' matched no config keys."}
_UNKNOWN = {Wildcards.STAR: "Config key '{pattern}' not found in master configs.",
            Wildcards.GLOB: "Config key(s) not found: {pattern}."}


def _is_wildcard(pattern: str, wildcards: Wildcards) -> bool:
    return "*" in pattern or (wildcards is Wildcards.GLOB and "?" in pattern)


def _matches(pattern: str, ordered: list[str], wildcards: Wildcards) -> list[str]:
    if wildcards is Wildcards.GLOB:
        return fnmatch.filter(ordered, pattern)
    regex = re.compile(re.escape(pattern).replace(r"\*", ".*"))
    return [key for key in ordered if regex.fullmatch(key)]
