"""`infx init`: write the adopter's workflow callers, policy files, checklist and App manifest into a repository."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("init")
@click.argument("target", type=click.Path(file_okay=False, path_type=Path), default=".")
@click.option("--infx", "source", required=True, metavar="OWNER/NAME@SHA",
              help="The infx repository and the full commit SHA the workflows pin.")
@click.option("--app-name", default=None, help="Name of the sign-off GitHub App (default: <folder>-infx-signoff).")
@click.option("--write", is_flag=True, help="Write the files (without it, only show what would change).")
@click.option("--force", is_flag=True, help="With --write, also overwrite files that differ.")
def init(target: Path, source: str, app_name: str | None, write: bool, force: bool) -> int:
    """Set up TARGET (a repository's root, default .) to run infx by reference.

    Without --write nothing is written. A file that exists and differs is shown as a diff and
    never overwritten without --force; then the exit status is 1."""
    from infx.adopt import starter

    if force and not write:
        raise click.UsageError("--force only applies with --write")
    repository, ref = starter.parse_source(source)
    name = app_name or f"{target.resolve().name}-infx-signoff"
    changes = starter.compare(target, starter.files(repository, ref, name))
    written = {c.path for c in starter.apply(target, changes, force=force)} if write else set()
    for change in changes:
        if change.path in written:
            click.echo(f"wrote     {change.path}")
        elif change.action == "create":
            click.echo(f"would create {change.path}")
        elif change.action == "differs":
            click.echo(f"differs   {change.path}" + ("" if write else " (--write --force to replace)"))
            click.echo(change.diff, nl=False)
    blocked = [c for c in changes if c.action == "differs" and c.path not in written]
    if all(c.action == "same" for c in changes):
        click.echo(f"nothing to change: {len(changes)} files are up to date")
    if blocked:
        click.echo(f"error: {len(blocked)} file(s) differ from what infx init writes; review the diff, "
                   "then run again with --write --force to replace them", err=True)
        return 1
    if write:
        click.echo("\nStill to do by hand (README: Adopting infx):")
        for number, step in enumerate(starter.MANUAL_STEPS, 1):
            click.echo(f"  {number}. {step}")
    return 0
