"""A matrix row's fingerprint: its identity plus the repository content its result depends on.

Two results of one row are interchangeable exactly when their fingerprints are equal. The
fingerprint is sha256 over the canonical JSON of

- the row's identity (``infx.plan.identity.identity_fields``: image, model, every serving
  field, the search-space entry the row came from as expanded into the row, concurrency);
- the master-config block of every config key the row can come from (keys whose block has
  the row's model prefix, precision, framework, image and model), *without* its
  ``search-space`` lists: a search-space entry reaches a job only through the rows it
  expands into, so editing one entry changes only that entry's rows;
- those keys' recipe files (``configs/recipes/<key>.yaml``);
- every file a sweep job may execute (launchers, recipe scripts and whatever else of the
  checkout is not neutral or is named by one: infx.plan.benchmark_content.executed_paths);
- the fields that shape rows (everything but ``description`` and ``pr-link``) of the PR's own
  changelog entries that name one of those keys.

This is the per-row form of the drift rule of PRODUCT §4.8 (infx.plan.benchmark_content):
whatever ``differences`` reports for a PR changes the fingerprint of every row it can affect.
Matching keys by fields is conservative: an unrelated key that happens to share them only
adds content to the fingerprint, never removes any.

Pure: trees are path -> text mappings (None = deleted), as in infx.plan.benchmark_content.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from infx.plan.benchmark_content import (
    RECIPE_PATH,
    Tree,
    executed_paths,
    master_blocks,
    named_keys,
    pr_entries,
)
from infx.plan.identity import FINGERPRINT_FIELD, identity_fields, job_name
from infx.plan.sweep_plan import Plan

LENGTH = 64
_MATCH_FIELDS = ("model-prefix", "precision", "framework", "image", "model")
_NOT_SHAPING = ("description", "pr-link")


def canonical_text(value: Any) -> str:
    """A value as canonical JSON, types kept (8 and 8.0 differ): what digests and comparisons read."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _without_search_space(block: Any) -> Any:
    """The block's settings shared by all its rows (scenario lists keep their other fields)."""
    if not isinstance(block, Mapping):
        return block
    out = dict(block)
    scenarios = out.get("scenarios")
    if isinstance(scenarios, Mapping):
        out["scenarios"] = {
            kind: [{k: v for k, v in item.items() if k != "search-space"} if isinstance(item, Mapping)
                   else item for item in items] if isinstance(items, list) else items
            for kind, items in scenarios.items()}
    return out


def _match_key(fields: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(canonical_text(fields.get(name)) for name in _MATCH_FIELDS)


@dataclass(frozen=True)
class Content:
    """One tree's benchmark-affecting content, indexed for fingerprinting many rows."""

    keys_by_match: Mapping[tuple[str, ...], tuple[str, ...]]
    key_digests: Mapping[str, str]  # config key -> digest of block (no search space), recipe, entries
    launchers: str


def content_of(tree: Tree, base: Tree) -> Content:
    """Index a tree (`base`: the PR's base tree, which tells the PR's own changelog entries).

    Raises infx.plan.benchmark_content.Unreadable when a master config or the changelog cannot be
    parsed (callers fail closed: no fingerprint, no reuse).
    """
    blocks = master_blocks(tree)
    recipes = {m.group(1): _sha(text) for path, text in tree.items()
               if text is not None and (m := RECIPE_PATH.match(path))}
    shaping_of: dict[str, list[str]] = {}
    for entry in pr_entries(tree, base):
        shaping = canonical_text({k: v for k, v in entry.items() if k not in _NOT_SHAPING})
        for key in named_keys([entry], list(blocks)):
            shaping_of.setdefault(key, []).append(shaping)
    by_match: dict[tuple[str, ...], list[str]] = {}
    digests: dict[str, str] = {}
    for key, (path, block) in blocks.items():
        if isinstance(block, Mapping):
            by_match.setdefault(_match_key(block), []).append(key)
        digests[key] = _sha(canonical_text({"master": path, "block": _without_search_space(block),
                                        "recipe": recipes.get(key),
                                        "entries": sorted(shaping_of.get(key, []))}))
    launch = sorted((p, _sha(text)) for p in executed_paths(tree, base=base) if (text := tree.get(p)) is not None)
    return Content({k: tuple(sorted(v)) for k, v in by_match.items()}, digests, _sha(canonical_text(launch)))


def fingerprint(row: Mapping[str, Any], content: Content) -> str:
    """The row's fingerprint in a tree (64 hex digits)."""
    keys = content.keys_by_match.get(_match_key(row), ())
    return _sha(canonical_text({"identity": identity_fields(row), "launchers": content.launchers,
                            "configs": {k: content.key_digests[k] for k in keys}}))


def fingerprints(rows: Iterable[Mapping[str, Any]], content: Content) -> dict[str, str]:
    """job name -> fingerprint for rows of one tree."""
    return {job_name(row): fingerprint(row, content) for row in rows}


def annotate(plan: Plan, content: Content) -> Plan:
    """A copy of the plan whose every row carries its fingerprint (the FINGERPRINT_FIELD
    annotation: never part of the identity, kept by the shard step, written to results)."""
    return plan.map_rows(lambda row, _place: {**row, FINGERPRINT_FIELD: fingerprint(row, content)})
