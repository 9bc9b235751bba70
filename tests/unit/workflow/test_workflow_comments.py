"""infx.workflow.comments: the welcome text and the results-link rule."""

from __future__ import annotations

from infx.workflow.comments import (
    SIGNOFF_PHRASE,
    results_link_body,
    should_update_results_link,
    welcome_body,
)


def test_welcome_is_english_then_chinese_with_the_essentials():
    body = welcome_body("acme/inferencex")
    english, chinese = body.split("\n---\n")
    for text in (english, chinese):
        assert SIGNOFF_PHRASE in text
        assert "full-sweep-fail-fast" in text and "full-sweep-enabled" in text and "sweep-enabled" in text
        assert "/use <run_id>" in text
    assert "Thanks for opening this PR" in english and "感谢" in chinese
    assert "https://github.com/acme/inferencex/blob/main/PR_REVIEW_CHECKLIST.md" in english
    assert "post-merge CI" in english and "合并之后" in chinese
    assert SIGNOFF_PHRASE == "As a PR reviewer and CODEOWNER, I have reviewed this and have:"


def test_results_link():
    body = results_link_body(36233199454)
    assert "inference?unofficialRun=36233199454" in body and "evaluation?unofficialRun=36233199454" in body
    assert should_update_results_link(None, 5)
    assert should_update_results_link(5, 5) and should_update_results_link(5, 6)
    assert not should_update_results_link(6, 5)
