"""`infx matrix full-sweep|test-config`, runnable without click: options, checks and the run (infx/cli/matrix.py wraps them for click).

Flags mirror the reference generator, including argparse-style lists
(``--config-files a.yaml b.yaml``). Output: one JSON array on stdout, formatted like
the reference (``json.dumps`` defaults, one line); problems go to stderr.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from infx.cli.options import FastCommand, Opt, UsageProblem
from infx.config.master import load_master_configs
from infx.config.runners import load_runners, unknown_runner_problems
from infx.config.scenarios import AGENTIC, AGENTIC_ID, SCENARIO_TYPES, SWEPT_SEQ_LENS
from infx.errors import report
from infx.plan import generate
from infx.plan.generate import eval_mode_for_flags

COMMON = (
    Opt("--config-files", "list", required=True, help="Master config files (YAML), merged in order."),
    Opt("--runner-config", default="configs/runners.yaml", show_default=True,
        help="Runner labels/hardware file."),
    Opt("--no-evals", "flag", help="Throughput rows only; no eval marking."),
    Opt("--evals-only", "flag", help="Only the eval rows (eval-only: true)."),
    Opt("--all-evals", "flag", help="Every eligible row evaluates; emits eval rows only."),
    Opt("--runner-node-filter", help="Expand runner labels to member nodes containing this text."),
    Opt("--scenario-type", "list", choices=tuple(SCENARIO_TYPES),
        help="Scenario families to include (default: all)."),
    Opt("--summary", "flag", help="Also print rows per config key / runner / kind on stderr."),
)
SEQ_LENS = Opt("--seq-lens", "list", choices=tuple(SWEPT_SEQ_LENS), help="Sequence lengths to keep.")
FULL_SWEEP_OPTIONS = COMMON + (
    Opt("--model-prefix", "list", help="Config-key prefixes to keep."),
    Opt("--precision", "list", help="Precisions to keep."),
    Opt("--framework", "list", help="Frameworks to keep."),
    Opt("--runner-type", "list", help="Runner labels to keep."),
    SEQ_LENS,
    Opt("--step-size", type=int, default=2, show_default=True, help="Concurrency range multiplier."),
    Opt("--min-conc", type=int, help="Lowest concurrency to run."),
    Opt("--max-conc", type=int, help="Highest concurrency to run."),
    Opt("--max-tp", type=int, help="Skip single-node entries above this TP."),
    Opt("--max-ep", type=int, help="Clamp single-node EP to this value."),
    Opt("--single-node", "flag", help="Only single-node configs."),
    Opt("--multi-node", "flag", help="Only multi-node configs."),
)
TEST_CONFIG_OPTIONS = COMMON + (
    Opt("--config-keys", "list", required=True, help="Config keys; '*' and '?' globs allowed."),
    Opt("--conc", "list", type=int, help="Keep only these concurrencies."),
    SEQ_LENS,
)


def full_sweep(**opts) -> None:
    """Every config key, optionally filtered."""
    if opts["step_size"] <= 1:
        raise UsageProblem("--step-size must be greater than 1")
    if (opts["min_conc"] is not None and opts["max_conc"] is not None
            and opts["min_conc"] > opts["max_conc"]):
        raise UsageProblem("--min-conc must be less than or equal to --max-conc")
    _run("full-sweep", opts)


def test_config(**opts) -> None:
    """The full sweep of the named config keys."""
    _run("test-config", opts)


FULL_SWEEP = FastCommand(FULL_SWEEP_OPTIONS, full_sweep)
TEST_CONFIG = FastCommand(TEST_CONFIG_OPTIONS, test_config)


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
        raise UsageProblem("--no-evals and --evals-only are mutually exclusive")
    if no_evals and all_evals:
        raise UsageProblem("--all-evals cannot be combined with --no-evals")

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
