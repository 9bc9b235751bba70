"""Merge preparation: canonical links on appended entries and conflict resolution."""

from __future__ import annotations

import pytest

from infx.changelog.merge_prep import canonicalize, entry_spans, resolve_conflict
from infx.changelog.strict import parse_changelog
from infx.errors import InfxError

URL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
PATH = "perf-changelog.yaml"


def block(text="new", link="XXX", key="alpha-fp8-h100-vllm"):
    return (f"- config-keys:\n    - {key}\n  description:\n    - \"{text}\"\n"
            f"  pr-link: {link}\n").encode()


HIST = block("hist", "XXX")


def test_canonicalize_rewrites_only_appended_placeholders():
    head = HIST + b"\n" + block("new", "XXX")
    result = canonicalize(HIST, head, 42, path=PATH)
    assert result.startswith(HIST)
    assert result == HIST + b"\n" + block("new", URL + "42")


def test_canonicalize_handles_url_placeholder_and_keeps_canonical():
    head = HIST + b"\n" + block("a", URL + "XXX") + b"\n" + block("b", URL + "42")
    result = canonicalize(HIST, head, 42, path=PATH)
    assert result == HIST + b"\n" + block("a", URL + "42") + b"\n" + block("b", URL + "42")
    assert canonicalize(HIST, result, 42, path=PATH) == result


def test_canonicalize_rejects_edited_history():
    head = HIST.replace(b"\"hist\"", b"\"hist\" ") + b"\n" + block()
    with pytest.raises(InfxError, match="historical"):
        canonicalize(HIST, head, 42, path=PATH)


def test_canonicalize_passes_pure_corrections_through():
    head = block("hist", URL + "7")
    assert canonicalize(HIST, head, 42, path=PATH) == head


def test_canonicalize_on_prefixed_base_with_trailing_blank_lines():
    base = HIST + b"  \n"  # history may end with a whitespace-only line
    head = base + b"\n" + block()
    result = canonicalize(base, head, 9, path=PATH)
    assert result == base + b"\n" + block(link=URL + "9")


def test_resolve_conflict_appends_pr_entry_after_main():
    base = HIST
    main = base + b"  \n" + block("main", URL + "50")
    pr = base + b"\n" + block("pr")
    result = resolve_conflict(base, pr, main, 42, path=PATH)
    assert result == main + b"\n" + block("pr", URL + "42")
    texts = [e["description"][0] for e in parse_changelog(result, PATH).entries]
    assert texts == ["hist", "main", "pr"]


def test_resolve_conflict_two_pr_entries_single_separators():
    main = HIST + b"\n" + block("main", URL + "50")
    pr = HIST + b"\n" + block("p1") + b"\n" + block("p2")
    result = resolve_conflict(HIST, pr, main, 42, path=PATH)
    assert len(parse_changelog(result, PATH).entries) == 4
    assert result.count(b"\n\n- config-keys:") == 3
    assert b"\n\n\n" not in result and result.endswith(b"\n") and not result.endswith(b"\n\n")


def test_resolve_conflict_nothing_left_when_main_has_same_entry():
    main = HIST + b"\n" + block("pr", URL + "42")
    pr = HIST + b"\n" + block("pr", "XXX")
    with pytest.raises(InfxError, match="no changelog contribution remaining"):
        resolve_conflict(HIST, pr, main, 42, path=PATH)


def test_resolve_conflict_link_correction():
    old_org = "https://github.com/InferenceMAX/InferenceMAX/pull/5"
    base = block("hist", old_org)
    main = base + b"\n" + block("main", URL + "50")
    pr = block("hist", URL + "5")
    result = resolve_conflict(base, pr, main, 42, path=PATH)
    assert result == main.replace(old_org.encode(), (URL + "5").encode())


def test_resolve_conflict_correction_conflicts():
    base = block("hist", "XXX")
    pr = block("hist", URL + "5")
    with pytest.raises(InfxError, match="already present on main"):
        resolve_conflict(base, pr, pr, 42, path=PATH)
    with pytest.raises(InfxError, match="conflicting pr-link for entry 1"):
        resolve_conflict(base, pr, block("hist", URL + "6"), 42, path=PATH)
    with pytest.raises(InfxError, match="main changed corrected entry 1"):
        resolve_conflict(base, pr, block("other", "XXX"), 42, path=PATH)


def test_resolve_conflict_without_contribution():
    with pytest.raises(InfxError, match="no appended entry or pr-link correction"):
        resolve_conflict(HIST, HIST, HIST + b"\n" + block("m", URL + "3"), 42, path=PATH)


def test_resolve_conflict_rejects_wrong_pr_link_on_pr_side():
    pr = HIST + b"\n" + block("pr", URL + "41")
    with pytest.raises(InfxError, match="new PR entry must use"):
        resolve_conflict(HIST, pr, HIST, 42, path=PATH)


def test_entry_spans_trim_blank_tails():
    raw = HIST + b"  \n\n" + block("b")
    spans = entry_spans(parse_changelog(raw, PATH))
    assert raw[spans[0].start:spans[0].content_end] == HIST
    assert spans[0].end == spans[1].start and spans[1].end == len(raw)


def test_wrapped_pr_link_line_is_rewritten_on_first_line_only():
    wrapped = HIST.replace(b"pr-link: XXX", b"pr-link:\n    XXX")
    with pytest.raises(InfxError, match="pr-link"):
        canonicalize(HIST, HIST + b"\n" + wrapped, 42, path=PATH)
