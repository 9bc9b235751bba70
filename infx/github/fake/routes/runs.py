"""Routes for GitHub Actions: dispatches, workflow runs, attempts, jobs, artifacts and logs."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from urllib.parse import unquote

from infx.github.fake import world as W
from infx.github.fake.http import HttpError, Request, Response, not_found
from infx.github.fake.routes.common import (
    MAX_LISTED_RESULTS,
    Route,
    State,
    body_field,
    check_signed,
    or_404,
    own_repo,
    registrar,
    require_auth,
    storage_redirect,
    validation_failed,
)

ROUTES: list[Route] = []
route = registrar(ROUTES)


RUN_SEARCH_FILTERS = frozenset({"actor", "branch", "check_suite_id", "created", "event",
                                "head_sha", "status"})


@route("POST", "{R}/dispatches")
def create_dispatch(state: State, req: Request, owner: str, name: str) -> Response:
    """repository_dispatch: recorded under the world's `dispatches` (GitHub answers 204)."""
    require_auth(req)
    own_repo(state, owner, name)
    event_type = body_field(req, "event_type")
    if not 1 <= len(event_type) <= 100:
        raise validation_failed("Dispatch", "event_type", "event_type must be 1 to 100 characters")
    payload = req.body.get("client_payload", {})
    if not isinstance(payload, dict) or len(payload) > 10:
        raise validation_failed("Dispatch", "client_payload",
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
    require_auth(req)
    own_repo(state, owner, name)
    ref = body_field(req, "ref")
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
        raise validation_failed("WorkflowDispatch", "inputs", "inputs must be an object of strings")
    state.world.setdefault("workflow_dispatches", []).append(
        {"workflow": path, "ref": branch, "sha": sha, "inputs": dict(inputs),
         "sender": state.world["token_login"], "created_at": state.world["now"]})
    return Response(status=204)


_WHEN = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2}))?")


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def _span(text: str) -> tuple[datetime, datetime]:
    """[start, end) of a search-syntax date (a whole UTC day) or date-time (that instant)."""
    if not _WHEN.fullmatch(text):
        raise validation_failed("WorkflowRun", "created", f"{text!r} is not a date or date-time")
    if "T" in text:
        start = _instant(text)
        return start, start + timedelta(microseconds=1)
    start = datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
    return start, start + timedelta(days=1)


def created_filter(value: str) -> Callable[[str], bool]:
    """The `created` filter of "List workflow runs for a repository", in GitHub's search
    syntax for dates: `>D`, `>=D`, `<D`, `<=D`, `D..D` (both ends included, either may be
    `*`) or `D` alone, each D a date (YYYY-MM-DD, a whole day) or a date-time with its zone."""
    low: datetime | None = None
    high: datetime | None = None  # exclusive
    for sign in (">=", "<=", ">", "<"):
        if value.startswith(sign):
            start, end = _span(value[len(sign):])
            low, high = {">=": (start, None), ">": (end, None), "<=": (None, end),
                         "<": (None, start)}[sign]
            break
    else:
        first, dots, last = value.partition("..")
        if dots:
            low = None if first == "*" else _span(first)[0]
            high = None if last == "*" else _span(last)[1]
        else:
            low, high = _span(value)
    return lambda created: bool(created) and (low is None or _instant(created) >= low) \
        and (high is None or _instant(created) < high)


def _runs(state: State) -> list[dict]:
    return sorted(state.world["workflow_runs"], key=lambda r: (r.get("created_at", ""), r["id"]),
                  reverse=True)


@route("GET", "{R}/actions/runs")
def list_runs(state: State, req: Request, owner: str, name: str) -> Response:
    own_repo(state, owner, name)
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
    if "created" in q:
        within = created_filter(q["created"])
        runs = [r for r in runs if within(r.get("created_at", ""))]
    shapes = state.shapes(req)
    return Response(items=runs, list_key="workflow_runs", shape=shapes.workflow_run,
                    cap=MAX_LISTED_RESULTS if set(q) & RUN_SEARCH_FILTERS else None)


def _run(state: State, owner: str, name: str, run_id: str) -> dict:
    own_repo(state, owner, name)
    return or_404(W.find_run(state.world, int(run_id)))


def _run_attempt(state: State, owner: str, name: str, run_id: str, attempt: str) -> dict:
    """The run, when it has had that attempt (GitHub's 404 past its run_attempt)."""
    run = _run(state, owner, name, run_id)
    if not 1 <= int(attempt) <= int(run.get("run_attempt", 1)):
        raise not_found()
    return run


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
        raise validation_failed("Job", "filter", f"filter {wanted!r} is not one of latest, all")
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
    require_auth(req)
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
    run = _run_attempt(state, owner, name, run_id, attempt)
    shapes = state.shapes(req)
    return Response(items=[(job, n) for job, n in W.run_jobs(state.world, run) if n == int(attempt)],
                    list_key="jobs", shape=lambda pair: shapes.job(run, pair[0], pair[1]))


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/attempts/(?P<attempt>\\d+)")
def get_run_attempt(state: State, req: Request, owner: str, name: str, run_id: str,
                    attempt: str) -> Response:
    run = _run_attempt(state, owner, name, run_id, attempt)
    return Response(body=state.shapes(req).workflow_run(run) | {"run_attempt": int(attempt)})


@route("GET", "{R}/actions/jobs/(?P<job_id>\\d+)")
def get_job(state: State, req: Request, owner: str, name: str, job_id: str) -> Response:
    return Response(body=state.shapes(req).job(*_job(state, owner, name, job_id)))


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/artifacts")
def list_run_artifacts(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    run = _run(state, owner, name, run_id)
    items = [a for a in run.get("artifacts", []) if req.query.get("name") in (None, a["name"])]
    return Response(items=items, list_key="artifacts",
                    shape=lambda artifact: _artifact_shape(state, req, run, artifact))


@route("GET", "{R}/actions/artifacts")
def list_artifacts(state: State, req: Request, owner: str, name: str) -> Response:
    own_repo(state, owner, name)
    items = [(run, a) for run in _runs(state)
             for a in run.get("artifacts", []) if req.query.get("name") in (None, a["name"])]
    return Response(items=items, list_key="artifacts",
                    shape=lambda pair: _artifact_shape(state, req, pair[0], pair[1]))


def _find_artifact(state: State, owner: str, name: str, artifact_id: str) -> tuple[dict, dict]:
    own_repo(state, owner, name)
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
    return storage_redirect(state, req, f"/_fake/artifacts/{owner}/{name}/{aid}.zip")


@route("GET", "/_fake/artifacts/(?P<owner>[^/]+)/(?P<name>[^/]+)/(?P<aid>\\d+)\\.zip",
       origin="storage")
def artifact_zip(state: State, req: Request, owner: str, name: str, aid: str) -> Response:
    check_signed(state, req)
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


def _job(state: State, owner: str, name: str, job_id: str) -> tuple[dict, dict, int]:
    own_repo(state, owner, name)
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
    return storage_redirect(state, req, f"/_fake/logs/{owner}/{name}/jobs/{job_id}.txt")


@route("GET", "/_fake/logs/(?P<owner>[^/]+)/(?P<name>[^/]+)/jobs/(?P<job_id>\\d+)\\.txt",
       origin="storage")
def job_log(state: State, req: Request, owner: str, name: str, job_id: str) -> Response:
    check_signed(state, req)
    _, job, _ = _job(state, owner, name, job_id)
    return Response(body=_job_log(job).encode(), content_type="text/plain")


@route("GET", "{R}/actions/runs/(?P<run_id>\\d+)/logs")
def run_logs_link(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    _run(state, owner, name, run_id)
    return storage_redirect(state, req, f"/_fake/logs/{owner}/{name}/runs/{run_id}.zip")


@route("GET", "/_fake/logs/(?P<owner>[^/]+)/(?P<name>[^/]+)/runs/(?P<run_id>\\d+)\\.zip",
       origin="storage")
def run_logs(state: State, req: Request, owner: str, name: str, run_id: str) -> Response:
    """A zip with one `<n>_<job name>.txt` per job of the latest attempt."""
    check_signed(state, req)
    run = _run(state, owner, name, run_id)
    jobs = [(job, n) for job, n in W.run_jobs(state.world, run)
            if n == int(run.get("run_attempt", 1))]
    files = {f"{i}_{job['name'].replace('/', '_')}.txt": _job_log(job)
             for i, (job, _) in enumerate(jobs)}
    return Response(body=make_zip(files), content_type="application/zip")

