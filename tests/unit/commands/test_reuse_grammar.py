"""Tests for infx.commands.grammar: command lines and the newest authorized request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.commands.grammar import (
    REUSE_COMMAND,
    USE_ALIAS,
    ReuseCommand,
    commands_newest_first,
    mentions_command,
    parse_command,
    parse_line,
    raw_commands,
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/reuse-sweep-run", ReuseCommand(REUSE_COMMAND, None)),
        ("  /reuse-sweep-run  ", ReuseCommand(REUSE_COMMAND, None)),
        ("/reuse-sweep-run 123", ReuseCommand(REUSE_COMMAND, 123)),
        ("\t/reuse-sweep-run\t0042\t", ReuseCommand(REUSE_COMMAND, 42)),
        ("/reuse-sweep-run 77\r", ReuseCommand(REUSE_COMMAND, 77)),
        ("/use 42", ReuseCommand(USE_ALIAS, 42)),
        (" /use   0042 ", ReuseCommand(USE_ALIAS, 42)),
        ("/use 35873197630\r", ReuseCommand(USE_ALIAS, 35873197630)),
    ],
)
def test_valid_lines(line, expected):
    assert parse_line(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "/use",
        "/use ",
        "/useful 42",
        "/use nope",
        "/use -1",
        "/use 42 extra",
        "x /use 42",
        "/reuse-sweep-run -5",
        "/reuse-sweep-run 12 please",
        "please run /reuse-sweep-run 111 after merge",
        "/reuse-sweep-runs",
        "/reuse-sweep-run12",
        "/use42",
        "/use ４２",  # full-width digits are not run ids
        "`/reuse-sweep-run`",
        "> /reuse-sweep-run",
        "",
    ],
)
def test_rejected_lines(line):
    assert parse_line(line) is None


def test_id_on_next_line_is_not_a_pin():
    assert parse_command("/use\n42") is None
    assert parse_command("/reuse-sweep-run\n42") == ReuseCommand(REUSE_COMMAND, None)


def test_last_valid_line_in_a_comment_wins():
    body = "/reuse-sweep-run 1\r\nsome text\r\n/use 2\r\n/use nope\r\n"
    assert parse_command(body) == ReuseCommand(USE_ALIAS, 2)
    assert parse_command("/use 5\n/reuse-sweep-run") == ReuseCommand(REUSE_COMMAND, None)


def test_empty_or_missing_body():
    assert parse_command(None) is None
    assert parse_command("") is None


def test_command_str_and_pinned():
    assert str(ReuseCommand(USE_ALIAS, 9)) == "/use 9"
    assert str(ReuseCommand(REUSE_COMMAND, None)) == "/reuse-sweep-run"
    assert ReuseCommand(USE_ALIAS, 9).pinned
    assert not ReuseCommand(REUSE_COMMAND, None).pinned


def test_mentions_command_prefilter():
    assert mentions_command("please /reuse-sweep-run later")
    assert mentions_command("/useful")
    assert not mentions_command("nothing here")
    assert not mentions_command(None)


@dataclass
class C:
    body: str
    author_association: str
    created_at: str


def newest_authorized(comments):
    """The newest command comment, whoever wrote it (authorization decides who counts)."""
    return next(commands_newest_first(comments), None)


def test_the_grammar_lists_commands_newest_first_and_judges_no_author():
    comments = [
        C("/reuse-sweep-run 111", "OWNER", "2026-01-01T00:00:00Z"),
        C("/reuse-sweep-run", "OWNER", "2026-01-02T00:00:00Z"),
        C("/reuse-sweep-run 222", "CONTRIBUTOR", "2026-01-03T00:00:00Z"),
        C("thanks", "OWNER", "2026-01-04T00:00:00Z"),
    ]
    found = list(commands_newest_first(comments))
    assert [f.comment for f in found] == [comments[2], comments[1], comments[0]]
    assert found[1].command == ReuseCommand(REUSE_COMMAND, None)
    comments.append(C("/use 333", "COLLABORATOR", "2026-01-05T00:00:00Z"))
    assert newest_authorized(comments).command == ReuseCommand(USE_ALIAS, 333)


def test_newest_authorized_sorts_by_created_at_not_position():
    comments = [
        C("/use 2", "MEMBER", "2026-02-01T00:00:00Z"),
        C("/use 1", "MEMBER", "2026-01-01T00:00:00Z"),
    ]
    assert newest_authorized(comments).command.run_id == 2


def test_newest_authorized_accepts_mappings_and_datetimes():
    comments = [
        {"body": "/use 5", "author_association": "OWNER",
         "created_at": datetime(2026, 1, 2, tzinfo=timezone.utc)},
        {"body": "/use 4", "author_association": "OWNER", "created_at": "2026-01-01T00:00:00Z"},
    ]
    assert newest_authorized(comments).command.run_id == 5


def test_newest_authorized_none_without_a_command():
    assert newest_authorized([]) is None
    assert newest_authorized([C("please /use 1", "OWNER", "2026-01-01T00:00:00Z"),
                              C("lgtm", "OWNER", "2026-01-02T00:00:00Z")]) is None


# ---- properties -------------------------------------------------------------------

_hspace = st.text(alphabet=" \t", max_size=3)
_ids = st.integers(min_value=0, max_value=10**12)


@settings(max_examples=100, deadline=None)
@given(_hspace, _hspace, _hspace, _ids, st.integers(min_value=0, max_value=3), st.booleans())
def test_property_well_formed_pins_round_trip(lead, mid, trail, run_id, zeros, use_alias):
    mid = mid or " "
    name = USE_ALIAS if use_alias else REUSE_COMMAND
    line = f"{lead}{name}{mid}{'0' * zeros}{run_id}{trail}"
    assert parse_line(line) == ReuseCommand(name, run_id)
    assert parse_line(line + "\r") == ReuseCommand(name, run_id)


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1).map(lambda s: s.replace("\n", " ").replace("\r", " "))
       .filter(lambda s: s.strip(" \t") != ""), _ids)
def test_property_prefixed_text_never_matches(text, run_id):
    # newlines are flattened first, so the prefix is real text on the same line, never blank
    assert parse_line(f"{text} /use {run_id}") is None
    assert parse_line(f"{text} /reuse-sweep-run") is None


_PLAIN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 ,.", max_size=30)
_CANDIDATES = st.sampled_from(["/use 7", "/reuse-sweep-run", "/reuse-sweep-run 9", "/use", "/useful 1"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(_PLAIN, _CANDIDATES), max_size=8))
def test_property_last_valid_line_wins(lines):
    # plain-text filler: every source line is also a rendered line (Markdown cases are in
    # test_reuse_rendered.py)
    body = "\n".join(lines)
    expected = None
    for line in body.split("\n"):
        parsed = parse_line(line)
        if parsed is not None:
            expected = parsed
    assert parse_command(body) == expected
    if expected is not None:
        assert mentions_command(body)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "NONE"]),
                          st.sampled_from(["/use 1", "/use 2", "/reuse-sweep-run", "hello"]),
                          st.integers(min_value=0, max_value=50)), max_size=10))
def test_property_newest_authorized_is_maximal(rows):
    comments = [C(body, assoc, f"2026-01-01T00:{minute:02d}:00Z") for assoc, body, minute in rows]
    found = newest_authorized(comments)
    candidates = [(c.created_at, i) for i, c in enumerate(comments)
                  if parse_command(c.body)]
    if not candidates:
        assert found is None
    else:
        _, index = max(candidates)
        assert found.comment is comments[index]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=30), _CANDIDATES), max_size=8))
def test_property_a_command_is_always_a_typed_whole_line(lines):
    # whatever Markdown the text holds, a recognised command is one of the body's own lines
    body = "\n".join(lines)
    found = parse_command(body)
    assert found is None or found in raw_commands(body)


@pytest.mark.parametrize("line", [
    "/reuse-sweep-run \u0663\u0664",  # Arabic-Indic digits
    "/reuse-sweep-run \uff14\uff12",  # full-width digits
    "/use \u0664\u0662", "/use 4\u0662",
    "/reuse-sweep-run\x0c42", "/reuse-sweep-run 42\x0b", "/reuse-sweep-run\u00a0",
    "/use\u00a042", "/use 42\u3000", "/use\x1f42",
])
def test_only_ascii_digits_and_horizontal_space_make_a_command(line):
    """Python's \\d and \\s would accept Unicode digits and other separators."""
    assert parse_line(line) is None


def test_raw_commands_lists_only_command_lines():
    assert raw_commands("hello\n/use 5\nnot /use 6\n/reuse-sweep-run") == [
        ReuseCommand(USE_ALIAS, 5), ReuseCommand(REUSE_COMMAND, None)]


def test_a_command_shown_only_by_rendering_does_not_count():
    """`/use&#32;7` renders as `/use 7` but was never typed as a line: the typed one wins."""
    assert parse_command("/use 5\n\n/use&#32;7") == ReuseCommand(USE_ALIAS, 5)


def test_newest_authorized_compares_instants_across_offsets_and_missing_dates():
    comments = [
        {"body": "/use 1", "author_association": "OWNER", "created_at": "2026-01-01T12:00:00+02:00"},
        {"body": "/use 2", "author_association": "OWNER", "created_at": "2026-01-01T11:00:00Z"},
        {"body": "/use 3", "author_association": "OWNER", "created_at": datetime(2026, 1, 1, 10, 30)},
        {"body": "/use 4", "author_association": "OWNER", "created_at": None},
        {"body": "/use 5", "author_association": "OWNER", "created_at": "not a date"},
        {"body": "/use 6", "author_association": "OWNER", "created_at": 17},
    ]
    assert newest_authorized(comments).command.run_id == 2  # 10:00Z < 10:30 (naive = UTC) < 11:00Z
    undated = [c for c in comments if not isinstance(c["created_at"], str | datetime)]
    assert newest_authorized(undated).command.run_id == 6  # no date: input order decides
