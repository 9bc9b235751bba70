"""Routes for users, collaborators' permissions, organizations and team memberships."""

from __future__ import annotations

from infx.github.fake import world as W
from infx.github.fake.http import Request, Response, not_found
from infx.github.fake.routes.common import (
    Route,
    State,
    or_404,
    own_repo,
    registrar,
)
from infx.github.fake.shapes import node_id, stable_id

ROUTES: list[Route] = []
route = registrar(ROUTES)


@route("GET", "/users/(?P<login>[^/]+)")
def get_named_user(state: State, req: Request, login: str) -> Response:
    return Response(body=state.shapes(req).public_user(login))


@route("GET", "{R}/collaborators/(?P<user>[^/]+)/permission")
def collaborator_permission(state: State, req: Request, owner: str, name: str,
                            user: str) -> Response:
    own_repo(state, owner, name)
    entry = or_404(state.world["collaborators"].get(user))
    permission, role = W.collaborator_access(entry)
    levels = ["read", "triage", "write", "maintain", "admin"]
    rank = levels.index(role) if role in levels else (
        levels.index(permission) if permission in levels else -1)
    flags = {"admin": rank >= 4, "maintain": rank >= 3, "push": rank >= 2, "triage": rank >= 1,
             "pull": rank >= 0}  # a custom role gets the flags of its base permission
    user_shape = state.shapes(req).user(user) | {"permissions": flags, "role_name": role}
    return Response(body={"permission": permission, "role_name": role, "user": user_shape})


def _org_names(state: State) -> set[str]:
    names = {state.world["repo"].split("/")[0]}
    return names | {team.split("/")[0] for team in state.world["teams"]}


@route("GET", "/orgs/(?P<org>[^/]+)")
def get_org(state: State, req: Request, org: str) -> Response:
    if org not in _org_names(state):
        raise not_found()
    return Response(body=_organization(state, req, org))


def _organization(state: State, req: Request, org: str) -> dict:
    """An organization as GitHub describes it (GET /orgs/{org}, a team's `organization`)."""
    url = f"{req.api}/orgs/{org}"
    return state.shapes(req).user(org) | {
        "type": "Organization", "url": url, "repos_url": f"{url}/repos", "description": None,
        "events_url": f"{url}/events", "hooks_url": f"{url}/hooks", "issues_url": f"{url}/issues",
        "members_url": f"{url}/members{{/member}}",
        "public_members_url": f"{url}/public_members{{/member}}",
        "has_organization_projects": True, "has_repository_projects": True, "public_repos": 1,
        "public_gists": 0, "followers": 0, "following": 0, "created_at": state.world["now"],
        "updated_at": state.world["now"], "archived_at": None}


@route("GET", "/orgs/(?P<org>[^/]+)/teams/(?P<slug>[^/]+)")
def get_team(state: State, req: Request, org: str, slug: str) -> Response:
    # case-insensitive, like memberships (CODEOWNERS may spell @Org/Team either way)
    members = next((m for key, m in state.world["teams"].items()
                    if key.lower() == f"{org}/{slug}".lower()), None)
    if members is None:
        raise not_found()
    url = f"{req.api}/orgs/{org}/teams/{slug}"
    return Response(body={
        "id": stable_id(f"team:{org}/{slug}"), "node_id": node_id("Team", slug), "url": url,
        "html_url": f"https://github.com/orgs/{org}/teams/{slug}", "name": slug, "slug": slug,
        "description": None, "privacy": "closed", "permission": "pull",
        "members_url": f"{url}/members{{/member}}", "repositories_url": f"{url}/repos",
        "parent": None, "organization": _organization(state, req, org),
        "type": "organization", "members_count": len(members or []), "repos_count": 1,
        "created_at": state.world["now"], "updated_at": state.world["now"],
    })


@route("GET", "/orgs/(?P<org>[^/]+)/teams/(?P<slug>[^/]+)/memberships/(?P<user>[^/]+)")
def team_membership(state: State, req: Request, org: str, slug: str, user: str) -> Response:
    # GitHub matches org logins and team slugs case-insensitively (@Org/Team in CODEOWNERS)
    wanted = f"{org}/{slug}".lower()
    members = next((m for key, m in state.world["teams"].items() if key.lower() == wanted), None)
    if members is None:
        raise not_found()
    for member in members:
        entry = {"login": member} if isinstance(member, str) else member
        if entry["login"].lower() == user.lower():
            return Response(body={
                "url": f"{req.api}/organizations/1/team/1/memberships/{user}",
                "role": entry.get("role", "member"), "state": entry.get("state", "active"),
            })
    raise not_found()

