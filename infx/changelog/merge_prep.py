"""Merge preparation: canonical PR links on appended entries, and changelog conflict repair."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from infx.changelog.strict import (
    DEFAULT_REPO,
    Change,
    ParsedChangelog,
    canonical_link,
    compare_entries,
    fail,
    is_placeholder,
    parse_changelog,
    validate_raw_change,
)

_ENTRY_LINE = re.compile(rb"(?m)^- config-keys:.*\n")
_PR_LINK_LINE = re.compile(rb"(?m)^  pr-link:.*$")


@dataclass(frozen=True)
class Span:
    """Byte offsets of one entry: ``content_end`` excludes trailing blank lines."""

    start: int
    content_end: int
    end: int


def entry_spans(parsed: ParsedChangelog) -> list[Span]:
    """Byte spans of every entry of a strictly parsed changelog."""
    raw = parsed.raw
    starts = [m.start() for m in _ENTRY_LINE.finditer(raw)]
    if len(starts) != len(parsed.entries):
        fail("could not map parsed changelog entries to raw byte spans", parsed.path)
    spans = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(raw)
        spans.append(Span(start, _content_end(raw, start, end), end))
    return spans


def _content_end(raw: bytes, start: int, end: int) -> int:
    lines = raw[start:end].splitlines(keepends=True)
    while lines and not lines[-1].strip():
        lines.pop()
    return start + sum(len(line) for line in lines)


def replace_pr_link(block: bytes, link: str, path: str, index: int) -> bytes:
    """Rewrite the single ``  pr-link:`` line of an entry block."""
    matches = list(_PR_LINK_LINE.finditer(block))
    if len(matches) != 1:
        fail(f"could not locate exactly one pr-link line in entry {index + 1}", path,
             fix="write the link as one line '  pr-link: <url>'")
    match = matches[0]
    return block[:match.start()] + f"  pr-link: {link}".encode() + block[match.end():]


def entry_signature(entry: dict) -> str:
    """Canonical JSON of an entry without its link: equal entries, equal signatures."""
    data = {k: v for k, v in entry.items() if k != "pr-link"}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def _check_side(base: ParsedChangelog, head: ParsedChangelog, pr_number: int,
                repo: str) -> Change:
    change = compare_entries(base, head, pr_number, repo)
    validate_raw_change(base.raw, head.raw, change, head.path)
    return change


def canonicalize(base_raw: bytes, head_raw: bytes, pr_number: int, *, path: str,
                 repo: str = DEFAULT_REPO) -> bytes:
    """Head bytes with every appended placeholder link set to the PR's canonical URL."""
    base = parse_changelog(base_raw, path, f"{path} (base)")
    head = parse_changelog(head_raw, path)
    change = _check_side(base, head, pr_number, repo)
    if not change.additions:
        return head_raw
    expected = canonical_link(repo, pr_number)
    spans = entry_spans(head)
    result = head_raw
    for index in reversed(change.additions):
        link = str(head.entries[index].get("pr-link") or "")
        if link == expected:
            continue
        if not is_placeholder(link, repo):
            fail(f"appended entry {index + 1} has unexpected pr-link '{link}'", path,
                 head.pr_link_line(index))
        span = spans[index]
        block = replace_pr_link(result[span.start:span.content_end], expected, path, index)
        result = result[:span.start] + block + result[span.content_end:]
    _self_check(base, result, pr_number, path, repo)
    return result


def resolve_conflict(base_raw: bytes, pr_raw: bytes, main_raw: bytes, pr_number: int, *,
                     path: str, repo: str = DEFAULT_REPO) -> bytes:
    """Rebuild the changelog as main's bytes plus the PR's own contribution."""
    base = parse_changelog(base_raw, path, f"{path} (merge base)")
    pr = parse_changelog(pr_raw, path, f"{path} (PR side)")
    main = parse_changelog(main_raw, path, f"{path} (main side)")
    change = _check_side(base, pr, pr_number, repo)
    if change.additions:
        result = _append_pr_entries(pr, main, change, pr_number, repo)
    elif change.corrections:
        result = _apply_corrections(base, pr, main, pr_number, repo)
    else:
        fail("the PR has no appended entry or pr-link correction to preserve", path)
    _self_check(main, result, pr_number, path, repo)
    return result


def _append_pr_entries(pr: ParsedChangelog, main: ParsedChangelog, change: Change,
                       pr_number: int, repo: str) -> bytes:
    on_main = {entry_signature(entry) for entry in main.entries}
    spans = entry_spans(pr)
    link = canonical_link(repo, pr_number)
    blocks = []
    for index in change.additions:
        if entry_signature(pr.entries[index]) in on_main:
            continue
        span = spans[index]
        blocks.append(replace_pr_link(pr.raw[span.start:span.content_end], link, pr.path,
                                      index))
    if not blocks:
        fail("the PR has no changelog contribution remaining after merging main", pr.path,
             fix="main already holds this entry; drop the changelog change from the PR")
    joiner = b"" if main.raw.endswith(b"\n\n") else b"\n"
    return main.raw + joiner + b"\n".join(blocks)


def _apply_corrections(base: ParsedChangelog, pr: ParsedChangelog, main: ParsedChangelog,
                       pr_number: int, repo: str) -> bytes:
    path = pr.path
    spans = entry_spans(main)
    result = main.raw
    rewrites = 0
    for index in reversed(range(len(base.entries))):
        old, new = base.entries[index], pr.entries[index]
        if old == new:
            continue
        if index >= len(main.entries):
            fail(f"main is missing corrected entry {index + 1}", path)
        theirs = main.entries[index]
        if entry_signature(theirs) != entry_signature(old):
            fail(f"main changed corrected entry {index + 1}; resolve manually", path,
                 main.entry_line(index))
        desired = str(new.get("pr-link") or "")
        current = str(theirs.get("pr-link") or "")
        if current == desired:
            continue
        if current != str(old.get("pr-link") or ""):
            fail(f"main has a conflicting pr-link for entry {index + 1}", path,
                 main.pr_link_line(index))
        span = spans[index]
        block = replace_pr_link(result[span.start:span.content_end], desired, path, index)
        result = result[:span.start] + block + result[span.content_end:]
        rewrites += 1
    if not rewrites:
        fail("the PR's pr-link corrections are already present on main", path)
    return result


def _self_check(base: ParsedChangelog, result: bytes, pr_number: int, path: str,
                repo: str) -> None:
    head = parse_changelog(result, path, f"{path} (prepared)")
    _check_side(base, head, pr_number, repo)
