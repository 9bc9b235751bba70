"""Red team 22c: a run on another, closed PR's frozen head (a0ff287, posted_head._frozen_head_run).

Sibling PR #9 heads the same branch as PR #7 and was closed with head S (BAD): editing it
runs its workflows with S. G is what the signer saw on PR #7.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from infx import trust
from infx.github.models import Comment, PullRequest, WorkflowRun
from infx.reuse.posted_head import HeadSeen, head_seen
from infx.signoff import evidence as ev
from infx.signoff.model import Evidence
from infx.signoff.pipeline import PUBLISHING

S, G, BASE = "5" * 40, "6" * 40, "0" * 40
REPO, BRANCH = "acme/inferencex", "carol/bump"


def run(i, sha, created, repo=REPO):
    return WorkflowRun(id=i, event="pull_request", status="completed", conclusion=None, head_sha=sha,
                       head_branch=BRANCH, created_at=created, head_repo=repo)


def committed(sha, *parents):
    return {"event": "committed", "sha": sha, "message": "change", "parents": [{"sha": p} for p in parents]}


def forced(when, commit=None):
    return {"event": "head_ref_force_pushed", "created_at": when, "commit_id": commit}


def pulls(this_opened, frozen):
    """PR #7 (open, opened `this_opened`) and sibling #9, closed: `frozen` = (head, closed_at)."""
    head, closed = frozen
    return trust.BranchPulls(BRANCH, ((7, "main", this_opened, None), (9, "main", "2026-09-29T07:00:00Z", closed)),
                             (), frozen=((9, head, closed),))


def seen(runs, timeline, branch_pulls, when="2026-09-29T11:00:00Z"):
    return head_seen(runs, when, branch=BRANCH, head_repo=REPO, timeline=timeline, pr_number=7,
                     pulls=branch_pulls)


def test_control_a_force_push_after_the_close_in_this_prs_timeline_drops_the_frozen_head_run():
    # the fixed attack (rt22 finding 3): #7 open since 08:00 on S, #9 closed 09:00 on S, #7
    # force-pushed to G at 09:30 (run 09:31), #9 edited at 10:30 (a run on S)
    runs = [run(1, S, "2026-09-29T08:00:00Z"), run(2, G, "2026-09-29T09:31:00Z"), run(3, S, "2026-09-29T10:30:00Z")]
    timeline = [committed(S, BASE), forced("2026-09-29T09:30:00Z", G), committed(G, BASE)]
    assert seen(runs, timeline, pulls("2026-09-29T08:00:00Z", (S, "2026-09-29T09:00:00Z"))) == HeadSeen(G)


@pytest.mark.xfail(strict=True, reason="rt22c: the branch's force-push before this PR was opened is in no "
                   "timeline read, so the closed sibling's frozen-head run counts as this PR's head")
def test_a_force_push_before_this_pr_opened_does_not_let_the_frozen_head_run_count():
    # #9 closed 09:00 on S; the branch force-pushed to G at 09:30 with no PR open (no timeline
    # records it); #7 opened on G at 10:00 (its run); #9 edited at 10:30: a run on S
    runs = [run(1, G, "2026-09-29T10:00:00Z"), run(2, S, "2026-09-29T10:30:00Z")]
    timeline = [committed(G, BASE)]
    found = seen(runs, timeline, pulls("2026-09-29T10:00:00Z", (S, "2026-09-29T09:00:00Z")))
    assert found.sha != S, found  # S was never this PR's head; G is what the signer saw


@pytest.mark.xfail(strict=True, reason="rt22c: reopening and closing the sibling again rewrites its frozen "
                   "head and closed_at, erasing the record that the run on S was its own")
def test_reopening_and_closing_the_sibling_again_does_not_let_its_old_frozen_head_run_count():
    # as the control, then after the sign-off #9 is reopened (head follows the branch, G) and
    # closed at 11:06: the listing now says #9 froze on G at 11:06; its 10:30 run on S remains
    runs = [run(1, S, "2026-09-29T08:00:00Z"), run(2, G, "2026-09-29T09:31:00Z"), run(3, S, "2026-09-29T10:30:00Z")]
    timeline = [committed(S, BASE), forced("2026-09-29T09:30:00Z", G), committed(G, BASE)]
    found = seen(runs, timeline, pulls("2026-09-29T08:00:00Z", (G, "2026-09-29T11:06:00Z")))
    assert found.sha != S, found


def test_unread_branch_pulls_leave_the_head_unknown():
    runs = [run(1, S, "2026-09-29T08:00:00Z"), run(2, G, "2026-09-29T09:31:00Z"), run(3, S, "2026-09-29T10:30:00Z")]
    timeline = [committed(S, BASE), forced("2026-09-29T09:30:00Z", G), committed(G, BASE)]
    found = seen(runs, timeline, None)
    assert found.sha is None, found


def test_an_honest_force_push_back_to_the_siblings_head_still_shows_it():
    # #7 open on S since 08:00, #9 (another base) closed 09:00 on S; #7 force-pushed to G by
    # mistake at 09:10 (run 09:11) and back to S at 09:20 (run 09:21); signed at 10:00 on S
    runs = [run(1, S, "2026-09-29T08:00:00Z"), run(2, G, "2026-09-29T09:11:00Z"), run(3, S, "2026-09-29T09:21:00Z")]
    timeline = [committed(S, BASE), forced("2026-09-29T09:10:00Z", G), committed(G, BASE),
                forced("2026-09-29T09:20:00Z", S)]
    found = seen(runs, timeline, pulls("2026-09-29T08:00:00Z", (S, "2026-09-29T09:00:00Z")),
                 when="2026-09-29T10:00:00Z")
    assert found.sha == S, found


class _Reader:
    def __init__(self):
        self.asked: list[tuple[str, str, int]] = []

    def head_pulls(self, owner, branch, number):
        self.asked.append((owner, branch, number))
        return [(7, "main", "2026-09-29T08:00:00Z", None), (9, "main", "2026-09-29T07:00:00Z",
                                                             "2026-09-29T09:00:00Z")], ((9, S, "2026-09-29T09:00:00Z"),)


@pytest.mark.xfail(strict=True, reason="rt22c: a fork PR's branch pulls list no frozen heads (the piece "
                   "returns before listing), so a closed sibling PR from the same fork branch is not seen")
def test_a_fork_prs_closed_sibling_on_the_same_fork_branch_is_listed():
    pr = PullRequest(number=7, state="open", base_ref="main", head_ref=BRANCH, head_sha=G, head_repo="carol/inferencex")
    evidence = Evidence(repo=REPO, default_branch="main", now=datetime(2026, 9, 29, 12, tzinfo=timezone.utc), pr=pr,
                        signoff=Comment(id=1, user="owner", body="", author_association="", created_at=""))
    evidence.timeline = [committed(G, BASE)]
    reader = _Reader()
    ev.PIECES["branch pulls"].read(reader, evidence, None)
    assert evidence.branch_pulls is not None
    assert reader.asked == [("carol", BRANCH, 7)] and evidence.branch_pulls.frozen == ((9, S, "2026-09-29T09:00:00Z"),)


def _closure(names):
    todo, done = list(names), set()
    while todo:
        name = todo.pop()
        if name not in done:
            done.add(name)
            todo.extend(ev.PIECES[name].after)
    return done


def test_the_binding_gathers_branch_pulls_before_it_reads_them():
    assert "branch pulls" in _closure(PUBLISHING)
