"""Red team 22: infx.reuse.posted_head (ef40d4a) over plain data: odd and large timelines, and
the sign-off's binding.decide when more commits came after the run's head than are compared."""

from __future__ import annotations

import pytest

from infx.github.models import WorkflowRun
from infx.reuse.posted_head import (
    MAX_LATER_HEADS,
    HeadSeen,
    binding_problem,
    descendants,
    head_seen,
    too_many_later,
)
from infx.signoff.trigger import binding

S, H = "5" * 40, "e" * 40
REPO, BRANCH = "acme/inferencex", "carol/bump"
RUN = WorkflowRun(id=1, event="pull_request", status="completed", conclusion=None, head_sha=S,
                  head_branch=BRANCH, created_at="2026-09-29T10:00:00Z", head_repo=REPO)


def sha(i: int) -> str:
    return f"{i:040x}"


def committed(commit, *parents, **extra):
    return {"event": "committed", "sha": commit, "parents": [{"sha": p} for p in parents], **extra}


def seen(timeline, when="2026-09-29T11:00:00Z"):
    return head_seen([RUN], when, branch=BRANCH, head_repo=REPO, timeline=timeline)


# --- finding: the sign-off's crowd verdict forgets the crowd ---------------------------------------

def test_decide_keeps_the_later_commits_when_there_are_too_many_to_compare():
    chain = [sha(i + 1) for i in range(MAX_LATER_HEADS + 1)]
    timeline = [committed(S, "base")] + [committed(c, p) for p, c in zip([S, *chain], chain, strict=False)]
    found = binding.decide(posted_at="2026-09-29T11:00:00Z", runs=[RUN], head=H, head_ref=BRANCH,
                           head_repo=REPO, head_files=[], signed_files=None, timeline=timeline)
    assert not found.covered and "more than the 8 compared" in found.reason
    # a caller that goes on when `later` is empty (pipeline._binding) must see them, or no `seen`
    assert found.later == tuple(chain) or found.seen is None


# --- performance: the fixpoint is quadratic in a timeline the author orders ------------------------

def test_descendants_of_a_long_back_dated_chain_is_linear():
    """A chain listed child-first (back-dated author dates) is one walk, not one pass per commit
    (the fixpoint it replaced took ~9 s for 6,000 commits; speed is bench material, so this
    checks only the answer on a chain long enough to notice)."""
    n = 3000
    shas = [sha(i) for i in range(n + 1)]
    timeline = [committed(shas[i], shas[i - 1]) for i in range(n, 0, -1)]  # newest first
    assert descendants(timeline, shas[0]) == tuple(reversed(shas[1:]))
    assert descendants(timeline, shas[n // 2]) == tuple(reversed(shas[n // 2 + 1:]))


def test_control_a_long_chain_in_date_order():
    n = 5000
    shas = [sha(i) for i in range(n + 1)]
    timeline = [committed(shas[i], shas[i - 1]) for i in range(1, n + 1)]
    assert descendants(timeline, shas[0]) == tuple(shas[1:])


# --- odd timeline data: no crash, and unknown parents fail closed --------------------------------

ODD_PARENTS = [None, "not a list", [None], [{"sha": 5}], [{}], [""], [{"sha": S}, None], 7]


@pytest.mark.parametrize("parents", ODD_PARENTS)
def test_control_a_commit_with_unusable_parents_counts_as_later(parents):
    timeline = [committed(S, "base"), {"event": "committed", "sha": H, "parents": parents}]
    assert seen(timeline) == HeadSeen(S, later=(H,))


def test_control_cycles_and_self_parents_terminate():
    a, b, c = sha(1), sha(2), sha(3)
    # a cycle not reached from S is not later; one reached from it is, once
    assert descendants([committed(a, b), committed(b, a), committed(c, c)], S) == ()
    assert descendants([committed(a, S, b), committed(b, a)], S) == (a, b)
    # S listed as its own descendant (or twice) is never a later commit
    assert descendants([committed(S, S), committed(S, "base"), committed(a, S)], S) == (a,)


def test_control_duplicate_events_list_a_commit_once():
    a = sha(1)
    assert descendants([committed(a, S), committed(a, S), committed(S, "base")], S) == (a,)


def test_control_junk_events_are_ignored_without_a_crash():
    junk = [None, "committed", 3, [], {"event": "committed"}, {"event": "committed", "sha": None},
            {"event": "committed", "sha": 5, "parents": [S]}, {"sha": sha(9), "parents": [S]},
            {"event": "head_ref_force_pushed", "created_at": "2026-09-29T09:00:00Z"}]
    assert seen([committed(S, "base"), *junk]) == HeadSeen(S)


def test_control_main_commits_listed_in_the_timeline_are_not_later():
    """A plain merge of the default branch: were main's own commits listed, they do not descend
    from S; only the merge does."""
    main1, main2, merge = sha(1), sha(2), sha(3)
    timeline = [committed(main1, "base"), committed(S, "base"), committed(main2, main1),
                committed(merge, S, main2)]
    assert seen(timeline) == HeadSeen(S, later=(merge,))


def test_control_the_limit_counts_distinct_commits_besides_the_head():
    later = tuple(sha(i) for i in range(MAX_LATER_HEADS)) + (H,)
    assert too_many_later(later + later, H) is None  # 8 distinct besides the head
    assert too_many_later((*later, sha(99)), H) is not None
    # binding_problem compares each once: duplicates and the head itself read no tree
    reads: list[str] = []

    def tree(commit):
        reads.append(commit)
        return {"README.md": "x"}

    assert binding_problem(comment_ref="/reuse-sweep-run (comment 7 by root)", seen=S, head=H,
                           pr_commits=(S, H, sha(1)), base="base", tree=tree,
                           later=(sha(1), H, sha(1))) is None
    assert reads.count(S) == 1 and reads.count(sha(1)) == 1  # the head and base are read per candidate


def test_cost_nine_later_commits_refuse_a_reuse_even_when_each_is_harmless():
    """Honest cost, by design: nine doc-only commits pushed one by one after a command (each
    with its own run after it) need a new command: none is compared. Pinned here so a
    change of MAX_LATER_HEADS is a decision, not an accident."""
    chain = [sha(i + 1) for i in range(MAX_LATER_HEADS + 2)]  # nine besides the head
    timeline = [committed(S, "base")] + [committed(c, p) for p, c in zip([S, *chain], chain, strict=False)]
    found = seen(timeline)
    assert found.later == tuple(chain)
    problem = binding_problem(comment_ref="/reuse-sweep-run (comment 7 by root)", seen=found.sha,
                              head=chain[-1], pr_commits=(S, *chain), base="base",
                              tree=lambda _: {"README.md": "x"}, later=found.later)
    assert problem is not None and "more than the 8 compared" in problem
