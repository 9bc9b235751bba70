"""infx.plan.labels: one primary sweep label, modifiers, [skip-sweep]."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.errors import InfxError
from infx.plan.labels import PRIMARY_LABELS, RELEVANT_LABELS, has_skip_sweep, sweep_flags


def test_flags_per_primary():
    assert sweep_flags(["full-sweep-fail-fast"]).outputs() == {
        "primary": "full-sweep-fail-fast", "fail-fast": "true", "trim-conc": "false",
        "all-evals": "false", "evals-only": "false", "canary": "true", "planner-args": "",
        "agentx-fast": "false"}
    trimmed = sweep_flags(["sweep-enabled", "all-evals", "evals-only", "documentation"])
    assert trimmed.trim_conc and not trimmed.fail_fast
    assert trimmed.planner_args() == ["--trim-conc", "--all-evals", "--evals-only"]
    assert sweep_flags(["full-sweep-enabled"]).fail_fast is False
    assert sweep_flags([]).primary == ""


@pytest.mark.parametrize(("label", "fail_fast", "canary"), [
    ("full-sweep-fail-fast", True, True), ("full-sweep-enabled", False, True),
    ("full-sweep-fail-fast-no-canary", True, False), ("non-canary-full-sweep-enabled", False, False),
    ("sweep-enabled", False, False),
])
def test_canary_and_fail_fast_per_primary(label, fail_fast, canary):
    """research/workflows.md §1.2: the `-no-canary` spellings keep fail-fast, drop the canary."""
    flags = sweep_flags([label, "all-evals"])
    assert (flags.fail_fast, flags.canary, flags.trim_conc) == (fail_fast, canary, label == "sweep-enabled")


@pytest.mark.parametrize("pair", list(itertools.combinations(PRIMARY_LABELS, 2)))
def test_two_primaries_fail_with_a_clear_message(pair):
    with pytest.raises(InfxError) as info:
        sweep_flags(["all-evals", *pair])
    text = str(info.value)
    assert "multiple conflicting sweep labels" in text and "Pick exactly one." in text
    assert all(label in text for label in pair)


def test_duplicates_count_once():
    assert sweep_flags(["full-sweep-enabled", "full-sweep-enabled"]).primary == "full-sweep-enabled"


def test_skip_sweep():
    assert has_skip_sweep("chore: refresh\n\n[skip-sweep]")
    assert not has_skip_sweep("skip-sweep") and not has_skip_sweep(None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(RELEVANT_LABELS + ("documentation", "skip_queue")), max_size=6))
def test_property_at_most_one_primary(labels):
    primaries = set(labels) & set(PRIMARY_LABELS)
    if len(primaries) > 1:
        with pytest.raises(InfxError):
            sweep_flags(labels)
    else:
        flags = sweep_flags(labels)
        assert flags.primary == (next(iter(primaries)) if primaries else "")
        assert flags.all_evals == ("all-evals" in labels)
