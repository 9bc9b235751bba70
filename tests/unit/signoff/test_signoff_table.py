"""The check table is data: fixed ids and numbers, advisory flags, fail-closed loading."""

from __future__ import annotations

import copy

import pytest

from infx import yamlio
from infx.errors import InfxError
from infx.signoff.table import CheckSpec, load_check, load_table, parse_table

IDS = ["codeowner", "sweep", "evals", "recipe", "reuse", "template", "images", "deprecated",
       "arch", "chat", "patch", "golden", "append", "draft", "pareto"]


def raw_table(repo_root):
    return yamlio.load_file(repo_root / "infx/signoff/checks.yaml")


def test_fifteen_checks_with_stable_ids_and_numbers() -> None:
    table = load_table()
    assert [c.id for c in table.checks] == IDS
    assert [c.number for c in table.checks] == list(range(15))
    assert {c.id for c in table.checks if c.advisory} == {"reuse", "pareto"}
    for check in table.checks:
        assert check.module == f"infx.signoff.checks.{check.id}"


def test_only_advisory_checks_may_warn_and_they_never_fail() -> None:
    """Besides the advisory checks, only a check marked `warns` (Check `sweep`: configs changed
    without a changelog entry, issue 26) may WARN; it still FAILs a missing sweep."""
    for check in load_table().checks:
        assert ("WARN" in {s.value for s in check.statuses}) == (check.advisory or check.warns)
        assert ("FAIL" in {s.value for s in check.statuses}) != check.advisory
    assert [c.id for c in load_table().checks if c.warns] == ["sweep"]


def test_core_team_placeholder() -> None:
    assert load_table().settings.core_team_for("SemiAnalysisAI/InferenceX") == "SemiAnalysisAI/core"


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["checks"].append(dict(d["checks"][0])), "duplicate check id"),
    (lambda d: d["checks"][1].update(number=0), "duplicate check number"),
    (lambda d: d["checks"][0]["statuses"].append("WARN"), "allows WARN but is not advisory"),
    (lambda d: d["checks"][4]["statuses"].append("FAIL"), "may not FAIL"),
    (lambda d: d["checks"][0].update(statuses=["MAYBE"]), "must be one of"),
    (lambda d: d["settings"].pop("marker"), "missing required field 'marker'"),
])
def test_invalid_tables_are_rejected(repo_root, mutate, message) -> None:
    data = copy.deepcopy(raw_table(repo_root))
    mutate(data)
    with pytest.raises(InfxError) as info:
        parse_table(data, "checks.yaml")
    assert message in str(info.value) and "checks.yaml" in str(info.value)


def test_a_missing_module_is_unavailable() -> None:
    spec = CheckSpec("ghost", 99, "Ghost", frozenset(), False, "infx.signoff.checks.no_such_check")
    assert load_check(spec) is None


def test_every_check_module_loads() -> None:
    for spec in load_table().checks:
        if spec.id in ("codeowner", "sweep", "evals", "reuse", "template", "pareto"):
            assert callable(load_check(spec))
