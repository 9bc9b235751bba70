"""Routes for check runs: the lists of a ref and of a suite, one run, writes, annotations."""

from __future__ import annotations

from infx.github.fake import world as W
from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.routes.common import (
    MAX_LISTED_RESULTS,
    Route,
    State,
    body_field,
    or_404,
    own_repo,
    registrar,
    require_auth,
    sha_of,
    validation_failed,
)
from infx.github.fake.shapes import ACTIONS_APP_ID

ROUTES: list[Route] = []
route = registrar(ROUTES)


@route("GET", "{R}/commits/(?P<ref>[^/]+)/check-runs")
def list_check_runs(state: State, req: Request, owner: str, name: str, ref: str) -> Response:
    own_repo(state, owner, name)
    sha = sha_of(state, ref)
    runs = list(state.world["check_runs"].get(sha, []))
    if req.query.get("filter", "latest") == "latest":
        runs = latest_per_suite(sha, runs)
    runs = [r for r in runs if _asked_for(req, r)]
    shapes = state.shapes(req)
    return Response(items=runs, list_key="check_runs", cap=MAX_LISTED_RESULTS,
                    shape=lambda run: shapes.check_run(sha, run))


def _asked_for(req: Request, run: dict) -> bool:
    """Whether a check run passes a listing's `check_name` and `status` filters."""
    return all(run[key] == req.query[param] for param, key in (("check_name", "name"), ("status", "status"))
               if param in req.query)


@route("GET", "{R}/check-suites/(?P<suite_id>\\d+)/check-runs")
def list_suite_check_runs(state: State, req: Request, owner: str, name: str,
                          suite_id: str) -> Response:
    """The check runs of one check suite (a workflow run's jobs, or a commit's other checks):
    GitHub's way past the ref listing's 1,000 results. Same filters as the ref listing."""
    own_repo(state, owner, name)
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
    found = [(sha, run) for sha, run in found if _asked_for(req, run)]
    return Response(items=found, list_key="check_runs",
                    shape=lambda pair: shapes.check_run(pair[0], pair[1]))


@route("GET", "{R}/check-runs/(?P<cid>\\d+)")
def get_check_run(state: State, req: Request, owner: str, name: str, cid: str) -> Response:
    own_repo(state, owner, name)
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
        raise validation_failed("CheckRun", "output", "output must be an object")
    required = ("summary",) if old is not None else ("title", "summary")
    for key in required:
        if not isinstance(output.get(key), str):
            raise validation_failed("CheckRun", f"output.{key}", f"output.{key} is required")
    for key in ("summary", "text"):
        if len(output.get(key) or "") > MAX_CHECK_OUTPUT_CHARS:
            raise validation_failed("CheckRun", f"output.{key}",
                                     f"output.{key} is too long (maximum is {MAX_CHECK_OUTPUT_CHARS} characters)")
    annotations = output.get("annotations") or []
    if not isinstance(annotations, list) or len(annotations) > MAX_ANNOTATIONS_PER_REQUEST:
        raise validation_failed("CheckRun", "output.annotations",
                                 f"at most {MAX_ANNOTATIONS_PER_REQUEST} annotations per request")
    for item in annotations:
        if not (isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"]
                and isinstance(item.get("start_line"), int) and isinstance(item.get("end_line"), int)
                and 1 <= item["start_line"] <= item["end_line"]
                and item.get("annotation_level") in ANNOTATION_LEVELS
                and isinstance(item.get("message"), str) and item["message"]):
            raise validation_failed("CheckRun", "output.annotations",
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
        raise validation_failed("CheckRun", "status", f"status must be one of {', '.join(CHECK_STATUSES)}")
    conclusion = body.get("conclusion", run.get("conclusion"))
    if conclusion is not None and conclusion not in CHECK_CONCLUSIONS:
        raise validation_failed("CheckRun", "conclusion",
                                 f"conclusion must be one of {', '.join(CHECK_CONCLUSIONS)}")
    if "conclusion" in body and conclusion is not None:
        status = "completed"
    if status == "completed" and conclusion is None:
        raise validation_failed("CheckRun", "conclusion",
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
    require_auth(req)
    own_repo(state, owner, name)
    run_name = body_field(req, "name")
    head_sha = body_field(req, "head_sha")
    if head_sha not in state.world["commits"]:
        raise validation_failed("CheckRun", "head_sha", f"No commit found for SHA: {head_sha}")
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
    require_auth(req)
    own_repo(state, owner, name)
    found = next(((sha, run) for sha, runs in state.world["check_runs"].items() for run in runs
                  if run["id"] == int(cid)), None)
    sha, run = or_404(found)
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
    own_repo(state, owner, name)
    sha, run = or_404(next(((sha, r) for sha, runs in state.world["check_runs"].items()
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

