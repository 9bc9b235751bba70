"""Additions of a changelog diff: the added lines as YAML text, deletions refused."""

from __future__ import annotations

from infx.errors import InfxError, Problem


def added_text(diff: str, path: str) -> str:
    """Join the added lines of a unified diff; any deleted non-blank line is an error.

    Hunk positions are ignored on purpose: the planner treats every added line as
    part of the appended YAML, exactly as the reference planner does.
    """
    added: list[str] = []
    for line in diff.split("\n"):
        if line.startswith("-") and not line.startswith("---"):
            if line[1:].strip():
                raise InfxError(Problem(
                    f"Deletions are not allowed in {path}. Only additions to the changelog are "
                    f"permitted. Found deleted line: {line[1:]}", file=path,
                    fix="restore the deleted line; merge the base branch if it moved ahead"))
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    return "\n".join(added)
