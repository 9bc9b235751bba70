"""infx.reuse.posted_head over plain data: the head a command was posted on, and whether it still covers the PR."""

from __future__ import annotations

from infx.github.models import WorkflowRun
from infx.reuse.posted_head import (
    MAX_LATER_HEADS,
    HeadSeen,
    binding_problem,
    descendants,
    head_seen,
)

A, B, C, X = "a" * 40, "b" * 40, "c" * 40, "f" * 40
ENTRY = "- config-keys: [k]\n  description: [{}]\n  pr-link: XXX\n"
TREES = {A: {"perf-changelog.yaml": ENTRY.format("one")}, B: {"perf-changelog.yaml": ENTRY.format("one"),
                                                               "README.md": "x"},
         C: {"perf-changelog.yaml": ENTRY.format("two")}, "base": {}}


def head_when_posted(runs, when, *, branch, head_repo, timeline=()):
    """The head's sha alone (None when unknown), with a timeline showing no head move."""
    return head_seen(runs, when, branch=branch, head_repo=head_repo, timeline=list(timeline)).sha


REPO = "acme/inferencex"


def run(i, sha, created, event="pull_request", branch="carol/bump", repo=REPO, status="completed"):
    return WorkflowRun(id=i, event=event, status=status, conclusion=None, head_sha=sha, head_branch=branch,
                    created_at=created, head_repo=repo)


RUNS = [run(1, A, "2026-09-29T10:00:00Z"), run(2, B, "2026-09-29T12:00:00Z", status="in_progress"),
        run(3, C, "2026-09-29T14:00:00Z"), run(4, X, "2026-09-29T11:00:00Z", event="push"),
        run(5, X, "2026-09-29T11:30:00Z", branch="other"), run(6, X, "2026-09-29T11:45:00Z", repo="fork/x")]


def test_the_head_when_posted_is_the_newest_pull_request_run_by_then():
    def at(when):
        return head_when_posted(RUNS, when, branch="carol/bump", head_repo="acme/inferencex")
    assert at("2026-09-29T09:00:00Z") is None
    assert at("2026-09-29T10:00:00Z") == A  # created at the same second counts
    assert at("2026-09-29T11:59:59Z") == A  # push, other-branch and other-repository runs ignored
    assert at("2026-09-29T12:30:00+00:00") == B  # a run still in progress marks its head too
    assert at("2026-10-01T00:00:00Z") == C
    assert at("not a date") is None and at(None) is None


def _problem(seen, head, commits=(A, B, C)):
    return binding_problem(comment_ref="/reuse-sweep-run (comment 7 by root)", seen=seen, head=head,
                           pr_commits=commits, base="base", tree=TREES.__getitem__)


def test_same_head_or_neutral_push_is_still_covered():
    assert _problem(A, A) is None
    assert _problem(A, B) is None  # README only


def test_a_push_that_changes_the_plan_needs_a_new_command():
    problem = _problem(A, C)
    assert "was posted when the PR head was aaaaaaaaaaaa" in problem
    assert "perf-changelog.yaml (this PR's entries)" in problem
    assert "post a new /reuse-sweep-run" in problem


def test_unknown_or_force_pushed_heads_fail_closed():
    assert "cannot be tied to a PR head" in _problem(None, C)
    assert "force-pushed away" in _problem(X, C)


def test_unreadable_content_fails_closed():
    trees = TREES | {C: {"perf-changelog.yaml": "a: [\n"}}
    problem = binding_problem(comment_ref="/use 5 (comment 7 by root)", seen=A, head=C, pr_commits=(A, C),
                              base="base", tree=trees.__getitem__)
    assert "cannot be told" in problem and "perf-changelog.yaml" in problem


def test_times_are_instants_whatever_their_form():
    """PyGithub gives datetimes (naive ones are UTC), GitHub's JSON gives strings with Z or
    an offset; anything else is no time at all (nothing is bound)."""
    from datetime import datetime, timedelta, timezone

    def at(when):
        return head_when_posted(RUNS, when, branch="carol/bump", head_repo="acme/inferencex")
    assert at(datetime(2026, 9, 29, 12, 30)) == B
    assert at(datetime(2026, 9, 29, 12, 30, tzinfo=timezone.utc)) == B
    assert at("2026-09-29T12:30:00+02:00") == A  # 10:30 UTC
    assert at(datetime(2026, 9, 29, 14, 30, tzinfo=timezone(timedelta(hours=2)))) == B
    assert at(1790000000) is None and at("") is None


def test_only_runs_with_a_time_and_a_head_of_this_branch_and_repository_count():
    runs = [run(9, X, "2026-09-29T11:50:00Z", event="push"), run(8, X, None),
            run(7, "", "2026-09-29T11:40:00Z"), run(6, X, "2026-09-29T11:45:00Z", repo="fork/x"),
            run(5, X, "2026-09-29T11:30:00Z", branch="other"), run(1, A, "2026-09-29T10:00:00Z")]
    assert head_when_posted(runs, "2026-09-29T12:00:00Z", branch="carol/bump", head_repo="acme/inferencex") == A
    # a run that does not record its branch is not ruled out by it (the listing is by branch)
    unnamed = [run(1, A, "2026-09-29T10:00:00Z"), run(2, B, "2026-09-29T11:00:00Z", branch=None)]
    assert head_when_posted(unnamed, "2026-09-29T11:05:00Z", branch="carol/bump", head_repo="acme/inferencex") == B
    # one whose repository is unknown on either side is never shown to be this PR's (infx.trust.same_head_repo)
    assert head_when_posted(runs, "2026-09-29T12:00:00Z", branch="carol/bump", head_repo=None) is None


def test_a_deleted_forks_run_on_a_branch_of_the_same_name_is_not_the_head_seen():
    """Red-team: the PR's author opens a second PR from another fork, from a branch named like
    this PR's, with the commit they will push here later (C); runs it; deletes that fork, so its
    run records no head repository. A sign-off posted while this PR's head was A must still be
    bound to A, not to C (which, once pushed here, would be the head and 'inherit' the sign-off)."""
    runs = [run(1, A, "2026-09-29T10:00:00Z"), run(2, C, "2026-09-29T11:00:00Z", repo=None)]
    assert head_when_posted(runs, "2026-09-29T12:00:00Z", branch="carol/bump", head_repo=REPO) == A
    fork = [run(1, A, "2026-09-29T10:00:00Z", branch="main", repo="vendor/x"),
            run(2, C, "2026-09-29T11:00:00Z", branch="main", repo=None)]
    assert head_when_posted(fork, "2026-09-29T12:00:00Z", branch="main", head_repo="Vendor/X") == A


def test_runs_created_in_the_same_second_are_ordered_by_id():
    same = [run(12, B, "2026-09-29T10:00:00Z"), run(11, A, "2026-09-29T10:00:00Z")]
    assert head_when_posted(same, "2026-09-29T10:00:00Z", branch="carol/bump", head_repo=REPO) == B
    assert head_when_posted(list(reversed(same)), "2026-09-29T10:00:00Z", branch="carol/bump",
                            head_repo=REPO) == B


def test_a_command_on_the_head_itself_needs_no_comparison():
    """Posted on the head being decided: covered without reading any tree (the head's own
    unreadable changelog is another check's finding), even when the commit list is capped."""
    trees = TREES | {C: {"perf-changelog.yaml": "a: [\n"}}
    assert binding_problem(comment_ref="/use 5 (comment 7 by root)", seen=C, head=C, pr_commits=(A, B),
                           base="base", tree=trees.__getitem__) is None


# --- records a push cannot suppress: the timeline and a review's commit_id (issue 20) -------------

def committed(sha, *parents, message="change"):
    """A timeline `committed` event as GitHub lists it, with its parents (GitHub's objects)."""
    return {"event": "committed", "sha": sha, "message": message, "parents": [{"sha": p} for p in parents]}


def moved(kind, when):
    return {"event": kind, "created_at": when, "commit_id": None}


def seen(timeline, when="2026-09-29T11:00:00Z", runs=RUNS, review=None):
    return head_seen(runs, when, branch="carol/bump", head_repo="acme/inferencex", timeline=timeline,
                     review_commit=review)


def test_the_hidden_head_sequence_leaves_the_head_unknown():
    """Push A (a run records it), force-push to B whose message says [skip ci] (no run), the
    signer signs B, the author force-pushes A back: the runs alone say A was signed."""
    hidden = {"event": "committed", "sha": B, "message": "tidy [skip ci]"}
    assert seen([committed(A)]) == HeadSeen(A)
    timeline = [committed(A), moved("head_ref_force_pushed", "2026-09-29T10:30:00Z"), hidden,
                moved("head_ref_force_pushed", "2026-09-29T11:30:00Z")]
    found = seen(timeline, runs=RUNS[:1])
    assert found.sha is None
    assert "force-pushed at 2026-09-29T10:30:00Z, after the newest workflow run before it" in found.problem
    # a force-push only after the sign-off still hides a head pushed in between without a run
    later = seen([committed(A), moved("head_ref_force_pushed", "2026-09-29T11:30:00Z")], runs=RUNS[:1])
    assert later.sha is None and "force-pushed at 2026-09-29T11:30:00Z" in later.problem
    # one before the newest run is accounted for by that run
    assert seen([moved("head_ref_force_pushed", "2026-09-29T09:00:00Z"), committed(A)]) == HeadSeen(A)


def test_deleted_restored_or_undated_head_moves_are_gaps():
    for kind, word in (("head_ref_deleted", "deleted"), ("head_ref_restored", "restored")):
        assert f"head branch was {word} at" in seen([committed(A), moved(kind, "2026-09-29T10:40:00Z")]).problem
    undated = seen([committed(A), {"event": "head_ref_force_pushed"}])
    assert undated.sha is None and "at an unrecorded time" in undated.problem


def test_every_commit_pushed_after_the_runs_head_may_have_been_seen():
    """No record gives a plain push's time: a commit after the newest run's head may have been
    pushed before the command (a [skip ci] message, a workflow the PR disabled) or after it.
    What came after is told by parents, which git hashes, not by the timeline's order (commit
    dates, which the author sets)."""
    skipped = committed(B, A, message="wip\n\nskip-checks: true")
    assert seen([committed(A, "base"), skipped], runs=RUNS[:1]) == HeadSeen(A, later=(B,))
    # listed first (back-dated), it still descends from A
    assert seen([skipped, committed(A, "base")], runs=RUNS[:1]) == HeadSeen(A, later=(B,))
    # an ancestor of the run's head is not a head the commenter could have seen
    assert seen([committed(B, "base"), committed(A, B)], runs=RUNS[:1]) == HeadSeen(A)
    # a run of its own, even one created before the comment, does not rule a descendant out
    assert seen([committed(A, "base"), committed(B, A), committed(C, B)], runs=RUNS[:3],
                when="2026-09-29T12:30:00Z") == HeadSeen(B, later=(C,))
    # parents not given: it may be anything (fail closed)
    assert seen([committed(A, "base"), {"event": "committed", "sha": B}], runs=RUNS[:1]) == HeadSeen(A, later=(B,))


def test_descendants_follow_parents_through_merges_in_any_order():
    merge = "d" * 40
    timeline = [committed(merge, B, "main-tip"), committed(C, A), committed(B, A), committed(A, "base")]
    assert descendants(timeline, A) == (merge, C, B)
    assert descendants(timeline, B) == (merge,)
    assert descendants(timeline, merge) == ()


def test_each_commit_that_may_have_been_seen_must_cover_the_head():
    D = "d" * 40  # the head: A's files again
    trees = TREES | {D: TREES[A]}

    def problem(later, head=D, commits=(A, B, C, D)):
        return binding_problem(comment_ref="/use 5 (comment 7 by root)", seen=A, head=head, pr_commits=commits,
                               base="base", tree=trees.__getitem__, later=later)
    assert problem(()) is None and problem((B, D)) is None  # B differs from D in README.md only
    # C differs from the head in its changelog: the command may have been posted on C
    found = problem((B, C, D))
    assert "was posted when the PR head was aaaaaaaaaaaa or a commit pushed after it, such as cccccccccccc" in found
    assert "perf-changelog.yaml" in found
    assert "no longer part of the PR" in problem((C,), commits=(A, D))
    crowd = problem(tuple(str(i) * 40 for i in range(MAX_LATER_HEADS + 1)))
    assert f"{MAX_LATER_HEADS + 1} commits were pushed after it" in crowd
    assert problem(tuple([B] * (MAX_LATER_HEADS + 1))) is None  # counted once each


def test_an_unreadable_timeline_fails_closed_and_a_review_names_its_commit():
    found = seen(None)
    assert found.sha is None and "timeline" in found.problem and "could not be read" in found.problem
    # a review carries GitHub's record of its head: no runs or timeline needed
    assert seen(None, runs=[], review=B) == HeadSeen(B)
    assert "timeline" in _problem_of(found)


def _problem_of(found):
    return binding_problem(comment_ref="/use 5 (comment 7 by root)", seen=found.sha, head=C,
                           pr_commits=(A, C), base="base", tree=TREES.__getitem__, unknown=found.problem)


def test_a_head_move_just_before_the_run_may_have_followed_its_push():
    """A run is created a moment after its push: a force-push just before it may have moved the
    branch after the push it records (red team 22). The moved-to commit, when the timeline names
    it, and what descends from it may have been seen; unnamed, a move within RUN_DELAY of the run
    leaves the head unknown, an older one is accounted for by the run."""
    other = "d" * 40
    forced = {"event": "head_ref_force_pushed", "created_at": "2026-09-29T09:59:58Z", "commit_id": other}
    found = seen([committed(A, "base"), forced, committed(B, other)], runs=RUNS[:1])
    assert found == HeadSeen(A, later=(other, B))
    assert seen([committed(A, "base"), {**forced, "commit_id": A}], runs=RUNS[:1]) == HeadSeen(A)
    unnamed = seen([committed(A, "base"), {**forced, "commit_id": None}], runs=RUNS[:1])
    assert unnamed.sha is None and "within 10 minutes before the newest workflow run" in unnamed.problem
    early = {"event": "head_ref_force_pushed", "created_at": "2026-09-29T09:00:00Z"}
    assert seen([early, committed(A, "base")], runs=RUNS[:1]) == HeadSeen(A)


def test_a_closed_prs_frozen_head_run_counts_only_while_the_branch_cannot_have_left_it():
    """Editing a closed PR that heads the same branch runs its workflows with its frozen head
    (red team 22): after a force-push past its closing, such a run does not show the branch."""
    from infx.trust import BranchPulls

    pulls = BranchPulls("carol/bump", ((7, "main", "2026-09-29T08:00:00Z", None),
                                       (9, "main", "2026-09-29T07:00:00Z", "2026-09-29T09:00:00Z")),
                        (), frozen=((9, B, "2026-09-29T09:00:00Z"),))
    runs = [run(1, A, "2026-09-29T08:30:00Z"), run(2, B, "2026-09-29T10:30:00Z")]

    def at(timeline):
        return head_seen(runs, "2026-09-29T11:00:00Z", branch="carol/bump", head_repo=REPO,
                         timeline=timeline, pr_number=7, pulls=pulls)
    plain = [committed(A, "base"), committed(B, A)]
    assert at(plain) == HeadSeen(B)  # only pushed forward since it closed: B's run stands
    forced = [*plain, moved("head_ref_force_pushed", "2026-09-29T09:30:00Z")]
    found = at(forced)
    assert found.sha is None and "force-pushed at 2026-09-29T09:30:00Z" in found.problem  # after A's run
    early = [*plain, moved("head_ref_force_pushed", "2026-09-29T08:10:00Z")]
    assert at(early).sha == B  # a move before it closed: the closed PR's head followed the branch
