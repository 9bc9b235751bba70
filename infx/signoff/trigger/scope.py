"""Scope: is the PR one the bot speaks for, and does any changed file have an owner who must sign off?"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infx.signoff.trigger import codeowners


class ScopeError(Exception):
    """Scope could not be determined; verification must fail closed (status error)."""


@dataclass(frozen=True)
class Scope:
    required: bool
    reason: str
    owners: tuple[str, ...] = ()  # owners found to need a sign-off (may stop at the first)


def target_problem(base_ref: str, default_branch: str | None, gets: str) -> str | None:
    """Why the PR is out of scope (PRODUCT §4.8), or None: only a PR into the default branch.

    A status lands on the head commit, where it would also speak for that commit in a PR into
    the default branch; so a PR into any other branch (or an unknown one) gets nothing."""
    if default_branch and base_ref == default_branch:
        return None
    return (f"the PR targets {base_ref or 'an unknown branch'}, not the default branch "
            f"{default_branch or '(unknown)'}; only PRs into the default branch {gets}")


def candidate_owners(owners: codeowners.Codeowners, paths: list[str], core_team: str) -> list[str]:
    """Owners of the changed paths (winning lines only), core team removed, first-seen order."""
    core = "@" + core_team.lower()
    seen: list[str] = []
    for path in paths:
        for owner in owners.owners_for(path):
            if owner.lower() != core and owner.lower() not in (s.lower() for s in seen):
                seen.append(owner)
    return seen


def is_user(owner: str) -> bool:
    return owner.startswith("@") and "/" not in owner


def decide(owners: codeowners.Codeowners, paths: list[str], core_team: str,
           permission_of: Callable[[str], dict[str, str] | None],
           known: frozenset[str] = frozenset()) -> Scope:
    """Stop at the first owner who needs a sign-off; repository admins and the core team do not.

    ``known`` holds lower-case logins whose permission costs no API call.
    ``permission_of(login)`` returns the collaborator permission record, None for a non-
    collaborator, and raises ScopeError when the lookup itself failed.
    """
    if owners.errors:
        first = owners.errors[0]
        raise ScopeError(f"CODEOWNERS line {first.line}: {first.message}")
    candidates = candidate_owners(owners, paths, core_team)
    # owners whose permission is already known (e.g. the signer) first: fewer API calls
    candidates.sort(key=lambda owner: owner[1:].lower() not in known)
    for owner in candidates:
        if not is_user(owner):
            return Scope(True, f"{owner} owns a changed file", (owner,))
        record = permission_of(owner[1:])
        admin = bool(record) and record.get("permission") == "admin" and record.get("role_name") == "admin"
        if not admin:
            return Scope(True, f"{owner} owns a changed file and is not a repository admin", (owner,))
    return Scope(False, "No sign-off needed: no changed file has an owner outside the core team "
                 "and the repository admins.")
