"""Load, validate and query a world file: the GitHub state the fake server serves."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from infx.errors import InfxError, Problem
from infx.schemas import quick_valid
from infx.yamlio import find_line, load_json_text, load_text, private_copy, read_text

DEFAULT_NOW = "2026-01-01T00:00:00Z"
DEFAULT_LOGIN = "github-actions[bot]"


@lru_cache(maxsize=1)
def _schema() -> dict:
    text = resources.files("infx.github.fake").joinpath("schemas/world.schema.json").read_text()
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator  # deferred: only to explain an invalid world

    return Draft202012Validator(_schema())


def load_world(source: str | Path | dict, *, filename: str | None = None) -> dict:
    """Load a world from a path or a dict, validate it, and return a normalised deep copy."""
    if isinstance(source, dict):
        return validate_world(private_copy(source), filename=filename or "<world>", text=None)
    path = Path(source)
    text = read_text(path, what="world file", missing="cannot read world file: file not found",
                     fix="check the --world path")
    data = _parse(text, path)
    return validate_world(data, filename=str(path), text=text)


def _parse(text: str, path: Path) -> Any:
    """A world's data: JSON read as JSON (YAML has no surrogate-pair escapes), else YAML.

    A ``.json`` file is JSON. Any other file whose text opens with ``{`` and parses as JSON
    is read as JSON too (JSON means the same there, apart from those escapes).
    """
    if path.suffix.lower() == ".json":
        return load_json_text(text, str(path))
    if text.lstrip().startswith("{"):
        try:
            return load_json_text(text, str(path))
        except InfxError:
            pass  # a YAML flow mapping, or invalid either way: YAML names the problem
    return load_text(text, str(path))


def validate_world(data: Any, *, filename: str, text: str | None) -> dict:
    """Schema and reference checks; raises InfxError listing every problem with its line."""
    if not isinstance(data, dict):
        raise InfxError(Problem("a world must be a mapping", file=filename, line=1,
                                fix="start the file with `repo: owner/name`"))
    problems = [] if quick_valid(_schema(), data) else [
        _schema_problem(err, filename, text)
        for err in sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    ]
    if not problems:
        problems = [
            Problem(message, file=filename, line=_line(text, path), key=_key(path), fix=fix)
            for path, message, fix in reference_errors(data)
        ]
    if problems:
        raise InfxError(problems)
    return normalise(data)


def _schema_problem(err, filename: str, text: str | None) -> Problem:
    path = list(err.absolute_path)
    if err.validator == "propertyNames" or (err.absolute_schema_path
                                            and "propertyNames" in err.absolute_schema_path):
        path.append(err.instance)  # point at the offending key itself
    if (len(path) == 3 and path[0] == "collaborators" and path[2] == "permission"
            and err.instance in ROLE_PERMISSION and err.instance not in PERMISSIONS):
        served = ROLE_PERMISSION[err.instance]
        return Problem(f"invalid world: `permission: {err.instance}` is a role, not a permission "
                       f"(GitHub answers permission {served} and role_name {err.instance})",
                       file=filename, line=_line(text, path), key=_key(path),
                       fix=f"write `role_name: {err.instance}` (the fake then serves "
                           f"`permission: {served}`), or `permission: {served}`")
    return Problem(f"invalid world: {err.message}", file=filename, line=_line(text, path),
                   key=_key(path), fix="see docs/world-format.md for the world format")


# GitHub's collaborator permission API: the `permission` field knows only four values; the
# finer role is `role_name` (maintain is served as write, triage as read)
PERMISSIONS = ("admin", "write", "read", "none")
ROLE_PERMISSION = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read",
                   "read": "read"}


def collaborator_access(entry: dict) -> tuple[str, str]:
    """(permission, role_name) GitHub serves for a world collaborator entry."""
    role = entry.get("role_name")
    permission = entry.get("permission")
    if permission is None:
        permission = ROLE_PERMISSION.get(role or "", "read")
    return permission, role or permission


def _line(text: str | None, path: list) -> int | None:
    return find_line(text, path) if text else None


def _key(path: list) -> str | None:
    return ".".join(str(p) for p in path) or None


def reference_errors(world: dict) -> list[tuple[list, str, str]]:
    """Dangling commit references and files_from cycles, as (path, message, fix)."""
    commits = world.get("commits", {})
    errors: list[tuple[list, str, str]] = []

    def need(sha: Any, path: list) -> None:
        if sha not in commits:
            errors.append((path, f"unknown commit {sha}", "add it under `commits:`"))

    for name, sha in world.get("branches", {}).items():
        need(sha, ["branches", name])
    for sha, commit in commits.items():
        if commit.get("files_from"):
            need(commit["files_from"], ["commits", sha, "files_from"])
        for i, parent in enumerate(commit.get("parents", [])):
            need(parent, ["commits", sha, "parents", i])
    for i, pull in enumerate(world.get("pulls", [])):
        need(pull["base"]["sha"], ["pulls", i, "base", "sha"])
        need(pull["head"]["sha"], ["pulls", i, "head", "sha"])
        for j, sha in enumerate(pull.get("commits", [])):
            need(sha, ["pulls", i, "commits", j])
    numbers = [p["number"] for p in world.get("pulls", [])]
    for i, number in enumerate(numbers):
        if numbers.index(number) != i:
            errors.append((["pulls", i, "number"], f"duplicate pull number {number}",
                           "give every pull a unique number"))
    errors.extend(_cycle_errors(commits))
    errors.extend(_job_errors(world))
    errors.extend(_collaborator_errors(world))
    errors.extend(_fault_errors(world.get("faults", [])))
    return errors


def _collaborator_errors(world: dict) -> list[tuple[list, str, str]]:
    """A standard role fixes the permission GitHub serves: the two must agree."""
    errors = []
    for login, entry in world.get("collaborators", {}).items():
        role, permission = entry.get("role_name"), entry.get("permission")
        if role in ROLE_PERMISSION and permission is not None and permission != ROLE_PERMISSION[role]:
            errors.append((["collaborators", login, "permission"],
                           f"role_name {role} is served with permission {ROLE_PERMISSION[role]}, "
                           f"not {permission}",
                           f"write `permission: {ROLE_PERMISSION[role]}` or drop it"))
    return errors


def _job_errors(world: dict) -> list[tuple[list, str, str]]:
    """A check run naming its workflow run (`run_id`) must sit under that run's head commit,
    within the run's attempts; workflow run ids are unique."""
    runs = {}
    errors: list[tuple[list, str, str]] = []
    for i, run in enumerate(world.get("workflow_runs", [])):
        if run["id"] in runs:
            errors.append((["workflow_runs", i, "id"], f"duplicate workflow run id {run['id']}",
                           "give every workflow run a unique id"))
        runs[run["id"]] = run
    for sha, check_runs in world.get("check_runs", {}).items():
        for j, check_run in enumerate(check_runs):
            if "run_id" not in check_run:
                if "run_attempt" in check_run:
                    errors.append((["check_runs", sha, j, "run_attempt"],
                                   "run_attempt without run_id",
                                   "add `run_id:` naming the workflow run this job belongs to"))
                continue
            run = runs.get(check_run["run_id"])
            where = ["check_runs", sha, j, "run_id"]
            if run is None:
                errors.append((where, f"unknown workflow run {check_run['run_id']}",
                               "add it under `workflow_runs:` or drop `run_id`"))
            elif run["head_sha"] != sha:
                errors.append((where, f"workflow run {run['id']} ran on {run['head_sha']}, not "
                               f"on {sha}", "list the job under its run's head_sha"))
            elif check_run.get("run_attempt", 1) > run.get("run_attempt", 1):
                errors.append((["check_runs", sha, j, "run_attempt"],
                               f"attempt {check_run['run_attempt']} of a run with run_attempt "
                               f"{run.get('run_attempt', 1)}",
                               "raise the run's run_attempt or lower the job's"))
    return errors


def _cycle_errors(commits: dict) -> list[tuple[list, str, str]]:
    errors = []
    for sha in commits:
        seen = {sha}
        cur = commits[sha].get("files_from")
        while cur in commits:
            if cur in seen:
                errors.append((["commits", sha, "files_from"], "files_from forms a cycle",
                               "point files_from at an older commit"))
                break
            seen.add(cur)
            cur = commits[cur].get("files_from")
    return errors


def _fault_errors(faults: list) -> list[tuple[list, str, str]]:
    errors = []
    for i, fault in enumerate(faults):
        try:
            re.compile(fault["path"])
        except re.error as exc:
            errors.append((["faults", i, "path"], f"invalid regular expression: {exc}",
                           "write a Python regular expression matched against the URL path"))
    return errors


def normalise(world: dict) -> dict:
    """Fill defaults the server relies on; keeps unknown fields untouched."""
    world.setdefault("default_branch", "main")
    world.setdefault("now", DEFAULT_NOW)
    world.setdefault("token_login", DEFAULT_LOGIN)
    for key in ("branches", "commits", "collaborators", "teams", "check_runs", "statuses",
                "external"):
        world.setdefault(key, {})
    for key in ("codeowners_errors", "pulls", "workflow_runs", "faults"):
        world.setdefault(key, [])
    for pull in world["pulls"]:
        _normalise_pull(pull, world)
    _assign_artifact_ids(world["workflow_runs"])
    return world


def _normalise_pull(pull: dict, world: dict) -> None:
    pull.setdefault("title", f"Pull request #{pull['number']}")
    pull.setdefault("body", "")
    pull.setdefault("user", "octocat")
    pull.setdefault("state", "open")
    pull.setdefault("draft", False)
    pull.setdefault("merged", False)
    pull.setdefault("merged_at", None)
    pull.setdefault("created_at", world["now"])
    pull.setdefault("updated_at", pull["created_at"])
    pull["base"].setdefault("ref", world["default_branch"])
    pull["base"].setdefault("repo", world["repo"])
    pull["head"].setdefault("ref", f"pr-{pull['number']}")
    pull["head"].setdefault("repo", world["repo"])
    pull.setdefault("labels", [])
    pull.setdefault("commits", [pull["head"]["sha"]])
    for key in ("comments", "reviews", "review_comments"):
        pull.setdefault(key, [])
    for comment in pull["comments"]:
        comment.setdefault("author_association", "NONE")
        comment.setdefault("created_at", world["now"])
        comment.setdefault("updated_at", comment["created_at"])
        comment.setdefault("reactions", [])


def _assign_artifact_ids(runs: list) -> None:
    taken = {a["id"] for run in runs for a in run.get("artifacts", []) if "id" in a}
    next_id = 1
    for run in runs:
        for artifact in run.get("artifacts", []):
            if "id" not in artifact:
                while next_id in taken:
                    next_id += 1
                artifact["id"] = next_id
                taken.add(next_id)


def tree_at(world: dict, sha: str) -> dict[str, str]:
    """The complete tree of a commit, resolving `files_from` inheritance (null deletes)."""
    chain = []
    cur: str | None = sha
    while cur is not None:
        commit = world["commits"][cur]
        chain.append(commit)
        cur = commit.get("files_from")
    tree: dict[str, str] = {}
    for commit in reversed(chain):
        for path, text in (commit.get("files") or {}).items():
            if text is None:
                tree.pop(path, None)
            else:
                tree[path] = text
    return tree


def resolve_ref(world: dict, ref: str) -> str | None:
    """A branch name, `refs/heads/x`, a full sha or a unique sha prefix -> full sha."""
    ref = ref.removeprefix("refs/heads/")
    if ref in world["branches"]:
        return world["branches"][ref]
    if ref in world["commits"]:
        return ref
    if len(ref) >= 4:
        found = [sha for sha in world["commits"] if sha.startswith(ref)]
        if len(found) == 1:
            return found[0]
    for pull in world["pulls"]:
        if ref == f"refs/pull/{pull['number']}/head":
            return pull["head"]["sha"]
    for pull in world["pulls"]:  # a same-repository PR's branch exists even if not listed
        if pull["head"]["ref"] == ref and pull["head"]["repo"] == world["repo"]:
            return pull["head"]["sha"]
    return None


_RUN_IN_URL = re.compile(r"/actions/runs/(\d+)(?:/|$)")


def run_of_check_run(check_run: dict) -> int | None:
    """The workflow run a check run is a job of: its `run_id`, else the run its
    `details_url` names (how worlds written before `run_id` existed link jobs), else None
    (a check run of some other app, in its commit's own check suite)."""
    if "run_id" in check_run:
        return int(check_run["run_id"])
    found = _RUN_IN_URL.search(check_run.get("details_url") or "")
    return int(found.group(1)) if found else None


def suite_key(sha: str, check_run: dict) -> str:
    """What identifies a check run's check suite: its workflow run, else its commit."""
    run_id = run_of_check_run(check_run)
    return f"run:{run_id}" if run_id is not None else f"commit:{sha}"


def find_run(world: dict, run_id: int) -> dict | None:
    return next((r for r in world["workflow_runs"] if r["id"] == run_id), None)


def run_jobs(world: dict, run: dict) -> list[tuple[dict, int]]:
    """The jobs of a workflow run with their attempt numbers: the check runs of the run's
    check suite (listed under its head commit). A job without `run_attempt` is the k-th
    attempt when it is the k-th same-named job of the run (by completed_at, then id),
    capped at the run's run_attempt."""
    mine = [c for c in world["check_runs"].get(run["head_sha"], [])
            if run_of_check_run(c) == run["id"]]
    top = int(run.get("run_attempt", 1))
    seen: dict[str, int] = {}
    jobs = []
    for check_run in sorted(mine, key=newest_key):
        if "run_attempt" in check_run:
            attempt = int(check_run["run_attempt"])
        else:
            seen[check_run["name"]] = seen.get(check_run["name"], 0) + 1
            attempt = min(seen[check_run["name"]], top)
        jobs.append((check_run, attempt))
    return sorted(jobs, key=lambda pair: pair[0]["id"])


def newest_key(check_run: dict) -> tuple[int, str, int]:
    """Sort key: a later `completed_at` is newer; a run still going (no completed_at) is
    newer than any finished one; the id breaks ties."""
    done = check_run.get("completed_at")
    return (0 if done else 1, done or "", int(check_run["id"]))


def find_pull(world: dict, number: int) -> dict | None:
    return next((p for p in world["pulls"] if p["number"] == number), None)


def find_comment(world: dict, comment_id: int) -> tuple[dict, dict] | None:
    """(pull, comment) for an issue comment id anywhere in the world."""
    for pull in world["pulls"]:
        for comment in pull["comments"]:
            if comment["id"] == comment_id:
                return pull, comment
    return None


def next_comment_id(world: dict) -> int:
    ids = [c["id"] for p in world["pulls"] for c in p["comments"]]
    ids += [r["id"] for p in world["pulls"] for r in p["reviews"]]
    ids += [r["id"] for p in world["pulls"] for r in p["review_comments"]]
    return max(ids, default=1000) + 1
