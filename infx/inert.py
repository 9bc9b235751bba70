"""Inert markdown: untrusted text in the bot's comments renders as plain text, never as structure.

Row reasons mix the bot's words with text taken from the PR (file lines, titles, comment
excerpts, check-run names). Everything is escaped so GitHub shows it literally: no HTML,
no links or images, no emphasis, no emoji shortcodes, no @-mentions and no issue
references. The bot's own structure is requested explicitly with `code()` and `link()`,
which wrap text in private-use sentinels; `render_inert()` turns those (and only those)
into code spans and links. Text from a PR that carries the sentinels itself gains at most
a code span, or a link into this repository's own pages.
"""

from __future__ import annotations

import re
import unicodedata

CODE_OPEN, CODE_CLOSE = "\ue000", "\ue001"
LINK_OPEN, LINK_MID, LINK_CLOSE = "\ue002", "\ue003", "\ue004"
SENTINELS = CODE_OPEN + CODE_CLOSE + LINK_OPEN + LINK_MID + LINK_CLOSE
ZWSP = "\u200b"  # breaks GitHub's post-render filters (mentions, references, emoji) invisibly

# ASCII punctuation that opens markdown or HTML structure inside one line: code, emphasis,
# strikethrough, links and images (`[`), HTML and autolinks (`<`), entities (`&`), table
# cells; an underscore inside a word never opens emphasis, so only its word edges are escaped
_ESCAPE = re.compile(r"[\\`*\[\]<>|~&]|(?<![^\W_])_+|_+(?![^\W_])")
# what opens a block (heading, quote, list, rule) when it begins a line
_BLOCK_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")
# GitHub's filters that run after markdown: mentions, issue references, emoji shortcodes
# (after every `@`, not only before a word character: cmark-gfm's e-mail autolink reads `@` too)
# (and a shortcode is looked for in the rendered text, where an escaped `\_` is a plain `_`)
_FILTERED = re.compile(r"@|#(?=\w)|:(?=(?:\\?[\w+-])+:)")  # a ZWSP goes after the match
# every `www.`: GitHub autolinks it after a word boundary and also after `_`, `*`, `~` and `(`,
# escaped or not, and the link then swallows the backslash that escaped the next character
_WWW = re.compile(r"(?i)www\.")
_SCHEME = re.compile(r"(?i)(?<=[a-z]):(?=//)")
_PIECE = re.compile(f"{CODE_OPEN}([^{SENTINELS}]*){CODE_CLOSE}"
                    f"|{LINK_OPEN}([^{SENTINELS}]*){LINK_MID}([^{SENTINELS}]*){LINK_CLOSE}")
_SAFE_URL = r"[A-Za-z0-9/._~%?=&#-]+"


def code(text: str) -> str:
    """The bot asks for `text` as a code span (shown verbatim, never interpreted)."""
    return f"{CODE_OPEN}{_strip(text)}{CODE_CLOSE}"


def link(text: str, url: str) -> str:
    """The bot asks for a link; it renders only for a page of the verified repository."""
    return f"{LINK_OPEN}{_strip(text)}{LINK_MID}{_strip(url)}{LINK_CLOSE}"


_NO_SENTINELS = dict.fromkeys(map(ord, SENTINELS))


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, a cut one ending in `…`."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _strip(text: str) -> str:
    if any(sentinel in text for sentinel in SENTINELS):
        return text.translate(_NO_SENTINELS)
    return text


def _escaped(match: re.Match[str]) -> str:
    found = match.group(0)
    return "\\" + found if len(found) == 1 else "\\_" * len(found)  # runs are underscores


def plain(text: str) -> str:
    """Untrusted text as inert markdown: one line, every structure escaped."""
    text = _strip(re.sub(r"\s+", " ", str(text)))
    text = _ESCAPE.sub(_escaped, text)  # a backslash before each
    text = _BLOCK_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], text)
    text = _SCHEME.sub(":" + ZWSP, text)
    text = _WWW.sub(lambda m: m.group(0)[:-1] + "\\.", text)
    return _FILTERED.sub("\\g<0>" + ZWSP, text)


def _code_span(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_inert(text: str, repo: str = "", *, cell: bool = False) -> str:
    """A reason with the bot's own code spans and links, everything else plain. In a table cell
    (`cell=True`) a `|` inside a code span is escaped too: GitHub splits cells before it reads
    code spans, so an unescaped pipe there would end the cell."""
    out, last = [], 0
    allowed = re.compile(rf"https://github\.com/{re.escape(repo)}/{_SAFE_URL}") if repo else None
    for match in _PIECE.finditer(text):
        out.append(plain(text[last:match.start()]))
        if match.group(1) is not None:
            span = _code_span(match.group(1))
            out.append(span.replace("|", "\\|") if cell else span)
        else:
            label, url = match.group(2), match.group(3).strip()
            if allowed is not None and allowed.fullmatch(url) and "/." not in url:
                out.append(f"[{plain(label)}]({url})")
            else:
                out.append(plain(label) + " (" + plain(url) + ")")
        last = match.end()
    out.append(plain(text[last:]))
    return "".join(out).strip()


def cell(text: object, repo: str = "", *, raw: bool = False) -> str:
    """The one renderer of a markdown table cell: one line, inert, no `|` that could end the
    cell. `text` holds the bot's own `code()` / `link()` pieces, or with `raw=True` is a value
    taken as it came (a job name, a task, a score name), sentinels and all shown as plain text."""
    return plain(str(text)) if raw else render_inert(str(text), repo, cell=True)


def unwrap(text: str) -> str:
    """The text without sentinels, the bot's structure written as markdown source
    (`code`, [text](url)): for JSON output, logs and tests, never for a GitHub comment."""
    def source(match: re.Match) -> str:
        if match.group(1) is not None:
            return f"`{match.group(1)}`"
        return f"[{match.group(2)}]({match.group(3)})"

    return _strip(_PIECE.sub(source, text))


# what a mermaid quoted string may hold as itself: nothing that ends the string (`"`), starts an
# entity code (`#`), a directive or comment (`%`), a markdown string (`` ` ``) or HTML that
# mermaid's sanitizer would escape into a visible `&lt;` (`<`, `>`, `&`)
_MERMAID_PLAIN = re.compile(r"[A-Za-z0-9 ./:=+,()_-]")
MERMAID_TEXT_LIMIT = 80


def mermaid_text(text: object) -> str:
    """Untrusted text as the inside of a quoted mermaid string (a chart or axis title), shown
    exactly as written: one line, at most MERMAID_TEXT_LIMIT characters, and every character
    outside a small plain alphabet written as mermaid's numeric entity code (`<` as `#60;`),
    which the rendered chart shows as the character itself."""
    flat = " ".join(_strip(str(text)).split())[:MERMAID_TEXT_LIMIT]
    return "".join(ch if _MERMAID_PLAIN.fullmatch(ch) else f"#{_shown_code(ch)};" for ch in flat)


def _shown_code(ch: str) -> int:
    """The code point a chart shows for `ch`: control, format (bidi overrides), surrogate,
    private-use and unassigned characters as U+FFFD, never as themselves."""
    return 0xFFFD if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") else ord(ch)
