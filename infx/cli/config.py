"""`infx config validate`: check every configuration file of a benchmark repository at once."""

from __future__ import annotations

import json
from pathlib import Path

import click

from infx.errors import InfxError, Problem, report


@click.group("config")
def config() -> None:
    """Validate the repository's configuration files."""


@config.command("validate")
@click.option("--repo-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Root of the benchmark repository checkout.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def validate(repo_dir: Path, fmt: str) -> None:
    """Master configs, runners, eval thresholds, golden AL curves and sign-off policy files:
    one located line per problem (GitHub annotations in Actions), exit 1 on any error."""
    from infx.config.validate import validate_repository

    if not repo_dir.is_dir():
        raise InfxError(Problem(f"no such folder: {repo_dir}", key="--repo-dir",
                                fix="pass the root of the repository checkout"))
    outcome = validate_repository(repo_dir.resolve())
    report(outcome.problems)
    summary = {"files": len(outcome.files), "errors": len(outcome.errors),
               "warnings": len(outcome.warnings)}
    if fmt == "json":
        click.echo(json.dumps(summary | {"problems": [str(p) for p in outcome.problems]}, indent=2))
    counts = (f"{summary['files']} files, {summary['errors']} errors, "
              f"{summary['warnings']} warnings")
    if outcome.errors:
        raise InfxError(Problem(f"the configuration is invalid: {counts}",
                                fix="correct each error above, then run infx config validate again"))
    click.echo(f"config validate: {counts}", err=True)
