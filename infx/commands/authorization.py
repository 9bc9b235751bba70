"""Who may request reuse: write, maintain or admin permission on the repository; never a bot.

The one definition both the reuse resolver and the sign-off bot's Check `reuse` decide with. The
permission comes from the collaborator permission API: GitHub reports maintain as `write`
(and triage as `read`) in `permission` and the actual role in `role_name`, so a rule that
needs maintain/admin (pinning a run that did not succeed) reads `role_name`. The comment's
`author_association` grants nothing: GitHub reports a member whose organisation membership is
private as CONTRIBUTOR (or NONE). It only rules a comment out when the permission API cannot be
read for its author and the association says a non-collaborator (NONE, FIRST_TIMER,
FIRST_TIME_CONTRIBUTOR, MANNEQUIN); for anyone else an unreadable permission is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from infx.commands.grammar import USAGE, AuthorizedRequest, commands_newest_first, parse_command

AUTHORIZED_PERMISSIONS = frozenset({"admin", "maintain", "write"})
ELEVATED_ROLES = frozenset({"admin", "maintain"})  # may pin a run that did not succeed
BOT_REJECTION = "Reuse cannot be authorized by a bot account."
# associations that can only be outsiders: they rule a comment out when its author's permission
# cannot be read (anyone else's unreadable permission is an error, never a guess)
OUTSIDER_ASSOCIATIONS = frozenset({"NONE", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN"})
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


def authority_of(comment: Any, permission_of: Callable[[str], Any]) -> Authority:
    """The comment author's standing: none for a bot (never looked up); otherwise what the
    permission API says. When that cannot be read (`permission_of` raises), an outsider's
    association rules the comment out (no authority); for anyone else the error propagates."""
    none = Authority("none", "none")
    if is_bot(_field(comment, "user"), _field(comment, "user_type")):
        return none
    try:
        return Authority.of(permission_of(_field(comment, "user") or ""))
    except Exception:
        if str(_field(comment, "author_association") or "NONE").upper() in OUTSIDER_ASSOCIATIONS:
            return none
        raise


def newest_request(comments: Iterable[Any], permission_of: Callable[[str], Any]
                   ) -> AuthorizedRequest | None:
    """The newest command comment whose author passes every check (permission looked up lazily,
    once per author). A bot, or an author without write permission (e.g. a read-only MEMBER), is
    skipped like any unauthorized comment. The winner carries its author's Authority."""
    cache: dict[str, Authority] = {}
    for found in commands_newest_first(comments):
        user = _field(found.comment, "user") or ""
        if user not in cache:
            cache[user] = authority_of(found.comment, permission_of)
        if cache[user].can_write:
            return AuthorizedRequest(found.comment, found.command, cache[user])
    return None


def rejection_reason(comment: Any, permission: Any) -> str | None:
    """Why one comment cannot authorize reuse, or None if it can (`permission`: its author's
    record, e.g. from authority_of)."""
    if is_bot(_field(comment, "user"), _field(comment, "user_type")):
        return BOT_REJECTION
    if not Authority.of(permission).can_write:
        return PERMISSION_REJECTION
    if parse_command(_field(comment, "body")) is None:
        return ("The comment has no valid command line (on a line of its own, as shown: not in "
                f"an HTML comment, code or a quote). Usage: {USAGE}.")
    return None
