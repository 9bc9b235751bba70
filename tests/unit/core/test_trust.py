"""The one trust decision (infx/trust.py): the bot's own comments and statuses by identity only."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lib.signoff_policy_support import bare_evidence

from infx import trust
from infx.signoff import evidence as ev
from infx.signoff.model import Comment
from infx.signoff.pipeline import newest_verdict
from infx.signoff.render import HEADERS
from infx.signoff.verdict import Overall
from infx.trust import Identity

ROOT = Path(__file__).resolve().parents[3] / "infx"
MARKER = "codeowner-signoff-verify"
SHA = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
APP = Identity("infx-signoff[bot]", app=True)
ACTIONS = Identity("github-actions[bot]")


def comment(user: str, user_type: str = "Bot") -> Comment:
    return Comment(1, user, f"<!-- {MARKER} sha={SHA} evidence=abc -->\n{HEADERS[Overall.PASS]}",
                   "NONE", "2026-09-24T10:00:00Z", user_type=user_type)


def status(creator: object) -> dict:
    return {"state": "success", "context": MARKER, "creator": creator}


def test_an_app_recognises_only_its_own_login() -> None:
    assert trust.our_comment(APP, comment("infx-signoff[bot]"))
    assert trust.our_comment(APP, comment("INFX-Signoff[bot]"))  # logins compare case-insensitively
    assert not trust.our_comment(APP, comment("github-actions[bot]"))
    assert not trust.our_comment(APP, comment("infx-signoff"))
    assert trust.our_status(APP, status({"login": "infx-signoff[bot]", "type": "Bot"}))
    assert not trust.our_status(APP, status({"login": "github-actions[bot]", "type": "Bot"}))


def test_the_actions_token_is_its_shared_login() -> None:
    assert trust.our_comment(ACTIONS, comment("github-actions[bot]"))
    assert not trust.our_comment(ACTIONS, comment("infx-signoff[bot]"))
    assert not trust.our_comment(ACTIONS, comment("mallory", "User"))


@pytest.mark.parametrize("creator", [None, {}, {"login": None}, {"login": ""}, 7, ""])
def test_a_status_without_a_readable_creator_is_never_ours(creator: object) -> None:
    assert not trust.our_status(ACTIONS, status(creator))
    assert not trust.our_status(ACTIONS, {"state": "success"})


def test_an_empty_identity_recognises_nothing() -> None:
    nobody = Identity("")
    assert not trust.our_comment(nobody, comment(""))
    assert not trust.our_status(nobody, status({"login": ""}))


def test_an_app_cannot_claim_the_shared_actions_login() -> None:
    with pytest.raises(ValueError, match="github-actions"):
        Identity("github-actions[bot]", app=True)


LOGINS = st.sampled_from(["github-actions[bot]", "infx-signoff[bot]", "INFX-SIGNOFF[bot]",
                          "other-app[bot]", "mallory", "chunfangamd", ""])


@settings(max_examples=200, deadline=None)
@given(login=LOGINS, app=st.booleans(), author=LOGINS, creator=LOGINS)
def test_every_consumer_gets_the_trust_modules_answer(login, app, author, creator) -> None:
    """Whatever the identity, author and creator: the verdict reader, the digest and the
    status reader answer exactly what trust.our_comment / our_status decide."""
    if app and login == "github-actions[bot]":
        return
    identity = Identity(login, app=app)
    item = comment(author)
    ours = trust.our_comment(identity, item)
    assert ours == (bool(login) and author.lower() == login.lower())
    assert ev.is_verdict(item, MARKER, identity) is ours
    # the head status reads the newest verdict of the bot's own only
    assert (newest_verdict([item], MARKER, identity) is item) is ours
    # the evidence digest leaves out exactly the bot's own verdicts
    plain = bare_evidence(comments=[])
    assert (ev.digest(replace(plain, comments=[item]), MARKER, identity)
            == ev.digest(plain, MARKER, identity)) is ours
    if app:
        assert not (ours and author == "github-actions[bot]")
    made = status({"login": creator, "type": "Bot"})
    assert trust.our_status(identity, made) == (bool(login) and creator.lower() == login.lower())


def test_no_module_but_the_trust_module_reads_a_status_creator() -> None:
    """One decision, one place: a status's `creator` is read only in infx/trust.py (the fake
    server, which plays GitHub, writes it)."""
    reader = re.compile(r"""["']creator["']""")
    offenders = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                       if reader.search(p.read_text(encoding="utf-8"))
                       and p.name != "trust.py" and "fake" not in p.parts)
    assert offenders == []


# --- which base a pull_request run ran the workflow files of (trust.base_problem) -------------

def _pr_run(**fields):
    from infx.github.models import WorkflowRun

    return WorkflowRun(**{"id": 1, "path": ".github/workflows/run-sweep.yml", "event": "pull_request",
                          "head_sha": "a" * 40, "head_branch": "feature", "head_repo": "acme/inferencex",
                          "created_at": "2026-09-23T13:00:00Z", **fields})


def _pulls(*pulls, retargets=()):
    from infx.trust import BranchPulls

    return BranchPulls("feature", tuple(pulls), tuple(retargets))


@pytest.mark.parametrize("pulls, why", [
    (None, "could not be read"),
    (_pulls((12, "main", "2026-09-01T00:00:00Z", None)), None),
    # another PR from the branch into a side base, open when the run was created
    (_pulls((12, "main", "2026-09-01T00:00:00Z", None), (13, "scratch", "2026-09-23T12:30:00Z",
                                                        "2026-09-23T14:00:00Z")),
     "while PR #13 from the same branch into scratch was open"),
    (_pulls((13, "scratch", "2026-09-23T12:30:00Z", None)), "PR #13"),
    (_pulls((13, "scratch", "not a time", None)), "PR #13"),
    # closed before the run, or opened after it: not the run's PR
    (_pulls((13, "scratch", "2026-09-20T00:00:00Z", "2026-09-21T00:00:00Z")), None),
    (_pulls((13, "scratch", "2026-09-24T00:00:00Z", None)), None),
    # retargeted after the run was created (or at an unrecorded time); before it: fine
    (_pulls(retargets=("2026-09-23T14:00:00Z",)), "base was changed at 2026-09-23T14:00:00Z"),
    (_pulls(retargets=("",)), "base was changed at an unrecorded time"),
    (_pulls(retargets=("2026-09-22T00:00:00Z",)), None),
])
def test_a_pull_request_run_must_have_run_for_a_pr_into_the_default_branch(pulls, why) -> None:
    from infx.trust import base_problem

    found = base_problem(_pr_run(), pulls, default_branch="main")
    assert (found is None) if why is None else (why in found)


def test_base_problem_asks_only_pull_request_runs_and_their_own_branch() -> None:
    from infx.trust import base_problem, our_run

    assert base_problem(_pr_run(event="push", head_branch="main"), None, default_branch="main") is None
    assert "not this PR's head branch feature" in base_problem(_pr_run(head_branch="other"), _pulls(),
                                                               default_branch="main")
    assert "created is not recorded" in base_problem(_pr_run(created_at=""), _pulls(), default_branch="main")
    tree = {".github/workflows/run-sweep.yml": "name: Run Sweep\non: pull_request\njobs: {}\n"}
    kwargs = {"repo": "acme/inferencex", "default_branch": "main", "run_tree": tree, "default_tree": tree}
    assert our_run(_pr_run(), **kwargs) is None  # callers that pass no pulls are not asked
    assert "PR #13" in our_run(_pr_run(), **kwargs, pulls=_pulls((13, "scratch", "2026-09-23T12:00:00Z", None)))
