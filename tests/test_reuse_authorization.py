"""infx.reuse.authorization: association AND repository permission, newest request first."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from infx.reuse.authorization import has_write_permission, newest_request, rejection_reason


@dataclass
class C:
    user: str
    author_association: str
    body: str
    created_at: str


PERMS = {"root": "admin", "alice": "write", "dave": "maintain", "bob": "read", "tri": "triage"}


def _perm(user: str) -> str:
    return PERMS.get(user, "none")


@pytest.mark.parametrize(("permission", "ok"), [("admin", True), ("maintain", True), ("write", True),
                                                ("triage", False), ("read", False), ("none", False),
                                                (None, False)])
def test_write_permission(permission, ok):
    assert has_write_permission(permission) is ok


def test_newest_request_needs_both_checks_and_looks_up_lazily():
    calls = []

    def perm(user):
        calls.append(user)
        return _perm(user)

    comments = [C("alice", "MEMBER", "/use 1", "2026-01-01T00:00:00Z"),
                C("bob", "COLLABORATOR", "/use 2", "2026-01-02T00:00:00Z"),
                C("carol", "CONTRIBUTOR", "/use 3", "2026-01-03T00:00:00Z")]
    found = newest_request(comments, perm)
    assert found.command.run_id == 1
    assert calls == ["bob", "alice"]  # the contributor is filtered before any lookup
    assert newest_request(comments[1:], perm) is None


def test_permission_is_cached_per_user():
    calls = []
    comments = [C("bob", "COLLABORATOR", "/use 1", "2026-01-01T00:00:00Z"),
                C("bob", "COLLABORATOR", "/use 2", "2026-01-02T00:00:00Z")]
    assert newest_request(comments, lambda u: calls.append(u) or "read") is None
    assert calls == ["bob"]


@pytest.mark.parametrize(("association", "permission", "body", "expected"), [
    ("OWNER", "admin", "/use 1", None),
    ("CONTRIBUTOR", "write", "/use 1", "OWNER, MEMBER, or COLLABORATOR"),
    ("COLLABORATOR", "read", "/use 1", "write, maintain or admin permission"),
    ("MEMBER", "write", "/use x", "no valid command line"),
])
def test_rejection_reason(association, permission, body, expected):
    reason = rejection_reason(association, permission, body)
    assert reason is None if expected is None else expected in reason
