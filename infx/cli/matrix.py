"""``infx matrix full-sweep|test-config``: the click shell over ``infx.cli.matrix_batch``.

Well-formed command lines run without click (``infx.cli``); this group gives the same
commands their help, their usage errors, and every line the click-free parser leaves to it.
"""

from __future__ import annotations

import sys

import click

from infx.cli import main
from infx.cli import matrix_batch as commands
from infx.cli.args import fast_command


@click.group()
def matrix() -> None:
    """Generate benchmark job matrices from master configs."""


full_sweep = fast_command("full-sweep", commands.FULL_SWEEP)
test_config = fast_command("test-config", commands.TEST_CONFIG)
matrix.add_command(full_sweep)
matrix.add_command(test_config)


def run_matrix(argv: list[str] | None = None) -> int:
    """Run the ``matrix`` group as a program (used by ``python -m infx.plan.generate``)."""

    return main(["matrix", *(sys.argv[1:] if argv is None else argv)])
