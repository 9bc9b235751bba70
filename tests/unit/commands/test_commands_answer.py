"""infx.commands.answer and infx.commands.status through the fake GitHub: `/help` is one upserted
comment, a near-miss a 😕 with the suggestion, and a 👎 is followed by its reason in the one
status comment of its command kind (also end to end through `infx reuse ack|retest|answer`)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from lib.reuse_world import add_comment, base_world, pr

from infx.cli import main
from infx.commands.answer import answer
from infx.commands.registry import HELP_MARKER_NAME, help_body
from infx.commands.status import STATUS_MARKER_NAME, post_status, status_body
from infx.github.markers import has_marker
from infx.reuse.ack import CommentEvent

REPO = "acme/inferencex"
BOT = "github-actions[bot]"
T1 = "2026-09-29T18:00:00Z"


def _event(world, comment_id: int, action: str = "created") -> CommentEvent:
    comment = next(c for c in pr(world)["comments"] if c["id"] == comment_id)
    return CommentEvent.of(action, 12, True, comment_id, comment["body"], comment["updated_at"],
                        f"https://github.com/{REPO}/pull/12#issuecomment-{comment_id}")


def _comments(fake, marker: str) -> list[dict]:
    return [c for c in pr(fake.world)["comments"] if has_marker(c["body"], marker)]


def _reactions(fake, comment_id: int) -> list[tuple[str, str]]:
    comment = next(c for c in pr(fake.world)["comments"] if c["id"] == comment_id)
    return sorted((r["user"], r["content"]) for r in comment.get("reactions", []))


def test_help_is_answered_with_one_upserted_comment(fake_github):
    world = base_world()
    first = add_comment(world, "carol", "CONTRIBUTOR", "How do I rerun?\n\n/help", T1)
    second = add_comment(world, "dave", "NONE", "/help", T1)
    fake = fake_github(world)
    client = fake.client()
    got = answer(client, REPO, _event(world, first))
    assert (got.reaction, got.help) == (None, "created")
    again = answer(client, REPO, _event(world, second))
    assert again.help == "unchanged"
    (posted,) = _comments(fake, HELP_MARKER_NAME)
    assert posted["user"] == BOT and help_body() in posted["body"]
    assert fake.count("POST", r"/issues/12/comments$") == 1
    assert _reactions(fake, first) == []


@pytest.mark.parametrize(("body", "suggested"), [
    ("/reuse", "/reuse-sweep-run [run_id]"),
    ("/retest-all", "/retest-failed"),
    ("/use", "/use <run_id>"),
    ("Flaky again.\n\n/retset-failed", "/retest-failed"),
])
def test_a_near_miss_gets_confused_and_the_suggestion(fake_github, body, suggested):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", body, T1)
    fake = fake_github(world)
    got = answer(fake.client(), REPO, _event(world, cid))
    assert got.reaction == "confused" and f"did you mean `{suggested}`?" in got.summary
    assert _reactions(fake, cid) == [(BOT, "confused")]
    assert fake.count("POST", r"/issues/12/comments$") == 0  # the suggestion goes to the summary


def test_an_edit_that_fixes_the_line_takes_the_confused_back(fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/retest-all", T1)
    fake = fake_github(world)
    client = fake.client()
    assert answer(client, REPO, _event(world, cid)).reaction == "confused"
    comment = next(c for c in pr(fake.world)["comments"] if c["id"] == cid)
    comment.update(body="/retest", updated_at="2026-09-29T18:05:00Z")
    event = CommentEvent.of("edited", 12, True, cid, "/retest", "2026-09-29T18:05:00Z")
    got = answer(client, REPO, event)
    assert got.reaction is None and "took back" in got.summary
    assert _reactions(fake, cid) == []


@pytest.mark.parametrize(("user", "body", "stale", "why"), [
    ("renovate[bot]", "/help\n\n/reuse", False, "bots are never answered"),
    ("alice", "/help", True, "changed since this event was queued"),
    ("alice", "lgtm\n\n> /reuse\n\n`/hlep`", False, "nothing to do"),
])
def test_nothing_is_answered(fake_github, user, body, stale, why):
    world = base_world()
    cid = add_comment(world, user, "MEMBER", body, T1)
    fake = fake_github(world)
    event = _event(world, cid)
    if stale:
        event = dataclasses.replace(event, comment=dataclasses.replace(event.comment, body="/help (older text)"))
    got = answer(fake.client(), REPO, event)
    assert got.reaction is None and got.help is None and why in got.summary.lower()
    assert _reactions(fake, cid) == [] and fake.count("POST", r"/issues/12/comments$") == 0


def test_the_status_comment_is_one_per_kind_created_on_a_refusal_only(fake_github):
    fake = fake_github(base_world())
    client = fake.client()
    url = f"https://github.com/{REPO}/pull/12#issuecomment-1"
    assert post_status(client, REPO, 12, "retest", "+1", "Retest accepted.", url) is None  # no reply on success
    assert post_status(client, REPO, 12, "retest", None, "nothing to do", url) is None
    assert post_status(client, REPO, 12, "retest", "-1", "refused: first.", url) == "created"
    assert post_status(client, REPO, 12, "retest", "-1", "refused: second.", url) == "updated"
    assert post_status(client, REPO, 12, "retest", "+1", "Re-running 2 failed jobs.", url) == "updated"
    (retest,) = _comments(fake, f"<!-- {STATUS_MARKER_NAME} command=retest -->")
    assert retest["body"].endswith(status_body("retest", "+1", "Re-running 2 failed jobs.", url))
    assert "👍 accepted" in retest["body"] and "second" not in retest["body"]
    # the reuse acknowledgement never posts reply comments (PRODUCT §4.6)
    assert post_status(client, REPO, 12, "reuse", "-1", "Reuse rejected: first.", url) is None
    assert len(_comments(fake, STATUS_MARKER_NAME)) == 1


def _write_event(tmp_path, world, cid: int) -> str:
    comment = next(c for c in pr(world)["comments"] if c["id"] == cid)
    event = {"action": "created", "issue": {"number": 12, "pull_request": {"url": "x"}},
             "comment": {"id": cid, "body": comment["body"], "updated_at": comment["updated_at"],
                         "user": {"login": comment["user"]},
                         "html_url": f"https://github.com/{REPO}/pull/12#issuecomment-{cid}"},
             "repository": {"full_name": REPO, "default_branch": "main"},
             "sender": {"login": comment["user"]}}
    path = tmp_path / f"event-{cid}.json"
    path.write_text(json.dumps(event))
    return str(path)


@pytest.mark.parametrize(("command", "body", "kind", "reason"), [
    ("ack", "/use 101", "reuse", "Reuse requires write, maintain or admin permission"),
    ("retest", "/retest", "retest", "needs the triage, write, maintain or admin role"),
])
def test_a_refusal_is_followed_by_its_reason_in_the_status_comment(
        fake_github, tmp_path, monkeypatch, capsys, command, body, kind, reason):
    world = base_world()
    cid = add_comment(world, "bob", "COLLABORATOR", body, T1)
    fake = fake_github(world)
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary"))
    code = main(["reuse", command, "--repo", REPO, "--event-path", _write_event(tmp_path, world, cid)])
    assert code == 1 and reason in capsys.readouterr().err
    assert _reactions(fake, cid) == [(BOT, "-1")]
    statuses = _comments(fake, f"<!-- {STATUS_MARKER_NAME} command={kind} -->")
    if kind == "reuse":  # reaction and step summary only (PRODUCT §4.6)
        assert statuses == []
    else:
        (status,) = statuses
        assert "👎 refused" in status["body"] and reason in status["body"].replace("\\", "")
        assert f"#issuecomment-{cid})" in status["body"]
    assert reason in (tmp_path / "summary").read_text().replace("\\", "")


def test_answer_through_the_cli(fake_github, tmp_path, monkeypatch, capsys):
    world = base_world()
    cid = add_comment(world, "carol", "CONTRIBUTOR", "/help\n\n/reuse", T1)
    fake = fake_github(world)
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary"))
    assert main(["reuse", "answer", "--repo", REPO, "--event-path", _write_event(tmp_path, world, cid)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["reaction"], printed["help"]) == ("confused", "created")
    summary = (tmp_path / "summary").read_text()
    assert "did you mean `/reuse-sweep-run [run_id]`?" in summary and "`/help` answered" in summary
    assert len(_comments(fake, HELP_MARKER_NAME)) == 1
