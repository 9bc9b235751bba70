"""Which events start a verification, and whether the PR and the actor allow it (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from infx.commands.grammar import has_reverify
from infx.signoff.trigger.checklist import has_trigger

WRITE_PERMISSIONS = frozenset({"admin", "write"})
WRITE_ROLES = frozenset({"admin", "maintain", "write"})
_REVIEW_STATES = frozenset({"approved", "commented"})
_URL = re.compile(
    r"^https://[^/\s]+/(?P<repo>[^/\s]+/[^/\s]+)/pull/(?P<number>\d+)(?:/[^#\s]*)?"
    r"#(?:issuecomment-(?P<issue>\d+)|pullrequestreview-(?P<review>\d+)|discussion_r(?P<inline>\d+))$")


def withdrawn_problem(kind: str, state: str, what: str) -> str | None:
    """Why a sign-off no longer speaks (None: it does): a review a maintainer dismissed is
    withdrawn, whatever its text says; it neither starts, carries nor outranks a verdict."""
    if kind == "review" and state.upper() == "DISMISSED":
        return f"{what} was dismissed"
    return None


@dataclass(frozen=True)
class SignoffRef:
    """Where the sign-off lives: which API object kind, and its id."""

    kind: str  # issue_comment | review | review_comment
    id: int


@dataclass(frozen=True)
class Trigger:
    """The outcome of looking at one event: run (with what) or skip (with why)."""

    run: bool
    reason: str
    pr_number: int | None = None
    ref: SignoffRef | None = None
    actor: str | None = None
    dispatched: bool = False
    # `/reverify`: a dispatch's rule of who may ask, but the PR must be open and ready, as for
    # any comment (only a workflow dispatch verifies a draft or closed PR)
    reverify: bool = False

    @property
    def asked_again(self) -> bool:
        """A re-verification someone asked for: the signer or maintain/admin may (binding.dispatch_problem)."""
        return self.dispatched or self.reverify


def skip(reason: str) -> Trigger:
    return Trigger(False, reason)


def is_bot(login: str | None, user_type: str | None = None) -> bool:
    return (login or "").endswith("[bot]") or (user_type or "").lower() == "bot"


def parse_comment_url(url: str) -> tuple[int, SignoffRef]:
    """(PR number, sign-off ref) from a comment URL; any other URL form is an error."""
    match = _URL.match((url or "").strip())
    if not match:
        raise ValueError(f"unsupported comment URL {url!r}: use a PR comment link ending in "
                         "#issuecomment-<id>, #pullrequestreview-<id> or #discussion_r<id>")
    if match["issue"]:
        ref = SignoffRef("issue_comment", int(match["issue"]))
    elif match["review"]:
        ref = SignoffRef("review", int(match["review"]))
    else:
        ref = SignoffRef("review_comment", int(match["inline"]))
    return int(match["number"]), ref


def from_event(event_name: str, payload: dict[str, Any]) -> Trigger:
    """Decide from the webhook payload alone (no API calls) whether to verify."""
    sender = payload.get("sender") or {}
    if event_name == "workflow_dispatch":
        return _dispatch(payload, sender)
    if is_bot(sender.get("login"), sender.get("type")):
        return skip("events from bots never start a verification")
    handler = _HANDLERS.get(event_name)
    if handler is None:
        return skip(f"event {event_name!r} does not start a verification")
    return handler(payload, sender)


def _issue_comment(payload: dict[str, Any], sender: dict[str, Any]) -> Trigger:
    issue, comment = payload.get("issue") or {}, payload.get("comment") or {}
    if payload.get("action") != "created":
        return skip(f"comment {payload.get('action')}: only newly created sign-offs run; "
                    "ask a maintainer to dispatch a re-verification")
    if not issue.get("pull_request"):
        return skip("the comment is on an issue, not a pull request")
    if not has_trigger(comment.get("body")) and has_reverify(comment.get("body")):
        return _reverify_trigger(comment, sender, issue.get("number"))
    return _comment_trigger(comment, sender, issue.get("number"), "issue_comment")


def _reverify_trigger(comment: dict[str, Any], sender: dict[str, Any], number: Any) -> Trigger:
    """`/reverify`: the newest sign-off of the PR is verified again; its signer, or
    maintain/admin, may ask (binding.dispatch_problem decides), on an open, ready PR."""
    user = comment.get("user") or {}
    if is_bot(user.get("login"), user.get("type")):
        return skip("commands posted by bots are ignored")
    if not isinstance(number, int):
        return skip("the event has no pull request number")
    return Trigger(True, "/reverify", number, None, actor=user.get("login") or sender.get("login"),
                   reverify=True)


def _review(payload: dict[str, Any], sender: dict[str, Any]) -> Trigger:
    review = payload.get("review") or {}
    if payload.get("action") != "submitted":
        return skip(f"review {payload.get('action')}: only newly submitted reviews run")
    if str(review.get("state", "")).lower() not in _REVIEW_STATES:
        return skip(f"review state {review.get('state')!r} does not start a verification")
    return _comment_trigger(review, sender, (payload.get("pull_request") or {}).get("number"),
                            "review")


def _review_comment(payload: dict[str, Any], sender: dict[str, Any]) -> Trigger:
    if payload.get("action") != "created":
        return skip(f"inline comment {payload.get('action')}: only new sign-offs run")
    return _comment_trigger(payload.get("comment") or {}, sender,
                            (payload.get("pull_request") or {}).get("number"), "review_comment")


def _comment_trigger(obj: dict[str, Any], sender: dict[str, Any], number: Any, kind: str) -> Trigger:
    user = obj.get("user") or {}
    if is_bot(user.get("login"), user.get("type")):
        return skip("sign-offs posted by bots are ignored")
    if not has_trigger(obj.get("body")):
        return skip("the text does not contain the sign-off phrase")
    if not isinstance(number, int) or not isinstance(obj.get("id"), int):
        return skip("the event has no pull request number or comment id")
    return Trigger(True, "new sign-off", number, SignoffRef(kind, obj["id"]),
                   actor=user.get("login") or sender.get("login"))


def _dispatch(payload: dict[str, Any], sender: dict[str, Any]) -> Trigger:
    inputs = payload.get("inputs") or {}
    raw_number, url = inputs.get("pr-number"), inputs.get("comment_url")
    if is_bot(sender.get("login"), sender.get("type")):
        return skip("dispatches by bots never start a verification")
    try:
        number = int(str(raw_number).strip())
    except ValueError:
        raise ValueError(f"input pr-number must be a number, got {raw_number!r}") from None
    url_number, ref = parse_comment_url(str(url or ""))
    if url_number != number:
        raise ValueError(f"comment_url points at PR #{url_number} but pr-number is {number}; "
                         "give the URL of a comment on that PR")
    return Trigger(True, "manual dispatch", number, ref, actor=sender.get("login"), dispatched=True)


_HANDLERS = {
    "issue_comment": _issue_comment,
    "pull_request_review": _review,
    "pull_request_review_comment": _review_comment,
}


def pr_state_problem(state: str, draft: bool, dispatched: bool) -> str | None:
    """Event-triggered runs need an open, non-draft PR; a dispatch may target any state."""
    if dispatched:
        return None
    if state != "open":
        return f"the PR is {state}; sign-offs on closed PRs are not verified"
    if draft:
        return "the PR is a draft; mark it ready for review, then dispatch a verification"
    return None


def actor_problem(login: str | None, permission: dict[str, str] | None) -> str | None:
    """The actor needs write access (permission admin/write AND role admin/maintain/write)."""
    if not login or is_bot(login):
        return "bots cannot start a verification"
    if permission is None:
        return f"{login} has no access to this repository"
    if (permission.get("permission") not in WRITE_PERMISSIONS
            or permission.get("role_name") not in WRITE_ROLES):
        return (f"{login} has {permission.get('role_name') or permission.get('permission')} "
                "access; starting a verification needs write access")
    return None
