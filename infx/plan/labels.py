"""Sweep labels on a PR: the single primary label, its modifiers, and what they switch on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from infx.errors import InfxError, Problem

PRIMARY_LABELS: tuple[str, ...] = ("full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled",
                                   "full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled")
AGENTX_FAST_LABEL = "agentx-fast"
MODIFIER_LABELS: tuple[str, ...] = ("all-evals", "evals-only", AGENTX_FAST_LABEL)
# the queue-priority request (configs/ci-priority.yaml labels.skip-queue.name, infx.plan.priority)
SKIP_QUEUE_LABEL = "skip_queue"
# adding or removing one of these restarts the PR's sweep; every other label (the priority
# policy's checklist and patchwork labels included) never starts, restarts or skips one
RELEVANT_LABELS: tuple[str, ...] = PRIMARY_LABELS + MODIFIER_LABELS + (SKIP_QUEUE_LABEL,)
FAIL_FAST_LABELS = frozenset({"full-sweep-fail-fast", "full-sweep-fail-fast-no-canary"})
# a PR sweep with one of these runs its lowest-concurrency non-eval row first, alone
# (infx.workflow.canary); the `-no-canary` / `non-canary-` spellings opt out
CANARY_LABELS = frozenset({"full-sweep-fail-fast", "full-sweep-enabled"})
TRIM_LABELS = frozenset({"sweep-enabled"})
# a PR carrying one of these never reuses a sweep (its reuse gate is skipped, a reuse command is
# refused); `agentx-fast` rows are also other rows than the canonical ones (infx.plan.agentx_fast)
REUSE_INCOMPATIBLE_LABELS: tuple[str, ...] = ("evals-only", AGENTX_FAST_LABEL)
SKIP_SWEEP_TAG = "[skip-sweep]"


@dataclass(frozen=True)
class SweepFlags:
    """What the PR's labels ask for; `primary` is '' when no sweep was requested."""

    primary: str
    fail_fast: bool
    trim_conc: bool
    all_evals: bool
    evals_only: bool
    canary: bool = False
    agentx_fast: bool = False

    def planner_args(self) -> list[str]:
        args = []
        if self.trim_conc:
            args.append("--trim-conc")
        if self.all_evals:
            args.append("--all-evals")
        if self.evals_only:
            args.append("--evals-only")
        return args

    def outputs(self) -> dict[str, str]:
        return {
            "primary": self.primary,
            "fail-fast": _flag(self.fail_fast),
            "trim-conc": _flag(self.trim_conc),
            "all-evals": _flag(self.all_evals),
            "evals-only": _flag(self.evals_only),
            "canary": _flag(self.canary),
            "agentx-fast": _flag(self.agentx_fast),
            "planner-args": " ".join(self.planner_args()),
        }


def _flag(value: bool) -> str:
    return "true" if value else "false"


def sweep_flags(labels: Iterable[str]) -> SweepFlags:
    """Read the flags; more than one primary label is an error naming them all."""
    names = list(dict.fromkeys(labels))
    primaries = [name for name in names if name in PRIMARY_LABELS]
    if len(primaries) > 1:
        raise InfxError(Problem(
            f"multiple conflicting sweep labels: {', '.join(primaries)}. Pick exactly one.",
            key="labels",
            fix=f"keep exactly one of {', '.join(PRIMARY_LABELS)} on the PR",
        ))
    primary = primaries[0] if primaries else ""
    return SweepFlags(
        primary=primary,
        fail_fast=primary in FAIL_FAST_LABELS,
        trim_conc=primary in TRIM_LABELS,
        all_evals="all-evals" in names,
        evals_only="evals-only" in names,
        canary=primary in CANARY_LABELS,
        agentx_fast=AGENTX_FAST_LABEL in names,
    )


def has_skip_sweep(message: str | None) -> bool:
    """Does a commit message opt out of the PR sweep?"""
    return SKIP_SWEEP_TAG in (message or "")
