"""Shared plumbing of the policy checks: fail-closed reads, trusted policy, sign-off text."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import replace

from infx.config.policy import PolicyReader
from infx.errors import InfxError
from infx.signoff.model import ChangedFile, Evidence, Outcome, Status, touched_paths
from infx.signoff.table import Settings
from infx.signoff.trigger import checklist

PLACEHOLDER = checklist.DETAIL_PLACEHOLDER


class EvidenceGap(Exception):
    """Something a check needs could not be read; the check must fail closed."""


CheckFunction = Callable[[Evidence, Settings], Outcome]


def fail_closed(what: str) -> Callable[[CheckFunction], CheckFunction]:
    """Turn a missing or invalid input into FAIL "<what> could not be verified: …"."""

    def wrap(judge: CheckFunction) -> CheckFunction:
        @functools.wraps(judge)
        def run(evidence: Evidence, settings: Settings) -> Outcome:
            try:
                return judge(evidence, settings)
            except EvidenceGap as gap:
                return Outcome(Status.FAIL, f"{what} could not be verified: {gap}")
            except InfxError as exc:
                problems = "; ".join(str(p) for p in exc.problems)
                return Outcome(Status.FAIL, f"{what} could not be verified: {problems}")

        return run

    return wrap


def failed(problems: list[str], context: list[str] | None = None) -> Outcome:
    """FAIL led by the first problem (with a count of the rest); all of them in the details."""
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return Outcome(Status.FAIL, problems[0] + more, tuple(problems + (context or [])))


def changed_files(evidence: Evidence) -> list[ChangedFile]:
    if evidence.files is None:
        raise EvidenceGap("the PR's changed-file list could not be read")
    return evidence.files


def changed_paths(evidence: Evidence) -> list[str]:
    """Every path the PR touches (a rename's old and new name), once each, in listing order."""
    return touched_paths(evidence.files or [])


def diffed_files(evidence: Evidence) -> list[ChangedFile]:
    """Changed files with a patch each: a diff GitHub did not return (too large) is replaced
    by the whole file at head, so line scanners over-report rather than miss anything."""
    files = []
    for f in changed_files(evidence):
        if f.patch is None and f.status != "removed":
            text = head_text(evidence, f.filename) or ""
            lines = text.splitlines()
            f = replace(f, patch=f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines))
        files.append(f)
    return files


def head_text(evidence: Evidence, path: str) -> str | None:
    """Text of a file at the assessed head; ``None`` when the file does not exist there."""
    if path not in evidence.head_files:
        raise EvidenceGap(f"{path} at the assessed head was not read")
    return evidence.head_files[path]


def base_text(evidence: Evidence, path: str) -> str | None:
    if path not in evidence.base_files:
        raise EvidenceGap(f"{path} at the PR base was not read")
    return evidence.base_files[path]


def first_trusted_file(evidence: Evidence, paths: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(path, text) of the first of ``paths`` that exists on the default branch, else (None, None)."""
    for path in paths:
        text = evidence.default_branch_files.get(path)
        if text is not None:
            return path, text
    return None, None


def policy(evidence: Evidence) -> PolicyReader:
    """Policy files read from the trusted default branch, never from the PR head."""

    def read(path: str) -> str | None:
        if path not in evidence.default_branch_files:
            raise EvidenceGap(f"trusted policy file {path} was not read from the default branch")
        text = evidence.default_branch_files[path]
        if text is None:
            raise EvidenceGap(f"trusted policy file {path} does not exist on the default branch")
        return text

    return PolicyReader(read)


def detail_section(body: str) -> str:
    """The sign-off's "Additional detail section" (up to ``Signed:``), placeholder removed."""
    detail = checklist.parse(body or "").detail or ""
    lines = [ln for ln in detail.splitlines() if PLACEHOLDER not in ln.lower()]
    return "\n".join(lines).strip()


def detail_lines(body: str) -> list[str]:
    return [_clean(ln) for ln in detail_section(body).splitlines() if ln.strip()]


def exception_lines(body: str) -> list[str]:
    """Lines of the detail section starting ``Exception:`` (documented policy exceptions)."""
    return [ln for ln in detail_lines(body) if re.match(r"exception\s*:", ln, re.IGNORECASE)]


def _clean(line: str) -> str:
    """A markdown line without its list bullet or emphasis markers."""
    line = re.sub(r"^\s*(?:[-*+•]\s+(?:\[[ xX]\]\s*)?)?", "", line)
    return line.replace("**", "").strip()


def mentions_any(text: str, words: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in words)
