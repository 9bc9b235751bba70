"""Run every check of the table over the evidence and combine the rows into one verdict (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from infx.inert import unwrap
from infx.signoff import per_verdict
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.table import CheckSpec, CheckTable, Settings, load_check


class Overall(str, Enum):
    PASS = "PASS"
    WARN = "WARN"
    REJECTED = "REJECTED"


@dataclass(frozen=True)
class Row:
    spec: CheckSpec
    outcome: Outcome

    @property
    def status(self) -> Status:
        return self.outcome.status


@dataclass(frozen=True)
class Verdict:
    overall: Overall
    rows: tuple[Row, ...]

    def failing(self) -> list[Row]:
        return [row for row in self.rows if row.status == Status.FAIL]

    def to_json(self) -> dict:
        return {
            "overall": self.overall.value,
            "checks": [{"id": row.spec.id, "number": row.spec.number, "name": row.spec.name,
                        "status": row.status.value, "reason": unwrap(row.outcome.reason),
                        "details": [unwrap(d) for d in row.outcome.details]} for row in self.rows],
        }


def overall_of(statuses: list[Status]) -> Overall:
    """Any FAIL rejects; otherwise any WARN warns; N/A counts as a pass."""
    if Status.FAIL in statuses:
        return Overall.REJECTED
    if Status.WARN in statuses:
        return Overall.WARN
    return Overall.PASS


def run_check(spec: CheckSpec, evidence: Evidence, settings: Settings) -> Outcome:
    """One check, made fail-closed: a missing module, a crash or a forbidden status become
    FAIL (WARN for an advisory check, which may not fail)."""
    check = load_check(spec)
    if check is None:
        return _closed(spec, "check unavailable: its module could not be loaded, so nothing "
                       "was verified.")
    try:
        outcome = check(evidence, settings)
    except Exception as exc:  # noqa: BLE001 - a crashing check must reject, not pass
        return _closed(spec, f"check crashed ({type(exc).__name__}: {exc}); nothing was verified.")
    if not isinstance(outcome, Outcome) or not isinstance(outcome.status, Status):
        return _closed(spec, "check returned no valid outcome.")
    if outcome.status not in spec.statuses:
        return _closed(spec, f"check reported {outcome.status.value}, which it may not report: "
                       f"{outcome.reason}", outcome.details)
    return outcome


def _closed(spec: CheckSpec, reason: str, details: tuple[str, ...] = ()) -> Outcome:
    return Outcome(Status.WARN if spec.advisory else Status.FAIL, reason, details)


def decide(table: CheckTable, evidence: Evidence) -> Verdict:
    with per_verdict.shared(evidence):  # what several checks read from the evidence is worked out once
        rows = tuple(Row(spec, run_check(spec, evidence, table.settings)) for spec in table.checks)
    return Verdict(overall_of([row.status for row in rows]), rows)


def from_outcomes(table: CheckTable, outcomes: dict[str, Outcome]) -> Verdict:
    """A verdict from precomputed outcomes (tests, replays); a missing id fails closed."""
    rows = tuple(Row(spec, outcomes.get(spec.id) or _closed(spec, "check did not run."))
                 for spec in table.checks)
    return Verdict(overall_of([row.status for row in rows]), rows)


def run_check_by_id(table: CheckTable, check_id: str, evidence: Evidence) -> Outcome | None:
    """One check of the table by its id (fail-closed like the rest), None when not listed."""
    spec = next((c for c in table.checks if c.id == check_id), None)
    return None if spec is None else run_check(spec, evidence, table.settings)
