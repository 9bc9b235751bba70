"""The `infx` command line: a thin router that imports each command only when used.

Commands live next to the code they drive (``infx/<concern>/cli.py``); importing them
lazily keeps short commands such as ``infx plan`` fast (PyGithub alone costs ~0.2 s).
"""

from __future__ import annotations

import importlib
import sys

import click

from infx.errors import InfxError, Problem, report

# command name -> "module:attribute" of a click command or group
COMMANDS: dict[str, str] = {
    "matrix": "infx.matrix.cli:matrix",
    "plan": "infx.changelog.cli:plan_command",
    "changelog": "infx.changelog.cli:changelog",
    "fake-github": "infx.github.cli:fake_github",
    "reuse": "infx.reuse.cli:reuse",
    "signoff": "infx.signoff.cli:signoff",
    "demo": "infx.demo:demo",
    "workflow": "infx.workflow.cli:workflow",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("infx"):
                return None  # command not built yet in this checkout
            raise
        return getattr(module, attr)


@click.group(cls=LazyGroup)
@click.version_option(package_name="infx")
def cli() -> None:
    """infx: plan benchmark sweeps, reuse runs, and verify CODEOWNER sign-offs."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning InfxError into a clean message and exit 1."""
    return run(cli, argv, "infx")


def run_named(name: str, argv: list[str] | None, prog_name: str) -> int:
    """Run one command of the table as its own program (e.g. `python -m infx.matrix.plan`)."""
    command = LazyGroup(name="infx").get_command(click.Context(cli), name)
    assert command is not None, name
    return run(command, argv, prog_name)


def run(command: click.Command, argv: list[str] | None, prog_name: str) -> int:
    """Run any click command as a program: located errors on stderr, an exit status back."""
    try:
        # Without standalone mode click *returns* the code of ctx.exit(code).
        result = command.main(args=argv, prog_name=prog_name, standalone_mode=False)
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
