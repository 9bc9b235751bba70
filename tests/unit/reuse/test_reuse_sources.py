"""infx.reuse.sources over plain data: validation order, pinned vs unpinned selection."""

from __future__ import annotations

import pytest

from infx import trust
from infx.commands.grammar import ReuseCommand
from infx.github.models import Artifact, WorkflowRun
from infx.reuse.facts import ReuseError
from infx.reuse.sources import (
    check_labels,
    is_reusable_artifact,
    select_source,
    validate_source,
    workflow_path,
)

GOOD = WorkflowRun(id=1, event="pull_request", status="completed", conclusion="success", head_sha="a" * 40,
                path=".github/workflows/run-sweep.yml", head_repo="acme/bench")
RESULTS = [Artifact(1, "results_bmk", False)]
TREE = {trust.SWEEP_WORKFLOW: "on: pull_request\njobs: {}\n"}


def OURS(run: WorkflowRun) -> str | None:
    """The real trust decision, with the run's commit holding the default branch's sweep files."""
    return trust.our_run(run, repo="acme/bench", default_branch="main", run_tree=TREE, default_tree=TREE)


def _replace(run: WorkflowRun, **changes) -> WorkflowRun:
    return WorkflowRun(**(run.__dict__ | changes))


@pytest.mark.parametrize(("name", "expired", "ok"), [
    ("results_bmk", False, True), ("eval_results_all", False, True), ("bmk_agentic_x", False, True),
    ("results_bmk", True, False), ("bmk_dsr1", False, False), ("run-stats", False, False),
    ("results_bmk_extra", False, False),
])
def test_reusable_artifacts(name, expired, ok):
    assert is_reusable_artifact(Artifact(1, name, expired)) is ok


def test_valid_source_passes():
    validate_source(GOOD, RESULTS, 12, ["a" * 40], pinned=False, ours=OURS)
    validate_source(_replace(GOOD, path=".github/workflows/run-sweep.yml@refs/heads/main"), RESULTS, 12,
                    ["a" * 40], pinned=False, ours=OURS)


@pytest.mark.parametrize(("changes", "pinned", "message"), [
    ({"event": "push"}, True, "expected pull_request"),
    ({"status": "queued"}, True, "expected completed"),
    ({"conclusion": "failure"}, False, "expected success"),
    ({"conclusion": "timed_out"}, True, "expected success or failure or cancelled"),
    ({"path": ".github/workflows/e2e-tests.yml"}, True, "not .github/workflows/run-sweep.yml"),
    ({"path": None}, True, "not our sweep: it is a run of an unnamed workflow"),
    ({"head_repo": "mallory/bench"}, True, "a fork's runs never count"),
    ({"head_repo": None}, True, "head repository is not recorded"),
    ({"head_sha": ""}, True, "has no head commit"),
    ({"head_sha": "b" * 40}, True, "not in PR #12's commit list"),
])
def test_each_check_fails_closed(changes, pinned, message):
    with pytest.raises(ReuseError, match=message):
        validate_source(_replace(GOOD, **changes), RESULTS, 12, ["a" * 40], pinned=pinned, ours=OURS)


def test_pinned_failure_and_cancelled_need_maintain_or_admin():
    for conclusion in ("failure", "cancelled"):
        run = _replace(GOOD, conclusion=conclusion)
        validate_source(run, RESULTS, 12, ["a" * 40], pinned=True, elevated=True, ours=OURS)
        with pytest.raises(ReuseError, match="needs a request from a maintain or admin user"):
            validate_source(run, RESULTS, 12, ["a" * 40], pinned=True, ours=OURS)
    validate_source(GOOD, RESULTS, 12, ["a" * 40], pinned=True, ours=OURS)  # success: write is enough


def test_no_artifacts_fails():
    with pytest.raises(ReuseError, match="no benchmark, eval, or agentic result artifact"):
        validate_source(GOOD, [Artifact(1, "results_bmk", True)], 12, ["a" * 40], pinned=True, ours=OURS)


def test_unpinned_selection_skips_bad_runs_in_order():
    runs = [_replace(GOOD, id=5, conclusion="failure"), _replace(GOOD, id=4, head_sha="f" * 40),
            _replace(GOOD, id=3), _replace(GOOD, id=2, path=".github/workflows/ci.yml"), _replace(GOOD, id=1)]
    artifacts = {5: RESULTS, 4: RESULTS, 3: [], 2: RESULTS, 1: RESULTS}
    chosen = select_source(ReuseCommand("/reuse-sweep-run", None), 12, ["a" * 40], get_run=lambda i: None,
                           branch_runs=lambda: runs, artifacts_of=artifacts.__getitem__, ours=OURS)
    assert chosen.id == 1


def test_unpinned_selection_passes_over_untrusted_runs_naming_why():
    fork, edited = _replace(GOOD, id=3, head_repo="mallory/bench"), _replace(GOOD, id=2, head_sha="e" * 40)
    trees = {"a" * 40: TREE, "e" * 40: {trust.SWEEP_WORKFLOW: "on: pull_request\njobs: {evil: {}}\n"}}

    def ours(run: WorkflowRun) -> str | None:
        return trust.our_run(run, repo="acme/bench", default_branch="main",
                             run_tree=trees.get(run.head_sha), default_tree=TREE)

    with pytest.raises(ReuseError) as caught:
        select_source(ReuseCommand("/reuse-sweep-run", None), 12, ["a" * 40, "e" * 40], get_run=lambda i: None,
                      branch_runs=lambda: [fork, edited], artifacts_of=lambda i: RESULTS, ours=ours)
    assert "run 3 (its head commit comes from mallory/bench" in caught.value.message
    assert "run 2 (its commit eeeeeeee has sweep workflow files that differ" in caught.value.message
    with pytest.raises(ReuseError, match="run 2 is not our sweep: its commit eeeeeeee has sweep workflow"):
        select_source(ReuseCommand("/use", 2), 12, ["a" * 40, "e" * 40], get_run=lambda i: edited,
                      branch_runs=lambda: [], artifacts_of=lambda i: RESULTS, ours=ours)


def test_pinned_is_never_substituted_and_no_commits_is_an_error():
    with pytest.raises(ReuseError, match="run 7 does not exist"):
        select_source(ReuseCommand("/use", 7), 12, ["a" * 40], get_run=lambda i: None,
                      branch_runs=lambda: [GOOD], artifacts_of=lambda i: RESULTS, ours=OURS)
    with pytest.raises(ReuseError, match="PR #12 has no commits"):
        select_source(ReuseCommand("/use", 7), 12, [], get_run=lambda i: GOOD,
                      branch_runs=lambda: [], artifacts_of=lambda i: RESULTS, ours=OURS)


def test_labels_and_paths():
    check_labels(12, ["full-sweep-enabled", "all-evals"])
    with pytest.raises(ReuseError, match="reuse-incompatible label\\(s\\): evals-only"):
        check_labels(12, ["evals-only"])
    assert workflow_path("run-sweep.yml") == ".github/workflows/run-sweep.yml"
    assert workflow_path(".github/workflows/x.yml") == ".github/workflows/x.yml"
