"""What on GitHub is the bot's own: the one trust decision every path asks (PRODUCT §4.8 Identity)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

# the login every workflow's GITHUB_TOKEN writes as: never the identity of a GitHub App
SHARED_ACTIONS_LOGIN = "github-actions[bot]"


@dataclass(frozen=True)
class Identity:
    """Who the bot is on GitHub: the login its token writes as, and whether that token is a
    GitHub App's (then the login is the App's own `<app-slug>[bot]`)."""

    login: str
    app: bool = False

    def __post_init__(self) -> None:
        if self.app and self.login.lower() == SHARED_ACTIONS_LOGIN:
            raise ValueError(f"a GitHub App never writes as {SHARED_ACTIONS_LOGIN}: give the "
                             "App's own '<app-slug>[bot]' login")


class Authored(Protocol):
    """A comment or review as read from GitHub: `user` is its author's login."""

    @property
    def user(self) -> str: ...


def _is(identity: Identity, login: Any) -> bool:
    """Is `login` exactly the bot's own login (GitHub logins compare case-insensitively)?"""
    return bool(identity.login) and isinstance(login, str) and login.lower() == identity.login.lower()


def our_comment(identity: Identity, comment: Authored) -> bool:
    """Was this comment (or review) written by the bot itself? Only by its author's login:
    never by its text (anyone can copy a marker line), and for an App never by the shared
    github-actions[bot] login that any workflow of any PR can post as."""
    return _is(identity, comment.user)


def _creator(status: Mapping[str, Any]) -> str | None:
    """The login that created a commit status (the statuses API's `creator`), or None."""
    creator = status.get("creator")
    if isinstance(creator, Mapping):
        creator = creator.get("login")
    return creator if isinstance(creator, str) and creator else None


def our_status(identity: Identity, status: Mapping[str, Any]) -> bool:
    """Was this commit status (GitHub's JSON) created by the bot itself, by its `creator`?
    A status without a readable creator is not ours."""
    return _is(identity, _creator(status))
