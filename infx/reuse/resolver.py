"""Resolve reuse for a PR push (skip the sweep?) and for a push to main (reuse which run?)."""

from __future__ import annotations

from dataclasses import dataclass

from infx.benchmark_content import Unreadable, differences
from infx.reuse.authorization import newest_request
from infx.reuse.binding import binding_problem, head_when_posted
from infx.reuse.gateway import GitHubGateway
from infx.reuse.grammar import AuthorizedRequest
from infx.reuse.model import ReuseError, ReuseResult, RunFacts
from infx.reuse.sources import DEFAULT_WORKFLOW, INCOMPATIBLE_LABELS, check_labels, select_source


@dataclass(frozen=True)
class ResolveRequest:
    event_name: str
    event_action: str = ""
    pr_number: int | None = None
    ref: str = ""
    commit_sha: str = ""
    workflow: str = DEFAULT_WORKFLOW
    incompatible_labels: tuple[str, ...] = INCOMPATIBLE_LABELS
    default_branch: str = "main"


def find_request(gateway: GitHubGateway, pr_number: int) -> AuthorizedRequest | None:
    return newest_request(gateway.comments(pr_number), gateway.permission)


def unbound_reason(gateway: GitHubGateway, pr_number: int, request: AuthorizedRequest,
                   head: str | None = None) -> str | None:
    """Why the request does not cover the PR at `head` (default: its current head), or None.

    An authorization covers the plan and the benchmark-affecting files as they were when the
    command was posted (infx.reuse.binding); a later push that changes them needs a new command.
    """
    pull = gateway.pull(pr_number, fresh=False)  # read moments ago, with the comments
    head = head or pull.head_sha
    comment = request.comment
    seen = head_when_posted(gateway.pull_runs(pull.head_ref), comment.created_at,
                            branch=pull.head_ref, head_repo=pull.head_repo)
    if seen == head:
        return None
    return binding_problem(comment_ref=f"{request.command} (comment {comment.id} by {comment.user})",
                           seen=seen, head=head, pr_commits=gateway.pull_commits(pr_number),
                           base=pull.base_sha, tree=gateway.tree)


def resolve_source(gateway: GitHubGateway, pr_number: int, request: AuthorizedRequest,
                   *, workflow: str = DEFAULT_WORKFLOW,
                   incompatible: tuple[str, ...] = INCOMPATIBLE_LABELS, require_merged: bool = False,
                   require_open: bool = False, head: str | None = None) -> RunFacts:
    """Check the PR, then pick and validate the source run the request points at.

    The run must have swept the same benchmark-affecting content as `head` (default: the
    PR's current head), so a run of an earlier plan is never reused.
    """
    pull = gateway.pull(pr_number)
    if require_merged and not pull.merged:
        raise ReuseError(f"PR #{pr_number} is not marked as merged.")
    if require_open and pull.state != "open":
        raise ReuseError(f"PR #{pr_number} is {pull.state}, not open.")
    check_labels(pr_number, pull.labels, incompatible)
    commits = gateway.pull_commits(pr_number)
    head = head or pull.head_sha

    def drift(run: RunFacts) -> list[str]:
        if run.head_sha == head:
            return []
        try:
            return differences(gateway.tree(run.head_sha), gateway.tree(head),
                               gateway.tree(pull.base_sha))
        except Unreadable as exc:
            raise ReuseError(f"cannot compare run {run.id}'s commit {run.head_sha[:12]} with the "
                             f"head {head[:12]}: {exc}") from exc

    return select_source(request.command, pr_number, commits, get_run=gateway.run,
                         branch_runs=lambda: gateway.branch_runs(pull.head_ref),
                         artifacts_of=gateway.artifacts, workflow=workflow,
                         elevated=request.authority is not None and request.authority.elevated,
                         drift=drift)


def resolve(gateway: GitHubGateway, req: ResolveRequest) -> ReuseResult:
    """The resolver's decision for one workflow event (raises ReuseError to fail closed)."""
    if req.event_name == "pull_request":
        return _resolve_pr(gateway, req)
    if req.event_name != "push" or req.ref != f"refs/heads/{req.default_branch}":
        return ReuseResult(reason=f"not a push to {req.default_branch}")
    return _resolve_push(gateway, req)


def _resolve_pr(gateway: GitHubGateway, req: ResolveRequest) -> ReuseResult:
    if req.event_action != "synchronize":
        return ReuseResult(reason=f"pull_request action {req.event_action or '(none)'} is not synchronize")
    if req.pr_number is None:
        raise ReuseError("--pr-number is required for a pull_request synchronize event")
    request = find_request(gateway, req.pr_number)
    if request is None:
        return ReuseResult(pr_number=req.pr_number,
                           reason=f"PR #{req.pr_number} has no /reuse-sweep-run authorization")
    unbound = unbound_reason(gateway, req.pr_number, request, req.commit_sha or None)
    if unbound is not None:  # sweep this push: the command does not cover it
        return ReuseResult(pr_number=req.pr_number, reason=unbound)
    source = resolve_source(gateway, req.pr_number, request, workflow=req.workflow,
                            incompatible=req.incompatible_labels, head=req.commit_sha or None)
    return ReuseResult(skip_pr_sweep=True, source=source, pr_number=req.pr_number,
                       reason=f"{request.command} authorized; reusing run {source.id} instead of sweeping")


def _resolve_push(gateway: GitHubGateway, req: ResolveRequest) -> ReuseResult:
    if not req.commit_sha:
        raise ReuseError("--commit-sha is required for a push event")
    numbers = sorted({int(p["number"]) for p in gateway.pulls_for_commit(req.commit_sha)})
    if not numbers:
        return ReuseResult(reason="no associated pull request")
    if len(numbers) > 1:
        authorized = [n for n in numbers if find_request(gateway, n) is not None]
        if authorized:
            listed = ", ".join(f"#{n}" for n in numbers)
            raise ReuseError(f"commit {req.commit_sha[:12]} maps to multiple PRs ({listed}); "
                             "refusing to reuse artifacts")
        return ReuseResult(reason="multiple associated pull requests")
    number = numbers[0]
    request = find_request(gateway, number)
    if request is None:
        return ReuseResult(pr_number=number, reason=f"PR #{number} has no /reuse-sweep-run authorization")
    unbound = unbound_reason(gateway, number, request)
    if unbound is not None:  # the merge does not reuse a run the command no longer covers
        return ReuseResult(pr_number=number, reason=unbound)
    source = resolve_source(gateway, number, request, workflow=req.workflow,
                            incompatible=req.incompatible_labels, require_merged=True)
    return ReuseResult(enabled=True, source=source, pr_number=number,
                       reason=f"approved sweep reuse from run {source.id}")
