"""Strict changelog contract: parsing, entry comparison and raw byte rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infx.changelog.strict import (
    compare_entries,
    parse_changelog,
    validate_change,
)
from infx.errors import InfxError

URL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"


def block(key="alpha-fp8-h100-vllm", text="Bump image", link="XXX", extra=""):
    return (f"- config-keys:\n    - {key}\n{extra}  description:\n    - \"{text}\"\n"
            f"  pr-link: {link}\n").encode()


A = block(text="A", link=URL + "900")
B = block(text="B")


def check(base: bytes, head: bytes, pr: int | None = 42):
    """The full strict pipeline (validate_change, as `changelog validate` and the verdict call
    it); returns (additions, corrections) after checking it hands back the parsed head."""
    parsed, change = validate_change(base, head, "perf-changelog.yaml", pr, base_label="base",
                                     head_label="head")
    assert parsed.raw == head and parsed.entries == parse_changelog(head, "perf-changelog.yaml").entries
    return len(change.additions), change.corrections


def error(base: bytes, head: bytes, pr: int | None = 42) -> InfxError:
    with pytest.raises(InfxError) as caught:
        check(base, head, pr)
    return caught.value


def test_well_formed_file_parses_to_dicts():
    parsed = parse_changelog(A, "f.yaml")
    assert parsed.entries == [{"config-keys": ["alpha-fp8-h100-vllm"], "description": ["A"],
                               "pr-link": URL + "900"}]
    assert parsed.entry_lines == [1]


@pytest.mark.parametrize("raw, fragment, line", [
    (A[:-1], "does not end with a newline", 5),
    (A.replace(b"\n", b"\r\n"), "contains CR characters", 1),
    (A.replace(b"    - \"A\"", b"\t- \"A\""), "contains tabs", 4),
    (A + b"\0\n", "contains a NUL byte at byte offset 131", 6),
    (A.replace(b"A", b"\xff"), "is not valid UTF-8: byte 0xff", 4),
    (A + b"\n- {config-keys: [a], description: [d], pr-link: x}\n",
     "changelog entry does not start with '- config-keys:'", 7),
    (A.replace(b"  pr-link", b"  description:\n    - x\n  pr-link"), "duplicate key", 5),
    (b"config-keys: [a]\n", "root must be a YAML list", 1),
    (b"- config-keys: [a]\n- 3\n", "changelog entry is invalid: an entry must be a mapping", 2),
    (A.replace(b"  pr-link", b"  evals-only: maybe\n  pr-link"),
     "changelog entry is invalid: 'evals-only' must be a boolean", 5),
])
def test_parse_errors_are_located(raw, fragment, line):
    with pytest.raises(InfxError, match=fragment) as caught:
        parse_changelog(raw, "perf-changelog.yaml")
    assert caught.value.problems[0].line == line
    assert caught.value.problems[0].file == "perf-changelog.yaml"


@pytest.mark.parametrize("indent", [b"  ", b"    "])
def test_misindented_second_entry_is_invalid_yaml(indent):
    nested = b"".join(indent + line for line in B.splitlines(keepends=True))
    with pytest.raises(InfxError, match="not valid YAML") as caught:
        parse_changelog(A + b"\n" + nested, "f")
    assert caught.value.problems[0].line == 7


def test_unhashable_key_is_rejected():
    with pytest.raises(InfxError, match="not valid YAML"):
        parse_changelog(A.replace(b"  pr-link", b"  ? [a]\n  : 1\n  pr-link"), "f")


def test_append_with_placeholder_on_pr():
    assert check(A, A + b"\n" + B) == (1, 0)
    assert check(A, A + b"\n" + block(link=URL + "XXX")) == (1, 0)
    assert check(A, A + b"\n" + block(link=URL + "42")) == (1, 0)


def test_link_to_another_pr_is_rejected_with_location():
    exc = error(A, A + b"\n" + block(link=URL + "41"))
    assert "new PR entry must use" in str(exc)
    assert exc.problems[0].line == 11


def test_tbd_is_rejected_with_what_to_write():
    exc = error(A, A + b"\n" + block(link="TBD"), pr=512)
    text = str(exc)
    assert "new PR entry must use 'https://github.com/SemiAnalysisAI/InferenceX/pull/512'" in text
    assert "'TBD' is not a placeholder" in text
    assert "pr-link: XXX" in text


def test_main_branch_requires_canonical_link():
    assert "new main-branch entry has invalid pr-link: 'XXX'" in str(error(A, A + b"\n" + B,
                                                                           pr=None))
    assert check(A, A + b"\n" + block(link=URL + "7"), pr=None) == (1, 0)
    assert "main-branch" in str(error(A, A + b"\n" + block(link=URL + "7/changes"), pr=None))


def test_pr_link_correction_counts():
    base = block(link="XXX")
    assert check(base, block(link=URL + "42"), pr=99) == (0, 1)


def test_history_edit_is_rejected():
    edited = block(text="A2", link=URL + "900")
    assert "entry 1 changed" in str(error(A, edited + b"\n" + B))


def test_deleted_entries():
    assert "entries were deleted" in str(error(A + b"\n" + B, A))
    empty = parse_changelog(b"[]\n", "perf-changelog.yaml")
    with pytest.raises(InfxError, match="entries were deleted"):
        compare_entries(parse_changelog(A, "perf-changelog.yaml"), empty, 42)


def test_corrections_and_additions_do_not_mix():
    base = block(link="XXX")
    head = block(link=URL + "42") + b"\n" + B
    assert "do not mix" in str(error(base, head))


def test_non_canonical_correction_and_reformat():
    base = block(link="XXX")
    assert "correction is not canonical" in str(error(base, block(link="TBD")))
    quoted = base.replace(b"pr-link: XXX", b"pr-link: 'XXX'")
    with pytest.raises(InfxError, match="no appended entry or pr-link correction"):
        check(base, quoted)


def test_raw_rules_for_appended_bytes():
    assert check(A, A + b"\n" + B) == (1, 0)
    touched = A.replace(b"  description:", b"  description: ") + b"\n" + B
    assert "historical" in str(error(A, touched))
    assert "exactly one empty separator line" in str(error(A, A + b"\n" + B + b"\n\n" + B))
    assert "end with one newline" in str(error(A, A + b"\n" + B + b"\n"))
    assert "separated from history by one empty line" in str(error(A, A + B))


def test_whitespace_only_separator_between_new_entries_fails():
    assert "separator line" in str(error(A, A + b"\n" + B + b"  \n" + B))


def test_base_ending_in_blank_line_takes_entry_directly():
    base = A + b"\n"
    assert check(base, base + B) == (1, 0)


def test_raw_rules_for_corrections():
    base = block(link="XXX")
    assert check(base, block(link=URL + "42")) == (0, 1)
    spaced = block(link=URL + "42").replace(b"\"Bump image\"", b"\"Bump image\"  ")
    with pytest.raises(InfxError, match="outside a pr-link line at line 4"):
        check(base, spaced)


def test_whitespace_only_history_change_without_additions():
    with pytest.raises(InfxError, match="historical whitespace and formatting are immutable"):
        check(A + b"\n" + B, A + b"  \n" + B)


def test_trailing_whitespace_on_appended_line_is_located():
    spaced = B.replace(b'"B"', b'"B"  ')
    with pytest.raises(InfxError, match="line 10 adds trailing whitespace") as caught:
        check(A, A + b"\n" + spaced)
    assert caught.value.problems[0].line == 10
    check(A, A + b"\n" + B)


def test_whitespace_only_line_inside_appended_entry():
    padded = B.replace(b"  pr-link", b"   \n  pr-link")
    with pytest.raises(InfxError, match="line 11 adds a whitespace-only line"):
        check(A, A + b"\n" + padded)


def test_history_trailing_whitespace_is_grandfathered():
    spaced_history = A.replace(b"900\n", b"900  \n")
    check(spaced_history, spaced_history + b"\n" + B)


def test_corrected_pr_link_may_not_end_in_spaces():
    base = block(link="XXX")
    check(base, block(link=URL + "42"))
    with pytest.raises(InfxError, match="line 5 adds trailing whitespace"):
        check(base, block(link=URL + "42 "))


def test_real_changelog_parses(upstream_dir):
    raw = (upstream_dir / "perf-changelog.yaml").read_bytes()
    parsed = parse_changelog(raw, "perf-changelog.yaml")
    assert len(parsed.entries) == 772
    assert check(raw, raw + b"\n" + B) == (1, 0)


entry_text = st.text(st.characters(codec="utf-8", exclude_characters="\ufeff\ufffe\uffff",
                                   exclude_categories=("Cs", "Cc", "Co", "Cn", "Zl", "Zp")),
                     min_size=1, max_size=30)


optional_fields = st.fixed_dictionaries({}, optional={
    "evals-only": st.booleans(),
    "all-evals": st.booleans(),
    "scenario-type": st.lists(st.sampled_from(["fixed-seq-len", "agentic-coding"]),
                              min_size=1, max_size=2),
    "eval-min-prefill-ep": st.integers(1, 16),
    "eval-concs": st.lists(st.integers(1, 4096), min_size=1, max_size=4),
})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(entry_text, min_size=1, max_size=3),
       keys=st.lists(st.from_regex(r"[a-z][a-z0-9.*-]{0,20}", fullmatch=True), min_size=1,
                     max_size=3),
       fields=optional_fields,
       link=st.sampled_from(["XXX", URL + "XXX", URL + "42"]),
       count=st.integers(1, 3))
def test_appending_any_valid_entry_validates(texts, keys, fields, link, count):
    import json

    def dump(value):
        return json.dumps(value, ensure_ascii=False)

    key_lines = "".join(f"    - {dump(k)}\n" for k in keys)
    lines = "".join(f"    - {dump(t)}\n" for t in texts)
    extra = "".join(f"  {name}: {dump(value)}\n" for name, value in fields.items())
    new = f"- config-keys:\n{key_lines}  description:\n{lines}{extra}  pr-link: {link}\n"
    head = A + b"\n" + b"\n".join([new.encode()] * count)
    assert check(A, head) == (count, 0)


HISTORY = A + b"\n" + block(key="beta-*", text="second", link=URL + "901")


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_any_byte_edit_inside_history_is_rejected(data):
    position = data.draw(st.integers(0, len(HISTORY) - 1))
    kind = data.draw(st.sampled_from(["replace", "insert", "delete"]))
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != HISTORY[position]))
    if kind == "replace":
        edited = HISTORY[:position] + bytes([byte]) + HISTORY[position + 1:]
    elif kind == "insert":
        edited = HISTORY[:position] + bytes([byte]) + HISTORY[position:]
    else:
        edited = HISTORY[:position] + HISTORY[position + 1:]
    with pytest.raises(InfxError):
        check(HISTORY, edited + b"\n" + B)


@settings(max_examples=50, deadline=None)
@given(line=st.integers(0, B.count(b"\n") - 1), pad=st.sampled_from([b" ", b"  ", b"   "]))
def test_any_trailing_whitespace_on_a_new_line_is_rejected(line, pad):
    lines = B.splitlines(keepends=True)
    lines[line] = lines[line][:-1] + pad + b"\n"
    with pytest.raises(InfxError, match="line .* adds (trailing whitespace|a whitespace-only)"):
        check(A, A + b"\n" + b"".join(lines))


# --- locations and rules mutation testing found unasserted (issue 12 item 13) ---------------


def located(raw_or_pair, pr: int | None = 42) -> tuple[str, int | None, str | None]:
    """(message, line, fix) of the strict pipeline's error on one file or a (base, head) pair."""
    with pytest.raises(InfxError) as caught:
        if isinstance(raw_or_pair, tuple):
            check(*raw_or_pair, pr)
        else:
            parse_changelog(raw_or_pair, "perf-changelog.yaml")
    problem = caught.value.problems[0]
    return problem.message, problem.line, problem.fix


def test_byte_errors_name_the_path_when_no_label_is_given():
    assert located(A[:-1])[0] == "perf-changelog.yaml does not end with a newline"
    for first, what in ((b"\t", "tabs"), (b"\r", "CR characters (CRLF line endings)")):
        message, line, _ = located(first + A)
        assert message == f"perf-changelog.yaml contains {what}, first at byte offset 0" and line == 1


def test_yaml_errors_say_what_and_how_to_fix():
    message, line, fix = located(A + b"\n- config-keys: [\n")
    assert message.startswith("the changelog is not valid YAML: ") and "invalid YAML" not in message
    assert line == 8 and fix == "fix the YAML at this line"  # where the parser gave up
    duplicate = A.replace(b"  pr-link", b"  description:\n    - x\n  pr-link")
    assert located(duplicate)[2] == "fix the YAML at this line; each field may appear once per entry"


def test_an_entry_line_that_is_not_a_mapping_is_located():
    assert located(A + b"\n- config-keys:x\n")[:2] == ("perf-changelog.yaml entry 2 is not a mapping", 7)


def test_validation_errors_point_at_the_key_or_the_entry_start():
    quoted = A.replace(b"  pr-link", b"  \"evals-only\": maybe\n  pr-link")
    assert located(quoted)[1] == 5
    missing = b"- config-keys:\n    - a\n  pr-link: XXX\n"  # no description: its own entry start
    assert located(A + b"\n" + missing + b"\n" + B)[1] == 7
    assert located(A + b"\n" + B + b"\n" + missing)[1] == 13


def test_a_bad_link_without_a_pr_link_line_points_at_its_own_entry():
    """A quoted "pr-link" key has no `pr-link:` line: the entry's first line is named, never
    the next entry's pr-link line."""
    quoted = block(link="TBD").replace(b"  pr-link:", b"  \"pr-link\":")
    assert located((A, A + b"\n" + quoted + b"\n" + B))[1] == 7
    assert located((A, A + b"\n" + B + b"\n" + quoted))[1] == 13
    parsed = parse_changelog(A + b"\n" + B, "f")
    assert (parsed.entry_line(0), parsed.pr_link_line(0), parsed.pr_link_line(1)) == (1, 5, 11)
    assert parsed.entry_line(2) is None and parsed.pr_link_line(2) is None


def test_history_errors_are_located_at_the_first_difference():
    base = b"\n" + A + b"\n" + B
    message, line, _ = located((base, base.replace(b"\"B\"", b"\"B\" ")))
    assert line == 11 and "no appended entry or pr-link correction" in message
    assert located((A, b"\n" + A))[1] == 1
    assert located((A, A + b"\n"))[1] == 6  # a longer head: the difference is where the base ends
    edited = A + b"\n" + B.replace(b"\"B\"", b"\"C\"")
    assert located((A + b"\n" + B, edited))[:2] == (
        "entry 2 changed; existing entries are immutable except for pr-link-only corrections", 7)
    assert located((A, A.replace(b"\"A\"", b"\"A2\"")))[1] == 1


def test_identical_files_are_no_change():
    assert check(A + b"\n" + B, A + b"\n" + B) == (0, 0)


def test_a_new_link_error_quotes_what_was_found():
    empty = block(link="\"\"")
    message = located((A, A + b"\n" + empty))[0]
    assert message == ("new PR entry must use 'https://github.com/SemiAnalysisAI/InferenceX/pull/42' "
                       "or an XXX placeholder; found ''")
    assert located((A, A + b"\n" + block(link="tbd")))[0].endswith("found 'tbd' ('TBD' is not a placeholder)")
    assert located((A, A + b"\n" + block(link="TBDX")))[0].endswith("found 'TBDX'")
    assert "invalid pr-link: '" + URL + "'" in located((A, A + b"\n" + block(link=URL)), pr=None)[0]


def test_the_first_of_several_corrections_is_named_when_mixed_with_additions():
    base = block(link="XXX") + b"\n" + block(text="C", link="XXX")
    head = block(link=URL + "42") + b"\n" + block(text="C", link=URL + "42") + b"\n" + B
    assert located((base, head))[:2] == (
        "do not mix historical pr-link corrections with new changelog entries", 5)


def test_appended_byte_errors_are_located():
    assert located((A, A + b"\n" + B + b"\n\n" + B))[1] == 14
    assert located((A, A + b"\n" + B + b"\n"))[1] == 12


def test_a_correction_leaves_other_historical_whitespace_alone():
    base = block(text="C", link=URL + "1").replace(b"\"C\"", b"\"C\"  ") + b"\n" + block(link="XXX")
    head = base.replace(b"pr-link: XXX", b"pr-link: " + URL.encode() + b"42")
    assert check(base, head) == (0, 1)


def test_a_correction_may_not_add_lines_or_reformat_another_link():
    base = block(link="XXX") + b"\n" + block(text="C", link=URL + "7")
    fixed = base.replace(b"pr-link: XXX", b"pr-link: " + URL.encode() + b"42")
    message = located((base, fixed + b"# note\n"))[0]
    assert message == "pr-link corrections may not add or delete lines"
    spaced = fixed.replace(URL.encode() + b"7", b" " + URL.encode() + b"7")
    assert located((base, spaced))[0] == "expected 1 changed pr-link line(s), found 2"


def test_check_bytes_names_the_path_without_a_label():
    from infx.changelog.strict import check_bytes

    with pytest.raises(InfxError) as caught:
        check_bytes(b"- config-keys: [a]", "perf-changelog.yaml")
    assert caught.value.problems[0].message == "perf-changelog.yaml does not end with a newline"


def test_validation_errors_find_the_key_inside_a_middle_or_last_entry():
    bad = block(text="M", extra="  evals-only: maybe\n")
    assert located(A + b"\n" + bad + b"\n" + B)[1] == 9
    last = block(text="L", link="900")  # an integer: the key is the file's last line
    assert located(A + b"\n" + B + b"\n" + last)[1] == 17


def test_a_quoted_tbd_with_spaces_still_gets_the_hint():
    assert located((A, A + b"\n" + block(link="\" TBD \"")))[0].endswith(
        "found ' TBD ' ('TBD' is not a placeholder)")


def test_entry_lines_are_counted_from_the_first_byte_and_only_at_line_starts():
    """A leading blank line moves every entry down; `- config-keys:` quoted inside a
    description is text, not an entry start."""
    assert parse_changelog(b"\n" + A, "perf-changelog.yaml").entry_lines == [2]
    assert parse_changelog(A + b"\n" + B, "perf-changelog.yaml").entry_lines == [1, 7]
    quoted = block(text="see - config-keys: x")
    assert parse_changelog(quoted + b"\n" + quoted, "perf-changelog.yaml").entry_lines == [1, 7]


def test_trailing_whitespace_on_the_first_line_after_the_separator_is_located():
    spaced = B.replace(b"- config-keys:\n", b"- config-keys:  \n")
    with pytest.raises(InfxError, match="line 7 adds trailing whitespace") as caught:
        check(A, A + b"\n" + spaced)
    assert caught.value.problems[0].line == 7


def test_a_single_space_line_inside_an_appended_entry_is_located():
    padded = B.replace(b"  pr-link", b" \n  pr-link")
    with pytest.raises(InfxError, match="line 11 adds a whitespace-only line"):
        check(A, A + b"\n" + padded)


def test_a_valid_changelog_over_the_node_cap_names_the_cap_not_the_yaml(monkeypatch):
    monkeypatch.setenv("INFX_MAX_YAML_NODES", "20")
    with pytest.raises(InfxError) as caught:
        parse_changelog(A + b"\n" + B + b"\n" + B.replace(b'"B"', b'"C"'), "perf-changelog.yaml")
    (problem,) = caught.value.problems
    assert problem.file == "perf-changelog.yaml"
    assert "not valid YAML" not in problem.message and "fix the YAML" not in problem.fix
    assert problem.message == "YAML document has more than 20 nodes (the yaml_limits.document_nodes cap)"
    assert "`document_nodes` under `yaml_limits:` in infx/limits.yaml" in problem.fix


def test_a_changelog_over_the_size_cap_names_the_cap(monkeypatch):
    monkeypatch.setenv("INFX_MAX_YAML_BYTES", "100")
    with pytest.raises(InfxError) as caught:
        parse_changelog(A + b"\n" + B, "perf-changelog.yaml")
    (problem,) = caught.value.problems
    assert "limited to 100 bytes (the yaml_limits.file_bytes cap)" in problem.message
    assert "`file_bytes` under `yaml_limits:` in infx/limits.yaml" in problem.fix
