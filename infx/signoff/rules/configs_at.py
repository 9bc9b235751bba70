"""Master-config entries read from an evidence tree (path -> text): the one master-config reader of the bot."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from infx.config.scenarios import AGENTIC
from infx.errors import InfxError, Problem
from infx.plan.benchmark_content import MASTER_PATH, load_tree_file
from infx.plan.evals import EVAL_ISL_OSL
from infx.plan.fingerprint import canonical_text


def master_files(tree: dict[str, str | None]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every config key -> (file, entry) over the tree's master configs, files in path order;
    an unreadable file raises InfxError naming it.

    Treat the result as read-only: parsed files are cached (several checks read them).
    """
    entries: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in sorted(tree):
        text = tree[path]
        if text is None or not MASTER_PATH.match(path):
            continue
        for key, entry in _parse(path, text).items():
            entries[key] = (path, entry)
    return entries


def master_entries(tree: dict[str, str | None]) -> dict[str, dict[str, Any]] | None:
    """``master_files`` without the file names; None when a master config cannot be parsed."""
    try:
        return {key: entry for key, (_, entry) in master_files(tree).items()}
    except InfxError:
        return None


def load_master(path: str, text: str) -> Any:
    """One master-config text parsed once per process (the checks, the scope and the drift
    comparison all read the same files: infx.plan.benchmark_content.load_tree_file); raises
    InfxError on bad YAML. Treat the result as read-only."""
    return load_tree_file(path, text)


@lru_cache(maxsize=32)
def _parse(path: str, text: str) -> dict[str, dict[str, Any]]:
    data = load_master(path, text) or {}
    if not isinstance(data, dict):
        raise InfxError(Problem(f"{path} is not a mapping of config keys", file=path))
    return {str(key): entry for key, entry in data.items() if isinstance(entry, dict)}


def changed_keys(head: dict[str, str | None], base: dict[str, str | None]) -> list[str] | None:
    """Config keys added or changed at head compared with base (removals are not listed, nor
    entries that only lose rows: runs_new_rows)."""
    at_head, at_base = master_entries(head), master_entries(base)
    if at_head is None or at_base is None:
        return None
    return sorted(key for key, entry in at_head.items() if runs_new_rows(at_base.get(key), entry))


def runs_new_rows(before: dict[str, Any] | None, after: dict[str, Any]) -> bool:
    """Whether an entry at head is new or changed in a way that runs something base did not.

    An entry that only loses rows no eval is chosen from (a scenario kind, a sequence length or
    search-space entries of a sequence length other than the eval one, 8k1k, taken out; e.g.
    retiring 1k1k) runs a subset of what it ran, each row as before, and the evals of every
    config stay where they were (infx.plan.evals picks them among 8k1k and agentic rows only):
    nothing of it needs benchmarking or review again. Any other difference counts, values
    compared with their types (8 and 8.0 differ: a job gets TP=8.0)."""
    if before is None:
        return True
    return not _same(before, after) and not _prunes(before, after)


def _same(before: Any, after: Any) -> bool:
    """Equal values of equal types (JSON's canonical form: 8 and 8.0, 1 and true differ)."""
    return canonical_text(before) == canonical_text(after)


def _prunes(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """`after` is `before` with rows no eval is chosen from left out (runs_new_rows)."""
    if set(before) != set(after):
        return False
    return all(_same(before[k], after[k]) or (k == "scenarios" and _prunes_scenarios(before[k], after[k]))
               for k in before)


def _prunes_scenarios(before: Any, after: Any) -> bool:
    if not (isinstance(before, dict) and isinstance(after, dict)) or not set(after) <= set(before):
        return False
    for kind, items in before.items():
        if kind not in after:
            if not (isinstance(items, list) and all(_eval_free(kind, item) for item in items)):
                return False
        elif not _same(items, after[kind]):
            if not (isinstance(items, list) and isinstance(after[kind], list)):
                return False
            if not _subsequence(items, after[kind], droppable=lambda item, kind=kind: _eval_free(kind, item),
                                kept=lambda old, new, kind=kind: _eval_free(kind, old) and _prunes_item(old, new)):
                return False
    return True


def _prunes_item(before: Any, after: Any) -> bool:
    """One sequence length with search-space entries left out, nothing else changed."""
    if not (isinstance(before, dict) and isinstance(after, dict)) or set(before) != set(after):
        return False
    for key in before:
        if _same(before[key], after[key]):
            continue
        if key != "search-space" or not (isinstance(before[key], list) and isinstance(after[key], list)):
            return False
        if not _subsequence(before[key], after[key], droppable=lambda _: True, kept=lambda old, new: False):
            return False
    return True


def _eval_free(kind: str, item: Any) -> bool:
    """A scenario item whose rows no eval is ever chosen from: a fixed sequence length, not 8k1k."""
    if kind == AGENTIC or not isinstance(item, dict):
        return False
    length = (item.get("isl"), item.get("osl"))
    return all(type(n) is int for n in length) and length != EVAL_ISL_OSL


def _subsequence(before: list, after: list, *, droppable: Any, kept: Any) -> bool:
    """`after` is `before` with droppable items left out, in order; an item is kept as it was
    or, where `kept(old, new)`, pruned itself."""
    rest = iter(before)
    for new in after:
        for old in rest:
            if _same(old, new) or kept(old, new):
                break
            if not droppable(old):
                return False
        else:
            return False
    return all(droppable(old) for old in rest)


def runner_sku(runner: str | None) -> str:
    """``cluster:mi355x-amds`` -> ``mi355x``: prefix dropped, cut at the first dash (the one
    runner-SKU parser: config entries, result rows and eval rows all go through it). Any case:
    eval rows upper-case their `hw` (``CLUSTER:MI355X-AMDS``)."""
    text = (runner or "").lower().removeprefix("cluster:")
    return text.split("-", 1)[0]


def unread_trees(read_errors: dict[str, str]) -> str | None:
    """Why the head or base tree is missing from the evidence, or None when both were read."""
    for key in ("head tree", "base tree"):
        if key in read_errors:
            return f"the {key} could not be read ({read_errors[key]})"
    return None
