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
# inline content of a paragraph in cmark-gfm's own HTML: comments (its "raw HTML omitted"
# marker), tags, and escaped text
_TOKEN = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][A-Za-z0-9]*)\b[^>]*?(/?)>|[^<]+|<", re.S)
_VOID = frozenset({"br", "img", "input", "hr"})
_PARAGRAPH = "<p>"  # cmark-gfm opens every paragraph exactly so (no source positions asked)


def _depth_change(html_text: str) -> int:
    """Block containers a stretch of cmark's HTML opens minus those it closes (quotes, list items)."""
    return (html_text.count("<blockquote>") - html_text.count("</blockquote>")
            + html_text.count("<li>") + html_text.count("<li ") - html_text.count("</li>"))


def _inline_text(content: str) -> str | None:
    """A paragraph's text with inline markup as _OPAQUE, or None if it holds raw HTML."""
    parts: list[str] = []
    nested = 0  # open inline elements
    for match in _TOKEN.finditer(content):
        token = match.group(0)
        closing, tag, self_closing = match.group(1), (match.group(2) or "").lower(), match.group(3)
        if token.startswith("<!--"):
            return None
        if not tag:  # text (or a stray "<", which cmark never emits)
            parts.append(_OPAQUE if nested else html.unescape(token))
        elif tag == "br" and not nested:
            parts.append("\n")
        elif closing:
            nested = max(0, nested - 1)
        else:
            parts.append(_OPAQUE)
            nested += 0 if (self_closing or tag in _VOID) else 1
    return "".join(parts)


def _paragraphs(rendered: str) -> list[str]:
    """The text of each top-level paragraph without raw HTML (see _inline_text).

    Paragraphs hold inline content only and user text arrives escaped, so the containers
    around a paragraph are counted with plain string counts between paragraphs: linear in
    the HTML however deeply a hostile comment nests quotes or lists.
    """
    paragraphs: list[str] = []
    depth, done = 0, 0
    start = rendered.find(_PARAGRAPH)
    while start >= 0:
        depth += _depth_change(rendered[done:start])
        end = rendered.find("</p>", start)
        end = len(rendered) if end < 0 else end
        if depth == 0:
            text = _inline_text(rendered[start + len(_PARAGRAPH):end])
            if text is not None:
                paragraphs.append(text)
        done = end
        start = rendered.find(_PARAGRAPH, end)
    return paragraphs


def plain_lines(body: str | None) -> list[str]:
    """The rendered lines of the comment's top-level paragraphs that are plain text only."""
    text = (body or "").replace("\x00", "\ufffd")
    rendered = cmarkgfm.github_flavored_markdown_to_html(text)
    return [line for paragraph in _paragraphs(rendered) for line in paragraph.split("\n")
            if _OPAQUE not in line]
