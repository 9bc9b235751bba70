"""Scope: which changes need a sign-off at all (signoff.md §2.0)."""

from __future__ import annotations

import pytest

from infx.signoff.trigger import codeowners
from infx.signoff.trigger.scope import ScopeError, candidate_owners, decide, is_user, target_problem

OWNERS = codeowners.parse("""* @org/core
configs/amd-master.yaml @alice @bob
configs/nvidia-master.yaml @org/core @root
docs/ @org/docs
data/ owners@example.com
""")
PERMS = {"alice": {"permission": "write", "role_name": "write"},
         "bob": {"permission": "write", "role_name": "write"},
         "root": {"permission": "admin", "role_name": "admin"}}


def lookup(calls: list):
    def permission_of(login):
        calls.append(login)
        return PERMS.get(login)
    return permission_of


def test_g1_catch_all_only_changes_need_no_signoff() -> None:
    scope = decide(OWNERS, ["utils/foo.py", "README.md"], "org/core", lookup([]))
    assert not scope.required and scope.reason.startswith("No sign-off needed")


def test_admins_and_core_are_exempt_but_not_others_on_the_line() -> None:
    assert not decide(OWNERS, ["configs/nvidia-master.yaml"], "org/core", lookup([])).required
    assert decide(OWNERS, ["configs/amd-master.yaml"], "org/core", lookup([])).required


def test_teams_and_emails_always_need_a_signoff() -> None:
    calls: list = []
    assert decide(OWNERS, ["docs/a.md"], "org/core", lookup(calls)).owners == ("@org/docs",)
    assert decide(OWNERS, ["data/x.csv"], "org/core", lookup(calls)).required
    assert calls == []


def test_known_permissions_are_used_first() -> None:
    calls: list = []
    scope = decide(OWNERS, ["configs/amd-master.yaml"], "org/core", lookup(calls), frozenset({"bob"}))
    assert scope.owners == ("@bob",) and calls == ["bob"]


def test_core_team_comparison_is_case_insensitive() -> None:
    parsed = codeowners.parse("* @Org/Core\n")
    assert not decide(parsed, ["x.py"], "org/core", lookup([])).required


def test_codeowners_errors_fail_closed() -> None:
    broken = codeowners.parse("* @org/core\n[ab] @x\n")
    with pytest.raises(ScopeError, match="line 2"):
        decide(broken, ["x"], "org/core", lookup([]))


def test_candidates_are_the_winning_owners_once_each_in_first_seen_order() -> None:
    """GitHub compares logins case-insensitively: `@Alice` and `@alice` are one owner, kept as
    first spelled; the core team is left out however it is spelled."""
    parsed = codeowners.parse("a.txt @alice @Org/Core\nb.txt @Alice @org/core @bob\n")
    assert candidate_owners(parsed, ["a.txt", "b.txt"], "org/core") == ["@alice", "@bob"]
    assert candidate_owners(parsed, ["b.txt", "a.txt"], "Org/Core") == ["@Alice", "@bob"]
    assert candidate_owners(parsed, ["c.txt"], "org/core") == []


def test_only_an_at_login_without_a_slash_is_a_user() -> None:
    assert is_user("@alice")
    for owner in ("@org/docs", "owners@example.com", "alice@"):
        assert not is_user(owner), owner


def test_an_admin_needs_the_admin_role_not_only_admin_permission() -> None:
    """A custom role can carry admin permission; only the admin role is exempt."""
    parsed = codeowners.parse("* @org/core\nconfigs/ @root\n")
    perms = {"root": {"permission": "admin", "role_name": "org-security"}}
    scope = decide(parsed, ["configs/x.yaml"], "org/core", perms.get)
    assert scope.required and scope.reason == "@root owns a changed file and is not a repository admin"
    assert decide(parsed, ["configs/x.yaml"], "org/core", lambda login: None).required
    assert not decide(parsed, ["configs/x.yaml"], "org/core", PERMS.get).required


def test_known_logins_go_first_whatever_their_case_in_codeowners() -> None:
    parsed = codeowners.parse("configs/ @Alice @Bob\n")
    calls: list = []
    scope = decide(parsed, ["configs/x.yaml"], "org/core", lookup(calls), frozenset({"bob"}))
    assert scope.owners == ("@Bob",) and calls == ["Bob"]


def test_the_first_codeowners_error_is_named() -> None:
    broken = codeowners.parse("* @org/core\n[ab] @x\ndocs/ @y\n!keep @z\n")
    assert len(broken.errors) >= 2
    with pytest.raises(ScopeError, match=f"^CODEOWNERS line {broken.errors[0].line}: "):
        decide(broken, ["x"], "org/core", lookup([]))
    assert broken.errors[0].line != broken.errors[-1].line


def test_only_a_pr_into_the_default_branch_is_in_scope() -> None:
    assert target_problem("main", "main", "are verified") is None
    assert target_problem("release-1", "main", "are verified") == (
        "the PR targets release-1, not the default branch main; only PRs into the default branch "
        "are verified")
    assert target_problem("", "main", "get this status") == (
        "the PR targets an unknown branch, not the default branch main; only PRs into the default "
        "branch get this status")
    # GitHub's answer without the default branch: nothing is in scope
    assert target_problem("main", None, "x") == ("the PR targets main, not the default branch (unknown); "
                                                 "only PRs into the default branch x")
    assert target_problem("", "", "x") is not None
