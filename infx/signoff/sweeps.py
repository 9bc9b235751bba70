"""Which workflow runs on a PR's commits count as a green sweep (read by the gatherer and Checks 1, 2, 14)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx.signoff import configs_at
from infx.signoff.model import CheckRun, Evidence

_BENCHMARK = re.compile(r"^(?:(?:single-node|multi-node) [^/]+|(?:multi-node )?agentic)$")
_EVAL = re.compile(r"^(?:multi-node )?(?:agentic )?eval$")
_RUN_ID = re.compile(r"/actions/runs/(\d+)(?:/|$)")
_BAD = frozenset({"failure", "cancelled", "timed_out", "action_required"})


@dataclass(frozen=True)
class GreenRun:
    commit: str
    run_id: int
    attempt: int
    benchmarks: int
    evals: int


def family(name: str) -> str | None:
    """'benchmark', 'eval', or None for everything the check ignores (canary, collect-*, lint...)."""
    prefix = name.split(" / ", 1)[0].strip()
    if " / " not in name:
        return None
    if _EVAL.match(prefix):
        return "eval"
    if _BENCHMARK.match(prefix):
        return "benchmark"
    return None


def run_id_of(check_run: CheckRun) -> int | None:
    match = _RUN_ID.search(check_run.details_url or "")
    return int(match.group(1)) if match else None


def _latest_per_job(runs: list[CheckRun]) -> list[CheckRun]:
    latest: dict[str, CheckRun] = {}
    for run in runs:
        current = latest.get(run.name)
        if current is None or (run.completed_at or "", run.id) > (current.completed_at or "", current.id):
            latest[run.name] = run
    return list(latest.values())


def required_families(evidence: Evidence) -> dict[str, tuple[str, ...]]:
    """Changed config key -> benchmark families one of which must have run for it.

    A multi-node-only (or agentic-only) PR correctly skips the other families, so only
    the families of the changed configs are asked for.
    """
    keys = configs_at.changed_keys(evidence.head_files, evidence.base_files) or []
    entries = configs_at.master_entries(evidence.head_files) or {}
    required: dict[str, tuple[str, ...]] = {}
    for key in keys:
        entry = entries.get(key, {})
        scenarios = entry.get("scenarios") if isinstance(entry.get("scenarios"), dict) else {}
        node = "multi-node" if entry.get("multinode") is True else "single-node"
        families = []
        if "agentic-coding" in scenarios:
            families.append("multi-node agentic" if node == "multi-node" else "agentic")
        if "fixed-seq-len" in scenarios:
            families.append(node)
        if families:
            required[key] = tuple(families)
    return required


def _covers(prefix: str, family: str) -> bool:
    if family in ("agentic", "multi-node agentic"):
        return prefix == family
    return prefix.startswith(family + " ") and not prefix.endswith("agentic")


def green_runs_on(commit: str, check_runs: list[CheckRun], evidence: Evidence) -> list[GreenRun]:
    """Workflow runs on one commit that count as a green sweep, newest run first."""
    required = required_families(evidence)
    by_run: dict[int, list[CheckRun]] = {}
    for check_run in check_runs:
        run_id = run_id_of(check_run)
        if run_id is not None and family(check_run.name):
            by_run.setdefault(run_id, []).append(check_run)
    found = []
    for run_id in sorted(by_run, reverse=True):
        jobs = _latest_per_job(by_run[run_id])
        if any(job.conclusion in _BAD for job in jobs):
            continue
        ok = [job for job in jobs if job.status == "completed" and job.conclusion == "success"]
        benchmarks = sum(1 for job in ok if family(job.name) == "benchmark")
        evals = sum(1 for job in ok if family(job.name) == "eval")
        prefixes = {job.name.split(" / ", 1)[0].strip() for job in ok if family(job.name) == "benchmark"}
        covered = all(any(_covers(p, f) for p in prefixes for f in families)
                      for families in required.values())
        if benchmarks and evals and covered:
            workflow_run = evidence.workflow_runs.get(run_id)
            attempt = workflow_run.run_attempt if workflow_run else 1
            found.append(GreenRun(commit, run_id, attempt, benchmarks, evals))
    return found


def find_green_run(evidence: Evidence) -> GreenRun | None:
    """The green sweep on the newest in-PR commit that has one (shared with Checks 2 and 14)."""
    if not evidence.commits or evidence.check_runs is None:
        return None
    for commit in reversed(evidence.commits):
        runs = evidence.check_runs.get(commit)
        if runs:
            green = green_runs_on(commit, runs, evidence)
            if green:
                return green[0]
    return None
