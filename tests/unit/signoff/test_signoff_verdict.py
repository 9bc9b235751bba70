"""The overall rule and the fail-closed wrapping of each check."""

from __future__ import annotations

from dataclasses import replace

import pytest

from infx.signoff import verdict as verdict_mod
from infx.signoff.model import Outcome, Status
from infx.signoff.table import load_table
from infx.signoff.verdict import Overall, from_outcomes, overall_of, run_check

SETTINGS = load_table().settings


@pytest.mark.parametrize("statuses,overall", [
    ([Status.PASS, Status.NA], Overall.PASS),
    ([Status.PASS, Status.WARN, Status.NA], Overall.WARN),
    ([Status.WARN, Status.FAIL], Overall.REJECTED),
    ([Status.FAIL], Overall.REJECTED),
    ([], Overall.PASS),
])
def test_overall_rule(statuses, overall) -> None:
    assert overall_of(statuses) is overall


def test_missing_outcome_is_a_failure() -> None:
    result = from_outcomes(load_table(), {})
    assert result.overall is Overall.REJECTED
    assert all(row.status is (Status.WARN if row.spec.advisory else Status.FAIL) for row in result.rows)


def test_unavailable_module_fails_closed() -> None:
    spec = replace(load_table().by_id("recipe"), module="infx.signoff.checks.not_there")
    outcome = run_check(spec, None, SETTINGS)
    assert outcome.status is Status.FAIL and "check unavailable" in outcome.reason


def test_crashing_check_fails_closed(monkeypatch) -> None:
    def boom(evidence, settings):
        raise RuntimeError("kaput")

    monkeypatch.setattr(verdict_mod, "load_check", lambda spec: boom)
    outcome = run_check(load_table().by_id("sweep"), None, SETTINGS)
    assert outcome.status is Status.FAIL and "kaput" in outcome.reason


def test_an_advisory_check_that_crashes_warns_and_still_renders_a_valid_verdict(monkeypatch) -> None:
    from infx.signoff import render

    def boom(evidence, settings):
        raise RuntimeError("kaput")

    monkeypatch.setattr(verdict_mod, "load_check", lambda spec: boom)
    table = load_table()
    outcome = run_check(table.by_id("pareto"), None, SETTINGS)
    assert outcome.status is Status.WARN and "kaput" in outcome.reason
    rows = {c.id: Outcome(Status.PASS, "ok") for c in table.checks} | {"pareto": outcome}
    context = render.Context(marker="codeowner-signoff-verify", assessed_sha="a" * 40, signer="s",
                             evidence_digest="00")
    body = render.render(from_outcomes(table, rows), context)
    assert render.validate(body, table, "codeowner-signoff-verify") == []


def test_forbidden_status_is_converted(monkeypatch) -> None:
    """A status outside the check's table row becomes FAIL (WARN for an advisory check).
    Check `evals` may not WARN; Check `sweep` may since 4e5e869 (checks.yaml warns: true)."""
    table = load_table()
    assert Status.WARN not in table.by_id("evals").statuses and not table.by_id("evals").advisory
    monkeypatch.setattr(verdict_mod, "load_check", lambda spec: lambda ev, settings: Outcome(Status.WARN, "hm"))
    assert run_check(table.by_id("evals"), None, SETTINGS).status is Status.FAIL
    assert run_check(table.by_id("sweep"), None, SETTINGS).status is Status.WARN
    monkeypatch.setattr(verdict_mod, "load_check", lambda spec: lambda ev, settings: Outcome(Status.FAIL, "no"))
    assert run_check(load_table().by_id("reuse"), None, SETTINGS).status is Status.WARN
    monkeypatch.setattr(verdict_mod, "load_check", lambda spec: lambda ev, settings: "PASS")
    assert run_check(load_table().by_id("sweep"), None, SETTINGS).status is Status.FAIL


def test_json_shape() -> None:
    table = load_table()
    data = from_outcomes(table, {c.id: Outcome(Status.PASS, "ok") for c in table.checks}).to_json()
    assert data["overall"] == "PASS"
    assert data["checks"][14] == {"id": "pareto", "number": 14, "name": "Pareto coverage",
                                  "status": "PASS", "reason": "ok", "details": []}


def test_a_valid_outcome_is_passed_through_unchanged(monkeypatch) -> None:
    """The fail-closed wrapper keeps what a check really found: a PASS stays that PASS."""
    found = Outcome(Status.PASS, "fine", ("detail",))
    monkeypatch.setattr(verdict_mod, "load_check", lambda spec: lambda ev, settings: found)
    assert run_check(load_table().by_id("sweep"), None, SETTINGS) is found
    monkeypatch.setattr(verdict_mod, "load_check",
                        lambda spec: lambda ev, settings: Outcome("PASS", "a string, not a Status"))
    assert run_check(load_table().by_id("sweep"), None, SETTINGS).status is Status.FAIL


def test_decide_runs_every_check_and_the_verdict_lists_its_failures(monkeypatch) -> None:
    table = load_table()
    fails = {"sweep", "codeowner"}

    def fake_check(spec):
        return lambda ev, settings: Outcome(Status.FAIL if spec.id in fails else Status.PASS, spec.id)

    monkeypatch.setattr(verdict_mod, "load_check", fake_check)
    result = verdict_mod.decide(table, None)
    assert [row.spec.id for row in result.rows] == [c.id for c in table.checks]
    assert {row.spec.id for row in result.failing()} == fails
    assert result.overall is Overall.REJECTED and result.to_json()["overall"] == "REJECTED"
    warned = from_outcomes(table, {c.id: Outcome(Status.WARN if c.advisory else Status.PASS, "ok")
                                   for c in table.checks})
    assert warned.failing() == [] and warned.to_json()["overall"] == "WARN"


def test_a_missing_outcome_says_the_check_did_not_run() -> None:
    table = load_table()
    rows = from_outcomes(table, {c.id: Outcome(Status.PASS, "ok") for c in table.checks if c.id != "sweep"})
    row = next(r for r in rows.rows if r.spec.id == "sweep")
    assert (row.status, row.outcome.reason, row.outcome.details) == (Status.FAIL, "check did not run.", ())
    assert rows.failing() == [row]


def test_one_check_by_its_id_is_that_check_run_fail_closed(monkeypatch) -> None:
    """publish asks the table for one check (Check `codeowner` before a status is written): the check
    of that id, wrapped like every other; an id the table does not list gives None."""
    table = load_table()
    ran: list[str] = []

    def fake_check(spec):
        def check(ev, settings):
            ran.append(spec.id)
            if spec.id == "pareto":
                raise RuntimeError("kaput")
            return Outcome(Status.PASS, f"ran {spec.id}")
        return check

    monkeypatch.setattr(verdict_mod, "load_check", fake_check)
    for check_id in ("codeowner", "sweep", "append"):
        assert verdict_mod.run_check_by_id(table, check_id, None).reason == f"ran {check_id}"
    assert ran == ["codeowner", "sweep", "append"]
    crashed = verdict_mod.run_check_by_id(table, "pareto", None)
    assert crashed.status is Status.WARN and "kaput" in crashed.reason
    assert verdict_mod.run_check_by_id(table, "no-such-check", None) is None
    assert ran == ["codeowner", "sweep", "append", "pareto"]
