"""Routes for a PR's issue side: the issue, its timeline, comments, reactions and labels."""

from __future__ import annotations

from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.routes.common import (
    Route,
    State,
    body_field,
    comment_at,
    own_repo,
    pull_at,
    registrar,
    require_auth,
    validation_failed,
)

ROUTES: list[Route] = []
route = registrar(ROUTES)


MAX_COMMENT_CHARS = 65_536


REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


@route("GET", "{R}/issues/(?P<number>\\d+)/timeline")
def list_timeline(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    """The PR's timeline: the world's `timeline` as written, else a `committed` event for
    each of its commits (a world without one records no force-push)."""
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    events = pull.get("timeline")
    if events is None:
        events = [{"event": "committed", "sha": sha} for sha in pull["commits"]]
    return Response(items=list(enumerate(events)),
                    shape=lambda pair: shapes.timeline_event(pull, pair[1], pair[0]))


@route("GET", "{R}/issues/(?P<number>\\d+)")
def get_issue(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    return Response(body=state.shapes(req).issue(pull_at(state, owner, name, number)))


@route("GET", "{R}/issues/(?P<number>\\d+)/comments")
def list_comments(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    comments = pull["comments"]
    if "since" in req.query:
        comments = [c for c in comments if c["updated_at"] >= req.query["since"]]
    return Response(items=comments, shape=lambda comment: shapes.issue_comment(pull, comment))


@route("POST", "{R}/issues/(?P<number>\\d+)/comments")
def create_comment(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    require_auth(req)
    pull = pull_at(state, owner, name, number)
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
    body = body_field(req, "body")
    if len(body) > MAX_COMMENT_CHARS:
        raise validation_failed("IssueComment", "body",
                                 f"Body is too long (maximum is {MAX_COMMENT_CHARS} characters)")
    return body


@route("GET", "{R}/issues/comments/(?P<cid>\\d+)")
def get_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    pull, comment = comment_at(state, owner, name, cid)
    return Response(body=state.shapes(req).issue_comment(pull, comment))


@route("PATCH", "{R}/issues/comments/(?P<cid>\\d+)")
def edit_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    require_auth(req)
    pull, comment = comment_at(state, owner, name, cid)
    comment["body"] = _checked_comment_body(req)
    comment["updated_at"] = state.world["now"]
    return Response(body=state.shapes(req).issue_comment(pull, comment))


@route("DELETE", "{R}/issues/comments/(?P<cid>\\d+)")
def delete_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    require_auth(req)
    pull, comment = comment_at(state, owner, name, cid)
    pull["comments"].remove(comment)
    return Response(status=204)


@route("GET", "{R}/issues/comments/(?P<cid>\\d+)/reactions")
def list_reactions(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    _, comment = comment_at(state, owner, name, cid)
    wanted = req.query.get("content")
    shapes = state.shapes(req)
    return Response(items=[r for r in comment["reactions"] if wanted in (None, r["content"])],
                    shape=shapes.reaction)


@route("POST", "{R}/issues/comments/(?P<cid>\\d+)/reactions")
def add_reaction(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    require_auth(req)
    _, comment = comment_at(state, owner, name, cid)
    content = body_field(req, "content")
    if content not in REACTIONS:
        raise validation_failed("Reaction", "content", f"content {content!r} is not a reaction")
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
    require_auth(req)
    _, comment = comment_at(state, owner, name, cid)
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
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["labels"], shape=shapes.label)


@route("POST", "{R}/issues/(?P<number>\\d+)/labels")
def add_labels(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    require_auth(req)
    pull = pull_at(state, owner, name, number)
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
    require_auth(req)
    pull = pull_at(state, owner, name, number)
    if label not in pull["labels"]:
        raise HttpError(404, "Label does not exist")
    pull["labels"].remove(label)
    shapes = state.shapes(req)
    return Response(body=[shapes.label(n) for n in pull["labels"]])


@route("GET", "{R}/labels")
def list_labels(state: State, req: Request, owner: str, name: str) -> Response:
    own_repo(state, owner, name)
    names = sorted({n for p in state.world["pulls"] for n in p["labels"]}
                   | set(state.world.get("labels", [])))
    shapes = state.shapes(req)
    return Response(items=names, shape=shapes.label)

