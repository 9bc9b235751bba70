"""The Actions event ($GITHUB_EVENT_PATH + $GITHUB_EVENT_NAME) as small typed dataclasses."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infx.errors import InfxError, Problem
from infx.github.models import Comment, PullRequest, WorkflowRun


@dataclass(frozen=True)
class Repo:
    full_name: str
    default_branch: str
    private: bool = False

    @property
    def owner(self) -> str:
        return self.full_name.split("/")[0]


@dataclass(frozen=True)
class Event:
    """Fields every event has; `raw` keeps the full payload for anything not modelled."""

    name: str
    action: str | None
    repository: Repo
    sender: str
    raw: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class PullRequestEvent(Event):
    number: int = 0
    pull_request: PullRequest | None = None
    label: str | None = None
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class IssueCommentEvent(Event):
    issue_number: int = 0
    is_pull_request: bool = False
    issue_user: str = ""
    issue_state: str = ""
    comment: Comment | None = None
    previous_body: str | None = None  # on `edited`


@dataclass(frozen=True)
class PullRequestReviewEvent(Event):
    review: Comment | None = None  # kind "review"
    pull_request: PullRequest | None = None


@dataclass(frozen=True)
class PullRequestReviewCommentEvent(Event):
    comment: Comment | None = None  # kind "review_comment"
    pull_request: PullRequest | None = None
    previous_body: str | None = None


@dataclass(frozen=True)
class PushEvent(Event):
    ref: str = ""
    before: str = ""
    after: str = ""
    created: bool = False
    deleted: bool = False
    forced: bool = False
    commits: tuple[str, ...] = ()

    @property
    def branch(self) -> str | None:
        return self.ref.removeprefix("refs/heads/") if self.ref.startswith("refs/heads/") else None


@dataclass(frozen=True)
class WorkflowDispatchEvent(Event):
    ref: str = ""
    workflow: str = ""
    inputs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkflowRunEvent(Event):
    workflow_run: WorkflowRun | None = None


class _Payload:
    """Key access that turns a missing or mistyped field into a located error."""

    def __init__(self, data: Any, source: str, path: str = "") -> None:
        self.data, self.source, self.path = data, source, path

    def __getitem__(self, key: str) -> _Payload:
        where = f"{self.path}.{key}" if self.path else key
        if not isinstance(self.data, dict) or key not in self.data:
            raise InfxError(Problem(f"event payload has no `{where}`", file=self.source, key=where,
                                    fix="check GITHUB_EVENT_NAME matches the payload"))
        return _Payload(self.data[key], self.source, where)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default) if isinstance(self.data, dict) else default

    def sub(self, key: str) -> _Payload | None:
        value = self.get(key)
        return _Payload(value, self.source, f"{self.path}.{key}".lstrip(".")) if value else None

    @property
    def value(self) -> Any:
        return self.data


def _login(user: _Payload | None) -> str:
    return (user.get("login") or "") if user is not None else ""


def _repo(p: _Payload) -> Repo:
    return Repo(p["full_name"].value, p.get("default_branch") or p.get("master_branch") or "main",
                bool(p.get("private", False)))


def _pull(p: _Payload) -> PullRequest:
    p["number"], p["head"]["ref"], p["head"]["sha"], p["base"]["ref"], p["base"]["sha"]  # located errors
    return PullRequest.from_json(p.value)


def _comment(p: _Payload, kind: str = "issue_comment") -> Comment:
    p["id"]  # a located error when the payload has none
    return Comment.from_json(p.value, kind)


def _common(name: str, p: _Payload) -> dict[str, Any]:
    return {"name": name, "action": p.get("action"), "repository": _repo(p["repository"]),
            "sender": _login(p.sub("sender")), "raw": p.value}


def _previous_body(p: _Payload) -> str | None:
    return ((p.get("changes") or {}).get("body") or {}).get("from")


def _pull_request_event(name: str, p: _Payload) -> Event:
    label = p.get("label")
    return PullRequestEvent(**_common(name, p), number=p.get("number") or p["pull_request"]["number"].value,
                            pull_request=_pull(p["pull_request"]),
                            label=label.get("name") if label else None,
                            before=p.get("before"), after=p.get("after"))


def _issue_comment_event(name: str, p: _Payload) -> Event:
    issue = p["issue"]
    return IssueCommentEvent(**_common(name, p), issue_number=issue["number"].value,
                             is_pull_request=bool(issue.get("pull_request")),
                             issue_user=_login(issue.sub("user")), issue_state=issue.get("state") or "",
                             comment=_comment(p["comment"]), previous_body=_previous_body(p))


def _review_event(name: str, p: _Payload) -> Event:
    return PullRequestReviewEvent(**_common(name, p), review=_comment(p["review"], "review"),
                                  pull_request=_pull(p["pull_request"]))


def _review_comment_event(name: str, p: _Payload) -> Event:
    return PullRequestReviewCommentEvent(**_common(name, p),
                                         comment=_comment(p["comment"], "review_comment"),
                                         pull_request=_pull(p["pull_request"]),
                                         previous_body=_previous_body(p))


def _push_event(name: str, p: _Payload) -> Event:
    return PushEvent(**_common(name, p), ref=p["ref"].value, before=p.get("before") or "",
                     after=p.get("after") or "", created=bool(p.get("created")),
                     deleted=bool(p.get("deleted")), forced=bool(p.get("forced")),
                     commits=tuple(c["id"] for c in p.get("commits") or []))


def _dispatch_event(name: str, p: _Payload) -> Event:
    return WorkflowDispatchEvent(**_common(name, p), ref=p.get("ref") or "",
                                 workflow=p.get("workflow") or "", inputs=p.get("inputs") or {})


def _workflow_run_event(name: str, p: _Payload) -> Event:
    r = p["workflow_run"]
    r["id"], r["head_sha"]  # located errors when the payload has none
    return WorkflowRunEvent(**_common(name, p), workflow_run=WorkflowRun.from_json(r.value))


def pull_request_number(event: Event) -> int | None:
    """The pull request an event is about, when there is exactly one."""
    if isinstance(event, PullRequestEvent):
        return event.number
    if isinstance(event, IssueCommentEvent):
        return event.issue_number if event.is_pull_request else None
    if isinstance(event, (PullRequestReviewEvent, PullRequestReviewCommentEvent)):
        return event.pull_request.number if event.pull_request else None
    if isinstance(event, WorkflowRunEvent) and event.workflow_run:
        numbers = event.workflow_run.pull_requests
        return numbers[0] if len(numbers) == 1 else None
    return None


PARSERS = {
    "pull_request": _pull_request_event,
    "pull_request_target": _pull_request_event,
    "issue_comment": _issue_comment_event,
    "pull_request_review": _review_event,
    "pull_request_review_comment": _review_comment_event,
    "push": _push_event,
    "workflow_dispatch": _dispatch_event,
    "workflow_run": _workflow_run_event,
}


_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
               float: "a number", type(None): "null"}


def _describe(error: Any) -> str:
    where = ".".join(map(str, error.absolute_path)) or "the payload"
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "a field"
        return f"event payload `{where}` has no `{missing}`"
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        wanted = " or ".join(w for w in wanted if w != "null") or "null"
        return f"event payload `{where}` is {_JSON_TYPES.get(type(error.instance), 'a value')}, expected {wanted}"
    return f"event payload `{where}`: {error.message}"


def check_payload(name: str, payload: Any, source: str = "<event>") -> None:
    """The payload has the shape of a `name` webhook in every field infx reads (the types GitHub
    sends, schemas/events.schema.json); otherwise one located error per wrong field."""
    from importlib import resources

    from infx.schemas import check_schema

    schema = json.loads(resources.files("infx.github").joinpath("schemas/events.schema.json")
                        .read_text(encoding="utf-8"))
    if name not in schema["$defs"]["events"]:
        raise InfxError(Problem(f"unsupported event `{name}`", key="GITHUB_EVENT_NAME",
                                fix="one of: " + ", ".join(sorted(PARSERS))))
    check_schema({**schema, "$ref": f"#/$defs/events/{name}"}, payload, file=source, describe=_describe,
                 fix=f"pass the {name} webhook payload the runner wrote (GITHUB_EVENT_PATH) with "
                     "--event-name matching it")


def parse_event(name: str, payload: Mapping[str, Any], source: str = "<event>") -> Event:
    """Turn a webhook payload into its dataclass; unknown event names and payloads of another
    shape are an error."""
    parser = PARSERS.get(name)
    if parser is None:
        raise InfxError(Problem(f"unsupported event `{name}`", key="GITHUB_EVENT_NAME",
                                fix="one of: " + ", ".join(sorted(PARSERS))))
    check_payload(name, payload, source)
    return parser(name, _Payload(payload, source))


def load_event(path: str | Path | None = None, name: str | None = None,
               env: Mapping[str, str] | None = None) -> Event:
    """Read the event Actions gives a job ($GITHUB_EVENT_PATH, $GITHUB_EVENT_NAME)."""
    env = os.environ if env is None else env
    name = name or env.get("GITHUB_EVENT_NAME")
    path = path or env.get("GITHUB_EVENT_PATH")
    if not name:
        raise InfxError(Problem("no event name", key="GITHUB_EVENT_NAME",
                                fix="set GITHUB_EVENT_NAME (Actions does this) or pass --event-name"))
    if not path:
        raise InfxError(Problem("no event payload", key="GITHUB_EVENT_PATH",
                                fix="set GITHUB_EVENT_PATH to the webhook payload JSON file"))
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InfxError(Problem(f"cannot read event payload: {exc.strerror or exc}", file=str(path),
                                fix="check GITHUB_EVENT_PATH")) from None
    except ValueError as exc:
        raise InfxError(Problem(f"event payload is not JSON: {exc}", file=str(path),
                                fix="pass the webhook payload file the runner wrote (GITHUB_EVENT_PATH)")) from None
    return parse_event(name, payload, str(path))
