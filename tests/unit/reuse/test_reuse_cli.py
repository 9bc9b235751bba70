"""`infx reuse …` end to end: world replay through the fake server, outputs, exit codes."""

from __future__ import annotations

import json

import yaml
from lib.reuse_world import M1, add_comment, base_world, merged

from infx.cli import main

T1 = "2026-09-29T18:00:00Z"


def _world_file(tmp_path, world) -> str:
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump(world, sort_keys=False))
    return str(path)


def test_resolve_push_writes_outputs_and_summary(tmp_path, monkeypatch, capsys):
    world = merged(base_world())
    add_comment(world, "root", "OWNER", "/use 101", T1)
    output, summary = tmp_path / "out", tmp_path / "summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = main(["reuse", "resolve", "--repo", "acme/inferencex", "--event-name", "push",
                 "--ref", "refs/heads/main", "--commit-sha", M1, "--github-output", str(output),
                 "--world", _world_file(tmp_path, world)])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["reuse-enabled"] == "true" and printed["reuse-source-run-id"] == "101"
    lines = output.read_text().splitlines()
    assert "reuse-enabled=true" in lines and "reuse-source-run-id=101" in lines
    assert "approved sweep reuse from run 101" in summary.read_text()


def test_resolve_error_writes_nothing_and_exits_1(tmp_path, monkeypatch, capsys):
    world = merged(base_world())
    add_comment(world, "root", "OWNER", "/use 103", T1)
    output, summary = tmp_path / "out", tmp_path / "summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = main(["reuse", "resolve", "--repo", "acme/inferencex", "--event-name", "push",
                 "--ref", "refs/heads/main", "--commit-sha", M1, "--github-output", str(output),
                 "--world", _world_file(tmp_path, world)])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == "" and not output.exists()
    assert "not in PR #12's commit list" in captured.err
    assert summary.read_text().startswith("**Sweep reuse failed:** run 103's commit")


def test_missing_token_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    output = tmp_path / "out"
    code = main(["reuse", "resolve", "--repo", "acme/inferencex", "--event-name", "push",
                 "--ref", "refs/heads/main", "--commit-sha", M1, "--github-output", str(output)])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == "" and not output.exists()
    assert "GH_TOKEN or GITHUB_TOKEN is required" in captured.err


def test_ack_through_an_event_file(tmp_path, capsys):
    world = base_world()
    cid = add_comment(world, "carol", "CONTRIBUTOR", "/use 101", T1)
    event = {"action": "created", "issue": {"number": 12, "pull_request": {"url": "x"}},
             "comment": {"id": cid, "body": "/use 101", "updated_at": T1, "user": {"login": "carol"}},
             "repository": {"full_name": "acme/inferencex", "default_branch": "main"},
             "sender": {"login": "carol"}}
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event))
    code = main(["reuse", "ack", "--repo", "acme/inferencex", "--event-path", str(event_path),
                 "--world", _world_file(tmp_path, world)])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert "Reuse rejected for PR #12: Reuse requires write, maintain or admin permission on the repository." in captured.err


def test_parse(tmp_path, capsys):
    body = tmp_path / "body.txt"
    body.write_text("LGTM\r\n/reuse-sweep-run 0042\r\n")
    assert main(["reuse", "parse", str(body)]) == 0
    assert json.loads(capsys.readouterr().out) == {"command": "/reuse-sweep-run", "run_id": 42}


def test_ack_that_cannot_read_github_says_so_and_reacts_not(tmp_path, monkeypatch, capsys):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "/use 101", T1)
    world["faults"] = [{"method": "GET", "path": r"/actions/runs/101$", "status": 500,
                        "headers": {"Retry-After": "0"}}]
    event = {"action": "created", "issue": {"number": 12, "pull_request": {"url": "x"}},
             "comment": {"id": cid, "body": "/use 101", "updated_at": T1, "user": {"login": "alice"}},
             "repository": {"full_name": "acme/inferencex", "default_branch": "main"},
             "sender": {"login": "alice"}}
    event_path, summary = tmp_path / "event.json", tmp_path / "summary"
    event_path.write_text(json.dumps(event))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = main(["reuse", "ack", "--repo", "acme/inferencex", "--event-path", str(event_path),
                 "--world", _world_file(tmp_path, world)])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert "reading workflow run 101" in captured.err
    assert summary.read_text().startswith("**Reuse acknowledgement failed:** GitHub failed while reading workflow run 101")


def test_publish_sends_one_repository_dispatch_naming_the_runs(tmp_path, monkeypatch, capsys):
    from infx.github.fake import FakeGitHub

    summary = tmp_path / "summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with FakeGitHub(merged(base_world())) as fake:
        monkeypatch.setenv("GITHUB_API_URL", fake.url)
        monkeypatch.setenv("GITHUB_TOKEN", fake.env()["GITHUB_TOKEN"])
        code = main(["reuse", "publish", "--repo", "acme/inferencex", "--run-ids", "102,101,102",
                     "--pr-number", "12", "--commit-sha", M1])
        sent = fake.world["dispatches"]
    assert code == 0
    payload = {"repository": "acme/inferencex", "sha": M1, "pr_number": 12, "run_ids": [102, 101]}
    assert [d["client_payload"] for d in sent] == [payload]
    assert sent[0]["event_type"] == "infx-sweep-results"
    assert json.loads(capsys.readouterr().out)["client_payload"] == payload
    assert "infx-sweep-results dispatched for run(s) 102, 101 of PR #12" in summary.read_text()


def test_publish_refuses_ids_that_are_not_run_ids(tmp_path, capsys):
    code = main(["reuse", "publish", "--repo", "acme/inferencex", "--run-ids", "101,$(x)",
                 "--commit-sha", M1, "--world", _world_file(tmp_path, merged(base_world()))])
    assert code == 1 and "--run-ids must list workflow run ids" in capsys.readouterr().err
