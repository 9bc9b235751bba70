"""Argparse-style command lines for click commands (``--config-files a.yaml b.yaml``), as the reference tools take them."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click

from infx.cli.options import FastCommand, Opt, UsageProblem, argparse_style


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


def click_options(options: Sequence[Opt]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a command function with click options built from ``infx.cli.options`` specs."""

    def apply(function: Callable[..., Any]) -> Callable[..., Any]:
        for opt in reversed(options):
            kind = (click.Choice(list(opt.choices)) if opt.choices is not None
                    else click.INT if opt.type is int else click.STRING)
            if opt.kind == "flag":
                decorator = click.option(opt.name, is_flag=True, help=opt.help or None)
            elif opt.kind == "list":
                decorator = click.option(opt.name, cls=ListOption, type=kind,
                                         required=opt.required, help=opt.help or None)
            else:
                # click 8.3+ counts an explicit default=None as a value: a required option
                # given one is never reported missing, so pass a default only when there is one
                extra = {} if opt.default is None else {"default": opt.default}
                decorator = click.option(opt.name, type=kind, show_default=opt.show_default,
                                         required=opt.required, help=opt.help or None, **extra)
            function = decorator(function)
        return function

    return apply


def fast_command(name: str, fast: FastCommand) -> click.Command:
    """The click command of a batch command (its help, its errors, and every command line
    its click-free parser leaves to click); a UsageProblem is a click usage error."""

    @functools.wraps(fast.function)
    def run(**options: Any) -> Any:
        try:
            return fast.function(**options)
        except UsageProblem as exc:
            raise click.UsageError(str(exc)) from None

    return click.command(name, cls=ArgparseCommand)(click_options(fast.options)(run))
