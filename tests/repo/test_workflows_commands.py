"""The comment-triggered workflows that listen for the registry's slash commands: each one's real
`if:` (evaluated with tests/lib/expressions.py on a recorded issue_comment payload) starts for
every spelling and near-miss it answers, never on plain issues, and runs trusted code only."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from lib.expressions import Context, evaluate_if, interpolate
from lib.workflow_jobs import jobs_as_run

from infx.commands.registry import COMMANDS, near_misses
from infx.yamlio import load_file

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
PAYLOAD = json.loads((REPO / "tests/data/github/webhooks/issue_comment/created.payload.json")
                     .read_text(encoding="utf-8"))
ANSWER = "slash-commands.yml"
LISTENERS = {"reuse-command.yml": "acknowledge", "retest-command.yml": "retest", ANSWER: "answer",
             "signoff-verify.yml": "verify", "fork-sweep.yml": "approve"}  # /reverify: the sign-off workflow's verify job
# workflows that listen for more than comments (the sign-off workflow: reviews, pushes, dispatch)
MULTI_EVENT = {"signoff-verify.yml"}
# an edited comment never approves a fork sweep (infx.commands.fork_approval): new comments only
CREATED_ONLY = {"fork-sweep.yml"}
NEAR_MISSES = ["/reuse", "/retest-all", "/use", "/use abc", "/retset-failed", "/hlep", "/Help",
               "Flaky again.\n\n/retest-al", "thanks\r\n/reuse-sweep-rnu 5"]


def _job(name: str) -> dict:
    return jobs_as_run(WORKFLOWS / name)[LISTENERS[name]]


def _ctx(body: str, *, previous: str | None = None, on_pr: bool = True,
         login: str = "alice") -> Context:
    event = copy.deepcopy(PAYLOAD)
    event["action"] = "edited" if previous is not None else "created"
    event["comment"]["body"] = body
    event["comment"]["user"]["login"] = login
    if on_pr:
        event["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/5"}
    else:
        event["issue"].pop("pull_request", None)
    if previous is not None:
        event["changes"] = {"body": {"from": previous}}
    return Context({"github": {"event_name": "issue_comment", "event": event,
                               "repository": event["repository"]["full_name"]}})


def _starts(name: str, body: str, **kw) -> bool:
    return evaluate_if(_job(name)["if"], _ctx(body, **kw))


def test_every_command_with_a_workflow_names_one_that_exists_and_listens_to_comments():
    named = {e.workflow for e in COMMANDS if e.workflow is not None}
    assert named == set(LISTENERS)
    for name in named:
        workflow = load_file(WORKFLOWS / name)
        triggers = workflow.get("on", workflow.get(True))
        if name in MULTI_EVENT:
            assert "created" in triggers["issue_comment"]["types"], name
        elif name in CREATED_ONLY:
            assert triggers == {"issue_comment": {"types": ["created"]}}, name
        else:
            assert triggers == {"issue_comment": {"types": ["created", "edited"]}}, name


@pytest.mark.parametrize("entry", [e for e in COMMANDS if e.workflow], ids=lambda e: e.kind)
def test_each_command_starts_its_workflow_for_every_example_and_never_on_plain_issues(entry):
    for example in entry.examples:
        assert _starts(entry.workflow, example), (entry.workflow, example)
        assert _starts(entry.workflow, f"Please.\n\n{example}\n"), (entry.workflow, example)
        assert not _starts(entry.workflow, example, on_pr=False), (entry.workflow, example)


@pytest.mark.parametrize("body", NEAR_MISSES)
def test_the_answer_workflow_starts_for_every_near_miss(body):
    assert near_misses(body), body  # the registry calls it a near-miss ...
    assert _starts(ANSWER, body)  # ... and the workflow that answers it starts


@pytest.mark.parametrize(("body", "previous", "starts"), [
    ("/help", None, True),
    ("Could someone explain? /help", None, True),  # the pre-filter starts; the grammar decides
    ("lgtm", None, False),
    ("see https://github.com/o/r/pull/5 and a/b/c", None, False),  # slashes, but no line starts so
    ("lgtm", "/retest-all", True),  # an edit away from a near-miss takes the 😕 back
    ("lgtm", "ok\n/reuse", True),
    ("lgtm", "lgtm!", False),
])
def test_the_answer_workflow_pre_filter(body, previous, starts):
    assert _starts(ANSWER, body, previous=previous) is starts


@pytest.mark.parametrize("login", ["renovate[bot]", "github-actions[bot]"])
def test_the_answer_workflow_never_answers_bots(login):
    assert not _starts(ANSWER, "/help", login=login)
    assert not _starts(ANSWER, "/reuse", login=login)


@pytest.mark.parametrize("login", ["renovate[bot]", "github-actions[bot]"])
def test_the_fork_sweep_approval_never_starts_for_bots(login):
    assert _starts("fork-sweep.yml", f"/approve-sweep {'ab' * 20}")
    assert not _starts("fork-sweep.yml", f"/approve-sweep {'ab' * 20}", login=login)
    assert not _starts("fork-sweep.yml", "/reuse-sweep-run")


@pytest.mark.parametrize(("body", "starts"), [
    ("/retest", True), ("/retest-failed", True), ("/retest-all", True),  # the grammar then ignores it
    ("/reuse-sweep-run", False), ("lgtm", False),
])
def test_the_retest_workflow_starts_for_the_prow_spelling_too(body, starts):
    assert _starts("retest-command.yml", body) is starts


def test_the_answer_job_is_small_and_trusted():
    job = _job(ANSWER)
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    assert job["concurrency"] == {"group": "slash-comment-${{ github.event.comment.id }}",
                                  "cancel-in-progress": False}
    assert interpolate(job["concurrency"]["group"], _ctx("/help")) == f"slash-comment-{PAYLOAD['comment']['id']}"
    checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"] == {"ref": "${{ github.event.repository.default_branch }}",
                                "persist-credentials": False}
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs[-1] == 'infx reuse answer --repo "$GITHUB_REPOSITORY" --event-path "$GITHUB_EVENT_PATH"'
    assert all("${{" not in run for run in runs)
    assert job["steps"][-1]["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
