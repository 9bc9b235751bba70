"""Entry model: fields, lax typing, cross-field rules, eval-concs and wildcards."""

from __future__ import annotations

import pytest

from infx.changelog.entry import (
    EntryError,
    parse_entry,
)

BASE = {"config-keys": ["k"], "description": ["d"], "pr-link": "XXX"}


def entry(**extra):
    return parse_entry({**BASE, **{k.replace("_", "-"): v for k, v in extra.items()}})


def test_defaults_and_metadata_shape():
    parsed = entry()
    assert parsed.to_metadata() == {
        "config-keys": ["k"], "description": ["d"], "pr-link": "XXX",
        "evals-only": False, "all-evals": False, "append-only": False,
    }
    assert list(parsed.to_metadata()) == ["config-keys", "description", "pr-link",
                                          "evals-only", "all-evals", "append-only"]
    assert parsed.scenarios() == ("fixed-seq-len", "agentic-coding")


def test_optional_fields_appear_in_metadata_when_set():
    parsed = entry(scenario_type=["agentic-coding"], eval_min_prefill_ep=2,
                   eval_concs=[32], no_evals=False)
    meta = parsed.to_metadata()
    assert meta["scenario-type"] == ["agentic-coding"]
    assert meta["eval-min-prefill-ep"] == 2
    assert meta["eval-concs"] == [32]
    assert "no-evals" not in meta
    assert entry(no_evals=True).to_metadata()["no-evals"] is True


@pytest.mark.parametrize("data, fragment", [
    ({"config-keys": "k", "description": ["d"], "pr-link": "x"}, "must be a YAML list"),
    ({"config-keys": [], "description": ["d"], "pr-link": "x"}, "at least 1 item"),
    ({"config-keys": ["k"], "description": [1], "pr-link": "x"}, "must be a string"),
    ({"config-keys": ["k"], "description": ["d"], "pr-link": None}, "'pr-link' must be a string"),
    ({"config-keys": ["k"], "description": ["d"]}, "missing required key 'pr-link'"),
    ({**BASE, "eval-conc": [1]}, r"unknown field 'eval-conc' \(did you mean 'eval-concs'\?\)"),
    ({**BASE, "evals-only": "maybe"}, "must be a boolean"),
    ({**BASE, "eval-min-prefill-ep": 0}, "greater than or equal to 1"),
    ({**BASE, "eval-min-prefill-ep": "x"}, "must be an integer"),
    ({**BASE, "scenario-type": []}, "non-empty list"),
    ({**BASE, "scenario-type": ["chat"]}, "is not one of"),
    ("just text", "must be a mapping"),
])
def test_field_rules(data, fragment):
    with pytest.raises(EntryError, match=fragment):
        parse_entry(data)


@pytest.mark.parametrize("value, expected", [
    ("TRUE", True), ("Y", True), ("off", False), (1.0, True), (0, False),
    (" true", None), ("True ", None), (2, None), (None, None),
])
def test_boolean_coercion_matches_the_reference_model(value, expected):
    if expected is None:
        with pytest.raises(EntryError, match="must be a boolean"):
            entry(evals_only=value)
    else:
        assert entry(evals_only=value).evals_only is expected


@pytest.mark.parametrize("value, expected", [
    (" +3 ", 3), ("3.00", 3), ("1_000", 1000), ("0003", 3), (3.0, 3), (True, 1),
    ("3.", None), ("3.5", None), ("1__0", None), ("3e0", None), ("\u0663", None), (3.5, None),
])
def test_integer_coercion_matches_the_reference_model(value, expected):
    if expected is None:
        with pytest.raises(EntryError, match="must be an integer"):
            entry(eval_min_prefill_ep=value)
    else:
        assert entry(eval_min_prefill_ep=value).eval_min_prefill_ep == expected


def test_lax_booleans_and_integers():
    assert entry(evals_only="true").evals_only is True
    assert entry(evals_only=0).evals_only is False
    assert entry(eval_min_prefill_ep="3").eval_min_prefill_ep == 3
    assert entry(scenario_type=["fixed-seq-len", "fixed-seq-len"]).scenarios() == (
        "fixed-seq-len",)


@pytest.mark.parametrize("fields, fragment", [
    ({"append-only": True, "evals-only": True}, "append-only cannot be combined"),
    ({"append-only": True, "all-evals": True}, "append-only cannot be combined"),
    ({"append-only": True, "eval-min-prefill-ep": 2}, "append-only cannot be combined"),
    ({"no-evals": True, "evals-only": True}, "no-evals cannot be combined"),
    ({"no-evals": True, "eval-min-prefill-ep": 1}, "no-evals cannot be combined"),
    ({"no-evals": True, "eval-concs": [16]}, "eval-concs cannot be combined with no-evals"),
    ({"append-only": True, "eval-concs": [16]},
     "eval-concs cannot be combined with append-only"),
])
def test_cross_field_rules(fields, fragment):
    with pytest.raises(EntryError, match=fragment):
        parse_entry({**BASE, **fields})


def test_evals_only_with_all_evals_is_allowed():
    parsed = entry(evals_only=True, all_evals=True)
    assert parsed.evals_only and parsed.all_evals


@pytest.mark.parametrize("value", [[], [0], [True], ["16"], 16, [1.5]])
def test_eval_concs_must_be_positive_integer_list(value):
    with pytest.raises(EntryError, match="eval-concs"):
        entry(eval_concs=value)


def test_eval_concs_combines_with_other_eval_fields():
    parsed = entry(eval_concs=[32, 64], all_evals=True, eval_min_prefill_ep=2)
    assert parsed.eval_concs == (32, 64)


