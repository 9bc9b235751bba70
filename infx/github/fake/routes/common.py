"""Shared by the route modules: the live state, route registration, lookups, request checks."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from infx.github.fake import world as W
from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.pr_files import FileChange, tree_changes
from infx.github.fake.shapes import Shapes

# listings GitHub documents to stop at 1,000 results (total_count still counts them all):
# check runs for a ref, and workflow runs searched by these filters
MAX_LISTED_RESULTS = 1000
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
Route = tuple[str, re.Pattern, Handler, str]  # method, anchored pattern, handler, origin
REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"


def registrar(table: list[Route]) -> Callable[..., Callable[[Handler], Handler]]:
    """The `route` decorator of one resource module: it appends to that module's `table`."""
    def route(method: str, pattern: str, origin: str = "api") -> Callable[[Handler], Handler]:
        """Register a handler; `origin="storage"` serves it on the download host only."""
        def register(handler: Handler) -> Handler:
            table.append((method, re.compile(pattern.replace("{R}", REPO) + "$"), handler,
                          origin))
            return handler
        return register
    return route


def storage_redirect(state: State, req: Request, path: str) -> Response:
    """GitHub's 302 to signed storage on another host: the signature is in the query."""
    location = f"{req.storage or req.api}{path}?sig={state.sign(path)}"
    return Response(status=302, headers={"Location": location}, body=b"",
                    content_type="text/plain")


def check_signed(state: State, req: Request) -> None:
    """Storage hosts trust the signed URL alone and refuse requests carrying credentials."""
    if req.headers.get("authorization"):
        raise HttpError(400, "Authorization header is not allowed with a signed URL")
    if not hmac.compare_digest(req.query.get("sig", ""), state.sign(req.path)):
        raise HttpError(403, "Signature not valid for this resource")


def own_repo(state: State, owner: str, name: str) -> None:
    if f"{owner}/{name}".lower() != state.world["repo"].lower():
        raise not_found()


def or_404(found: T | None) -> T:
    """What was looked up, or GitHub's 404 when it is not there."""
    if found is None:
        raise not_found()
    return found


def pull_at(state: State, owner: str, name: str, number: str) -> dict:
    own_repo(state, owner, name)
    return or_404(W.find_pull(state.world, int(number)))


def comment_at(state: State, owner: str, name: str, comment_id: str) -> tuple[dict, dict]:
    own_repo(state, owner, name)
    return or_404(W.find_comment(state.world, int(comment_id)))


def sha_of(state: State, ref: str) -> str:
    sha = W.resolve_ref(state.world, ref)
    if sha is None:
        raise HttpError(422, f"No commit found for SHA: {ref}")
    return sha


def require_auth(req: Request) -> None:
    if not req.headers.get("authorization"):
        raise HttpError(401, "Requires authentication")


def body_field(req: Request, key: str, kind: type = str) -> Any:
    value = req.body.get(key) if isinstance(req.body, dict) else None
    if not isinstance(value, kind):
        raise HttpError(422, "Invalid request.",
                        [{"resource": "Request", "field": key, "code": "missing_field"}])
    return value


def validation_failed(resource: str, field: str, message: str) -> HttpError:
    return HttpError(422, "Validation Failed",
                     [{"resource": resource, "code": "custom", "field": field, "message": message}])


def epoch(world: dict) -> float:
    return datetime.fromisoformat(world["now"].replace("Z", "+00:00")).timestamp()

