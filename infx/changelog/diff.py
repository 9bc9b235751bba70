"""Additions of a changelog diff: the added lines as YAML text, deletions refused."""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx.errors import InfxError, Problem

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class Additions:
    """Added lines joined as YAML text, and the head-file line number of each."""

    text: str
    lines: tuple[int, ...]

    def file_line(self, added_line: int | None) -> int | None:
        """Head-file line of a 1-based line of ``text`` (past the end: the last line)."""
        if added_line is None or added_line < 1 or not self.lines:
            return None
        return self.lines[min(added_line, len(self.lines)) - 1]


def additions(diff: str, path: str) -> Additions:
    """Collect the added lines of a unified diff; any deleted non-blank line is an error.

    Hunk positions are ignored on purpose: the planner treats every added line as
    part of the appended YAML, exactly as the reference planner does.
    """
    added: list[str] = []
    numbers: list[int] = []
    head_line = 0
    for line in diff.split("\n"):
        hunk = _HUNK.match(line)
        if hunk:
            head_line = int(hunk.group(1))
        elif line.startswith("-") and not line.startswith("---"):
            if line[1:].strip():
                raise InfxError(Problem(
                    f"Deletions are not allowed in {path}. Only additions to the changelog are "
                    f"permitted. Found deleted line: {line[1:]}", file=path,
                    line=head_line or None,
                    fix="restore the deleted line; merge the base branch if it moved ahead"))
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
            numbers.append(head_line)
            head_line += 1
        elif line.startswith(" "):
            head_line += 1
    return Additions("\n".join(added), tuple(numbers))


def added_text(diff: str, path: str) -> str:
    """Just the added YAML text of a diff (see ``additions``)."""
    return additions(diff, path).text
