"""The `infx` command line: a thin router over a table of commands, each imported only when run.

Commands live next to the code they drive (``infx/<concern>/cli.py``); the table carries each
one's summary, so ``infx --help`` imports none of them and short commands such as
``infx plan`` stay fast (PyGithub alone costs ~0.2 s).
"""

from __future__ import annotations

import gc
import importlib
import sys
from dataclasses import dataclass

import click

from infx import __version__
from infx.errors import InfxError, Problem, report

HELP_OPTIONS = ["-h", "--help"]


@dataclass(frozen=True)
class Command:
    """One row of the command table: where the click command lives, and its help line."""

    target: str  # "module:attribute" of a click command or group
    summary: str  # shown by `infx --help` without importing the module
    # a short batch run over bounded inputs (files, git): its data holds no reference
    # cycles, so the cyclic garbage collector only costs time (up to 2x on large loads)
    batch: bool = False


COMMANDS: dict[str, Command] = {
    "changelog": Command("infx.changelog.cli:changelog",
                         "Validate perf-changelog.yaml changes; prepare them for merging.", batch=True),
    "demo": Command("infx.demo:demo",
                    "Plan a bundled PR, replay the bots on a local fake GitHub."),
    "fake-github": Command("infx.github.cli:fake_github",
                           "Serve a world file as a local GitHub REST API."),
    "matrix": Command("infx.matrix.cli:matrix",
                      "Generate benchmark job matrices from master configs.", batch=True),
    "plan": Command("infx.changelog.cli:plan_command",
                    "Plan the sweep for changelog entries appended between refs.", batch=True),
    "reuse": Command("infx.reuse.cli:reuse",
                     "The /reuse-sweep-run command: resolve, acknowledge, parse."),
    "signoff": Command("infx.signoff.cli:signoff",
                       "Verify CODEOWNER sign-offs (the deterministic sign-off bot)."),
    "workflow": Command("infx.workflow.cli:workflow",
                        "Steps used by the GitHub workflows (also runnable locally)."),
}


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
            command = getattr(importlib.import_module(module_name), attr)
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


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning InfxError into a clean message and exit 1."""
    args = sys.argv[1:] if argv is None else argv
    entry = COMMANDS.get(args[0]) if args else None
    return run(cli, argv, "infx", batch=entry is not None and entry.batch)


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
    collecting = batch and gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return _run(command, argv, prog_name)
    finally:
        if collecting:
            gc.enable()


def _run(command: click.Command, argv: list[str] | None, prog_name: str) -> int:
    try:
        # Without standalone mode click *returns* the code of ctx.exit(code).
        result = command.main(args=argv, prog_name=prog_name, standalone_mode=False,
                              help_option_names=HELP_OPTIONS)
    except InfxError as exc:
        report(exc.problems)
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 1
    except (MemoryError, RecursionError) as exc:
        # Inputs are bounded where they are read (infx.yamlio); this is the last line of
        # defence: one clear error instead of a traceback, and no partial output.
        what = "memory" if isinstance(exc, MemoryError) else "nesting depth"
        report([Problem(f"{prog_name} ran out of {what} ({type(exc).__name__}) on its input",
                        fix="check the input files for oversized or deeply nested data")])
        return 1
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
