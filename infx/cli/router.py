"""The click router of `infx`: the command group over the table of infx.cli, help and usage errors."""

from __future__ import annotations

import click

from infx import __version__
from infx.cli import COMMANDS, guarded, paused_gc
from infx.errors import InfxError, Problem, report
from infx.loading import load

HELP_OPTIONS = ["-h", "--help"]


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use; help reads the table."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        module_name, attr = entry.target.split(":")
        try:
            command = getattr(load(module_name), attr)
        except Exception as exc:  # noqa: BLE001 - a broken command is an error, never a missing one
            raise InfxError(Problem(f"command {name!r} could not be loaded from {entry.target}: "
                                    f"{type(exc).__name__}: {exc}",
                                    fix="reinstall infx; report this if it persists")) from exc
        if not isinstance(command, click.Command):
            raise InfxError(Problem(f"command {name!r}: {entry.target} is not a click command"))
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name].summary) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": HELP_OPTIONS})
@click.version_option(__version__, "--version", prog_name="infx")
def cli() -> None:
    """infx: plan benchmark sweeps, reuse runs, and verify CODEOWNER sign-offs."""


def run_named(name: str, argv: list[str] | None, prog_name: str) -> int:
    """Run one command of the table as its own program (e.g. `python -m infx.matrix.plan`)."""
    try:
        command = cli.get_command(click.Context(cli), name)
    except InfxError as exc:
        report(exc.problems)
        return 1
    assert command is not None, name
    return run(command, argv, prog_name, batch=COMMANDS[name].batch)


def run(command: click.Command, argv: list[str] | None, prog_name: str, *,
        batch: bool = False) -> int:
    """Run any click command as a program: located errors on stderr, an exit status back.

    A `batch` command runs with the cyclic garbage collector paused (see Command.batch)."""
    with paused_gc(batch):
        return _run(command, argv, prog_name)


def _run(command: click.Command, argv: list[str] | None, prog_name: str) -> int:
    try:
        # Without standalone mode click *returns* the code of ctx.exit(code).
        return guarded(lambda: command.main(args=argv, prog_name=prog_name, standalone_mode=False,
                                            help_option_names=HELP_OPTIONS), prog_name)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 1
