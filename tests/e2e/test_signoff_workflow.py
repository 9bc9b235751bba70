"""The sign-off workflow: its real `if:` and concurrency expressions, pinning and the pending guard (zizmor: test_workflows_lint)."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess

import pytest
from lib.expressions import Context, evaluate_if
from lib.workflow_jobs import jobs_as_run

from infx import yamlio

WORKFLOW = ".github/workflows/signoff-verify.yml"
PHRASE = "As a PR reviewer and CODEOWNER, I have reviewed this and have:"


@pytest.fixture(scope="module")
def workflow(request) -> dict:
    data = yamlio.load_file(request.config.rootpath / WORKFLOW)
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    # the jobs as they run: its call of infx-signoff-verify.yml followed
    return data | {"jobs": jobs_as_run(request.config.rootpath / WORKFLOW)}


def expected(event: str, action: str, on_pr: bool, bot: bool, phrase: bool) -> bool:
    """Independent truth table: which events may start a verification job (conversation
    sign-offs and dispatches; review events are only recorded, job `record-review`)."""
    if event == "workflow_dispatch":
        return True
    return event == "issue_comment" and action == "created" and on_pr and not bot and phrase


def event_payload(event: str, action: str, on_pr: bool, bot: bool, phrase: bool) -> dict:
    user = {"login": "renovate[bot]" if bot else "alice"}
    body = (PHRASE if phrase else "LGTM") + "\n- [x] item"
    if event == "issue_comment":
        issue = {"number": 7} | ({"pull_request": {"url": "u"}} if on_pr else {})
        return {"action": action, "issue": issue, "comment": {"body": body, "user": user}}
    if event == "pull_request_review":
        return {"action": action, "review": {"body": body, "user": user}, "pull_request": {"number": 7}}
    if event == "pull_request_review_comment":
        return {"action": action, "comment": {"body": body, "user": user}, "pull_request": {"number": 7}}
    return {"inputs": {"pr-number": 7, "comment_url": "https://github.com/o/r/pull/7#issuecomment-1"}}


EVENTS = ["issue_comment", "pull_request_review", "pull_request_review_comment", "workflow_dispatch"]
CASES = list(itertools.product(EVENTS, ["created", "edited", "submitted", "dismissed", "deleted"],
                               [True, False], [True, False], [True, False]))


@pytest.mark.parametrize("event,action,on_pr,bot,phrase", CASES)
def test_job_if_matches_the_truth_table(workflow, event, action, on_pr, bot, phrase) -> None:
    payload = event_payload(event, action, on_pr, bot, phrase)
    context = Context({"github": {"event_name": event, "event": payload},
                       "inputs": payload.get("inputs", {})})
    assert evaluate_if(workflow["jobs"]["verify"]["if"], context) is expected(event, action, on_pr, bot, phrase)


@pytest.mark.parametrize("event,action,on_pr,bot,_", CASES)
def test_a_reverify_command_starts_the_verify_job(workflow, event, action, on_pr, bot, _) -> None:
    """`/reverify` in a new human comment on a PR starts the job (infx decides who may)."""
    payload = event_payload(event, action, on_pr, bot, False)
    for key in ("comment", "review"):
        if key in payload:
            payload[key]["body"] = "Sweep re-run.\n\n/reverify"
    context = Context({"github": {"event_name": event, "event": payload}, "inputs": payload.get("inputs", {})})
    wanted = event == "workflow_dispatch" or (event == "issue_comment" and action == "created"
                                              and on_pr and not bot)
    assert evaluate_if(workflow["jobs"]["verify"]["if"], context) is wanted


def test_triggers_are_new_or_changed_signoffs_and_dispatch(workflow) -> None:
    on = workflow["on"]
    assert set(on) == {"issue_comment", "pull_request_review", "pull_request_review_comment",
                       "pull_request", "workflow_dispatch"}
    # a push to a PR only records the head (no permissions, nothing checked out or run)
    assert on["pull_request"]["types"] == ["opened", "synchronize", "reopened", "ready_for_review", "edited"]
    record = workflow["jobs"]["record-head"]
    assert record["permissions"] == {}
    assert all("uses" not in step for step in record["steps"])
    # a push or a retarget (the base changed) is recorded; a title or body edit is not
    for action, changes, recorded in [("synchronize", None, True), ("opened", None, True),
                                      ("edited", {"base": {"ref": {"from": "release"}}}, True),
                                      ("edited", {"title": {"from": "old"}}, False),
                                      ("edited", None, False)]:
        payload = {"action": action} | ({"changes": changes} if changes else {})
        context = Context({"github": {"event_name": "pull_request", "event": payload}})
        assert evaluate_if(record["if"], context) is recorded, (action, changes)
    assert evaluate_if(record["if"], Context({"github": {"event_name": "issue_comment",
                                                         "event": {"action": "edited"}}})) is False
    # created: job `verify`; edited / deleted / dismissed: job `reset` decides the head again
    assert on["issue_comment"]["types"] == ["created", "edited", "deleted"]
    assert on["pull_request_review"]["types"] == ["submitted", "edited", "dismissed"]
    assert on["pull_request_review_comment"]["types"] == ["created", "edited", "deleted"]
    assert set(on["workflow_dispatch"]["inputs"]) == {"pr-number", "comment_url"}


def expected_reset(event: str, action: str, on_pr: bool, bot: bool, phrase: bool,
                   had_phrase: bool) -> bool:
    """Independent truth table: which events decide the head's status again here (a
    conversation sign-off, or what was one before the edit, changed by a human)."""
    if event != "issue_comment" or action not in ("edited", "deleted") or bot:
        return False
    return on_pr and (phrase or had_phrase)


def expected_record(event: str, bot: bool, phrase: bool, had_phrase: bool) -> bool:
    """Independent truth table: which review events are recorded for the relay (any action
    GitHub sends, by a human, on what carries or carried the sign-off phrase)."""
    return event in ("pull_request_review", "pull_request_review_comment") and not bot \
        and (phrase or had_phrase)


@pytest.mark.parametrize("event,action,on_pr,bot,phrase", CASES)
@pytest.mark.parametrize("had_phrase", [True, False])
def test_record_review_job_if_matches_the_truth_table(workflow, event, action, on_pr, bot, phrase,
                                                      had_phrase) -> None:
    payload = event_payload(event, action, on_pr, bot, phrase)
    if event != "workflow_dispatch":
        payload["changes"] = {"body": {"from": PHRASE if had_phrase else "LGTM"}}
    context = Context({"github": {"event_name": event, "event": payload},
                       "inputs": payload.get("inputs", {})})
    assert evaluate_if(workflow["jobs"]["record-review"]["if"], context) is expected_record(
        event, bot, phrase, had_phrase)


def test_record_review_has_no_permissions_and_runs_nothing(workflow) -> None:
    job = workflow["jobs"]["record-review"]
    assert job["permissions"] == {} and "environment" not in job
    assert all("uses" not in step and "infx" not in step.get("run", "") for step in job["steps"])
    # only jobs that run on the default branch's ref use the App's environment
    for name, other in workflow["jobs"].items():
        if other.get("environment"):
            assert "pull_request_review" not in str(other.get("if")), name


@pytest.mark.parametrize("event,action,on_pr,bot,phrase", CASES)
@pytest.mark.parametrize("had_phrase", [True, False])
def test_reset_job_if_matches_the_truth_table(workflow, event, action, on_pr, bot, phrase,
                                              had_phrase) -> None:
    payload = event_payload(event, action, on_pr, bot, phrase)
    if event != "workflow_dispatch":
        payload["changes"] = {"body": {"from": PHRASE if had_phrase else "LGTM"}}
    context = Context({"github": {"event_name": event, "event": payload},
                       "inputs": payload.get("inputs", {})})
    assert evaluate_if(workflow["jobs"]["reset"]["if"], context) is expected_reset(
        event, action, on_pr, bot, phrase, had_phrase)


def test_reset_job_runs_head_status_with_read_only_access_but_statuses_and_checks(workflow) -> None:
    """It writes the status, and withdraws the verdict's check run the status no longer agrees with."""
    job = workflow["jobs"]["reset"]
    assert job["permissions"] == {"checks": "write", "contents": "read", "pull-requests": "read",
                                  "statuses": "write"}
    run = job["steps"][-1]["run"]
    assert run.startswith("infx signoff head-status ") and "${{" not in run


def test_security_posture(workflow, repo_root) -> None:
    """Ours calls the reusable workflow with our default branch's infx; the called jobs pin every
    action, check out nothing but that infx and never expand an expression inside `run:`."""
    called = repo_root / ".github/workflows/infx-signoff-verify.yml"
    text = (repo_root / WORKFLOW).read_text() + called.read_text()
    assert workflow["permissions"] == {} and "pull_request_target" not in text
    (caller,) = yamlio.load_file(repo_root / WORKFLOW)["jobs"].values()
    assert caller["uses"] == "./.github/workflows/infx-signoff-verify.yml"
    assert caller["with"] == {"infx-repository": "${{ github.repository }}",
                              "infx-ref": "${{ github.event.repository.default_branch }}"}
    job = workflow["jobs"]["verify"]
    assert job["permissions"]["contents"] == "read" and "write-all" not in text
    assert set(v for v in job["permissions"].values()) <= {"read", "write"}
    uses = re.findall(r"^\s*(?:- )?uses:\s*(\S+)(.*)$", text, re.MULTILINE)
    local = {"./.github/workflows/infx-signoff-verify.yml", "./.infx/.github/actions/install-infx"}
    assert uses and all(u in local or (re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) and re.search(r"# v\d", c))
                        for u, c in uses)
    checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert [s["with"] for s in checkouts] == [{"repository": "${{ inputs.infx-repository }}",
                                               "ref": "${{ inputs.infx-ref }}", "path": ".infx",
                                               "persist-credentials": False}]
    for step in job["steps"]:
        assert "${{" not in step.get("run", "")


# --- the guard step: a status never stays `pending` -------------------------------------------

SHA = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
FAKE_GH = '#!/bin/sh\nprintf "%s\\n" "$@" > "$GH_LOG"\n'


def _steps(workflow) -> dict:
    return {step.get("name"): step for step in workflow["jobs"]["verify"]["steps"]}


def run_guard(workflow, tmp_path, record: str | None) -> tuple[subprocess.CompletedProcess, list[str] | None]:
    """Run the guard's real script with a stand-in `gh` that logs its arguments."""
    bin_dir, temp = tmp_path / "bin", tmp_path / "runner-temp"
    bin_dir.mkdir()
    temp.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "gh").chmod(0o755)
    if record is not None:
        (temp / "signoff-status").write_text(record)
    log = tmp_path / "gh.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RUNNER_TEMP": str(temp), "GH_LOG": str(log),
           "GITHUB_REPOSITORY": "o/r", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "77",
           "GH_TOKEN": "t"}
    script = _steps(workflow)["Never leave the status pending"]["run"]
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=30)
    return done, (log.read_text().splitlines() if log.exists() else None)


def test_guard_runs_always_with_only_the_token_in_env(workflow) -> None:
    guard = _steps(workflow)["Never leave the status pending"]
    assert guard["if"] == "always()" and guard["env"] == {"GH_TOKEN": "${{ github.token }}"}
    assert workflow["jobs"]["verify"]["steps"][-1] is guard
    assert '--state-file "$RUNNER_TEMP/signoff-status"' in _steps(workflow)["Verify the sign-off"]["run"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_guard_turns_a_leftover_pending_into_error(workflow, tmp_path) -> None:
    done, calls = run_guard(workflow, tmp_path, f"pending {SHA}\n")
    assert done.returncode == 0, done.stderr
    assert calls[:4] == ["api", "--method", "POST", f"repos/o/r/statuses/{SHA}"]
    assert "state=error" in calls and "context=codeowner-signoff-verify" in calls
    assert "target_url=https://github.com/o/r/actions/runs/77" in calls


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("record", [None, f"success {SHA}\n", f"failure {SHA}\n", f"error {SHA}\n"])
def test_guard_leaves_a_final_status_alone(workflow, tmp_path, record) -> None:
    done, calls = run_guard(workflow, tmp_path, record)
    assert done.returncode == 0 and calls is None


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("record", ["pending\n", "pending $(touch /tmp/x)\n", "pending abc\n"])
def test_guard_refuses_a_record_without_a_sha(workflow, tmp_path, record) -> None:
    done, calls = run_guard(workflow, tmp_path, record)
    assert done.returncode == 1 and calls is None and "no commit SHA" in done.stdout


def test_guard_uses_the_context_of_the_check_table(workflow) -> None:
    from infx.signoff.table import load_table

    context = load_table().settings.status_context
    assert f"context={context} " in _steps(workflow)["Never leave the status pending"]["run"]
