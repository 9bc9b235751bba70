"""Which workflow runs on a PR's commits count as a green sweep (read by the gatherer and Checks `sweep`, `evals`, `pareto`).

A run is judged from its own jobs (the Actions jobs API), latest attempt per job, never by
de-duplicating names; benchmark and eval jobs are recognised by the exact names run-sweep.yml
gives its shard jobs (infx.workflow.shard.BUCKETS), and jobs named by a row identity
(infx.plan.identity) are matched to the changed configs by it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from infx import trust
from infx.errors import InfxError
from infx.plan.coverage import (
    METADATA_ARTIFACT,
    METADATA_FILE,
    REUSED_ROWS,
    Coverage,
    RunRows,
    cover,
    green_rows,
    same_content,
)
from infx.plan.fingerprint import Content, content_of, fingerprint
from infx.plan.identity import job_name, parse_job_name
from infx.plan.incremental import plan_from_trees
from infx.plan.labels import sweep_flags
from infx.plan.planner import DEFAULT_CHANGELOG, PlanFlags, appended_entries
from infx.plan.sweep_plan import MULTI_NODE, SINGLE_NODE, Plan
from infx.signoff.model import CheckRun, Evidence, Job, WorkflowRun
from infx.signoff.rules import configs_at, provenance
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
    # a union of runs (incremental re-sweeps): run id -> the plan rows (job names) taken from
    # it; empty for one green run, whose rows all count
    rows_by_run: tuple[tuple[int, frozenset[str]], ...] = ()

    @property
    def runs(self) -> tuple[int, ...]:
        return tuple(run_id for run_id, _ in self.rows_by_run) or (self.run_id,)

    def contributes(self, run_id: int, evals: bool) -> bool:
        """Does the union take eval rows (or benchmark rows) from this run?"""
        names = next((n for rid, n in self.rows_by_run if rid == run_id), frozenset())
        return any(is_eval_name(name) == evals for name in names)

    def takes(self, run_id: int, row: dict) -> bool:
        """Does the sweep take this result row of this run (its job name is a row it covers)?"""
        if not self.rows_by_run:
            return run_id == self.run_id
        return any(run_id == rid and row.get("job_name") in names for rid, names in self.rows_by_run)


def is_eval_name(job_name_: str) -> bool:
    """A row job name of an eval row (its identity shows `eval`, `eval@cN` or `eval@all`)."""
    return any(t == "eval" or t.startswith("eval@") for t in job_name_.split(" "))


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
    node = MULTI_NODE if entry.get("multinode") is True else SINGLE_NODE
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


def _covers(job: Job, entry: dict) -> bool:
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
    """The commit a workflow run swept (from the run: its head commit, or a fork sweep's pinned
    head, infx.trust.swept_commit; else from its jobs)."""
    workflow_run = evidence.workflow_runs.get(run_id)
    if workflow_run is not None and workflow_run.head_sha:
        return trust.swept_commit(workflow_run)
    jobs = evidence.run_jobs.get(run_id) or []
    shas = {job.head_sha for job in jobs if job.head_sha}
    return shas.pop() if len(shas) == 1 else None


def latest_attempt(jobs: list[Job]) -> list[Job]:
    """The run's jobs as of its latest attempt: a job re-run in a later attempt is represented
    by that attempt only; every job of one attempt counts on its own, whatever its name."""
    newest: dict[str, int] = {}
    for job in jobs:
        newest[job.name] = max(newest.get(job.name, 0), job.run_attempt)
    return [job for job in jobs if job.run_attempt == newest[job.name]]


def green_run(evidence: Evidence, run_id: int) -> GreenRun | None:
    """The run as a green sweep of ours: its jobs are green and its provenance holds
    (infx.signoff.rules.provenance: our sweep workflow, this repository, unmodified workflow files)."""
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
    by_row = any(parse_job_name(job.name) is not None for job in relevant)
    planned = head_plan(evidence) if by_row else None
    if by_row and not planned:
        return None  # the head's plan cannot be read (no sweep can be shown to cover it), or has no row
    if planned:
        # our sweep names its jobs by row identity: every row of the head's plan needs a
        # green job of this run (infx.plan.coverage; a missing, skipped, neutral or
        # cancelled row is not swept); a plan without eval rows (an append-only entry)
        # needs no eval job
        if missing_rows(planned, jobs):
            return None
    else:  # jobs without row identities (worlds older than it): one green job per config
        covered = all(any(_covers(job, entry) for job in ok)
                      for entry in _required_entries(evidence).values())
        if not ((benchmarks or not benchmarks_required(evidence)) and evals and covered):
            return None
    if took_rows(evidence, run_id):
        return None  # an incremental re-sweep covers the plan only with earlier runs (green_union)
    workflow_run = evidence.workflow_runs.get(run_id)
    attempt = workflow_run.run_attempt if workflow_run else max(j.run_attempt for j in jobs)
    return GreenRun(commit, run_id, attempt, benchmarks, evals)


def head_plan(evidence: Evidence) -> dict[str, tuple[dict, str]] | None:
    """The head's plan rows (job name -> (row, fingerprint at the head)), read once per
    evidence; {} when the PR plans nothing (no changelog entry), None when its inputs
    cannot be read (Check `append` names them)."""
    key = (evidence.pr.head_sha, evidence.pr.base_sha, tuple(evidence.pr.labels),
           id(evidence.head_files), id(evidence.base_files))
    memo = _PLANS.get(id(evidence))
    if memo is not None and memo[0] == key:
        return memo[1]
    head, base = evidence.head_files, evidence.base_files
    wanted: dict[str, tuple[dict, str]] | None = None
    if head and base and head.get(DEFAULT_CHANGELOG) is not None \
            and head.get(DEFAULT_CHANGELOG) == base.get(DEFAULT_CHANGELOG):
        wanted = {}  # the PR leaves the changelog as it is: it asks for no row
    elif head and base:
        try:
            labels = sweep_flags(evidence.pr.labels)
            flags = PlanFlags(trim=labels.trim_conc, all_evals=labels.all_evals, evals_only=labels.evals_only)
            plan = plan_from_trees(base, head, flags, base_ref=evidence.pr.base_sha,
                                   head_ref=evidence.pr.head_sha)
            wanted = _wanted(plan, content_of(head, base))
        except (InfxError, ValueError):
            wanted = None
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[id(evidence)] = (key, wanted)
    return wanted


_PLANS: dict[int, tuple[tuple, dict[str, tuple[dict, str]] | None]] = {}


def plans_nothing(evidence: Evidence) -> bool:
    """Whether the head's plan has no row at all (no changelog entry of the PR runs anything:
    a PR that retires configs or changes no benchmark), so no sweep is needed; False when the
    plan cannot be read."""
    return head_plan(evidence) == {}


def plans_no_evals(evidence: Evidence) -> bool:
    """Whether the head's plan (readable) has no eval row (append-only entries, multi-node
    rows the planner gives no eval), so no eval is needed."""
    planned = head_plan(evidence)
    return planned is not None and not any(is_eval_name(name) for name in planned)


def missing_rows(planned: dict[str, tuple[dict, str]], jobs: list[Job]) -> tuple[str, ...]:
    """The planned rows one run has no green job for (infx.plan.coverage.cover, by name:
    the swept commit's content is Check `sweep`'s drift comparison)."""
    green = green_rows(j for j in jobs if family(j.name))
    found = cover({name: fp for name, (_, fp) in planned.items()},
                  [RunRows(0, "", green, {name: fp for name, (_, fp) in planned.items()})])
    return found.uncovered


def took_rows(evidence: Evidence, run_id: int) -> bool:
    """Did the run take rows from earlier runs (its changelog-metadata lists reused rows)?"""
    artifact = next((a for a in evidence.artifacts.get(run_id) or [] if a.artifact.name == METADATA_ARTIFACT),
                    None)
    if artifact is None or not artifact.files:
        return False
    try:
        data = json.loads(artifact.files.get(METADATA_FILE) or b"{}")
    except (ValueError, UnicodeDecodeError):
        return True  # unreadable: never a whole sweep on its own
    return not isinstance(data, dict) or bool(data.get(REUSED_ROWS))


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
    """The green sweep of the PR (shared with Checks `evals` and `pareto`): when the PR has incremental
    re-sweeps, the union of runs covering the head's plan row for row; else the green sweep on
    the newest in-PR commit that has one."""
    if not evidence.commits or evidence.check_runs is None:
        return None
    if any(took_rows(evidence, run_id) for run_id in evidence.artifacts) or any(
            run_commit(evidence, run_id) not in set(evidence.commits) for run_id in union_candidates(evidence)):
        # incremental re-sweeps, or a sweep of ours on a commit a rebase removed with the head's
        # content for every row: the whole plan counts, row for row
        union = green_union(evidence)
        if union is not None:
            return union
    for commit in reversed(evidence.commits):
        green = green_runs_on(commit, evidence)
        if green:
            return green[0]
    return None


def union_candidates(evidence: Evidence) -> list[int]:
    """Sweep runs of ours (provenance holds: infx.signoff.rules.provenance) whose jobs were read,
    newest first: on the PR's commits, or on a commit a force-push or rebase removed from it
    when infx.trust.counts_for_pr admits them (`removed_content`: the head's content for every
    row of its plan)."""
    commits = set(evidence.commits or [])
    found = []
    for run_id, run in evidence.workflow_runs.items():
        if evidence.run_jobs.get(run_id) is None:
            continue
        if run_commit(evidence, run_id) not in commits and not trust.counts_for_pr(
                run, commits, repo=evidence.repo, default_branch=evidence.default_branch,
                same_content=lambda run: removed_content(evidence, run)):
            continue
        if provenance.run_problem(evidence, run_id) is not None:
            continue
        found.append(run)
    return [run.id for run in sorted(found, key=lambda r: (r.created_at or "", r.id), reverse=True)]


def removed_content(evidence: Evidence, run: WorkflowRun) -> bool:
    """Whether the commit a run swept, as the evidence holds it, has the head's fingerprint for
    every row of the head's plan (infx.plan.coverage.same_content; unread tree or plan: no)."""
    wanted = head_plan(evidence)
    tree = provenance.tree_of(evidence, trust.swept_commit(run) or "")
    if not wanted or not tree or not evidence.base_files:
        return False
    try:
        content = content_of(tree, evidence.base_files)
    except (InfxError, ValueError):
        return False
    return same_content({name: fp for name, (_, fp) in wanted.items()},
                        {name: fingerprint(row, content) for name, (row, _) in wanted.items()})


def removed_runs(evidence: Evidence) -> list[WorkflowRun]:
    """Completed pull_request runs of the sweep workflow in the branch's listing on commits the
    PR no longer has whose record passes the origin rules (infx.trust.run_origin), newest first:
    what the gatherer reads to let infx.trust.counts_for_pr judge them."""
    commits = set(evidence.commits or [])
    runs = [run for run in evidence.branch_runs or [] if run.event == "pull_request"
            and run.status == "completed" and run.head_sha and run.head_sha not in commits
            and provenance.origin_problem(run, evidence.repo, evidence.default_branch) is None]
    return sorted(runs, key=lambda r: (r.created_at or "", r.id), reverse=True)


def green_union(evidence: Evidence) -> GreenRun | None:
    """Runs of the PR that together cover every row of the head's plan, each row by a green
    job whose fingerprint at its run's commit equals the row's at the head (PRODUCT §4.8
    drift, per row: infx.plan.fingerprint), or None. Unreadable trees cover nothing."""
    found = union_coverage(evidence)
    if found is None:
        return None
    coverage, wanted = found
    if not coverage.complete or not wanted:
        return None
    by_run: dict[int, set[str]] = {}
    for name, run_id in coverage.reused.items():
        by_run.setdefault(run_id, set()).add(name)
    order = coverage.runs()
    evals = sum(1 for name in wanted if wanted[name][0].get("eval-only"))
    attempt = evidence.workflow_runs[order[0]].run_attempt
    return GreenRun(evidence.pr.head_sha, order[0], attempt, len(wanted) - evals, evals,
                    tuple((run_id, frozenset(by_run[run_id])) for run_id in order))


def union_coverage(evidence: Evidence) -> tuple[Coverage, dict[str, tuple[dict, str]]] | None:
    """Which row of the head's plan which read run of the PR covers (infx.plan.coverage.cover,
    newest run first), with the plan's rows (job name -> (row, fingerprint at the head)); None
    when no run was read or the plan's inputs cannot be read. Shared by the union above and
    the sweep report's reused rows."""
    runs = union_candidates(evidence)
    head, base = evidence.head_files, evidence.base_files
    if not runs or not head or not base:
        return None
    wanted = head_plan(evidence)
    if not wanted:
        return None  # Check `sweep` (and Check `append`) report the unreadable plan inputs; no row: no sweep
    rows = []
    for run_id in runs:
        jobs = latest_attempt(evidence.run_jobs.get(run_id) or [])
        green = green_rows(j for j in jobs if family(j.name)) & frozenset(wanted)
        sha = run_commit(evidence, run_id) or ""
        tree = head if sha == evidence.pr.head_sha else provenance.tree_of(evidence, sha)
        prints = None
        if green and tree:
            try:
                content = content_of(tree, base)
                prints = {name: fingerprint(wanted[name][0], content) for name in green}
            except (InfxError, ValueError):
                prints = None
        rows.append(RunRows(run_id, sha, green, prints))
    return cover({name: fp for name, (_, fp) in wanted.items()}, rows), wanted


def _wanted(plan: Plan, content: Content) -> dict[str, tuple[dict, str]]:
    """job name -> (row, fingerprint at the head) for every row of the head's plan."""
    return {job_name(row): (row, fingerprint(row, content)) for row in plan.rows()}
