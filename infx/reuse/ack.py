"""Acknowledge a reuse command with a 👍 or 👎 reaction and a one-line reason; never a reply comment."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from infx.commands.authorization import authority_of, rejection_reason
from infx.commands.grammar import parse_command
from infx.commands.registry import near_misses
from infx.github.models import Comment
from infx.inert import render_inert
from infx.reuse.facts import ReuseError
from infx.reuse.gateway import GitHubGateway
from infx.reuse.resolver import find_request, resolve_source, unbound_reason
from infx.reuse.sources import DEFAULT_WORKFLOW, INCOMPATIBLE_LABELS

_ATTEMPT = re.compile(r"^[ \t]*(/reuse-sweep-run|/use)(?:[ \t]|$)", re.MULTILINE)


@dataclass(frozen=True)
class CommentEvent:
    """The parts of an issue_comment webhook payload the acknowledgement uses: the action, the
    issue, and the comment itself (the one model, infx.github.models.Comment)."""

    action: str
    issue_number: int
    is_pull_request: bool
    comment: Comment

    @classmethod
    def from_event(cls, event: Any) -> CommentEvent:
        """From infx.github.events' IssueCommentEvent (the parsed $GITHUB_EVENT_PATH payload)."""
        comment = event.comment or Comment(0, "", "", "", "", updated_at="")
        return cls(action=event.action or "", issue_number=event.issue_number,
                   is_pull_request=event.is_pull_request, comment=comment)

    @classmethod
    def of(cls, action: str, issue_number: int, is_pull_request: bool, comment_id: int, body: str,
           updated_at: str, html_url: str = "") -> CommentEvent:
        """An event for a comment known by its id, text and edit time (the demo's, a replay's)."""
        return cls(action, issue_number, is_pull_request,
                   Comment(comment_id, "", body, "", "", updated_at=updated_at, html_url=html_url or None))

    # what the handlers read of the comment, by the names the event payload gives them
    @property
    def comment_id(self) -> int:
        return self.comment.id

    @property
    def body(self) -> str:
        return self.comment.body

    @property
    def updated_at(self) -> str | None:
        return self.comment.updated_at

    @property
    def html_url(self) -> str:
        return self.comment.html_url or ""


@dataclass(frozen=True)
class AckOutcome:
    reaction: str | None  # "+1", "-1", or None when nothing was (re)acted
    summary: str
    failed: bool = False


def rejected_summary(pr: int, reason: str) -> str:
    """The step summary of a refused command; the reason may quote the PR, so it is shown inert."""
    return f"Reuse rejected for PR #{pr}: " + render_inert(reason)


def looks_like_command(body: str | None) -> bool:
    """A line that starts with a command name: worth a 👎 and a usage hint if it does not parse."""
    return bool(_ATTEMPT.search(body or ""))


def acknowledge(gateway: GitHubGateway, event: CommentEvent, *, workflow: str = DEFAULT_WORKFLOW,
                incompatible: tuple[str, ...] = INCOMPATIBLE_LABELS) -> AckOutcome:
    if event.action not in ("created", "edited") or not event.is_pull_request:
        return AckOutcome(None, "Not a new or edited pull request comment; nothing to do.")
    current = gateway.comment(event.comment_id)
    if current is None or current.body != event.body or current.updated_at != event.updated_at:
        return AckOutcome(None, "The comment changed since this event was queued; a newer run handles it.")
    gateway.clear_reactions(current.id)
    if not looks_like_command(current.body):
        return AckOutcome(None, "The comment no longer holds a reuse command; cleared the bot's reactions.")
    if parse_command(current.body) is None and near_misses(current.body):
        return AckOutcome(None, "The comment nearly spells a command but holds none; slash-commands.yml "
                                "answers it with 😕 and the suggestion.")
    pr = event.issue_number
    newest = find_request(gateway, pr)
    newest_id = newest.comment.id if newest is not None else None

    def changed() -> bool:
        """Did the comment or the effective request change while we were validating?"""
        again = gateway.comment(event.comment_id)
        if again is None or again.body != current.body or again.updated_at != current.updated_at:
            return True
        latest = find_request(gateway, pr)
        return (latest.comment.id if latest is not None else None) != newest_id

    try:
        reason = rejection_reason(current, authority_of(current, gateway.permission))
        if reason is not None:
            raise ReuseError(reason)
        if newest is None or newest.comment.id != current.id:
            raise ReuseError("A newer reuse request supersedes this comment.")
        unbound = unbound_reason(gateway, pr, newest)
        if unbound is not None:
            raise ReuseError(unbound)
        source = resolve_source(gateway, pr, newest, workflow=workflow, incompatible=incompatible,
                                require_open=True)
    except ReuseError as exc:
        if changed():
            gateway.clear_reactions(current.id)
            return AckOutcome(None, "The request changed during validation; a newer run handles it.")
        gateway.react(current.id, "-1")
        return AckOutcome("-1", rejected_summary(pr, exc.message), failed=True)
    if changed():
        gateway.clear_reactions(current.id)
        return AckOutcome(None, "The request changed during validation; a newer run handles it.")
    gateway.react(current.id, "+1")
    return AckOutcome("+1", f"Reuse accepted for PR #{pr}: run {source.id} ({source.conclusion}) "
                            f"on commit {source.head_sha[:12]}.")
