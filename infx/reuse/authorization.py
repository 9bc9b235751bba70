"""Who may request reuse: an allowed author association AND write, maintain or admin permission; never a bot.

The one definition both the reuse resolver and the sign-off bot's Check 4 decide with. The
permission comes from the collaborator permission API: GitHub reports maintain as `write`
(and triage as `read`) in `permission` and the actual role in `role_name`, so a rule that
needs maintain/admin (pinning a run that did not succeed) reads `role_name`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from infx.reuse.grammar import (
    USAGE,
    AuthorizedRequest,
    is_authorized_association,
    newest_authorized,
    parse_command,
)

AUTHORIZED_PERMISSIONS = frozenset({"admin", "maintain", "write"})
ELEVATED_ROLES = frozenset({"admin", "maintain"})  # may pin a run that did not succeed
BOT_REJECTION = "Reuse cannot be authorized by a bot account."
ASSOCIATION_REJECTION = "Reuse requires an OWNER, MEMBER, or COLLABORATOR request."
PERMISSION_REJECTION = "Reuse requires write, maintain or admin permission on the repository."


@dataclass(frozen=True)
class Authority:
    """A commenter's standing on the repository, as the collaborator permission API reports it."""

    permission: str  # admin | write | read | none (GitHub folds maintain into write)
    role_name: str  # admin | maintain | write | triage | read | none | a custom role

    @classmethod
    def of(cls, record: Any) -> Authority:
        """From the client's Permission, a {permission, role_name} mapping, or None (= none)."""
        if record is None:
            return cls("none", "none")
        if isinstance(record, Authority):
            return record
        if isinstance(record, str):
            return cls(record.lower(), record.lower())
        get = record.get if isinstance(record, Mapping) else lambda k: getattr(record, k, None)
        permission = str(get("permission") or "none").lower()
        return cls(permission, str(get("role_name") or permission).lower())

    @property
    def can_write(self) -> bool:
        return self.permission in AUTHORIZED_PERMISSIONS or self.role_name in AUTHORIZED_PERMISSIONS

    @property
    def elevated(self) -> bool:
        """Maintain or admin (from role_name; `permission` alone cannot tell maintain from write)."""
        return self.role_name in ELEVATED_ROLES or self.permission == "admin"


def _field(comment: Any, name: str) -> Any:
    return comment.get(name) if isinstance(comment, Mapping) else getattr(comment, name, None)


def is_bot(login: str | None, user_type: str | None = None) -> bool:
    """GitHub App and other bot accounts: user type `Bot` or a `…[bot]` login."""
    return (user_type or "").lower() == "bot" or (login or "").lower().endswith("[bot]")


def has_write_permission(permission: Any) -> bool:
    """Write, maintain or admin, from a permission string or a permission record."""
    if isinstance(permission, str) or permission is None:
        return (permission or "").lower() in AUTHORIZED_PERMISSIONS
    return Authority.of(permission).can_write


def newest_request(comments: Iterable[Any], permission_of: Callable[[str], Any]
                   ) -> AuthorizedRequest | None:
    """The newest command comment whose author passes every check (permission looked up lazily).

    Candidates come newest first from the association filter; a bot, or an allowed association
    without write permission (e.g. a read-only MEMBER), is skipped like any unauthorized
    comment. The winner carries its author's Authority.
    """
    remaining = [c for c in comments if not is_bot(_field(c, "user"), _field(c, "user_type"))]
    cache: dict[str, Authority] = {}
    while True:
        found = newest_authorized(remaining)
        if found is None:
            return None
        user = _field(found.comment, "user") or ""
        if user not in cache:
            cache[user] = Authority.of(permission_of(user))
        if cache[user].can_write:
            return AuthorizedRequest(found.comment, found.command, cache[user])
        remaining = [c for c in remaining if c is not found.comment]


def rejection_reason(comment: Any, permission: Any) -> str | None:
    """Why one comment cannot authorize reuse, or None if it can."""
    if is_bot(_field(comment, "user"), _field(comment, "user_type")):
        return BOT_REJECTION
    if not is_authorized_association(_field(comment, "author_association")):
        return ASSOCIATION_REJECTION
    if not Authority.of(permission).can_write:
        return PERMISSION_REJECTION
    if parse_command(_field(comment, "body")) is None:
        return ("The comment has no valid command line (on a line of its own, as shown: not in "
                f"an HTML comment, code or a quote). Usage: {USAGE}.")
    return None
