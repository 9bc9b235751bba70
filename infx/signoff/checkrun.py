"""The verdict as a check run (pure): its summary, the check table as its text, and one
annotation per located finding (a `path:line` the verdict names in a failing or warning row)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx import inert
from infx.github.checks import MAX_ANNOTATIONS_PER_REQUEST, Annotation, CheckOutput, fit
from infx.signoff.model import Evidence, Status
from infx.signoff.render import EMOJI, HEADERS, blocking_summary, clean, shown_reason
from infx.signoff.verdict import Overall, Row, Verdict

# at most this many annotations per check run (three requests of GitHub's 50); the rest are
# counted in an "and N more" note of the summary
MAX_ANNOTATIONS = 3 * MAX_ANNOTATIONS_PER_REQUEST
MAX_MESSAGE_CHARS = 1000
# a repository path followed by `:line` (`path:line: message` too)
_LOCATED = re.compile(r"(?<![\w./-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*):(?P<line>[1-9]\d{0,6})(?!\d)")
LEVELS = {Status.FAIL: "failure", Status.WARN: "warning"}
# the check run's conclusion for each commit status the verdict sets (`error`: not verified)
CONCLUSIONS = {"success": "success", "failure": "failure", "error": "failure"}
# a passed verdict's check run once the status on its head no longer says success: a person
# must act (a new sign-off); unlike `neutral` or `skipped` it never counts as passing
WITHDRAWN = "action_required"


@dataclass(frozen=True)
class Finding:
    """One part of a failing or warning row that names a place in the PR's files."""

    row: Row
    text: str  # the finding in plain words (one line)
    path: str
    line: int


def check_table(verdict: Verdict, repo: str = "") -> str:
    """The verdict's rows as a markdown table (every cell inert), in check order."""
    lines = ["| | Check | Status | Reason |", "|---|---|---|---|"]
    for row in verdict.rows:
        reason = inert.cell(shown_reason(row.outcome.reason), repo) or "no reason given."
        lines.append(f"| {EMOJI[row.status]} | {row.spec.number} ({inert.cell(row.spec.name, raw=True)}) "
                     f"| {row.status.value} | {reason} |")
    return "\n".join(lines) + "\n"


def _parts(row: Row) -> list[str]:
    """A row's findings: the parts of its reason (`; `-separated) and its details, plain."""
    parts = [p for p in clean(row.outcome.reason).split("; ") if p]
    known = set(parts)  # a set beside the list: a row over a thousand configs has thousands of each
    for detail in row.outcome.details:
        said = clean(detail)
        if said and said not in known:
            known.add(said)
            parts.append(said)
    return parts


def findings(verdict: Verdict, files: dict[str, str | None]) -> list[Finding]:
    """Every located finding of the failing and warning rows, at most once per place and text.

    A location counts only for a path in `files` (the PR's changed paths and the head files
    read, path -> text or None when its text is unknown) and, when its text is known, a line
    it has: text taken from the PR that merely looks like `path:line` points nowhere else."""
    found: list[Finding] = []
    seen: set[tuple[str, int, str]] = set()
    for row in verdict.rows:
        if row.status not in LEVELS:
            continue
        for part in _parts(row):
            for match in _LOCATED.finditer(part):
                path, line = match["path"], int(match["line"])
                if path not in files:
                    continue
                text = files[path]
                if text is not None and line > len(text.splitlines()):
                    continue
                if (path, line, part) not in seen:
                    seen.add((path, line, part))
                    found.append(Finding(row, part, path, line))
    return found


def known_files(evidence: Evidence) -> dict[str, str | None]:
    """Where an annotation may point: the PR's changed paths (text at the head when read)."""
    files: dict[str, str | None] = {}
    for changed in evidence.files or []:
        if changed.status != "removed":
            files[changed.filename] = evidence.head_files.get(changed.filename)
    return files


def annotations(found: list[Finding]) -> tuple[Annotation, ...]:
    """One annotation per finding, capped at MAX_ANNOTATIONS."""
    out = []
    for item in found[:MAX_ANNOTATIONS]:
        message = inert.clip(item.text, MAX_MESSAGE_CHARS)
        out.append(Annotation(path=item.path, start_line=item.line, end_line=item.line,
                              level=LEVELS[item.row.status], message=message,
                              title=f"Check {item.row.spec.number} ({item.row.spec.name}): "
                                    f"{item.row.status.value}"))
    return tuple(out)


def title(verdict: Verdict) -> str:
    """One line of plain text (GitHub shows a check run's title as it is)."""
    if verdict.overall == Overall.REJECTED:
        names = ", ".join(f"Check {r.spec.number} ({r.spec.name})" for r in verdict.failing())
        return f"REJECTED: {names} failed"
    return f"Verdict: {verdict.overall.value}"


def verdict_output(verdict: Verdict, evidence: Evidence, description: str,
                   comment_url: str | None, repo: str = "") -> CheckOutput:
    """The check run of a verdict: its header and status line as the summary (with a link to
    the verdict comment and a note of findings past the cap), the check table as its text."""
    found = findings(verdict, known_files(evidence))
    notes = annotations(found)
    lines = [HEADERS[verdict.overall], "", inert.plain(description)]
    if verdict.overall == Overall.REJECTED:
        lines += ["", f"Blocking: {blocking_summary(verdict)}"]  # already inert markdown
    if notes:
        lines += ["", f"{len(notes)} finding(s) annotated on the changed files."]
    if len(found) > len(notes):
        lines += [f"… and {len(found) - len(notes)} more located finding(s), not annotated "
                  "(GitHub's annotations are capped here); see the check table."]
    if comment_url:
        lines += ["", f"The verdict comment: {comment_url}"]
    lines += ["", f"Assessed commit: `{evidence.pr.head_sha}`."]
    return CheckOutput(title=title(verdict), summary=fit("\n".join(lines) + "\n"),
                       text=fit(check_table(verdict, repo)), annotations=notes)


def error_output(description: str, comment_url: str | None, head_sha: str) -> CheckOutput:
    """The check run when nothing was verified (evidence unreadable, an invalid verdict)."""
    lines = ["## **Not verified**", "", inert.plain(description)]
    if comment_url:
        lines += ["", f"What could not be read: {comment_url}"]
    lines += ["", f"Assessed commit: `{head_sha}`."]
    return CheckOutput(title="Not verified", summary=fit("\n".join(lines) + "\n"))


def withdrawn_output(summary: str | None, text: str | None, description: str, reason: str,
                     explained_at: str | None) -> CheckOutput:
    """A passed verdict's check run when its head's status no longer says success (the
    sign-off changed or its author is no longer an owner, the PR was retargeted, or came back
    to this head): why, first; the verdict's own summary and check table after it, as the
    record of what was verified."""
    lines = ["## **Withdrawn: this head is not verified now**", "", inert.plain(description),
             "", f"Why: {inert.plain(reason)}"]
    if explained_at:
        lines += ["", f"Where the status was decided: {explained_at}"]
    if summary:
        lines += ["", "---", "", "What this check run said before (the verdict it no longer stands for):",
                  "", summary]
    return CheckOutput(title="Withdrawn: not verified now", summary=fit("\n".join(lines) + "\n"),
                       text=fit(text or ""))


def batches(notes: tuple[Annotation, ...]) -> list[tuple[Annotation, ...]]:
    """The annotations in GitHub's requests of at most 50 (the first goes with the output)."""
    size = MAX_ANNOTATIONS_PER_REQUEST
    return [notes[i:i + size] for i in range(0, len(notes), size)] or [()]
