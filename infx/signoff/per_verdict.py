"""Facts the checks of one verdict share, worked out once per verdict instead of once per check.

``decide`` opens a scope over the evidence it judges; inside it, ``once`` remembers what a
rule computed from that evidence (the affected configs, each config's launch lines), so the
sixteen checks do not each rebuild it. Outside a scope (a check run on its own, a helper
called while the evidence is still being gathered) every call computes afresh, so a fact
can never outlive the evidence it was read from or miss a later change to it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from infx.signoff.model import Evidence

T = TypeVar("T")

_SCOPE: ContextVar[tuple[Evidence, dict[Hashable, object]] | None] = ContextVar(
    "infx_signoff_per_verdict", default=None)


@contextmanager
def shared(evidence: Evidence) -> Iterator[None]:
    """Remember facts about ``evidence`` (this very object) until the block ends."""
    token = _SCOPE.set((evidence, {}))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def once(evidence: Evidence, fact: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or what it returned for ``fact`` earlier in the open scope over this
    evidence. A failure is not remembered (the next caller meets it again). Callers share
    what is remembered: treat it as read-only."""
    scope = _SCOPE.get()
    if scope is None or scope[0] is not evidence:
        return compute()
    store = scope[1]
    if fact not in store:
        store[fact] = compute()
    return store[fact]  # type: ignore[return-value]
