"""Routes for commit statuses: create, list, the combined status."""

from __future__ import annotations

from infx.github.fake.http import HttpError, Request, Response
from infx.github.fake.routes.common import (
    Route,
    State,
    body_field,
    own_repo,
    registrar,
    require_auth,
    sha_of,
    validation_failed,
)

ROUTES: list[Route] = []
route = registrar(ROUTES)


MAX_STATUS_DESCRIPTION = 140


STATUS_STATES = ("error", "failure", "pending", "success")


@route("POST", "{R}/statuses/(?P<sha>[^/]+)")
def create_status(state: State, req: Request, owner: str, name: str, sha: str) -> Response:
    require_auth(req)
    own_repo(state, owner, name)
    if sha not in state.world["commits"]:
        raise HttpError(422, f"No commit found for SHA: {sha}")
    status_state = body_field(req, "state")
    if status_state not in STATUS_STATES:
        raise validation_failed("Status", "state", f"state {status_state!r} is not one of "
                                 + ", ".join(STATUS_STATES))
    description = req.body.get("description")
    if description is not None and len(description) > MAX_STATUS_DESCRIPTION:
        raise validation_failed("Status", "description",
                                 "description is too long (maximum is 140 characters)")
    entry = {
        "id": 1 + max((s["id"] for v in state.world["statuses"].values() for s in v if "id" in s),
                      default=7000),
        "context": req.body.get("context") or "default", "state": status_state,
        "description": description, "target_url": req.body.get("target_url"),
        "creator": state.world["token_login"], "created_at": state.world["now"],
    }
    state.world["statuses"].setdefault(sha, []).append(entry)
    shape = state.shapes(req).status(sha, entry)
    return Response(status=201, body=shape, headers={"Location": shape["url"]})


def _statuses_newest_first(state: State, sha: str) -> list[dict]:
    entries = state.world["statuses"].get(sha, [])
    for i, entry in enumerate(entries):
        entry.setdefault("id", 7000 - len(entries) + i)
    return list(reversed(entries))


@route("GET", "{R}/statuses/(?P<ref>[^/]+)")  # the older spelling PyGithub uses
@route("GET", "{R}/commits/(?P<ref>[^/]+)/statuses")
def list_statuses(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    own_repo(state, owner, name)
    sha = sha_of(state, ref)
    shapes = state.shapes(req)
    return Response(items=_statuses_newest_first(state, sha),
                    shape=lambda entry: shapes.status(sha, entry))


@route("GET", "{R}/commits/(?P<ref>[^/]+)/status")
def combined_status(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    own_repo(state, owner, name)
    sha = sha_of(state, ref)
    latest: dict[str, dict] = {}
    for entry in _statuses_newest_first(state, sha):
        latest.setdefault(entry["context"].lower(), entry)
    states = {s["state"] for s in latest.values()}
    if states & {"error", "failure"}:
        overall = "failure"
    elif not states or "pending" in states:
        overall = "pending"
    else:
        overall = "success"
    shapes = state.shapes(req)
    return Response(body={
        "state": overall, "sha": sha, "total_count": len(latest),
        "statuses": [shapes.status(sha, s) for s in latest.values()],
        "repository": shapes.repository(), "commit_url": f"{shapes.repo_url()}/commits/{sha}",
        "url": f"{shapes.repo_url()}/commits/{sha}/status",
    })

