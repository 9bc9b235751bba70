"""The `infx` command line: a table of commands, each imported only when run; batch commands skip click.

Commands live next to the code they drive (``infx/<concern>/cli.py``); the table carries each
one's summary, so ``infx --help`` imports none of them and short commands such as
``infx plan`` stay fast (PyGithub alone costs ~0.2 s). A well-formed ``infx plan`` or
``infx matrix full-sweep|test-config`` line runs without importing click at all
(``infx.cli.options``); help, errors and every other command go through the click router
(``infx.cli.router``).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from infx.errors import InfxError, Problem, report


@dataclass(frozen=True)
class Command:
    """One row of the command table: where the click command lives, and its help line."""

    target: str  # "module:attribute" of a click command or group
    summary: str  # shown by `infx --help` without importing the module
    # a short batch run over bounded inputs (files, git): its data holds no reference
    # cycles, so the cyclic garbage collector only costs time (up to 2x on large loads)
    batch: bool = False


COMMANDS: dict[str, Command] = {
    "changelog": Command("infx.cli.changelog:changelog",
                         "Validate perf-changelog.yaml changes; prepare them for merging.", batch=True),
    "config": Command("infx.cli.config:config",
                      "Validate configuration files: master configs, runners, thresholds, policy."),
    "demo": Command("infx.cli.demo:demo",
                    "Plan a bundled PR, replay the bots on a local fake GitHub."),
    "fake-github": Command("infx.cli.fake_github:fake_github",
                           "Serve a world file as a local GitHub REST API."),
    "init": Command("infx.cli.adopt:init",
                    "Set up a repository to run infx by reference (workflows, policy, App manifest)."),
    "matrix": Command("infx.cli.matrix:matrix",
                      "Generate benchmark job matrices from master configs.", batch=True),
    "plan": Command("infx.cli.changelog:plan_command",
                    "Plan the sweep for changelog entries appended between refs.", batch=True),
    "reuse": Command("infx.cli.reuse:reuse",
                     "Slash commands: resolve and acknowledge reuse, retest, answer /help, parse."),
    "signoff": Command("infx.cli.signoff:signoff",
                       "Verify CODEOWNER sign-offs (the deterministic sign-off bot)."),
    "workflow": Command("infx.cli.workflow:workflow",
                        "Steps used by the GitHub workflows (also runnable locally)."),
}
# Batch commands that also run without click ("module:attribute" of an infx.cli.options
# FastCommand); the click commands above are built from the same options.
FAST: dict[tuple[str, ...], str] = {
    ("plan",): "infx.cli.plan_batch:COMMAND",
    ("matrix", "full-sweep"): "infx.cli.matrix_batch:FULL_SWEEP",
    ("matrix", "test-config"): "infx.cli.matrix_batch:TEST_CONFIG",
}


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning InfxError into a clean message and exit 1."""
    args = sys.argv[1:] if argv is None else argv
    code = _run_fast(args)
    if code is not None:
        return code
    from infx.loading import loading

    with loading():
        from infx.cli.router import cli, run
    entry = COMMANDS.get(args[0]) if args else None
    return run(cli, argv, "infx", batch=entry is not None and entry.batch)


def _run_fast(args: list[str]) -> int | None:
    """The exit status of a well-formed batch command line run without click, or None
    for anything click must see (other commands, help, a malformed line, a usage error)."""
    words = next((w for w in FAST if tuple(args[:len(w)]) == w), None)
    if words is None:
        return None
    target = FAST[words]
    from infx.cli.options import UsageProblem, parse_fast

    module, _, attr = target.partition(":")
    try:
        command = getattr(importlib.import_module(module), attr)
    except Exception:  # noqa: BLE001 - the router reports a command that cannot be loaded
        return None
    options = parse_fast(command.options, args[len(words):])
    if options is None:
        return None
    with paused_gc(True):
        try:
            return guarded(lambda: command.function(**options), "infx")
        except UsageProblem:
            return None  # raised before any output; click's shell shows it as a usage error


def guarded(call: Callable[[], Any], prog_name: str) -> int:
    """Run a command's body: InfxError becomes its located message and exit 1; a returned
    int is the exit status."""
    try:
        result = call()
    except InfxError as exc:
        report(exc.problems)
        return 1
    except (MemoryError, RecursionError) as exc:
        # Inputs are bounded where they are read (infx.yamlio); this is the last line of
        # defence: one clear error instead of a traceback, and no partial output.
        what = "memory" if isinstance(exc, MemoryError) else "nesting depth"
        report([Problem(f"{prog_name} ran out of {what} ({type(exc).__name__}) on its input",
                        fix="check the input files for oversized or deeply nested data")])
        return 1
    except Exception as exc:  # noqa: BLE001 - never a traceback: one line, exit 1
        if _is_usage_error(exc) or os.environ.get("INFX_DEBUG") == "1":
            raise
        report(_unexpected(exc, prog_name))
        return 1
    return result if isinstance(result, int) else 0


def _is_usage_error(exc: BaseException) -> bool:
    """click's own exceptions (usage errors, exit, abort) and a batch command's UsageProblem:
    click's shell reports them (a usage error exits 2, not 1)."""
    from infx.cli.options import UsageProblem

    return isinstance(exc, UsageProblem) or type(exc).__module__.startswith("click.")


def _unexpected(exc: BaseException, prog_name: str) -> list[Problem]:
    """The one line for an exception no command turned into a located problem."""
    if type(exc).__module__.split(".")[0] in ("requests", "urllib3"):
        from infx.github.failures import as_network_problem

        translated = as_network_problem(exc)
        if translated is not None:
            return translated.problems
    if isinstance(exc, OSError) and exc.filename:
        return [Problem(f"{exc.strerror or type(exc).__name__}", file=str(exc.filename),
                        fix="check the path and its permissions")]
    return [Problem(f"{prog_name} failed unexpectedly: {type(exc).__name__}: {exc}",
                    fix="this is a bug in infx; rerun with INFX_DEBUG=1 for the traceback and report it")]


@contextmanager
def paused_gc(batch: bool) -> Iterator[None]:
    """The cyclic garbage collector paused for a batch command (see Command.batch)."""
    collecting = batch and gc.isenabled()
    if collecting:
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def run_named(name: str, argv: list[str] | None, prog_name: str) -> int:
    """Run one command of the table as its own program (e.g. `python -m infx.matrix.plan`)."""
    from infx.cli.router import run_named as router_run_named

    return router_run_named(name, argv, prog_name)


def __getattr__(name: str) -> Any:
    """The click router's names (``cli``, ``LazyGroup``, ``run``), imported on first use."""
    if name in ("cli", "LazyGroup", "run", "HELP_OPTIONS"):
        from infx.cli import router as clirouter

        return getattr(clirouter, name)
    raise AttributeError(f"module 'infx.cli' has no attribute {name!r}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
