"""CODEOWNERS parsing and matching with GitHub's semantics (last matching line wins).

Checked against an independent implementation (PyPI ``codeowners``) over generated
pattern/path pairs in tests/unit/signoff/test_signoff_codeowners.py; they agree on every pair the
generator makes. Where this module departs from GitHub's documented rules, on purpose:

- ``!negation``, ``[a-z]`` character ranges and ``\\#`` escapes: GitHub documents that
  these gitignore features do not work in CODEOWNERS. The line is reported and skipped
  (GitHub likewise flags the line and ignores it); the oracle accepts ranges, so the
  generator leaves them out.
- Owners must look like ``@user``, ``@org/team`` or an e-mail address; any other owner
  makes the whole line an error, as on GitHub (the oracle keeps such lines).
- Escaped spaces in paths (``\\ ``) are not supported: the line fails on its owners and
  is reported; GitHub's documentation says nothing about them.
- GitLab-style ``[Section]`` headers are not CODEOWNERS syntax on GitHub; they are
  reported like character ranges (the oracle treats them as section names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

CATCH_ALL_PATTERNS = frozenset({"*", "**", "/**"})
_OWNER = re.compile(r"^(@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9_.-]+)?|[^@\s]+@[^@\s]+\.[^@\s]+)$")


@dataclass(frozen=True)
class Rule:
    """One CODEOWNERS line: a path pattern and the owners it assigns (maybe none)."""

    pattern: str
    owners: tuple[str, ...]
    line: int

    @property
    def is_catch_all(self) -> bool:
        """A line that owns every path of the repository. ``/*`` is not one: anchored at the
        root, its ``*`` never crosses a ``/``, so it owns top-level files only."""
        return self.pattern in CATCH_ALL_PATTERNS

    def matches(self, path: str) -> bool:
        return _compile(self.pattern).match(path)


@dataclass(frozen=True)
class LineError:
    line: int
    message: str


@dataclass(frozen=True)
class Codeowners:
    rules: tuple[Rule, ...]
    errors: tuple[LineError, ...] = ()

    def rule_for(self, path: str) -> Rule | None:
        """The winning rule for a path: the LAST line whose pattern matches."""
        for rule in reversed(self.rules):
            if rule.matches(path):
                return rule
        return None

    def owners_for(self, path: str) -> tuple[str, ...]:
        rule = self.rule_for(path)
        return rule.owners if rule else ()

    def catch_all_owners(self) -> tuple[str, ...]:
        """Owners (users and teams, without '@') of the last bare catch-all line, if any."""
        rule = next((r for r in reversed(self.rules) if r.is_catch_all), None)
        return tuple(o[1:] for o in rule.owners if o.startswith("@")) if rule else ()

    def all_owners(self) -> frozenset[str]:
        return frozenset(owner.lower() for rule in self.rules for owner in rule.owners)

    def teams(self) -> tuple[str, ...]:
        """Every team (``org/slug``, lower case, without '@') listed anywhere, the last
        catch-all line's teams first, then in file order."""
        catch_all = next((r for r in reversed(self.rules) if r.is_catch_all), None)
        ordered = [*(catch_all.owners if catch_all else ()), *(o for r in self.rules for o in r.owners)]
        return tuple(dict.fromkeys(o[1:].lower() for o in ordered if o.startswith("@") and "/" in o))


def parse(text: str) -> Codeowners:
    """Parse CODEOWNERS text. Invalid lines are skipped (as GitHub does) and reported."""
    rules: list[Rule] = []
    errors: list[LineError] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tokens = line.split()
        pattern, rest = tokens[0], tokens[1:]
        owners: list[str] = []
        for token in rest:
            if token.startswith("#"):
                break  # trailing comment
            owners.append(token)
        problem = _pattern_problem(pattern) or next(
            (f"invalid owner {o!r}" for o in owners if not _OWNER.match(o)), None)
        if problem:
            errors.append(LineError(number, problem))
            continue
        rules.append(Rule(pattern=pattern, owners=tuple(owners), line=number))
    return Codeowners(rules=tuple(rules), errors=tuple(errors))


def _pattern_problem(pattern: str) -> str | None:
    if pattern.startswith("!"):
        return "negation patterns (!) are not supported"
    if "[" in pattern or "]" in pattern:
        return "character ranges ([...]) are not supported"
    if pattern.startswith("\\#"):
        return "escaping # is not supported"
    return None


class _Matcher:
    """A compiled pattern: one regular expression matched against the whole path."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex

    def match(self, path: str) -> bool:
        return self.regex.fullmatch(path.strip("/")) is not None


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> _Matcher:
    """Translate a CODEOWNERS pattern (gitignore syntax, GitHub's reading) to a regex.

    - A slash anywhere but at the end anchors the pattern at the repository root;
      otherwise it may match at any depth.
    - A pattern that matches a directory owns everything below it, except when it ends
      in ``/*`` (GitHub: ``docs/*`` owns direct children only); a trailing ``/``
      matches directories only.
    - ``**`` as a whole segment spans any number of directories: leading ``**/`` and
      inner ``/**/`` may match none, trailing ``/**`` matches everything inside, and a
      bare ``**`` matches every path. Elsewhere ``*`` and ``?`` never cross a ``/``.
    """
    body = pattern.strip("/")
    anchored = "/" in pattern.rstrip("/")
    segments = body.split("/") if body else []
    regex = "" if anchored else "(?:.*/)?"
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            regex += ".*" if last else "(?:.*/)?"
            continue
        regex += _segment_regex(segment) + ("" if last else "/")
    if pattern.endswith("/"):
        regex += "/.*"  # directories only: something must lie below the match
    elif not pattern.endswith("/*"):
        regex += "(?:/.*)?"  # a matching directory owns its contents
    return _Matcher(re.compile(regex, re.DOTALL))


def _segment_regex(segment: str) -> str:
    out = []
    for ch in segment:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)
