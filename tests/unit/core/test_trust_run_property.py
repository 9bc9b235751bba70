"""Property (issue 19): for generated workflow runs varying the head repository, the workflow path
and the files at the run's commit, every consumer gets the same answer to "is this run ours" —
the sign-off's provenance, the reuse source validation (`/use`), the automatic source choice
(bare `/reuse-sweep-run`), the runs the incremental planner and the merge take
(covering.eligible_runs) and `/retest-failed`'s run choice — because each asks infx.trust.our_run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lib.signoff_policy_support import SWEEP_TEXT, bare_evidence

from infx import trust
from infx.commands.grammar import ReuseCommand
from infx.github.models import Artifact, WorkflowRun
from infx.retest.failed import latest
from infx.reuse.covering import eligible_runs
from infx.reuse.facts import ReuseError
from infx.reuse.sources import select_source, validate_source
from infx.signoff.rules import provenance

REPO, SHA = "o/r", "a" * 40
DEFAULT = {trust.SWEEP_WORKFLOW: SWEEP_TEXT}
RESULTS = [Artifact(1, "results_bmk", False)]
PATHS = [trust.SWEEP_WORKFLOW, trust.SWEEP_WORKFLOW + "@refs/heads/main", ".github/workflows/ci.yml",
         ".github/workflows/run-sweep.yaml", None, ""]
REPOS = [REPO, "O/R", "mallory/r", "o/r-fork", None, ""]
TREES = {
    "same": dict(DEFAULT),
    "edited": {trust.SWEEP_WORKFLOW: SWEEP_TEXT + "# edited\n"},
    "deleted": {},
    "code": DEFAULT | {"infx/workflow/collect.py": "def collect(): return 0.99\n"},
    "neutral": DEFAULT | {"README.md": "hi\n"},
    "unread": None,
}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(path=st.sampled_from(PATHS), head_repo=st.sampled_from(REPOS), files=st.sampled_from(sorted(TREES)))
def test_every_consumer_gives_the_same_trust_answer(path, head_repo, files) -> None:
    tree = TREES[files]
    facts = WorkflowRun(id=7, event="pull_request", status="completed", conclusion="success", head_sha=SHA,
                     path=path, head_branch="feature", head_repo=head_repo, created_at="2026-09-29T10:00:00Z")

    def ours(run: WorkflowRun) -> str | None:  # what the gateway asks, from the same facts
        return trust.our_run(run, repo=REPO, default_branch="main", run_tree=tree, default_tree=DEFAULT)

    answer = ours(facts)

    # the sign-off: the evidence holds the same record and the same commit tree
    ev = bare_evidence(head_sha="d" * 40, provenance=False, default_branch_files=dict(DEFAULT),
                       workflow_runs={7: WorkflowRun(7, "Run Sweep", path, "pull_request", "completed",
                                                     "success", SHA, "feature", head_repo=head_repo,
                                                     created_at="2026-09-29T10:00:00Z")},
                       commit_files={} if tree is None else {SHA: tree},
                       branch_pulls=trust.BranchPulls("feature", (), ()))  # its branch heads only this PR
    assert provenance.run_problem(ev, 7) == answer

    # /use 7
    try:
        validate_source(facts, RESULTS, 1, [SHA], pinned=True, ours=ours)
        pinned = None
    except ReuseError as exc:
        pinned = exc.message
    assert (pinned is None) is (answer is None)
    if answer is not None:
        assert answer in pinned

    # bare /reuse-sweep-run: the run is chosen only when it is ours (another workflow's run is
    # not even a candidate; ours or not, the reason is named when it is passed over)
    try:
        chosen = select_source(ReuseCommand("/reuse-sweep-run", None), 1, [SHA], get_run=lambda i: None,
                               branch_runs=lambda: [facts], artifacts_of=lambda i: RESULTS, ours=ours).id
    except ReuseError as exc:
        chosen = None
        if answer is not None and trust.is_sweep_run(facts):
            assert answer in exc.message
    assert (chosen == 7) is (answer is None)

    # the incremental planner and the merge take rows only from these runs
    assert bool(eligible_runs([facts], [SHA], ours=ours)) is (answer is None)

    # /retest-failed re-runs only a run of ours
    jobs = [trust_job("single-node 1k1k / x", "failure")]
    run, passed = latest([facts], jobs_of=lambda i: jobs, ours=ours)
    assert (run is not None) is (answer is None)
    if answer is not None and trust.is_sweep_run(facts):
        assert passed == (f"run 7 is not our sweep: {answer}",)


def trust_job(name: str, conclusion: str):
    from infx.github.models import Job

    return Job(0, name, conclusion=conclusion)


def test_the_generated_worlds_hold_both_answers() -> None:
    """The property is not vacuous: some generated runs are ours, some are not, for each reason."""
    facts = WorkflowRun(7, "Run Sweep", trust.SWEEP_WORKFLOW, "pull_request", "completed", "success", SHA,
                        "feature", head_repo=REPO)
    # the PR's own infx at the run's commit is data the run's (default-branch) code never ran
    for ours in ("same", "code", "neutral"):
        assert trust.our_run(facts, repo=REPO, default_branch="main", run_tree=TREES[ours], default_tree=DEFAULT) is None
    reasons = {trust.our_run(facts, repo=REPO, default_branch="main", run_tree=TREES[k], default_tree=DEFAULT)
               for k in ("edited", "deleted", "unread")}
    assert None not in reasons and len(reasons) == 2  # edited and deleted name the same file
