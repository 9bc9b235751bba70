"""infx.commands.registry: the welcome text and `/help` come from the table; who may use each
command is the decision the command's handler makes; near-misses and what they suggest."""

from __future__ import annotations

import pytest

from infx.commands import registry
from infx.commands.authorization import Authority
from infx.commands.registry import COMMANDS, help_body, holds_command, near_misses, welcome_lines
from infx.inert import code, render_inert
from infx.retest.failed import rejection
from infx.signoff.rules.bypass import is_admin
from infx.signoff.trigger.binding import dispatch_problem
from infx.workflow.comments import welcome_body

ROLES = ("admin", "maintain", "write", "triage", "read", "none")
# the collaborator permission API's (permission, role_name) for each built-in role
RECORD = {"admin": ("admin", "admin"), "maintain": ("write", "maintain"), "write": ("write", "write"),
          "triage": ("read", "triage"), "read": ("read", "read"), "none": ("none", "none")}


def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("  - ")]


def test_the_welcome_lists_every_command_from_the_registry_in_both_languages():
    english, chinese = welcome_body("acme/inferencex").split("\n---\n")
    assert _bullets(english) == welcome_lines() and _bullets(chinese) == welcome_lines(chinese=True)
    assert len(welcome_lines()) == len(COMMANDS)
    for entry in COMMANDS:
        for text in (english, chinese):
            assert all(f"`{usage}`" in text for usage in entry.usages), entry.kind
        assert entry.who in english and entry.who_zh in chinese
    assert "`/retest-failed`" in english and "`/retest`" in english  # the gap the issue found


def test_help_is_one_table_row_per_command_with_who_what_and_examples():
    body = help_body()
    english, chinese = body.split("\n---\n")
    rows = [line for line in english.splitlines() if line.startswith("| `/")]
    assert len(rows) == len(COMMANDS)
    for row, entry in zip(rows, COMMANDS, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells == [" or ".join(f"`{u}`" for u in entry.usages), entry.who, entry.help,
                         "<br>".join(f"`{e}`" for e in entry.examples)]
    rows_zh = [line for line in chinese.splitlines() if line.startswith("| `/")]
    assert [r.split("|")[2].strip() for r in rows_zh] == [e.who_zh for e in COMMANDS]
    assert registry.RULE in english and registry.RULE_ZH in chinese


def test_help_never_holds_a_command_line_of_its_own():
    """The help comment quotes every command in code spans: read back, it holds none."""
    body = help_body()
    assert not any(holds_command(body, entry.kind) for entry in COMMANDS)
    assert near_misses(body) == ()


@pytest.mark.parametrize("entry", COMMANDS, ids=lambda e: e.kind)
def test_every_example_is_its_own_command_and_no_other(entry):
    for example in entry.examples:
        assert holds_command(example, entry.kind), example
        assert [e.kind for e in COMMANDS if holds_command(example, e.kind)] == [entry.kind]
        assert near_misses(example) == ()
        assert not holds_command(f"```\n{example}\n```", entry.kind)  # rendered text only
        assert not holds_command(f"> {example}", entry.kind)


def test_command_words_are_unique():
    words = [name for entry in COMMANDS for name in entry.names]
    assert len(words) == len(set(words))
    assert {e.kind for e in COMMANDS} == {"reuse", "retest", "bypass", "approve-sweep", "help", "reverify"}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_use_each_command_is_what_its_handler_decides(role):
    permission, role_name = RECORD[role]
    record = {"permission": permission, "role_name": role_name}
    decided = {
        "reuse": Authority.of(record).can_write,
        "retest": rejection("someone", "User", record) is None,
        "bypass": is_admin(record),
        "approve-sweep": Authority.of(record).elevated,  # infx.commands.fork_approval.approval
        "help": True,
        # besides the signer (who may always re-verify their own sign-off)
        "reverify": dispatch_problem("someone", "the-signer", record) is None,
    }
    listed = {e.kind: (not e.roles or role in e.roles) for e in COMMANDS}
    assert listed == decided


def test_bots_are_refused_whatever_the_role():
    assert rejection("ci[bot]", "Bot", {"permission": "admin", "role_name": "admin"}) is not None


# ---- near-misses ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "suggested"), [
    ("/reuse", "/reuse-sweep-run [run_id]"),
    ("/retest-all", "/retest-failed"),
    ("/use", "/use <run_id>"),
    ("/use abc", "/use <run_id>"),
    ("  /use  ", "/use <run_id>"),
    ("/reuse-sweep-run latest", "/reuse-sweep-run [run_id]"),
    ("/retset-failed", "/retest-failed"),  # two letters swapped: distance 2
    ("/reuse-sweep-rnu 5", "/reuse-sweep-run [run_id]"),
    ("/retest-faild", "/retest-failed"),
    ("/retests", "/retest"),
    ("/hlep", "/help"),
    ("/Help", "/help"),
    ("/RETEST", "/retest"),
    ("/help me", "/help"),
    ("/pareto-bypass abc123", "/pareto-bypass <sha>"),
    ("/approve-sweep", "/approve-sweep <sha>"),
    ("/approve-sweep abc123", "/approve-sweep <sha>"),  # the full sha only
    ("/aprove-sweep " + "a" * 40, "/approve-sweep <sha>"),
    ("Flaky.\n\n/retest-al", "/retest-failed"),
])
def test_near_misses_suggest_the_command(body, suggested):
    (miss,) = near_misses(body)
    assert miss.usage == suggested
    shown = render_inert(miss.suggestion)
    assert shown.startswith("`") and shown.endswith(f"did you mean `{suggested}`?")


@pytest.mark.parametrize("body", [
    "/retest", "/retest-failed", "/use 5", "/reuse-sweep-run", "/reuse-sweep-run 42", "/help",
    f"/pareto-bypass {'a' * 40}",
    "lgtm", "see /usr/local/bin", "/usr/local/bin/python", "/lgtm", "/approve", "/assign @me",
    "/rerun",  # farther than 2 from every command
    "> /reuse", "`/reuse`", "```\n/use\n```", "<!--\n/retest-all\n-->", "- /hlep",
    "please /reuse", "/", "/123",
])
def test_commands_and_other_lines_are_no_near_miss(body):
    assert near_misses(body) == ()


def test_one_comment_can_hold_several_near_misses_and_a_command():
    misses = near_misses("/retest\n\n/reuse\n\n/hlep")
    assert [m.usage for m in misses] == ["/reuse-sweep-run [run_id]", "/help"]
    assert holds_command("/retest\n\n/reuse\n\n/hlep", "retest")


def test_hostile_text_in_a_near_miss_stays_one_code_span():
    typed = "/reuse @org/core #12 :smile: <x"  # plain text as rendered
    (miss,) = near_misses(typed)
    shown = render_inert(miss.suggestion)
    span = render_inert(code(typed))
    assert span == f"`{typed}`"  # a code span: no mention, reference, emoji or tag
    assert shown == f"{span} is not a command as written (no command is spelled so); did you mean " \
                    "`/reuse-sweep-run [run_id]`?"


@pytest.mark.parametrize(("a", "b", "d"), [
    ("", "", 0), ("a", "", 1), ("help", "hlep", 2), ("retest", "retset", 2), ("use", "usr", 1),
    ("kitten", "sitting", 3), ("abc", "abcdef", 3),
])
def test_distance_is_levenshtein_capped_above_two(a, b, d):
    assert registry.distance(a, b) == min(d, registry.NEAR_MISS_DISTANCE + 1)
    assert registry.distance(b, a) == registry.distance(a, b)
