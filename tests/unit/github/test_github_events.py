"""Event payloads (real octokit/webhooks examples) become typed dataclasses."""

import json

import pytest

from infx.errors import InfxError
from infx.github.events import (
    IssueCommentEvent,
    PullRequestEvent,
    PullRequestReviewCommentEvent,
    PullRequestReviewEvent,
    PushEvent,
    WorkflowDispatchEvent,
    WorkflowRunEvent,
    load_event,
    parse_event,
)


@pytest.fixture
def hooks(test_data):
    return test_data / "github" / "webhooks"


def _load(hooks, name, file):
    return load_event(env={"GITHUB_EVENT_NAME": name,
                           "GITHUB_EVENT_PATH": str(hooks / name / file)})


def test_pull_request_labeled(hooks):
    event = _load(hooks, "pull_request", "labeled.payload.json")
    assert isinstance(event, PullRequestEvent)
    assert (event.action, event.number, event.label) == ("labeled", 2, "bug")
    pr = event.pull_request
    assert pr.head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    assert pr.base_ref == "master"
    assert pr.labels == ("bug",)
    assert pr.head_repo == pr.base_repo == "Codertocat/Hello-World"
    assert event.repository.full_name == "Codertocat/Hello-World"


def test_pull_request_null_body_becomes_empty(hooks):
    event = _load(hooks, "pull_request", "opened.with-null-body.json")
    assert event.pull_request.body == ""


def test_synchronize_carries_before_and_after(hooks):
    event = _load(hooks, "pull_request", "synchronize.payload.json")
    raw = json.loads((hooks / "pull_request" / "synchronize.payload.json").read_text())
    assert (event.before, event.after) == (raw["before"], raw["after"])


def test_the_head_repository_is_the_forks_or_none_once_deleted(hooks):
    raw = json.loads((hooks / "pull_request" / "opened.payload.json").read_text())
    raw["pull_request"]["head"]["repo"]["full_name"] = "someone/fork"
    pr = parse_event("pull_request", raw).pull_request
    assert (pr.head_repo, pr.base_repo) == ("someone/fork", "Codertocat/Hello-World")
    raw["pull_request"]["head"]["repo"] = None  # deleted fork
    assert parse_event("pull_request", raw).pull_request.head_repo is None


def test_issue_comment_created_and_edited(hooks):
    created = _load(hooks, "issue_comment", "created.payload.json")
    assert isinstance(created, IssueCommentEvent)
    assert created.comment.id == 492700400
    assert created.comment.author_association == "OWNER"
    assert created.is_pull_request is False
    edited = _load(hooks, "issue_comment", "edited.payload.json")
    assert edited.previous_body.startswith("You are totally right!")


def test_issue_comment_on_pull_request(hooks):
    raw = json.loads((hooks / "issue_comment" / "created.payload.json").read_text())
    raw["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    assert parse_event("issue_comment", raw).is_pull_request


def test_review_state_is_upper_case_like_rest(hooks):
    event = _load(hooks, "pull_request_review", "submitted.payload.json")
    assert isinstance(event, PullRequestReviewEvent)
    assert event.review.state == "COMMENTED"
    raw = json.loads((hooks / "pull_request_review" / "submitted.payload.json").read_text())
    # the review is the one Comment model, kind "review", with the head it was written on
    assert (event.review.kind, event.review.commit_id) == ("review", raw["review"]["commit_id"])
    assert event.review.created_at == raw["review"]["submitted_at"]
    assert _load(hooks, "pull_request_review", "dismissed.payload.json").review.state == "DISMISSED"


def test_review_comment(hooks):
    event = _load(hooks, "pull_request_review_comment", "created.payload.json")
    assert isinstance(event, PullRequestReviewCommentEvent)
    assert (event.comment.path, event.comment.line) == ("README.md", 265)
    raw = json.loads((hooks / "pull_request_review_comment" / "created.payload.json").read_text())
    assert (event.comment.kind, event.comment.commit_id) == ("review_comment", raw["comment"]["original_commit_id"])


def test_an_inline_comment_keeps_the_head_it_was_written_on(hooks):
    """GitHub moves an inline comment's commit_id to a later head that keeps its line; the head
    the signer saw is its original_commit_id (red-team: never the moved one)."""
    raw = json.loads((hooks / "pull_request_review_comment" / "created.payload.json").read_text())
    written = raw["comment"]["original_commit_id"]
    raw["comment"]["commit_id"] = "f" * 40  # a push after the comment, its line unchanged
    assert parse_event("pull_request_review_comment", raw).comment.commit_id == written
    del raw["comment"]["original_commit_id"]
    assert parse_event("pull_request_review_comment", raw).comment.commit_id == ""  # unknown, never the moved one


def test_push_tag_deletion(hooks):
    event = _load(hooks, "push", "payload.json")
    assert isinstance(event, PushEvent)
    assert event.deleted and event.branch is None and event.commits == ()


def test_workflow_dispatch_inputs(hooks):
    event = _load(hooks, "workflow_dispatch", "payload.json")
    assert isinstance(event, WorkflowDispatchEvent)
    assert event.inputs == {"name": "Mona the Octocat"}
    assert event.workflow == ".github/workflows/hello-world-workflow.yml"


def test_workflow_run_lists_pull_request_numbers(hooks):
    event = _load(hooks, "workflow_run", "completed.with-pull-requests.payload.json")
    assert isinstance(event, WorkflowRunEvent)
    assert event.workflow_run.pull_requests == (2,)
    assert event.workflow_run.conclusion == "success"


def test_missing_environment_is_a_clear_error():
    with pytest.raises(InfxError, match="GITHUB_EVENT_NAME"):
        load_event(env={})
    with pytest.raises(InfxError, match="GITHUB_EVENT_PATH"):
        load_event(env={"GITHUB_EVENT_NAME": "push"})


def test_unreadable_or_invalid_payload(tmp_path):
    bad = tmp_path / "event.json"
    bad.write_text("{not json")
    with pytest.raises(InfxError, match="not JSON"):
        load_event(bad, "push", env={})
    with pytest.raises(InfxError, match="cannot read"):
        load_event(tmp_path / "missing.json", "push", env={})


def test_missing_field_names_the_key(tmp_path):
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"repository": {"full_name": "o/r"}, "action": "created"}))
    with pytest.raises(InfxError) as info:
        load_event(path, "issue_comment", env={})
    assert info.value.problems[0].key == "issue"
    assert info.value.problems[0].file == str(path)


def test_unsupported_event_name():
    with pytest.raises(InfxError, match="unsupported event"):
        parse_event("gollum", {})


def test_pull_request_number_per_event(hooks):
    from infx.github.events import pull_request_number

    assert pull_request_number(_load(hooks, "pull_request", "opened.payload.json")) == 2
    assert pull_request_number(_load(hooks, "pull_request_review", "submitted.payload.json")) == 2
    assert pull_request_number(
        _load(hooks, "pull_request_review_comment", "created.payload.json")) == 2
    assert pull_request_number(
        _load(hooks, "workflow_run", "completed.with-pull-requests.payload.json")) == 2
    assert pull_request_number(_load(hooks, "issue_comment", "created.payload.json")) is None
    assert pull_request_number(_load(hooks, "push", "payload.json")) is None


def _all_payloads():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "data" / "github" / "webhooks"
    return sorted(root.glob("*/*.json"))


@pytest.mark.parametrize("path", _all_payloads(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_recorded_payload_parses(path):
    raw = json.loads(path.read_text())
    event = load_event(path, path.parent.name, env={})
    assert event.name == path.parent.name
    assert event.repository.full_name == raw["repository"]["full_name"]
    assert event.sender == raw["sender"]["login"]
    assert event.action == raw.get("action")


# ---- payloads of another shape: one located error, never a traceback ------------------------------

def _typed_fields(name):
    from importlib import resources

    schema = json.loads(resources.files("infx.github").joinpath("schemas/events.schema.json").read_text())

    def walk(node, path):
        if "$ref" in node:
            target = schema
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        types = node.get("type")
        if path:
            yield path, types if isinstance(types, list) else [types]
        for key, child in (node.get("properties") or {}).items():
            yield from walk(child, (*path, key))

    return list(walk(schema["$defs"]["events"][name], ()))


_WRONG = {"object": "a string", "array": "a string", "string": {"a": 1}, "integer": "7", "boolean": "yes"}


def _mutations():
    for path in _all_payloads():
        name = path.parent.name
        raw = json.loads(path.read_text())
        for field, types in _typed_fields(name):
            node = raw
            for key in field[:-1]:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict) and field[-1] in node:
                wrong = next(_WRONG[t] for t in types if t != "null")
                yield pytest.param(path, field, wrong, id=f"{name}/{path.name}:{'.'.join(field)}")


@pytest.mark.parametrize(("path", "field", "wrong"), list(_mutations()))
def test_a_field_of_the_wrong_type_is_a_located_error(tmp_path, path, field, wrong):
    raw = json.loads(path.read_text())
    node = raw
    for key in field[:-1]:
        node = node[key]
    node[field[-1]] = wrong
    event = tmp_path / "event.json"
    event.write_text(json.dumps(raw))
    with pytest.raises(InfxError) as info:
        load_event(event, path.parent.name, env={})
    assert [(p.key, p.file) for p in info.value.problems] == [(".".join(field), str(event))]


@pytest.mark.parametrize("payload", [[], "x", 7, None])
def test_a_payload_that_is_no_object_is_a_located_error(tmp_path, payload):
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    with pytest.raises(InfxError) as info:
        load_event(event, "issue_comment", env={})
    assert [p.file for p in info.value.problems] == [str(event)]
    assert "event payload `the payload` is" in info.value.problems[0].message


_COMMENT = {"action": "created", "repository": {"full_name": "o/r"}, "sender": "bob",
            "issue": {"number": 1}, "comment": {"id": 2, "user": {"login": "bob"}}}
_RUN = {"action": "completed", "repository": {"full_name": "o/r"}, "workflow_run": "7"}


@pytest.mark.parametrize(("command", "payload", "key"), [
    (command, payload, key) for command, shaped in ((["reuse", "ack"], _COMMENT), (["reuse", "retest"], _COMMENT),
                                                    (["workflow", "welcome-from-run"], _RUN))
    for payload, key in (([], "`the payload` is an array"),
                         (shaped, "`sender` is a string" if shaped is _COMMENT else "`workflow_run` is a string"))])
def test_every_command_reading_an_event_file_answers_a_wrong_shape_with_a_located_error(
        capsys, tmp_path, monkeypatch, command, payload, key):
    from infx.cli import main

    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    assert main([*command, "--repo", "o/r", "--event-path", str(event)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and str(event) in err and key in err


def test_a_pull_requests_changed_files_of_another_type_is_a_located_error(tmp_path, hooks):
    """Red-team: PullRequest.from_json reads `changed_files` as a number; a payload holding a
    string or a list there is one located error (it was a ValueError/TypeError traceback)."""
    for wrong in ("x", [None]):
        raw = json.loads((hooks / "pull_request" / "closed.payload.json").read_text())
        raw["pull_request"]["changed_files"] = wrong
        with pytest.raises(InfxError) as info:
            parse_event("pull_request", raw, "event.json")
        assert [p.key for p in info.value.problems] == ["pull_request.changed_files"]
