"""`python -m infx.matrix.plan`: the reference's spelling of `infx plan` (the planner is infx.plan.planner)."""

from __future__ import annotations

import sys

from infx.cli import run_named


def main(argv: list[str] | None = None) -> int:
    """Same flags, clean errors and exit status as `infx plan`."""
    return run_named("plan", argv, "python -m infx.matrix.plan")


if __name__ == "__main__":
    sys.exit(main())
