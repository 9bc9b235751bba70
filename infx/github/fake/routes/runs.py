"""The REST endpoints the fake server answers, as (method, path pattern, handler) routes."""

from __future__ import annotations

import gzip
import hashlib
import hmac
import io
import json
import re
import secrets
import tarfile
import threading
import zipfile
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TypeVar
from urllib.parse import unquote

from infx.github.fake import permissions as P
from infx.github.fake import world as W
from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.pr_files import FileChange, full_diff, tree_changes
from infx.github.fake.shapes import ACTIONS_APP_ID, Shapes, node_id, stable_id

MAX_COMMENT_CHARS = 65_536
CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
CONTENTS_JSON_LIMIT = 1024 * 1024  # larger files: JSON without content, raw media type only
CONTENTS_RAW_LIMIT = 100 * 1024 * 1024
MAX_STATUS_DESCRIPTION = 140
MAX_PULL_FILES = 3000  # GitHub stops listing a pull request's files here
MAX_PULL_COMMITS = 250  # ... and its commits here
# listings GitHub documents to stop at 1,000 results (total_count still counts them all):
# check runs for a ref, and workflow runs searched by these filters
MAX_LISTED_RESULTS = 1000
RUN_SEARCH_FILTERS = frozenset({"actor", "branch", "check_suite_id", "created", "event",
                                "head_sha", "status"})
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
STATUS_STATES = ("error", "failure", "pending", "success")
T = TypeVar("T")


class State:
    """The live world plus caches of derived data (trees and diffs never change)."""

    def __init__(self, world: dict) -> None:
        self.world = world
        self.lock = threading.RLock()
        self._trees: dict[str, dict[str, str]] = {}
        self._changes: dict[tuple[str, str], list[FileChange]] = {}
        self._secret = secrets.token_bytes(16)
        # like GitHub, a comment id is never handed out twice, even after a comment was
        # deleted (or taken out of the live world by a test replaying history)
        self.last_comment_id = W.next_comment_id(world) - 1
        # installation tokens minted for the world's `app`: token -> the permissions it holds
        self.tokens: dict[str, dict[str, str]] = {}

    def new_comment_id(self) -> int:
        self.last_comment_id = max(self.last_comment_id + 1, W.next_comment_id(self.world))
        return self.last_comment_id

    def sign(self, path: str) -> str:
        return hmac.new(self._secret, path.encode(), hashlib.sha256).hexdigest()[:32]

    def tree(self, sha: str) -> dict[str, str]:
        if sha not in self._trees:
            self._trees[sha] = W.tree_at(self.world, sha)
        return self._trees[sha]

    def changes(self, pull: dict) -> list[FileChange]:
        key = (pull["base"]["sha"], pull["head"]["sha"])
        if key not in self._changes:
            self._changes[key] = tree_changes(self.tree(key[0]), self.tree(key[1]))
        return self._changes[key]

    def shapes(self, req: Request) -> Shapes:
        return Shapes(req.api, self.world)


Handler = Callable[..., Response]
ROUTES: list[tuple[str, re.Pattern, Handler, str]] = []
REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"


def route(method: str, pattern: str, origin: str = "api") -> Callable[[Handler], Handler]:
    """Register a handler; `origin="storage"` serves it on the download host only."""
    def register(handler: Handler) -> Handler:
        ROUTES.append((method, re.compile(pattern.replace("{R}", REPO) + "$"), handler, origin))
        return handler
    return register


def match(method: str, path: str, origin: str = "api") -> tuple[Handler, dict[str, str]] | None:
    found = matched_route(method, path, origin)
    return None if found is None else (found[1], found[2])


def matched_route(method: str, path: str,
                  origin: str = "api") -> tuple[str, Handler, dict[str, str]] | None:
    """The first route serving a request: its registered regex, handler and path parameters."""
    for verb, pattern, handler, where in ROUTES:
        found = pattern.match(path)
        if found and verb == method and where == origin:
            return pattern.pattern, handler, found.groupdict()
    return None


def route_templates(origin: str = "api") -> list[tuple[str, str]]:
    """(method, regex) of every route an origin serves (for coverage tests)."""
    return [(verb, pattern.pattern) for verb, pattern, _, where in ROUTES if where == origin]


def sample_value(parameter: str) -> str:
    """A value of the right shape for an OpenAPI path parameter (to match routes against
    GitHub's path templates)."""
    if parameter in ("sha", "ref", "commit_sha"):
        return "0" * 40
    if parameter == "archive_format":
        return "zip"
    if parameter == "path":
        return "dir/file.txt"
    if parameter.endswith(("_id", "_number")) or parameter in ("number", "id"):
        return "1"
    return {"owner": "o", "repo": "r", "branch": "main", "format": "zip"}.get(parameter, "x")


def _storage_redirect(state: State, req: Request, path: str) -> Response:
    """GitHub's 302 to signed storage on another host: the signature is in the query."""
    location = f"{req.storage or req.api}{path}?sig={state.sign(path)}"
    return Response(status=302, headers={"Location": location}, body=b"",
                    content_type="text/plain")


def _check_signed(state: State, req: Request) -> None:
    """Storage hosts trust the signed URL alone and refuse requests carrying credentials."""
    if req.headers.get("authorization"):
        raise HttpError(400, "Authorization header is not allowed with a signed URL")
    if not hmac.compare_digest(req.query.get("sig", ""), state.sign(req.path)):
        raise HttpError(403, "Signature not valid for this resource")


# --- helpers -----------------------------------------------------------------------------


def _own_repo(state: State, owner: str, name: str) -> None:
    if f"{owner}/{name}".lower() != state.world["repo"].lower():
        raise not_found()


def _or_404(found: T | None) -> T:
    """What was looked up, or GitHub's 404 when it is not there."""
    if found is None:
        raise not_found()
    return found


def _pull(state: State, owner: str, name: str, number: str) -> dict:
    _own_repo(state, owner, name)
    return _or_404(W.find_pull(state.world, int(number)))


def _comment(state: State, owner: str, name: str, comment_id: str) -> tuple[dict, dict]:
    _own_repo(state, owner, name)
    return _or_404(W.find_comment(state.world, int(comment_id)))


def _sha(state: State, ref: str) -> str:
    sha = W.resolve_ref(state.world, ref)
    if sha is None:
        raise HttpError(422, f"No commit found for SHA: {ref}")
    return sha


def _require_auth(req: Request) -> None:
    if not req.headers.get("authorization"):
        raise HttpError(401, "Requires authentication")


def _body_field(req: Request, key: str, kind: type = str):
    value = req.body.get(key) if isinstance(req.body, dict) else None
    if not isinstance(value, kind):
        raise HttpError(422, "Invalid request.",
                        [{"resource": "Request", "field": key, "code": "missing_field"}])
    return value


def _validation_failed(resource: str, field: str, message: str) -> HttpError:
    return HttpError(422, "Validation Failed",
                     [{"resource": resource, "code": "custom", "field": field, "message": message}])


def _epoch(world: dict) -> float:
    return datetime.fromisoformat(world["now"].replace("Z", "+00:00")).timestamp()


# --- users, repository ---------------------------------------------------------------------


@route("GET", "/user")
def get_user(state: State, req: Request) -> Response:
    """Installation tokens (Actions' GITHUB_TOKEN, GitHub Apps) may not read /user: 403."""
    _require_auth(req)
    if state.world.get("token_kind", "installation") == "installation":
        raise HttpError(403, "Resource not accessible by integration")
    return Response(body=state.shapes(req).public_user(state.world["token_login"]))


@route("GET", "{R}/installation")
def repo_installation(state: State, req: Request, owner: str, name: str) -> Response:
    """The sign-off App's installation on the repository (asked with the App's JWT)."""
    _own_repo(state, owner, name)
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
    expires = datetime.fromtimestamp(_epoch(state.world) + 3600, tz=timezone.utc)
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


@route("GET", "/users/(?P<login>[^/]+)")
def get_named_user(state: State, req: Request, login: str) -> Response:
    return Response(body=state.shapes(req).public_user(login))


@route("GET", "/rate_limit")
def rate_limit(state: State, req: Request) -> Response:
    core = {"limit": 5000, "remaining": 5000, "reset": int(_epoch(state.world)) + 3600, "used": 0}
    return Response(body={"resources": {"core": core}, "rate": core})


@route("GET", "{R}")
def get_repo(state: State, req: Request, owner: str, name: str) -> Response:
    full_name = f"{owner}/{name}"
    if full_name.lower() != state.world["repo"].lower() and full_name not in state.world["external"]:
        raise not_found()
    return Response(body=state.shapes(req).repository(full_name))


@route("GET", "{R}/branches/(?P<branch>(?!.*/protection(?:/|$)).+)")
def get_branch(state: State, req: Request, owner: str, name: str, branch: str) -> Response:
    _own_repo(state, owner, name)
    sha = state.world["branches"].get(branch)
    if sha is None:
        raise HttpError(404, "Branch not found")
    shapes = state.shapes(req)
    url = f"{shapes.repo_url()}/branches/{branch}"
    return Response(body={
        "name": branch, "commit": shapes.commit(sha), "protected": False,
        "protection": {"enabled": False, "required_status_checks": {
            "enforcement_level": "off", "contexts": [], "checks": []}},
        "protection_url": f"{url}/protection",
        "_links": {"self": url, "html": f"https://github.com/{state.world['repo']}/tree/{branch}"}})


# --- pulls -----------------------------------------------------------------------------------


@route("GET", "{R}/pulls")
def list_pulls(state: State, req: Request, owner: str, name: str) -> Response:
    _own_repo(state, owner, name)
    wanted = req.query.get("state", "open")
    pulls = [p for p in state.world["pulls"] if wanted in ("all", p["state"])]
    if "head" in req.query:
        pulls = [p for p in pulls if f"{p['head']['repo'].split('/')[0]}:{p['head']['ref']}"
                 == req.query["head"]]
    if "base" in req.query:
        pulls = [p for p in pulls if p["base"]["ref"] == req.query["base"]]
    pulls = sorted(pulls, key=lambda p: p["number"], reverse=req.query.get("direction") != "asc")
    shapes = state.shapes(req)
    return Response(items=pulls, shape=shapes.pull_simple)


@route("GET", "{R}/pulls/(?P<number>\\d+)")
def get_pull(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    if f"{owner}/{name}" in state.world["external"]:
        return _external_pull(state, req, f"{owner}/{name}", int(number))
    pull = _pull(state, owner, name, number)
    changes = state.changes(pull)
    accept = req.headers.get("accept", "")
    if "diff" in accept or "patch" in accept:
        return Response(body=full_diff(changes).encode(), content_type="text/plain; charset=utf-8")
    return Response(body=state.shapes(req).pull(pull, changes))


@route("GET", "{R}/pulls/(?P<number>\\d+)/files")
def list_pull_files(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    if f"{owner}/{name}" in state.world["external"]:
        return _external_files(state, req, f"{owner}/{name}", int(number))
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    head_sha = pull["head"]["sha"]
    tree = state.tree(head_sha)
    return Response(items=state.changes(pull), cap=MAX_PULL_FILES,
                    shape=lambda change: shapes.file_change(change, head_sha, tree))


@route("GET", "{R}/pulls/(?P<number>\\d+)/commits")
def list_pull_commits(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["commits"], shape=shapes.commit, cap=MAX_PULL_COMMITS)


@route("GET", "{R}/pulls/(?P<number>\\d+)/reviews")
def list_reviews(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["reviews"], shape=lambda review: shapes.review(pull, review))


@route("GET", "{R}/issues/(?P<number>\\d+)/timeline")
def list_timeline(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    """The PR's timeline: the world's `timeline` as written, else a `committed` event for
    each of its commits (a world without one records no force-push)."""
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    events = pull.get("timeline")
    if events is None:
        events = [{"event": "committed", "sha": sha} for sha in pull["commits"]]
    return Response(items=list(enumerate(events)),
                    shape=lambda pair: shapes.timeline_event(pull, pair[1], pair[0]))


@route("GET", "{R}/pulls/(?P<number>\\d+)/comments")
def list_review_comments(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["review_comments"],
                    shape=lambda comment: shapes.review_comment(pull, comment))


@route("GET", "{R}/pulls/(?P<number>\\d+)/reviews/(?P<rid>\\d+)")
def get_review(state: State, req: Request, owner: str, name: str, number: str, rid: str) -> Response:
    pull = _pull(state, owner, name, number)
    review = _or_404(next((r for r in pull["reviews"] if r["id"] == int(rid)), None))
    return Response(body=state.shapes(req).review(pull, review))


@route("GET", "{R}/pulls/comments/(?P<cid>\\d+)")
def get_review_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _own_repo(state, owner, name)
    for pull in state.world["pulls"]:
        for comment in pull["review_comments"]:
            if comment["id"] == int(cid):
                return Response(body=state.shapes(req).review_comment(pull, comment))
    raise not_found()


@route("GET", "{R}/commits/(?P<ref>[^/]+)/pulls")
def pulls_for_commit(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    """Pull requests containing the commit (or merged as it), like GitHub's commit->PR lookup."""
    _own_repo(state, owner, name)
    # lenient: an unknown sha lists nothing (GitHub answers 422; no bot depends on that)
    sha = W.resolve_ref(state.world, ref) or ref
    shapes = state.shapes(req)
    found = [p for p in state.world["pulls"]
             if sha in p["commits"] or sha == p["head"]["sha"] or sha == p.get("merge_commit_sha")]
    return Response(items=found, shape=shapes.pull_simple)


def _external_pull(state: State, req: Request, full_name: str, number: int) -> Response:
    pull = _find_external_pull(state, full_name, number)
    shapes = state.shapes(req)
    body = dict(pull)
    body.pop("files", None)
    return Response(body=body | {
        "url": f"{shapes.repo_url(full_name)}/pulls/{number}",
        "html_url": f"https://github.com/{full_name}/pull/{number}",
        "number": number, "state": pull.get("state", "open"),
        "merged_at": pull.get("merged_at"), "merged": pull.get("merged_at") is not None,
        "title": pull.get("title", f"Pull request #{number}"),
        "user": shapes.user(pull.get("user", "octocat")),
        "changed_files": len(pull.get("files", [])),
    })


def _external_files(state: State, req: Request, full_name: str, number: int) -> Response:
    pull = _find_external_pull(state, full_name, number)
    items = []
    for entry in pull.get("files", []):
        patch = entry.get("patch", "")
        adds = sum(1 for line in patch.splitlines() if line.startswith("+"))
        dels = sum(1 for line in patch.splitlines() if line.startswith("-"))
        items.append({"sha": "0" * 40, "status": "modified", "additions": adds, "deletions": dels,
                      "changes": adds + dels} | entry)
    return Response(items=items)


def _find_external_pull(state: State, full_name: str, number: int) -> dict:
    pulls = state.world["external"][full_name].get("pulls", [])
    return _or_404(next((p for p in pulls if p["number"] == number), None))


# --- issues, comments, reactions, labels -----------------------------------------------------


@route("GET", "{R}/issues/(?P<number>\\d+)")
def get_issue(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    return Response(body=state.shapes(req).issue(_pull(state, owner, name, number)))


@route("GET", "{R}/issues/(?P<number>\\d+)/comments")
def list_comments(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    comments = pull["comments"]
    if "since" in req.query:
        comments = [c for c in comments if c["updated_at"] >= req.query["since"]]
    return Response(items=comments, shape=lambda comment: shapes.issue_comment(pull, comment))


@route("POST", "{R}/issues/(?P<number>\\d+)/comments")
def create_comment(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    _require_auth(req)
    pull = _pull(state, owner, name, number)
    body = _checked_comment_body(req)
    comment = {
        "id": state.new_comment_id(), "user": state.world["token_login"],
        "author_association": "NONE", "body": body, "created_at": state.world["now"],
        "updated_at": state.world["now"], "reactions": [],
    }
    pull["comments"].append(comment)
    shape = state.shapes(req).issue_comment(pull, comment)
    return Response(status=201, body=shape, headers={"Location": shape["url"]})


def _checked_comment_body(req: Request) -> str:
    body = _body_field(req, "body")
    if len(body) > MAX_COMMENT_CHARS:
        raise _validation_failed("IssueComment", "body",
                                 f"Body is too long (maximum is {MAX_COMMENT_CHARS} characters)")
    return body


@route("GET", "{R}/issues/comments/(?P<cid>\\d+)")
def get_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    pull, comment = _comment(state, owner, name, cid)
    return Response(body=state.shapes(req).issue_comment(pull, comment))


@route("PATCH", "{R}/issues/comments/(?P<cid>\\d+)")
def edit_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _require_auth(req)
    pull, comment = _comment(state, owner, name, cid)
    comment["body"] = _checked_comment_body(req)
    comment["updated_at"] = state.world["now"]
    return Response(body=state.shapes(req).issue_comment(pull, comment))


@route("DELETE", "{R}/issues/comments/(?P<cid>\\d+)")
def delete_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _require_auth(req)
    pull, comment = _comment(state, owner, name, cid)
    pull["comments"].remove(comment)
    return Response(status=204)


@route("GET", "{R}/issues/comments/(?P<cid>\\d+)/reactions")
def list_reactions(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _, comment = _comment(state, owner, name, cid)
    wanted = req.query.get("content")
    shapes = state.shapes(req)
    return Response(items=[r for r in comment["reactions"] if wanted in (None, r["content"])],
                    shape=shapes.reaction)


@route("POST", "{R}/issues/comments/(?P<cid>\\d+)/reactions")
def add_reaction(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _require_auth(req)
    _, comment = _comment(state, owner, name, cid)
    content = _body_field(req, "content")
    if content not in REACTIONS:
        raise _validation_failed("Reaction", "content", f"content {content!r} is not a reaction")
    login = state.world["token_login"]
    shapes = state.shapes(req)
    for reaction in comment["reactions"]:
        if reaction["user"] == login and reaction["content"] == content:
            return Response(status=200, body=shapes.reaction(reaction))
    reaction = {"id": _next_reaction_id(state.world), "user": login, "content": content,
                "created_at": state.world["now"]}
    comment["reactions"].append(reaction)
    return Response(status=201, body=shapes.reaction(reaction))


@route("DELETE", "{R}/issues/comments/(?P<cid>\\d+)/reactions/(?P<rid>\\d+)")
def delete_reaction(state: State, req: Request, owner: str, name: str, cid: str,
                    rid: str) -> Response:
    _require_auth(req)
    _, comment = _comment(state, owner, name, cid)
    found = [r for r in comment["reactions"] if r.get("id") == int(rid)]
    if not found:
        raise not_found()
    comment["reactions"].remove(found[0])
    return Response(status=204)


def _next_reaction_id(world: dict) -> int:
    ids = [r["id"] for p in world["pulls"] for c in p["comments"] for r in c["reactions"]
           if "id" in r]
    return max(ids, default=5000) + 1


def assign_reaction_ids(world: dict) -> None:
    """World files may omit reaction ids; the delete endpoint needs them."""
    for pull in world["pulls"]:
        for comment in pull["comments"]:
            for reaction in comment["reactions"]:
                if "id" not in reaction:
                    reaction["id"] = _next_reaction_id(world)


@route("GET", "{R}/issues/(?P<number>\\d+)/labels")
def list_issue_labels(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = _pull(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["labels"], shape=shapes.label)


@route("POST", "{R}/issues/(?P<number>\\d+)/labels")
def add_labels(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    _require_auth(req)
    pull = _pull(state, owner, name, number)
    names = req.body.get("labels") if isinstance(req.body, dict) else req.body
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise HttpError(422, "Invalid request.", [{"field": "labels", "code": "invalid"}])
    for label in names:
        if label not in pull["labels"]:
            pull["labels"].append(label)
    shapes = state.shapes(req)
    return Response(body=[shapes.label(n) for n in pull["labels"]])


@route("DELETE", "{R}/issues/(?P<number>\\d+)/labels/(?P<label>.+)")
def remove_label(state: State, req: Request, owner: str, name: str, number: str,
                 label: str) -> Response:
    _require_auth(req)
    pull = _pull(state, owner, name, number)
    if label not in pull["labels"]:
        raise HttpError(404, "Label does not exist")
    pull["labels"].remove(label)
    shapes = state.shapes(req)
    return Response(body=[shapes.label(n) for n in pull["labels"]])


@route("GET", "{R}/labels")
def list_labels(state: State, req: Request, owner: str, name: str) -> Response:
    _own_repo(state, owner, name)
    names = sorted({n for p in state.world["pulls"] for n in p["labels"]}
                   | set(state.world.get("labels", [])))
    shapes = state.shapes(req)
    return Response(items=names, shape=shapes.label)


# --- commits, statuses, checks -----------------------------------------------------------------


@route("GET", "{R}/commits/(?P<ref>[^/]+)")
def get_commit(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    _own_repo(state, owner, name)
    sha = _sha(state, ref)
    shapes = state.shapes(req)
    parents = state.world["commits"][sha].get("parents", [])
    base = state.tree(parents[0]) if parents else {}
    changes = tree_changes(base, state.tree(sha))
    files = [shapes.file_change(c, sha, state.tree(sha)) for c in changes]
    return Response(body=shapes.commit(sha) | {"files": files, "stats": {
        "additions": sum(c.additions for c in changes),
        "deletions": sum(c.deletions for c in changes),
        "total": sum(c.changes for c in changes)}})


def _ancestors(world: dict, start: str) -> list[str]:
    """A commit and its ancestors, breadth first."""
    seen, queue = [], [start]
    while queue:
        sha = queue.pop(0)
        if sha in seen or sha not in world["commits"]:
            continue
        seen.append(sha)
        queue.extend(world["commits"][sha].get("parents") or [])
    return seen


def merge_base(world: dict, a: str, b: str) -> str | None:
    """The best common ancestor of two commits: the first ancestor of `b`, breadth first,
    that is also an ancestor of `a` (enough for the histories worlds describe)."""
    of_a = set(_ancestors(world, a))
    return next((sha for sha in _ancestors(world, b) if sha in of_a), None)


@route("GET", "{R}/compare/(?P<base>[^/.]+)\\.\\.\\.(?P<head>[^/.]+)")
def compare(state: State, req: Request, owner: str, name: str, base: str, head: str) -> Response:
    """Three-dot compare: the changes of `head` since its merge base with `base` (at most
    300 files, as GitHub lists them)."""
    _own_repo(state, owner, name)
    base_sha, head_sha = _sha(state, base), _sha(state, head)
    common = merge_base(state.world, base_sha, head_sha)
    if common is None:
        raise not_found()
    shapes = state.shapes(req)
    tree = state.tree(head_sha)
    changes = tree_changes(state.tree(common), tree)
    done = set(_ancestors(state.world, common))
    ahead = [c for c in _ancestors(state.world, head_sha) if c not in done]
    behind = [c for c in _ancestors(state.world, base_sha) if c not in done]
    web = f"https://github.com/{owner}/{name}/compare/{base}...{head}"
    return Response(body={
        "url": f"{req.api}/repos/{owner}/{name}/compare/{base}...{head}", "html_url": web,
        "permalink_url": f"https://github.com/{owner}/{name}/compare/{base_sha[:7]}...{head_sha[:7]}",
        "diff_url": f"{web}.diff", "patch_url": f"{web}.patch",
        "status": "identical" if head_sha == base_sha else ("ahead" if not behind else
                                                             ("behind" if not ahead else "diverged")),
        "ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
        "base_commit": shapes.commit(base_sha), "merge_base_commit": shapes.commit(common),
        "commits": [shapes.commit(sha) for sha in reversed(ahead)],
        "files": [shapes.file_change(c, head_sha, tree) for c in changes[:300]]})


@route("POST", "{R}/statuses/(?P<sha>[^/]+)")
def create_status(state: State, req: Request, owner: str, name: str, sha: str) -> Response:
    _require_auth(req)
    _own_repo(state, owner, name)
    if sha not in state.world["commits"]:
        raise HttpError(422, f"No commit found for SHA: {sha}")
    status_state = _body_field(req, "state")
    if status_state not in STATUS_STATES:
        raise _validation_failed("Status", "state", f"state {status_state!r} is not one of "
                                 + ", ".join(STATUS_STATES))
    description = req.body.get("description")
    if description is not None and len(description) > MAX_STATUS_DESCRIPTION:
        raise _validation_failed("Status", "description",
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


@route("POST", "{R}/dispatches")
def create_dispatch(state: State, req: Request, owner: str, name: str) -> Response:
    """repository_dispatch: recorded under the world's `dispatches` (GitHub answers 204)."""
    _require_auth(req)
    _own_repo(state, owner, name)
    event_type = _body_field(req, "event_type")
    if not 1 <= len(event_type) <= 100:
        raise _validation_failed("Dispatch", "event_type", "event_type must be 1 to 100 characters")
    payload = req.body.get("client_payload", {})
    if not isinstance(payload, dict) or len(payload) > 10:
        raise _validation_failed("Dispatch", "client_payload",
                                 "client_payload must be an object with at most 10 top-level properties")
    state.world.setdefault("dispatches", []).append(
        {"event_type": event_type, "client_payload": payload, "sender": state.world["token_login"],
         "created_at": state.world["now"]})
    return Response(status=204)


@route("POST", "{R}/actions/workflows/(?P<workflow>[^/]+)/dispatches")
def create_workflow_dispatch(state: State, req: Request, owner: str, name: str, workflow: str) -> Response:
    """workflow_dispatch: recorded under the world's `workflow_dispatches` (GitHub answers 204).
    As GitHub: the branch must exist, and the workflow file at its tip must exist and declare
    `workflow_dispatch` (else 404 / 422); inputs are strings."""
    _require_auth(req)
    _own_repo(state, owner, name)
    ref = _body_field(req, "ref")
    branch = ref.removeprefix("refs/heads/")
    sha = state.world["branches"].get(branch)
    if sha is None:
        raise HttpError(422, f"No ref found for: {ref}")
    path = f".github/workflows/{unquote(workflow)}"
    text = state.tree(sha).get(path)
    if text is None:
        raise not_found()
    if "workflow_dispatch" not in text:
        raise HttpError(422, "Workflow does not have 'workflow_dispatch' trigger")
    inputs = req.body.get("inputs", {}) if isinstance(req.body, dict) else {}
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        raise _validation_failed("WorkflowDispatch", "inputs", "inputs must be an object of strings")
    state.world.setdefault("workflow_dispatches", []).append(
        {"workflow": path, "ref": branch, "sha": sha, "inputs": dict(inputs),
         "sender": state.world["token_login"], "created_at": state.world["now"]})
    return Response(status=204)


@route("GET", "{R}/statuses/(?P<ref>[^/]+)")  # the older spelling PyGithub uses
@route("GET", "{R}/commits/(?P<ref>[^/]+)/statuses")
def list_statuses(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    _own_repo(state, owner, name)
    sha = _sha(state, ref)
    shapes = state.shapes(req)
    return Response(items=_statuses_newest_first(state, sha),
                    shape=lambda entry: shapes.status(sha, entry))


@route("GET", "{R}/commits/(?P<ref>[^/]+)/status")
def combined_status(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    _own_repo(state, owner, name)
    sha = _sha(state, ref)
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


@route("GET", "{R}/commits/(?P<ref>[^/]+)/check-runs")
def list_check_runs(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    _own_repo(state, owner, name)
    sha = _sha(state, ref)
    runs = list(state.world["check_runs"].get(sha, []))
    if req.query.get("filter", "latest") == "latest":
        runs = latest_per_suite(sha, runs)
    if "check_name" in req.query:
        runs = [r for r in runs if r["name"] == req.query["check_name"]]
    if "status" in req.query:
        runs = [r for r in runs if r["status"] == req.query["status"]]
    shapes = state.shapes(req)
    return Response(items=runs, list_key="check_runs", cap=MAX_LISTED_RESULTS,
                    shape=lambda run: shapes.check_run(sha, run))


@route("GET", "{R}/check-suites/(?P<suite_id>\\d+)/check-runs")
def list_suite_check_runs(state: State, req: Request, owner: str, name: str,
                          suite_id: str) -> Response:
    """The check runs of one check suite (a workflow run's jobs, or a commit's other checks):
    GitHub's way past the ref listing's 1,000 results. Same filters as the ref listing."""
    _own_repo(state, owner, name)
    shapes = state.shapes(req)
    wanted = int(suite_id)
    found = [(sha, run) for sha, runs in state.world["check_runs"].items() for run in runs
             if shapes.check_suite_id(sha, run) == wanted]
    if req.query.get("filter", "latest") == "latest":
        by_sha: dict[str, list[dict]] = {}
        for sha, run in found:
            by_sha.setdefault(sha, []).append(run)
        keep = {id(run) for sha, runs in by_sha.items() for run in latest_per_suite(sha, runs)}
        found = [(sha, run) for sha, run in found if id(run) in keep]
    if "check_name" in req.query:
        found = [(sha, run) for sha, run in found if run["name"] == req.query["check_name"]]
    if "status" in req.query:
        found = [(sha, run) for sha, run in found if run["status"] == req.query["status"]]
    return Response(items=found, list_key="check_runs",
                    shape=lambda pair: shapes.check_run(pair[0], pair[1]))


@route("GET", "{R}/check-runs/(?P<cid>\\d+)")
def get_check_run(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _own_repo(state, owner, name)
    for sha, runs in state.world["check_runs"].items():
        for run in runs:
            if run["id"] == int(cid):
                return Response(body=state.shapes(req).check_run(sha, run))
    raise not_found()


CHECK_STATUSES = ("queued", "in_progress", "completed")
CHECK_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped",
                     "timed_out")
ANNOTATION_LEVELS = ("notice", "warning", "failure")
MAX_ANNOTATIONS_PER_REQUEST = 50  # GitHub's Checks API limit; more take further updates
MAX_CHECK_OUTPUT_CHARS = 65_535  # summary and text each


def _token_app(state: State) -> dict:
    """The app a check run written with this token belongs to: the world's sign-off App when
    the token is its `<slug>[bot]`, else GitHub Actions (a workflow's GITHUB_TOKEN)."""
    app = state.world.get("app") or {}
    slug = app.get("slug", "infx-signoff")
    if app and state.world["token_login"].lower() == f"{slug}[bot]".lower():
        return {"id": int(app.get("id", 1)), "slug": slug}
    return {"id": ACTIONS_APP_ID, "slug": "github-actions"}


def _check_output(req: Request, old: dict | None) -> dict | None:
    """The `output` of a create/update request checked like GitHub (title and summary on
    create, summary on update; at most 50 annotations, each located and levelled); its
    annotations are appended to those already recorded."""
    output = req.body.get("output") if isinstance(req.body, dict) else None
    if output is None:
        return old
    if not isinstance(output, dict):
        raise _validation_failed("CheckRun", "output", "output must be an object")
    required = ("summary",) if old is not None else ("title", "summary")
    for key in required:
        if not isinstance(output.get(key), str):
            raise _validation_failed("CheckRun", f"output.{key}", f"output.{key} is required")
    for key in ("summary", "text"):
        if len(output.get(key) or "") > MAX_CHECK_OUTPUT_CHARS:
            raise _validation_failed("CheckRun", f"output.{key}",
                                     f"output.{key} is too long (maximum is {MAX_CHECK_OUTPUT_CHARS} characters)")
    annotations = output.get("annotations") or []
    if not isinstance(annotations, list) or len(annotations) > MAX_ANNOTATIONS_PER_REQUEST:
        raise _validation_failed("CheckRun", "output.annotations",
                                 f"at most {MAX_ANNOTATIONS_PER_REQUEST} annotations per request")
    for item in annotations:
        if not (isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"]
                and isinstance(item.get("start_line"), int) and isinstance(item.get("end_line"), int)
                and 1 <= item["start_line"] <= item["end_line"]
                and item.get("annotation_level") in ANNOTATION_LEVELS
                and isinstance(item.get("message"), str) and item["message"]):
            raise _validation_failed("CheckRun", "output.annotations",
                                     "an annotation needs path, start_line <= end_line, "
                                     "annotation_level and message")
    kept = list((old or {}).get("annotations", []))
    base = old or {}
    return {"title": output.get("title", base.get("title")),
            "summary": output.get("summary", base.get("summary")),
            "text": output.get("text", base.get("text")),
            "annotations": kept + [dict(item) for item in annotations]}


def _check_state(req: Request, run: dict, now: str) -> None:
    """status / conclusion / times of a create or update: a conclusion completes the run."""
    body = req.body if isinstance(req.body, dict) else {}
    status = body.get("status", run.get("status", "queued"))
    if status not in CHECK_STATUSES:
        raise _validation_failed("CheckRun", "status", f"status must be one of {', '.join(CHECK_STATUSES)}")
    conclusion = body.get("conclusion", run.get("conclusion"))
    if conclusion is not None and conclusion not in CHECK_CONCLUSIONS:
        raise _validation_failed("CheckRun", "conclusion",
                                 f"conclusion must be one of {', '.join(CHECK_CONCLUSIONS)}")
    if "conclusion" in body and conclusion is not None:
        status = "completed"
    if status == "completed" and conclusion is None:
        raise _validation_failed("CheckRun", "conclusion",
                                 "conclusion is required when status is completed")
    run["status"], run["conclusion"] = status, conclusion
    for key in ("details_url", "external_id"):
        if isinstance(body.get(key), str):
            run[key] = body[key]
    run["started_at"] = body.get("started_at") or run.get("started_at") or now
    if status == "completed":
        run["completed_at"] = body.get("completed_at") or run.get("completed_at") or now


@route("POST", "{R}/check-runs")
def create_check_run(state: State, req: Request, owner: str, name: str) -> Response:
    """A check run of the token's app on a commit, recorded under the world's `check_runs`."""
    _require_auth(req)
    _own_repo(state, owner, name)
    run_name = _body_field(req, "name")
    head_sha = _body_field(req, "head_sha")
    if head_sha not in state.world["commits"]:
        raise _validation_failed("CheckRun", "head_sha", f"No commit found for SHA: {head_sha}")
    ids = [r["id"] for runs in state.world["check_runs"].values() for r in runs]
    run: dict = {"id": max(ids, default=8_000_000) + 1, "name": run_name, "app": _token_app(state)}
    _check_state(req, run, state.world["now"])
    output = _check_output(req, None)
    if output is not None:
        run["output"] = output
    state.world["check_runs"].setdefault(head_sha, []).append(run)
    shape = state.shapes(req).check_run(head_sha, run)
    return Response(status=201, body=shape, headers={"Location": shape["url"]})


@route("PATCH", "{R}/check-runs/(?P<cid>\\d+)")
def update_check_run(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    """Update a check run in place; only the app that created it may (GitHub's 403 otherwise)."""
    _require_auth(req)
    _own_repo(state, owner, name)
    found = next(((sha, run) for sha, runs in state.world["check_runs"].items() for run in runs
                  if run["id"] == int(cid)), None)
    sha, run = _or_404(found)
    owner_app = (run.get("app") or {}).get("slug", "github-actions")
    if owner_app != _token_app(state)["slug"]:
        raise HttpError(403, f"Invalid app_id `{_token_app(state)['id']}` - check run can only be "
                        "modified by the GitHub App that created it.")
    if isinstance(req.body, dict) and isinstance(req.body.get("name"), str):
        run["name"] = req.body["name"]
    _check_state(req, run, state.world["now"])
    output = _check_output(req, run.get("output") or {"title": None, "summary": None,
                                                      "text": None, "annotations": []})
    if output is not None:
        run["output"] = output
    return Response(body=state.shapes(req).check_run(sha, run))


@route("GET", "{R}/check-runs/(?P<cid>\\d+)/annotations")
def list_check_run_annotations(state: State, req: Request, owner: str, name: str,
                               cid: str) -> Response:
    """The annotations recorded on a check run, in the order they were added."""
    _own_repo(state, owner, name)
    sha, run = _or_404(next(((sha, r) for sha, runs in state.world["check_runs"].items()
                             for r in runs if r["id"] == int(cid)), None))
    items = (run.get("output") or {}).get("annotations") or []
    return Response(items=items, shape=lambda item: {
        "path": item["path"], "start_line": item["start_line"], "end_line": item["end_line"],
        "start_column": item.get("start_column"), "end_column": item.get("end_column"),
        "annotation_level": item["annotation_level"], "title": item.get("title"),
        "message": item["message"], "raw_details": item.get("raw_details"),
        "blob_href": f"https://github.com/{state.world['repo']}/blob/{sha}/{item['path']}"})


def latest_per_suite(sha: str, runs: list[dict]) -> list[dict]:
    """GitHub's `filter=latest`: within each check suite (one workflow run), the newest check
    run of each name by completed_at; runs of different suites never hide each other."""
    newest: dict[tuple[str, str], dict] = {}
    for run in runs:
        key = (W.suite_key(sha, run), run["name"])
        if key not in newest or W.newest_key(run) > W.newest_key(newest[key]):
            newest[key] = run
    keep = {id(run) for run in newest.values()}
    return [run for run in runs if id(run) in keep]


# --- contents and tarballs -------------------------------------------------------------------


@route("GET", "{R}/contents(?:/(?P<path>.*))?")
def get_contents(state: State, req: Request, owner: str, name: str, path: str | None) -> Response:
    if f"{owner}/{name}" in state.world["external"]:
        return _external_contents(state, req, f"{owner}/{name}", path)
    _own_repo(state, owner, name)
    ref = req.query.get("ref") or state.world["default_branch"]
    sha = W.resolve_ref(state.world, ref)
    if sha is None:
        raise HttpError(404, f"No commit found for the ref {ref}")
    path = (path or "").strip("/")
    tree = state.tree(sha)
    shapes = state.shapes(req)
    if path in tree:
        size = len(tree[path].encode())
        if size > CONTENTS_RAW_LIMIT:
            raise HttpError(403, "This API returns blobs up to 100 MB in size. The requested "
                                 "blob is too large to fetch via the API",
                            [{"resource": "Blob", "field": "data", "code": "too_large"}])
        if "raw" in req.headers.get("accept", ""):
            return Response(body=tree[path].encode(), content_type="application/vnd.github.raw")
        if size > CONTENTS_JSON_LIMIT:  # GitHub: 1-100 MB only with the raw media type
            return Response(body=shapes.content_file(path, tree[path], ref)
                            | {"content": "", "encoding": "none"})
        return Response(body=shapes.content_file(path, tree[path], ref))
    prefix = f"{path}/" if path else ""
    children: dict[str, str | None] = {}
    for file_path, text in tree.items():
        if file_path.startswith(prefix):
            head, _, rest = file_path[len(prefix):].partition("/")
            children[prefix + head] = None if rest else text
    if not children:
        raise not_found()
    return Response(body=[
        shapes.content_dir_entry(p, "file" if t is not None else "dir", t, ref)
        for p, t in sorted(children.items())
    ])


def _external_contents(state: State, req: Request, full_name: str, path: str | None) -> Response:
    """A file of another repository (a published recipe page's source): `external.<repo>.files`
    maps a ref to its files; anything else, directories included, is GitHub's 404."""
    ref = req.query.get("ref") or "main"
    files = (state.world["external"][full_name].get("files") or {}).get(ref)
    if files is None:
        raise HttpError(404, f"No commit found for the ref {ref}")
    text = _or_404(files.get((path or "").strip("/")))
    body = state.shapes(req).content_file(path or "", text, ref)
    if "raw" in req.headers.get("accept", ""):
        return Response(body=text.encode(), content_type="application/vnd.github.raw")
    return Response(body=body)


@route("GET", "{R}/tarball(?:/(?P<ref>.+))?")
def tarball_link(state: State, req: Request, owner: str, name: str, ref: str | None) -> Response:
    _own_repo(state, owner, name)
    sha = _or_404(W.resolve_ref(state.world, ref or state.world["default_branch"]))
    return _storage_redirect(state, req, f"/_fake/tarball/{owner}/{name}/{sha}")


@route("GET", "/_fake/tarball/(?P<owner>[^/]+)/(?P<name>[^/]+)/(?P<sha>[0-9a-f]{40})",
       origin="storage")
def tarball(state: State, req: Request, owner: str, name: str, sha: str) -> Response:
    _check_signed(state, req)
    _own_repo(state, owner, name)
    if sha not in state.world["commits"]:
        raise not_found()
    return Response(body=make_tarball(f"{owner}-{name}-{sha[:7]}", state.tree(sha),
                                      _epoch(state.world)),
                    content_type="application/x-gzip")


def make_tarball(top: str, tree: dict[str, str], mtime: float) -> bytes:
    """A gzip'd tar of a tree under one top directory, like GitHub's codeload archives."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path in sorted(tree):
            data = tree[path].encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            info.mtime = int(mtime)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    # the fastest deflate level: an archive's bytes are no contract, its members are (level 9
    # took 0.11 s for a real tree of 1 MB, two of them in every verdict; level 1 takes 0.02 s)
    return gzip.compress(raw.getvalue(), compresslevel=1, mtime=int(mtime))


# --- people ------------------------------------------------------------------------------------


@route("GET", "{R}/collaborators/(?P<user>[^/]+)/permission")
def collaborator_permission(state: State, req: Request, owner: str, name: str,
                            user: str) -> Response:
    _own_repo(state, owner, name)
    entry = _or_404(state.world["collaborators"].get(user))
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


@route("GET", "{R}/codeowners/errors")
def codeowners_errors(state: State, req: Request, owner: str, name: str) -> Response:
    """GitHub answers 404 when the ref has no CODEOWNERS in .github/, the root or docs/."""
    _own_repo(state, owner, name)
    ref = req.query.get("ref") or state.world["default_branch"]
    sha = W.resolve_ref(state.world, ref)
    if sha is None or not any(p in state.tree(sha) for p in CODEOWNERS_PATHS):
        raise not_found()
    return Response(body={"errors": state.world["codeowners_errors"]})


# --- actions: runs and artifacts ------------------------------------------------------------


def _runs(state: State) -> list[dict]:
    return sorted(state.world["workflow_runs"], key=lambda r: (r.get("created_at", ""), r["id"]),
                  reverse=True)


@route("GET", "{R}/actions/runs")
def list_runs(state: State, req: Request, owner: str, name: str) -> Response:
    _own_repo(state, owner, name)
    runs = _runs(state)
    q = req.query
    if "head_sha" in q:
        runs = [r for r in runs if r["head_sha"] == q["head_sha"]]
    if "event" in q:
        runs = [r for r in runs if r.get("event", "push") == q["event"]]
    if "branch" in q:
        runs = [r for r in runs if r.get("head_branch") == q["branch"]]
    if "status" in q:
        runs = [r for r in runs if q["status"] in (r.get("status", "completed"), r.get("conclusion"))]
    shapes = state.shapes(req)
    return Response(items=runs, list_key="workflow_runs", shape=shapes.workflow_run,
                    cap=MAX_LISTED_RESULTS if set(q) & RUN_SEARCH_FILTERS else None)


def _run(state: State, owner: str, name: str, run_id: str) -> dict:
    _own_repo(state, owner, name)
    return _or_404(W.find_run(state.world, int(run_id)))


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)")
def get_run(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    return Response(body=state.shapes(req).workflow_run(_run(state, owner, name, run_id)))


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/jobs")
def list_run_jobs(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    """The run's jobs: `filter=latest` (default) keeps each job's newest attempt, `all` every
    attempt, like GitHub's "re-run failed jobs" view."""
    run = _run(state, owner, name, run_id)
    jobs = W.run_jobs(state.world, run)
    wanted = req.query.get("filter", "latest")
    if wanted not in ("latest", "all"):
        raise _validation_failed("Job", "filter", f"filter {wanted!r} is not one of latest, all")
    if wanted == "latest":
        best: dict[str, tuple[dict, int]] = {}
        for job, attempt in jobs:
            current = best.get(job["name"])
            if current is None or (attempt, W.newest_key(job)) > (current[1],
                                                                    W.newest_key(current[0])):
                best[job["name"]] = (job, attempt)
        keep = {id(job) for job, _ in best.values()}
        jobs = [(job, attempt) for job, attempt in jobs if id(job) in keep]
    shapes = state.shapes(req)
    return Response(items=jobs, list_key="jobs",
                    shape=lambda pair: shapes.job(run, pair[0], pair[1]))


@route("POST", "{R}/actions/runs/(?P<run_id>\\d+)/rerun-failed-jobs")
def rerun_failed_jobs(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    """A new attempt of a finished run (its failed jobs and their dependants); the run is queued."""
    _require_auth(req)
    run = _run(state, owner, name, run_id)
    if run.get("status", "completed") != "completed":
        raise HttpError(403, "This workflow run cannot be re-run while it is still running.")
    run["run_attempt"] = int(run.get("run_attempt", 1)) + 1
    run["status"], run["conclusion"] = "queued", None
    return Response(status=201, body={})


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/attempts/(?P<attempt>\\d+)/jobs")
def list_attempt_jobs(state: State, req: Request, owner: str, name: str, run_id: str,
                      attempt: str) -> Response:
    """The jobs recorded for one attempt of the run (404 past the run's run_attempt)."""
    run = _run(state, owner, name, run_id)
    if not 1 <= int(attempt) <= int(run.get("run_attempt", 1)):
        raise not_found()
    shapes = state.shapes(req)
    return Response(items=[(job, n) for job, n in W.run_jobs(state.world, run) if n == int(attempt)],
                    list_key="jobs", shape=lambda pair: shapes.job(run, pair[0], pair[1]))


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/attempts/(?P<attempt>\\d+)")
def get_run_attempt(state: State, req: Request, owner: str, name: str, run_id: str,
                    attempt: str) -> Response:
    run = _run(state, owner, name, run_id)
    if not 1 <= int(attempt) <= int(run.get("run_attempt", 1)):
        raise not_found()
    return Response(body=state.shapes(req).workflow_run(run) | {"run_attempt": int(attempt)})


@route("GET", "{R}/actions/jobs/(?P<job_id>\\d+)")
def get_job(state: State, req: Request, owner: str, name: str, job_id: str) -> Response:
    _own_repo(state, owner, name)
    for run in state.world["workflow_runs"]:
        for job, attempt in W.run_jobs(state.world, run):
            if job["id"] == int(job_id):
                return Response(body=state.shapes(req).job(run, job, attempt))
    raise not_found()


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/artifacts")
def list_run_artifacts(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    run = _run(state, owner, name, run_id)
    items = [a for a in run.get("artifacts", []) if req.query.get("name") in (None, a["name"])]
    return Response(items=items, list_key="artifacts",
                    shape=lambda artifact: _artifact_shape(state, req, run, artifact))


@route("GET", "{R}/actions/artifacts")
def list_artifacts(state: State, req: Request, owner: str, name: str) -> Response:
    _own_repo(state, owner, name)
    items = [(run, a) for run in _runs(state)
             for a in run.get("artifacts", []) if req.query.get("name") in (None, a["name"])]
    return Response(items=items, list_key="artifacts",
                    shape=lambda pair: _artifact_shape(state, req, pair[0], pair[1]))


def _find_artifact(state: State, owner: str, name: str, artifact_id: str) -> tuple[dict, dict]:
    _own_repo(state, owner, name)
    for run in state.world["workflow_runs"]:
        for artifact in run.get("artifacts", []):
            if artifact["id"] == int(artifact_id):
                return run, artifact
    raise not_found()


def _artifact_shape(state: State, req: Request, run: dict, artifact: dict) -> dict:
    return state.shapes(req).artifact(run, artifact, len(make_zip(artifact.get("files", {}))))


@route("GET", "{R}/actions/artifacts/(?P<aid>\\d+)")
def get_artifact(state: State, req: Request, owner: str, name: str, aid: str) -> Response:
    run, artifact = _find_artifact(state, owner, name, aid)
    return Response(body=_artifact_shape(state, req, run, artifact))


@route("GET", "{R}/actions/artifacts/(?P<aid>\\d+)/(?P<fmt>zip)")
def artifact_link(state: State, req: Request, owner: str, name: str, aid: str, fmt: str) -> Response:
    _, artifact = _find_artifact(state, owner, name, aid)
    if artifact.get("expired"):
        raise HttpError(410, "Artifact has expired")
    return _storage_redirect(state, req, f"/_fake/artifacts/{owner}/{name}/{aid}.zip")


@route("GET", "/_fake/artifacts/(?P<owner>[^/]+)/(?P<name>[^/]+)/(?P<aid>\\d+)\\.zip",
       origin="storage")
def artifact_zip(state: State, req: Request, owner: str, name: str, aid: str) -> Response:
    _check_signed(state, req)
    _, artifact = _find_artifact(state, owner, name, aid)
    if artifact.get("expired"):
        raise HttpError(410, "Artifact has expired")
    return Response(body=make_zip(artifact.get("files", {})), content_type="application/zip")


def make_zip(files: dict) -> bytes:
    """Artifact members as a zip; non-string values are serialised as JSON."""
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member in sorted(files):
            value = files[member]
            text = value if isinstance(value, str) else json.dumps(value, indent=2)
            info = zipfile.ZipInfo(member, date_time=(2026, 1, 1, 0, 0, 0))
            archive.writestr(info, text)
    return raw.getvalue()


# --- logs ------------------------------------------------------------------------------------


def _job(state: State, owner: str, name: str, job_id: str) -> tuple[dict, dict, int]:
    _own_repo(state, owner, name)
    for run in state.world["workflow_runs"]:
        for job, attempt in W.run_jobs(state.world, run):
            if job["id"] == int(job_id):
                return run, job, attempt
    raise not_found()


def _job_log(job: dict) -> str:
    return job.get("log", f"{job['name']}: {job.get('conclusion') or job['status']}\n")


@route("GET", "{R}/actions/jobs/(?P<job_id>\\d+)/logs")
def job_log_link(state: State, req: Request, owner: str, name: str, job_id: str) -> Response:
    _job(state, owner, name, job_id)
    return _storage_redirect(state, req, f"/_fake/logs/{owner}/{name}/jobs/{job_id}.txt")


@route("GET", "/_fake/logs/(?P<owner>[^/]+)/(?P<name>[^/]+)/jobs/(?P<job_id>\\d+)\\.txt",
       origin="storage")
def job_log(state: State, req: Request, owner: str, name: str, job_id: str) -> Response:
    _check_signed(state, req)
    _, job, _ = _job(state, owner, name, job_id)
    return Response(body=_job_log(job).encode(), content_type="text/plain")


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/logs")
def run_logs_link(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    _run(state, owner, name, run_id)
    return _storage_redirect(state, req, f"/_fake/logs/{owner}/{name}/runs/{run_id}.zip")


@route("GET", "/_fake/logs/(?P<owner>[^/]+)/(?P<name>[^/]+)/runs/(?P<run_id>\\d+)\\.zip",
       origin="storage")
def run_logs(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    """A zip with one `<n>_<job name>.txt` per job of the latest attempt."""
    _check_signed(state, req)
    run = _run(state, owner, name, run_id)
    jobs = [(job, n) for job, n in W.run_jobs(state.world, run)
            if n == int(run.get("run_attempt", 1))]
    files = {f"{i}_{job['name'].replace('/', '_')}.txt": _job_log(job)
             for i, (job, _) in enumerate(jobs)}
    return Response(body=make_zip(files), content_type="application/zip")
