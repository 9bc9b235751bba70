"""Provenance of sweep evidence (PRODUCT §4.8): which workflow runs may count as our own sweep.

A run counts only when GitHub's own run record says it is a run of our sweep workflow
(`run-sweep.yml`) for a `pull_request` (or the merge-time `push` to the default branch) whose
head commit lives in this repository, and when the sweep workflow files at the run's commit
(run-sweep.yml and every local workflow or action it calls, found from the default branch's
copy) are byte-identical to the default branch's. Those workflows install and run the default
branch's infx from its own checkout and take the PR's checkout as data (PRODUCT §4.8, "Evidence
comes from trusted code"), so the PR's `infx/`, build files and lock never wrote a counted run's
results; what they do run from the PR (launchers, recipes) is benchmark-affecting content that
drift holds to the assessed head (infx.plan.benchmark_content.executed_paths). Everything a PR controls — check-run names,
details URLs, a workflow it adds or edits, a fork's head — is therefore never enough.

Pure: reads the evidence only (run records, trees); the gatherer reads what this needs.
"""

from __future__ import annotations

from infx import trust
from infx.plan.benchmark_content import own_paths
from infx.signoff.model import Evidence, WorkflowRun, touched_paths

SWEEP_WORKFLOW = trust.SWEEP_WORKFLOW
sweep_files = trust.sweep_files  # the file set the decision reads (infx.trust)


def origin_problem(run: WorkflowRun, repo: str, default_branch: str) -> str | None:
    """Why GitHub's record of a run says it is not our sweep, or None (infx.trust.run_origin)."""
    return trust.run_origin(run, repo=repo, default_branch=default_branch)


def tree_of(evidence: Evidence, sha: str) -> dict[str, str | None] | None:
    """The files of a commit the evidence holds (the head's, or one read for a sweep)."""
    if sha == evidence.pr.head_sha and evidence.head_files:
        return evidence.head_files
    return evidence.commit_files.get(sha)


def own_changes(evidence: Evidence, sha: str) -> frozenset[str] | None:
    """The paths the PR itself changes at `sha` or at its head (their compares with the
    default branch: benchmark_content.own_paths); None when that is not known."""
    listed = None if evidence.files is None else touched_paths(evidence.files)
    return own_paths(evidence.commit_changes.get(sha), listed=listed)


def run_problem(evidence: Evidence, run_id: int) -> str | None:
    """Why a run does not count as our sweep (infx.trust.our_run on the evidence's facts; a
    `pull_request` run must have run for a PR into the default branch: infx.trust.base_problem)."""
    run = evidence.workflow_runs.get(run_id)
    return trust.our_run(run, repo=evidence.repo, default_branch=evidence.default_branch,
                         run_tree=None if run is None else tree_of(evidence, run.head_sha),
                         default_tree=evidence.default_branch_files, pulls=evidence.branch_pulls)
