"""infx.commands.authorization: repository permission (not the author association), never a bot, newest request first."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from infx.commands.authorization import (
    Authority,
    has_write_permission,
    is_bot,
    newest_request,
    rejection_reason,
)


@dataclass
class C:
    user: str
    author_association: str
    body: str
    created_at: str
    user_type: str = "User"


PERMS = {"root": "admin", "alice": "write", "dave": "maintain", "bob": "read", "tri": "triage"}


def _perm(user: str) -> str:
    return PERMS.get(user, "none")


@pytest.mark.parametrize(("permission", "ok"), [("admin", True), ("maintain", True), ("write", True),
                                                ("triage", False), ("read", False), ("none", False),
                                                (None, False)])
def test_write_permission(permission, ok):
    assert has_write_permission(permission) is ok


def test_newest_request_reads_each_authors_permission_lazily_whatever_the_association():
    calls = []

    def perm(user):
        calls.append(user)
        return _perm(user)

    comments = [C("alice", "MEMBER", "/use 1", "2026-01-01T00:00:00Z"),
                C("bob", "COLLABORATOR", "/use 2", "2026-01-02T00:00:00Z"),
                C("carol", "CONTRIBUTOR", "/use 3", "2026-01-03T00:00:00Z")]
    found = newest_request(comments, perm)
    assert found.command.run_id == 1
    assert calls == ["carol", "bob", "alice"]  # the association decides nothing while the API answers
    assert newest_request(comments[1:], perm) is None
    PERMS["carol"] = "write"  # a member whose organisation membership is private shows as CONTRIBUTOR
    try:
        assert newest_request(comments, perm).command.run_id == 3
    finally:
        del PERMS["carol"]


class Unreadable(Exception):
    pass


def _unreadable(user):
    raise Unreadable(user)


@pytest.mark.parametrize("association", ["NONE", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN"])
def test_an_outsiders_association_rules_out_a_comment_whose_permission_cannot_be_read(association):
    comments = [C("alice", "MEMBER", "/use 1", "2026-01-01T00:00:00Z"),
                C("eve", association, "/use 2", "2026-01-02T00:00:00Z")]
    assert newest_request(comments, lambda u: _unreadable(u) if u == "eve" else "write").command.run_id == 1


@pytest.mark.parametrize("association", ["OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR"])
def test_anyone_else_whose_permission_cannot_be_read_is_an_error_not_a_guess(association):
    comments = [C("alice", "MEMBER", "/use 1", "2026-01-01T00:00:00Z"),
                C("pat", association, "/use 2", "2026-01-02T00:00:00Z")]
    with pytest.raises(Unreadable):
        newest_request(comments, lambda u: _unreadable(u) if u == "pat" else "write")


def test_permission_is_cached_per_user():
    calls = []
    comments = [C("bob", "COLLABORATOR", "/use 1", "2026-01-01T00:00:00Z"),
                C("bob", "COLLABORATOR", "/use 2", "2026-01-02T00:00:00Z")]
    assert newest_request(comments, lambda u: calls.append(u) or "read") is None
    assert calls == ["bob"]


@pytest.mark.parametrize(("user", "association", "permission", "body", "expected"), [
    ("root", "OWNER", "admin", "/use 1", None),
    ("carol", "CONTRIBUTOR", "write", "/use 1", None),  # e.g. a private organisation member
    ("carol", "NONE", "none", "/use 1", "write, maintain or admin permission"),
    ("bob", "COLLABORATOR", "read", "/use 1", "write, maintain or admin permission"),
    ("bob", "MEMBER", "read", "/use 1", "write, maintain or admin permission"),
    ("alice", "MEMBER", "write", "/use x", "no valid command line"),
    ("alice", "MEMBER", "write", "<!--\n/use 1\n-->", "no valid command line"),
    ("ci-helper[bot]", "MEMBER", "admin", "/use 1", "bot account"),
])
def test_rejection_reason(user, association, permission, body, expected):
    reason = rejection_reason(C(user, association, body, "2026-01-01T00:00:00Z"), permission)
    assert reason is None if expected is None else expected in reason


@pytest.mark.parametrize(("login", "user_type", "bot"), [
    ("dependabot[bot]", "Bot", True), ("renovate[BOT]", "", True), ("helper", "Bot", True),
    ("alice", "User", False), ("bot", "User", False), ("robot-[bot]x", "User", False)])
def test_bots(login, user_type, bot):
    assert is_bot(login, user_type) is bot


def test_a_bot_never_authorizes_even_with_admin_permission():
    calls = []
    comments = [C("alice", "MEMBER", "/use 1", "2026-01-01T00:00:00Z"),
                C("helper", "MEMBER", "/use 2", "2026-01-02T00:00:00Z", user_type="Bot"),
                C("merge-queue[bot]", "COLLABORATOR", "/use 3", "2026-01-03T00:00:00Z")]
    found = newest_request(comments, lambda u: calls.append(u) or "admin")
    assert found.command.run_id == 1 and calls == ["alice"]
    assert newest_request(comments[1:], lambda u: "admin") is None


@pytest.mark.parametrize(("record", "write", "elevated"), [
    ({"permission": "write", "role_name": "maintain"}, True, True),  # GitHub's maintain
    ({"permission": "write", "role_name": "write"}, True, False),
    ({"permission": "admin", "role_name": "admin"}, True, True),
    ({"permission": "read", "role_name": "triage"}, False, False),
    ({"permission": "write", "role_name": "release-manager"}, True, False),  # custom role
    ({"permission": "admin"}, True, True), (None, False, False), ("maintain", True, True),
])
def test_authority_from_the_permission_api(record, write, elevated):
    authority = Authority.of(record)
    assert authority.can_write is write and authority.elevated is elevated


def test_the_winner_carries_its_authority():
    comments = [C("dave", "MEMBER", "/use 1", "2026-01-01T00:00:00Z")]
    found = newest_request(comments, lambda u: {"permission": "write", "role_name": "maintain"})
    assert found.authority == Authority("write", "maintain") and found.authority.elevated


def test_authority_of_every_record_shape():
    """The client's Permission object, a mapping, a string (any case), None and an Authority."""
    from types import SimpleNamespace

    assert Authority.of(None) == Authority("none", "none")
    same = Authority("write", "maintain")
    assert Authority.of(same) is same
    assert Authority.of("Admin") == Authority("admin", "admin")
    assert Authority.of(SimpleNamespace(permission="WRITE", role_name="Maintain")) == same
    assert Authority.of({"role_name": "triage"}) == Authority("none", "triage")
    assert Authority.of({}) == Authority("none", "none")
    assert Authority.of({"permission": "Write", "role_name": "MAINTAIN"}).elevated


def test_elevation_reads_role_name_and_an_admin_permission():
    assert Authority("write", "admin").elevated and Authority("admin", "custom").elevated
    assert not Authority("write", "write").elevated


def test_write_permission_from_records_and_any_case():
    assert has_write_permission("WRITE") and has_write_permission("Maintain")
    assert has_write_permission({"permission": "write", "role_name": "write"})
    assert has_write_permission(Authority("read", "maintain"))
    assert not has_write_permission({"permission": "read", "role_name": "triage"})


def test_rejection_reason_reads_mappings_and_the_user_type():
    comment = {"user": "renovate", "user_type": "Bot", "author_association": "MEMBER", "body": "/use 1"}
    assert rejection_reason(comment, "admin") == "Reuse cannot be authorized by a bot account."
    assert rejection_reason(comment | {"user_type": "User"}, "admin") is None
    assert rejection_reason(C("renovate", "MEMBER", "/use 1", "2026-01-01T00:00:00Z", "Bot"),
                            "admin") == "Reuse cannot be authorized by a bot account."
