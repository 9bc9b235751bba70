"""The verdict comment: layout, and the self-check that the posted text is a well-formed verdict."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from infx import inert
from infx.signoff.model import Status
from infx.signoff.table import CheckTable
from infx.signoff.verdict import Overall, Row, Verdict, overall_of

EMOJI = {Status.PASS: "✅", Status.FAIL: "❌", Status.NA: "➖", Status.WARN: "⚠️"}
HEADERS = {
    Overall.PASS: "## ✅✅✅ **Verdict: PASS** ✅✅✅",
    Overall.REJECTED: "## ❌❌❌ **REJECTED** ❌❌❌",
    Overall.WARN: "## ⚠️ **Verdict: WARN** ⚠️",
}
DETAILS_OPEN = "<details>"
SUMMARY = "<summary>Passed and not applicable checks</summary>"
DETAILS_CLOSE = "</details>"
_ROW = re.compile(r"^(?:[-*+] )?(✅|❌|➖|⚠️) Check (\d+) \(([^()\n]+)\): (PASS|FAIL|N/A|WARN) — (\S.*)$")
_ROW_START = re.compile(r"^(?:[-*+] )?(✅|❌|➖|⚠️|⚠) ?Check\b")
_ANY_STATUS_EMOJI = re.compile("✅|❌|➖|⚠")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")


@dataclass(frozen=True)
class Context:
    """What the comment says besides the rows."""

    marker: str
    assessed_sha: str
    signer: str
    evidence_digest: str
    live_head_sha: str | None = None
    head_unconfirmed: bool = False  # the live head could not be re-read before publishing
    supersedes: str | None = None  # overall verdict of an earlier comment for the same commit
    escalation_mentions: tuple[str, ...] = ()
    recommended_points: int = 5
    repo: str = ""  # owner/name: the only repository rows may link into
    # the sign-off this verdict judged (binding.signoff_record), so that a status carried to a
    # later head can re-read it and set the head `pending` once it is deleted or edited
    signed: str = ""


UNCONFIRMED_HEAD = ("The PR head could not be re-read before publishing, so a newer commit, "
                    "if there is one, was not assessed.")


def marker_line(marker: str, sha: str, digest: str, signed: str = "") -> str:
    return f"<!-- {marker} {marker_fields(sha, digest, signed)} -->"


def marker_fields(sha: str, digest: str, signed: str = "") -> str:
    """The marker's key=value fields, as the client's marker lookup finds them too."""
    return f"sha={sha} evidence={digest}" + (f" signoff={signed}" if signed else "")


_MARKER = re.compile(r"^<!-- (?P<name>[a-z0-9-]+) sha=(?P<sha>[0-9a-f]{40}) evidence=(?P<digest>[0-9a-f]+)"
                     r"(?: signoff=(?P<signed>[a-z_]+:[0-9]+:[0-9a-f]{16}))? -->")


def read_marker(body: str, marker: str) -> tuple[str, str] | None:
    """(sha, digest) when the body STARTS with our marker line, else None."""
    match = _MARKER.match(body or "")
    if not match or match["name"] != marker:
        return None
    return match["sha"], match["digest"]


def read_signed(body: str, marker: str) -> str | None:
    """The sign-off record (binding.signoff_record) a verdict's marker line carries, if any."""
    match = _MARKER.match(body or "")
    return match["signed"] if match and match["name"] == marker else None


def clean(text: str) -> str:
    """One line of plain words: no newlines, no status emojis, no sentinels (not yet markdown)."""
    text = " ".join(inert.unwrap(text).split())
    return _ANY_STATUS_EMOJI.sub("", text).replace("\ufe0f", "").strip()


def _inert(text: str, repo: str) -> str:
    """Untrusted-safe markdown of a reason: status emojis dropped, the rest rendered inert."""
    text = _ANY_STATUS_EMOJI.sub("", text).replace("\ufe0f", "")
    return inert.render_inert(text, repo)


# the characters of one row's reason and details as shown (before escaping): sixteen rows stay
# inside a comment's 65,536 characters and a check run's 65,535, so no row is cut off whole
ROW_CHARS = 2000


def _fit(parts: list[str], budget: int) -> tuple[list[str], int]:
    """The leading `parts` that fit in `budget` characters joined by `; ` (the first one cut
    with `…` when it alone is longer), and how many were left off."""
    kept: list[str] = []
    used = 0
    for part in parts:
        cost = len(part) + (2 if kept else 0)
        if used + cost > budget:
            if not kept and budget > 1:
                kept.append(inert.clip(part, budget))
            break
        kept.append(part)
        used += cost
    return kept, len(parts) - len(kept)


# a word (a path, a value) longer than this is shown by its head and tail: a PR that makes a
# path thousands of characters long cannot push the finding after it out of its row
WORD_CHARS = 160
_LONG_WORD = re.compile(rf"(?<!\S)\S{{{WORD_CHARS + 1},}}")  # tried at word starts only: linear


def _short_word(match: re.Match[str]) -> str:
    word = match.group(0)
    return word[:100] + "…" + word[-(WORD_CHARS - 101):]


def short_words(text: str) -> str:
    """The text with every word over WORD_CHARS characters shortened to its head and tail."""
    return _short_words(text) if len(text) > WORD_CHARS else text


@lru_cache(maxsize=64)
def _short_words(text: str) -> str:
    # a row's reason is shortened for its comment line, its budget and its check-run cell
    return _LONG_WORD.sub(_short_word, text)


def shown_reason(reason: str, budget: int | None = None) -> str:
    """A reason as a row shows it: words over WORD_CHARS shortened in the middle, then its
    `; `-separated parts that fit in `budget` characters and a count of the parts left off.
    The verdict keeps the whole reason (its JSON, the check run's annotations); a cut inside
    one of the bot's code spans or links leaves that piece as plain text."""
    budget = ROW_CHARS if budget is None else budget
    reason = short_words(reason)
    if len(reason) <= budget:
        return reason
    kept, left = _fit(reason.split("; "), budget)
    return "; ".join(kept) + (f"; … and {left} more part(s) not shown" if left else "")


def _not_in_reason(reason: str, details: tuple[str, ...] | list[str]) -> list[str]:
    """The details a row's reason does not already say (compared as plain words): a detail
    whose every `; `-part is one of the reason's parts is in it without being cleaned (a
    verdict over a thousand configs lists one part and one detail per config)."""
    parts = set(reason.split("; "))
    rest = [d for d in details if not parts.issuperset(d.split("; "))]
    if not rest:
        return []
    shown = clean(reason)
    pieces = set(shown.split("; "))  # a detail the reason lists as one of its parts is in it
    return [d for d in rest if (said := clean(d)) and said not in pieces and said not in shown]


def row_line(row: Row, repo: str = "") -> str:
    source = shown_reason(row.outcome.reason)
    reason = _inert(source, repo) or "no reason given."
    extra = [short_words(d) for d in _not_in_reason(row.outcome.reason, row.outcome.details)]
    # details only in what a whole reason leaves of the budget (a cut reason: counted only)
    whole = len(short_words(row.outcome.reason)) <= ROW_CHARS
    kept, left = _fit(extra, ROW_CHARS - len(source) if whole else 0)
    details = [_inert(d, repo) for d in kept] + ([f"… and {left} more detail(s) not shown"] if left else [])
    if details:
        reason += " Also: " + "; ".join(details)
    return f"{EMOJI[row.status]} Check {row.spec.number} ({row.spec.name}): {row.status.value} — {reason}"


SUMMARY_CHARS = 160


def blocking_summary(verdict: Verdict) -> str:
    """One sentence: which checks failed and, for a single failure, its root cause."""
    failing = verdict.failing()
    names = ", ".join(f"Check {r.spec.number} ({r.spec.name})" for r in failing)
    if len(failing) != 1:
        return f"{names} failed; see the rows below."
    cause = re.sub(r"\s+\([^()]*\)", "", clean(failing[0].outcome.reason)).split("; ")[0].rstrip(".")
    if len(cause) > SUMMARY_CHARS:
        cause = cause[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return f"{names} failed: {inert.plain(cause)}."


def escalation(context: Context) -> str:
    who = " ".join(f"@{login}" for login in context.escalation_mentions)
    prefix = f"{who}: " if who else ""
    return (f"⚠️ {prefix}Pareto coverage needs a maintainer. At least "
            f"{context.recommended_points} measured frontier points per affected curve are "
            f"strongly recommended; below that, or when the count is unverifiable, a recorded admin "
            f"bypass for the assessed commit is required before merge. This comment neither "
            f"grants nor enforces a bypass.")


def render(verdict: Verdict, context: Context) -> str:
    lines = [marker_line(context.marker, context.assessed_sha, context.evidence_digest, context.signed),
             HEADERS[verdict.overall], ""]
    if verdict.overall == Overall.REJECTED:
        signer = (f"@{context.signer}" if _LOGIN.fullmatch(context.signer)
                  else inert.plain(context.signer))  # e.g. a preview's hand-typed `Signed:`
        lines += [f"{signer} — blocking: {blocking_summary(verdict)}", ""]
    if any(r.spec.id == "pareto" and r.status == Status.WARN for r in verdict.rows):
        lines += [escalation(context), ""]
    if context.supersedes:
        lines += [f"Supersedes the earlier {context.supersedes} verdict for this commit.", ""]
    if context.live_head_sha and context.live_head_sha != context.assessed_sha:
        lines += [f"The PR head moved to `{context.live_head_sha}` during verification; that "
                  f"newer commit was not assessed.", ""]
    elif context.head_unconfirmed:
        lines += [UNCONFIRMED_HEAD, ""]
    shown = [r for r in verdict.rows if r.status == Status.FAIL]
    shown += [r for r in verdict.rows if r.status == Status.WARN]
    for row in shown:
        lines += [row_line(row, context.repo), ""]
    folded = [r for r in verdict.rows if r.status in (Status.PASS, Status.NA)]
    if folded:
        lines += [DETAILS_OPEN, SUMMARY, ""]
        for row in folded:
            lines += [row_line(row, context.repo), ""]
        lines += [DETAILS_CLOSE, ""]
    lines.append(f"Assessed commit: `{context.assessed_sha}`.")
    return "\n".join(lines) + "\n"


UNREADABLE_HEADER = "## **Not verified: evidence could not be read**"


def unreadable_body(context: Context, unreadable: dict[str, str]) -> str:
    """What is posted when GitHub did not return part of the evidence: what could not be
    read, and nothing else (no verdict, no mentions, no advice to re-run sweeps)."""
    items = [f"- {inert.plain(key)}: {inert.plain(why)}" for key, why in sorted(unreadable.items())]
    return "\n".join([
        marker_line(context.marker, context.assessed_sha, context.evidence_digest, context.signed),
        UNREADABLE_HEADER, "",
        "The sign-off was not judged: GitHub did not return this evidence for the commit.", "",
        *items, "",
        "This is not a finding about the sign-off or the PR. Dispatch a re-verification once "
        "GitHub answers again.", "",
        f"Assessed commit: `{context.assessed_sha}`.",
    ]) + "\n"


NON_OWNER_HEADER = "## **Not verified: not a CODEOWNER sign-off**"


def non_owner_body(context: Context, why: str) -> str:
    """The answer to a sign-off by someone who is not a CODEOWNER of the PR: why, and that the
    commit status stays as it is (an owner's verdict is never replaced by it)."""
    return "\n".join([
        marker_line(context.marker, context.assessed_sha, context.evidence_digest, context.signed),
        NON_OWNER_HEADER, "",
        f"This sign-off was not verified: {inert.plain(clean(why))}", "",
        "Only a CODEOWNER of the changed files can sign off this PR, so the "
        "`codeowner-signoff-verify` status is left as it was.", "",
        f"Assessed commit: `{context.assessed_sha}`.",
    ]) + "\n"


def invalid_body(context: Context, problem: str) -> str:
    """What is posted when a produced verdict fails its self-check."""
    return "\n".join([
        marker_line(context.marker, context.assessed_sha, context.evidence_digest, context.signed),
        HEADERS[Overall.REJECTED], "",
        f"The verdict could not be validated ({inert.plain(clean(problem))}); retry verification.", "",
        f"Assessed commit: `{context.assessed_sha}`.",
    ]) + "\n"


def validate(body: str, table: CheckTable, marker: str) -> list[str]:
    """Self-check of a verdict comment; an empty list means it is well formed."""
    problems: list[str] = []
    lines = body.split("\n")
    if read_marker(lines[0] if lines else "", marker) is None:
        problems.append("the marker is not the first line")
    headers = [i for i, line in enumerate(lines) if line in HEADERS.values()]
    if len(headers) != 1 or headers[0] != 1:
        problems.append("the verdict header must appear exactly once, right after the marker")
    rows: dict[int, Status] = {}
    inside = False
    for line in lines:
        if line == DETAILS_OPEN:
            inside = True
            continue
        if line == DETAILS_CLOSE:
            inside = False
            continue
        if not _ROW_START.match(line):
            continue
        problem = _row_problem(line, table, rows, inside)
        if problem:
            problems.append(problem)
    expected = {spec.number for spec in table.checks}
    if set(rows) != expected:
        missing = sorted(expected - set(rows))
        extra = sorted(set(rows) - expected)
        problems.append(f"row set differs from the check table (missing {missing}, extra {extra})")
    if headers and not problems:
        want = HEADERS[_overall(list(rows.values()))]
        if lines[headers[0]] != want:
            problems.append(f"the header does not match the rows (expected {want!r})")
    return problems


def _row_problem(line: str, table: CheckTable, rows: dict[int, Status], inside: bool) -> str | None:
    match = _ROW.match(line)
    if not match:
        return f"malformed row: {line[:60]!r}"
    emoji, number, name, status = match[1], int(match[2]), match[3], Status(match[4])
    if EMOJI[status] != emoji:
        return f"Check {number}: emoji and status disagree"
    spec = next((s for s in table.checks if s.number == number), None)
    if spec is None:
        return f"Check {number} is not in the check table"
    if name != spec.name:
        return f"Check {number} is named {name!r}, expected {spec.name!r}"
    if number in rows:
        return f"Check {number} appears more than once"
    rows[number] = status
    if status not in spec.statuses:
        return f"Check {number} may not report {status.value}"
    folded = status in (Status.PASS, Status.NA)
    if folded != inside:
        return f"Check {number} ({status.value}) is {'inside' if inside else 'outside'} the details block"
    return None


def _overall(statuses: list[Status]) -> Overall:
    return overall_of(statuses)
