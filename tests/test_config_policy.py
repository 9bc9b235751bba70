"""infx.config.policy: the sign-off policy files validate and agree with upstream facts."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from infx.config.policy import (
    POLICY_NAMES,
    deprecations,
    golden_refs,
    load_golden_curve,
    load_policy_document,
    reader_for_directory,
)
from infx.errors import InfxError


@pytest.fixture
def reader(repo_root):
    return reader_for_directory(repo_root)


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_every_policy_file_validates(reader, name):
    assert reader.doc(name)


def test_invalid_policy_is_a_located_error():
    text = "deprecations:\n  - {prefix: x, scenario: 2k2k, precision: '*', last-day: 2026-01-01, source: s}\n"
    with pytest.raises(InfxError) as info:
        load_policy_document("deprecations", text)
    problem = info.value.problems[0]
    assert problem.file == "configs/policy/deprecations.yaml" and problem.line == 2
    assert problem.key == "deprecations.0.scenario"


def test_missing_policy_is_an_error():
    with pytest.raises(InfxError, match="could not be read"):
        load_policy_document("hardware", None)


def test_golden_refs_point_at_real_curves(reader):
    for ref in golden_refs(reader.doc("golden")):
        curve = reader.golden_curve(ref.file)
        assert ref.model_key in curve, ref
        assert "thinking_on" in curve[ref.model_key]


def test_golden_curves_are_the_upstream_files(repo_root, upstream_dir):
    for path in sorted((upstream_dir / "golden_al_distribution").glob("*.yaml")):
        ours = repo_root / "configs" / "golden_al_distribution" / path.name
        assert ours.read_text() == path.read_text()
    assert (repo_root / "configs" / "golden_al_distribution" / "LICENSE").is_file()


def test_golden_curve_rejects_bad_values():
    with pytest.raises(InfxError):
        load_golden_curve("m:\n  thinking_on:\n    1: 0.5\n", "x.yaml")
    with pytest.raises(InfxError):
        load_golden_curve("m:\n  thinking_maybe:\n    1: 1.5\n", "x.yaml")
    assert load_golden_curve("m:\n  thinking_on:\n    3: 2.78\n", "x.yaml") == {"m": {"thinking_on": {3: 2.78}}}


def _models_md_facts(text: str):
    """(prefix, last allowed day) for retired models, and scenario deprecations, from MODELS.md."""
    retired = {}
    for row in re.findall(r"^\|[^|]+\|([^|]+)\|[^|]+\|\s*None \((?:fully )?retired (\d{4}-\d{2}-\d{2})", text, re.M):
        for prefix in re.findall(r"`([^`]+)`", row[0]):
            retired[prefix] = date.fromisoformat(row[1]) - timedelta(days=1)
    scenarios = {}
    for name, since in re.findall(r"^\| Single-turn (\w+) \|[^|]+\|\s*\*\*Deprecated for all models\*\* since (\d{4}-\d{2}-\d{2})",
                                  text, re.M):
        scenarios[name] = date.fromisoformat(since) - timedelta(days=1)
    notices = {}
    for day in re.findall(r"^### \w+, (\w+ \d+, \d{4})$", text, re.M):
        from datetime import datetime
        notices[day] = datetime.strptime(day, "%B %d, %Y").date()
    return retired, scenarios, notices


def test_deprecations_agree_with_models_md(reader, shared_dir):
    text = (shared_dir / "reference" / "upstream-docs" / "MODELS.md").read_text()
    retired, scenarios, notices = _models_md_facts(text)
    rows = deprecations(reader.doc("deprecations"))
    assert retired and scenarios and notices
    for prefix, last_day in retired.items():
        assert any(r.prefix == prefix and r.scenario == "*" and r.precision == "*" and r.last_day == last_day
                   for r in rows), prefix
    for scenario, last_day in scenarios.items():
        assert any(r.prefix == "*" and r.scenario == scenario and r.last_day == last_day for r in rows), scenario
    # every dated deprecation notice is represented by at least one row with that last day
    for last_day in notices.values():
        assert any(r.last_day == last_day for r in rows), last_day
    # the scenario/precision retirements of the August 3 notice
    for prefix, scenario, precision in (("minimaxm3", "8k1k", "*"), ("kimik2.5", "agentic", "*"),
                                        ("qwen3.5", "*", "bf16")):
        assert any((r.prefix, r.scenario, r.precision, r.last_day) == (prefix, scenario, precision, date(2026, 8, 3))
                   for r in rows)


def test_spec_decode_ab_retirements_are_not_enforced(reader):
    # "not yet enacted" in MODELS.md: a non-spec agentic arm stays allowed
    rows = deprecations(reader.doc("deprecations"))
    assert not any(r.matches("glm5.2", "agentic", "fp4") for r in rows)
    assert not any(r.matches("dsv4", "agentic", "fp4") for r in rows)
