"""Changelog entry model: field rules, cross-field rules and config-key wildcards."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from infx.config.keys import KeyResolutionError, Wildcards, resolve_config_keys
from infx.config.scenarios import SCENARIO_TYPES
from infx.errors import Problem

__all__ = ["ChangelogEntry", "EntryError", "KeyResolutionError", "parse_entry"]


FIELDS = (
    "config-keys", "description", "pr-link", "evals-only", "all-evals", "no-evals",
    "append-only", "eval-min-prefill-ep", "eval-concs", "scenario-type",
)
_BOOL_FIELDS = ("evals-only", "all-evals", "no-evals", "append-only")
_EVAL_SELECTION_FIELDS = ("evals-only", "all-evals", "eval-min-prefill-ep")
_TRUE_WORDS = {"true", "1", "yes", "y", "on", "t"}
_FALSE_WORDS = {"false", "0", "no", "n", "off", "f"}


class EntryError(ValueError):
    """An entry breaks the model; ``key`` names the offending field when known."""

    def __init__(self, message: str, key: str | None = None, fix: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.fix = fix


@dataclass(frozen=True)
class ChangelogEntry:
    """One validated changelog entry (defaults filled in)."""

    config_keys: tuple[str, ...]
    description: tuple[str, ...]
    pr_link: str
    evals_only: bool = False
    all_evals: bool = False
    no_evals: bool = False
    append_only: bool = False
    eval_min_prefill_ep: int | None = None
    eval_concs: tuple[int, ...] | None = None
    scenario_type: tuple[str, ...] | None = None
    source_line: int | None = field(default=None, compare=False)  # for error locations

    def scenarios(self) -> tuple[str, ...]:
        """Selected scenario families in canonical order (both when unset)."""
        chosen = self.scenario_type or SCENARIO_TYPES
        return tuple(s for s in SCENARIO_TYPES if s in chosen)

    def to_metadata(self) -> dict[str, Any]:
        """The entry as the plan's ``changelog_metadata`` shows it.

        Reference defaults are spelled out; fields the reference model lacks
        (``no-evals``, ``eval-concs``) and unset optional fields are omitted.
        """
        out: dict[str, Any] = {
            "config-keys": list(self.config_keys),
            "description": list(self.description),
            "pr-link": self.pr_link,
            "evals-only": self.evals_only,
            "all-evals": self.all_evals,
        }
        if self.no_evals:
            out["no-evals"] = True
        out["append-only"] = self.append_only
        if self.eval_min_prefill_ep is not None:
            out["eval-min-prefill-ep"] = self.eval_min_prefill_ep
        if self.eval_concs is not None:
            out["eval-concs"] = list(self.eval_concs)
        if self.scenario_type is not None:
            out["scenario-type"] = list(self.scenario_type)
        return out

    def resolve_keys(self, master_keys: Iterable[str]) -> list[str]:
        """The config keys this entry names, wildcards (``*`` only) expanded in master order;
        raises KeyResolutionError for a key or wildcard that names nothing."""
        return resolve_config_keys(self.config_keys, master_keys, Wildcards.STAR)

    def signature_fields(self) -> dict[str, Any]:
        """The entry's data without its link (used to recognise the same entry)."""
        data = self.to_metadata()
        data.pop("pr-link")
        return data


def parse_entry(data: Any, source_line: int | None = None) -> ChangelogEntry:
    """Validate one parsed YAML item as a changelog entry, or raise EntryError;
    ``source_line`` is where the entry starts (for error locations)."""
    if not isinstance(data, dict):
        raise EntryError(f"an entry must be a mapping, found {_kind(data)}",
                         fix="start each entry with '- config-keys:' at column 0")
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        near = did_you_mean(str(unknown[0]), FIELDS)
        raise EntryError(f"unknown field {unknown[0]!r}" + (f" (did you mean {near!r}?)" if near else ""),
                         key=str(unknown[0]),
                         fix=(f"rename it to {near!r}" if near else "remove it")
                         + "; the fields of an entry are " + ", ".join(FIELDS))
    for required in ("config-keys", "description", "pr-link"):
        if required not in data:
            raise EntryError(f"missing required key {required!r}", key=required)
    fields: dict[str, Any] = {
        "config_keys": _string_list(data, "config-keys"),
        "description": _string_list(data, "description"),
        "pr_link": _pr_link(data.get("pr-link")),
    }
    for name in _BOOL_FIELDS:
        if name in data:
            fields[name.replace("-", "_")] = _bool(data[name], name)
    if data.get("eval-min-prefill-ep") is not None:
        fields["eval_min_prefill_ep"] = _min_prefill_ep(data["eval-min-prefill-ep"])
    if data.get("eval-concs") is not None:
        fields["eval_concs"] = _eval_concs(data["eval-concs"])
    if data.get("scenario-type") is not None:
        fields["scenario_type"] = _scenario_types(data["scenario-type"])
    entry = ChangelogEntry(**fields, source_line=source_line)
    _check_combinations(entry, data)
    return entry


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The choice nearest to ``word`` by edit distance, when a typo could explain it
    (at most 2 edits, or a third of the word's length for long words), else None."""
    best, best_distance = None, max(2, len(word) // 3) + 1
    for choice in choices:
        distance = edit_distance(word.lower(), choice.lower())
        if distance < best_distance:
            best, best_distance = choice, distance
    return best


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions turning a into b."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def entry_problem(exc: EntryError, path: str, line: int | None) -> Problem:
    """The one message for an entry that breaks the model, from `infx plan` and
    `infx changelog validate` alike: the entry is named by the line it starts on."""
    return Problem(f"changelog entry is invalid: {exc}", file=path, line=line, key=exc.key,
                   fix=exc.fix)


def yaml_problem(detail: str, path: str, line: int | None) -> Problem:
    """The one message for changelog YAML that does not load (from `plan` and `validate`)."""
    detail = detail.removeprefix("invalid YAML: ")
    hint = "; each field may appear once per entry" if "duplicate key" in detail else ""
    return Problem(f"the changelog is not valid YAML: {detail}", file=path, line=line,
                   fix="fix the YAML at this line" + hint)


def _check_combinations(entry: ChangelogEntry, data: dict) -> None:
    selection = [f for f in _EVAL_SELECTION_FIELDS if _is_set(entry, f)]
    if entry.append_only and selection:
        raise EntryError("append-only cannot be combined with eval selection fields "
                         f"({', '.join(selection)})", key="append-only",
                         fix="remove the eval fields or append-only")
    if entry.no_evals and selection:
        raise EntryError("no-evals cannot be combined with eval selection fields "
                         f"({', '.join(selection)})", key="no-evals",
                         fix="remove the eval fields or no-evals")
    if entry.eval_concs is not None and (entry.no_evals or entry.append_only):
        other = "no-evals" if entry.no_evals else "append-only"
        raise EntryError(f"eval-concs cannot be combined with {other}: {other} runs no evals",
                         key="eval-concs", fix=f"remove eval-concs or {other}")


def _is_set(entry: ChangelogEntry, field_name: str) -> bool:
    value = getattr(entry, field_name.replace("-", "_"))
    return value is not None and value is not False


def _kind(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _string_list(data: dict, key: str) -> tuple[str, ...]:
    value = data[key]
    if not isinstance(value, list):
        raise EntryError(f"{key!r} must be a YAML list of strings, found {_kind(value)}",
                         key=key, fix=f"write each item on its own '    - ' line under {key}:")
    if not value:
        raise EntryError(f"{key!r} must have at least 1 item", key=key)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise EntryError(f"{key!r} item {index + 1} must be a string, found {_kind(item)}",
                             key=key, fix="quote the item")
    return tuple(value)


def _pr_link(value: Any) -> str:
    if not isinstance(value, str):
        raise EntryError(f"'pr-link' must be a string, found {_kind(value)}", key="pr-link",
                         fix="write the PR URL, or XXX until the PR exists")
    return value


def _bool(value: Any, key: str) -> bool:
    # Lax boolean parsing, as the reference model accepts it.
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    # strings are matched as written (no stripping), like the reference model
    if isinstance(value, str) and value.lower() in _TRUE_WORDS | _FALSE_WORDS:
        return value.lower() in _TRUE_WORDS
    raise EntryError(f"{key!r} must be a boolean, found {value!r}", key=key,
                     fix=f"write '{key}: true' or remove the key")


def _lax_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    # digits with single underscores, optionally followed by a zero fraction ("3.00")
    if isinstance(value, str):
        match = re.fullmatch(r"([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0+)?", value.strip())
        if match:
            return int(match.group(1))
    return None


def _min_prefill_ep(value: Any) -> int:
    number = _lax_int(value)
    if number is None:
        raise EntryError(f"'eval-min-prefill-ep' must be an integer, found {value!r}",
                         key="eval-min-prefill-ep")
    if number < 1:
        raise EntryError(f"'eval-min-prefill-ep' must be greater than or equal to 1, found {number}",
                         key="eval-min-prefill-ep")
    return number


def _eval_concs(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise EntryError("'eval-concs' must be a non-empty list of concurrencies",
                         key="eval-concs", fix="e.g. 'eval-concs: [32, 64]'")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or item < 1:
            raise EntryError(f"'eval-concs' items must be positive integers, found {item!r}",
                             key="eval-concs")
    return tuple(value)


def _scenario_types(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise EntryError("'scenario-type' must be a non-empty list", key="scenario-type",
                         fix="use fixed-seq-len and/or agentic-coding")
    for item in value:
        if item not in SCENARIO_TYPES:
            raise EntryError(f"'scenario-type' item {item!r} is not one of "
                             "'fixed-seq-len', 'agentic-coding'", key="scenario-type")
    return tuple(value)
