"""Reading shell and YAML text for settings (infx.signoff.rules.scan)."""

from __future__ import annotations

import pytest

from infx.signoff.rules.scan import (
    case_arm_body,
    env_settings,
    first_number,
    shell_guards,
    strip_quoted_comments,
)


def test_a_command_kept_in_a_string_sets_its_environment_inside_it():
    found = env_settings('CMD="A=1 SGLANG_SIMULATE_ACC_LEN=2.49 python3 -m sglang.launch_server --x 1"')
    assert ("SGLANG_SIMULATE_ACC_LEN", "2.49") in found and ("A", "1") in found


def test_case_arms_guard_their_lines_and_the_first_matching_arm_wins():
    text = 'case "$X" in\n  a|b) V=1 ;;\n  c)\n    V=2\n    ;;\n  *) V=3 ;;\nesac\nafter\n'
    assert [g.predicate for g in shell_guards(text, 2)] == ['case "$X" in a|b)']
    assert [(g.predicate, g.negated) for g in shell_guards(text, 4)] == [
        ('case "$X" in a|b)', True), ('case "$X" in c)', False)]
    assert [g.negated for g in shell_guards(text, 6)] == [True, True, False]
    assert shell_guards(text, 8) == []
    assert (case_arm_body(text, 2), case_arm_body(text, 5), case_arm_body(text, 4)) == ("V=1", "", None)


def test_heredocs_and_inline_programs_open_no_conditions():
    text = 'python3 -c "\nif a:\n    pass\n"\ncat <<-EOF\n\tif b\n\tEOF\nif [ "$Y" = 1 ]; then\n  z\nfi\n'
    assert shell_guards(text, 3) == [] and shell_guards(text, 6) == []
    assert [g.predicate for g in shell_guards(text, 9)] == ['[ "$Y" = 1 ]']
    assert shell_guards(text, 9)[0].line == 8


def test_a_heredoc_with_a_quoted_word_opens_no_conditions():
    """``<<'PYEOF'`` and ``<<"EOF"`` (real #2003: a Python patch whose ``if count != 1:`` was read
    as the guard of every later line); ``<<`` inside quotes and here-strings open nothing."""
    text = ("python3 - <<'PYEOF' || { echo failed >&2; exit 1; }\nif count != 1:\n    x\nPYEOF\n"
            'cat <<"EOF" > f\nif b\nEOF\nrun --use-chat-template\n'
            'echo "<<EOF"\nif [ "$Y" = 1 ]; then\n  z <<< "$w"\n  v\nfi\n')
    assert shell_guards(text, 3) == [] and shell_guards(text, 6) == [] and shell_guards(text, 8) == []
    assert [g.predicate for g in shell_guards(text, 12)] == ['[ "$Y" = 1 ]']


def test_flags_in_json_whose_quotes_are_escaped_in_a_shell_word():
    from infx.signoff.rules.scan import flag_values
    word = r'"{\"method\":\"dspark\",\"rejection_sample_method\": \"synthetic\", \"synthetic_acceptance_length\": 2.51}"'
    assert flag_values(word, "rejection_sample_method") == ["synthetic"]
    assert flag_values(word, "synthetic_acceptance_length") == ["2.51"]


def test_the_flag_prefilter_never_hides_what_the_patterns_would_read():
    """scan.may_name only spares lines the patterns could not match: every spelling the readers
    accept passes it, and lines with letters that case-insensitive matching folds go through."""
    from infx.signoff.rules.scan import flag_values, may_name, mentions_flag

    for line in ("--HF_Overrides x", "HF-OVERRIDES: x", '"hf_overrides": x', "--hf-overrideſ x"):
        assert may_name(line, "--hf-overrides")
        assert mentions_flag(line, "--hf-overrides")
    assert flag_values("--hf-overrideſ '{}'", "--hf-overrides") == ["{}"]
    assert not may_name("--model x --tp 2", "--hf-overrides")


def test_a_number_is_read_only_from_a_value_that_is_one():
    assert [first_number(v) for v in ("3", '"2.78"', "3)", "0.7,", "-1", "4}'")] == [3, 2.78, 3, 0.7, -1, 4]
    # what bash passes for these is not known here: digits inside them are no reading
    for value in ("$K2", "${K:-2}", "%.2f", "2.5x", "v3", "$((K+1))", "`echo 3`", "\u0663", "2.\u0665"):
        assert first_number(value) is None, value


def test_yaml_sections_follow_the_parsed_structure():
    from infx.signoff.rules.scan import yaml_sections

    text = ("backend:\n  sglang_config:\n    prefill:\n      steps: 1\n    decode:\n"
            "      - steps: 2\n        x: 1\n\n  # c\n  env:\n    A: 1\ntop: 2\n")
    assert [yaml_sections(text, n) for n in (1, 4, 6, 10, 11, 12)] == [
        {("backend",)}, {("backend", "sglang_config", "prefill", "steps")},
        {("backend", "sglang_config", "decode", "steps")}, {("backend", "env")},
        {("backend", "env", "A")}, {("top",)}]
    assert yaml_sections(text, 0) == set() and yaml_sections(text, 99) == set()
    # a block scalar's lines belong to its key; a flow map's line to each of its entries
    other = 'a:\n  "decode":\n    command: |\n      run --k 3\n  prefill: {k: 1, j: 2}\n'
    assert yaml_sections(other, 4) == {("a", "decode", "command")}
    assert yaml_sections(other, 5) == {("a", "prefill", "k"), ("a", "prefill", "j")}
    # an anchored node's lines belong to every place that uses it (an alias, a merge key)
    assert yaml_sections("a: &x {k: 1}\nb: *x\n", 1) == {("a", "k"), ("b", "k")}
    assert yaml_sections("a: &x {k: 1}\nb:\n  <<: *x\n  j: 2\n", 1) == {("a", "k"), ("b", "k")}
    # where a line belongs is not known: an entry a repeated key replaces, no YAML
    assert yaml_sections("a: 1\nb: 2\na: 3\n", 1) is None
    assert yaml_sections("a: 1\nb: 2\na: 3\n", 3) == {("a",)}
    assert yaml_sections("a: [\n", 1) is None


def test_an_elif_or_else_arm_runs_only_when_every_earlier_condition_failed():
    text = ('if [ "$CONC" -le 8 ]; then\n  K=7\nelif [ "$CONC" -le 16 ]; then\n  K=3\nelse\n  K=0\nfi\nrun\n')
    assert [(g.predicate, g.negated) for g in shell_guards(text, 4)] == [
        ('[ "$CONC" -le 8 ]', True), ('[ "$CONC" -le 16 ]', False)]
    assert [(g.predicate, g.negated) for g in shell_guards(text, 6)] == [
        ('[ "$CONC" -le 8 ]', True), ('[ "$CONC" -le 16 ]', True)]
    assert shell_guards(text, 8) == []


def test_a_group_after_a_list_operator_guards_its_lines_by_the_lists_command():
    """``check || {`` … ``}`` runs its lines only when ``check`` fails (``&& {``: succeeds); a
    nested function body or group inside it does not close it, and a plain ``{`` group guards
    nothing."""
    text = ("check || {\n  f() {\n    inner\n  }\n  fallback\n}\nafter\n"
            "ok && {\n  then_ran\n}\n{\n  always\n}\n")
    guards = {n: [(g.predicate, g.negated) for g in shell_guards(text, n)] for n in range(1, 14)}
    assert guards[3] == [("check", True)] and guards[5] == [("check", True)]
    assert guards[7] == [] and guards[9] == [("ok", False)] and guards[12] == []


def test_a_while_or_until_body_is_guarded_by_its_first_test_and_a_for_body_by_nothing():
    text = ("while false; do\n  a\ndone\nfor x in a b; do\n  y\ndone\nuntil [ -f x ]\ndo\n  s\ndone\n"
            "while read -r l; do\n  if [ a = b ]; then\n    z\n  fi\n  w\ndone\nafter\n")
    guards = {n: [(g.predicate, g.negated) for g in shell_guards(text, n)] for n in (2, 5, 9, 13, 15, 17)}
    assert guards == {2: [("false", False)], 5: [], 9: [("[ -f x ]", True)],
                      13: [("read -r l", False), ("[ a = b ]", False)], 15: [("read -r l", False)], 17: []}


@pytest.mark.parametrize(("line", "code"), [
    # a comment line of the source a patch writes ends at its "\n" escape
    ('    + "        # DSpark verify on the fp8 KV path\\n"', '    + "        \\n"'),
    ('"    # draft fp8\\n    self.draft_dtype = fp8\\n"', '"    \\n    self.draft_dtype = fp8\\n"'),
    ('"  # note\\n", "draft_quant = \'fp8\'"  # the script\'s own comment', '"  \\n", "draft_quant = \'fp8\'"'),
])
def test_comments_of_quoted_source_lines_are_dropped(line, code):
    assert strip_quoted_comments(line) == code


@pytest.mark.parametrize("line", [
    'sed -i "s/ # draft_dtype=fp8/draft_dtype=fp8/" eagle.py',  # uncommenting: the closing quote comes first
    'sed -i "s#draft_dtype = None#draft_dtype = fp8#" eagle.py',  # '#' as the sed delimiter
    'echo "#draft_dtype=fp8" >> eagle.py',
])
def test_quoted_text_that_may_be_code_stays(line):
    kept = strip_quoted_comments(line)
    assert "draft" in kept and "fp8" in kept
