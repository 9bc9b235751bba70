"""The lines of a comment that GitHub shows as plain text, decided by GitHub's own renderer (cmark-gfm).

A reuse command only counts when a reader sees it as a line of its own. Everything else is
not "rendered text" for this purpose: HTML comments and other raw HTML (invisible or
attacker-styled), fenced and indented code blocks, inline code, block quotes (someone else's
words), headings, lists, tables, and lines carrying emphasis, links, strike-through or images.
Only top-level paragraphs are read; a paragraph holding any raw HTML is skipped whole, since
an opening tag can hide or restyle the lines after it.
"""

from __future__ import annotations

import html
import re

import cmarkgfm

_OPAQUE = "\x00"  # stands for anything on a line that is not plain text
# cmark-gfm's own HTML: comments (its "raw HTML omitted" marker), tags, and escaped text
_TOKEN = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][A-Za-z0-9]*)\b[^>]*?(/?)>|[^<]+|<", re.S)
_VOID = frozenset({"br", "img", "input", "hr"})


def _paragraphs(rendered: str) -> list[str]:
    """The text of each top-level <p> without raw HTML; inline markup becomes _OPAQUE."""
    paragraphs: list[str] = []
    depth = 0  # open block elements outside a paragraph
    parts: list[str] | None = None  # the open top-level paragraph, if any
    nested = 0  # open inline elements inside it
    poisoned = False
    for match in _TOKEN.finditer(rendered):
        token = match.group(0)
        closing, tag, self_closing = match.group(1), (match.group(2) or "").lower(), match.group(3)
        if token.startswith("<!--"):
            poisoned = poisoned or parts is not None
        elif not tag:  # text (or a stray "<", which cmark never emits)
            if parts is not None:
                parts.append(_OPAQUE if nested else html.unescape(token))
        elif parts is not None:  # inside a top-level paragraph
            if tag == "p" and closing and not nested:
                if not poisoned:
                    paragraphs.append("".join(parts))
                parts = None
            elif tag == "br" and not nested:
                parts.append("\n")
            elif closing:
                nested = max(0, nested - 1)
            else:
                parts.append(_OPAQUE)
                nested += 0 if (self_closing or tag in _VOID) else 1
        elif tag == "p" and not closing and depth == 0:
            parts, nested, poisoned = [], 0, False
        elif not (self_closing or tag in _VOID):
            depth = max(0, depth - 1) if closing else depth + 1
    return paragraphs


def plain_lines(body: str | None) -> list[str]:
    """The rendered lines of the comment's top-level paragraphs that are plain text only."""
    text = (body or "").replace("\x00", "\ufffd")
    rendered = cmarkgfm.github_flavored_markdown_to_html(text)
    return [line for paragraph in _paragraphs(rendered) for line in paragraph.split("\n")
            if _OPAQUE not in line]
