"""infx.commands.rendered (and the grammar on top of it): commands count only as rendered text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.commands.grammar import REUSE_COMMAND, USE_ALIAS, ReuseCommand, parse_command
from infx.commands.rendered import plain_lines

PIN = ReuseCommand(REUSE_COMMAND, 5)

# Each hides (or disowns) the command "/reuse-sweep-run 5" while keeping it a whole source line
# wherever Markdown allows, which is what the raw-line grammar alone used to accept.
HOSTILE = {
    "html comment": "Thanks!\n<!--\n/reuse-sweep-run 5\n-->\n",
    "html comment, one line": "<!-- /reuse-sweep-run 5 -->",
    "inline html comment in a paragraph": "ok <!--\n/reuse-sweep-run 5\n-->",
    "fenced code": "```\n/reuse-sweep-run 5\n```",
    "tilde fence": "~~~text\n/reuse-sweep-run 5\n~~~",
    "unclosed fence": "```\n/reuse-sweep-run 5",
    "indented code": "text\n\n    /reuse-sweep-run 5\n",
    "inline code": "`/reuse-sweep-run 5`",
    "multi-line inline code": "`x\n/reuse-sweep-run 5\n`",
    "block quote": "> /reuse-sweep-run 5",
    "lazy quote continuation": "> quoted\n/reuse-sweep-run 5",
    "nested quote": "> > /reuse-sweep-run 5",
    "hidden span": "x <span hidden>\n/reuse-sweep-run 5\n</span>",
    "details block html": "<details>\n/reuse-sweep-run 5\n</details>",
    "strike-through": "~~/reuse-sweep-run 5~~",
    "emphasis": "*/reuse-sweep-run 5*",
    "link text": "[/reuse-sweep-run 5](https://example.com)",
    "heading": "# /reuse-sweep-run 5",
    "setext heading": "/reuse-sweep-run 5\n===",
    "table cell": "| a |\n|---|\n| /reuse-sweep-run 5 |",
    "list item": "-\n  /reuse-sweep-run 5",
    "task list": "- [ ] /reuse-sweep-run 5",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_fixture_holds_no_command(name):
    assert parse_command(HOSTILE[name]) is None, name


@pytest.mark.parametrize("body", [
    "/reuse-sweep-run 5",
    "Sweep looks fine.\n/reuse-sweep-run 5\nthanks",
    "Sweep looks fine.\n\n/reuse-sweep-run 5\n",
    "line with a hard break  \n/reuse-sweep-run 5",
    "<!-- a hidden note -->\n\n/reuse-sweep-run 5",
    "```\n/use 9\n```\n\n/reuse-sweep-run 5",
    "/reuse-sweep-run 5\r\n",
])
def test_visible_commands_count(body):
    assert parse_command(body) == PIN


def test_the_last_visible_line_wins_over_a_later_hidden_one():
    assert parse_command("/use 7\n\n<!--\n/reuse-sweep-run 5\n-->") == ReuseCommand(USE_ALIAS, 7)
    assert parse_command("/use 7\n\n> /reuse-sweep-run 5") == ReuseCommand(USE_ALIAS, 7)


def test_a_character_reference_alone_is_not_a_typed_command():
    assert plain_lines("&#47;reuse-sweep-run 5") == ["/reuse-sweep-run 5"]
    assert parse_command("&#47;reuse-sweep-run 5") is None


def test_plain_lines_of_a_mixed_comment():
    body = "# Title\n\nfirst *em* line\nsecond line\n\n> quoted\n\n```\ncode\n```\n\nlast"
    assert plain_lines(body) == ["second line", "last"]
    assert plain_lines(None) == [] and plain_lines("a\x00b") == ["a\ufffdb"]


# ---- properties -----------------------------------------------------------------------------

_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.", min_size=1, max_size=40).map(str.strip).filter(bool)
_commands = st.one_of(
    st.builds(lambda n: ReuseCommand(USE_ALIAS, n), st.integers(0, 10**12)),
    st.builds(lambda n: ReuseCommand(REUSE_COMMAND, n), st.one_of(st.none(), st.integers(0, 10**12))))
_paragraphs = st.lists(_words, min_size=0, max_size=4).map("\n".join)


def _wrap(kind: str, line: str) -> str:
    return {"comment": f"<!--\n{line}\n-->", "fence": f"```\n{line}\n```",
            "indent": f"    {line}", "code": f"`{line}`", "quote": f"> {line}",
            "strike": f"~~{line}~~", "span": f"x <span hidden>\n{line}\n</span>"}[kind]


_kinds = st.sampled_from(["comment", "fence", "indent", "code", "quote", "strike", "span"])


@settings(max_examples=150, deadline=None)
@given(before=_paragraphs, command=_commands, kind=_kinds, after=_paragraphs)
def test_a_hidden_command_never_counts(before, command, kind, after):
    body = "\n\n".join(part for part in (before, _wrap(kind, str(command)), after) if part)
    assert parse_command(body) is None


@settings(max_examples=150, deadline=None)
@given(before=_paragraphs, command=_commands, after=_paragraphs)
def test_a_command_paragraph_always_counts(before, command, after):
    body = "\n\n".join(part for part in (before, str(command), after) if part)
    assert parse_command(body) == command


@settings(max_examples=150, deadline=None)
@given(visible=st.one_of(st.just(""), _commands.map(str)), hidden=_commands, kind=_kinds,
       first=st.booleans())
def test_hidden_text_never_changes_the_decision(visible, hidden, kind, first):
    parts = [visible, _wrap(kind, str(hidden))]
    body = "\n\n".join(p for p in (parts[::-1] if first else parts) if p)
    assert parse_command(body) == parse_command(visible)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.one_of(_words, _commands.map(str)), min_size=1, max_size=6))
def test_quoting_a_whole_comment_disowns_its_commands(lines):
    assert parse_command("\n".join("> " + line for line in lines)) is None


def test_deep_nesting_is_followed_exactly():
    assert parse_command("> " * 500 + "/use 1") is None
    assert parse_command("> " * 300 + "x\n\n/use 1") == ReuseCommand(USE_ALIAS, 1)
    assert parse_command("- " * 300 + "x\n\n/use 1") == ReuseCommand(USE_ALIAS, 1)
    assert parse_command("- a\n\n  - b\n\n    /use 1\n") is None  # a paragraph inside a list item
    assert parse_command("1. a\n\n   /use 1\n\n/use 2") == ReuseCommand(USE_ALIAS, 2)
