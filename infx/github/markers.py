"""Hidden HTML comment markers (`<!-- name key=value -->`) that let bots find their own comments."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
_VALUE = re.compile(r"^[^\s<>=]+$")
_MARKER = re.compile(r"<!--\s*([A-Za-z0-9][A-Za-z0-9_.:-]*)((?:\s+[A-Za-z0-9_.-]+=[^\s<>=]+)*)\s*-->")


@dataclass(frozen=True)
class Marker:
    """A marker name plus optional key=value fields (e.g. the assessed sha)."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"invalid marker name {self.name!r}: use letters, digits, - _ . :")
        for key, value in self.fields.items():
            if not _NAME.match(key) or not _VALUE.match(str(value)):
                raise ValueError(f"invalid marker field {key}={value!r}: no spaces, <, > or =")

    @property
    def text(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.fields.items())
        return f"<!-- {self.name}{extra} -->"

    def __str__(self) -> str:
        return self.text

    def covers(self, other: Marker) -> bool:
        """True when `other` has this name and at least these fields (self is the pattern)."""
        return other.name == self.name and all(other.fields.get(k) == v
                                                 for k, v in self.fields.items())


def make_marker(name: str, **fields: object) -> Marker:
    return Marker(name, {k: str(v) for k, v in fields.items()})


def as_marker(value: Marker | str) -> Marker:
    """Accept a Marker, a bare name, or full marker text."""
    if isinstance(value, Marker):
        return value
    found = parse_markers(value)
    if found:
        return found[0]
    return Marker(value.strip())


def parse_markers(body: str) -> list[Marker]:
    """Every marker in a comment body, in order."""
    markers = []
    for match in _MARKER.finditer(body or ""):
        pairs = (part.split("=", 1) for part in match.group(2).split())
        markers.append(Marker(match.group(1), {k: v for k, v in pairs}))
    return markers


def first_line_marker(body: str) -> Marker | None:
    """The marker that opens the body's first line, if any (verdict comments start with one)."""
    first = (body or "").lstrip("\ufeff").split("\n", 1)[0].strip()
    match = _MARKER.match(first)
    return parse_markers(match.group(0))[0] if match else None


def has_marker(body: str, marker: Marker | str, *, first_line: bool = False) -> bool:
    """Does the body carry a marker covered by `marker` (anywhere, or on line 1 only)?"""
    pattern = as_marker(marker)
    if first_line:
        found = first_line_marker(body)
        return found is not None and pattern.covers(found)
    return any(pattern.covers(m) for m in parse_markers(body))


def with_marker(body: str, marker: Marker | str) -> str:
    """The body with the marker as its first line (unless it already starts with it)."""
    text = as_marker(marker).text
    if body.startswith(text):
        return body
    return f"{text}\n{body}"
