"""`infx plan` and `infx changelog`: plan the appended entries; validate and prepare perf-changelog.yaml."""

from __future__ import annotations

import os
from pathlib import Path

import click

from infx.changelog.entry import ChangelogEntry
from infx.changelog.gitio import show_file
from infx.changelog.strict import DEFAULT_REPO, validate_change
from infx.cli.args import ArgparseCommand, ListOption, fast_command
from infx.cli.plan_batch import COMMAND as PLAN
from infx.config.runners import unknown_runner_problems
from infx.errors import InfxError, Problem, report
from infx.plan.planner import (
    DEFAULT_CHANGELOG,
    PlanFlags,
    Sources,
    build_plan,
    default_config_files,
    file_sources,
)


@click.group("changelog")
def changelog() -> None:
    """Validate perf-changelog.yaml changes and prepare them for merging."""


@changelog.command("validate", cls=ArgparseCommand)
@click.option("--base-ref", required=True, help="Ref the change is compared against.")
@click.option("--head-ref", required=True, help="Ref holding the changed changelog.")
@click.option("--pr-number", type=int, default=None,
              help="Pull request number (omit for pushes to main).")
@click.option("--changelog-file", default=DEFAULT_CHANGELOG, show_default=True)
@click.option("--repo", default=DEFAULT_REPO, show_default=True, envvar="GITHUB_REPOSITORY",
              help="owner/name used in canonical pr-link URLs ($GITHUB_REPOSITORY in Actions).")
@click.option("--all-evals", is_flag=True, help="Plan with the all-evals modifier.")
@click.option("--evals-only", is_flag=True, help="Plan with the evals-only modifier.")
@click.option("--config-files", cls=ListOption, help="Master config files for planning.")
@click.option("--runner-config", default="configs/runners.yaml", show_default=True)
def validate(base_ref: str, head_ref: str, pr_number: int | None, changelog_file: str,
             repo: str, all_evals: bool, evals_only: bool, config_files: tuple[str, ...],
             runner_config: str) -> None:
    """Enforce the changelog byte contract between two refs, then plan the additions."""

    base_raw = show_file(base_ref, changelog_file)
    head_raw = show_file(head_ref, changelog_file)
    head, change = validate_change(base_raw, head_raw, changelog_file, pr_number, repo,
                                   base_label=f"{changelog_file} at {base_ref}",
                                   head_label=f"{changelog_file} at {head_ref}")
    if not change.additions and not change.corrections:
        raise InfxError(Problem(f"{changelog_file} has no changes", file=changelog_file,
                                fix="append an entry or leave the changelog untouched"))
    if change.additions:
        # the strictly parsed entries are the additions: plan them without diffing again
        added = [head.models[i] for i in change.additions]
        sources = _plan(added, base_ref, head_ref, changelog_file, all_evals, evals_only,
                        config_files, runner_config)
        _check_runner_labels(added, sources)
    additions, corrections = len(change.additions), change.corrections
    _write_outputs({"has-additions": str(bool(additions)).lower(),
                    "metadata-only": str(bool(corrections and not additions)).lower(),
                    "addition-count": str(additions), "correction-count": str(corrections)})
    entries = "entry" if additions == 1 else "entries"
    fixes = "correction" if corrections == 1 else "corrections"
    click.echo(f"Validated {changelog_file}: {additions} appended {entries}, "
               f"{corrections} pr-link {fixes}")


def _plan(entries: list[ChangelogEntry], base_ref: str, head_ref: str, changelog_file: str,
          all_evals: bool, evals_only: bool, config_files: tuple[str, ...],
          runner_config: str) -> Sources:
    files = list(config_files) if config_files else default_config_files()
    flags = PlanFlags(all_evals=all_evals, evals_only=evals_only)
    sources = file_sources(files, runner_config, base_ref)
    try:
        build_plan(entries, base_ref=base_ref, head_ref=head_ref, flags=flags, sources=sources,
                   changelog_path=changelog_file)
    except InfxError as exc:
        problems = [Problem(f"the planner rejected the diff: {p.message}", file=p.file,
                            line=p.line, key=p.key, fix=p.fix) for p in exc.problems]
        raise InfxError(problems) from None
    return sources


def _check_runner_labels(added: list[ChangelogEntry], sources: Sources) -> None:
    """Warn about appended entries selecting configs whose runner label runners.yaml lacks.

    PRODUCT §4.1: unknown runner labels are warnings, not errors (the reference's real
    data uses labels such as `gb300-nv` served by runners outside this file). The warning
    names each label at the config's runner line; validation goes on.
    """
    configs, runners = sources.get("configs"), sources.get("runners")
    keys: dict[str, None] = {}
    for entry in added:
        keys.update(dict.fromkeys(entry.resolve_keys(list(configs))))
    problems = unknown_runner_problems(configs, runners, keys)
    for problem in problems:
        problem.message = "an appended changelog entry selects " + problem.message
    report(problems)


def _write_outputs(values: dict[str, str]) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as handle:
        handle.writelines(f"{name}={value}\n" for name, value in values.items())


@changelog.group("prepare-merge")
def prepare_merge() -> None:
    """Rewrite the changelog so a PR can be merged cleanly."""


def _common(func):
    func = click.option("--repo", default=DEFAULT_REPO, show_default=True,
                        envvar="GITHUB_REPOSITORY")(func)
    func = click.option("--pr-number", type=int, required=True)(func)
    return click.option("--changelog-file", default=DEFAULT_CHANGELOG, show_default=True)(func)


@prepare_merge.command("canonicalize")
@click.option("--base-ref", required=True, help="Ref the PR's changelog is compared against.")
@_common
def canonicalize_command(base_ref: str, changelog_file: str, pr_number: int, repo: str) -> None:
    """Replace XXX placeholders on appended entries with the PR's canonical URL."""

    base_raw = show_file(base_ref, changelog_file)
    head_raw = _read(changelog_file)
    from infx.changelog.merge_prep import canonicalize  # only this command needs it

    result = canonicalize(base_raw, head_raw, pr_number, path=changelog_file, repo=repo)
    _write_if_changed(changelog_file, head_raw, result, pr_number)


@prepare_merge.command("resolve-conflict")
@_common
def resolve_conflict_command(changelog_file: str, pr_number: int, repo: str) -> None:
    """Resolve a changelog merge conflict: main's bytes plus this PR's contribution."""

    base_raw, pr_raw, main_raw = (show_file(f":{stage}", changelog_file) for stage in (1, 2, 3))
    current = Path(changelog_file).read_bytes() if Path(changelog_file).exists() else b""
    from infx.changelog.merge_prep import resolve_conflict  # only this command needs it

    result = resolve_conflict(base_raw, pr_raw, main_raw, pr_number, path=changelog_file,
                              repo=repo)
    _write_if_changed(changelog_file, current, result, pr_number)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InfxError(Problem(f"cannot read {path}: {exc.strerror}", file=path)) from None


def _write_if_changed(path: str, before: bytes, after: bytes, pr_number: int) -> None:
    if before == after:
        click.echo(f"{path} already prepared for PR #{pr_number}")
        return
    try:
        Path(path).write_bytes(after)
    except OSError as exc:
        raise InfxError(Problem(f"cannot write {path}: {exc.strerror}", file=path)) from None
    click.echo(f"Prepared {path} for PR #{pr_number}")


plan_command = fast_command("plan", PLAN)  # runs without click when well-formed (infx.cli)
