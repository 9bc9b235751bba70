"""Benchmark-affecting content of a PR (PRODUCT §4.8 Drift) and where two of its trees differ in it.

What a sweep's results depend on: the PR's own changelog entries, the master-config blocks
the PR affects (images and every serving setting live there), those configs' recipe files,
and everything a sweep job executes from the PR's checkout (`PR_EXECUTED`: the launchers and
recipe scripts under `runners/` and `benchmarks/`, which run on the GPU node). Nothing else of
the checkout runs: the sweep workflows (which provenance holds to the default branch's) install
and run the default branch's `infx` — labels, plan, shard, row identity, launch, normalisation,
collection, report — from a checkout of the default branch, so the PR's own `infx/`, build files
and requirements lock are data no job executes, benchmark-neutral. Two trees of the same PR
(the swept or reused commit and the head, or the head a reuse command was posted on and the
head now) are compared against the PR's base tree, so a plain merge of the default branch
(other PRs' changelog entries and configs) and `pr-link` canonicalisation are neutral.

Pure: trees are path -> text mappings (None = deleted); nothing here reads GitHub or git.
Shared by the reuse resolver (authorization binding) and the sign-off bot (drift).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from infx import yamlio
from infx.changelog.merge_prep import entry_signature
from infx.config.keys import KeyResolutionError, Wildcards, resolve_config_keys
from infx.errors import InfxError

Tree = Mapping[str, "str | None"]

CHANGELOG = "perf-changelog.yaml"
# a master config, at the root or one folder down (a monorepo's e.g. inferencex-e2e/)
MASTER_PATH = re.compile(r"^(?:[^/]+/)?configs/[^/]+-master\.yaml$")
RECIPE_PATH = re.compile(r"^(?:[^/]+/)?configs/recipes/([^/]+)\.yaml$")
# everything a sweep job executes from the PR's checkout: the launcher `infx.workflow.launch`
# runs (runners/launch_<runner>.sh) and the recipe scripts it runs in the row's image
PR_EXECUTED = re.compile(r"^(?:[^/]+/)?(?:benchmarks|runners)/")
LAUNCH_PATH = PR_EXECUTED
CHANGELOG_LABEL = f"{CHANGELOG} (this PR's entries)"


class Unreadable(ValueError):
    """A file the comparison needs cannot be parsed: the caller fails closed with this message."""


def is_benchmark_path(path: str) -> bool:
    """Could a change to this path change what the PR's benchmarks measure?"""
    return bool(path == CHANGELOG or MASTER_PATH.match(path) or RECIPE_PATH.match(path)
                or PR_EXECUTED.match(path))


def load_tree_file(path: str, text: str) -> Any:
    """One YAML file of a tree parsed once per process (the trees compared share most of
    their files, and the sign-off's checks and the planner read the same master configs:
    infx.yamlio.load_shared): raises InfxError on bad YAML. Treat the result as read-only."""
    return yamlio.load_shared(text, path)





def _blocks(tree: Tree) -> dict[str, tuple[str, Any]]:
    """config key -> (master path, block) over every master config of the tree."""
    blocks: dict[str, tuple[str, Any]] = {}
    for path in sorted(tree):
        text = tree[path]
        if text is None or not MASTER_PATH.match(path):
            continue
        try:
            data = load_tree_file(path, text)
        except InfxError as exc:
            raise Unreadable(f"{path} cannot be parsed: {str(exc).splitlines()[0]}") from exc
        if not isinstance(data, dict):
            raise Unreadable(f"{path} is not a mapping of config keys")
        for key, block in data.items():
            blocks[str(key)] = (path, block)
    return blocks


def master_blocks(tree: Tree) -> dict[str, tuple[str, Any]]:
    """config key -> (master path, block) over every master config of the tree (Unreadable if not)."""
    return _blocks(tree)


def _entries(tree: Tree) -> list[dict]:
    text = tree.get(CHANGELOG)
    if text is None:
        return []
    try:
        data = load_tree_file(CHANGELOG, text)
    except InfxError as exc:
        raise Unreadable(f"{CHANGELOG} cannot be parsed: {str(exc).splitlines()[0]}") from exc
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise Unreadable(f"{CHANGELOG} is not a list of entries")
    return data


def pr_entries(tree: Tree, base: Tree) -> list[dict]:
    """The changelog entries the tree has beyond the base (the PR's own), links ignored."""
    extra = Counter(entry_signature(e) for e in _entries(tree))
    extra.subtract(entry_signature(e) for e in _entries(base))
    mine = {entry_signature(e): e for e in _entries(tree)}
    return [mine[sig] for sig in sorted(extra) for _ in range(max(0, extra[sig]))]


def named_keys(entries: Iterable[dict], keys: list[str]) -> set[str]:
    """The config keys the entries name (wildcards resolved; a pattern naming none is kept)."""
    named: set[str] = set()
    for entry in entries:
        patterns = [str(p) for p in entry.get("config-keys") or [] if isinstance(p, str)]
        try:  # a list resolves to the union of its patterns' keys when each names some
            named.update(resolve_config_keys(patterns, keys, Wildcards.STAR))
            continue
        except KeyResolutionError:
            pass
        for pattern in patterns:
            try:
                named.update(resolve_config_keys([pattern], keys, Wildcards.STAR))
            except KeyResolutionError:
                named.add(pattern)  # names nothing here: compared as absent on both sides
    return named


def affected_keys(tree: Tree, base: Tree) -> set[str]:
    """Config keys the PR benchmarks in this tree: named by its changelog entries, or whose
    master block or recipe differs from the base."""
    blocks, base_blocks = _blocks(tree), _blocks(base)
    keys = named_keys(pr_entries(tree, base), list(blocks))
    keys |= {k for k, (_, block) in blocks.items() if base_blocks.get(k, (None, None))[1] != block}
    for path in set(tree) | set(base):
        # a recipe added, edited or deleted (None or absent) by the PR: its key runs differently
        match = RECIPE_PATH.match(path)
        if match and tree.get(path) != base.get(path):
            keys.add(match.group(1))
    return keys


def differences(before: Tree, after: Tree, base: Tree) -> list[str]:
    """What benchmark-affecting content differs between two trees of one PR ([] = identical).

    Each item names a file, or a master config and key ("configs/amd-master.yaml [key]").
    Raises Unreadable when a master config or the changelog of any tree cannot be parsed.
    """
    found: list[str] = []
    if sorted(map(entry_signature, pr_entries(before, base))) != \
            sorted(map(entry_signature, pr_entries(after, base))):
        found.append(CHANGELOG_LABEL)
    old, new = _blocks(before), _blocks(after)
    # `base` is the PR's base now; `before` may predate a merge of the default branch, so its
    # own block and recipe differences from `base` are not the PR's: only its entries count
    keys = affected_keys(after, base) | named_keys(pr_entries(before, base), list(old))
    recipes: set[str] = set()
    for key in sorted(keys):
        if old.get(key, (None, None))[1] != new.get(key, (None, None))[1]:
            path = (new.get(key) or old.get(key) or ("master config", None))[0]
            found.append(f"{path} [{key}]")
        recipes |= {p for p in set(before) | set(after)
                    if (m := RECIPE_PATH.match(p)) and m.group(1) == key}
    executed = {p for p in set(before) | set(after) if PR_EXECUTED.match(p)}
    found += sorted(p for p in recipes | executed if before.get(p) != after.get(p))
    return found
