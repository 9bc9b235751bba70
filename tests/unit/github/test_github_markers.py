"""Hidden comment markers: building, parsing, matching."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.github.markers import (
    Marker,
    as_marker,
    first_line_marker,
    has_marker,
    make_marker,
    parse_markers,
    with_marker,
)


def test_marker_text_with_fields():
    assert make_marker("codeowner-signoff-verify", sha="abc123").text == (
        "<!-- codeowner-signoff-verify sha=abc123 -->")
    assert str(Marker("recipe-reminder")) == "<!-- recipe-reminder -->"


def test_parse_markers_finds_every_marker_in_order():
    body = "<!-- a -->\ntext <!-- b sha=1 run=2 --> more"
    assert parse_markers(body) == [Marker("a"), Marker("b", {"sha": "1", "run": "2"})]


def test_ordinary_html_comments_with_prose_are_not_markers():
    assert parse_markers("<!-- please describe your change here -->") == []


def test_name_pattern_matches_any_fields_but_fields_must_agree():
    body = "<!-- codeowner-signoff-verify sha=abc -->\n## Verdict"
    assert has_marker(body, "codeowner-signoff-verify")
    assert has_marker(body, make_marker("codeowner-signoff-verify", sha="abc"))
    assert not has_marker(body, make_marker("codeowner-signoff-verify", sha="def"))
    assert not has_marker(body, "other")


def test_first_line_only():
    quoted = "> quoting the bot\n<!-- codeowner-signoff-verify -->"
    assert has_marker(quoted, "codeowner-signoff-verify")
    assert not has_marker(quoted, "codeowner-signoff-verify", first_line=True)
    assert first_line_marker("<!-- x k=v -->\nbody") == Marker("x", {"k": "v"})
    assert first_line_marker("") is None


def test_with_marker_prepends_once():
    once = with_marker("hello", "welcome")
    assert once == "<!-- welcome -->\nhello"
    assert with_marker(once, "welcome") == once


def test_as_marker_accepts_text_names_and_markers():
    assert as_marker("<!-- a k=v -->") == Marker("a", {"k": "v"})
    assert as_marker("a") == Marker("a")
    assert as_marker(Marker("a")) == Marker("a")


@pytest.mark.parametrize("name,fields", [("has space", {}), ("ok", {"k": "two words"}),
                                         ("ok", {"k": "a>b"}), ("-x", {})])
def test_invalid_markers_are_rejected(name, fields):
    with pytest.raises(ValueError):
        Marker(name, fields)


names = st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True)
values = st.from_regex(r"[A-Za-z0-9_.:/-]{1,20}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(names, st.dictionaries(names, values, max_size=3), st.text(max_size=80))
def test_roundtrip_through_a_comment_body(name, fields, prose):
    marker = Marker(name, fields)
    body = with_marker(prose, marker)
    assert first_line_marker(body) == marker
    assert has_marker(body, marker, first_line=True)
