"""Grammar of the slash-command lines (`/reuse-sweep-run [id]`, `/use <id>`, `/retest-failed`, ...); who may issue them is authorization's."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Protocol

from infx.commands.rendered import plain_lines

REUSE_COMMAND = "/reuse-sweep-run"
USE_ALIAS = "/use"
USAGE = "/use <run_id> or /reuse-sweep-run [run_id]"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# A whole line holding only the command; horizontal whitespace only, ASCII digits only
# (Python's \d and \s would also accept Unicode digits and line separators).
_REUSE_LINE = re.compile(r"[ \t]*/reuse-sweep-run(?:[ \t]+([0-9]+))?[ \t]*")
_USE_LINE = re.compile(r"[ \t]*/use[ \t]+([0-9]+)[ \t]*")


@dataclass(frozen=True)
class ReuseCommand:
    """One parsed command: which spelling was used and the pinned run id, if any."""

    name: str  # REUSE_COMMAND or USE_ALIAS
    run_id: int | None  # None = automatic selection (bare /reuse-sweep-run)

    @property
    def pinned(self) -> bool:
        return self.run_id is not None

    def __str__(self) -> str:
        return self.name if self.run_id is None else f"{self.name} {self.run_id}"


class CommentLike(Protocol):
    body: str | None
    author_association: str | None
    created_at: Any


@dataclass(frozen=True)
class AuthorizedRequest:
    """The comment that currently decides reuse, and what it asked for."""

    comment: Any
    command: ReuseCommand
    authority: Any = None  # infx.commands.authorization.Authority, once permission was read


def parse_line(line: str) -> ReuseCommand | None:
    """Parse one line; anything but a whole-line command yields None."""
    line = line.removesuffix("\r")
    match = _REUSE_LINE.fullmatch(line)
    if match:
        digits = match.group(1)
        return ReuseCommand(REUSE_COMMAND, int(digits) if digits is not None else None)
    match = _USE_LINE.fullmatch(line)
    if match:
        return ReuseCommand(USE_ALIAS, int(match.group(1)))
    return None


def raw_commands(body: str | None) -> list[ReuseCommand]:
    """Every whole-line command of the body's source text, in order (rendered or not)."""
    return [c for c in map(parse_line, (body or "").split("\n")) if c is not None]


@lru_cache(maxsize=512)  # the resolver, the ack and Check `reuse` read the same bodies repeatedly
def parse_command(body: str | None) -> ReuseCommand | None:
    """The last command a reader sees as a line of its own, or None if there is none.

    A command counts only when it is both a whole line of the source and a plain-text line of
    the rendered comment (not in an HTML comment, code, a quote, ...: see infx.commands.rendered),
    so neither hidden markup nor character references can smuggle one in.
    """
    typed = raw_commands(body)
    if not typed:
        return None
    shown = [c for c in map(parse_line, plain_lines(body)) if c is not None]
    for command in reversed(shown):
        if command in typed:
            return command
    return None


def mentions_command(body: str | None) -> bool:
    """Cheap pre-filter: does the text mention either command name anywhere?"""
    text = body or ""
    return REUSE_COMMAND in text or USE_ALIAS in text


def _field(comment: Any, name: str) -> Any:
    if isinstance(comment, Mapping):
        return comment.get(name)
    return getattr(comment, name, None)


def _timestamp(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, str) and value:
        try:
            return _timestamp(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            pass
    return _EPOCH


def newest_first(comments: Iterable[Any]) -> list[Any]:
    """The comments newest first, by created_at; ties put the later position in the input first
    (GitHub lists comments oldest first)."""
    indexed = list(enumerate(comments))
    indexed.sort(key=lambda pair: (_timestamp(_field(pair[1], "created_at")), pair[0]))
    return [comment for _, comment in reversed(indexed)]


def commands_newest_first(comments: Iterable[CommentLike | Mapping[str, Any]]
                          ) -> Iterator[AuthorizedRequest]:
    """Every comment (newest first, by created_at) that holds a command, with the command; who
    may issue it is infx.commands.authorization's decision."""
    for comment in newest_first(comments):
        command = parse_command(_field(comment, "body"))
        if command is not None:
            yield AuthorizedRequest(comment, command)


# ---- the other slash commands, read by the same rendered-text rules ----------------------------

RETEST_COMMAND = "/retest-failed"
RETEST_ALIAS = "/retest"  # Prow's spelling, which most CI users know: the same command
PARETO_BYPASS_COMMAND = "/pareto-bypass"
HELP_COMMAND = "/help"
REVERIFY_COMMAND = "/reverify"
APPROVE_SWEEP_COMMAND = "/approve-sweep"  # a fork PR's head, approved for a sweep (infx.commands.fork_approval)
_RETEST_LINE = re.compile(r"[ \t]*/retest(?:-failed)?[ \t]*")
_HELP_LINE = re.compile(r"[ \t]*/help[ \t]*")
_REVERIFY_LINE = re.compile(r"[ \t]*/reverify[ \t]*")
_BYPASS_LINE = re.compile(rf"[ \t]*{re.escape(PARETO_BYPASS_COMMAND)}[ \t]+[0-9a-f]{{40}}[ \t]*")
_APPROVE_LINE = re.compile(rf"[ \t]*{re.escape(APPROVE_SWEEP_COMMAND)}[ \t]+[0-9a-f]{{40}}[ \t]*")
# a line that starts like a slash command: `/word` then whitespace or the end (a path such as
# `/usr/bin` is not one); the word is what a near-miss is measured by
_SLASH_WORD = re.compile(r"[ \t]*(/[A-Za-z][A-Za-z0-9_-]*)(?:[ \t][^\n]*)?")


def _typed_and_shown(body: str | None, parse: Any) -> list[Any]:
    """`parse(line)` of every line that is both a source line of its own and a line a reader
    sees as plain text (never in code, a quote or an HTML comment), in rendered order."""
    typed = {found for line in (body or "").split("\n") if (found := parse(line.removesuffix("\r"))) is not None}
    if not typed:
        return []
    return [found for line in plain_lines(body or "") if (found := parse(line)) is not None and found in typed]


def is_retest_line(line: str) -> bool:
    """`/retest-failed` or `/retest`, alone on the line."""
    return _RETEST_LINE.fullmatch(line.removesuffix("\r")) is not None


def is_help_line(line: str) -> bool:
    """`/help`, alone on the line."""
    return _HELP_LINE.fullmatch(line.removesuffix("\r")) is not None


def is_reverify_line(line: str) -> bool:
    """`/reverify`, alone on the line."""
    return _REVERIFY_LINE.fullmatch(line.removesuffix("\r")) is not None


def has_reverify(body: str | None) -> bool:
    """`/reverify` on a line of its own, as shown."""
    return bool(_typed_and_shown(body, lambda line: True if is_reverify_line(line) else None))


def is_bypass_line(line: str) -> bool:
    """`/pareto-bypass <40-hex sha>`, alone on the line."""
    return _BYPASS_LINE.fullmatch(line.removesuffix("\r")) is not None


def is_approve_sweep_line(line: str) -> bool:
    """`/approve-sweep <40-hex sha>`, alone on the line."""
    return _APPROVE_LINE.fullmatch(line.removesuffix("\r")) is not None


def has_retest(body: str | None) -> bool:
    """`/retest-failed` (or its alias `/retest`) on a line of its own, as shown."""
    return bool(_typed_and_shown(body, lambda line: True if is_retest_line(line) else None))


def has_help(body: str | None) -> bool:
    """`/help` on a line of its own, as shown."""
    return bool(_typed_and_shown(body, lambda line: True if is_help_line(line) else None))


def slash_lines(body: str | None) -> list[tuple[str, str]]:
    """(the `/word`, the whole line stripped) of every line that starts like a slash command,
    both typed as a line of its own and shown as plain text, in rendered order."""
    def parse(line: str) -> tuple[str, str] | None:
        match = _SLASH_WORD.fullmatch(line)
        return (match.group(1), line.strip()) if match else None

    return _typed_and_shown(body, parse)


def bypass_shas(body: str | None, command: str = PARETO_BYPASS_COMMAND) -> list[str]:
    """The commit shas of every `<command> <40-hex sha>` line of its own, as shown."""
    line = re.compile(rf"[ \t]*{re.escape(command)}[ \t]+([0-9a-f]{{40}})[ \t]*")

    def parse(text: str) -> str | None:
        match = line.fullmatch(text)
        return match.group(1) if match else None

    return _typed_and_shown(body, parse)


def approve_sweep_shas(body: str | None) -> list[str]:
    """The commits of every `/approve-sweep <40-hex sha>` line of its own, as shown."""
    return bypass_shas(body, APPROVE_SWEEP_COMMAND)
