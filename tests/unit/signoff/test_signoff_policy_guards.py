"""infx.signoff.rules.isolation: concurrency-only guards around added code."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff.rules.isolation import evaluate, exclusive, unguarded_lines


def test_evaluate_shell_and_python_spellings():
    assert evaluate('[ "$CONC" -ge 48 ]', 48) is True
    assert evaluate('[ "$CONC" -ge 48 ]', 32) is False
    assert evaluate("[[ ${CONC} -gt 32 && $CONC -lt 100 ]]", 64) is True
    assert evaluate("(( CONC == 48 )) || (( CONC == 64 ))", 64) is True
    assert evaluate("conc >= 48", 40) is False
    assert evaluate('[ "$TP" -ge 48 ]', 64) is None
    assert evaluate('[ -n "$X" ]', 64) is None


def test_exclusive():
    assert exclusive("conc >= 48", {4, 8, 32}) is True
    assert exclusive("conc >= 16", {4, 8, 32}) is False
    assert exclusive("flag", {4}) is None


SHELL = """set -e
if [ "$CONC" -ge 48 ]; then
  export A=1
else
  export B=1
fi
export C=1
"""


def test_shell_blocks():
    found = unguarded_lines("run.sh", SHELL, {3, 5, 7}, {4, 8, 32})
    assert [(u.line, u.why.split(":")[0]) for u in found] == [
        (5, "in the else branch of a guard, which runs for existing points"), (7, "unconditional change reaches existing points")]


def test_python_blocks():
    text = "def f(conc):\n    if conc >= 48:\n        x = 1\n    y = 2\n"
    found = unguarded_lines("x.py", text, {3, 4}, {4, 32})
    assert [u.line for u in found] == [4]


def test_other_file_types_cannot_prove_isolation():
    found = unguarded_lines("cfg.yaml", "a: 1\n", {1}, {4})
    assert found and "cannot prove isolation" in found[0].why


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 512), st.sets(st.integers(1, 512), min_size=1, max_size=8))
def test_threshold_guard_is_exclusive_iff_all_old_points_are_below(threshold, old):
    assert exclusive(f"conc >= {threshold}", old) is (max(old) < threshold)
