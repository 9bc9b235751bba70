"""Parse a sign-off comment: its checklist items, Additional detail section and Signed line."""

from __future__ import annotations

import re
from dataclasses import dataclass

TRIGGER_PHRASE = "As a PR reviewer and CODEOWNER"
TEMPLATE_FIRST_LINE = "As a PR reviewer and CODEOWNER, I have reviewed this and have:"
DETAIL_PLACEHOLDER = "insert any additional info here"

_ITEM = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+\[(?P<mark>[ xX])\][ \t]*(?P<text>.*)$")
_DETAIL_HEADING = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?\**additional details?(?: section)?\**[ \t]*:?\**[ \t]*$",
                             re.IGNORECASE)
_SIGNED = re.compile(r"^[ \t]*\**signed\**[ \t]*:\**[ \t]*(?P<who>.*)$", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


@dataclass(frozen=True)
class Item:
    text: str
    checked: bool
    indent: int
    line: int  # 1-based line in the body


@dataclass(frozen=True)
class Checklist:
    items: tuple[Item, ...]
    detail: str | None  # None: no Additional detail section heading
    signed: str | None  # the login after "Signed:", without @ or backticks
    has_trigger: bool

    @property
    def detail_is_placeholder(self) -> bool:
        """True when the detail section is missing, empty, or still the template placeholder."""
        if self.detail is None:
            return True
        text = re.sub(r"^[ \t]*[-*+•][ \t]*", "", self.detail, flags=re.MULTILINE).strip()
        return not text or text.lower() == DETAIL_PLACEHOLDER


def has_trigger(body: str | None) -> bool:
    """The plain, case-sensitive substring test that starts a verification."""
    return bool(body) and TRIGGER_PHRASE in body


def parse(body: str) -> Checklist:
    """Read the raw markdown of a sign-off."""
    lines = body.replace("\r\n", "\n").split("\n")
    items: list[Item] = []
    detail_start = signed_at = None
    signed = None
    for index, line in enumerate(lines):
        match = _ITEM.match(line)
        if match and detail_start is None:
            indent = len(match["indent"].expandtabs(4))
            items.append(Item(text=match["text"].strip(), checked=match["mark"] in "xX",
                              indent=indent, line=index + 1))
            continue
        if detail_start is None and _DETAIL_HEADING.match(line):
            detail_start = index + 1
            continue
        signed_match = _SIGNED.match(line)
        if signed_match:
            signed_at = index
            signed = _login(signed_match["who"])
    detail = None
    if detail_start is not None:
        end = signed_at if signed_at is not None and signed_at >= detail_start else len(lines)
        detail = "\n".join(lines[detail_start:end]).strip()
    return Checklist(items=tuple(items), detail=detail, signed=signed, has_trigger=has_trigger(body))


def _login(text: str) -> str | None:
    token = text.strip().strip("`*_ ").lstrip("@").strip()
    token = token.split()[0] if token.split() else ""
    return token or None


def template_items(markdown: str) -> tuple[Item, ...]:
    """Items of the checklist template: the first fenced block under the ``## Template`` heading."""
    block = template_block(markdown)
    return parse(block).items if block is not None else ()


def template_block(markdown: str) -> str | None:
    lines = markdown.replace("\r\n", "\n").split("\n")
    in_section = False
    inside: list[str] | None = None
    for line in lines:
        if inside is not None:
            if _FENCE.match(line):
                return "\n".join(inside)
            inside.append(line)
        elif re.match(r"^##[ \t]+Template\b", line, re.IGNORECASE):
            in_section = True
        elif in_section and re.match(r"^##[ \t]", line):
            in_section = False
        elif in_section and _FENCE.match(line):
            inside = []
    return None
