"""Sweep labels on a PR: the single primary label, its modifiers, and what they switch on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from infx.errors import InfxError, Problem

PRIMARY_LABELS: tuple[str, ...] = ("full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled",
                                   "full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled")
MODIFIER_LABELS: tuple[str, ...] = ("all-evals", "evals-only")
RELEVANT_LABELS: tuple[str, ...] = PRIMARY_LABELS + MODIFIER_LABELS
FAIL_FAST_LABELS = frozenset({"full-sweep-fail-fast", "full-sweep-fail-fast-no-canary"})
# a PR sweep with one of these runs its lowest-concurrency non-eval row first, alone
# (infx.workflow.canary); the `-no-canary` / `non-canary-` spellings opt out
CANARY_LABELS = frozenset({"full-sweep-fail-fast", "full-sweep-enabled"})
TRIM_LABELS = frozenset({"sweep-enabled"})
REUSE_INCOMPATIBLE_LABELS: tuple[str, ...] = ("evals-only",)
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
    )


def has_skip_sweep(message: str | None) -> bool:
    """Does a commit message opt out of the PR sweep?"""
    return SKIP_SWEEP_TAG in (message or "")
