"""Trusted fork sweeps: whether a maintainer's `/approve-sweep <sha>` approves a fork PR's exact head for a sweep (pure).

A fork PR never runs GPU jobs from its own workflow run (PRODUCT §4.4). It is swept only when a
maintainer or admin (the collaborator permission API's `role_name`; `permission` folds maintain
into write) approves the exact head commit they read, by a comment line
`/approve-sweep <40-hex sha>`. The commit is named in the approval, not taken from an event: a
label cannot name a commit, and a `labeled` event's head may be a push that landed seconds
before the label, content the maintainer never read. The PR's one primary sweep label chooses
the sweep (canary, fail-fast, trim), as on a same-repository PR.

An approval holds for its commit only: once the PR's head is another commit (any push) it
approves nothing, and a new head needs a new approval. Every reader of "is this head approved"
asks `approval` / `newest_approval` with the PR as the pulls API reports it now, and only
`created` comments count (an edit is not a new approval).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from infx.commands.authorization import Authority, authority_of, is_bot
from infx.commands.grammar import APPROVE_SWEEP_COMMAND, approve_sweep_shas, newest_first
from infx.errors import InfxError
from infx.github.models import PullRequest
from infx.plan.labels import PRIMARY_LABELS, SweepFlags, sweep_flags
from infx.trust import is_fork_pull

USAGE = f"{APPROVE_SWEEP_COMMAND} <the PR's full 40-character head sha>"


@dataclass(frozen=True)
class Approval:
    """The decision on one comment: approved (with the commit and the sweep it asks for) or why not.

    `command` is False when the comment holds no approval line at all (nothing to answer)."""

    approved: bool
    reason: str
    command: bool = True
    sha: str | None = None
    approver: str | None = None
    comment_id: int | None = None
    flags: SweepFlags | None = None


def _field(comment: Any, name: str) -> Any:
    return comment.get(name) if isinstance(comment, Mapping) else getattr(comment, name, None)


def approval(comment: Any, authority: Authority | Any, pull: PullRequest, *, repo: str,
             default_branch: str, action: str = "created") -> Approval:
    """Whether `comment` (body, user, user_type, id) approves the PR's current head for a sweep.

    `authority`: the author's standing (infx.commands.authorization.authority_of); `action`: the
    issue_comment event's action (only a `created` comment approves)."""
    user = _field(comment, "user") or ""
    comment_id = _field(comment, "id")
    shas = list(dict.fromkeys(approve_sweep_shas(_field(comment, "body"))))
    if not shas:
        return Approval(False, f"no {APPROVE_SWEEP_COMMAND} line (usage: {USAGE})", command=False)

    def refuse(reason: str) -> Approval:
        return Approval(False, reason, sha=shas[0] if len(shas) == 1 else None,
                        approver=user or None, comment_id=comment_id)

    if action != "created":
        return refuse(f"the comment was {action or 'changed'}, not posted: only a new comment approves a sweep")
    if is_bot(user, _field(comment, "user_type")):
        return refuse("a bot account never approves a fork sweep")
    standing = Authority.of(authority)
    if not standing.elevated:
        return refuse(f"approving a fork sweep needs the maintain or admin role; {user or 'the author'} "
                      f"has {standing.role_name}")
    if len(shas) > 1:
        return refuse(f"the comment names {len(shas)} commits; approve exactly one, the PR's head")
    if pull.base_ref != default_branch:
        return refuse(f"the PR targets {pull.base_ref}, not {default_branch}: only PRs into the default "
                      "branch are swept")
    if pull.state != "open":
        return refuse(f"the PR is {pull.state}, not open")
    if pull.draft:
        return refuse("the PR is a draft: drafts never sweep")
    if not pull.head_repo:
        return refuse("the PR's head repository was deleted")
    if not is_fork_pull(pull.head_repo, repo):
        return refuse("the PR's head is in this repository: its own run-sweep.yml run sweeps it, "
                      "no approval is needed")
    if shas[0] != pull.head_sha:
        return refuse(f"the approval names {shas[0][:12]}, but the PR's head is {pull.head_sha[:12]}: a push "
                      "after an approval drops it; approve the new head after reading it")
    try:
        flags = sweep_flags(pull.labels)
    except InfxError as exc:
        return refuse(str(exc).splitlines()[0])
    if not flags.primary:
        return refuse(f"the PR has no primary sweep label; add exactly one of {', '.join(PRIMARY_LABELS)}")
    return Approval(True, f"{user} approved {shas[0][:12]} for a {flags.primary} sweep", sha=shas[0],
                    approver=user, comment_id=comment_id, flags=flags)


def newest_approval(comments: Iterable[Any], permission_of: Callable[[str], Any], pull: PullRequest, *,
                    repo: str, default_branch: str) -> Approval:
    """The approval of the PR's current head by its newest approving comment, else why there is
    none: the newest refusal among the comments that hold an approval line (a push after an
    approval makes every earlier approval name another commit). Permissions are read lazily,
    once per author; an unreadable permission of anyone but an outsider raises."""
    cache: dict[str, Authority] = {}
    newest_refusal: Approval | None = None
    for comment in newest_first(comments):
        if not approve_sweep_shas(_field(comment, "body")):
            continue
        user = _field(comment, "user") or ""
        if user not in cache:
            cache[user] = authority_of(comment, permission_of)
        # a listed comment edited since it was posted is an edit, never a new approval: anyone with
        # write access may edit another's comment (an old approval re-pointed at a new head)
        edited = _field(comment, "updated_at") not in (None, _field(comment, "created_at"))
        decided = approval(comment, cache[user], pull, repo=repo, default_branch=default_branch,
                           action="edited" if edited else "created")
        if decided.approved:
            return decided
        newest_refusal = newest_refusal or decided
    return newest_refusal or Approval(False, f"no comment approves a sweep (usage: {USAGE})", command=False)


def dropped_approval(comments: Iterable[Any], permission_of: Callable[[str], Any],
                     pull: PullRequest) -> Approval | None:
    """The approval a push dropped, or None: the newest posted (never edited) comment of a
    maintainer or admin that approves exactly one commit, when that commit is no longer the
    PR's head. None when the newest such approval names the head (nothing was dropped) or
    there is none. Permissions are read once per author, as in `newest_approval`."""
    cache: dict[str, Authority] = {}
    for comment in newest_first(comments):
        shas = list(dict.fromkeys(approve_sweep_shas(_field(comment, "body"))))
        if len(shas) != 1 or is_bot(_field(comment, "user") or "", _field(comment, "user_type")):
            continue
        if _field(comment, "updated_at") not in (None, _field(comment, "created_at")):
            continue  # an edit is never an approval, so it drops nothing either
        user = _field(comment, "user") or ""
        if user not in cache:
            cache[user] = authority_of(comment, permission_of)
        if not cache[user].elevated:
            continue
        if shas[0] == pull.head_sha:
            return None
        return Approval(False, approval_standing(shas[0], pull.head_sha) or "", sha=shas[0],
                        approver=user, comment_id=_field(comment, "id"))
    return None


def approval_standing(approved_sha: str, head_sha: str) -> str | None:
    """Why an approval no longer holds for the PR's head (None: it does). Asked again before
    every GPU job starts and on every push: a moved head drops the approval."""
    if approved_sha != head_sha:
        return (f"the approval was for {approved_sha[:12]}; the PR's head is now {head_sha[:12]}. "
                f"A maintainer must read the new head and approve it ({USAGE}).")
    return None
