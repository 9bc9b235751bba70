"""A posted comment as GitHub renders it: its tags, link targets and the text outside code."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

# GitHub's mention, team-mention and reference filters run on the rendered text (not code)
MENTION = re.compile(r"(?<![\w`/])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[\w.-]+)?")
REFERENCE = re.compile(r"(?<![\w&/])(?:[\w.-]+/[\w.-]+)?#\d+\b")
SHORTCODE = re.compile(r":[a-z0-9_+-]+:")
BOT_TAGS = {"p", "h2", "strong", "details", "summary", "code", "a"}


class Html(HTMLParser):
    """Tags, hrefs and the text outside code spans of a rendered comment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.text: list[str] = []
        self.in_code = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        self.in_code += tag == "code"
        self.hrefs += [value for name, value in attrs if name == "href"]

    def handle_endtag(self, tag: str) -> None:
        self.in_code -= tag == "code"

    def handle_data(self, data: str) -> None:
        if not self.in_code:
            self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.tags.append("!--")


def rendered(markdown: str) -> Html:
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    parsed = Html()
    parsed.feed(html)
    return parsed
