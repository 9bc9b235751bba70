"""infx.signoff.rules.scan: diff hunks, comments, flags and environment settings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff.rules.scan import (
    Line,
    added_lines,
    data_lines,
    env_settings,
    flag_values,
    heredoc_opening,
    heredoc_word,
    hunks,
    is_enabled,
    join_continuations,
    mentions_flag,
    shell_guards,
    strip_comment,
    text_lines,
    unquoted,
)

PATCH = """@@ -1,3 +1,4 @@
 keep one
-old line
+new line # trailing comment
+# only a comment
 keep two
@@ -10,2 +11,3 @@ context
 ten
+eleven-bis
\\ No newline at end of file
"""


def test_hunks_number_new_side_lines():
    first, second = hunks(PATCH)
    assert [(h.kind, h.number, h.text) for h in first] == [
        (" ", 1, "keep one"), ("+", 2, "new line # trailing comment"), ("+", 3, "# only a comment"),
        (" ", 4, "keep two")]
    assert [(h.kind, h.number) for h in second] == [(" ", 11), ("+", 12)]


def test_added_lines_strip_comments_and_blanks():
    assert added_lines("a.sh", PATCH) == [Line("a.sh", 2, "new line"), Line("a.sh", 12, "eleven-bis")]
    assert added_lines("a.sh", None) == []


def test_strip_comment_respects_quotes():
    assert strip_comment('echo "a # b" # c') == 'echo "a # b"'
    assert strip_comment("url=http://x/#frag") == "url=http://x/#frag"


def test_flag_value_spellings():
    assert flag_values("serve --tp 4 --kv-cache-dtype=fp8", "--tp") == ["4"]
    assert flag_values("serve --tp 4 --kv-cache-dtype=fp8", "--kv-cache-dtype") == ["fp8"]
    assert flag_values("  kv_cache_dtype: fp8", "--kv-cache-dtype") == ["fp8"]
    assert flag_values('{"num_speculative_tokens": 3}', "num_speculative_tokens") == ["3"]
    assert flag_values("--speculative-config '{\"a\": 1}'", "--speculative-config") == ['{"a": 1}']
    assert flag_values("EXTRA='--x false'", "--x") == ["false"]
    assert flag_values("--tpx 4", "--tp") == []
    # a shell array's first item (ATOM launches: SPEC_ARGS+=(--spec-decode-acceptance-length "2.49"))
    assert flag_values('SPEC_ARGS+=(--spec-decode-acceptance-length "2.49")', "--spec-decode-acceptance-length") == ["2.49"]
    assert mentions_flag("ARGS=(--speculative-draft-dtype fp8)", "--speculative-draft-dtype")
    assert flag_values("X=(--tpx 4)", "--tp") == []
    assert flag_values('"rejection_sample_method": "synthetic"', "method") == []


def test_mentions_flag_is_word_bounded():
    assert mentions_flag("--enable-dp-attention --x", "--enable-dp-attention")
    assert not mentions_flag("--enable-dp-attention-extra", "--enable-dp-attention")


def test_env_settings_forms():
    assert env_settings("export A_B=1 && C=two cmd") == [("A_B", "1"), ("C", "two")]
    assert env_settings("    SGLANG_SIMULATE_ACC_LEN: '3.39'") == [("SGLANG_SIMULATE_ACC_LEN", "3.39")]
    assert env_settings("- FOO=bar") == [("FOO", "bar")]
    assert env_settings('os.environ["X_Y"] = "1"') == [("X_Y", "1")]


def test_is_enabled():
    assert is_enabled("1") and is_enabled("true")
    assert not any(is_enabled(v) for v in ("", "0", "false", "OFF", "no"))


def test_join_continuations():
    lines = [Line("s", 1, "cmd --a 1 \\"), Line("s", 2, "  --b 2"), Line("s", 3, "next")]
    assert list(join_continuations(lines)) == [Line("s", 1, "cmd --a 1  --b 2"), Line("s", 3, "next")]


def test_text_lines_keep_numbers():
    assert text_lines("f", "a\n\n# c\nb\n") == [Line("f", 1, "a"), Line("f", 4, "b")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc xyz=#-", max_size=20), max_size=15))
def test_every_added_line_is_reported_at_its_number(lines):
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
    expected = [(i, strip_comment(ln)) for i, ln in enumerate(lines, 1) if strip_comment(ln).strip()]
    assert [(ln.number, ln.text) for ln in added_lines("p", patch)] == expected


def test_unquoted_reads_the_words_bash_builds():
    assert unquoted('--hf-"overrides" x') == "--hf-overrides x"
    assert unquoted("--hf''-overrides") == "--hf-overrides"
    assert unquoted("overrid\\es") == "overrides"
    assert unquoted('export "A_B=1"') == "export A_B=1"
    assert unquoted("""'{"k": 1}'""") == '{"k": 1}'  # double quotes inside single quotes stay
    assert unquoted('x "a\\"b"') == 'x a"b'
    plain = "serve --tp 4"
    assert unquoted(plain) is plain


def test_flags_and_settings_hidden_by_quotes_are_read():
    assert flag_values("""serve --hf-"overrides" '{"n": 1}'""", "--hf-overrides") == ['{"n": 1}']
    assert mentions_flag("serve --enable-''dp-attention", "--enable-dp-attention")
    assert env_settings('export "SGLANG_X=1"') == [("SGLANG_X", "1")]
    assert env_settings("export SGLANG_\"X\"=1") == [("SGLANG_X", "1")]


def test_a_word_split_by_a_continuation_is_one_word_again():
    lines = [Line("a.sh", 1, "serve --hf-over\\"), Line("a.sh", 2, "rides x"),
             Line("a.sh", 3, "serve \\"), Line("a.sh", 4, "    --tp 4")]
    assert [ln.text for ln in join_continuations(lines)] == ["serve --hf-overrides x", "serve  --tp 4"]


def test_heredoc_words_as_bash_reads_them():
    words = {"cat <<EOF": "EOF", "cat <<'EOF'": "EOF", 'cat <<"END-X"': "END-X", "cat <<\\EOF": "EOF",
             "cat <<-E\"O\"F": "EOF", "cat <<END-X >f": "END-X"}
    for line, word in words.items():
        opening = heredoc_opening(line)
        assert opening is not None and heredoc_word(opening) == word, line
    assert heredoc_opening('cat <<< "$x"') is None and heredoc_opening("echo '<<EOF'") is None


def test_a_heredoc_is_shell_only_when_a_shell_reads_it():
    def guards_inside(opener: str, closer: str = "EOF") -> list[str]:
        text = f"{opener}\nif [ x ]; then\n  y\nfi\n{closer}\nz\n"
        return [g.predicate for g in shell_guards(text, 3)]

    assert guards_inside("sudo tee /tmp/f <<'EOF'") == []  # tee's data
    assert guards_inside("ssh host 'cat > /tmp/f' <<'EOF'") == []  # a remote command's data
    assert guards_inside("ssh host <<'EOF'") == ["[ x ]"]  # the remote shell reads it
    assert guards_inside("sudo bash <<'EOF'") == ["[ x ]"]
    assert guards_inside("cat > f <<EOF", "EOF ") == []  # `EOF ` is not the word: still data


def test_data_lines_are_the_text_of_heredocs_and_inline_programs():
    text = ("a\ncat > f <<'EOF'\nbench --chat\nEOF\nb\npython3 -c \"\nprint(1)\n\"\n"
            "bash <<EOF\nrun\nEOF\n")
    assert data_lines(text) == frozenset({3, 4, 7, 8})  # a heredoc bash reads is commands


def test_a_multi_line_string_is_text():
    text = 'USAGE="\nif [ x ]; then\n  bench --chat\nfi\n"\necho "one line"\nrun\n'
    assert data_lines(text) == frozenset({2, 3, 4, 5})
    assert shell_guards(text, 3) == []


def test_an_arithmetic_shift_opens_no_heredoc_and_a_paired_quote_no_string():
    assert heredoc_opening("X=$(( 1 << then ))") is None and heredoc_opening("(( x <<= 2 ))") is None
    assert heredoc_opening("cat <<EOF; (( x ))") is not None
    label = 'LABEL="$(printf ' + "'%s'" + ' "it' + "'" + 's")"'
    for line in (label, "SEP='\\'", 'MSG="first line'):
        assert data_lines(line + "\nif [ x ]; then\n  y\nfi\n") == frozenset(), line


def test_a_default_assignment_expansion_is_a_setting():
    assert env_settings(': "${SGLANG_X:=1}"') == [("SGLANG_X", "1")]
    assert env_settings("echo ${SGLANG_X=on}") == [("SGLANG_X", "on")]
    assert env_settings('echo "${SGLANG_X:-1}"') == []  # a default for this use only
