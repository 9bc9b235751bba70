"""One status comment per PR and command kind: a 👎 is followed by its reason there, not only in a step summary.

Only for kinds whose registry entry `replies`: the reuse acknowledgement answers with its
reaction and step summary alone (PRODUCT §4.6: it never posts reply comments).

The comment is upserted (found by its marker, edited in place, never repeated): a refusal
creates or updates it; a later acceptance updates it only when it exists, so an accepted
command on a PR that never had a refusal still gets no reply comment. The reason is the
step summary's text, already inert markdown (infx.inert), so nothing from the PR renders as
structure or mentions anyone.
"""

from __future__ import annotations

from typing import Any

from infx.commands.registry import command
from infx.github.markers import Marker, make_marker

STATUS_MARKER_NAME = "infx-command-status"
_ANSWER = {"+1": "👍 accepted", "-1": "👎 refused"}


def status_marker(kind: str) -> Marker:
    return make_marker(STATUS_MARKER_NAME, command=kind)


def status_body(kind: str, reaction: str, summary: str, comment_url: str) -> str:
    """The status comment of one command kind: the newest answer, to which comment, and why."""
    entry = command(kind)
    names = " / ".join(f"`{name}`" for name in entry.names)
    where = f"[this comment]({comment_url})" if comment_url.startswith("https://") else "a comment"
    return (f"**{names}** · the latest answer, to {where}: **{_ANSWER[reaction]}**\n\n"
            f"Why: {summary}\n\n"
            "`/help` lists every command, who may use it and how it is written.\n")


def post_status(client: Any, repo: str, pr_number: int, kind: str, reaction: str | None,
                summary: str, comment_url: str) -> str | None:
    """Upsert the kind's status comment after a reaction; returns what was done, or None."""
    if reaction not in _ANSWER or not command(kind).replies:
        return None
    marker = status_marker(kind)
    if reaction == "+1" and client.find_comment(repo, pr_number, marker) is None:
        return None
    return client.upsert_comment(repo, pr_number, marker, status_body(kind, reaction, summary, comment_url)).action
