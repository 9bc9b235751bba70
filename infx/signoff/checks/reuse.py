"""Check `reuse` (advisory): an authorised reuse command (`/use <id>` or `/reuse-sweep-run`) was posted.

Authorised means exactly what the reuse resolver accepts: `infx.commands.authorization.newest_request`
decides, over the same conversation, with the collaborator permissions the evidence gatherer
read through that same function (a read-only MEMBER or a bot never passes here either).
"""

from __future__ import annotations

from typing import Any

from infx.commands.authorization import Authority, is_bot, newest_request
from infx.commands.grammar import (
    AuthorizedRequest,
    parse_command,
    raw_commands,
)
from infx.inert import code
from infx.reuse.posted_head import ADVISORY_LATER_HEADS, binding_problem
from infx.signoff.model import Comment, Evidence, Outcome, Status
from infx.signoff.rules import provenance
from infx.signoff.rules.sweeps import plans_nothing
from infx.signoff.table import Settings

ASK = f"a maintainer should post {code('/use <run_id>')} on its own line."


class _Unknown(Exception):
    """A permission the decision needs was not read (read error or lookup budget)."""

    def __init__(self, user: str) -> None:
        super().__init__(user)
        self.user = user


def run(evidence: Evidence, settings: Settings) -> Outcome:
    if plans_nothing(evidence):
        return Outcome(Status.NA, "the head's plan has no rows, so there is no sweep to reuse.")
    if evidence.comments is None:
        return Outcome(Status.WARN, "the PR conversation could not be read, so no authorised "
                       "reuse command can be confirmed; " + ASK)
    conversation = [c for c in evidence.comments if c.kind == "issue_comment"]

    def permission_of(user: str) -> Any:
        login = user.lower()
        if login not in evidence.collaborators or f"permission:{login}" in evidence.read_errors:
            raise _Unknown(user)
        return evidence.collaborators[login]

    try:
        request = newest_request(conversation, permission_of)
    except _Unknown as unknown:
        return Outcome(Status.WARN, f"{unknown.user}'s repository permission could not be read, "
                       "so their reuse command cannot be confirmed as authorised; " + ASK)
    if request is not None:
        comment = request.comment
        unbound = _unbound(evidence, request)
        if unbound is not None:
            return Outcome(Status.WARN, unbound)
        return Outcome(Status.PASS, f"{request.command} was posted by {comment.user} "
                       f"({comment.author_association}).")
    refused: list[Comment] = []  # the newest three turned-away commands, oldest first
    for c in reversed(conversation):
        if len(refused) == 3:
            break
        if raw_commands(c.body) and parse_command(c.body) is not None:
            refused.insert(0, c)
    if refused:
        who = ", ".join(_who(c, evidence) for c in refused)
        return Outcome(Status.WARN, f"no authorised reuse command has been posted (only from {who}); "
                       + ASK)
    return Outcome(Status.WARN, "no authorised reuse command has been posted; " + ASK)


def _who(comment: Comment, evidence: Evidence) -> str:
    """The author and why the resolver turns them away."""
    if is_bot(comment.user, comment.user_type):
        return f"{comment.user} (a bot)"
    if comment.user.lower() not in evidence.collaborators:  # ruled out by association, unread
        return f"{comment.user} ({comment.author_association}, permission not read)"
    authority = Authority.of(evidence.collaborators.get(comment.user.lower()))
    return f"{comment.user} ({comment.author_association}, {authority.role_name} permission)"


def _unbound(evidence: Evidence, request: AuthorizedRequest) -> str | None:
    """Why the command no longer covers the assessed head, as the resolver would say it."""
    comment, pr = request.comment, evidence.pr
    ref = f"{request.command} (comment {comment.id} by {comment.user})"
    if evidence.reuse_seen_head is None:
        return (f"{ref} is authorised, but which PR head it was posted on was not read, so "
                "whether it still covers this head cannot be confirmed")
    trees = {**evidence.commit_files, evidence.reuse_seen_head: evidence.reuse_seen_files,
             pr.head_sha: evidence.head_files, pr.base_sha: evidence.base_files}
    return binding_problem(comment_ref=ref, seen=evidence.reuse_seen_head or None, head=pr.head_sha,
                           pr_commits=evidence.commits or [], base=pr.base_sha, tree=trees.__getitem__,
                           unknown=evidence.reuse_seen_problem,
                           own=lambda seen: provenance.own_changes(evidence, seen),
                           later=evidence.reuse_seen_later, limit=ADVISORY_LATER_HEADS)
