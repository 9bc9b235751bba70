"""CODEOWNERS parsing and matching with GitHub's semantics (last matching line wins)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_OWNER = re.compile(r"^(@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9_.-]+)?|[^@\s]+@[^@\s]+\.[^@\s]+)$")


@dataclass(frozen=True)
class Rule:
    """One CODEOWNERS line: a path pattern and the owners it assigns (maybe none)."""

    pattern: str
    owners: tuple[str, ...]
    line: int

    @property
    def is_catch_all(self) -> bool:
        return self.pattern in ("*", "/*", "**", "/**")

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
    def __init__(self, regex: re.Pattern[str], dir_only: bool, expands: bool) -> None:
        self.regex = regex
        self.dir_only = dir_only
        self.expands = expands  # may match a directory and therefore everything inside it

    def match(self, path: str) -> bool:
        path = path.strip("/")
        parts = path.split("/")
        if not self.dir_only and self.regex.fullmatch(path):
            return True
        if not self.expands:
            return False
        return any(self.regex.fullmatch("/".join(parts[:i])) for i in range(1, len(parts)))


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> _Matcher:
    dir_only = pattern.endswith("/")
    body = pattern.strip("/") if pattern != "/" else ""
    anchored = pattern.startswith("/") or "/" in body
    if body.endswith("/**"):
        # "dir/**" is everything inside dir: same as "dir/"
        body, dir_only = body[: -len("/**")], True
    segments = body.split("/") if body else []
    regex = "/".join(_segment_regex(seg) for seg in segments)
    # "**/" segments were rendered as optional prefixes; tidy the joins they leave
    regex = regex.replace("(?:.*/)?/", "(?:.*/)?")
    if not anchored:
        regex = "(?:.*/)?" + regex
    last = segments[-1] if segments else ""
    # GitHub: "docs/*" owns direct children only, so a wildcard last segment never
    # spreads to the contents of a matching directory; "apps" or "apps/" does.
    expands = dir_only or not any(ch in last for ch in "*?")
    return _Matcher(re.compile(regex, re.DOTALL), dir_only, expands)


def _segment_regex(segment: str) -> str:
    if segment == "**":
        return "(?:.*/)?"
    out = []
    for ch in segment:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)
