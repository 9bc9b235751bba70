"""Load, merge and validate master config files (``configs/*-master.yaml``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from infx import yamlio
from infx.config import schemacheck
from infx.config.master_rules import semantic_problems
from infx.config.yamlpath import format_path, line_of
from infx.errors import InfxError, Problem

MAX_REPORTED = 25


class MasterConfigs(Mapping):
    """Merged master configs: config key -> validated entry dict (raw YAML field names).

    Iteration follows file order, then key order inside each file. ``source(key)``
    gives the (file name, file text) a key came from, so later errors can name a line.
    """

    def __init__(self, entries: dict[str, dict], sources: dict[str, tuple[str, str]]) -> None:
        self._entries = entries
        self._sources = sources

    def __getitem__(self, key: str) -> dict:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def source(self, key: str) -> tuple[str, str]:
        """(file name, file text) the key was loaded from."""
        return self._sources[key]

    def locate(self, key: str, path: Sequence[Any] = (), message: str = "",
               fix: str | None = None, *, line: bool = True) -> Problem:
        """A Problem pointing at ``path`` inside config ``key`` (line computed now; with
        ``line=False`` only the file, for a problem that is counted but not shown)."""
        name, text = self._sources[key]
        return Problem(message, file=name, line=line_of(text, [key, *path]) if line else None, key=key, fix=fix)


def load_master_configs(paths: Sequence[str | Path]) -> MasterConfigs:
    """Read, merge (in order) and validate master config files."""
    items = []
    for path in paths:
        text = yamlio.read_text(path, missing=f"Input file '{path}' does not exist.",
                         fix="check the --config-files path")
        items.append((str(path), text))
    return load_master_configs_from_texts(items)


def load_master_configs_from_texts(items: Sequence[tuple[str, str]]) -> MasterConfigs:
    """Merge and validate master configs given as (name, YAML text) pairs, in order."""
    entries: dict[str, dict] = {}
    sources: dict[str, tuple[str, str]] = {}
    for name, text in items:
        data = _parse_file(name, text)
        _check_keys(name, text, data, entries)
        for key, value in data.items():
            entries[key] = without_null_optionals(value)
            sources[key] = (name, text)
    configs = MasterConfigs(entries, sources)
    problems = validation_problems(configs)
    if problems:
        raise InfxError(capped(problems))
    return configs


def capped(problems: list[Problem], limit: int = MAX_REPORTED) -> list[Problem]:
    """The first ``limit`` problems, then one line saying how many more there are."""
    if len(problems) <= limit:
        return problems
    rest = problems[limit:]
    files = sorted({problem.file for problem in rest if problem.file})
    where = f" (in {', '.join(files)})" if files else ""
    return [*problems[:limit],
            Problem(f"and {len(rest)} more problem(s){where}",
                    fix="fix the problems above and run again to see the rest")]


# Optional fields where the reference treats an explicit YAML null exactly like an absent
# field. Other nulls stay and are rejected by the schema: there the reference either fails
# too or copies the null into rows (worker hardware / additional-settings, backend version)
# or lets it mask a top-level value (entry router / kv-p2p-transfer).
_NULLABLE_TOP = {True: frozenset({"router", "kv-p2p-transfer"}), False: frozenset({"router"})}
_NULLABLE_FIXED = {True: frozenset({"conc-start", "conc-end"}),
                   False: frozenset({"ep", "dp-attn", "conc-start", "conc-end"})}
_NULLABLE_AGENTIC = frozenset({"tp", "ep", "dp-attn", "kv-offload-backend", "conc-start",
                               "conc-end"})


def without_null_optionals(entry: Any) -> Any:
    """``entry`` with explicit nulls of null-means-absent optional fields removed.

    Pure; anything not shaped like a config entry is returned unchanged for the
    schema to report.
    """
    if not isinstance(entry, dict):
        return entry
    multinode = entry.get("multinode") is True
    cleaned = _drop_nulls(entry, _NULLABLE_TOP[multinode])
    scenarios = cleaned.get("scenarios")
    if isinstance(scenarios, dict):
        cleaned["scenarios"] = {
            **scenarios,
            **_cleaned_blocks(scenarios, "fixed-seq-len", frozenset(), _NULLABLE_FIXED[multinode]),
            **_cleaned_blocks(scenarios, "agentic-coding", frozenset({"dram-utilization"}),
                              _NULLABLE_AGENTIC),
        }
    return cleaned


def _cleaned_blocks(scenarios: dict, name: str, block_fields: frozenset,
                    item_fields: frozenset) -> dict:
    blocks = scenarios.get(name)
    if not isinstance(blocks, list):
        return {}
    return {name: [_cleaned_block(block, block_fields, item_fields) for block in blocks]}


def _cleaned_block(block: Any, block_fields: frozenset, item_fields: frozenset) -> Any:
    if not isinstance(block, dict):
        return block
    cleaned = _drop_nulls(block, block_fields)
    items = cleaned.get("search-space")
    if isinstance(items, list):
        cleaned["search-space"] = [_drop_nulls(item, item_fields) if isinstance(item, dict)
                                   else item for item in items]
    return cleaned


def _drop_nulls(mapping: dict, fields: frozenset) -> dict:
    return {name: value for name, value in mapping.items()
            if not (value is None and name in fields)}


def validation_problems(configs: MasterConfigs) -> list[Problem]:
    """Every schema and semantic problem of every config key (empty when all valid).

    Semantic rules assume the shapes the schema guarantees, so they run only on entries
    the schema accepts; an entry the schema rejects gets its schema problems only. Only the
    first MAX_REPORTED problems, which ``capped`` shows, are given their line (a master file
    of a thousand broken entries would otherwise be searched a thousand times for lines
    nobody reads).
    """
    if schemacheck.quick_valid("master", dict(configs.items())):
        bad_schema: set[str] = set()
        problems: list[Problem] = []
    else:
        bad_schema, problems = _schema_problems(configs)
    for key, entry in configs.items():
        if key in bad_schema:
            continue
        for path, message in semantic_problems(entry):
            problems.append(configs.locate(
                key, path, f"Master config entry '{key}' failed validation: {message}"
                           + (f" (at {format_path(path)})" if path else ""),
                fix=_fix_hint(message), line=len(problems) < MAX_REPORTED))
    return problems


def _parse_file(name: str, text: str) -> dict:
    # the sign-off has often parsed this text already (infx.yamlio.load_shared); the
    # merge below and the planner after it build on the data, so they get their own copy
    data = yamlio.private_copy(yamlio.load_shared(text, name, unique_keys=True))
    if not isinstance(data, dict):
        found = "an empty file" if data is None else f"a {type(data).__name__}"
        raise InfxError(Problem(f"Config file '{name}' must contain a mapping of config keys, "
                                f"found {found}", file=name, line=1,
                                fix="write one '<config-key>:' block per recipe"))
    return data


def _check_keys(name: str, text: str, data: dict, merged: dict) -> None:
    problems = []
    for key in data:
        if not isinstance(key, str):
            problems.append(Problem(f"config key {key!r} must be a string", file=name,
                                    line=line_of(text, [key]), fix="quote the key"))
        elif "*" in key:
            problems.append(Problem(
                f"Wildcard '*' is not allowed in master config keys: '{key}'", file=name,
                line=line_of(text, [key]), key=key,
                fix="'*' is reserved for changelog wildcards; rename the key"))
        elif key in merged:
            problems.append(Problem(
                f"Duplicate configuration keys found in '{name}': {key}", file=name,
                line=line_of(text, [key]), key=key,
                fix="each config key may appear in only one master file"))
    if problems:
        raise InfxError(capped(problems))


def _schema_problems(configs: MasterConfigs) -> tuple[set[str], list[Problem]]:
    """(keys the schema rejects, their located problems): every key, never a prefix."""
    bad: set[str] = set()
    problems = []
    for key, entry in configs.items():
        if schemacheck.quick_valid("master", {key: entry}):
            continue
        bad.add(key)
        found = schemacheck.schema_errors("master", {key: entry})
        if not found:  # the quick pass and the full validator disagree: still invalid
            found = [([key], "does not satisfy the master config schema")]
        for path, message in found:
            inner = path[1:]
            where = f" (at {format_path(inner)})" if inner else ""
            problems.append(configs.locate(
                key, inner, f"Master config entry '{key}' failed validation: {message}{where}",
                fix=_schema_fix(message), line=len(problems) < MAX_REPORTED))
    return bad, problems


def _schema_fix(message: str) -> str | None:
    if message.startswith("unknown field"):
        return "remove the field or correct its spelling (field names are kebab-case)"
    if message.startswith("missing required field"):
        return "add the field"
    if "must be of type" in message or " must be " in message:
        return "write a value of the stated type"
    return None


def _fix_hint(message: str) -> str | None:
    hints = {
        "Cannot specify both": "keep either conc-list or conc-start/conc-end",
        "Must specify either": "add conc-list: [...] or conc-start and conc-end",
        "must be divisible": "choose a dcp-size that divides tp",
        "Agentic master configs must use": "use a runner label that starts with 'cluster:'",
        "requires kv-p2p-transfer": "declare kv-p2p-transfer at the top level or on every entry",
        "must be declared either": "keep the field at one scope only",
    }
    for needle, hint in hints.items():
        if needle in message:
            return hint
    return None
