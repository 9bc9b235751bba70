"""Which workflow runs on a PR's commits count as a green sweep (read by the gatherer and Checks 1, 2, 14).

A run is judged from its own jobs (the Actions jobs API), latest attempt per job, never by
de-duplicating names; benchmark and eval jobs are recognised by the exact names run-sweep.yml
gives its shard jobs (infx.workflow.shard.BUCKETS), and jobs named by a row identity
(infx.matrix.identity) are matched to the changed configs by it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx.changelog.plan import DEFAULT_CHANGELOG, appended_entries
from infx.errors import InfxError
from infx.matrix.identity import parse_job_name
from infx.signoff import configs_at, provenance
from infx.signoff.model import CheckRun, Evidence, RunJob
from infx.workflow.shard import BUCKETS, bucket_of_job

_RUN_ID = re.compile(r"/actions/runs/(\d+)(?:/|$)")
BAD = frozenset({"failure", "cancelled", "timed_out", "action_required", "startup_failure"})


@dataclass(frozen=True)
class GreenRun:
    commit: str
    run_id: int
    attempt: int
    benchmarks: int
    evals: int


def family(name: str) -> str | None:
    """'benchmark', 'eval', or None for every other job (collect-*, setup, lint...).

    Families are the shard jobs of run-sweep.yml, recognised by their exact names
    (infx.workflow.shard.BUCKETS is the one table of them)."""
    bucket = bucket_of_job(name)
    if bucket is None:
        return None
    return "eval" if bucket.is_eval else "benchmark"


def run_id_of(check_run: CheckRun) -> int | None:
    match = _RUN_ID.search(check_run.details_url or "")
    return int(match.group(1)) if match else None


def _entry_families(entry: dict) -> set[tuple[str, bool]]:
    """(plan node, agentic?) of the benchmark buckets that can run rows of a config entry."""
    scenarios = entry.get("scenarios") if isinstance(entry.get("scenarios"), dict) else {}
    node = "multi_node" if entry.get("multinode") is True else "single_node"
    return {(node, kind == "agentic-coding") for kind in scenarios
            if kind in ("agentic-coding", "fixed-seq-len")}


def required_families(evidence: Evidence) -> dict[str, tuple[str, ...]]:
    """Changed config key -> caller names of the benchmark families one of which must have run it.

    A multi-node-only (or agentic-only) PR correctly skips the other families, so only
    the families of the changed configs are asked for.
    """
    required: dict[str, tuple[str, ...]] = {}
    for key, entry in _required_entries(evidence).items():
        families = _entry_families(entry)
        titles = tuple(b.title for b in BUCKETS if not b.is_eval
                       and (b.path[0], b.path[-1] == "agentic") in families)
        if titles:
            required[key] = titles
    return required


def _required_entries(evidence: Evidence) -> dict[str, dict]:
    keys = configs_at.changed_keys(evidence.head_files, evidence.base_files) or []
    entries = configs_at.master_entries(evidence.head_files) or {}
    return {key: entries.get(key, {}) for key in keys if _entry_families(entries.get(key, {}))}


def _covers(job: RunJob, entry: dict) -> bool:
    """The job ran a row of the config entry: a benchmark family that can run it, and, when
    the job is named by the row identity (our workflows), the row's fixed fields match."""
    bucket = bucket_of_job(job.name)
    if bucket is None or bucket.is_eval:
        return False
    if (bucket.path[0], bucket.path[-1] == "agentic") not in _entry_families(entry):
        return False
    parsed = parse_job_name(job.name)
    return parsed is None or parsed.matches(entry)


def run_commit(evidence: Evidence, run_id: int) -> str | None:
    """The head commit of a workflow run (from the run, else from its jobs)."""
    workflow_run = evidence.workflow_runs.get(run_id)
    if workflow_run is not None and workflow_run.head_sha:
        return workflow_run.head_sha
    jobs = evidence.run_jobs.get(run_id) or []
    shas = {job.head_sha for job in jobs if job.head_sha}
    return shas.pop() if len(shas) == 1 else None


def latest_attempt(jobs: list[RunJob]) -> list[RunJob]:
    """The run's jobs as of its latest attempt: a job re-run in a later attempt is represented
    by that attempt only; every job of one attempt counts on its own, whatever its name."""
    newest: dict[str, int] = {}
    for job in jobs:
        newest[job.name] = max(newest.get(job.name, 0), job.run_attempt)
    return [job for job in jobs if job.run_attempt == newest[job.name]]


def green_run(evidence: Evidence, run_id: int) -> GreenRun | None:
    """The run as a green sweep of ours: its jobs are green and its provenance holds
    (infx.signoff.provenance: our sweep workflow, this repository, unmodified workflow files)."""
    green = green_jobs(evidence, run_id)
    if green is None or provenance.run_problem(evidence, run_id) is not None:
        return None
    return green


def green_jobs(evidence: Evidence, run_id: int) -> GreenRun | None:
    """The run as a green sweep judged from its own jobs (latest attempt) only, or None.

    Every benchmark and eval job counts on its own (never one per name): one failed,
    cancelled or unfinished job spoils the run, whatever else shares its name.
    """
    jobs = latest_attempt(evidence.run_jobs.get(run_id) or [])
    commit = run_commit(evidence, run_id)
    if not jobs or commit is None:
        return None
    relevant = [job for job in jobs if family(job.name)]
    if any(job.conclusion in BAD or job.status != "completed" for job in relevant):
        return None
    ok = [job for job in relevant if job.conclusion == "success"]
    benchmarks = sum(1 for job in ok if family(job.name) == "benchmark")
    evals = sum(1 for job in ok if family(job.name) == "eval")
    covered = all(any(_covers(job, entry) for job in ok)
                  for entry in _required_entries(evidence).values())
    if not ((benchmarks or not benchmarks_required(evidence)) and evals and covered):
        return None
    workflow_run = evidence.workflow_runs.get(run_id)
    attempt = workflow_run.run_attempt if workflow_run else max(j.run_attempt for j in jobs)
    return GreenRun(commit, run_id, attempt, benchmarks, evals)


def benchmarks_required(evidence: Evidence) -> bool:
    """A sweep must run benchmark jobs unless every changelog entry the PR appends is
    `evals-only: true` (its plan then has eval rows only). Unreadable entries: required."""
    head_text = evidence.head_files.get(DEFAULT_CHANGELOG)
    if head_text is None:
        return True
    try:
        entries = appended_entries(evidence.base_files.get(DEFAULT_CHANGELOG), head_text, DEFAULT_CHANGELOG)
    except InfxError:
        return True
    return not entries or not all(entry.evals_only for entry in entries)


def candidate_runs(evidence: Evidence, commit: str) -> list[int]:
    """Workflow runs on one commit whose jobs were read, newest (highest id) first."""
    return sorted((run_id for run_id in evidence.run_jobs if run_commit(evidence, run_id) == commit),
                  reverse=True)


def green_runs_on(commit: str, evidence: Evidence) -> list[GreenRun]:
    """Workflow runs on one commit that count as a green sweep, newest run first."""
    return [green for run_id in candidate_runs(evidence, commit)
            if (green := green_run(evidence, run_id)) is not None]


def find_green_run(evidence: Evidence) -> GreenRun | None:
    """The green sweep on the newest in-PR commit that has one (shared with Checks 2 and 14)."""
    if not evidence.commits or evidence.check_runs is None:
        return None
    for commit in reversed(evidence.commits):
        green = green_runs_on(commit, evidence)
        if green:
            return green[0]
    return None
