"""Check `sweep`: a green sweep of ours (benchmarks and evals executed and passing) ran on a commit of
this PR, and the head has the same benchmark-affecting content as the swept commit.

Runs set aside by provenance (infx.signoff.rules.provenance) are named; drift is judged by
infx.plan.benchmark_content, the one definition of benchmark-affecting content (shared with the
reuse resolver), and a head that differs only in neutral files says which.
"""

from __future__ import annotations

from infx.errors import InfxError
from infx.inert import code, link
from infx.plan.benchmark_content import (
    Unreadable,
    differences,
    master_blocks,
    named_keys,
    pr_entries,
)
from infx.plan.labels import sweep_flags
from infx.plan.planner import plans_benchmarks
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules import provenance
from infx.signoff.rules.affected import LAUNCH_CHANGES, SHARED_ONLY, affected_configs
from infx.signoff.rules.policy_reads import EvidenceGap
from infx.signoff.rules.sweeps import (
    BAD,
    GreenRun,
    candidate_runs,
    family,
    find_green_run,
    green_jobs,
    latest_attempt,
    plans_nothing,
    run_id_of,
)
from infx.signoff.table import Settings

FIX = f"run a full sweep on a commit in this PR, or re-anchor with {code('/use <run_id>')}"
SHOWN = 5  # neutral files named before "and N more"


def run(evidence: Evidence, settings: Settings) -> Outcome:
    outcome = _judge(evidence)
    unlisted = unlisted_configs(evidence)
    own = [(key, files) for key, files, shared in unlisted if not shared]
    shared = [(key, files) for key, files, is_shared in unlisted if is_shared]
    details = list(outcome.details)
    if shared:
        details.append(f"{len(shared)} config(s) whose launch this PR changes only through a file "
                       "they share (a launcher or sourced helper) have no changelog entry, so the "
                       f"sweep did not cover them (advisory): {_named(shared)}")
    if own:
        # PRODUCT §4.8: `success` means the benchmarks the PR changes were swept green; a
        # config whose own block, recipe or script changes and that no entry names is not swept
        unswept = (f"{len(own)} config(s) whose own benchmark-affecting content this PR changes have "
                   f"no changelog entry that benchmarks them, so no sweep covers them: {_named(own)}. "
                   "Fix: append a changelog entry naming them (not evals-only; not append-only for a "
                   "changed recipe or script), then sweep.")
        if outcome.status is Status.FAIL:  # no green sweep at all: that stays the root cause
            return Outcome(Status.FAIL, outcome.reason, (*details, unswept))
        return Outcome(Status.FAIL, unswept, (outcome.reason, *details))
    if not shared:
        return outcome
    status = Status.WARN if outcome.status in (Status.PASS, Status.NA) else outcome.status
    return Outcome(status, outcome.reason, tuple(details))


def _named(configs: list[tuple[str, tuple[str, ...]]]) -> str:
    return ("; ".join(f"{code(key)} ({', '.join(code(f) for f in files[:SHOWN])}"
                      + (f" and {len(files) - SHOWN} more" if len(files) > SHOWN else "") + ")"
                      for key, files in configs[:SHOWN])
            + (f" and {len(configs) - SHOWN} more" if len(configs) > SHOWN else ""))


def unlisted_configs(evidence: Evidence) -> list[tuple[str, tuple[str, ...], bool]]:
    """Configs the PR affects (infx.signoff.rules.affected) that none of its changelog entries
    names: (key, the changed files that affect it, affected only through a shared file)."""
    head, base = evidence.head_files, evidence.base_files
    if not head or not base:
        return []
    label_evals_only = sweep_flags(evidence.pr.labels).evals_only
    try:
        # a config counts as listed only by an entry that benchmarks it (an evals-only entry
        # names its keys but runs none of their benchmarks: infx.plan.planner.plans_benchmarks)
        benchmarking = [e for e in pr_entries(head, base)
                        if plans_benchmarks(e.get("evals-only") is True, e.get("all-evals") is True,
                                            label_evals_only)]
        keys = list(master_blocks(head))
        listed = named_keys(benchmarking, keys)
        # an append-only entry sweeps only the rows it adds: a recipe or script it changes
        # under the rows that already ran is swept by no entry of its own
        whole = named_keys([e for e in benchmarking if e.get("append-only") is not True], keys)
        affected = affected_configs(evidence)
    except (EvidenceGap, InfxError, Unreadable, ValueError):
        return []  # unreadable inputs: the checks that judge them fail on them
    return [(c.key, c.files or (c.master_path,), c.how == SHARED_ONLY) for c in affected
            if c.key not in listed or (c.key not in whole and c.how in LAUNCH_CHANGES)]



def _judge(evidence: Evidence) -> Outcome:
    if evidence.commits is None or evidence.check_runs is None:
        return Outcome(Status.FAIL, "the PR's commits or check runs could not be read; "
                       "no passing sweep can be confirmed.")
    aside = [f"set aside: run {run_id} — {why}" for run_id, why in set_aside(evidence)]
    green = find_green_run(evidence)
    if green is not None and green.rows_by_run:
        runs = ", ".join(link(str(r), f"https://github.com/{evidence.repo}/actions/runs/{r}") for r in green.runs)
        return Outcome(Status.PASS, f"every row of the head's plan ({green.benchmarks} benchmark and "
                       f"{green.evals} eval rows) has a green job in run(s) {runs}, on content whose "
                       "row fingerprints equal the head's (incremental re-sweep).")
    if green is not None:
        return _drift(evidence, green, aside)
    if plans_nothing(evidence):
        return Outcome(Status.NA, "the head's plan has no rows (no changelog entry of this PR names a "
                       "config that runs), so no sweep is needed.", tuple(aside))
    details = list(aside)
    # read and failed (None); commits the branch shows no sweep run on are not read at all
    unread = [c[:8] for c in evidence.commits
              if c in evidence.check_runs and evidence.check_runs[c] is None]
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


def set_aside(evidence: Evidence) -> list[tuple[int, str]]:
    """Runs the in-PR check runs point at that provenance rules out, newest first, with why.

    A run whose jobs were not green is not reported for an unread workflow-file tree (that
    tree is only read for a green run); every other reason is."""
    pointed = {run_id_of(c) for sha in evidence.commits or []
               for c in (evidence.check_runs or {}).get(sha) or [] if family(c.name)} - {None}
    found = []
    for run_id in sorted(pointed, reverse=True):
        if run_id not in evidence.workflow_runs and f"run:{run_id}" not in evidence.read_errors:
            continue  # never looked at (a newer green run was found first, or the per-commit cap)
        why = provenance.run_problem(evidence, run_id)
        if why is None:
            continue
        record = evidence.workflow_runs.get(run_id)
        tree_unread = (record is not None and provenance.tree_of(evidence, record.head_sha) is None
                       and provenance.origin_problem(record, evidence.repo, evidence.default_branch) is None)
        if tree_unread and green_jobs(evidence, run_id) is None:
            continue  # its jobs already rule it out (reported below); the tree was never needed
        found.append((run_id, why))
    return found


def _drift(evidence: Evidence, green: GreenRun, aside: list[str]) -> Outcome:
    """PASS only when the head has the swept commit's benchmark-affecting content."""
    url = f"https://github.com/{evidence.repo}/actions/runs/{green.run_id}"
    ran = (f"in-PR commit {green.commit[:8]} has {green.benchmarks} benchmark and {green.evals} "
           f"eval check-runs at success (run {link(str(green.run_id), url)}, attempt {green.attempt})")
    head = evidence.pr.head_sha
    also = "".join(f"; {note}" for note in aside)
    if green.commit == head:
        return Outcome(Status.PASS, f"{ran}; it is the assessed head{also}.", tuple(aside))
    swept = provenance.tree_of(evidence, green.commit) or {}
    sweep_again = f"run a full sweep on the head {head[:8]} (or {code('/use <run_id>')} a run of it)"
    try:
        changed = differences(swept, evidence.head_files, evidence.base_files,
                              provenance.own_changes(evidence, green.commit))
    except Unreadable as exc:
        return Outcome(Status.FAIL, f"whether the head {head[:8]} has the benchmark-affecting "
                       f"content of the swept commit {green.commit[:8]} cannot be told ({exc}). "
                       f"Fix: {sweep_again}.", (ran, *aside))
    if changed:
        return Outcome(Status.FAIL, f"benchmark-affecting content changed after the sweep: the head "
                       f"{head[:8]} differs from the swept commit {green.commit[:8]} in "
                       f"{', '.join(changed)}. Fix: {sweep_again}.", (ran, *aside))
    neutral = sorted(p for p in set(swept) | set(evidence.head_files) if swept.get(p) != evidence.head_files.get(p))
    shown = ", ".join(neutral[:SHOWN]) + (f" and {len(neutral) - SHOWN} more" if len(neutral) > SHOWN else "")
    differs = (f"the head {head[:8]} differs from it only in {shown} (benchmark-neutral: no sweep job runs "
               "them, or the default branch changed them and a merge brought them in)"
               if neutral else f"the head {head[:8]} has the same files")
    return Outcome(Status.PASS, f"{ran}; {differs}{also}.", tuple(aside))
