"""Who may request reuse: an allowed author association AND write, maintain or admin permission."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from infx.reuse.grammar import (
    USAGE,
    AuthorizedRequest,
    is_authorized_association,
    newest_authorized,
    parse_command,
)

AUTHORIZED_PERMISSIONS = frozenset({"admin", "maintain", "write"})


def has_write_permission(permission: str | None) -> bool:
    return (permission or "").lower() in AUTHORIZED_PERMISSIONS


def _user(comment: Any) -> str:
    return comment.get("user", "") if isinstance(comment, dict) else getattr(comment, "user", "")


def newest_request(comments: Iterable[Any], permission_of: Callable[[str], str]
                   ) -> AuthorizedRequest | None:
    """The newest command comment whose author passes both checks (permission looked up lazily).

    Candidates come newest first from the association filter; an allowed association without
    write permission (e.g. a read-only collaborator) is skipped like any unauthorized comment.
    """
    remaining = list(comments)
    cache: dict[str, str] = {}
    while True:
        found = newest_authorized(remaining)
        if found is None:
            return None
        user = _user(found.comment)
        if user not in cache:
            cache[user] = permission_of(user)
        if has_write_permission(cache[user]):
            return found
        remaining = [c for c in remaining if c is not found.comment]


def rejection_reason(association: str | None, permission: str | None, body: str | None) -> str | None:
    """Why one comment cannot authorize reuse, or None if it can."""
    if not is_authorized_association(association):
        return "Reuse requires an OWNER, MEMBER, or COLLABORATOR request."
    if not has_write_permission(permission):
        return "Reuse requires write, maintain or admin permission on the repository."
    if parse_command(body) is None:
        return f"The comment has no valid command line. Usage: {USAGE}."
    return None
