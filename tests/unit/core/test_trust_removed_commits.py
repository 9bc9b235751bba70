"""infx.trust.counts_for_pr and pr_sweep_candidates on runs of commits a force-push or rebase removed
from a PR, with infx.plan.coverage.same_content as the content half (pure: plain run records)."""

from __future__ import annotations

from dataclasses import replace

from infx import trust
from infx.github.models import WorkflowRun
from infx.plan.coverage import same_content

REPO, MAIN = "acme/inferencex", "main"
IN_PR, REMOVED = "a" * 40, "b" * 40
RUN = WorkflowRun(7, "Run Sweep", trust.SWEEP_WORKFLOW, "pull_request", "completed", "success", REMOVED,
                  "carol/bump", created_at="2026-09-29T10:00:00Z", head_repo=REPO)


def _counts(run: WorkflowRun, same: bool | None) -> bool:
    return trust.counts_for_pr(run, {IN_PR}, repo=REPO, default_branch=MAIN,
                               same_content=None if same is None else (lambda _run: same))


def test_a_run_on_a_pr_commit_counts_whatever_its_content():
    assert _counts(replace(RUN, head_sha=IN_PR), None) and _counts(replace(RUN, head_sha=IN_PR), False)


def test_a_removed_commit_counts_only_as_ours_with_the_heads_content():
    assert _counts(RUN, True)
    assert not _counts(RUN, False)  # some planned row's fingerprint differs there
    assert not _counts(RUN, None)  # nothing to compare with: the in-PR rule
    for spoiled in (replace(RUN, head_repo="mallory/inferencex"), replace(RUN, head_repo=None),
                    replace(RUN, path=".github/workflows/ci.yml"), replace(RUN, event="push"),
                    replace(RUN, event="workflow_dispatch", head_branch=MAIN,
                            display_title=trust.fork_sweep_title(12, REMOVED)),
                    replace(RUN, head_sha="")):
        assert not _counts(spoiled, True), spoiled


def test_the_content_is_read_only_for_runs_ours_by_record():
    asked: list[int] = []

    def same(run: WorkflowRun) -> bool:
        asked.append(run.id)
        return True

    fork = replace(RUN, id=8, head_repo="mallory/inferencex")
    assert not trust.counts_for_pr(fork, {IN_PR}, repo=REPO, default_branch=MAIN, same_content=same)
    assert asked == []


def test_candidates_judge_each_removed_commit_once_and_at_most_a_few():
    asked: list[str] = []

    def same(run: WorkflowRun) -> bool:
        asked.append(run.head_sha)
        return run.head_sha != "c" * 40

    runs = [replace(RUN, id=10 + n, head_sha=sha, created_at=f"2026-09-29T1{n}:00:00Z")
            for n, sha in enumerate([REMOVED, REMOVED, "c" * 40, IN_PR])]
    found = trust.pr_sweep_candidates(runs, [], {IN_PR}, repo=REPO, default_branch=MAIN, same_content=same)
    assert [r.id for r in found] == [13, 11, 10]  # newest first; c's run has other content
    assert sorted(asked) == sorted(["c" * 40, REMOVED])
    many = [replace(RUN, id=100 + n, head_sha=f"{n:040x}", created_at=f"2026-09-29T{n:02d}:00:00Z")
            for n in range(trust.MAX_REMOVED_COMMITS + 3)]
    found = trust.pr_sweep_candidates(many, [], {IN_PR}, repo=REPO, default_branch=MAIN,
                                      same_content=lambda _run: True)
    assert len(found) == trust.MAX_REMOVED_COMMITS
    assert [r.id for r in found] == [106, 105, 104, 103]  # the newest removed commits
    assert trust.pr_sweep_candidates(runs, [], {IN_PR}) == [runs[3]]  # no content check: in-PR only


def test_same_content_needs_every_planned_row():
    head = {"row a": "1" * 64, "row b": "2" * 64}
    assert same_content(head, dict(head))
    assert same_content(head, head | {"row c": "3" * 64})  # rows the head does not plan: ignored
    assert not same_content(head, {"row a": "1" * 64, "row b": "9" * 64})  # one row differs: none
    assert not same_content(head, {"row a": "1" * 64})
    assert not same_content(head, None)  # the commit could not be read
    assert not same_content({}, {})  # an empty plan shows nothing
