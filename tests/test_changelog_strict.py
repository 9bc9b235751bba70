"""Strict changelog contract: parsing, entry comparison and raw byte rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infx.changelog.strict import (
    check_new_whitespace,
    compare_entries,
    parse_changelog,
    validate_raw_change,
)
from infx.errors import InfxError

URL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"


def block(key="alpha-fp8-h100-vllm", text="Bump image", link="XXX", extra=""):
    return (f"- config-keys:\n    - {key}\n{extra}  description:\n    - \"{text}\"\n"
            f"  pr-link: {link}\n").encode()


A = block(text="A", link=URL + "900")
B = block(text="B")


def check(base: bytes, head: bytes, pr: int | None = 42):
    """The full strict pipeline; returns (additions, corrections)."""
    old = parse_changelog(base, "perf-changelog.yaml", "base")
    new = parse_changelog(head, "perf-changelog.yaml", "head")
    change = compare_entries(old, new, pr)
    validate_raw_change(base, head, change, "perf-changelog.yaml")
    check_new_whitespace(base, head, change, "perf-changelog.yaml")
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
     "has 1 top-level config entries but YAML parsed 2 entries", None),
    (A.replace(b"  pr-link", b"  description:\n    - x\n  pr-link"), "duplicate key", 5),
    (b"config-keys: [a]\n", "root must be a YAML list", 1),
    (b"- config-keys: [a]\n- 3\n", "has 1 top-level config entries", None),
    (A.replace(b"  pr-link", b"  evals-only: maybe\n  pr-link"),
     "entry 1 fails ChangelogEntry validation", 5),
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
