"""Untrusted text in verdict rows renders inert under GitHub's own renderer (cmark-gfm):
the comment shows only the bot's structure and mentions, for a corpus of injections."""

from __future__ import annotations

import re

import pytest
from lib.comment_html import BOT_TAGS, MENTION, REFERENCE, SHORTCODE, rendered

from infx import inert
from infx.signoff import render
from infx.signoff.model import Outcome, Status
from infx.signoff.table import load_table
from infx.signoff.verdict import from_outcomes

REPO = "acme/bench"
MARKER = "codeowner-signoff-verify"
SIGNER = "alice"
CORPUS = (
    "</details><h1>&#x2705; PASS</h1>@SemiAnalysisAI/core",
    "<!-- codeowner-signoff-verify sha=0000000000000000000000000000000000000000 evidence=00 -->",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<a href='https://evil.example'>run</a>",
    "&#64;SemiAnalysisAI/core &commat;octocat &#x40;bob",
    "@octocat and @SemiAnalysisAI/core and @@double",
    "\\@escaped <@angle> [@linked](https://evil.example)",
    "[click](https://evil.example) ![img](https://evil.example/x.png)",
    "[ref]: https://evil.example",
    "<https://evil.example> https://evil.example www.evil.example",
    "javascript:alert(1) [x](javascript:alert(1))",
    "**bold** __bold__ *em* _em_ ~~strike~~",
    "`code` ``double`` ```fence```",
    "\n# Heading\n## ✅✅✅ **Verdict: PASS** ✅✅✅\n",
    "\n- [x] checked\n> quote\n---\n",
    "| a | b |\n|---|---|\n| c | d |",
    ":white_check_mark: :x: :warning: :+1:",
    "closes #1 fixes acme/other#2 GH-3",
    "\ue000@octocat\ue001 \ue002x\ue003https://evil.example\ue004",
    "\ue002ok\ue003https://github.com/acme/bench/../../evil/repo\ue004",
    "\u202egnp.exe \u200b@\u200bzero-width",
    "a\\\nb  \nc",
    "✅ Check 3 (Recipe linked/merged): PASS — forged",
    "&lt;h1&gt; &amp;lt; &#0; &#xD800;",
)


def body(reason: str, status: Status = Status.FAIL, check: str = "chat") -> str:
    table = load_table()
    outcomes = {spec.id: Outcome(Status.PASS if Status.PASS in spec.statuses else Status.NA, "fine.")
                for spec in table.checks}
    outcomes[check] = Outcome(status, f"script.sh:8: {reason}", (f"detail {reason}",))
    context = render.Context(marker=MARKER, assessed_sha="a" * 40, signer=SIGNER,
                             evidence_digest="0123456789abcdef", repo=REPO)
    return render.render(from_outcomes(table, outcomes), context)


@pytest.mark.parametrize("status", [Status.FAIL, Status.PASS])
@pytest.mark.parametrize("injection", CORPUS)
def test_injection_renders_only_the_bots_structure(injection, status) -> None:
    text = body(injection, status)
    assert render.validate(text, load_table(), MARKER) == []
    html = rendered(text)
    assert set(html.tags) <= BOT_TAGS | {"!--"}
    assert html.tags.count("!--") == 1 and html.tags.count("h2") == 1
    assert html.tags.count("details") == 1 and html.tags.count("summary") == 1
    assert all(href.startswith(f"https://github.com/{REPO}/") and ".." not in href for href in html.hrefs)
    shown = "".join(html.text)
    allowed = {f"@{SIGNER}"} if status is Status.FAIL else set()
    assert set(MENTION.findall(shown)) <= allowed
    assert not REFERENCE.findall(shown) and not SHORTCODE.findall(shown)
    header = 6 if status is Status.PASS else 0  # ## ✅✅✅ **Verdict: PASS** ✅✅✅
    assert shown.count("✅") == text.count("\n✅ Check") + header  # no forged status emoji


@pytest.mark.parametrize("injection", CORPUS)
def test_injection_text_stays_readable(injection) -> None:
    """Inert is not erased: the words still show, as plain text."""
    html = rendered(inert.plain(injection))
    shown = "".join(html.text).replace("\u200b", "")
    words = re.findall(r"[A-Za-z]{4,}", inert.unwrap(injection))
    assert all(word in shown for word in words)
    assert html.tags in ([], ["p"])


def test_the_bots_own_code_and_links_render() -> None:
    reason = (f"post {inert.code('/use <run_id>')} or see "
              f"{inert.link('run 7', f'https://github.com/{REPO}/actions/runs/7')}")
    html = rendered(inert.render_inert(reason, REPO))
    assert html.tags == ["p", "code", "a"] and html.hrefs == [f"https://github.com/{REPO}/actions/runs/7"]


def test_code_spans_survive_backticks_inside() -> None:
    html = rendered(inert.render_inert(inert.code("a ``b` c"), REPO))
    assert html.tags == ["p", "code"]


def test_links_outside_the_repository_are_plain_text() -> None:
    html = rendered(inert.render_inert(inert.link("x", "https://github.com/evil/repo"), REPO))
    assert html.tags == ["p"] and html.hrefs == []


def test_unwrap_gives_markdown_source_for_json() -> None:
    assert inert.unwrap(f"see {inert.link('r', 'https://x/y')} and {inert.code('a')}") == \
        "see [r](https://x/y) and `a`"


# ---- every renderer of untrusted text, against generated hostile strings (tests/lib/inert_oracle.py) ----

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lib import inert_oracle as oracle  # noqa: E402

_HOSTILE = st.lists(st.one_of(
    st.sampled_from(oracle.TRIGGERS),
    st.tuples(st.sampled_from(oracle.PUNCTUATION), st.sampled_from(oracle.TRIGGERS)).map("".join),
    st.text(max_size=3)), min_size=1, max_size=12).map("".join)


@pytest.mark.parametrize("renderer", sorted(oracle.RENDERERS))
@settings(max_examples=40, deadline=None)
@given(text=_HOSTILE)
def test_generated_hostile_text_renders_no_structure_the_product_did_not_write(renderer, text) -> None:
    assert oracle.problems(oracle.RENDERERS[renderer], text) == []


def test_www_after_an_underscore_is_no_link_and_lets_no_html_through() -> None:
    """GitHub autolinks `www.` after `_`, `*`, `~`, `(`; the link swallowed the backslash that
    escaped `<`, and a forged PASS badge rendered in the verdict table."""
    hostile = "a_www.x!<img src=//img.shields.io/badge/verdict-PASS-green>"
    assert oracle.problems(oracle.verdict_rows, hostile) == []
    for before in "_*~(":
        html = rendered(inert.plain(f"a{before}www.example.com <img src=x>"))
        assert html.tags == ["p"] and html.hrefs == []


def test_a_pipe_in_a_task_name_does_not_spoof_the_score_and_floor_columns() -> None:
    hostile = "gsm8k | 0.9900 | 0.1000 | default.gsm8k"
    assert oracle.problems(oracle.report_tables, hostile) == []
    cells = oracle.rendered(oracle.report_tables(hostile)).cells
    assert hostile in ["".join(c).strip() for c in cells]  # the whole name stays in its own cell
