"""Command-line options declared once: click builds its commands from them, and the batch commands parse them without click."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # argparse's rule


class UsageProblem(Exception):
    """A command line that parses but is not allowed (e.g. two exclusive flags); click's
    shell shows it as a usage error."""


@dataclass(frozen=True)
class Opt:
    """One long option: a flag, one value, or an argparse-style list (``--name a b``)."""

    name: str  # "--base-ref"
    kind: str = "value"  # "flag" | "value" | "list"
    type: type = str  # of the value or of each list item: str or int
    choices: tuple[str, ...] | None = None
    default: Any = None
    required: bool = False
    show_default: bool = False
    help: str = ""

    @property
    def dest(self) -> str:
        return self.name[2:].replace("-", "_")


@dataclass(frozen=True)
class FastCommand:
    """A batch command runnable without click: its options and the function taking them."""

    options: tuple[Opt, ...]
    function: Callable[..., Any]


def parse_fast(options: Sequence[Opt], argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments click passes for a well-formed command line, or None when the
    line needs click (help, a positional or unknown option, a missing or bad value): click
    then parses it and reports exactly as it always does."""
    by_name = {opt.name: opt for opt in options}
    lists = {opt.name for opt in options if opt.kind == "list"}
    args = argparse_style(argv, [*by_name, "--help"], lists)  # click knows --help too: "--he" is ambiguous
    values: dict[str, Any] = {}
    index = 0
    while index < len(args):
        name, has_value, value = args[index].partition("=")
        index += 1
        opt = by_name.get(name)
        if opt is None:
            return None
        if opt.kind == "flag":
            if has_value:
                return None
            values[opt.dest] = True
            continue
        if not has_value:
            if index >= len(args) or args[index].startswith("-"):
                return None  # a missing value, or one click may read differently
            value = args[index]
            index += 1
        converted = _convert(opt, value)
        if converted is None:
            return None
        if opt.kind == "list":
            values[opt.dest] = (*values.get(opt.dest, ()), converted)
        else:
            values[opt.dest] = converted
    for opt in options:
        if opt.dest in values:
            continue
        if opt.required:
            return None
        values[opt.dest] = False if opt.kind == "flag" else () if opt.kind == "list" else opt.default
    return values


def _convert(opt: Opt, value: str) -> Any:
    if opt.choices is not None:
        return value if value in opt.choices else None
    if opt.type is int:
        try:
            return int(value)
        except ValueError:
            return None
    return value


def argparse_style(args: list[str], long_names: list[str], list_names: set[str]) -> list[str]:
    """Rewrite argv to click's form with argparse semantics.

    argparse accepts unique prefixes of long options (``--max-c``), takes one value from
    ``--name=value`` but every following non-option token from ``--name v1 v2``, and lets a
    repeated ``nargs='+'`` option replace the earlier values (last one wins).
    """
    out: list[str] = []
    lists: dict[str, list[str]] = {}
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token == "--" or not token.startswith("--"):
            out.append(token)
            continue
        name, has_value, value = token.partition("=")
        name = _full_option_name(name, long_names)
        if name not in list_names:
            out.append(name + (f"={value}" if has_value else ""))
            continue
        values = [value] if has_value else []
        while not has_value and index < len(args) and _is_value(args[index]):
            values.append(args[index])
            index += 1
        lists.pop(name, None)
        lists[name] = values
    for name, values in lists.items():
        out += [part for value in values for part in (name, value)] if values else [name]
    return out


def _full_option_name(name: str, long_names: list[str]) -> str:
    if name in long_names:
        return name
    matches = [candidate for candidate in long_names if candidate.startswith(name)]
    return matches[0] if len(matches) == 1 else name


def _is_value(token: str) -> bool:
    """argparse's test: '-', negative numbers and tokens with a space are values too."""
    return (not token.startswith("-") or token == "-" or " " in token
            or bool(_NEGATIVE_NUMBER.match(token)))
