"""Check 1: a green sweep (benchmarks and evals executed and passing) ran on a commit of this PR."""

from __future__ import annotations

from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.sweeps import family, find_green_run
from infx.signoff.table import Settings

FIX = "run a full sweep on a commit in this PR, or re-anchor with `/use <run_id>`"


def run(evidence: Evidence, settings: Settings) -> Outcome:
    if evidence.commits is None or evidence.check_runs is None:
        return Outcome(Status.FAIL, "the PR's commits or check runs could not be read; "
                       "no passing sweep can be confirmed.")
    green = find_green_run(evidence)
    if green is not None:
        url = f"https://github.com/{evidence.repo}/actions/runs/{green.run_id}"
        return Outcome(Status.PASS, f"in-PR commit {green.commit[:8]} has {green.benchmarks} "
                       f"benchmark and {green.evals} eval check-runs at success "
                       f"(run [{green.run_id}]({url}), attempt {green.attempt}).")
    unread = [c[:8] for c in evidence.commits if evidence.check_runs.get(c) is None]
    details = []
    if unread:
        why = next((evidence.read_errors[f"check-runs:{c}"] for c in evidence.commits
                    if f"check-runs:{c}" in evidence.read_errors), None)
        details.append("check runs could not be read for commit(s) " + ", ".join(unread)
                       + (f" ({why})" if why else ""))
    skipped = _only_skipped(evidence)
    if skipped:
        details.append("runs with only skipped or ignored jobs: " + ", ".join(skipped))
    for orphan in evidence.orphan_runs[:3]:
        details.append(f"run {orphan.id} succeeded on {orphan.head_sha[:8]}, which is no "
                       "longer a commit of this PR")
    reason = "No passing sweep/eval was found on any commit in this PR. Fix: " + FIX + "."
    return Outcome(Status.FAIL, reason, tuple(details))


def _only_skipped(evidence: Evidence) -> list[str]:
    notes = []
    for commit in evidence.commits or []:
        runs = (evidence.check_runs or {}).get(commit) or []
        relevant = [r for r in runs if family(r.name)]
        if relevant and all(r.conclusion == "skipped" for r in relevant):
            notes.append(f"{commit[:8]} (every benchmark/eval job skipped)")
    return notes
