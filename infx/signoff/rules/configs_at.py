"""Master-config entries read from an evidence tree (path -> text): the one master-config reader of the bot."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from infx.errors import InfxError, Problem
from infx.plan.benchmark_content import MASTER_PATH, load_tree_file


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

    An entry that only loses rows (a scenario taken out of `scenarios`, items of a scenario's
    list, entries of a `search-space`; e.g. retiring a sequence length) runs a subset of what
    it ran, each row as before: nothing of it needs benchmarking or review again. Any other
    difference, however small, counts."""
    if before is None:
        return True
    return before != after and not _prunes(before, after, top=True)


def _prunes(before: Any, after: Any, *, top: bool = False, within: str = "") -> bool:
    """`after` is `before` with some rows left out (see runs_new_rows), nothing else changed."""
    if before == after:
        return True
    if isinstance(before, dict) and isinstance(after, dict):
        if top:  # the entry: every setting the same, its scenarios pruned
            return set(before) == set(after) and all(
                before[k] == after[k] or (k == "scenarios" and _prunes(before[k], after[k], within=k))
                for k in before)
        if within == "scenarios":  # scenario kind -> its list: kinds may go, lists be pruned
            return set(after) <= set(before) and all(
                _prunes(before[k], after[k], within="scenario list") for k in after)
        if within == "scenario item":  # one sequence length: the same, its search space pruned
            return set(before) == set(after) and all(
                before[k] == after[k] or (k == "search-space" and _prunes(before[k], after[k], within=k))
                for k in before)
        return False
    if isinstance(before, list) and isinstance(after, list) and within in ("scenario list", "search-space"):
        item = "scenario item" if within == "scenario list" else ""
        rest = iter(before)  # after's items, in order, each a pruned item of before's
        return all(any(_prunes(old, new, within=item) for old in rest) for new in after)
    return False


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
