"""Routes for pull requests: lists (a commit's too), one PR, files, commits, reviews, comments."""

from __future__ import annotations

from infx.github.fake import world as W
from infx.github.fake.http import Request, Response, not_found
from infx.github.fake.pr_files import full_diff
from infx.github.fake.routes.common import (
    Route,
    State,
    or_404,
    own_repo,
    pull_at,
    registrar,
)

ROUTES: list[Route] = []
route = registrar(ROUTES)


MAX_PULL_FILES = 3000  # GitHub stops listing a pull request's files here


MAX_PULL_COMMITS = 250  # ... and its commits here


@route("GET", "{R}/pulls")
def list_pulls(state: State, req: Request, owner: str, name: str) -> Response:
    own_repo(state, owner, name)
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
    pull = pull_at(state, owner, name, number)
    changes = state.changes(pull)
    accept = req.headers.get("accept", "")
    if "diff" in accept or "patch" in accept:
        return Response(body=full_diff(changes).encode(), content_type="text/plain; charset=utf-8")
    return Response(body=state.shapes(req).pull(pull, changes))


@route("GET", "{R}/pulls/(?P<number>\\d+)/files")
def list_pull_files(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    if f"{owner}/{name}" in state.world["external"]:
        return _external_files(state, req, f"{owner}/{name}", int(number))
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    head_sha = pull["head"]["sha"]
    tree = state.tree(head_sha)
    return Response(items=state.changes(pull), cap=MAX_PULL_FILES,
                    shape=lambda change: shapes.file_change(change, head_sha, tree))


@route("GET", "{R}/pulls/(?P<number>\\d+)/commits")
def list_pull_commits(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["commits"], shape=shapes.commit, cap=MAX_PULL_COMMITS)


@route("GET", "{R}/pulls/(?P<number>\\d+)/reviews")
def list_reviews(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["reviews"], shape=lambda review: shapes.review(pull, review))


@route("GET", "{R}/pulls/(?P<number>\\d+)/comments")
def list_review_comments(state: State, req: Request, owner: str, name: str, number: str) -> Response:
    pull = pull_at(state, owner, name, number)
    shapes = state.shapes(req)
    return Response(items=pull["review_comments"],
                    shape=lambda comment: shapes.review_comment(pull, comment))


@route("GET", "{R}/pulls/(?P<number>\\d+)/reviews/(?P<rid>\\d+)")
def get_review(state: State, req: Request, owner: str, name: str, number: str, rid: str) -> Response:
    pull = pull_at(state, owner, name, number)
    review = or_404(next((r for r in pull["reviews"] if r["id"] == int(rid)), None))
    return Response(body=state.shapes(req).review(pull, review))


@route("GET", "{R}/pulls/comments/(?P<cid>\\d+)")
def get_review_comment(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    own_repo(state, owner, name)
    for pull in state.world["pulls"]:
        for comment in pull["review_comments"]:
            if comment["id"] == int(cid):
                return Response(body=state.shapes(req).review_comment(pull, comment))
    raise not_found()


@route("GET", "{R}/commits/(?P<ref>[^/]+)/pulls")
def pulls_for_commit(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    """Pull requests containing the commit (or merged as it), like GitHub's commit->PR lookup."""
    own_repo(state, owner, name)
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
    return or_404(next((p for p in pulls if p["number"] == number), None))

