"""A local runner for our GitHub Actions workflow files, used by the loop tests (never installed).

It runs a workflow the way a hosted runner would, as far as our workflows need: jobs in `needs`
order with their real `if:`, `strategy.matrix` (including `fromJSON` of earlier outputs),
`strategy.fail-fast`, `concurrency` and `outputs`; reusable workflows called with `uses:`, this
repository's (`./.github/workflows/…`) or another's (`owner/name/.github/workflows/…@ref`, from the
`repositories` the runner is given) with `with:`, `secrets:` and `on.workflow_call.outputs` (their
jobs are named `<caller job name> / <called job name>`, as GitHub names the check runs); composite
actions from the workspace (`./path`) or by reference (`owner/name/path@SHA`);
every real `run:` script executed by bash in a fresh checkout with `GITHUB_OUTPUT`, `GITHUB_ENV`,
`GITHUB_PATH`, `GITHUB_STEP_SUMMARY` and `GITHUB_EVENT_PATH`. Actions (`uses:` steps) are local
stand-ins: checkout clones the test repository (or its `repository:`) at the event's ref (or
its `ref:`) into the workspace (or its `path:`), setup-python puts the host interpreter on PATH, upload/download-artifact
use an in-memory store that refuses a second artifact of the same name in a run (GitHub answers
409 Conflict). `python -m pip install` is tests/lib/fake_pip.py: nothing is downloaded, and
installing a folder copies its `infx` into the job's own site folder, the only infx on the job's
PYTHONPATH (before an install, importing infx fails), recorded in `JobRecord.installs`. Nothing here talks to the
internet; the GitHub API the scripts use is whatever `api_url` points at (the fake server), and
`on_progress` lets the caller show that server the running run (its finished jobs and artifacts).
Deployment environments are data (`environments`): a job naming an environment whose deployment
branch rule refuses the run's ref fails before any step, as GitHub refuses the deployment.
"""

from __future__ import annotations

import atexit
import fnmatch
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from infx.yamlio import load_file
from lib.expressions import Context, evaluate_if, evaluate_text, interpolate, to_string, truthy

WHOLE_EXPRESSION = re.compile(r"^\s*\$\{\{(.*)\}\}\s*$", re.S)
_MULTILINE_VALUE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)<<(.+)$")
FAKE_PIP = Path(__file__).resolve().parent / "fake_pip.py"
FORK_SERVER = Path(__file__).resolve().parent / "fork_server.py"
FORK_CLIENT = Path(__file__).resolve().parent / "fork_client.py"
_KNOWN_ACTIONS = ("actions/checkout", "actions/setup-python", "actions/upload-artifact",
                  "actions/download-artifact")


class RunnerError(RuntimeError):
    """The workflow uses something this runner does not emulate (fail loudly, never guess)."""


class StepFailure(RuntimeError):
    """A step failed; the message is what the job log shows."""


# ---- artifacts -------------------------------------------------------------------------

@dataclass
class Artifact:
    name: str
    files: dict[str, bytes]
    job: str


class ArtifactStore:
    """The artifacts of one workflow run; names are unique within the run, like GitHub's."""

    def __init__(self) -> None:
        self.items: dict[str, Artifact] = {}

    def upload(self, name: str, files: dict[str, bytes], job: str) -> None:
        if not name or any(c in name for c in '"\\/:<>|*?\r\n'):
            raise StepFailure(f"The artifact name is not valid: {name!r}")
        if name in self.items:
            raise StepFailure(
                f"Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: "
                f"an artifact with this name already exists on the workflow run ({name!r}, uploaded by "
                f"{self.items[name].job})")
        self.items[name] = Artifact(name, dict(files), job)

    def matching(self, name: str | None, pattern: str | None) -> list[Artifact]:
        if name:
            return [self.items[name]] if name in self.items else []
        return [a for n, a in sorted(self.items.items()) if pattern is None or fnmatch.fnmatchcase(n, pattern)]


# ---- records -----------------------------------------------------------------------------

@dataclass
class StepRecord:
    name: str
    outcome: str  # success | failure | skipped
    conclusion: str
    log: str = ""
    seconds: float = 0.0  # wall time the step took on this machine


@dataclass
class JobRecord:
    """One job of the run as GitHub lists it (one check run); `key` is the YAML job id path."""

    key: str
    name: str
    conclusion: str  # success | failure | cancelled | skipped
    labels: list[str] = field(default_factory=list)
    runner_name: str | None = None
    steps: list[StepRecord] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    started_at: str = ""
    completed_at: str = ""
    summary: str = ""
    concurrency: str | None = None
    matrix: Any = None
    installs: list[dict[str, Any]] = field(default_factory=list)  # what `pip install` read (fake_pip)
    annotations: list[str] = field(default_factory=list)  # what GitHub shows on the job without a step

    @property
    def log(self) -> str:
        return "\n".join([*(f"Error: {a}" for a in self.annotations),
                          *(f"## {s.name} [{s.outcome}]\n{s.log}" for s in self.steps)])


@dataclass
class RunRecord:
    run_id: int
    name: str
    display_title: str
    path: str
    event: str
    head_sha: str
    head_branch: str
    created_at: str
    concurrency: str | None
    jobs: list[JobRecord] = field(default_factory=list)
    artifacts: ArtifactStore = field(default_factory=ArtifactStore)
    results: dict[str, str] = field(default_factory=dict)  # top-level job id -> result
    conclusion: str = "success"

    def job(self, name: str) -> JobRecord:
        found = [j for j in self.jobs if j.name == name]
        if len(found) != 1:
            raise KeyError(f"{len(found)} jobs named {name!r}; jobs: {[j.name for j in self.jobs]}")
        return found[0]


# ---- deployment environments ------------------------------------------------------------------

@dataclass(frozen=True)
class DeploymentEnvironment:
    """An environment's "Deployment branches and tags" setting: `branches` None is "No
    restriction", else the name patterns of "Selected branches and tags" (list a repository's
    protected branches to model "Protected branches only"); `tags` the tag patterns."""

    branches: tuple[str, ...] | None = None
    tags: tuple[str, ...] = ()


def environment_name(job: dict, ctx: Context) -> str | None:
    """The environment a job names (`environment: X` or `environment: {name: X}`), expressions
    evaluated; None when it names none."""
    raw = job.get("environment")
    if raw is None:
        return None
    value = _value(raw, ctx)
    if isinstance(value, dict):
        value = value.get("name")
    name = to_string(value).strip() if value is not None else ""
    return name or None


def deployment_refusal(job: dict, ctx: Context, ref: str,
                       environments: Mapping[str, DeploymentEnvironment]) -> str | None:
    """GitHub's message when the job's environment may not deploy from the run's ref
    (GITHUB_REF: the PR's `refs/pull/N/merge` for pull_request and review events, the default
    branch for issue_comment and workflow_run), None when the job may run. Patterns match as
    Ruby's File.fnmatch, a wildcard never matching `/`."""
    name = environment_name(job, ctx)
    rule = environments.get(name) if name else None
    if rule is None or rule.branches is None:
        return None
    if ref.startswith("refs/tags/"):
        kind, short, patterns = "Tag", ref.removeprefix("refs/tags/"), rule.tags
    else:
        kind, short, patterns = "Branch", ref.removeprefix("refs/heads/"), rule.branches
    if any(_deploy_pattern(p).fullmatch(short) for p in patterns):
        return None
    return f'{kind} "{short}" is not allowed to deploy to {name} due to environment protection rules.'


def _deploy_pattern(pattern: str) -> re.Pattern[str]:
    """A deployment branch or tag pattern as a regular expression: `*` and `?` stop at `/`."""
    parts = []
    for char in pattern:
        parts.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
    return re.compile("".join(parts))


# ---- the runner ------------------------------------------------------------------------------

@dataclass
class Event:
    """What triggered the run: its name, its webhook payload, and the commit/ref GitHub runs."""

    name: str
    payload: dict[str, Any]
    sha: str
    ref: str
    head_ref: str = ""
    base_ref: str = ""


class Clock:
    """Deterministic time: every job starts one minute after the previous one ended."""

    def __init__(self, start: str) -> None:
        self.now = datetime.fromisoformat(start.replace("Z", "+00:00"))

    def tick(self, minutes: int = 1) -> str:
        self.now += timedelta(minutes=minutes)
        return self.now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


StepHook = Callable[["JobContext"], None]
# called with the run so far when the run starts and before each job with steps starts: what
# GitHub's API shows of a running run (its finished jobs and uploaded artifacts)
ProgressHook = Callable[["RunRecord"], None]


@dataclass
class JobContext:
    """What a running job sees; hooks get it after checkout (e.g. to install a fake launcher)."""

    key: str
    workspace: Path
    runner_name: str
    labels: list[str]
    contexts: dict[str, Any]


class LocalRunner:
    """Runs one workflow file for one event against a local git repository."""

    def __init__(self, *, repo_dir: Path, repository: str, event: Event, run_id: int, work_dir: Path,
                 api_url: str = "", token: str = "test-token", actor: str = "octocat",
                 runners: Mapping[str, list[str]] | None = None, secrets: Mapping[str, str] | None = None,
                 clock: Clock | None = None, after_checkout: StepHook | None = None,
                 vars_: Mapping[str, str] | None = None, self_hosted_env: Mapping[str, str] | None = None,
                 self_hosted_path: list[str] | None = None, on_progress: ProgressHook | None = None,
                 repositories: Mapping[str, Path] | None = None,
                 environments: Mapping[str, DeploymentEnvironment] | None = None) -> None:
        self.repo_dir = repo_dir
        self.repository = repository
        self.event = event
        self.run_id = run_id
        self.work_dir = work_dir
        self.api_url = api_url
        self.token = token
        self.actor = actor
        self.runners = dict(runners or {})
        self.secrets = dict(secrets or {})
        self.vars = dict(vars_ or {})
        self.clock = clock or Clock("2026-09-29T10:00:00Z")
        self.after_checkout = after_checkout
        # what a self-hosted runner's machine adds to every job (its .env file, tools on PATH)
        self.self_hosted_env = dict(self_hosted_env or {})
        self.self_hosted_path = list(self_hosted_path or [])
        self.on_progress = on_progress
        # the repository's environments by name; one not listed has no protection rules (GitHub
        # creates an environment a job names on first use, without rules)
        self.environments = dict(environments or {})
        self._job_counter = 0
        self._shims = self._make_shims()
        self.event_path = work_dir / "event.json"
        self.event_path.write_text(json.dumps(event.payload), encoding="utf-8")
        self._tree = work_dir / "workflow-tree"
        # other repositories (owner/name -> local git repository) that `uses:` and checkout may name
        self.repositories = {slug.lower(): Path(path) for slug, path in (repositories or {}).items()}
        self._source: tuple[str, str] | None = None  # (repository, commit) of a running remote workflow
        self._snapshots: dict[tuple[str, str], Path] = {}
        self._checkouts: dict[tuple[str, str], Path] = {}  # (ref, the repository's refs) -> a clone

    # -- contexts ---------------------------------------------------------------------------

    def github_context(self) -> dict[str, Any]:
        owner = self.repository.split("/", 1)[0]
        return {
            "event_name": self.event.name, "event": self.event.payload, "sha": self.event.sha,
            "ref": self.event.ref, "head_ref": self.event.head_ref, "base_ref": self.event.base_ref,
            "repository": self.repository, "repository_owner": owner, "run_id": str(self.run_id),
            "run_number": "1", "run_attempt": "1", "actor": self.actor, "triggering_actor": self.actor,
            "token": self.token, "server_url": "https://github.com", "api_url": self.api_url,
            "workflow": "", "event_path": str(self.event_path),
            "ref_name": self.event.ref.rsplit("/", 1)[-1], "ref_type": "branch",
        }

    # -- entry point --------------------------------------------------------------------------

    def run(self, workflow_path: str) -> RunRecord:
        self._workflow_files(self._tree, self.event.sha)
        workflow = load_file(self._tree / workflow_path)
        github = self.github_context() | {"workflow": workflow.get("name", workflow_path)}
        base = Context({"github": github, "vars": self.vars, "inputs": {}, "secrets": self.secrets})
        title = workflow.get("run-name")
        created = self.clock.tick(0)
        record = RunRecord(
            run_id=self.run_id, name=str(workflow.get("name") or workflow_path),
            display_title=interpolate(str(title), base) if title else str(workflow.get("name")),
            path=workflow_path, event=self.event.name,
            head_sha=_head_sha(self.event), head_branch=_head_branch(self.event), created_at=created,
            concurrency=self._concurrency(workflow.get("concurrency"), base))
        self._progress(record)
        self._run_jobs(workflow, github, {}, record, prefix="", caller_name=None)
        failed = any(j.conclusion == "failure" for j in record.jobs)
        cancelled = any(j.conclusion == "cancelled" for j in record.jobs)
        record.conclusion = "failure" if failed else "cancelled" if cancelled else "success"
        return record

    def _progress(self, record: RunRecord) -> None:
        if self.on_progress is not None:
            self.on_progress(record)

    # -- jobs ----------------------------------------------------------------------------------

    def _run_jobs(self, workflow: dict, github: dict, inputs: dict, record: RunRecord, prefix: str,
                  caller_name: str | None, secrets: Mapping[str, str] | None = None) -> dict[str, dict]:
        jobs = workflow.get("jobs") or {}
        results: dict[str, dict] = {}
        for job_id in _needs_order(jobs):
            job = jobs[job_id]
            needs = {n: results[n] for n in _needs_of(job)}
            ctx = Context({"github": github, "needs": needs, "inputs": inputs, "vars": self.vars,
                           "secrets": dict(secrets if secrets is not None else self.secrets)},
                          job_status=_status_of(needs, results, jobs, job_id))
            # the workflow's own `env:` reaches its jobs' steps (a caller's never reaches a called workflow)
            ctx.values["env"] = {k: to_string(_value(v, ctx)) for k, v in (workflow.get("env") or {}).items()}
            display = self._display_name(job_id, job, ctx)
            full_name = f"{caller_name} / {display}" if caller_name else display
            if not evaluate_if(job.get("if"), ctx):
                results[job_id] = {"result": "skipped", "outputs": {}}
                record.jobs.append(JobRecord(prefix + job_id, full_name, "skipped",
                                             started_at=self.clock.tick(0), completed_at=self.clock.tick(0)))
                continue
            results[job_id] = self._run_matrix(job_id, job, ctx, record, prefix, caller_name, display)
        if not prefix:
            record.results = {k: v["result"] for k, v in results.items()}
        return results

    def _display_name(self, job_id: str, job: dict, ctx: Context) -> str:
        name = job.get("name")
        if name is None:
            return job_id
        try:
            return interpolate(str(name), ctx)
        except Exception:  # names that need matrix/inputs are resolved per matrix entry
            return job_id

    def _run_matrix(self, job_id: str, job: dict, ctx: Context, record: RunRecord, prefix: str,
                    caller_name: str | None, display: str) -> dict:
        strategy = job.get("strategy") or {}
        combos = _matrix_combinations(strategy.get("matrix"), ctx)
        fail_fast = _value(strategy.get("fail-fast", True), ctx)
        fail_fast = truthy(fail_fast) if not isinstance(fail_fast, str) else fail_fast.lower() == "true"
        conclusions: list[str] = []
        outputs: dict[str, str] = {}
        stop = False
        for matrix in combos:
            values = dict(ctx.values) | ({"matrix": matrix} if matrix is not None else {})
            jctx = Context(values, job_status=ctx.job_status)
            if stop:  # fail-fast: the entries not started yet are cancelled
                conclusions.append("cancelled")
                if "uses" in job:
                    self._call_workflow(job_id, job, jctx, record, prefix, display, cancel=True)
                else:
                    record.jobs.append(JobRecord(prefix + job_id, self._job_name(job_id, job, jctx, caller_name),
                                                 "cancelled", matrix=matrix))
                continue
            if "uses" in job:
                conclusion, job_outputs = self._call_workflow(job_id, job, jctx, record, prefix, display)
            else:
                conclusion, job_outputs = self._run_steps_job(job_id, job, jctx, record, prefix, caller_name, matrix)
            outputs.update(job_outputs)
            conclusions.append(conclusion)
            if conclusion == "failure" and fail_fast and len(combos) > 1:
                stop = True
        result = ("failure" if "failure" in conclusions else "cancelled" if "cancelled" in conclusions
                  else "success")
        return {"result": result, "outputs": outputs if result == "success" or "uses" not in job else {}}

    def _job_name(self, job_id: str, job: dict, ctx: Context, caller_name: str | None) -> str:
        name = interpolate(str(job["name"]), ctx) if job.get("name") is not None else job_id
        matrix = ctx.values.get("matrix")
        if matrix and isinstance(matrix, dict) and "${{" not in str(job.get("name", "")) and "uses" not in job:
            name += " (" + ", ".join(_matrix_label(v) for v in matrix.values()) + ")"
        return f"{caller_name} / {name}" if caller_name else name

    def _call_workflow(self, job_id: str, job: dict, ctx: Context, record: RunRecord, prefix: str,
                       display: str, cancel: bool = False) -> tuple[str, dict[str, str]]:
        """Run the reusable workflow a job calls: its conclusion and its `on.workflow_call.outputs`."""
        target = str(job["uses"])
        called, local, source = self._called_workflow(job_id, target)
        declared = _workflow_call_trigger(called, job_id, local)
        inputs: dict[str, Any] = {}
        for name, spec in (declared.get("inputs") or {}).items():
            given = (job.get("with") or {}).get(name)
            if given is None:
                if (spec or {}).get("required"):
                    raise RunnerError(f"job {job_id}: required input {name} of {local} is not given")
                inputs[name] = (spec or {}).get("default")
            else:
                inputs[name] = _value(given, ctx)
        for name in job.get("with") or {}:
            if name not in (declared.get("inputs") or {}):
                raise RunnerError(f"job {job_id}: {local} declares no input {name}")
        secrets = {k: str(_value(v, ctx)) for k, v in (job.get("secrets") or {}).items()} \
            if job.get("secrets") != "inherit" else dict(self.secrets)
        caller = interpolate(str(job.get("name") or job_id), ctx)
        github = ctx.values["github"]
        if cancel:
            called_ctx = Context({"github": github, "inputs": inputs, "vars": self.vars})
            for called_id, called_job in (called.get("jobs") or {}).items():
                name = self._display_name(called_id, called_job, called_ctx)
                record.jobs.append(JobRecord(f"{prefix}{job_id}/{called_id}", f"{caller} / {name}", "cancelled",
                                             started_at=self.clock.tick(0), completed_at=self.clock.tick(0)))
            return "cancelled", {}
        outer, self._source = self._source, source
        try:
            results = self._run_jobs(called, github, inputs, record, prefix=f"{prefix}{job_id}/",
                                     caller_name=caller, secrets=secrets)
        finally:
            self._source = outer
        outputs = _workflow_call_outputs(declared, results, github, inputs, self.vars)
        values = [r["result"] for r in results.values()]
        if "failure" in values:
            return "failure", outputs
        return "cancelled" if "cancelled" in values else "success", outputs

    # -- one job on one runner ----------------------------------------------------------------------

    def _run_steps_job(self, job_id: str, job: dict, ctx: Context, record: RunRecord, prefix: str,
                       caller_name: str | None, matrix: Any) -> tuple[str, dict[str, str]]:
        name = self._job_name(job_id, job, ctx, caller_name)
        labels = _labels(_value(job.get("runs-on"), ctx))
        refused = deployment_refusal(job, ctx, self.event.ref, self.environments)
        if refused is not None:  # before a runner is assigned: no step runs, no secret is read
            started = self.clock.tick()
            record.jobs.append(JobRecord(prefix + job_id, name, "failure", labels, started_at=started,
                                         completed_at=self.clock.tick(0), matrix=matrix, annotations=[refused]))
            return "failure", {}
        runner_name = self._runner_name(labels)
        self._progress(record)
        started = self.clock.tick()
        self._job_counter += 1
        workspace = self.work_dir / f"job{self._job_counter:03d}"
        home = workspace.parent / f"job{self._job_counter:03d}-runner"
        workspace.mkdir(parents=True)
        (home / "temp").mkdir(parents=True)
        _not_installed(home / "site")
        github = dict(ctx.values["github"]) | {"job": job_id, "workspace": str(workspace)}
        values = dict(ctx.values) | {"github": github, "steps": {}, "runner": {
            "name": runner_name, "os": "Linux", "arch": "X64", "temp": str(home / "temp")}, "job": {"status": "success"}}
        jctx = Context(values, job_status="success")
        concurrency = self._concurrency(job.get("concurrency"), jctx)
        self_hosted = labels != ["ubuntu-latest"]
        job_env = (dict(self.self_hosted_env) if self_hosted else {}) | dict(ctx.values.get("env") or {}) | {
            k: to_string(_value(v, jctx)) for k, v in (job.get("env") or {}).items()}
        env_file_vars: dict[str, str] = {}
        extra_path: list[str] = list(self.self_hosted_path) if self_hosted else []
        steps: list[StepRecord] = []
        summary_parts: list[str] = []
        for index, step in enumerate(job.get("steps") or []):
            step_name = str(step.get("name") or step.get("uses") or f"Run step {index + 1}")
            sctx = Context(dict(jctx.values), job_status=jctx.job_status)
            if not evaluate_if(step.get("if"), sctx):
                steps.append(StepRecord(step_name, "skipped", "skipped"))
                _set_step(jctx, step, "skipped", "skipped", {})
                continue
            began = time.monotonic()
            try:
                step_env = job_env | env_file_vars | {
                    k: to_string(_value(v, sctx)) for k, v in (step.get("env") or {}).items()}
                outputs, log, new_env, new_path, summary = self._step(
                    step, sctx, workspace, home, step_env, extra_path, runner_name, job_id, record, name)
                env_file_vars.update(new_env)
                extra_path = new_path + extra_path
                if summary:
                    summary_parts.append(summary)
                outcome = "success"
            except StepFailure as exc:
                outputs, log, outcome = {}, str(exc), "failure"
            if outcome == "failure" and truthy(_value(step.get("continue-on-error", False), sctx)):
                conclusion = "success"
            else:
                conclusion = outcome
            steps.append(StepRecord(step_name, outcome, conclusion, log, time.monotonic() - began))
            _set_step(jctx, step, outcome, conclusion, outputs)
            if conclusion == "failure":
                jctx.job_status = "failure"
                jctx.values["job"] = {"status": "failure"}
            if "uses" in step and str(step["uses"]).startswith("actions/checkout") and self.after_checkout:
                self.after_checkout(JobContext(prefix + job_id, workspace, runner_name, labels, jctx.values))
        conclusion = "failure" if jctx.job_status == "failure" else "success"
        outputs = {}
        if conclusion == "success":
            outputs = {k: interpolate(str(v), jctx) for k, v in (job.get("outputs") or {}).items()}
        installs = home / "pip-installs.jsonl"
        record.jobs.append(JobRecord(prefix + job_id, name, conclusion, labels, runner_name, steps, outputs,
                                     started, self.clock.tick(), "\n".join(summary_parts), concurrency, matrix,
                                     [json.loads(line) for line in installs.read_text(encoding="utf-8").splitlines()]
                                     if installs.exists() else []))
        return conclusion, outputs

    def _runner_name(self, labels: list[str]) -> str:
        for label in labels:
            nodes = self.runners.get(label)
            if nodes:
                return nodes[0]
        return "GitHub Actions 1" if labels == ["ubuntu-latest"] else "-".join(labels) + "_01"

    def _concurrency(self, spec: Any, ctx: Context) -> str | None:
        if spec is None:
            return None
        group = spec.get("group") if isinstance(spec, dict) else spec
        return interpolate(str(group), ctx)

    # -- steps ------------------------------------------------------------------------------------------

    def _step(self, step: dict, ctx: Context, workspace: Path, home: Path, env: dict[str, str],
              extra_path: list[str], runner_name: str, job_id: str, record: RunRecord, job_name: str
              ) -> tuple[dict[str, str], str, dict[str, str], list[str], str]:
        """One step of a job or of a composite action: a composite action's steps, a stand-in
        action or a `run:` script; what `_script` returns (a stand-in sets no env, path or summary)."""
        composite = self._composite_action(step, workspace) if "uses" in step else None
        if composite is not None:
            return self._composite(composite, step, ctx, workspace, home, env, extra_path, runner_name, job_id,
                                   record, job_name)
        if "uses" in step:
            outputs, log = self._action(step, ctx, workspace, record, job_name, job_id)
            return outputs, log, {}, [], ""
        return self._script(step, ctx, workspace, home, env, extra_path, runner_name, job_id)

    def _script(self, step: dict, ctx: Context, workspace: Path, home: Path, env: dict[str, str],
                extra_path: list[str], runner_name: str, job_id: str
                ) -> tuple[dict[str, str], str, dict[str, str], list[str], str]:
        shell = step.get("shell", "bash")
        if shell != "bash":
            raise RunnerError(f"step {step.get('name')!r}: shell {shell!r} is not emulated")
        script = interpolate(str(step["run"]), ctx)
        files = {k: home / f"{k.lower()}_{id(step)}" for k in
                 ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for path in files.values():
            path.write_text("", encoding="utf-8")
        script_file = home / "temp" / f"step_{id(step)}.sh"
        script_file.write_text(script, encoding="utf-8")
        github = ctx.values["github"]
        cache_path, cache_env = _code_cache_env()
        full_env = {
            "HOME": str(home), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
            "PATH": os.pathsep.join([*extra_path, str(self._shims), os.environ.get("PATH", "/usr/bin:/bin")]),
            "PYTHONPATH": os.pathsep.join([str(home / "site"), *cache_path]), "PYTHONDONTWRITEBYTECODE": "1",
            "LOCAL_RUNNER_SITE": str(home / "site"), "LOCAL_RUNNER_INSTALLS": str(home / "pip-installs.jsonl"),
            "GITHUB_EVENT_NAME": self.event.name, "GITHUB_EVENT_PATH": str(self.event_path),
            "GITHUB_SHA": self.event.sha, "GITHUB_REF": self.event.ref, "GITHUB_HEAD_REF": self.event.head_ref,
            "GITHUB_BASE_REF": self.event.base_ref, "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": self.repository.split("/")[0], "GITHUB_RUN_ID": str(self.run_id),
            "GITHUB_RUN_NUMBER": "1", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_ACTOR": self.actor,
            "GITHUB_WORKFLOW": str(github.get("workflow", "")), "GITHUB_JOB": job_id,
            "GITHUB_WORKSPACE": str(workspace), "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_API_URL": self.api_url, "RUNNER_NAME": runner_name, "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64", "RUNNER_TEMP": str(home / "temp"),
        } | cache_env | {k: str(v) for k, v in files.items()} | env
        cwd = workspace / str(step["working-directory"]) if step.get("working-directory") else workspace
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
                              cwd=cwd, env=full_env, capture_output=True, text=True, check=False, timeout=600)
        log = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise StepFailure(f"{log}\nError: Process completed with exit code {proc.returncode}.")
        outputs = _parse_env_file(files["GITHUB_OUTPUT"])
        new_env = _parse_env_file(files["GITHUB_ENV"])
        new_path = [p for p in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if p.strip()]
        summary = files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
        return outputs, log, new_env, new_path, summary

    def _action(self, step: dict, ctx: Context, workspace: Path, record: RunRecord, job_name: str,
                job_id: str) -> tuple[dict[str, str], str]:
        uses = str(step["uses"])
        action = uses.split("@", 1)[0]
        if action not in _KNOWN_ACTIONS:
            raise RunnerError(f"no local stand-in for action {uses}")
        if not re.fullmatch(r"[^@]+@[0-9a-f]{40}", uses):
            raise StepFailure(f"{uses} is not pinned to a full commit SHA")
        with_ = {k: _value(v, ctx) for k, v in (step.get("with") or {}).items()}
        if action == "actions/checkout":
            target = _inside(workspace, str(with_.get("path") or ""))
            other = str(with_.get("repository") or "")
            if other and other.lower() != self.repository.lower():
                return self._checkout_other(other, str(with_.get("ref") or ""), target)
            ref = str(with_.get("ref") or self.event.sha)
            self._checkout_into(target, ref)
            sha = _git(target, "rev-parse", "HEAD").strip()
            return {"ref": ref, "commit": sha}, f"checked out {ref} ({sha}) into {target}"
        if action == "actions/setup-python":
            return {"python-version": sys.version.split()[0]}, f"using the host interpreter {sys.executable}"
        if action == "actions/upload-artifact":
            return self._upload(with_, workspace, record, job_name)
        return self._download(with_, workspace, record)

    def _upload(self, with_: dict, workspace: Path, record: RunRecord, job_name: str) -> tuple[dict, str]:
        name = str(with_.get("name") or "artifact")
        paths = [p.strip() for p in str(with_.get("path", "")).splitlines() if p.strip()]
        files: dict[str, bytes] = {}
        for raw in paths:
            path = workspace / raw
            if path.is_dir():
                for file in sorted(p for p in path.rglob("*") if p.is_file()):
                    files[file.relative_to(path).as_posix()] = file.read_bytes()
            elif path.is_file():
                files[path.name] = path.read_bytes()
        if not files:
            mode = str(with_.get("if-no-files-found", "warn"))
            message = f"No files were found with the provided path: {with_.get('path')}. No artifacts will be uploaded."
            if mode == "error":
                raise StepFailure(message)
            return {}, message
        record.artifacts.upload(name, files, job_name)
        return {"artifact-id": str(len(record.artifacts.items))}, f"uploaded {name}: {sorted(files)}"

    def _download(self, with_: dict, workspace: Path, record: RunRecord) -> tuple[dict, str]:
        target = workspace / str(with_.get("path") or ".")
        name = with_.get("name")
        found = record.artifacts.matching(str(name) if name else None,
                                          str(with_["pattern"]) if with_.get("pattern") else None)
        if name and not found:
            raise StepFailure(f"Unable to download artifact(s): Artifact not found for name: {name}")
        merge = str(with_.get("merge-multiple", "false")).lower() == "true"
        for artifact in found:
            folder = target if (name or merge) else target / artifact.name
            for rel, data in artifact.files.items():
                path = folder / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        target.mkdir(parents=True, exist_ok=True)
        return {"download-path": str(target)}, f"downloaded {[a.name for a in found]}"

    # -- other repositories: remote reusable workflows, composite actions, checkouts -------------------

    def _called_workflow(self, job_id: str, target: str) -> tuple[dict, str, tuple[str, str] | None]:
        """The workflow a job's `uses:` calls, a label for messages, and where it comes from:
        None for `./.github/workflows/…` (the running workflow's commit), else (repository, commit)
        of `owner/name/.github/workflows/file@ref` (any ref GitHub resolves: SHA, tag, branch)."""
        local = re.sub(r"^(\$|\.)/", "", target)
        if local != target:
            if "@" in local:
                raise RunnerError(f"job {job_id}: a local reusable workflow takes no @ref: {target}")
            if self._source is not None:
                # GitHub reads `./` of a called workflow in the calling repository, not the called one's
                raise RunnerError(f"job {job_id}: {target} inside a workflow of {self._source[0]}: name "
                                  "it as owner/name/.github/workflows/file@ref")
            return load_file(self._tree / local), local, None
        slug, path, ref = _remote_ref(target)
        if not re.fullmatch(r"\.github/workflows/[^/]+\.ya?ml", path):
            raise RunnerError(f"job {job_id}: {target}: a reusable workflow is a file directly in .github/workflows")
        try:
            root, sha = self._snapshot(slug, ref)
        except StepFailure as exc:
            raise RunnerError(f"job {job_id}: {exc}") from None
        if not (root / path).is_file():
            raise RunnerError(f"job {job_id}: {target}: {slug} has no {path} at {ref}")
        return load_file(root / path), f"{slug}/{path}@{ref}", (slug, sha)

    def _snapshot(self, slug: str, ref: str) -> tuple[Path, str]:
        """Every file of another repository (or this one) at a ref, as GitHub downloads an action or
        reads a called workflow; (folder, commit). Unknown repositories and refs fail the step."""
        repo = self.repo_dir if slug.lower() == self.repository.lower() else self.repositories.get(slug.lower())
        if repo is None:
            raise StepFailure(f"Unable to resolve {slug}@{ref}: repository not found (the local runner "
                              f"knows {sorted(self.repositories) or 'no other repositories'})")
        sha = _commit(repo, ref) if ref else None
        if sha is None:
            raise StepFailure(f"Unable to resolve {slug}@{ref}: unable to find version {ref!r}")
        if (slug.lower(), sha) not in self._snapshots:
            folder = self.work_dir / "snapshots" / f"{slug.replace('/', '+')}@{sha}"
            folder.mkdir(parents=True)
            archive = subprocess.run(["git", "archive", "--format=tar", sha], cwd=repo, capture_output=True,
                                     check=True).stdout
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(folder, filter="data")
            self._snapshots[(slug.lower(), sha)] = folder
        return self._snapshots[(slug.lower(), sha)], sha

    def _composite_action(self, step: dict, workspace: Path) -> Path | None:
        """The folder of the action a `uses:` step names when it is not one of the stand-ins:
        `./path` in the workspace, or `owner/name[/path]@<full SHA>` of a repository the runner
        knows (this one included); None for the stand-ins and anything else (refused later)."""
        uses = str(step["uses"])
        if uses.startswith("./"):
            return _inside(workspace, uses[2:])
        action = uses.split("@", 1)[0]
        parts = action.split("/")
        known = set(self.repositories) | {self.repository.lower()}
        if action in _KNOWN_ACTIONS or len(parts) < 2 or "/".join(parts[:2]).lower() not in known:
            return None
        if not re.fullmatch(r"[^@]+@[0-9a-f]{40}", uses):
            raise StepFailure(f"{uses} is not pinned to a full commit SHA")
        slug, path, ref = _remote_ref(uses)
        root, _ = self._snapshot(slug, ref)
        return root / path if path else root

    def _composite(self, folder: Path, step: dict, ctx: Context, workspace: Path, home: Path, env: dict[str, str],
                   extra_path: list[str], runner_name: str, job_id: str, record: RunRecord, job_name: str
                   ) -> tuple[dict[str, str], str, dict[str, str], list[str], str]:
        """Run a composite action's steps (what `_script` returns, for the whole action): `inputs`
        from `with:` and the defaults, `github.action_path` and GITHUB_ACTION_PATH, its steps'
        outputs, env and path files; a failed step fails the action after its `always()` steps."""
        file = next((folder / n for n in ("action.yml", "action.yaml") if (folder / n).is_file()), None)
        if file is None:
            raise StepFailure(f"Can't find 'action.yml' or 'action.yaml' under '{folder}'. Did you forget "
                              "to run actions/checkout before running your local action?")
        action = load_file(file)
        runs = action.get("runs") or {}
        if runs.get("using") != "composite":
            raise RunnerError(f"{step['uses']}: only composite actions run locally (using: {runs.get('using')!r})")
        declared = action.get("inputs") or {}
        given = {k: _value(v, ctx) for k, v in (step.get("with") or {}).items()}
        log = []
        if set(given) - set(declared):
            log.append(f"##[warning]Unexpected input(s) {sorted(set(given) - set(declared))}, "
                       f"valid inputs are {sorted(declared)}")
        inputs = {name: to_string(given[name]) if name in given else to_string(_value((spec or {}).get("default", ""), ctx))
                  for name, spec in declared.items()}
        github = dict(ctx.values["github"]) | {"action_path": str(folder)}
        actx = Context(dict(ctx.values) | {"inputs": inputs, "steps": {}, "github": github}, job_status="success")
        new_env: dict[str, str] = {}
        new_path: list[str] = []
        summaries: list[str] = []
        for index, sub in enumerate(runs.get("steps") or []):
            name = str(sub.get("name") or sub.get("uses") or f"Run step {index + 1}")
            sctx = Context(dict(actx.values), job_status=actx.job_status)
            if not evaluate_if(sub.get("if"), sctx):
                log.append(f"-- {name} [skipped]")
                _set_step(actx, sub, "skipped", "skipped", {})
                continue
            sub_env = env | new_env | {k: to_string(_value(v, sctx)) for k, v in (sub.get("env") or {}).items()} \
                | {"GITHUB_ACTION_PATH": str(folder)}
            try:
                if "run" in sub and "shell" not in sub:
                    raise RunnerError(f"{file}: step {name!r}: a run step of a composite action needs `shell:`")
                outs, sublog, more_env, more_path, summary = self._step(
                    sub, sctx, workspace, home, sub_env, new_path + extra_path, runner_name, job_id, record, job_name)
                new_env.update(more_env)
                new_path = more_path + new_path
                if summary:
                    summaries.append(summary)
                outcome = "success"
            except StepFailure as exc:
                outs, sublog, outcome = {}, str(exc), "failure"
            conclusion = "success" if outcome == "failure" and truthy(
                _value(sub.get("continue-on-error", False), sctx)) else outcome
            log.append(f"-- {name} [{outcome}]\n{sublog}")
            _set_step(actx, sub, outcome, conclusion, outs)
            if conclusion == "failure":
                actx.job_status = "failure"
        if actx.job_status == "failure":
            raise StepFailure("\n".join(log))
        outputs = {k: to_string(_value((spec or {}).get("value", ""), actx))
                   for k, spec in (action.get("outputs") or {}).items()}
        return outputs, "\n".join(log), new_env, new_path, "\n".join(summaries)

    def _checkout_other(self, slug: str, ref: str, target: Path) -> tuple[dict[str, str], str]:
        """actions/checkout of another repository the runner knows, at `ref` (default: its HEAD)."""
        repo = self.repositories.get(slug.lower())
        if repo is None:
            raise StepFailure(f"Not Found: the repository '{slug}' (the local runner knows "
                              f"{sorted(self.repositories) or 'no other repositories'})")
        if target.exists():
            shutil.rmtree(target)
        _git(self.repo_dir.parent, "clone", "--quiet", "--no-checkout", str(repo), str(target))
        wanted = ref or "origin/HEAD"
        sha = _commit(target, wanted) or _commit(target, f"origin/{wanted}")
        if sha is None:
            raise StepFailure(f"A branch or tag with the name '{ref}' could not be found in {slug}")
        _git(target, "checkout", "--quiet", "--detach", sha)
        return {"ref": ref, "commit": sha}, f"checked out {slug}@{ref or 'HEAD'} ({sha}) into {target}"

    # -- git --------------------------------------------------------------------------------------

    def _workflow_files(self, path: Path, sha: str) -> None:
        """The commit's `.github` folder, where GitHub reads a run's workflow files from (a
        whole checkout is not needed: nothing runs in it)."""
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        proc = subprocess.run(["git", "archive", "--format=tar", sha, ".github"], cwd=self.repo_dir,
                              capture_output=True, check=False)
        if proc.returncode == 0:  # else no .github at that commit: loading the workflow says so
            with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as archive:
                archive.extractall(path, filter="data")

    def _checkout_into(self, path: Path, ref: str) -> None:
        """A clone of the repository with the PR refs fetched, detached at `ref`. The first
        checkout of `ref` while the repository's refs are as they are makes it; later ones
        (every job of a run checks out the same commits) are byte copies of that clone, which is
        never used itself (about half the CPU of clone, fetch and checkout)."""
        if path.exists():
            shutil.rmtree(path)
        refs = subprocess.run(["git", "show-ref", "--head"], cwd=self.repo_dir, capture_output=True,
                              text=True, check=False).stdout
        made = self._checkouts.get((ref, refs))
        if made is None:
            made = self.work_dir / "checkouts" / str(len(self._checkouts))
            if made.exists():  # a checkout of a ref that failed
                shutil.rmtree(made)
            made.parent.mkdir(parents=True, exist_ok=True)
            _git(self.repo_dir.parent, "clone", "--quiet", "--no-checkout", str(self.repo_dir), str(made))
            _git(made, "fetch", "--quiet", "origin", "+refs/pull/*:refs/remotes/pull/*")
            _git(made, "checkout", "--quiet", "--detach", ref)
            self._checkouts[(ref, refs)] = made
        path.parent.mkdir(parents=True, exist_ok=True)
        copied = subprocess.run(["cp", "-a", str(made), str(path)], capture_output=True, text=True, check=False)
        if copied.returncode != 0:
            raise StepFailure(f"copying the checkout of {ref} failed: {copied.stderr.strip()}")

    def _make_shims(self) -> Path:
        shims = self.work_dir / "shims"
        write_shims(shims, fork_server_socket())
        return shims


# ---- the shims and the fork server ------------------------------------------------------------------

def write_shims(shims: Path, server: str | None) -> None:
    """`python` is the host interpreter except that `python -m pip install` is
    tests/lib/fake_pip.py; `infx` runs the installed package as its console script does
    (the current folder is not on its path, `-P`). With a fork server (tests/lib/fork_server.py,
    its socket `server`) the shims are its client, tests/lib/fork_client.py: the server runs
    infx without a new interpreter's start-up, and execs the interpreter for anything else."""
    shims.mkdir(parents=True, exist_ok=True)
    python = shlex.quote(sys.executable)
    if server is not None:
        client = FORK_CLIENT.read_text(encoding="utf-8")
        blank = 'SOCKET, PYTHON, FAKE_PIP = "", "", ""'
        if blank not in client:
            raise RunnerError(f"{FORK_CLIENT} lost its settings line")
        client = client.replace(blank, f"SOCKET, PYTHON, FAKE_PIP = {server!r}, {sys.executable!r}, {str(FAKE_PIP)!r}")
        for name in ("python", "python3", "infx"):
            (shims / name).write_text(f"#!{sys.executable} -IS\n" + client, encoding="utf-8")
    else:
        (shims / "python").write_text(
            "#!/usr/bin/env bash\n"
            'if [ "${1:-}" = -m ] && [ "${2:-}" = pip ] && [ "${3:-}" = install ]; then\n'
            f'  shift 3; exec {python} -P {shlex.quote(str(FAKE_PIP))} "$@"\nfi\n'
            f'exec {python} "$@"\n', encoding="utf-8")
        (shims / "python3").write_text(f'#!/usr/bin/env bash\nexec {shims / "python"} "$@"\n', encoding="utf-8")
        (shims / "infx").write_text(f'#!/usr/bin/env bash\nexec {python} -P -m infx "$@"\n', encoding="utf-8")
    for shim in shims.iterdir():
        shim.chmod(0o755)


_FORK_SERVER: dict[int, tuple[subprocess.Popen, str] | None] = {}


def fork_server_socket() -> str | None:
    """The socket of this test process's fork server, started on first use and stopped at exit;
    None (plain shims) when INFX_TEST_FORK_SERVER=0 or the interpreter's path cannot be a
    shebang line."""
    if (os.environ.get("INFX_TEST_FORK_SERVER", "1") == "0" or len(sys.executable) > 100
            or " " in sys.executable):
        return None
    if os.getpid() not in _FORK_SERVER or (_FORK_SERVER[os.getpid()] is not None
                                           and _FORK_SERVER[os.getpid()][0].poll() is not None):
        _FORK_SERVER[os.getpid()] = start_fork_server(os.environ.get("INFX_TEST_FORK_SERVER_LOG", ""))
    running = _FORK_SERVER[os.getpid()]
    return running[1] if running is not None else None


def start_fork_server(log: str = "") -> tuple[subprocess.Popen, str] | None:
    """A fork server (stopped at exit, or by `stop_fork_server`) and its socket, or None when
    this installation has what a job's interpreter may not (a user site folder, a
    sitecustomize); `log` gets a line per request saying whether it was forked or exec'd."""
    folder = tempfile.mkdtemp(prefix="infx-fork-")
    path = os.path.join(folder, "socket")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "HOME": os.environ.get("HOME", "/"), "FORK_SERVER_LOG": log}
    # the server ends when its stdin closes: when this process ends, however it ends
    proc = subprocess.Popen([sys.executable, str(FORK_SERVER), path], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, cwd=folder)
    assert proc.stdout is not None
    answer = proc.stdout.readline()
    if answer != b"ready\n":
        proc.wait()
        if answer.startswith(b"unsupported:"):  # this installation needs fresh interpreters
            return None
        raise RunnerError(f"the fork server did not start (exit {proc.returncode})")
    atexit.register(stop_fork_server, proc)
    return proc, path


def stop_fork_server(proc: subprocess.Popen) -> None:
    """Stop the server once every process it forked has ended (their CPU time is then counted
    in this process's children, as the plain shims' processes are)."""
    if proc.poll() is None:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
    shutil.rmtree(Path(proc.args[-1]).parent, ignore_errors=True)


# ---- helpers ----------------------------------------------------------------------------------------

def _code_cache_env() -> tuple[list[str], dict[str, str]]:
    """The shared compiled-code cache (tests/lib/code_cache) when the session made one."""
    cache = os.environ.get("INFX_TEST_CODE_CACHE", "")
    if not cache:
        return [], {}
    Path(cache).mkdir(parents=True, exist_ok=True)
    return [str(Path(__file__).resolve().parent / "code_cache")], {"INFX_TEST_CODE_CACHE": cache}


def _remote_ref(uses: str) -> tuple[str, str, str]:
    """`owner/name[/path]@ref` -> (owner/name, path, ref)."""
    action, _, ref = uses.partition("@")
    parts = action.split("/")
    if len(parts) < 2 or not all(parts[:2]) or not ref:
        raise RunnerError(f"{uses} is not owner/name[/path]@ref")
    return "/".join(parts[:2]), "/".join(parts[2:]), ref


def _workflow_call_trigger(called: dict, job_id: str, label: str) -> dict:
    """The `on.workflow_call` block of a called workflow (`on: workflow_call` alone: {})."""
    triggers = called.get("on", called.get(True))
    names = [triggers] if isinstance(triggers, str) else list(triggers or [])
    if "workflow_call" not in names:
        raise RunnerError(f"job {job_id}: {label} is not a reusable workflow (no workflow_call trigger)")
    return (triggers.get("workflow_call") if isinstance(triggers, dict) else None) or {}


def _workflow_call_outputs(declared: dict, results: dict[str, dict], github: dict, inputs: dict,
                           vars_: dict) -> dict[str, str]:
    """A called workflow's `on.workflow_call.outputs`, each `value` read from its jobs' results."""
    jobs = {job_id: {"result": r["result"], "outputs": dict(r["outputs"])} for job_id, r in results.items()}
    ctx = Context({"github": github, "inputs": inputs, "vars": vars_, "jobs": jobs})
    return {name: to_string(_value((spec or {}).get("value", ""), ctx))
            for name, spec in (declared.get("outputs") or {}).items()}


def _inside(workspace: Path, rel: str) -> Path:
    """A checkout's `path:` inside the workspace (actions/checkout refuses one outside it)."""
    target = (workspace / rel).resolve() if rel else workspace
    if target != workspace.resolve() and workspace.resolve() not in target.parents:
        raise StepFailure(f"Repository path '{target}' is not under '{workspace}'")
    return target


def _not_installed(site: Path) -> None:
    """The job's site folder before any `pip install`: importing infx fails, so a step that
    runs infx without installing it (or imports another copy) cannot pass unnoticed."""
    package = site / "infx"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        'raise ImportError("infx is not installed in this job (local runner: pip install a folder first)")\n',
        encoding="utf-8")


def _git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise StepFailure(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def _commit(repo: Path, ref: str) -> str | None:
    """The commit `ref` names in the git repository `repo`, None when it names none."""
    proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=repo,
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _head_sha(event: Event) -> str:
    pr = event.payload.get("pull_request")
    return str(pr["head"]["sha"]) if pr else event.sha


def _head_branch(event: Event) -> str:
    pr = event.payload.get("pull_request")
    return str(pr["head"]["ref"]) if pr else event.ref.removeprefix("refs/heads/")


def _needs_of(job: dict) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def _needs_order(jobs: dict) -> list[str]:
    """Jobs in dependency order (ties keep file order); a cycle or unknown need is an error."""
    order: list[str] = []
    state: dict[str, str] = {}

    def visit(job_id: str) -> None:
        if state.get(job_id) == "done":
            return
        if state.get(job_id) == "visiting":
            raise RunnerError(f"needs cycle through {job_id}")
        if job_id not in jobs:
            raise RunnerError(f"unknown job in needs: {job_id}")
        state[job_id] = "visiting"
        for need in _needs_of(jobs[job_id]):
            visit(need)
        state[job_id] = "done"
        order.append(job_id)

    for job_id in jobs:
        visit(job_id)
    return order


def _status_of(needs: dict[str, dict], results: dict[str, dict], jobs: dict, job_id: str) -> str:
    """What success()/failure() see: a failed ancestor -> failure; all needs succeeded -> success."""
    ancestors: set[str] = set()
    stack = list(_needs_of(jobs[job_id]))
    while stack:
        need = stack.pop()
        if need not in ancestors:
            ancestors.add(need)
            stack.extend(_needs_of(jobs[need]))
    if any(results[a]["result"] == "failure" for a in ancestors):
        return "failure"
    if all(n["result"] == "success" for n in needs.values()):
        return "success"
    return "skipped"


def _value(raw: Any, ctx: Context) -> Any:
    """A YAML value with expressions: a lone `${{ x }}` keeps x's type, else string interpolation."""
    if isinstance(raw, str):
        whole = WHOLE_EXPRESSION.match(raw)
        if whole and raw.count("${{") == 1:
            return evaluate_text(whole.group(1), ctx)
        return interpolate(raw, ctx) if "${{" in raw else raw
    if isinstance(raw, list):
        return [_value(v, ctx) for v in raw]
    if isinstance(raw, dict):
        return {k: _value(v, ctx) for k, v in raw.items()}
    return raw


def _matrix_combinations(spec: Any, ctx: Context) -> list[Any]:
    """[None] without a matrix; else the cross product of the axes (include/exclude as GitHub)."""
    if spec is None:
        return [None]
    matrix = _value(spec, ctx)
    if isinstance(matrix, str):
        matrix = json.loads(matrix)
    if not isinstance(matrix, dict):
        raise RunnerError(f"strategy.matrix is not a mapping: {matrix!r}")
    include = matrix.pop("include", []) or []
    exclude = matrix.pop("exclude", []) or []
    combos: list[dict] = [{}]
    for axis, values in matrix.items():
        if not isinstance(values, list):
            raise RunnerError(f"matrix axis {axis} is not a list: {values!r}")
        combos = [c | {axis: v} for c in combos for v in values]
    combos = [c for c in combos if not any(all(c.get(k) == v for k, v in e.items()) for e in exclude)]
    if combos == [{}]:
        combos = []
    combos += [dict(i) for i in include]
    if not combos:
        raise RunnerError("Matrix vector 'config' does not contain any values")
    if len(combos) > 256:
        raise RunnerError(f"a matrix may not produce more than 256 jobs ({len(combos)})")
    return combos


def _matrix_label(value: Any) -> str:
    return json.dumps(value, separators=(",", ":")) if isinstance(value, (dict, list)) else str(value)


def _labels(runs_on: Any) -> list[str]:
    if runs_on is None:
        raise RunnerError("a job without runs-on")
    if isinstance(runs_on, str):
        return [runs_on]
    if isinstance(runs_on, list):
        return [str(x) for x in runs_on]
    if isinstance(runs_on, dict):
        return [str(x) for x in _labels(runs_on.get("labels"))]
    raise RunnerError(f"runs-on has an unexpected shape: {runs_on!r}")


def _set_step(ctx: Context, step: dict, outcome: str, conclusion: str, outputs: dict[str, str]) -> None:
    if step.get("id"):
        ctx.values["steps"][str(step["id"])] = {"outcome": outcome, "conclusion": conclusion,
                                                "outputs": dict(outputs)}


def _parse_env_file(path: Path) -> dict[str, str]:
    """`name=value` lines and `name<<DELIM` … `DELIM` blocks, as the runner reads them."""
    values: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            continue
        multi = _MULTILINE_VALUE.match(line)
        if multi:
            name, delimiter = multi.group(1), multi.group(2)
            body: list[str] = []
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise StepFailure(f"Matching delimiter not found '{delimiter}' in {path.name}")
            i += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        else:
            raise StepFailure(f"Invalid format '{line}' in {path.name}")
    return values
