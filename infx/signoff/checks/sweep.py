"""Check 1: a green sweep (benchmarks and evals executed and passing) ran on a commit of this PR."""

from __future__ import annotations

from infx.signoff.inert import code, link
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.sweeps import BAD, candidate_runs, family, find_green_run, latest_attempt
from infx.signoff.table import Settings

FIX = f"run a full sweep on a commit in this PR, or re-anchor with {code('/use <run_id>')}"


def run(evidence: Evidence, settings: Settings) -> Outcome:
    if evidence.commits is None or evidence.check_runs is None:
        return Outcome(Status.FAIL, "the PR's commits or check runs could not be read; "
                       "no passing sweep can be confirmed.")
    green = find_green_run(evidence)
    if green is not None:
        url = f"https://github.com/{evidence.repo}/actions/runs/{green.run_id}"
        return Outcome(Status.PASS, f"in-PR commit {green.commit[:8]} has {green.benchmarks} "
                       f"benchmark and {green.evals} eval check-runs at success "
                       f"(run {link(str(green.run_id), url)}, attempt {green.attempt}).")
    unread = [c[:8] for c in evidence.commits if evidence.check_runs.get(c) is None]
    details = []
    if unread:
        why = next((evidence.read_errors[f"check-runs:{c}"] for c in evidence.commits
                    if f"check-runs:{c}" in evidence.read_errors), None)
        details.append("check runs could not be read for commit(s) " + ", ".join(unread)
                       + (f" ({why})" if why else ""))
    unread_jobs = sorted(run_id for run_id, jobs in evidence.run_jobs.items() if jobs is None)
    if unread_jobs:
        details.append("the jobs of run(s) " + ", ".join(map(str, unread_jobs)) + " could not be read")
    spoiled = _spoiled(evidence)
    if spoiled:
        details.append("runs with a failed, cancelled or unfinished job: " + "; ".join(spoiled))
    skipped = _only_skipped(evidence)
    if skipped:
        details.append("runs with only skipped or ignored jobs: " + ", ".join(skipped))
    for orphan in evidence.orphan_runs[:3]:
        details.append(f"run {orphan.id} succeeded on {orphan.head_sha[:8]}, which is no "
                       "longer a commit of this PR")
    reason = "No passing sweep/eval was found on any commit in this PR. Fix: " + FIX + "."
    return Outcome(Status.FAIL, reason, tuple(details))


def _spoiled(evidence: Evidence) -> list[str]:
    notes = []
    for run_id in sorted(evidence.run_jobs, reverse=True):
        bad = [job for job in latest_attempt(evidence.run_jobs[run_id] or [])
               if family(job.name) and (job.conclusion in BAD or job.status != "completed")]
        if bad:
            names = ", ".join(f"`{job.name}` ({job.conclusion or job.status})" for job in bad[:3])
            more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
            notes.append(f"run {run_id}: {names}{more}")
    return notes[:3]


def _only_skipped(evidence: Evidence) -> list[str]:
    notes = []
    for commit in evidence.commits or []:
        jobs = [job for run_id in candidate_runs(evidence, commit)
                for job in latest_attempt(evidence.run_jobs.get(run_id) or [])]
        relevant = [job for job in jobs if family(job.name)]
        if relevant and all(job.conclusion == "skipped" for job in relevant):
            notes.append(f"{commit[:8]} (every benchmark/eval job skipped)")
    return notes
