"""Parsing sign-off comments and the checklist template."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff.trigger import checklist

BODY = """As a PR reviewer and CODEOWNER, I have reviewed this and have:
- [x] First item with a [link](https://example.com).
- [X] Second item
- [ ] Third item
  - [ ] Nested item
* [x] Star bullet

### Additional detail section:
- the recipe is documented upstream
- [x] not an item: it sits in the detail section

Signed: `@alice`
"""


def test_items_states_and_indent() -> None:
    parsed = checklist.parse(BODY)
    assert [(i.checked, i.indent) for i in parsed.items] == [
        (True, 0), (True, 0), (False, 0), (False, 2), (True, 0)]
    assert parsed.items[0].text.startswith("First item") and parsed.items[0].line == 2
    assert parsed.has_trigger


def test_detail_section_and_signed_line() -> None:
    parsed = checklist.parse(BODY)
    assert parsed.detail.startswith("- the recipe is documented upstream")
    assert "Signed" not in parsed.detail
    assert parsed.signed == "alice"
    assert not parsed.detail_is_placeholder


def test_placeholder_and_missing_detail() -> None:
    assert checklist.parse("### Additional detail section:\n- insert any additional info here\n\n"
                           "Signed: bob").detail_is_placeholder
    assert checklist.parse("- [x] a\nSigned: bob").detail is None
    assert checklist.parse("- [x] a\nSigned: bob").detail_is_placeholder


def test_heading_variants_are_recognised() -> None:
    for heading in ("Additional detail section:", "### Additional Details", "**Additional detail section:**"):
        assert checklist.parse(f"- [x] a\n{heading}\nsome reason\nSigned: x").detail == "some reason"


def test_trigger_is_a_case_sensitive_substring() -> None:
    assert checklist.has_trigger("hello\nAs a PR reviewer and CODEOWNER, I have reviewed")
    assert not checklist.has_trigger("as a pr reviewer and codeowner")
    assert not checklist.has_trigger(None)


def test_template_block_is_the_first_fence_under_template(repo_root) -> None:
    text = (repo_root / "PR_REVIEW_CHECKLIST.md").read_text()
    block = checklist.template_block(text)
    assert block.split("\n")[0] == checklist.TEMPLATE_FIRST_LINE
    items = checklist.template_items(text)
    assert len([i for i in items if i.indent == 0]) == 16 and len(items) == 17
    assert "Signed:" in block and "### Additional detail section:" in block


def test_no_template_section_means_no_items() -> None:
    assert checklist.template_items("# Title\n```\n- [ ] a\n```\n") == ()


item_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
                    min_size=1, max_size=40).map(str.strip).filter(bool)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(item_text, st.booleans(), st.sampled_from(["-", "*", "+"])),
                min_size=1, max_size=12), st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True))
def test_round_trip_of_generated_checklists(items, signer) -> None:
    lines = [checklist.TEMPLATE_FIRST_LINE]
    lines += [f"{bullet} [{'x' if done else ' '}] {text}" for text, done, bullet in items]
    lines += ["", "### Additional detail section:", "- because", "", f"Signed: @{signer}"]
    parsed = checklist.parse("\n".join(lines))
    assert [(i.text, i.checked) for i in parsed.items] == [(t, d) for t, d, _ in items]
    assert parsed.signed == signer and parsed.detail == "- because"
