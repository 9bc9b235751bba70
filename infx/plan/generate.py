"""Matrix generator: master configs + runners -> benchmark/eval job rows.

In-process entry points (the CLI prints exactly what these return, in this order):
- ``generate_full_sweep(configs, runners, **filters)`` — ``infx matrix full-sweep``.
- ``generate_test_config(configs, runners, config_keys, **opts)`` — ``infx matrix test-config``.
- ``select_matrix_evals(rows, mode)`` — apply an eval policy to rows generated with
  ``evals="none"`` (all rows of one call form the eval groups, as in the reference).
- ``resolve_config_keys(patterns, configs)`` — test-config's glob/exact key resolution.

``evals`` / ``mode``: ``"default"`` (mark ``run-eval``; agentic rows never chosen),
``"none"`` (``--no-evals``), ``"subset"`` (``--evals-only``: eval rows only, agentic
included, ``eval-only: true``), ``"all"`` (``--all-evals``, with or without
``--evals-only``: every eligible row evaluates; eval rows only).
``configs`` is an ``infx.config.master.MasterConfigs`` and ``runners`` an
``infx.config.runners.Runners``. Rows are fresh dicts: callers may mutate them.
Run as ``python -m infx.plan.generate full-sweep|test-config [flags]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from infx.config import keys
from infx.config.scenarios import SWEPT_SEQ_LENS as SEQ_LENS
from infx.errors import InfxError, Problem
from infx.plan.evals import EVAL_MODES, apply_eval_mode
from infx.plan.expand import (
    GenerationError,
    KeyScope,
    conc_range,
    expand_config,
    listed_or_range,
    raise_located,
)

__all__ = ["EVAL_MODES", "generate_full_sweep", "generate_test_config", "select_matrix_evals",
           "resolve_config_keys", "eval_mode_for_flags"]

Tagged = tuple[str, dict]


def generate_full_sweep(configs: Mapping, runners: Any, *,
                        model_prefix: Sequence[str] | None = None,
                        precision: Sequence[str] | None = None,
                        framework: Sequence[str] | None = None,
                        runner_type: Sequence[str] | None = None,
                        seq_lens: Sequence[str] | None = None, step_size: int = 2,
                        min_conc: int | None = None, max_conc: int | None = None,
                        max_tp: int | None = None, max_ep: int | None = None,
                        single_node: bool = False, multi_node: bool = False,
                        runner_node_filter: str | None = None,
                        scenario_type: Sequence[str] | None = None,
                        evals: str = "default") -> list[dict]:
    """Rows of ``full-sweep`` over every (filtered) config key, in output order."""
    return [row for _, row in full_sweep_tagged(
        configs, runners, model_prefix=model_prefix, precision=precision, framework=framework,
        runner_type=runner_type, seq_lens=seq_lens, step_size=step_size, min_conc=min_conc,
        max_conc=max_conc, max_tp=max_tp, max_ep=max_ep, single_node=single_node,
        multi_node=multi_node, runner_node_filter=runner_node_filter,
        scenario_type=scenario_type, evals=evals)]


def generate_test_config(configs: Mapping, runners: Any, config_keys: Sequence[str], *,
                         conc: Sequence[int] | None = None,
                         seq_lens: Sequence[str] | None = None,
                         runner_node_filter: str | None = None,
                         scenario_type: Sequence[str] | None = None,
                         evals: str = "default") -> list[dict]:
    """Rows of ``test-config`` for the given keys (``*``/``?`` globs allowed), in output order."""
    return [row for _, row in test_config_tagged(
        configs, runners, config_keys, conc=conc, seq_lens=seq_lens,
        runner_node_filter=runner_node_filter, scenario_type=scenario_type, evals=evals)]


def select_matrix_evals(rows: list[dict], mode: str) -> list[dict]:
    """Apply eval policy ``mode`` to rows produced with ``evals="none"`` (rows are mutated)."""
    return [row for _, row in apply_eval_mode([(None, row) for row in rows], mode)]


def eval_mode_for_flags(no_evals: bool = False, evals_only: bool = False,
                        all_evals: bool = False) -> str:
    """The eval mode the reference CLI flags select."""
    if no_evals and (evals_only or all_evals):
        raise ValueError("--no-evals cannot be combined with --evals-only or --all-evals")
    if no_evals:
        return "none"
    if all_evals:
        return "all"
    return "subset" if evals_only else "default"


def resolve_config_keys(patterns: Sequence[str], configs: Mapping) -> list[str]:
    """Exact keys and ``*``/``?`` globs -> keys in the order given, de-duplicated."""
    try:
        return keys.resolve_config_keys(patterns, configs, keys.Wildcards.GLOB)
    except keys.KeyResolutionError as exc:
        raise InfxError(Problem(str(exc), key=exc.pattern, fix=_key_hint(list(configs)))) from None


def full_sweep_tagged(configs: Mapping, runners: Any, *, evals: str = "default",
                      **filters: Any) -> list[Tagged]:
    """``generate_full_sweep`` with each row paired with its config key."""
    opts = _FullSweepOptions(**filters)
    opts.check(runners)
    policy = opts.conc_policy
    tagged: list[Tagged] = []
    for key, config in configs.items():
        if not opts.selects(key, config):
            continue
        if opts.runner_node_filter:
            nodes = [node for node in runners.nodes(config["runner"])
                     if opts.runner_node_filter in node]
            if not nodes:
                continue
        else:
            nodes = [config["runner"]]
        scope = KeyScope(runners_for_rows=nodes, seq_lens=opts.seq_len_pairs,
                         scenario_types=_scenarios(opts.scenario_type),
                         include_single=opts.include_single, include_multi=opts.include_multi,
                         max_tp=opts.max_tp, max_ep=opts.max_ep)
        tagged += _expand(configs, runners, key, config, scope, policy)
    return apply_eval_mode(tagged, evals)


def test_config_tagged(configs: Mapping, runners: Any, config_keys: Sequence[str], *,
                       conc: Sequence[int] | None = None, seq_lens: Sequence[str] | None = None,
                       runner_node_filter: str | None = None,
                       scenario_type: Sequence[str] | None = None,
                       evals: str = "default") -> list[Tagged]:
    """``generate_test_config`` with each row paired with its config key."""
    _check_choices(seq_lens, scenario_type)
    keys = resolve_config_keys(config_keys, configs)
    wanted = set(conc) if conc else None
    policy = _test_config_policy(wanted)
    tagged: list[Tagged] = []
    for key in keys:
        config = configs[key]
        nodes = _test_config_runners(config["runner"], runners, runner_node_filter)
        if not nodes:
            continue
        scope = KeyScope(runners_for_rows=nodes, seq_lens=_seq_pairs(seq_lens),
                         scenario_types=_scenarios(scenario_type))
        tagged += _expand(configs, runners, key, config, scope, policy)
    return apply_eval_mode(tagged, evals)


class _FullSweepOptions:
    """The full-sweep filters, checked once, plus the concurrency rules they imply."""

    def __init__(self, model_prefix=None, precision=None, framework=None, runner_type=None,
                 seq_lens=None, step_size=2, min_conc=None, max_conc=None, max_tp=None,
                 max_ep=None, single_node=False, multi_node=False, runner_node_filter=None,
                 scenario_type=None) -> None:
        self.model_prefix, self.precision, self.framework = model_prefix, precision, framework
        self.runner_type, self.seq_lens, self.step_size = runner_type, seq_lens, step_size
        self.min_conc, self.max_conc, self.max_tp, self.max_ep = min_conc, max_conc, max_tp, max_ep
        both = not single_node and not multi_node
        self.include_single, self.include_multi = single_node or both, multi_node or both
        self.runner_node_filter, self.scenario_type = runner_node_filter, scenario_type
        self.seq_len_pairs = _seq_pairs(seq_lens)

    def check(self, runners: Any) -> None:
        _check_choices(self.seq_lens, self.scenario_type)
        if self.step_size <= 1:
            raise InfxError(Problem("--step-size must be greater than 1",
                                    fix="use a step of 2 or more"))
        if self.min_conc is not None and self.max_conc is not None and self.min_conc > self.max_conc:
            raise InfxError(Problem("--min-conc must be less than or equal to --max-conc"))
        if self.runner_type:
            invalid = sorted(set(self.runner_type) - set(runners.labels))
            if invalid:
                raise InfxError(Problem(
                    f"Invalid runner type(s): {', '.join(invalid)}. Valid runner types are: "
                    f"{', '.join(sorted(runners.labels))}", file=runners.name,
                    fix="use a label defined under 'labels' in the runner config"))

    def selects(self, key: str, config: dict) -> bool:
        if self.model_prefix and not any(key.startswith(prefix) for prefix in self.model_prefix):
            return False
        if self.precision and config["precision"] not in self.precision:
            return False
        if self.framework and config["framework"] not in self.framework:
            return False
        return not (self.runner_type and config["runner"] not in self.runner_type)

    def conc_policy(self, kind: str, item: dict) -> list[int] | None:
        if kind == "fixed-single":
            return self._single_fixed_concs(item)
        values = listed_or_range(item, self.step_size)
        if kind == "agentic":
            return [conc for conc in values
                    if (self.min_conc is None or conc >= self.min_conc)
                    and (self.max_conc is None or conc <= self.max_conc)]
        if self.min_conc is not None:
            if self.min_conc <= 0:
                return None
            values = [conc for conc in values if conc >= self.min_conc]
            if not values:
                return None
        if self.max_conc is not None:
            below = [conc for conc in values if conc <= self.max_conc]
            if below:
                return below
            return [self.max_conc] if self.max_conc > 0 else None
        return values

    def _single_fixed_concs(self, item: dict) -> list[int] | None:
        low, high = self.min_conc, self.max_conc
        if (low is not None and low <= 0) or (high is not None and high <= 0):
            return None
        if item.get("conc-list"):
            values = list(item["conc-list"])
            if low is not None:
                values = [conc for conc in values if conc >= low]
                if not values:
                    return None
            if high is not None:
                values = [conc for conc in values if conc <= high] or [high]
            return values
        start, end = item["conc-start"], item["conc-end"]
        if low is not None:
            if end < low:
                return None
            start = max(start, low)
        if high is not None:
            if start > high:
                start = end = high
            else:
                end = min(end, high)
        return conc_range(start, end, self.step_size)


def _test_config_policy(wanted: set[int] | None):
    def policy(kind: str, item: dict) -> list[int] | None:
        values = listed_or_range(item, 2, by_presence=kind != "agentic")
        if wanted is not None:
            values = [conc for conc in values if conc in wanted]
            if not values:
                return None
        return values
    return policy


def _test_config_runners(label: str, runners: Any, node_filter: str | None) -> list[str]:
    if not node_filter:
        return [label]
    candidates = ([label] if node_filter in label else []) + list(runners.nodes(label))
    return list(dict.fromkeys(node for node in candidates if node_filter in node))


def _expand(configs: Mapping, runners: Any, key: str, config: dict, scope: KeyScope,
            policy) -> list[Tagged]:
    try:
        rows = expand_config(config, runners, scope, policy)
    except GenerationError as error:
        raise_located(configs, key, error)
    return [(key, row) for row in rows]


def _seq_pairs(seq_lens: Sequence[str] | None) -> frozenset | None:
    return frozenset(SEQ_LENS[name] for name in seq_lens) if seq_lens else None


def _scenarios(scenario_type: Sequence[str] | None) -> frozenset | None:
    return frozenset(scenario_type) if scenario_type else None


def _check_choices(seq_lens: Sequence[str] | None, scenario_type: Sequence[str] | None) -> None:
    for name in seq_lens or ():
        if name not in SEQ_LENS:
            raise InfxError(Problem(f"unknown sequence length '{name}'",
                                    fix=f"choose from {', '.join(SEQ_LENS)}"))
    for name in scenario_type or ():
        if name not in ("fixed-seq-len", "agentic-coding"):
            raise InfxError(Problem(f"unknown scenario type '{name}'",
                                    fix="choose from fixed-seq-len, agentic-coding"))


def _key_hint(available: list[str]) -> str:
    shown = ", ".join(sorted(available)[:12])
    more = f" … ({len(available)} keys)" if len(available) > 12 else ""
    return f"use a key from the master configs, e.g. {shown}{more}"
