"""Red team 22b: head moves before the newest run (posted_head.head_seen, commit 9c94196).

A head move (force-push, deletion, restoration) at or before the newest pull_request run's
creation may have followed the push that run records: its named commit (`commit_id`) and that
commit's descendants are added to the heads the commenter may have seen; unnamed, a move
within RUN_DELAY of the run leaves the head unknown.
"""

from __future__ import annotations

from infx.github.models import WorkflowRun
from infx.reuse.posted_head import MAX_LATER_HEADS, RUN_DELAY, HeadSeen, binding_problem, head_seen
from infx.signoff.trigger.binding import decide

X, S, Y, Z = "1" * 40, "2" * 40, "3" * 40, "4" * 40
BRANCH, REPO = "carol/bump", "acme/inferencex"
ENTRY = "- config-keys: [k]\n  description: [{}]\n  pr-link: XXX\n"


def run(i: int, sha: str, created: str) -> WorkflowRun:
    return WorkflowRun(id=i, event="pull_request", status="completed", conclusion="success", head_sha=sha,
                       head_branch=BRANCH, created_at=created, head_repo=REPO)


def committed(sha: str, *parents: str) -> dict:
    return {"event": "committed", "sha": sha, "message": "change", "parents": [{"sha": p} for p in parents]}


def move(kind: str, when: str, commit: str | None = None) -> dict:
    return {"event": kind, "created_at": when, "commit_id": commit}


def seen(timeline: list, runs: list, when: str = "2026-09-29T12:00:00Z") -> HeadSeen:
    return head_seen(runs, when, branch=BRANCH, head_repo=REPO, timeline=timeline)


# --- finding: an old, named force-push adds its (ancestor) commit forever ---------------------

REBASED = [committed(X, "base"), move("head_ref_force_pushed", "2026-09-28T08:00:00Z", X), committed(S, X)]
REBASED_RUNS = [run(1, X, "2026-09-28T08:00:05Z"), run(2, S, "2026-09-29T10:00:00Z")]


def test_an_old_rebase_does_not_make_its_commit_a_possible_head():
    assert seen(REBASED, REBASED_RUNS) == HeadSeen(S)


def test_an_old_rebase_does_not_refuse_a_command_on_the_current_content():
    found = seen(REBASED, REBASED_RUNS)
    trees = {X: {"perf-changelog.yaml": ENTRY.format("one")}, S: {"perf-changelog.yaml": ENTRY.format("two")},
             "base": {}}
    assert binding_problem(comment_ref="/reuse-sweep-run (comment 7)", seen=found.sha, head=S,
                           pr_commits=(X, S), base="base", tree=trees.__getitem__, later=found.later) is None


def test_an_old_rebase_then_many_pushes_still_binds_a_signoff_on_the_head():
    chain = [f"{i:x}" * 40 for i in range(5, 5 + MAX_LATER_HEADS + 1)]
    timeline = [committed(X, "base"), move("head_ref_force_pushed", "2026-09-28T08:00:00Z", X)]
    parent = X
    for sha in chain:
        timeline.append(committed(sha, parent))
        parent = sha
    head = chain[-1]
    runs = [run(1, X, "2026-09-28T08:00:05Z"), run(2, head, "2026-09-29T10:00:00Z")]
    binding = decide(posted_at="2026-09-29T12:00:00Z", runs=runs, head=head, head_ref=BRANCH,
                     head_repo=REPO, head_files=[], signed_files=[], timeline=timeline)
    assert binding.covered, binding.reason


# --- controls (checked: blocked) ---------------------------------------------------------------

def test_control_a_move_exactly_run_delay_before_the_run_leaves_the_head_unknown():
    runs = [run(1, S, "2026-09-29T10:00:00Z")]
    at = seen([committed(S, "base"), move("head_ref_force_pushed", "2026-09-29T09:50:00Z")], runs)
    assert RUN_DELAY.total_seconds() == 600 and at.sha is None and "within 10 minutes" in at.problem
    older = seen([committed(S, "base"), move("head_ref_force_pushed", "2026-09-29T09:49:59Z")], runs)
    assert older == HeadSeen(S)


def test_control_offset_timestamps_are_compared_as_instants():
    runs = [run(1, S, "2026-09-29T10:00:00Z")]
    # 11:55+02:00 is 09:55Z: five minutes before the run, not an hour and a half after it
    near = seen([committed(S, "base"), move("head_ref_restored", "2026-09-29T11:55:00+02:00")], runs)
    assert near.sha is None and "within 10 minutes" in near.problem
    # 10:05-01:00 is 11:05Z: after the run
    after = seen([committed(S, "base"), move("head_ref_force_pushed", "2026-09-29T10:05:00-01:00", S)], runs)
    assert after.sha is None and "after the newest workflow run" in after.problem


def test_control_several_moves_the_newest_decides_and_unnamed_newest_is_unknown():
    runs = [run(1, S, "2026-09-29T10:00:00Z")]
    # named first, then an unnamed restore within RUN_DELAY: unknown
    tl = [committed(S, "base"), committed(Y, "base"), move("head_ref_force_pushed", "2026-09-29T09:55:00Z", Y),
          move("head_ref_deleted", "2026-09-29T09:56:00Z"), move("head_ref_restored", "2026-09-29T09:57:00Z")]
    assert seen(tl, runs).sha is None
    # listed out of order: the newest by time decides, not the listing's last
    shuffled = [tl[0], tl[1], tl[4], tl[3], tl[2]]
    assert seen(shuffled, runs).sha is None
    # force-pushed to Y, then to Z: both named, Z (newest) and what descends from it are added
    tl2 = [committed(S, "base"), committed(Z, "base"), committed(Y, Z),
           move("head_ref_force_pushed", "2026-09-29T09:58:00Z", Y),
           move("head_ref_force_pushed", "2026-09-29T09:59:00Z", Z)]
    assert seen(tl2, runs) == HeadSeen(S, later=(Z, Y))


def test_control_a_named_commit_outside_the_pr_fails_closed():
    runs = [run(1, S, "2026-09-29T10:00:00Z")]
    found = seen([committed(S, "base"), move("head_ref_force_pushed", "2026-09-29T09:59:00Z", Y)], runs)
    assert found == HeadSeen(S, later=(Y,))
    trees = {S: {"perf-changelog.yaml": ENTRY.format("one")}, "base": {}}
    problem = binding_problem(comment_ref="/use 5 (comment 7)", seen=found.sha, head=S, pr_commits=(S,),
                              base="base", tree=trees.__getitem__, later=found.later)
    assert problem and "no longer part of the PR" in problem


def test_control_commit_ids_of_other_events_are_not_moves():
    """`referenced`, `merged` and other events carry a commit_id too: none of them moves the head."""
    runs = [run(1, S, "2026-09-29T10:00:00Z")]
    tl = [committed(S, "base"), {"event": "referenced", "created_at": "2026-09-29T09:59:00Z", "commit_id": Y},
          {"event": "head_ref_force_pushed", "created_at": "2026-09-29T08:00:00Z", "commit_id": None}]
    assert seen(tl, runs) == HeadSeen(S)
