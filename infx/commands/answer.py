"""Answer `/help` with one upserted comment, and a near-miss of a command with a 😕 and the suggestion.

Read from the comment as it is now (an event queued before an edit is stale and does nothing),
by the rendered-text rules of every command; bots are never answered. On an edit that fixed
the line, the bot's 😕 is taken back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from infx.commands.authorization import is_bot
from infx.commands.grammar import has_help
from infx.commands.registry import HELP_MARKER_NAME, help_body, near_misses
from infx.github.failures import GitHubError
from infx.github.markers import make_marker
from infx.inert import render_inert

CONFUSED = "confused"


@dataclass(frozen=True)
class Answer:
    reaction: str | None  # "confused" when a near-miss was answered
    summary: str
    help: str | None = None  # what happened to the help comment: created | updated | unchanged


def answer(client: Any, repo: str, event: Any) -> Answer:
    """Handle one issue_comment event (the fields of infx.reuse.ack.CommentEvent)."""
    if event.action not in ("created", "edited") or not event.is_pull_request:
        return Answer(None, "Not a new or edited pull request comment; nothing to do.")
    try:
        current = client.get_comment(repo, event.comment_id)
    except GitHubError as exc:
        if exc.status != 404:
            raise
        return Answer(None, "The comment was deleted; nothing to do.")
    if current.body != event.body or current.updated_at != event.updated_at:
        return Answer(None, "The comment changed since this event was queued; a newer run answers it.")
    if is_bot(current.user, current.user_type):
        return Answer(None, "Comments by bots are never answered.")
    pr = event.issue_number
    lines = []
    helped = None
    if has_help(current.body):
        helped = client.upsert_comment(repo, pr, make_marker(HELP_MARKER_NAME), help_body()).action
        lines.append(f"PR #{pr}: `/help` answered (help comment {helped}).")
    misses = near_misses(current.body)
    if misses:
        client.add_reaction(repo, current.id, CONFUSED)
        lines += [f"PR #{pr}: " + render_inert(miss.suggestion) for miss in misses]
        return Answer(CONFUSED, "\n".join(lines), helped)
    if event.action == "edited" and client.remove_reaction(repo, current.id, CONFUSED):
        lines.append(f"PR #{pr}: the comment no longer nearly spells a command; took back the 😕.")
    return Answer(None, "\n".join(lines) or f"PR #{pr}: no `/help` and no near-miss of a command; nothing to do.",
                  helped)
