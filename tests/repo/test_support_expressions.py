"""Tests for tests/lib/expressions.py: the GitHub expression subset our workflows use."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lib.expressions import (
    Context,
    ExpressionError,
    evaluate_if,
    evaluate_text,
    interpolate,
    loose_equal,
    truthy,
)

CTX = Context({
    "github": {
        "event_name": "pull_request",
        "event": {
            "action": "labeled",
            "label": {"name": "Full-Sweep-Enabled"},
            "pull_request": {"draft": False, "number": 12,
                             "labels": [{"name": "full-sweep-enabled"}, {"name": "all-evals"}]},
        },
        "run_id": "4242",
    },
    "needs": {"plan": {"result": "success",
                       "outputs": {"shards": '["evals-1"]', "matrix": '{"evals-1": [{"conc": 4}]}',
                                   "reuse-enabled": ""}}},
})


@pytest.mark.parametrize(("text", "expected"), [
    ("1 == 1", True),
    ("'abc' == 'ABC'", True),  # string comparison ignores case
    ("'1' == 1", True),  # numeric coercion
    ("null == 0", True),
    ("true == 1", True),
    ("'' == 0", True),
    ("'x' == 0", False),  # NaN never equals
    ("'a' != 'b'", True),
    ("!true", False),
    ("!''", True),
    ("1 < 2 && 'b' > 'a'", True),
    ("false || 'x'", "x"),  # || returns the operand
    ("'' && 'x'", ""),
    ("(true || false) && !false", True),
    ("contains('Hello', 'ell')", True),
    ("contains(github.event.pull_request.labels.*.name, 'ALL-EVALS')", True),
    ("contains(github.event.pull_request.labels.*.name, 'evals-only')", False),
    ("contains(fromJSON('[\"labeled\",\"unlabeled\"]'), github.event.action)", True),
    ("startsWith('refs/heads/main', 'refs/heads/')", True),
    ("endsWith('x.yml', '.YML')", True),
    ("format('{0}-{1}-{{x}}', 'a', 3)", "a-3-{x}"),
    ("toJSON(fromJSON('[1]'))", "[\n  1\n]"),
    ("join(fromJSON('[\"a\",\"b\"]'), '+')", "a+b"),
    ("join(5, 'x')", "5"),
    ("github.event.pull_request.number", 12),
    ("github.event.missing.deeper", None),
    ("github['event']['action']", "labeled"),
    ("fromJSON(needs.plan.outputs.matrix)['evals-1'][0].conc", 4),
    ("needs.plan.outputs.reuse-enabled != 'true'", True),
    ("contains(fromJSON(needs.plan.outputs.shards), 'evals-1')", True),
    ("0x10 == 16", True),
    ("'it''s' == 'IT''S'", True),
])
def test_evaluate(text, expected):
    assert evaluate_text(text, CTX) == expected


def test_filter_on_object_and_missing():
    ctx = Context({"needs": {"a": {"result": "success"}, "b": {"result": "skipped"}}})
    assert evaluate_text("contains(needs.*.result, 'skipped')", ctx) is True
    assert evaluate_text("contains(needs.nothing.*.result, 'skipped')", ctx) is False


@pytest.mark.parametrize(("job_status", "text", "expected"), [
    ("success", "true", True),
    ("failure", "true", False),  # implicit success()
    ("failure", "always()", True),
    ("failure", "failure()", True),
    ("skipped", "!cancelled()", True),
    ("skipped", "success()", False),
    ("cancelled", "!cancelled() && true", False),
    ("success", None, True),
    ("failure", None, False),
])
def test_status_functions(job_status, text, expected):
    assert evaluate_if(text, Context({}, job_status=job_status)) is expected


def test_if_with_braces_is_the_same():
    assert evaluate_if("${{ github.event.action == 'labeled' }}", CTX)
    assert not evaluate_if("${{ github.event.action == 'synchronize' }}", CTX)


def test_interpolate():
    text = "sweep-${{ github.event.pull_request.number }}-${{ github.run_id }}"
    assert interpolate(text, CTX) == "sweep-12-4242"


@pytest.mark.parametrize("text", ["1 ==", "contains(", "'open", "a $ b", "nosuch(1)", "format('{3}', 1)",
                                  "fromJSON('{bad')", "(1"])
def test_errors(text):
    with pytest.raises(ExpressionError):
        evaluate_text(text, CTX)


def test_truthiness():
    assert not truthy(0.0) and not truthy("") and not truthy(None) and not truthy(float("nan"))
    assert truthy("false") and truthy([]) and truthy({}) and truthy(-1)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "a", "A", "1", "x"])),
       st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "a", "A", "1", "x"])))
def test_property_equality_is_symmetric_and_not_is_negation(left, right):
    assert loose_equal(left, right) == loose_equal(right, left)
    ctx = Context({"inputs": {"l": left, "r": right}})
    assert evaluate_text("inputs.l != inputs.r", ctx) == (not evaluate_text("inputs.l == inputs.r", ctx))
    assert evaluate_text("!!inputs.l", ctx) == truthy(left)
