"""Errors that name where the problem is and how to fix it, plus GitHub annotations."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass


@dataclass
class Problem:
    """One located finding: what is wrong, where, and what to do about it."""

    message: str
    file: str | None = None
    line: int | None = None
    key: str | None = None
    fix: str | None = None
    level: str = "error"  # "error" | "warning"

    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file + (f":{self.line}" if self.line else ""))
        if self.key:
            parts.append(f"[{self.key}]")
        return " ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        text = f"{where}: {self.message}" if where else self.message
        if self.fix:
            text += f" (fix: {self.fix})"
        return text

    def annotation(self) -> str:
        """The GitHub Actions workflow command for this problem."""
        props = []
        if self.file:
            props.append(f"file={_escape_property(self.file)}")
        if self.line:
            props.append(f"line={self.line}")
        head = f"::{self.level}"
        if props:
            head += " " + ",".join(props)
        body = self.message + (f" (fix: {self.fix})" if self.fix else "")
        if self.key:
            body = f"[{self.key}] {body}"
        return f"{head}::{_escape_data(body)}"


class InfxError(Exception):
    """A user-facing failure carrying one or more located problems."""

    def __init__(self, problems: Problem | list[Problem] | str) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def in_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def report(problems: list[Problem], stream=None) -> None:
    """Print problems for a person, and as annotations when running in Actions.

    Everything goes to stderr: stdout is reserved for machine output (JSON), and
    the Actions runner reads workflow commands from stderr as well.
    """
    stream = stream or sys.stderr
    for problem in problems:
        prefix = "warning: " if problem.level == "warning" else "error: "
        print(prefix + str(problem), file=stream)
        if in_github_actions():
            print(problem.annotation(), file=stream)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
