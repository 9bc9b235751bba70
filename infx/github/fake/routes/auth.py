"""Routes of the caller's own access: GET /user, the App's installation and tokens, rate limit."""

from __future__ import annotations

from datetime import datetime, timezone

from infx.github.fake import permissions as P
from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.routes.common import (
    Route,
    State,
    epoch,
    own_repo,
    registrar,
    require_auth,
)
from infx.github.fake.shapes import stable_id

ROUTES: list[Route] = []
route = registrar(ROUTES)


@route("GET", "/user")
def get_user(state: State, req: Request) -> Response:
    """Installation tokens (Actions' GITHUB_TOKEN, GitHub Apps) may not read /user: 403."""
    require_auth(req)
    if state.world.get("token_kind", "installation") == "installation":
        raise HttpError(403, "Resource not accessible by integration")
    return Response(body=state.shapes(req).public_user(state.world["token_login"]))


@route("GET", "{R}/installation")
def repo_installation(state: State, req: Request, owner: str, name: str) -> Response:
    """The sign-off App's installation on the repository (asked with the App's JWT)."""
    own_repo(state, owner, name)
    _require_app_jwt(req)
    app = state.world.get("app") or {}
    if not app:
        raise not_found()
    return Response(body=_installation(state, req, app))


@route("POST", "/app/installations/(?P<iid>\\d+)/access_tokens")
def installation_token(state: State, req: Request, iid: str) -> Response:
    """An installation token for the world's `app`, for an hour: it holds the `permissions`
    the request asks for (all the installation's when it names none); asking for more is 422."""
    _require_app_jwt(req)
    app = state.world.get("app") or {}
    if int(iid) != int(app.get("installation_id", -1)):
        raise not_found()
    asked = req.body.get("permissions") if isinstance(req.body, dict) else None
    held = P.narrowed(app.get("permissions", {}), asked if isinstance(asked, dict) else None)
    if held is None:
        raise HttpError(422, "The permissions requested are not granted to this installation.")
    token = f"ghs_fake{iid}_{len(state.tokens) + 1}"
    state.tokens[token] = held
    expires = datetime.fromtimestamp(epoch(state.world) + 3600, tz=timezone.utc)
    return Response(status=201, body={
        "token": token, "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "permissions": held, "repository_selection": "selected"})


def _require_app_jwt(req: Request) -> None:
    header = req.headers.get("authorization", "")
    if not header.lower().startswith("bearer ") or header.count(".") != 2:
        raise HttpError(401, "A JSON web token could not be decoded")


def _installation(state: State, req: Request, app: dict) -> dict:
    owner = state.world["repo"].split("/")[0]
    iid = int(app["installation_id"])
    return {"id": iid, "account": state.shapes(req).user(owner), "app_id": int(app.get("id", 1)),
            "app_slug": app.get("slug", "infx-signoff"), "target_id": stable_id(owner),
            "target_type": "Organization", "permissions": app.get("permissions", {}),
            "events": [], "created_at": state.world["now"], "updated_at": state.world["now"],
            "single_file_name": None, "repository_selection": "selected",
            "access_tokens_url": f"{req.api}/app/installations/{iid}/access_tokens",
            "repositories_url": f"{req.api}/installation/repositories",
            "html_url": f"https://github.com/organizations/{owner}/settings/installations/{iid}",
            "suspended_by": None, "suspended_at": None}


@route("GET", "/rate_limit")
def rate_limit(state: State, req: Request) -> Response:
    core = {"limit": 5000, "remaining": 5000, "reset": int(epoch(state.world)) + 3600, "used": 0}
    return Response(body={"resources": {"core": core}, "rate": core})

