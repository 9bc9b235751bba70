"""Red team 16: launch-script inputs a hostile PR controls that made the per-row reading of
shell values (infx.signoff.rules.shell_values) or the condition reading
(infx.plan.launch_graph.decide, infx.signoff.rules.scan.shell_guards) give a value bash does not
compute. Where practical each case is run through a real bash: the reading must agree with it,
or leave the reference as written (fail closed)."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from infx.plan.launch_graph import Branch, decide
from infx.signoff.rules.scan import text_lines
from infx.signoff.rules.shell_values import printf, variants

PATH = "benchmarks/single_node/agentic/x_fp4_mi355x_atom_mtp.sh"
ENTRY = {"scenarios": {"agentic-coding": [{"search-space": [
    {"tp": 8, "conc-list": [1, 4], "spec-decoding": "mtp"},
    {"tp": 8, "conc-start": 8, "conc-end": 16, "spec-decoding": "mtp"}]}]}}
CONCS = ("1", "4", "8", "16")
UNKNOWN = 'run --al "$AL"'


def _same(text: str) -> str:
    return text


def _bash(script: str, env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env or {}, cwd=cwd,
                          timeout=20, check=False)
    return done.returncode, done.stdout, done.stderr


def _bash_printf(words: str, env: dict[str, str] | None = None, cwd: str | None = None) -> str | None:
    """What ``X=$(printf WORDS)`` gives X in bash, or None when bash reports an error."""
    code, out, err = _bash(f"X=$(printf {words}) || exit 3; printf '%s' \"$X\"", env, cwd)
    return None if code or err else out


def _agrees(words: str, env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[str | None, str | None]:
    """(the model's value, bash's value) of ``$(printf WORDS)``, references taken from ``env``."""
    env = env or {}

    def expand(text: str) -> str:
        return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), m.group(0)), text)

    return printf(words, expand), _bash_printf(words, env, cwd)


def _assert_agrees(words: str, env: dict[str, str] | None = None, cwd: str | None = None) -> None:
    model, real = _agrees(words, env, cwd)
    assert model is None or model == real, (words, model, real)


# --- printf: numbers --------------------------------------------------------------------------

@pytest.mark.parametrize("argument", ["010", "08", "0x10", "-010", "0X1f", "00"])
def test_printf_reads_integer_arguments_as_bash_does(argument):
    _assert_agrees(f"'%d' {argument}")


def test_printf_reads_no_digits_but_ascii_ones():
    assert printf("'%d' '\u0661'", _same) is None and printf("'%.2f' '\u0661.5'", _same) is None
    _assert_agrees("'%d' '\u0661'")


@pytest.mark.parametrize("words", ["'%.2f' 1.115", "'%.2f' 0.045", "'%.2f' 2.675", "'%.2f' 0.125",
                                   "'%.0f' 2.5", "'%.0f' 3.5", "'%.1e' 2.25", "'%.3g' 1.115",
                                   "'%.2f' 1.1150000000000000000001"])
def test_printf_rounds_floats_as_bash_does_or_not_at_all(words):
    _assert_agrees(words)


def test_printf_float_values_away_from_a_tie_are_still_known():
    for words, value in (("'%.2f' 2.5", "2.50"), ("'%.2f' 2.49", "2.49"), ("'%.2f' 3.4", "3.40"),
                         ("'%5.1f' 3", "  3.0"), ("'%.2f' 1.116", "1.12"), ("'%g' 2.5", "2.5")):
        assert printf(words, _same) == value == _bash_printf(words), words


@pytest.mark.parametrize("words", ["'%x' -1", "'%X' -255", "'%o' -8", "'%u' -1", "'%#o' 8", "'%#x' 255",
                                   "'%+u' 5", "'% x' 5", "'%x' 255", "'%o' 8", "'%u' 7"])
def test_printf_unsigned_conversions_as_bash_does(words):
    _assert_agrees(words)


@pytest.mark.parametrize("words", ["'%d' 9223372036854775808", "'%d' -9223372036854775809",
                                   "'%x' 99999999999999999999", "'%d' 9223372036854775807"])
def test_printf_integers_past_64_bits_are_not_known(words):
    _assert_agrees(words)


def test_printf_conversions_not_modelled_are_not_known():
    for words in ("'%c' 3", "'a%'", "'%5%'", "'%b' x", "'%a' 1"):
        _assert_agrees(words)
        assert printf(words, _same) is None, words


def test_printf_huge_widths_and_precisions_are_not_built():
    for words in ("'%99999999d' 1", "'%.99999999f' 1", "'%99999999s' a", "'%.99999999d' 1"):
        started = time.monotonic()
        assert printf(words, _same) is None, words
        assert time.monotonic() - started < 1


# --- printf: words ----------------------------------------------------------------------------

def test_printf_unquoted_globs_are_not_known(tmp_path):
    (tmp_path / "a1").write_text("")
    (tmp_path / "a2").write_text("")
    for words in ("'%s' a*", "'%s' a?", "'%s' a[12]", "'%s' ~", "'%s' {a,b}", "'%s%s' a{1,2}"):
        _assert_agrees(words, cwd=str(tmp_path))
        assert printf(words, _same) is None, words


def test_printf_unquoted_references_bash_splits_are_not_known(tmp_path):
    (tmp_path / "a1").write_text("")
    for value in ("2.5 3", "a*", "", "x\ty"):
        env = {"X": value}
        for words in ("'%s' $X", "'[%s]' ${X}", "'%s|%s' $X b"):
            _assert_agrees(words, env, str(tmp_path))
    assert printf("'%s|%s' $X b", lambda t: t.replace("$X", "")) is None
    assert printf("'%s' $X", lambda t: t.replace("$X", "2.5 3")) is None
    assert printf("'%s' $X", _same) is None  # not known: bash may split it into several words
    assert printf("'%s' \"$X\"", lambda t: t.replace("$X", "2.5 3")) == "2.5 3"  # quoted: one word
    assert printf("'%s' $X", lambda t: t.replace("$X", "2.5")) == "2.5"


def test_printf_a_format_bash_takes_for_an_option_is_not_known():
    env = {"F": "-%s"}
    for words in ("'-%s' 3", "\"$F\" 3", "-v Y '%s' 3", "'-v' Y '%s' 3", "-- '-%s' 3", "-- '%s' 3"):
        _assert_agrees(words, env)
    assert printf("'-%s' 3", _same) is None and printf("\"$F\" 3", lambda t: t.replace("$F", "-%s")) is None
    assert printf("-- '-%s' 3", _same) == "-3"


def _run_values(text: str) -> set[str]:
    return {next(ln.text for ln in v.lines if ln.text.startswith("run")) for v in
            variants(text_lines(PATH, text), {PATH: text}, ENTRY)}


def test_printf_assignments_bash_reads_as_options_leave_the_name_as_written():
    for write in ("AL=$(printf '-%s' 3)", "AL=$(printf '-v' X '%s' 3)", "F=-%s\nAL=$(printf \"$F\" 3)"):
        assert _run_values(f'AL=2.99\n{write}\nrun --al "$AL"\n') == {UNKNOWN}, write
    assert _run_values("AL=2.99\nAL=$(printf -- '%s' 3.4)\nrun --al \"$AL\"\n") == {'run --al "3.4"'}


# --- conditions -------------------------------------------------------------------------------

def _per_row(text: str) -> dict[str, set[str]]:
    """CONC -> the texts of the ``run`` line across the row's variants."""
    out: dict[str, set[str]] = {c: set() for c in CONCS}
    for v in variants(text_lines(PATH, text), {PATH: text}, ENTRY):
        line = next((ln.text.strip() for ln in v.lines if ln.text.strip().startswith("run")), None)
        concs = {m for r in v.rows for m in re.findall(r"\bCONC=(\d+)", r)} or set(CONCS)
        for conc in concs:
            if line is not None:
                out[conc].add(line)
    return out


def _assert_as_bash(text: str) -> None:
    """Every row's variants hold what bash runs, or the value as written."""
    for conc, lines in _per_row(text).items():
        code, out, err = _bash('run() { printf \'run --al "%s"\\n\' "$2"; }\n' + text, {"CONC": conc})
        assert code == 0 and not err, (text, err)
        assert UNKNOWN in lines or out.strip().splitlines()[-1] in lines, (conc, text, lines, out)


@pytest.mark.parametrize("block", [
    'if [ "$CONC" -eq 1 ]; then AL=3; else AL=4; fi\n',
    'if [ "$CONC" -ne 1 ]; then :; else AL=4; fi\n',
    'if [ "$CONC" -eq 1 ]; then AL=3; elif [ "$CONC" -eq 4 ]; then AL=5; fi\n',
    '[ "$CONC" -eq 1 ] && AL=3 || AL=4\n',
    'if [ "$CONC" -eq 1 ]; then\n  AL=3; else AL=4\nfi\n',
    'if [ "$CONC" -eq 1 ]; then\n  :\nelse AL=4\nfi\n',
    'if [ "$CONC" -eq 1 ]; then\n  :\nelse AL=4\n  AL=5\nfi\n',
    'if [ "$CONC" -eq 1 ]; then\n  AL=3; else\n  AL=4\nfi\n',
    'if [ "$CONC" -eq 1 ]; then\n  :; else\n  AL=4\nfi\n',
    'if [ "$CONC" -eq 1 ]; then AL=3\nelse\n  AL=4\nfi\n',
    'if [ "$CONC" -eq 1 ]; then\n  AL=3\nfi; AL=4\n',
    'if [ "$CONC" -eq 1 ]; then :; fi; AL=4\n',
    'if [ "$CONC" -le 4 ]; then\n  if [ "$CONC" -eq 1 ]; then :; else AL=4; fi\nfi\n',
    'if [ "$CONC" -eq 1 ]; then\n  AL=3\nelif [ "$CONC" -eq 4 ]; then AL=4\nfi\n',
])
def test_writes_on_lines_holding_several_arms_are_read_as_bash_runs_them(block):
    _assert_as_bash(f'AL=2.99\n{block}run --al "$AL"\n')


@pytest.mark.parametrize("test", ['[ "$CONC" -eq 1 ] &&\n   [ -f /nonexistent ]', '[ "$CONC" -eq 1 ] \\\n   && [ -f /nonexistent ]',
                                  '[ "$CONC" -eq 1 ] && {\n   [ -f /nonexistent ]; }'])
def test_a_condition_going_on_on_the_next_line_is_not_decided_by_its_first_line(test):
    _assert_as_bash(f'AL=2.99\nif {test}; then\n  AL=9\nfi\nrun --al "$AL"\n')


def test_one_line_conditions_the_row_decides_still_give_their_values():
    # the honest forms keep their reading: a one-line if without else guards itself
    text = 'AL=2.99\nif [ "$CONC" -eq 1 ]; then AL=3; fi\nrun --al "$AL"\n'
    _assert_as_bash(text)
    assert _per_row(text)["8"] == {'run --al "2.99"'}
    text = 'AL=2.99\nif [ "$CONC" -eq 1 ]; then\n  AL=3\nelse\n  AL=4\nfi\nrun --al "$AL"\n'
    assert _per_row(text) == {"1": {'run --al "3"'}, "4": {'run --al "4"'}, "8": {'run --al "4"'},
                              "16": {'run --al "4"'}}


@pytest.mark.parametrize("text", [
    'CONC=64\nAL=2.99\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\n',
    'AL=2.99\nCONC=1\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\n',
    'AL=2.99\nCONC=$(echo 64)\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\n',
    'AL=2.99\nif [ "$TP" = 8 ]; then\n  CONC=64\nfi\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\n',
    'AL=2.99\nread CONC <<< 64\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\n',
])
def test_a_condition_on_a_row_variable_the_script_rewrites_is_not_decided_by_the_row(text):
    _assert_as_bash(text.replace("$TP", "${TP:-8}"))


def test_lines_under_a_condition_on_a_rewritten_row_variable_stay_in_the_launch():
    text = 'CONC=1\nif [ "$CONC" -eq 1 ]; then\n  run --al 9\nfi\n'
    assert all("run --al 9" in lines for lines in _per_row(text).values())


def test_a_condition_on_a_row_variable_the_script_sets_later_is_still_the_rows():
    text = 'AL=2.99\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\nCONC=64\n'
    assert _per_row(text)["1"] == {'run --al "9"'} and _per_row(text)["8"] == {'run --al "2.99"'}


@pytest.mark.parametrize("test", ["[[ $X -eq 010 ]]", "[[ $X -eq 8 ]]", "[[ $X -eq 10 ]]", "[ $X -eq 010 ]",
                                  "[[ $X -ne 0x10 ]]", "[[ $X -eq 16 ]]", "[[ $X -lt 09 ]]", "[ $X -lt 09 ]",
                                  "[[ $X -eq -010 ]]", "[ $X -ne 99999999999999999999 ]",
                                  "[[ $X -ne 99999999999999999999 ]]", "[ $X -eq \u0661 ]"])
@pytest.mark.parametrize("value", ["8", "10", "16", "010", "1"])
def test_decide_reads_integers_as_bash_does_or_not_at_all(test, value):
    branch = Branch(eval_only=False, spec=True, row=(("X", value),))
    code, _, _ = _bash(test, {"X": value})
    real = {0: True, 1: False}.get(code, False)  # an error (2): the condition does not hold
    assert decide(test, branch) in (None, real), (test, value, code)


def test_decide_still_reads_plain_integers():
    branch = Branch(eval_only=False, spec=True, row=(("X", "8"),))
    assert decide("[[ $X -eq 8 ]]", branch) is True and decide("[ $X -le 4 ]", branch) is False
    assert decide("[ $X -eq 08 ]", branch) is True  # test reads 08 as decimal


@pytest.mark.parametrize("write", ["(( CONC = 64 ))", "mapfile -t CONC <<< 64", "read -p x CONC <<< 64",
                                   "read A CONC <<< '1 64'", "echo hi; CONC=64", "test -d / && CONC=64",
                                   "cat /dev/null; CONC=64", "printf x; CONC=64"])
def test_writes_of_a_tested_row_variable_the_reading_must_see(write):
    _assert_as_bash(f'AL=2.99\n{write}\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\nrun --al "$AL"\n')


@pytest.mark.parametrize("write", ["(( AL = 64 ))", "let AL=7", "echo hi; AL=64", "test -d / && AL=64",
                                   "cat /dev/null; AL=64", "read -p x AL <<< 64", "mapfile -t AL <<< 64",
                                   "getopts a AL -a"])
def test_writes_after_a_printing_command_or_in_arithmetic_make_the_value_unknown(write):
    _assert_as_bash(f'AL=2.99\n{write}\nrun --al "$AL"\n')


@pytest.mark.xfail(strict=True, reason="a sourced file's writes are not followed: `source`/`.` may write any "
                                       "variable (shell_writes lists it under ANY_VARIABLE), but the per-row "
                                       "reading would lose every value set before a launch's usual `source "
                                       "benchmark_lib.sh` if it counted them; following the sourced file's own "
                                       "writes is not done yet")
def test_a_sourced_file_that_rewrites_a_tested_row_variable():
    _assert_as_bash('AL=2.99\nsource /dev/stdin <<< "CONC=64"\nif [ "$CONC" -eq 1 ]; then\n  AL=9\nfi\n'
                    'run --al "$AL"\n')


@pytest.mark.parametrize("text", [
    'AL=2.99\nwhile false; do\n  AL=9\ndone\nrun --al "$AL"\n',
    'AL=2.99\nfor x in; do\n  AL=9\ndone\nrun --al "$AL"\n',
    'AL=2.99\n(\n  AL=9\n)\nrun --al "$AL"\n',
    'AL=2.99\nX=$(\n  AL=9\n)\nrun --al "$AL"\n',
    'AL=2.99\necho | {\n  AL=9\n}\nrun --al "$AL"\n',
    'AL=2.99\nf() {\n  AL=9\n}\nrun --al "$AL"\n',
    'AL=2.99\nf() {\n  local AL=9\n}\nf\nrun --al "$AL"\n',
    'AL=2.49\nf() {\n  run --al "$AL"\n}\nAL=3.5\nf\n',
    'AL=2.99\nfor i in 1 2; do\n  run --al "$AL"\n  AL=9\ndone\n',
])
def test_writes_in_blocks_that_run_elsewhere_are_not_read_in_file_order(text):
    _assert_as_bash(text)


def test_a_value_set_and_read_inside_one_function_is_still_followed():
    text = 'f() {\n  local al=2.5\n  run --al "$al"\n}\nf\n'
    assert _per_row(text)["1"] == {'run --al "2.5"'}


@pytest.mark.parametrize("setting", ["IFS=.", "IFS=4", "export LC_ALL=de_DE.UTF-8", "LC_NUMERIC=de_DE.UTF-8"])
def test_printf_after_the_script_changes_splitting_or_the_locale_is_not_known(setting):
    text = f"{setting}\nAL=2.49\nV=$(printf '%s' $AL)\nW=$(printf '%.2f' \"$AL\")\nrun --al \"$V\" \"$W\"\n"
    for lines in _per_row(text).values():
        assert lines == {'run --al "$V" "$W"'}, (setting, lines)
    honest = "AL=2.49\nV=$(printf '%s' $AL)\nW=$(printf '%.2f' \"$AL\")\nrun --al \"$V\" \"$W\"\n"
    assert _per_row(honest)["1"] == {'run --al "2.49" "2.49"'}


def test_the_launch_graph_keeps_both_arms_of_a_condition_on_a_variable_the_file_rewrites():
    from infx.plan.launch_graph import branch_lines

    branch = Branch(eval_only=False, spec=True, row=(("SPEC_DECODING", "mtp"),))
    text = 'SPEC_DECODING=none\nif [ "$SPEC_DECODING" = "mtp" ]; then\n  run --al 2.49\nelse\n  run --al 3.5\nfi\n'
    kept = {line.strip() for _, line in branch_lines(text, branch)}
    assert "run --al 3.5" in kept  # what bash runs (SPEC_DECODING is none when tested)
    honest = 'SPEC_DECODING="${SPEC_DECODING:-none}"\n' + text.split("\n", 1)[1]
    assert {line.strip() for _, line in branch_lines(honest, branch)} >= {"run --al 2.49"}
    assert "run --al 3.5" not in {line.strip() for _, line in branch_lines(honest, branch)}
    later = text.split("\n", 1)[1] + "SPEC_DECODING=none\n"
    assert "run --al 3.5" not in {line.strip() for _, line in branch_lines(later, branch)}


@pytest.mark.parametrize("text", [
    'if [ "$EVAL_ONLY" = true ]; then\n  run_eval\nelse run --al 3\n  run --more\nfi\n',
    'if [ "$EVAL_ONLY" = true ]; then\n  run_eval; else\n  run --more\nfi\n',
    'if [ "$EVAL_ONLY" = false ]; then\n  if [ -f x ]; then run_b\n  else\n    run --more\n  fi\nfi\n',
    'if [ "$EVAL_ONLY" = false ]; then\n  if [ -f x ] &&\n     [ -f y ]; then\n    :\n  else\n    run --more\n  fi\nfi\n',
    'if [ "$EVAL_ONLY" = false ]; then\n  if [ -f x ]\n  then\n    :\n  else\n    run --more\n  fi\nfi\n',
])
def test_the_launch_graph_keeps_the_lines_a_throughput_row_runs_in_any_if_form(text):
    from infx.plan.launch_graph import branch_lines

    kept = {line.strip() for _, line in branch_lines(text, Branch(eval_only=False, spec=True))}
    assert "run --more" in kept
