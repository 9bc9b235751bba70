"""Argparse-style command lines for click commands (``--config-files a.yaml b.yaml``), as the reference tools take them."""

from __future__ import annotations

import re

import click

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # argparse's rule


class ListOption(click.Option):
    """An option taking one or more values, like argparse ``nargs='+'``.

    The values are spread into repeated options by :class:`ArgparseCommand` before click
    parses them, so click only sees ``--name v1 --name v2``.
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("multiple", True)
        kwargs.setdefault("metavar", "VALUE...")
        super().__init__(*args, **kwargs)


class ArgparseCommand(click.Command):
    """Parse the command line the way the reference's argparse parser does."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        params = self.get_params(ctx)
        long_names = [name for param in params for name in param.opts if name.startswith("--")]
        list_names = {name for param in params if isinstance(param, ListOption)
                      for name in param.opts}
        return super().parse_args(ctx, argparse_style(args, long_names, list_names))


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
