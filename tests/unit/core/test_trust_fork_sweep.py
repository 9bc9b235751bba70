"""The trust rule for trusted fork sweeps (infx.trust): a dispatch of run-sweep.yml on the default
branch, titled with the PR and the head it pins, is ours and swept that head; any other dispatch,
a fork's own run, or a pull_request run that merely carries such a title is not."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from infx import trust

REPO, MAIN = "acme/inferencex", "main"
SHA = "0123456789abcdef0123456789abcdef01234567"
MAIN_SHA = "fedcba9876543210fedcba9876543210fedcba98"
SWEEP = "name: Run Sweep\non: workflow_dispatch\njobs: {}\n"


@dataclass(frozen=True)
class Run:
    head_sha: str = MAIN_SHA
    event: str = "workflow_dispatch"
    path: str | None = trust.SWEEP_WORKFLOW
    head_branch: str | None = MAIN
    head_repo: str | None = REPO
    display_title: str | None = trust.fork_sweep_title(41, SHA)


def test_a_dispatch_on_the_default_branch_titled_with_its_pin_is_ours() -> None:
    run = Run()
    assert trust.run_origin(run, repo=REPO, default_branch=MAIN) is None
    assert trust.pinned_head(run) == (41, SHA)
    assert trust.swept_commit(run) == SHA  # the pinned head, not the default-branch commit it ran
    tree = {trust.SWEEP_WORKFLOW: SWEEP}
    assert trust.our_run(run, repo=REPO, default_branch=MAIN, run_tree=tree, default_tree=tree) is None


def test_its_workflow_files_are_compared_at_the_commit_that_ran() -> None:
    """The default-branch commit the dispatch ran had another run-sweep.yml: not ours."""
    why = trust.our_run(Run(), repo=REPO, default_branch=MAIN, run_tree={trust.SWEEP_WORKFLOW: SWEEP + "#\n"},
                        default_tree={trust.SWEEP_WORKFLOW: SWEEP})
    assert why == (f"its commit {MAIN_SHA[:8]} has sweep workflow files that differ from the default "
                   f"branch's ({trust.SWEEP_WORKFLOW})")


@pytest.mark.parametrize(("change", "why"), [
    ({"head_branch": "vendor/patch"}, "it was dispatched on vendor/patch, not on main"),
    ({"head_branch": None}, "it was dispatched on an unknown branch, not on main"),
    ({"display_title": None}, "it is a dispatch whose title pins no PR head"),
    ({"display_title": "Run Sweep - bump the image"}, "it is a dispatch whose title pins no PR head"),
    ({"display_title": trust.fork_sweep_title(41, SHA[:12])}, "it is a dispatch whose title pins no PR head"),
    ({"display_title": trust.fork_sweep_title(41, SHA.upper())}, "it is a dispatch whose title pins no PR head"),
    ({"display_title": trust.fork_sweep_title(41, SHA) + " "}, "it is a dispatch whose title pins no PR head"),
    ({"display_title": "x " + trust.fork_sweep_title(41, SHA)}, "it is a dispatch whose title pins no PR head"),
    ({"display_title": trust.fork_sweep_title(0, SHA)}, "it is a dispatch whose title pins no PR head"),
    ({"path": ".github/workflows/fork-sweep.yml"}, "it is a run of .github/workflows/fork-sweep.yml"),
    ({"head_repo": "vendor/inferencex"}, "its head commit comes from vendor/inferencex"),
    ({"event": "repository_dispatch"}, "it was started by a repository_dispatch event"),
    ({"event": "issue_comment"}, "it was started by a issue_comment event"),
])
def test_other_dispatches_are_not_ours(change: dict, why: str) -> None:
    problem = trust.run_origin(replace(Run(), **change), repo=REPO, default_branch=MAIN)
    assert problem is not None and problem.startswith(why), problem


def test_a_pull_request_run_with_a_fork_sweep_title_pins_nothing() -> None:
    """A PR titled like a fork sweep: its pull_request run swept its own head, and a fork's is
    still a fork's run."""
    run = replace(Run(), event="pull_request", head_sha=SHA, head_branch="vendor/patch",
                  display_title=trust.fork_sweep_title(41, MAIN_SHA))
    assert trust.pinned_head(run) is None
    assert trust.swept_commit(run) == SHA
    assert trust.run_origin(run, repo=REPO, default_branch=MAIN) is None
    fork = replace(run, head_repo="vendor/inferencex")
    assert trust.run_origin(fork, repo=REPO, default_branch=MAIN).startswith("its head commit comes from vendor")


def test_run_models_without_a_title_pin_nothing() -> None:
    @dataclass(frozen=True)
    class Bare:
        head_sha: str = MAIN_SHA
        event: str = "workflow_dispatch"
        path: str | None = trust.SWEEP_WORKFLOW
        head_branch: str | None = MAIN
        head_repo: str | None = REPO

    assert trust.pinned_head(Bare()) is None and trust.swept_commit(Bare()) is None
    assert trust.run_origin(Bare(), repo=REPO, default_branch=MAIN).startswith("it is a dispatch whose title")
