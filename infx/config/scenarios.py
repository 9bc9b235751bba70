"""The scenario and sequence-length names table: one spelling for generator, planner, workflow and bot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FIXED = "fixed-seq-len"
AGENTIC = "agentic-coding"
SCENARIO_TYPES = (FIXED, AGENTIC)
AGENTIC_ID = "agentic"  # the agentic scenario's id in plan buckets, job names and policy


@dataclass(frozen=True)
class SeqLen:
    """A named fixed sequence length."""

    name: str
    isl: int
    osl: int
    swept: bool  # False: retired from the sweep (rows show it as <isl>_<osl>), still named by policy

    @property
    def title(self) -> str:
        return f"Single-turn {self.name}"


SEQ_LENS: tuple[SeqLen, ...] = (
    SeqLen("1k1k", 1024, 1024, swept=True),
    SeqLen("8k1k", 8192, 1024, swept=True),
    SeqLen("1k8k", 1024, 8192, swept=False),
)
SWEPT_SEQ_LENS: dict[str, tuple[int, int]] = {s.name: (s.isl, s.osl) for s in SEQ_LENS if s.swept}
_BY_PAIR = {(s.isl, s.osl): s for s in SEQ_LENS}
_TITLES = {**{s.name: s.title for s in SEQ_LENS}, AGENTIC_ID: "Agentic coding"}


def seq_name(isl: Any, osl: Any) -> str:
    """A row's sequence-length name: ``1k1k`` / ``8k1k``, else ``<isl>_<osl>`` (as the reference)."""
    found = _BY_PAIR.get((isl, osl))
    return found.name if found is not None and found.swept else f"{isl}_{osl}"


def scenario_id(isl: Any, osl: Any) -> str:
    """The policy's id of a fixed sequence length (retired ones too), else ``<isl>/<osl>``."""
    found = _BY_PAIR.get((isl, osl))
    return found.name if found is not None else f"{isl}/{osl}"


def scenario_title(scenario: str) -> str:
    """``8k1k`` -> ``Single-turn 8k1k``, ``agentic`` -> ``Agentic coding``; unknown ids unchanged."""
    return _TITLES.get(scenario, scenario)
