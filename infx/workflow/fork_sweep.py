"""Trusted fork sweeps on GitHub: answer `/approve-sweep` (dispatch), gate the dispatched run, drop an approval a push outdated.

The decisions are infx.commands.fork_approval's; this module reads the facts they need through
the client (the PR as the pulls API reports it now, its comments, the commenters' roles) and
does what they decide:

- `approve` (fork-sweep.yml, `issue_comment`): a maintainer's new comment approving the fork
  PR's current head dispatches run-sweep.yml on the default branch with the inputs `pr-number`
  and `head-sha` (its run is titled with them: infx.trust.fork_sweep_title); 👍, or 👎 with why.
- `gate` (run-sweep.yml's first job of a dispatch): anyone with write access can dispatch a
  workflow with any inputs, so the run decides again, from the comments, that a maintainer
  approved exactly that head of that PR and that it is still the head; otherwise it fails
  before any GPU job. Its outputs are the PR's labels (which choose the sweep) and base branch.
- `drop` (fork-sweep.yml, `pull_request_target` synchronize of a fork PR, no checkout): when
  the push outdated a maintainer's approval, the primary sweep labels are taken off and one
  note comment says that the new head needs a new approval.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from infx import trust
from infx.commands.authorization import authority_of
from infx.commands.fork_approval import (
    USAGE,
    approval,
    approval_standing,
    dropped_approval,
    newest_approval,
)
from infx.commands.grammar import APPROVE_SWEEP_COMMAND, approve_sweep_shas
from infx.errors import InfxError, Problem
from infx.github.models import PullRequest
from infx.inert import code, render_inert
from infx.plan.labels import PRIMARY_LABELS

SWEEP_WORKFLOW_FILE = trust.SWEEP_WORKFLOW.rsplit("/", 1)[-1]
NOTE_MARKER = "infx-fork-sweep"


@dataclass(frozen=True)
class ForkOutcome:
    """What one step did: the reaction given (None: none), the step summary, whether the step
    fails (a refused approval), and the dispatch it sent."""

    reaction: str | None
    summary: str
    failed: bool = False
    dispatched: dict[str, str] | None = None


def _pull(client: Any, repo: str, number: int) -> tuple[PullRequest, str, int | None]:
    """The PR as the pulls API reports it now, the repository's default branch and the PR's
    comment count (a listing that ends early is then an error, never a missed approval)."""
    data = client.get_pull(repo, number, action=f"reading PR #{number}", permission="pull-requests: read")
    pull = PullRequest.from_json(data)
    if not pull.default_branch:
        raise InfxError(Problem(f"GitHub's answer for PR #{number} names no default branch",
                                key=f"PR #{number}", fix="retry the step"))
    count = data.get("comments")
    return pull, pull.default_branch, count if isinstance(count, int) else None


def approve(client: Any, repo: str, event: Any) -> ForkOutcome:
    """Answer one issue_comment event (infx.reuse.ack.CommentEvent) holding `/approve-sweep`."""
    if event.action != "created" or not event.is_pull_request:
        return ForkOutcome(None, "Not a new pull request comment; nothing to do.")
    current = client.get_comment(repo, event.comment_id)
    if current.body != event.body or current.updated_at != event.updated_at:
        return ForkOutcome(None, "The comment changed since this event was queued: an edited comment "
                                 "never approves a sweep.")
    if not approve_sweep_shas(current.body):
        return ForkOutcome(None, f"The comment holds no {APPROVE_SWEEP_COMMAND} line (as shown: not in code, "
                                 "a quote or an HTML comment); nothing to do.")
    number = event.issue_number
    pull, default_branch, _ = _pull(client, repo, number)
    authority = authority_of(current, lambda user: client.collaborator_permission(repo, user))
    decided = approval(current, authority, pull, repo=repo, default_branch=default_branch)
    if not decided.approved or decided.sha is None:
        client.add_reaction(repo, current.id, "-1")
        return ForkOutcome("-1", f"{APPROVE_SWEEP_COMMAND} on PR #{number} refused: "
                                 + render_inert(f"{decided.reason}."), failed=True)
    inputs = {"pr-number": str(number), "head-sha": decided.sha}
    client.workflow_dispatch(repo, SWEEP_WORKFLOW_FILE, default_branch, inputs)
    client.add_reaction(repo, current.id, "+1")
    return ForkOutcome("+1", f"PR #{number}: " + render_inert(f"{decided.reason}; dispatched "
                                                              f"{SWEEP_WORKFLOW_FILE} on {default_branch} "
                                                              f"as '{trust.fork_sweep_title(number, decided.sha)}'."),
                       dispatched=inputs)


def gate(client: Any, repo: str, number: int, head_sha: str) -> dict[str, str]:
    """The dispatched run's outputs (`labels-json`, `base-ref`, `head-sha`, `approver`) when a
    maintainer's approval of PR `number` holds for exactly `head_sha`; InfxError otherwise."""
    pull, default_branch, count = _pull(client, repo, number)
    comments = client.list_comments(repo, number, expected=count)
    decided = newest_approval(comments, lambda user: client.collaborator_permission(repo, user), pull,
                              repo=repo, default_branch=default_branch)

    def refuse(why: str) -> InfxError:
        return InfxError(Problem(f"no fork sweep of PR #{number} at {head_sha[:12] or '(no sha)'}: {why}",
                                 key="head-sha", fix=f"a maintainer approves the PR's head: {USAGE}"))

    if not decided.approved or decided.sha is None:
        raise refuse(decided.reason)
    moved = approval_standing(decided.sha, head_sha)
    if moved is not None:
        raise refuse(f"the dispatch names {head_sha[:12] or '(no sha)'}, but the approval is for "
                     f"{decided.sha[:12]}")
    return {"labels-json": json.dumps(list(pull.labels)), "base-ref": pull.base_ref,
            "head-sha": decided.sha, "approver": decided.approver or ""}


def drop(client: Any, repo: str, number: int) -> ForkOutcome:
    """After a push to fork PR `number`: take the primary sweep labels off and post the note,
    when the push outdated a maintainer's approval."""
    pull, _, count = _pull(client, repo, number)
    if pull.head_repo and not trust.is_fork_pull(pull.head_repo, repo):
        return ForkOutcome(None, f"PR #{number} is not from a fork; its own sweep runs decide.")
    comments = client.list_comments(repo, number, expected=count)
    dropped = dropped_approval(comments, lambda user: client.collaborator_permission(repo, user), pull)
    if dropped is None or dropped.sha is None:
        return ForkOutcome(None, f"PR #{number}: no approval of an earlier head to drop.")
    removed = [label for label in pull.labels if label in PRIMARY_LABELS
               and client.remove_label(repo, number, label)]
    client.upsert_comment(repo, number, NOTE_MARKER, drop_note(dropped.sha, pull.head_sha, removed))
    took = f" Removed {', '.join(code(label) for label in removed)}." if removed else ""
    return ForkOutcome(None, f"PR #{number}: " + render_inert(f"{dropped.reason}{took}"))


def drop_note(approved: str, head: str, removed: list[str]) -> str:
    """The note a push that outdated an approval leaves (shas and known label names only)."""
    labels = ", ".join(code(label) for label in removed)
    took = f" The sweep label {labels} was removed." if removed else ""
    return render_inert(f"Fork sweep: the approval of {code(approved[:12])} no longer holds, the PR's head "
                        f"is now {code(head[:12])}.{took} A maintainer must read the new head, add one "
                        f"primary sweep label and comment {code(f'{APPROVE_SWEEP_COMMAND} {head}')}.")
