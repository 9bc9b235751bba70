"""`infx signoff verify|preview` as an operator runs them (replays over a world file)."""

from __future__ import annotations

import json

import pytest
import yaml

from infx import yamlio
from infx.cli import main

SEED000 = "tests/data/worlds/signoff_seed000.yaml"
SEED003 = "tests/data/worlds/signoff_seed003.yaml"


@pytest.fixture(autouse=True)
def _in_repo(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    for name in ("GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def test_verify_replay_prints_the_verdict(capsys) -> None:
    assert main(["signoff", "verify", "--world", SEED000, "--pr", "3412", "--comment-id", "5003"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("<!-- codeowner-signoff-verify sha=296a93ad")
    assert out.endswith("\n") and not out.endswith("\n\n")  # issue 24: no final newline
    assert "✅ Check 0 (CODEOWNER): PASS" in out and "API calls" in err


def test_verify_json_lists_every_check(capsys, tmp_path) -> None:
    dump = tmp_path / "evidence.json"
    # the stale sign-off 2003 as verified before the newer 2004 was posted
    world = yamlio.load_file(SEED003)
    world["pulls"][0]["comments"] = [c for c in world["pulls"][0]["comments"] if c["id"] != 2004]
    before = tmp_path / "seed003-before-2004.yaml"
    before.write_text(yaml.safe_dump(world, sort_keys=False), encoding="utf-8")
    assert main(["signoff", "verify", "--world", str(before), "--pr", "1902", "--comment-id", "2003",
                 "--format", "json", "--dump-evidence", str(dump)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["overall"] == "REJECTED" and len(data["checks"]) == 15
    template = next(c for c in data["checks"] if c["id"] == "template")
    assert template == {"id": "template", "number": 5, "name": "Latest checklist template",
                        "status": "FAIL", "reason": template["reason"], "details": []}
    assert json.loads(dump.read_text())["signoff"]["user"] == "billishyahao"


def test_preview_posts_nothing(capsys, tmp_path, repo_root) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n"
                     "- [x] Confirmed code quality\n\nSigned: @chunfangamd\n")
    assert main(["signoff", "preview", "--world", SEED000, "--pr", "3412", "--body-file", str(draft),
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["posted"] is False and data["status"] == "failure"
    assert next(c for c in data["checks"] if c["id"] == "template")["status"] == "FAIL"
    assert next(c for c in data["checks"] if c["id"] == "codeowner")["status"] == "PASS"


def test_preview_needs_a_signer(capsys, tmp_path) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] a\n")
    assert main(["signoff", "preview", "--world", SEED000, "--pr", "3412", "--body-file", str(draft)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Signed:" in err


def test_event_file_edited_comment_is_skipped(capsys, tmp_path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "edited", "issue": {"number": 3412, "pull_request": {}},
                                 "comment": {"id": 5003, "body": "As a PR reviewer and CODEOWNER",
                                             "user": {"login": "chunfangamd"}},
                                 "sender": {"login": "chunfangamd"}}))
    assert main(["signoff", "verify", "--world", SEED000, "--event", str(event),
                 "--event-name", "issue_comment"]) == 0
    assert "skipped" in capsys.readouterr().err


def test_event_file_new_comment_runs(capsys, tmp_path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "created", "issue": {"number": 3412, "pull_request": {"url": "x"}},
                                 "comment": {"id": 5003, "body": "As a PR reviewer and CODEOWNER",
                                             "user": {"login": "chunfangamd"}},
                                 "sender": {"login": "chunfangamd"}}))
    assert main(["signoff", "verify", "--world", SEED000, "--event", str(event),
                 "--event-name", "issue_comment", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "verdict"


@pytest.mark.parametrize("args,message", [
    (["--pr", "3412"], "say which sign-off"),
    (["--comment-url", "https://github.com/o/r/issues/1"], "unsupported comment URL"),
    (["--pr", "3", "--comment-url", "https://github.com/o/r/pull/12#issuecomment-5"], "points at PR #12"),
])
def test_bad_arguments_are_clear_errors(capsys, args, message) -> None:
    assert main(["signoff", "verify", "--world", SEED000, *args]) == 1
    out, err = capsys.readouterr()
    assert out == "" and message in err


def test_dispatch_for_the_wrong_pr_fails(capsys, tmp_path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {"pr-number": "3", "comment_url":
                                            "https://github.com/o/r/pull/3412#issuecomment-5003"},
                                 "sender": {"login": "functionstackx"}}))
    assert main(["signoff", "verify", "--world", SEED000, "--event", str(event),
                 "--event-name", "workflow_dispatch"]) == 1
    assert "points at PR #3412 but pr-number is 3" in capsys.readouterr().err


def test_verification_error_exits_non_zero_without_stdout(capsys, tmp_path) -> None:
    assert main(["signoff", "verify", "--world", SEED000, "--pr", "3412", "--comment-id", "999",
                 "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "not found" in err


@pytest.mark.parametrize("command,first", [
    (["verify", "--comment-id", "999"], "verification failed: [github]: reading the sign-off"),
    (["preview", "--body-file", "/dev/null", "--signer", "chunfangamd"], "preview failed: "),
])
def test_a_failed_run_says_its_reason_once(capsys, command, first) -> None:
    """Issue 24: a 404 was printed twice (a 'signoff: error' line, then the error line)."""
    assert main(["signoff", *command[:1], "--world", SEED000, "--pr", "3412", *command[1:]]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [err.rstrip("\n")]
    assert err.startswith(f"error: [signoff]: {first}")


def test_verify_records_the_final_status_for_the_workflow_guard(capsys, tmp_path) -> None:
    record = tmp_path / "signoff-status"
    assert main(["signoff", "verify", "--world", SEED000, "--pr", "3412", "--comment-id", "5003",
                 "--state-file", str(record)]) == 0
    assert record.read_text() == "success 296a93ad6c8fa017e83fb5f404f09f2efc16e1c4\n"


@pytest.mark.parametrize("action,state", [("dismissed", "dismissed"), ("submitted", "pending"),
                                          ("edited", "commented")])
def test_g3_review_events_that_are_not_new_signoffs_are_skipped(capsys, tmp_path, action, state) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": action, "pull_request": {"number": 3412},
                                 "review": {"id": 77, "state": state, "user": {"login": "chunfangamd"},
                                            "body": "As a PR reviewer and CODEOWNER, I have reviewed this"},
                                 "sender": {"login": "chunfangamd"}}))
    assert main(["signoff", "verify", "--world", SEED000, "--event", str(event),
                 "--event-name", "pull_request_review", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "skipped" in err


_SIGNOFF = {"action": "created", "issue": {"number": 3412, "pull_request": {"url": "x"}},
            "comment": {"id": 5003, "body": "As a PR reviewer and CODEOWNER", "user": {"login": "chunfangamd"}},
            "sender": {"login": "chunfangamd"}}


@pytest.mark.parametrize(("payload", "key"), [
    ([_SIGNOFF], None),
    ({**_SIGNOFF, "sender": "chunfangamd"}, "sender"),
    ({**_SIGNOFF, "comment": {**_SIGNOFF["comment"], "user": "chunfangamd"}}, "comment.user"),
    ({**_SIGNOFF, "issue": "3412"}, "issue"),
    ({**_SIGNOFF, "comment": {**_SIGNOFF["comment"], "body": ["As a PR reviewer and CODEOWNER"]}}, "comment.body"),
])
def test_an_event_of_another_shape_is_one_located_error_and_nothing_is_posted(capsys, tmp_path, payload, key):
    event, record = tmp_path / "event.json", tmp_path / "signoff-status"
    event.write_text(json.dumps(payload))
    assert main(["signoff", "verify", "--world", SEED000, "--event", str(event), "--event-name", "issue_comment",
                 "--state-file", str(record)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and str(event) in err
    assert (f"`{key}`" if key else "`the payload` is an array") in err
    assert not record.exists()  # no commit status was set


# the verify job's token before `checks: write` was added: everything else the verdict needs
WITHOUT_CHECKS_WRITE = {"actions": "read", "checks": "read", "contents": "read", "issues": "write",
                        "members": "read", "pull_requests": "read", "statuses": "write"}


def test_the_verify_step_summary_shows_the_check_table_and_the_check_run(capsys, tmp_path,
                                                                          monkeypatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    world = yamlio.load_file("tests/data/worlds/trust_injection.yaml")
    world["token_permissions"] = WITHOUT_CHECKS_WRITE
    path = tmp_path / "no-checks-write.yaml"
    path.write_text(yaml.safe_dump(world, sort_keys=False), encoding="utf-8")
    for source, fate in ((SEED000, "The check run beside the status: created (https://github.com/"),
                         (str(path), "The check run beside the status: not published: ")):
        summary.write_text("")
        assert main(["signoff", "verify", "--world", source, "--pr", "3412", "--comment-id", "5003"]) == 0
        text = summary.read_text()
        assert "| | Check | Status | Reason |" in text and "| ✅ | 0 (CODEOWNER) | PASS |" in text
        assert fate in text and "The commit status links to https://github.com/" in text
    assert "checks: write" in text and "| ❌ | 11 (" in text
    capsys.readouterr()


def test_a_head_status_links_to_the_run_that_set_it(monkeypatch) -> None:
    from infx.cli.signoff import _run_url
    from infx.github.fake import FakeGitHub
    from infx.signoff import pipeline as publish

    assert _run_url() is None  # outside a workflow: the PR's page explains the status
    for name, value in (("GITHUB_SERVER_URL", "https://github.com"), ("GITHUB_RUN_ID", "4242"),
                        ("GITHUB_REPOSITORY", "SemiAnalysisAI/InferenceX")):
        monkeypatch.setenv(name, value)
    run = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/4242"
    assert _run_url() == run
    with FakeGitHub(SEED000) as fake:
        result = publish.head_status(fake.client(), fake.world["repo"], 3412, publish.Options(run_url=run))
        [status] = fake.world["statuses"]["296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"]
    assert result.status == "pending" and result.target_url == run == status["target_url"]
