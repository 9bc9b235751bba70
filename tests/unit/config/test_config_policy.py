"""infx.config.policy: the sign-off policy files validate and agree with upstream facts."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

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


_SCENARIO_WORDS = {"single-turn 8k1k": "8k1k", "single-turn 1k1k": "1k1k", "single-turn 1k8k": "1k8k",
                   "agentic coding": "agentic"}
# Rows of our sidecar that come from deprecation notices newer than the MODELS.md snapshot in
# ../shared/reference (research/signoff.md Check `deprecated`: "dsv4 8k1k after 2026-09-08").
NEWER_THAN_SNAPSHOT = {("dsv4", "8k1k", "*", date(2026, 9, 8))}


def _scenario_of(text: str) -> str | None:
    lowered = text.lower()
    return next((sid for words, sid in _SCENARIO_WORDS.items() if words in lowered), None)


def models_md_facts(text: str) -> set[tuple[str, str, str, date]]:
    """(prefix, scenario, precision, last allowed day) that MODELS.md states, read from its
    tables and notice sentences: retired models, all-model scenario retirements, and the
    scenario/precision retirements of each dated notice. "*" means any."""
    facts = set()
    for prefixes, day in re.findall(
            r"^\|[^|]+\|([^|]+)\|[^|]+\|\s*None \((?:fully )?retired (\d{4}-\d{2}-\d{2})", text, re.M):
        for prefix in re.findall(r"`([^`]+)`", prefixes):
            facts.add((prefix, "*", "*", date.fromisoformat(day) - timedelta(days=1)))
    for name, since in re.findall(
            r"^\| (Single-turn \w+) \|[^|]+\|\s*\*\*Deprecated for all models\*\* since (\d{4}-\d{2}-\d{2})", text, re.M):
        facts.add(("*", _scenario_of(name), "*", date.fromisoformat(since) - timedelta(days=1)))
    for heading, section in re.findall(r"^### \w+, (\w+ \d+, \d{4})\n(.*?)(?=^##)", text, re.M | re.S):
        last_day = datetime.strptime(heading, "%B %d, %Y").date()
        facts |= _notice_facts(section, last_day)
    return facts


def _notice_facts(section: str, last_day: date) -> set[tuple[str, str, str, date]]:
    facts = set()
    # only the "Model | Deprecated | Remains" table is enacted policy; the A/B arm table is not
    table = re.search(r"^\| Model \| Deprecated \| Remains \|\n\|[-|]+\|\n((?:\|.*\|\n)+)", section, re.M)
    for row in table.group(1).splitlines() if table else []:
        model, deprecated = row.split("|")[1:3]
        prefix = re.search(r"`([^`]+)`", model).group(1)
        precisions = re.findall(r"\b(bf16|fp16|fp8|fp4|mxfp4|nvfp4|int4|int8)\b", deprecated.lower())
        if precisions:
            facts |= {(prefix, "*", precision, last_day) for precision in precisions}
        else:
            facts.add((prefix, _scenario_of(deprecated), "*", last_day))
    for scenario, prefix in re.findall(r"last day for the \*\*([^*]+)\*\* scenario on .*?\(`([^`]+)`\)", section):
        facts.add((prefix, _scenario_of(scenario), "*", last_day))
    return facts


def test_deprecations_agree_with_models_md(reader, shared_dir):
    text = (shared_dir / "reference" / "upstream-docs" / "MODELS.md").read_text()
    facts = models_md_facts(text)
    rows = deprecations(reader.doc("deprecations"))
    # what MODELS.md says is parsed, not assumed: retirements, scenario notices, both dated notices
    assert ("llama70b", "*", "*", date(2025, 10, 28)) in facts
    assert ("*", "1k1k", "*", date(2026, 7, 16)) in facts
    assert ("qwen3.5", "*", "bf16", date(2026, 8, 3)) in facts
    assert ("kimik2.5", "8k1k", "*", date(2026, 8, 6)) in facts
    assert not any(prefix in ("dsv4", "glm5.2", "kimik3") for prefix, *_ in facts)  # A/B arms: not enacted
    # every MODELS.md fact is enforced by a sidecar row with the same last day that covers it
    for prefix, scenario, precision, last_day in facts:
        assert any(r.last_day == last_day and (r.prefix, r.scenario, r.precision) in {
            (prefix, scenario, precision), (prefix, "*", "*"), ("*", scenario, "*")} for r in rows), \
            (prefix, scenario, precision, last_day)
    # and every sidecar row comes from MODELS.md (or a notice newer than the snapshot)
    for r in rows:
        assert (r.prefix, r.scenario, r.precision, r.last_day) in facts | NEWER_THAN_SNAPSHOT, r


def test_models_md_fact_parser_reads_notice_tables():
    text = """## Deprecation Notice

### Friday, January 2, 2027

| Model | Deprecated | Remains |
|---|---|---|
| Foo (`foo`) | Single-turn 8k1k | Agentic coding |
| Bar (`bar`) | All **fp8** and **bf16** recipes | fp4 |

| Model | Deprecated arm | Published arm |
|---|---|---|
| Baz (`baz`) | Agentic coding, non-MTP | Agentic coding, MTP |

## Scenarios
"""
    assert models_md_facts(text) == {("foo", "8k1k", "*", date(2027, 1, 2)), ("bar", "*", "fp8", date(2027, 1, 2)),
                                     ("bar", "*", "bf16", date(2027, 1, 2))}


def test_spec_decode_ab_retirements_are_not_enforced(reader):
    # "not yet enacted" in MODELS.md: a non-spec agentic arm stays allowed
    rows = deprecations(reader.doc("deprecations"))
    assert not any(r.matches("glm5.2", "agentic", "fp4") for r in rows)
    assert not any(r.matches("dsv4", "agentic", "fp4") for r in rows)


def test_recipe_policy_flags_must_be_long_flags():
    text = ("production-flags:\n  graph: [cuda-graph-max-bs]\ndocumented-defaults: {}\n"
            "justification-phrases: [inferencex-only]\n")
    with pytest.raises(InfxError) as info:
        load_policy_document("recipe", text)
    problem = info.value.problems[0]
    assert problem.file == "configs/policy/recipe.yaml" and problem.key == "production-flags.graph.0"
    assert problem.line == 2


def test_recipe_policy_lists_every_production_family(reader):
    families = reader.doc("recipe")["production-flags"]
    assert set(families) == {"scheduling", "cache-offload", "chunked-prefill", "graph"}
    flags = [flag for family in families.values() for flag in family]
    assert len(flags) == len(set(flags)), "a flag belongs to one family only"
    defaults = reader.doc("recipe")["documented-defaults"]
    assert all(flag in flags for engine in defaults.values() for flag in engine)


def test_draft_policy_requires_the_pruning_lists(repo_root):
    text = (repo_root / "configs" / "policy" / "draft.yaml").read_text()
    with pytest.raises(InfxError, match="draft-cheapening-flags"):
        load_policy_document("draft", text.split("draft-cheapening-flags:")[0])
    assert load_policy_document("draft", text)["draft-architecture-keys"]
