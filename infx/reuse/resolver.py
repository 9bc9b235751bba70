"""Resolve reuse for a PR push (skip the sweep?) and for a push to main (reuse which run?)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from infx import trust
from infx.commands.authorization import newest_request
from infx.commands.grammar import AuthorizedRequest
from infx.errors import InfxError
from infx.github.models import PullRequest, WorkflowRun
from infx.plan.benchmark_content import Tree, Unreadable, differences
from infx.plan.coverage import Coverage
from infx.reuse.covering import (
    TreeReader,
    Wanted,
    coverage,
    eligible_runs,
    flags_of,
    head_content,
    plan_at,
)
from infx.reuse.facts import ReuseError, ReuseResult
from infx.reuse.gateway import GitHubGateway
from infx.reuse.posted_head import binding_problem, head_seen
from infx.reuse.sources import (
    DEFAULT_WORKFLOW,
    INCOMPATIBLE_LABELS,
    Trust,
    check_labels,
    select_source,
    workflow_path,
)

COVER_FIX = "sweep the missing rows (push to the PR, or re-apply its sweep label), or pin a run that covers them"


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
    before_sha: str = ""  # a push's previous tip (the merge commit's plan is diffed against it)


def find_request(gateway: GitHubGateway, pr_number: int) -> AuthorizedRequest | None:
    return newest_request(gateway.comments(pr_number), gateway.permission)


def unbound_reason(gateway: GitHubGateway, pr_number: int, request: AuthorizedRequest,
                   head: str | None = None) -> str | None:
    """Why the request does not cover the PR at `head` (default: its current head), or None.

    An authorization covers the plan and the benchmark-affecting files as they were when the
    command was posted (infx.reuse.posted_head); a later push that changes them needs a new command.
    """
    pull = gateway.pull(pr_number, fresh=False)  # read moments ago, with the comments
    head = head or pull.head_sha
    comment = request.comment
    seen = head_seen(gateway.pull_runs(pull.head_ref), comment.created_at, branch=pull.head_ref,
                     head_repo=pull.head_repo,
                     timeline=gateway.timeline(pr_number, pull.head_sha, gateway.pull_commits(pr_number)),
                     pr_number=pr_number, pulls=gateway.branch_pulls(pull.head_ref))
    if seen.sha == head and not seen.later:
        return None
    return binding_problem(comment_ref=f"{request.command} (comment {comment.id} by {comment.user})",
                           seen=seen.sha, head=head, pr_commits=gateway.pull_commits(pr_number),
                           base=pull.base_sha, tree=gateway.tree, unknown=seen.problem,
                           own=lambda sha: gateway.own(pull.base_ref, sha, head), later=seen.later)


def plan_of(gateway: GitHubGateway, pull: PullRequest, head: str, base: str | None = None, *,
            merged: bool = False) -> Wanted:
    """The plan of `head` (against `base`, default the PR's base) with its row fingerprints:
    under the PR's labels, or, for a merge (`merged`), as a push to the default branch plans
    it, with no labels (PRODUCT §4.4: merge-time reuse is decided by coverage, not labels)."""
    base = base or pull.base_sha
    return plan_at(gateway.tree(base), gateway.tree(head), flags_of(() if merged else pull.labels),
                   base_ref=base, head_ref=head)


def ours_by(gateway: GitHubGateway, pull: PullRequest, workflow: str = DEFAULT_WORKFLOW,
            reference: str | None = None) -> Trust:
    """The trust decision (infx.trust.our_run) for the PR's runs, read through the gateway
    (`reference`: the commit whose sweep files are ours; default the default branch's tip)."""
    return lambda run: gateway.run_problem(run, pull.default_branch, workflow=workflow_path(workflow),
                                           reference=reference)


def fork_sweeps(gateway: GitHubGateway, pull: PullRequest, commits: list[str],
                workflow: str = DEFAULT_WORKFLOW) -> list[WorkflowRun]:
    """A fork PR's trusted fork sweeps on its commits, found as the sign-off finds them
    (infx.trust.fork_sweeps; none for a same-repository PR, and then nothing is listed)."""
    return trust.fork_sweeps(pull.number, commits, head_repo=pull.head_repo, repo=gateway.repo,
                             dispatched=lambda: gateway.dispatched_runs(pull.default_branch, since_pr=pull.number),
                             workflow=workflow_path(workflow))


def sweep_runs(gateway: GitHubGateway, pull: PullRequest, commits: list[str], *,
               workflow: str = DEFAULT_WORKFLOW, ours: Trust | None = None,
               exclude: tuple[int, ...] = (), wanted: Wanted | None = None,
               tree: TreeReader | None = None, base: Tree | None = None) -> list[WorkflowRun]:
    """The PR's sweep runs that are ours (`ours`, default `ours_by`), newest first: its
    branch's pull_request runs on its commits and, for a fork PR, its trusted fork sweeps.
    With `wanted` (the plan being decided, against the tree `base`, default the PR's base), also the
    runs on commits a force-push or rebase removed from the PR whose content is the head's for
    every row of it (infx.trust.counts_for_pr; trees read with `tree`, default the gateway's)."""
    same = None
    if wanted is not None:
        same = head_content(wanted, tree or tree_reader(gateway),
                            gateway.tree(pull.base_sha) if base is None else base)
    return eligible_runs(gateway.branch_runs(pull.head_ref), commits, exclude=exclude,
                         pinned=fork_sweeps(gateway, pull, commits, workflow),
                         ours=ours or ours_by(gateway, pull, workflow), repo=gateway.repo,
                         default_branch=pull.default_branch, same=same)


def tree_reader(gateway: GitHubGateway) -> TreeReader:
    """The gateway's commit reader for fingerprints: an unreadable commit (gone, or GitHub
    failed) is None, so that its run covers nothing."""
    def read(sha: str) -> Tree | None:
        try:
            return gateway.tree(sha)
        except InfxError:
            return None
    return read


def results_problem(gateway: GitHubGateway, run_ids: list[int]) -> ReuseError | None:
    """The runs a reuse takes rows from must still hold their results (unexpired artifacts)."""
    gone = [(r, why) for r in run_ids if (why := trust.artifacts_problem(gateway.artifacts(r))) is not None]
    if not gone:
        return None
    return ReuseError("; ".join(f"run {r} holds rows of the plan but {why}" for r, why in gone),
                      fix="sweep those rows again")


def cover_by(gateway: GitHubGateway, wanted: Wanted, runs: list[WorkflowRun], base: str) -> Coverage:
    """How far the runs' green jobs cover the wanted rows with identical fingerprints."""
    found, _ = coverage(wanted, runs, jobs_of=gateway.run_jobs, tree=gateway.tree, base=gateway.tree(base))
    return found


def resolve_source(gateway: GitHubGateway, pr_number: int, request: AuthorizedRequest,
                   *, workflow: str = DEFAULT_WORKFLOW,
                   incompatible: tuple[str, ...] = INCOMPATIBLE_LABELS, require_merged: bool = False,
                   require_open: bool = False, head: str | None = None) -> WorkflowRun:
    """Check the PR, then pick and validate the source run the request points at.

    The run must have swept the same benchmark-affecting content as `head` (default: the
    PR's current head), so a run of an earlier plan is never reused; and it must cover every
    row of the head's plan with a green job of the same fingerprint (a pinned run alone; for
    `/reuse-sweep-run` without a run id, the PR's runs together: see `covering_sources`).
    """
    return covering_sources(gateway, pr_number, request, workflow=workflow, incompatible=incompatible,
                            require_merged=require_merged, require_open=require_open, head=head)[0]


def covering_sources(gateway: GitHubGateway, pr_number: int, request: AuthorizedRequest,
                     *, workflow: str = DEFAULT_WORKFLOW,
                     incompatible: tuple[str, ...] = INCOMPATIBLE_LABELS, require_merged: bool = False,
                     require_open: bool = False, head: str | None = None,
                     reference: str | None = None) -> tuple[WorkflowRun, tuple[int, ...]]:
    """(the source run, every run whose rows the reuse takes, the source first); `reference`:
    the commit whose sweep workflow files are ours (at a merge, the default branch before it)."""
    pull = gateway.pull(pr_number)
    if require_merged and not pull.merged:
        raise ReuseError(f"PR #{pr_number} is not marked as merged.")
    if require_open and pull.state != "open":
        raise ReuseError(f"PR #{pr_number} is {pull.state}, not open.")
    if not require_merged:  # at a merge, coverage decides, whatever labels the PR had
        check_labels(pr_number, pull.labels, incompatible)
    commits = gateway.pull_commits(pr_number)
    head = head or pull.head_sha
    wanted: list[Wanted] = []

    def plan() -> Wanted:
        if not wanted:
            wanted.append(plan_of(gateway, pull, head, merged=require_merged))
        return wanted[0]

    def drift(run: WorkflowRun) -> list[str]:
        swept = trust.swept_commit(run)  # a fork sweep's pinned head, not the commit it ran
        if swept == head:
            return []
        if swept is None:
            return ["the commit it swept (a dispatch that pins no head)"]
        try:
            return differences(gateway.tree(swept), gateway.tree(head), gateway.tree(pull.base_sha),
                               gateway.own(pull.base_ref, swept, head))
        except Unreadable as exc:
            raise ReuseError(f"cannot compare run {run.id}'s commit {swept[:12]} with the "
                             f"head {head[:12]}: {exc}") from exc

    def covers(run: WorkflowRun) -> None:
        found = cover_by(gateway, plan(), [run], pull.base_sha)
        if not found.complete:
            raise ReuseError(f"run {run.id} does not cover the plan of head {head[:12]} "
                             f"({len(plan())} rows): {found.describe()}", fix=COVER_FIX)

    def same(run: WorkflowRun) -> bool:
        """A run on a commit the PR no longer has counts only with the head's content for
        every planned row (infx.trust.counts_for_pr)."""
        return head_content(plan(), tree_reader(gateway), gateway.tree(pull.base_sha))(run)

    # listed once each: the selection and the coverage below read the same runs
    branch = cache(lambda: gateway.branch_runs(pull.head_ref))
    forks = cache(lambda: fork_sweeps(gateway, pull, commits, workflow))
    ours = ours_by(gateway, pull, workflow, reference)
    source = select_source(request.command, pr_number, commits, get_run=gateway.run,
                           branch_runs=branch, artifacts_of=gateway.artifacts, ours=ours,
                           workflow=workflow,
                           elevated=request.authority is not None and request.authority.elevated,
                           drift=drift, covers=covers, fork_sweeps=forks, repo=gateway.repo,
                           default_branch=pull.default_branch, same_content=same)
    if request.command.run_id is not None:
        return source, (source.id,)
    # no run id: the PR's runs together must cover the plan, the selected run among them
    runs = eligible_runs(branch(), commits, pinned=forks(), ours=ours, repo=gateway.repo,
                         default_branch=pull.default_branch, same=same)
    runs = [source] + [r for r in runs if r.id != source.id]
    found = cover_by(gateway, plan(), runs, pull.base_sha)
    if not found.complete:
        raise ReuseError(f"the sweep runs of PR #{pr_number} do not cover the plan of head {head[:12]} "
                         f"({len(plan())} rows): {found.describe()}", fix=COVER_FIX)
    gone = results_problem(gateway, found.runs())
    if gone is not None:
        raise gone
    return source, tuple(dict.fromkeys([source.id, *found.runs()]))


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
    source, runs = covering_sources(gateway, req.pr_number, request, workflow=req.workflow,
                                    incompatible=req.incompatible_labels, head=req.commit_sha or None)
    return ReuseResult(skip_pr_sweep=True, source=source, pr_number=req.pr_number, sources=runs,
                       reason=f"{request.command} authorized; reusing {_runs_text(runs)} instead of sweeping")


def _runs_text(runs: tuple[int, ...]) -> str:
    return f"run {runs[0]}" if len(runs) == 1 else "runs " + ", ".join(map(str, runs))


def _resolve_push(gateway: GitHubGateway, req: ResolveRequest) -> ReuseResult:
    """A push to main never sweeps: it reuses the merged PR's runs (an authorized covering
    command, or runs that cover the merge commit's plan row for row), or it fails saying
    exactly what a maintainer should post."""
    if not req.commit_sha:
        raise ReuseError("--commit-sha is required for a push event")
    numbers = sorted({int(p["number"]) for p in gateway.pulls_for_commit(req.commit_sha)})
    if not numbers:
        raise ReuseError(f"commit {req.commit_sha[:12]} has no pull request: pushes to "
                         f"{req.default_branch} are never swept", fix="merge changelog entries through a PR")
    if len(numbers) > 1:
        listed = ", ".join(f"#{n}" for n in numbers)
        raise ReuseError(f"commit {req.commit_sha[:12]} maps to multiple PRs ({listed}); "
                         "refusing to reuse artifacts", fix="merge one PR per commit")
    number = numbers[0]
    request = find_request(gateway, number)
    unbound = None if request is None else unbound_reason(gateway, number, request)
    if request is not None and unbound is None:
        source, runs = covering_sources(gateway, number, request, workflow=req.workflow,
                                        incompatible=req.incompatible_labels, require_merged=True,
                                        reference=req.before_sha or gateway.first_parent(req.commit_sha))
        return ReuseResult(enabled=True, source=source, pr_number=number, sources=runs,
                           reason=f"approved sweep reuse from {_runs_text(runs)}")
    return _neutral_merge(gateway, req, number, unbound)


def _neutral_merge(gateway: GitHubGateway, req: ResolveRequest, number: int,
                   unbound: str | None) -> ReuseResult:
    """No (binding) command: the PR's runs must cover the merge commit's plan row for row."""
    pull = gateway.pull(number)
    if not pull.merged:
        raise ReuseError(f"PR #{number} is not marked as merged.")
    before = req.before_sha or gateway.first_parent(req.commit_sha)
    commits = gateway.pull_commits(number)
    wanted = plan_of(gateway, pull, req.commit_sha, before, merged=True)
    if not wanted.rows:  # e.g. a merge that only corrects pr-links: nothing was or is swept
        return ReuseResult(pr_number=number, reason=f"the merge of PR #{number} plans no rows "
                           "(it appends no changelog entry): nothing to sweep or publish")
    # a run on a commit a rebase removed counts when its content is the merge's for every row
    runs = sweep_runs(gateway, pull, commits, workflow=req.workflow,
                      ours=ours_by(gateway, pull, req.workflow, before), wanted=wanted, base=gateway.tree(before))
    merged = cover_by(gateway, wanted, runs, before)
    why = f" ({unbound})" if unbound else ""
    if merged.complete and merged.runs():
        gone = results_problem(gateway, merged.runs())
        if gone is not None:  # never publish a run whose results are gone
            raise ReuseError(f"PR #{number}'s runs cover the merge commit's plan, but {gone.message}",
                             fix="sweep the PR again (its results expired), then re-run this workflow")
        runs_used = tuple(merged.runs())
        source = next(r for r in runs if r.id == runs_used[0])
        return ReuseResult(enabled=True, source=source, pr_number=number, sources=runs_used,
                           reason=f"PR #{number}'s {_runs_text(runs_used)} cover every row of the merge "
                                  f"commit's plan with identical fingerprints: no sweep on main{why}")
    at_head = cover_by(gateway, plan_of(gateway, pull, pull.head_sha), runs, pull.base_sha)
    if at_head.complete and at_head.runs():
        command = "/reuse-sweep-run"
        raise ReuseError(
            f"the merge of PR #{number} differs from what its runs swept ({merged.describe()}){why}; "
            f"a maintainer who accepts the PR's results for the merge posts `{command}` on PR #{number} "
            "and re-runs this workflow",
            fix=f"post `{command}` on PR #{number} (maintain or write permission), then re-run this workflow")
    raise ReuseError(
        f"PR #{number} was merged without a green result for every row of its plan "
        f"({at_head.describe()}){why}; no reuse command can cover these rows",
        fix="sweep them on a PR that appends a changelog entry for these config keys")
