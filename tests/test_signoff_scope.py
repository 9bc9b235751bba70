"""Scope: which changes need a sign-off at all (signoff.md §2.0)."""

from __future__ import annotations

import pytest

from infx.signoff import codeowners
from infx.signoff.scope import ScopeError, decide

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
