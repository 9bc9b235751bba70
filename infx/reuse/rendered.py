"""The lines of a comment that GitHub shows as plain text, decided by GitHub's own renderer (cmark-gfm).

A reuse command only counts when a reader sees it as a line of its own. Everything else is
not "rendered text" for this purpose: HTML comments and other raw HTML (invisible or
attacker-styled), fenced and indented code blocks, inline code, block quotes (someone else's
words), headings, lists, tables, and lines carrying emphasis, links, strike-through or images.
Only top-level paragraphs are read; a paragraph holding any raw HTML is skipped whole, since
an opening tag can hide or restyle the lines after it.
"""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm

_OPAQUE = "\x00"  # stands for anything on a line that is not plain text


class _Paragraphs(HTMLParser):
    """Collect the plain text of top-level <p> elements from cmark-gfm's HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open elements
        self.in_paragraph = False
        self.nested = 0  # open inline elements inside the current paragraph
        self.poisoned = False
        self.parts: list[str] = []
        self.paragraphs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if self.in_paragraph:
            if tag == "br" and not self.nested:
                self.parts.append("\n")
            elif tag != "br":
                self.nested += 1
                self.parts.append(_OPAQUE)
            return
        if tag == "p" and self.depth == 0:
            self.in_paragraph, self.poisoned, self.parts = True, False, []
        self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if self.in_paragraph:
            self.parts.append("\n" if tag == "br" and not self.nested else _OPAQUE)

    def handle_endtag(self, tag: str) -> None:
        if self.in_paragraph and self.nested:
            self.nested -= 1
            return
        if self.in_paragraph and tag == "p":
            if not self.poisoned:
                self.paragraphs.append("".join(self.parts))
            self.in_paragraph = False
        self.depth = max(0, self.depth - 1)

    def handle_data(self, data: str) -> None:
        if self.in_paragraph:
            self.parts.append(_OPAQUE if self.nested else data)

    def handle_comment(self, data: str) -> None:  # cmark's "raw HTML omitted" marker
        if self.in_paragraph:
            self.poisoned = True


def plain_lines(body: str | None) -> list[str]:
    """The rendered lines of the comment's top-level paragraphs that are plain text only."""
    text = (body or "").replace("\x00", "\ufffd")
    parser = _Paragraphs()
    parser.feed(cmarkgfm.github_flavored_markdown_to_html(text))
    parser.close()
    return [line for paragraph in parser.paragraphs for line in paragraph.split("\n")
            if _OPAQUE not in line]
