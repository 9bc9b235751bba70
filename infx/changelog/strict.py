"""The changelog byte contract: strict parsing, entry comparison and raw-byte rules."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NoReturn

from infx.changelog.entry import (
    ChangelogEntry,
    EntryError,
    entry_problem,
    parse_entry,
    yaml_problem,
)
from infx.errors import InfxError, Problem
from infx.yamlio import YamlLimitError, decode, load_text

DEFAULT_REPO = "SemiAnalysisAI/InferenceX"
ENTRY_PREFIX = "- config-keys:"
_ENTRY_PREFIX_BYTES = ENTRY_PREFIX.encode()
PR_LINK_PREFIX = "  pr-link:"
_GIT_WHITESPACE = b" \t\v\f\r"  # what `git diff --check` counts as trailing whitespace
_TRAILING_WHITESPACE = re.compile(rb"[ \t\v\f\r](?=\n|\Z)")  # one byte: no backtracking


@dataclass(frozen=True)
class ParsedChangelog:
    """A strictly parsed changelog: its bytes, raw entry dicts and where each starts."""

    path: str
    raw: bytes
    entries: list[dict]
    entry_lines: list[int]  # 1-based line of each entry's '- config-keys:' line
    models: tuple[ChangelogEntry, ...] = ()  # each entry validated, source_line set

    @cached_property
    def _lines(self) -> list[str]:
        """The text split into lines, once (pr-link lookups run per appended entry)."""
        return self.raw.decode("utf-8").split("\n")

    def entry_line(self, index: int) -> int | None:
        return self.entry_lines[index] if 0 <= index < len(self.entry_lines) else None

    def pr_link_line(self, index: int) -> int | None:
        """Line of the entry's pr-link key (else the entry's first line)."""
        start = self.entry_line(index)
        if start is None:
            return None
        end = self.entry_line(index + 1) or 10**9
        lines = self._lines
        for number in range(start, min(end, len(lines) + 1)):
            if lines[number - 1].lstrip().startswith("pr-link:"):
                return number
        return start


def fail(message: str, path: str, line: int | None = None, *, key: str | None = None,
         fix: str | None = None) -> NoReturn:
    raise InfxError(Problem(message, file=path, line=line, key=key, fix=fix))


def line_of_offset(raw: bytes, offset: int) -> int:
    """1-based line holding byte ``offset``."""
    return raw.count(b"\n", 0, max(offset, 0)) + 1


def check_bytes(raw: bytes, path: str, label: str | None = None) -> str:
    """The changelog's text, or a located InfxError naming the first forbidden bytes.

    One rule set for ``changelog validate`` and ``plan``: UTF-8 without byte-order mark
    or NUL bytes, LF line endings, no tabs, ending in a newline, within the YAML size cap.
    """

    label = label or path
    try:
        text = decode(raw, path)
    except InfxError as exc:
        problem = exc.problems[0]
        fail(f"{label} {problem.message.removeprefix('file ')}", path, problem.line,
             fix=problem.fix)
    if not raw.endswith(b"\n"):
        fail(f"{label} does not end with a newline", path, line_of_offset(raw, len(raw)),
             fix="end the file with exactly one newline")
    for byte, what in ((b"\r", "CR characters (CRLF line endings)"), (b"\t", "tabs")):
        offset = raw.find(byte)
        if offset >= 0:
            fail(f"{label} contains {what}, first at byte offset {offset}", path,
                 line_of_offset(raw, offset), fix="use LF line endings and spaces only")
    return text


def parse_changelog(raw: bytes, path: str, label: str | None = None) -> ParsedChangelog:
    """Parse changelog bytes under the strict contract, or raise a located InfxError."""
    label = label or path
    text = check_bytes(raw, path, label)
    data = _load_unique(text, path, label)
    if not isinstance(data, list):
        fail(f"{label} root must be a YAML list", path, 1,
             fix="start every entry with '- config-keys:' at column 0")
    starts = _entry_starts(text)
    if len(starts) != len(data):
        _misplaced_entry(text, data, path, label, len(starts))
    models = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            fail(f"{label} entry {index + 1} is not a mapping", path, starts[index])
        try:
            models.append(parse_entry(item, starts[index]))
        except EntryError as exc:
            raise InfxError(entry_problem(exc, path, _key_line(text, starts, index, exc.key))) from None
    return ParsedChangelog(path, raw, data, starts, tuple(models))


_ITEM_START = re.compile(r"^-(?:[ \t]|$)", re.MULTILINE)


def _misplaced_entry(text: str, data: list, path: str, label: str, found: int) -> NoReturn:
    """The located error for a list item that does not start with ``- config-keys:``: the
    entry's own problem (e.g. ``- config-key:``, the shared entry message) when it has one,
    else where it starts."""
    lines = [text.count("\n", 0, match.start()) + 1 for match in _ITEM_START.finditer(text)]
    if len(lines) == len(data):
        for index, (item, line) in enumerate(zip(data, lines, strict=True)):
            if text.split("\n", line)[line - 1].startswith(ENTRY_PREFIX):
                continue
            try:
                parse_entry(item, line)
            except EntryError as exc:
                raise InfxError(entry_problem(exc, path, _key_line(text, lines, index, exc.key))) from None
            fail("changelog entry does not start with '- config-keys:'", path, line,
                 fix="write config-keys first: every entry starts at column 0 with '- config-keys:'")
    fail(f"{label} has {found} top-level config entries but YAML parsed "
         f"{len(data)} entries", path, None,
         fix="every entry must start at column 0 with '- config-keys:' "
             "(config-keys is the first key)")


def _entry_starts(text: str) -> list[int]:
    """1-based lines that start with ``ENTRY_PREFIX``, counted at C speed."""
    starts = []
    line, position = 1, 0
    for match in _ENTRY_START.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        starts.append(line)
    return starts


_ENTRY_START = re.compile("^" + re.escape(ENTRY_PREFIX), re.MULTILINE)


def _load_unique(text: str, path: str, label: str) -> Any:

    try:
        return load_text(text, path, unique_keys=True)
    except YamlLimitError:
        raise  # a cap to raise, named as such: the file itself may be valid
    except InfxError as exc:
        problem = exc.problems[0]
        raise InfxError(yaml_problem(problem.message, path, problem.line)) from None
    except (TypeError, ValueError, RecursionError) as exc:
        # an unhashable mapping key (e.g. a list used as a key) surfaces as TypeError
        fail(f"{label} is not valid YAML: found unhashable key ({exc})", path, None)


def _key_line(text: str, starts: list[int], index: int, key: str | None) -> int:
    start = starts[index]
    if key is None:
        return start
    end = starts[index + 1] if index + 1 < len(starts) else 10**9
    lines = text.split("\n")
    for number in range(start, min(end, len(lines) + 1)):
        stripped = lines[number - 1].lstrip(" -")
        if stripped.startswith(f"{key}:") or stripped.startswith(f'"{key}":'):
            return number
    return start


# --- pr-link rules -------------------------------------------------------------------------

def canonical_link(repo: str, pr_number: int) -> str:
    return f"https://github.com/{repo}/pull/{pr_number}"


def is_canonical(link: str, repo: str) -> bool:
    return re.fullmatch(rf"https://github\.com/{re.escape(repo)}/pull/\d+", link) is not None


def is_placeholder(link: str, repo: str) -> bool:
    return link in ("XXX", f"https://github.com/{repo}/pull/XXX")


def _link(entry: dict) -> str:
    value = entry.get("pr-link")
    return str(value or "")


def _without_link(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "pr-link"}


def only_link_corrections(base_raw: bytes, head_raw: bytes, path: str) -> bool:
    """Whether the head rewrites nothing but the pr-link of some historical entries (no entry
    added, removed or otherwise changed): the change `changelog validate` counts as pr-link
    corrections alone. False when either side does not parse under the strict contract."""
    try:
        base = parse_changelog(base_raw, path)
        head = parse_changelog(head_raw, path)
    except InfxError:
        return False
    pairs = list(zip(base.entries, head.entries, strict=False))
    return (len(base.entries) == len(head.entries)
            and all(_without_link(old) == _without_link(new) for old, new in pairs)
            and any(_link(old) != _link(new) for old, new in pairs))


@dataclass(frozen=True)
class Change:
    """What a head changelog adds to its base."""

    additions: list[int]  # head indexes of appended entries
    corrections: int  # historical entries whose pr-link was corrected


def compare_entries(base: ParsedChangelog, head: ParsedChangelog, pr_number: int | None,
                    repo: str = DEFAULT_REPO) -> Change:
    """Positional comparison: history immutable except pr-link corrections; check new links."""
    path = head.path
    if len(head.entries) < len(base.entries):
        fail(f"{path} entries were deleted", path, None,
             fix="restore the base file's entries; the changelog is append-only")
    corrections = 0
    first_correction = None
    for index, (old, new) in enumerate(zip(base.entries, head.entries, strict=False)):
        if old == new:
            continue
        if _without_link(old) != _without_link(new):
            fail(f"entry {index + 1} changed; existing entries are immutable except for "
                 "pr-link-only corrections", path, head.entry_line(index),
                 fix="restore the entry from the base revision and append a new entry instead")
        if _link(old) == _link(new):
            fail(f"entry {index + 1} was reformatted without a semantic change", path,
                 head.pr_link_line(index), fix="restore the original pr-link bytes")
        if not is_canonical(_link(new), repo):
            fail(f"entry {index + 1} pr-link correction is not canonical: '{_link(new)}'",
                 path, head.pr_link_line(index),
                 fix=f"write https://github.com/{repo}/pull/<number>")
        corrections += 1
        first_correction = index if first_correction is None else first_correction
    additions = list(range(len(base.entries), len(head.entries)))
    if corrections and additions:
        fail("do not mix historical pr-link corrections with new changelog entries", path,
             head.pr_link_line(first_correction),
             fix="send the pr-link correction in its own pull request")
    for index in additions:
        _check_new_link(head, index, pr_number, repo)
    return Change(additions, corrections)


def _check_new_link(head: ParsedChangelog, index: int, pr_number: int | None, repo: str) -> None:
    link = _link(head.entries[index])
    tbd_hint = " ('TBD' is not a placeholder)" if link.strip().upper() == "TBD" else ""
    if pr_number is None:
        if not is_canonical(link, repo):
            fail(f"new main-branch entry has invalid pr-link: '{link}'{tbd_hint}", head.path,
                 head.pr_link_line(index),
                 fix=f"on a pull request pass --pr-number N (then 'XXX' and the PR's own URL "
                     f"are accepted); on main write the merged PR's URL, "
                     f"https://github.com/{repo}/pull/<number>")
        return
    expected = canonical_link(repo, pr_number)
    if link != expected and not is_placeholder(link, repo):
        fail(f"new PR entry must use '{expected}' or an XXX placeholder; found '{link}'"
             f"{tbd_hint}", head.path, head.pr_link_line(index),
             fix=f"write 'pr-link: {expected}' (or 'pr-link: XXX' before the PR exists)")


def validate_change(base_raw: bytes, head_raw: bytes, path: str, pr_number: int | None,
                    repo: str = DEFAULT_REPO, *, base_label: str | None = None,
                    head_label: str | None = None) -> tuple[ParsedChangelog, Change]:
    """The whole strict contract of one changelog change (``changelog validate`` and the
    sign-off verdict): both sides parse, history is immutable except pr-link corrections,
    new links are canonical or placeholders, the raw bytes and new whitespace are clean.
    Returns the parsed head and what it changes; raises the first located InfxError."""
    base = parse_changelog(base_raw, path, base_label)
    head = parse_changelog(head_raw, path, head_label)
    change = compare_entries(base, head, pr_number, repo)
    validate_raw_change(base_raw, head_raw, change, path)
    check_new_whitespace(base_raw, head_raw, change, path)
    return head, change


# --- raw byte rules ------------------------------------------------------------------------

def validate_raw_change(base_raw: bytes, head_raw: bytes, change: Change, path: str) -> None:
    """Byte-level rules: history kept verbatim, one blank line between entries, one final LF."""
    if change.additions:
        _check_appended_bytes(base_raw, head_raw, path)
    elif change.corrections:
        _check_correction_bytes(base_raw, head_raw, change.corrections, path)
    elif base_raw != head_raw:
        fail("changelog diff has no appended entry or pr-link correction; historical "
             "whitespace and formatting are immutable", path,
             line_of_offset(head_raw, _first_difference(base_raw, head_raw)),
             fix="restore the base file byte for byte")


def _first_difference(a: bytes, b: bytes) -> int:
    for offset, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return offset
    return min(len(a), len(b))


def _check_appended_bytes(base_raw: bytes, head_raw: bytes, path: str) -> None:
    if not head_raw.startswith(base_raw):
        fail("appended entries changed historical perf-changelog.yaml bytes; restore the base "
             "file byte-for-byte and append at the end", path,
             line_of_offset(head_raw, _first_difference(base_raw, head_raw)),
             fix="restore the base file byte for byte and append at the end")
    suffix = head_raw[len(base_raw):]
    lead = _ENTRY_PREFIX_BYTES if base_raw.endswith(b"\n\n") else b"\n" + _ENTRY_PREFIX_BYTES
    if not suffix.startswith(lead):
        fail("new changelog entries must be separated from history by one empty line and "
             "appended at the end", path, line_of_offset(head_raw, len(base_raw)),
             fix="leave exactly one empty line before your first '- config-keys:'")
    starts = [m.start() for m in re.finditer(rb"(?m)^- config-keys:", suffix)]
    for start in starts[1:]:
        before = suffix[max(0, start - 3):start]  # enough to tell one blank line from two
        if not before.endswith(b"\n\n") or before.endswith(b"\n\n\n"):
            fail("appended changelog entries must have exactly one empty separator line",
                 path, line_of_offset(head_raw, len(base_raw) + start),
                 fix="put exactly one empty line (no spaces) between entries")
    if head_raw.endswith(b"\n\n"):
        fail("the final appended changelog entry must end with one newline", path,
             line_of_offset(head_raw, len(head_raw) - 1),
             fix="remove the blank line(s) at the end of the file")


def check_new_whitespace(base_raw: bytes, head_raw: bytes, change: Change, path: str) -> None:
    """No trailing whitespace on lines the change adds or rewrites (``git diff --check``).

    Run after ``validate_raw_change``: history is then intact, so the new lines are either
    the appended suffix or the rewritten pr-link lines. Historical lines are never judged.
    """
    if change.additions:  # one C-speed search of the appended bytes (CR was refused before)
        suffix = head_raw[len(base_raw):]
        found = _TRAILING_WHITESPACE.search(suffix)
        if found is None:
            return
        start = suffix.rfind(b"\n", 0, found.start()) + 1
        new = [(base_raw.count(b"\n") + suffix.count(b"\n", 0, start) + 1,
                suffix[start:found.end()])]
    else:
        pairs = zip(base_raw.splitlines(keepends=True), head_raw.splitlines(keepends=True),
                    strict=False)
        new = [(number, line) for number, (old, line) in enumerate(pairs, 1) if old != line]
    for number, line in new:
        body = line.rstrip(b"\n")
        if body != body.rstrip(_GIT_WHITESPACE):
            what = "a whitespace-only line" if not body.strip(_GIT_WHITESPACE) else (
                "trailing whitespace")
            fail(f"line {number} adds {what}; new changelog lines may not end in spaces",
                 path, number, fix="delete the spaces at the end of the line")


def _check_correction_bytes(base_raw: bytes, head_raw: bytes, corrections: int,
                            path: str) -> None:
    old_lines = base_raw.splitlines(keepends=True)
    new_lines = head_raw.splitlines(keepends=True)
    if len(old_lines) != len(new_lines):
        fail("pr-link corrections may not add or delete lines", path, None,
             fix="change only the text after 'pr-link:'")
    changed = 0
    for number, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), 1):
        if old == new:
            continue
        prefix = PR_LINK_PREFIX.encode()
        if not (old.startswith(prefix) and new.startswith(prefix)
                and old.endswith(b"\n") and new.endswith(b"\n")):
            fail(f"historical bytes changed outside a pr-link line at line {number}", path,
                 number, fix="restore this line from the base revision")
        changed += 1
    if changed != corrections:
        fail(f"expected {corrections} changed pr-link line(s), found {changed}", path, None)
