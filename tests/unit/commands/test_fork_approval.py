"""infx.commands.fork_approval: a maintainer approves a fork PR's exact head for a sweep (issue 22 point 5).

The truth table crosses every factor of the decision and compares it with a reading of the rule
written here from PRODUCT §4.4 and the issue, independently of the module."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import pytest

from infx.commands.authorization import Authority
from infx.commands.fork_approval import approval, approval_standing, newest_approval
from infx.commands.grammar import approve_sweep_shas
from infx.github.models import PullRequest
from infx.plan.labels import sweep_flags

REPO = "acme/inferencex"
FORK = "vendor/inferencex"
HEAD = "a" * 40
OLD = "b" * 40


@dataclass
class C:
    user: str
    body: str
    id: int = 7
    created_at: str = "2026-12-01T10:00:00Z"
    user_type: str = "User"
    author_association: str = "MEMBER"
    updated_at: str | None = None


def pull(**changes) -> PullRequest:
    base = PullRequest(number=12, state="open", draft=False, base_ref="main", head_sha=HEAD,
                    head_repo=FORK, labels=("full-sweep-fail-fast",))
    return replace(base, **changes)


def decide(comment, authority, pr=None, action="created"):
    return approval(comment, authority, pr or pull(), repo=REPO, default_branch="main", action=action)


# --- the truth table ----------------------------------------------------------------------------

AUTHORS = {  # name -> (login, user type, permission record as the collaborator API reports it)
    "admin": ("root", "User", {"permission": "admin", "role_name": "admin"}),
    "maintain": ("dave", "User", {"permission": "write", "role_name": "maintain"}),
    "write": ("alice", "User", {"permission": "write", "role_name": "write"}),
    "triage": ("tri", "User", {"permission": "read", "role_name": "triage"}),
    "read": ("bob", "User", {"permission": "read", "role_name": "read"}),
    "custom-role": ("cus", "User", {"permission": "write", "role_name": "release-manager"}),
    "bot-admin": ("infx-app[bot]", "Bot", {"permission": "admin", "role_name": "admin"}),
}
BODIES = {  # name -> (body, the commits a reader sees approved)
    "head": (f"/approve-sweep {HEAD}", [HEAD]),
    "head-with-prose": (f"Read the recipes; looks fine.\n\n/approve-sweep {HEAD}\n", [HEAD]),
    "old-head": (f"/approve-sweep {OLD}", [OLD]),
    "short-sha": (f"/approve-sweep {HEAD[:12]}", []),
    "upper-sha": (f"/approve-sweep {HEAD.upper()}", []),
    "two-shas": (f"/approve-sweep {OLD}\n\n/approve-sweep {HEAD}", [OLD, HEAD]),
    "same-twice": (f"/approve-sweep {HEAD}\n\n/approve-sweep {HEAD}", [HEAD]),
    "in-code": (f"```\n/approve-sweep {HEAD}\n```", []),
    "in-quote": (f"> /approve-sweep {HEAD}", []),
    "in-html-comment": (f"<!--\n/approve-sweep {HEAD}\n-->", []),
    "inline": (f"please /approve-sweep {HEAD}", []),
    "none": ("LGTM", []),
}
PULLS = {
    "fork": pull(),
    "closed": pull(state="closed"),
    "draft": pull(draft=True),
    "other-base": pull(base_ref="release"),
    "same-repo": pull(head_repo=REPO),
    "same-repo-case": pull(head_repo=REPO.upper()),
    "deleted-fork": pull(head_repo=None),
}
LABELS = {
    "full": ("full-sweep-fail-fast",),
    "trim+evals": ("sweep-enabled", "all-evals"),
    "none": (),
    "modifier-only": ("evals-only",),
    "two-primaries": ("full-sweep-enabled", "sweep-enabled"),
    "unrelated": ("documentation",),
}
ACTIONS = ("created", "edited", "deleted")


def expected(author: str, body: str, pr: str, labels: str, action: str) -> bool:
    """The rule in its own words: a new comment by a human maintain/admin naming exactly one
    commit, the current head of an open, non-draft fork PR into main with one primary label."""
    login, user_type, record = AUTHORS[author]
    shown = list(dict.fromkeys(BODIES[body][1]))
    p = PULLS[pr]
    primaries = [label for label in LABELS[labels] if label in (
        "full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled",
        "full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled")]
    return (action == "created" and user_type != "Bot" and not login.endswith("[bot]")
            and record["role_name"] in ("maintain", "admin")
            and shown == [HEAD]
            and p.state == "open" and not p.draft and p.base_ref == "main"
            and p.head_repo is not None and p.head_repo.lower() != REPO.lower()
            and len(primaries) == 1)


def test_the_grammar_sees_only_whole_shown_lines():
    for name, (body, shas) in BODIES.items():
        assert list(dict.fromkeys(approve_sweep_shas(body))) == shas, name


def test_truth_table():
    cases = 0
    for author, body, pr, labels, action in itertools.product(AUTHORS, BODIES, PULLS, LABELS, ACTIONS):
        login, user_type, record = AUTHORS[author]
        decided = decide(C(login, BODIES[body][0], user_type=user_type), record,
                         replace(PULLS[pr], labels=LABELS[labels]), action)
        want = expected(author, body, pr, labels, action)
        assert decided.approved is want, (author, body, pr, labels, action, decided.reason)
        assert decided.command is bool(BODIES[body][1]), (author, body)
        if want:
            assert decided.sha == HEAD and decided.approver == login and decided.comment_id == 7
            assert decided.flags == sweep_flags(LABELS[labels])
        else:
            assert decided.flags is None and decided.reason
        cases += 1
    assert cases == 7 * 12 * 7 * 6 * 3


# --- named cases: each refusal says why -------------------------------------------------------

MAINTAINER = {"permission": "write", "role_name": "maintain"}


@pytest.mark.parametrize(("comment", "authority", "pr", "action", "text"), [
    (C("alice", f"/approve-sweep {HEAD}"), {"permission": "write", "role_name": "write"}, pull(), "created",
     "needs the maintain or admin role; alice has write"),
    (C("ci[bot]", f"/approve-sweep {HEAD}", user_type="Bot"), "admin", pull(), "created", "bot account"),
    (C("dave", f"/approve-sweep {OLD}"), MAINTAINER, pull(), "created",
     f"names {OLD[:12]}, but the PR's head is {HEAD[:12]}: a push after an approval drops it"),
    (C("dave", f"/approve-sweep {HEAD}"), MAINTAINER, pull(), "edited", "only a new comment approves"),
    (C("dave", f"/approve-sweep {HEAD}"), MAINTAINER, pull(draft=True), "created", "drafts never sweep"),
    (C("dave", f"/approve-sweep {HEAD}"), MAINTAINER, pull(head_repo=REPO), "created",
     "its own run-sweep.yml run sweeps it"),
    (C("dave", f"/approve-sweep {HEAD}"), MAINTAINER, pull(labels=()), "created", "no primary sweep label"),
    (C("dave", f"/approve-sweep {HEAD}"), MAINTAINER, pull(labels=("full-sweep-enabled", "sweep-enabled")),
     "created", "multiple conflicting sweep labels"),
    (C("dave", f"/approve-sweep {OLD}\n\n/approve-sweep {HEAD}"), MAINTAINER, pull(), "created",
     "names 2 commits"),
])
def test_refusals_say_why(comment, authority, pr, action, text):
    decided = decide(comment, authority, pr, action)
    assert not decided.approved and text in decided.reason, decided.reason


def test_an_approval_carries_the_sweep_the_primary_label_asks_for():
    decided = decide(C("dave", f"/approve-sweep {HEAD}"), MAINTAINER,
                     pull(labels=("sweep-enabled", "all-evals", "documentation")))
    assert decided.approved and decided.flags.trim_conc and decided.flags.all_evals
    assert decided.reason == f"dave approved {HEAD[:12]} for a sweep-enabled sweep"


def test_permission_admin_is_elevated_whatever_the_role_name():
    assert decide(C("root", f"/approve-sweep {HEAD}"), Authority("admin", "admin")).approved
    assert decide(C("root", f"/approve-sweep {HEAD}"), "admin").approved
    assert not decide(C("x", f"/approve-sweep {HEAD}"), None).approved  # no record: no standing


# --- the newest approval, and a push dropping it ----------------------------------------------

ROLES = {"dave": MAINTAINER, "alice": {"permission": "write", "role_name": "write"}}


def test_a_push_after_the_approval_drops_it_until_the_new_head_is_approved():
    approved_old = C("dave", f"/approve-sweep {OLD}", id=1, created_at="2026-12-01T09:00:00Z")
    pushed = pull()  # the head moved from OLD to HEAD after the approval
    decided = newest_approval([approved_old], ROLES.get, pushed, repo=REPO, default_branch="main")
    assert not decided.approved and "a push after an approval drops it" in decided.reason
    assert approval_standing(OLD, HEAD) is not None and approval_standing(HEAD, HEAD) is None
    approved_new = C("dave", f"/approve-sweep {HEAD}", id=2, created_at="2026-12-01T11:00:00Z")
    decided = newest_approval([approved_old, approved_new], ROLES.get, pushed, repo=REPO, default_branch="main")
    assert decided.approved and decided.comment_id == 2


def test_the_newest_refusal_explains_when_nothing_approves():
    comments = [C("dave", f"/approve-sweep {OLD}", id=1, created_at="2026-12-01T09:00:00Z"),
                C("alice", f"/approve-sweep {HEAD}", id=2, created_at="2026-12-01T10:00:00Z"),
                C("bob", "LGTM", id=3, created_at="2026-12-01T11:00:00Z")]
    decided = newest_approval(comments, ROLES.get, pull(), repo=REPO, default_branch="main")
    assert not decided.approved and decided.comment_id == 2 and "alice has write" in decided.reason
    nothing = newest_approval(comments[2:], ROLES.get, pull(), repo=REPO, default_branch="main")
    assert not nothing.approved and not nothing.command


def test_permissions_are_read_once_per_author_and_an_unreadable_one_raises():
    calls: list[str] = []

    def permission_of(user):
        calls.append(user)
        return MAINTAINER

    comments = [C("dave", f"/approve-sweep {OLD}", id=i, created_at=f"2026-12-01T0{i}:00:00Z") for i in range(1, 4)]
    assert not newest_approval(comments, permission_of, pull(), repo=REPO, default_branch="main").approved
    assert calls == ["dave"]

    def unreadable(user):
        raise RuntimeError("HTTP 502")

    with pytest.raises(RuntimeError):
        newest_approval(comments, unreadable, pull(), repo=REPO, default_branch="main")
    outsider = [C("eve", f"/approve-sweep {HEAD}", author_association="NONE")]
    assert not newest_approval(outsider, unreadable, pull(), repo=REPO, default_branch="main").approved


def test_an_approval_edited_to_name_the_new_head_is_no_approval():
    """Anyone with write access may edit another's comment: a maintainer's old approval edited
    after a push to name the new head is an edit, never a new approval."""
    re_pointed = C("dave", f"/approve-sweep {HEAD}", id=1, created_at="2026-12-01T09:00:00Z",
                   updated_at="2026-12-01T12:00:00Z")
    decided = newest_approval([re_pointed], ROLES.get, pull(), repo=REPO, default_branch="main")
    assert not decided.approved
    unedited = C("dave", f"/approve-sweep {HEAD}", id=1, created_at="2026-12-01T09:00:00Z",
                 updated_at="2026-12-01T09:00:00Z")
    assert newest_approval([unedited], ROLES.get, pull(), repo=REPO, default_branch="main").approved
