"""``infx matrix full-sweep|test-config``: thin click shell over ``infx.matrix.generate``.

Flags mirror the reference generator, including argparse-style lists
(``--config-files a.yaml b.yaml``). Output: one JSON array on stdout, formatted like
the reference (``json.dumps`` defaults, one line); problems go to stderr.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import click

from infx.cli import main
from infx.cliargs import ArgparseCommand, ListOption
from infx.config.master import load_master_configs
from infx.config.runners import load_runners, unknown_runner_problems
from infx.errors import Problem, report
from infx.matrix import generate
from infx.matrix.generate import eval_mode_for_flags
from infx.matrix.scenarios import AGENTIC, AGENTIC_ID, SCENARIO_TYPES, SWEPT_SEQ_LENS


def _common(command):
    options = [
        click.option("--config-files", cls=ListOption, required=True,
                     help="Master config files (YAML), merged in order."),
        click.option("--runner-config", default="configs/runners.yaml", show_default=True,
                     help="Runner labels/hardware file."),
        click.option("--no-evals", is_flag=True, help="Throughput rows only; no eval marking."),
        click.option("--evals-only", is_flag=True, help="Only the eval rows (eval-only: true)."),
        click.option("--all-evals", is_flag=True,
                     help="Every eligible row evaluates; emits eval rows only."),
        click.option("--runner-node-filter", default=None,
                     help="Expand runner labels to member nodes containing this text."),
        click.option("--scenario-type", cls=ListOption,
                     type=click.Choice(SCENARIO_TYPES),
                     help="Scenario families to include (default: all)."),
        click.option("--summary", is_flag=True,
                     help="Also print rows per config key / runner / kind on stderr."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group()
def matrix() -> None:
    """Generate benchmark job matrices from master configs."""


@matrix.command("full-sweep", cls=ArgparseCommand)
@_common
@click.option("--model-prefix", cls=ListOption, help="Config-key prefixes to keep.")
@click.option("--precision", cls=ListOption, help="Precisions to keep.")
@click.option("--framework", cls=ListOption, help="Frameworks to keep.")
@click.option("--runner-type", cls=ListOption, help="Runner labels to keep.")
@click.option("--seq-lens", cls=ListOption, type=click.Choice(list(SWEPT_SEQ_LENS)),
              help="Sequence lengths to keep.")
@click.option("--step-size", type=int, default=2, show_default=True,
              help="Concurrency range multiplier.")
@click.option("--min-conc", type=int, default=None, help="Lowest concurrency to run.")
@click.option("--max-conc", type=int, default=None, help="Highest concurrency to run.")
@click.option("--max-tp", type=int, default=None, help="Skip single-node entries above this TP.")
@click.option("--max-ep", type=int, default=None, help="Clamp single-node EP to this value.")
@click.option("--single-node", is_flag=True, help="Only single-node configs.")
@click.option("--multi-node", is_flag=True, help="Only multi-node configs.")
def full_sweep(**opts) -> None:
    """Every config key, optionally filtered."""
    if opts["step_size"] <= 1:
        raise click.UsageError("--step-size must be greater than 1")
    if (opts["min_conc"] is not None and opts["max_conc"] is not None
            and opts["min_conc"] > opts["max_conc"]):
        raise click.UsageError("--min-conc must be less than or equal to --max-conc")
    _run("full-sweep", opts)


@matrix.command("test-config", cls=ArgparseCommand)
@_common
@click.option("--config-keys", cls=ListOption, required=True,
              help="Config keys; '*' and '?' globs allowed.")
@click.option("--conc", cls=ListOption, type=int, help="Keep only these concurrencies.")
@click.option("--seq-lens", cls=ListOption, type=click.Choice(list(SWEPT_SEQ_LENS)),
              help="Sequence lengths to keep.")
def test_config(**opts) -> None:
    """The full sweep of the named config keys."""
    _run("test-config", opts)


def _run(command: str, opts: dict) -> None:

    mode = _eval_mode(opts.pop("no_evals"), opts.pop("evals_only"), opts.pop("all_evals"))
    summary = opts.pop("summary")
    configs = load_master_configs(opts.pop("config_files"))
    runners = load_runners(opts.pop("runner_config"))
    lists = {name: list(value) if value else None for name, value in opts.items()
             if isinstance(value, tuple)}
    opts.update(lists)
    if command == "full-sweep":
        tagged = generate.full_sweep_tagged(configs, runners, evals=mode, **opts)
    else:
        keys = opts.pop("config_keys")
        tagged = generate.test_config_tagged(configs, runners, keys, evals=mode, **opts)
    warnings = unknown_runner_problems(configs, runners, dict.fromkeys(key for key, _ in tagged))
    if warnings:
        report(warnings)
    sys.stdout.write(json.dumps([row for _, row in tagged]) + "\n")
    if summary:
        sys.stderr.write(summary_table(tagged))


def _eval_mode(no_evals: bool, evals_only: bool, all_evals: bool) -> str:
    if no_evals and evals_only:
        raise click.UsageError("--no-evals and --evals-only are mutually exclusive")
    if no_evals and all_evals:
        raise click.UsageError("--all-evals cannot be combined with --no-evals")

    return eval_mode_for_flags(no_evals, evals_only, all_evals)


def row_kind(row: dict) -> str:
    """single-node/multi-node × fixed/agentic, for summaries."""
    nodes = "multi-node" if "prefill" in row else "single-node"
    scenario = AGENTIC_ID if row.get("scenario-type") == AGENTIC else "fixed"
    return f"{nodes} {scenario}"


def summary_table(tagged: list[tuple[str, dict]]) -> str:
    """Human table: rows (and eval rows) per config key, runner and kind."""
    rows_per: Counter = Counter()
    evals_per: Counter = Counter()
    for key, row in tagged:
        group = (key, row["runner"], row_kind(row))
        rows_per[group] += 1
        evals_per[group] += bool(row.get("run-eval"))
    width = max([len("config key")] + [len(key) for key, _, _ in rows_per])
    lines = [f"{'config key':<{width}}  {'runner':<22} {'kind':<20} {'rows':>5} {'evals':>5}"]
    for group, count in rows_per.items():
        key, runner, kind = group
        lines.append(f"{key:<{width}}  {runner:<22} {kind:<20} {count:>5} {evals_per[group]:>5}")
    by_kind = Counter(row_kind(row) for _, row in tagged)
    by_runner = Counter(row["runner"] for _, row in tagged)
    total_evals = sum(bool(row.get("run-eval")) for _, row in tagged)
    lines.append(f"total: {len(tagged)} rows, {total_evals} with run-eval; "
                 + ", ".join(f"{kind} {count}" for kind, count in by_kind.items()))
    lines.append("per runner: " + ", ".join(f"{runner} {count}"
                                            for runner, count in by_runner.items()))
    return "\n".join(lines) + "\n"


def run_matrix(argv: list[str] | None = None) -> int:
    """Run the ``matrix`` group as a program (used by ``python -m infx.matrix.generate``)."""

    return main(["matrix", *(sys.argv[1:] if argv is None else argv)])


__all__ = ["matrix", "run_matrix", "summary_table", "row_kind", "Problem"]
