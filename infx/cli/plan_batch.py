"""`infx plan`, runnable without click: its options and what it does (infx/cli/changelog.py wraps it for click)."""

from __future__ import annotations

import os
import sys

from infx.changelog.strict import DEFAULT_REPO
from infx.cli.options import FastCommand, Opt
from infx.plan.planner import (
    DEFAULT_CHANGELOG,
    DEFAULT_RUNNER_CONFIG,
    PlanFlags,
    default_config_files,
    dump_plan,
    file_sources,
    plan_from_git,
)

OPTIONS = (
    Opt("--base-ref", required=True, help="Git ref the changelog is compared against."),
    Opt("--head-ref", required=True, help="Git ref holding the appended entries."),
    Opt("--changelog-file", default=DEFAULT_CHANGELOG, show_default=True),
    Opt("--trim-conc", "flag", help="Keep the lowest concurrency per recipe."),
    Opt("--all-evals", "flag", help="Run every eligible eval."),
    Opt("--evals-only", "flag", help="Run evals only, no throughput rows."),
    Opt("--config-files", "list", help="Master config files (default: configs/*-master.yaml)."),
    Opt("--runner-config", default=DEFAULT_RUNNER_CONFIG, show_default=True),
    Opt("--summary", "flag", help="Markdown summary to $GITHUB_STEP_SUMMARY (or stderr)."),
)


def plan(base_ref: str, head_ref: str, changelog_file: str, trim_conc: bool, all_evals: bool,
         evals_only: bool, config_files: tuple[str, ...], runner_config: str,
         summary: bool) -> None:
    """Plan the sweep for the changelog entries appended between two git refs."""
    flags = PlanFlags(trim=trim_conc, all_evals=all_evals, evals_only=evals_only)
    files = list(config_files) if config_files else default_config_files()
    sources = file_sources(files, runner_config, base_ref)
    # the repository of canonical pr-links, as `changelog validate --repo` defaults it
    repo = os.environ.get("GITHUB_REPOSITORY") or DEFAULT_REPO
    planned = plan_from_git(base_ref, head_ref, changelog_file, flags, sources, repo)
    text = dump_plan(planned)
    if summary:
        from infx.plan.summary import summary_markdown, write_summary  # --summary only

        write_summary(summary_markdown(planned, sources.get("configs")))
    sys.stdout.write(text + "\n")


COMMAND = FastCommand(OPTIONS, plan)
