"""Endpoints about people: a collaborator's permission, a team's membership and visibility."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from infx.github.failures import GitHubError
from infx.github.transport import Transport, full_name


@dataclass(frozen=True)
class Permission:
    permission: str  # admin | maintain | write | triage | read | none
    role_name: str


class PeopleEndpoints(Transport):
    """Who may do what: permissions and team memberships."""

    def collaborator_permission(self, repo: Any, user: str) -> Permission:
        """A user's repository permission; someone without access is `none` (404)."""
        name = full_name(repo)
        data = self.get_or_none(f"/repos/{name}/collaborators/{quote(user)}/permission",
                                action=f"reading {user}'s permission on {name}",
                                permission="metadata: read (push access to list collaborators)")
        if data is None:
            return Permission("none", "none")
        if not isinstance(data, dict) or not isinstance(data.get("permission"), str):
            raise GitHubError(f"unusable answer from GitHub while reading {user}'s permission",
                              status=None, action=f"reading {user}'s permission on {name}")
        return Permission(data["permission"], str(data.get("role_name") or data["permission"]))

    def team_membership(self, org: str, team_slug: str, user: str) -> str | None:
        """`active` / `pending`, or None on 404 — which means "not a member" OR "this token may
        not read the team" (GITHUB_TOKEN never can): callers must not treat None as proof."""
        data = self.get_or_none(f"/orgs/{org}/teams/{team_slug}/memberships/{quote(user)}",
                                action=f"reading {user}'s membership of @{org}/{team_slug}",
                                permission="members: read (org) — a GitHub App or PAT with read:org")
        return data.get("state") if isinstance(data, dict) else None

    def team_visible(self, org: str, team_slug: str) -> bool:
        """Whether this token can see the team at all (a 404 on a membership is only a "no"
        when it can): Actions' GITHUB_TOKEN cannot; an App with Members: read can."""
        data = self.get_or_none(f"/orgs/{org}/teams/{team_slug}",
                                action=f"reading team @{org}/{team_slug}",
                                permission="members: read (org) — a GitHub App or PAT with read:org")
        return isinstance(data, dict)
