"""Reading (and reacting on) GitHub for the reuse logic, through the shared infx.github client."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from infx import trust
from infx.errors import InfxError
from infx.github.endpoints.people import Permission
from infx.github.failures import GitHubError
from infx.github.models import Artifact, Comment, Job, PullRequest, WorkflowRun
from infx.plan.benchmark_content import own_paths
from infx.reuse.facts import ReuseError
from infx.reuse.ports import ReuseClient
from infx.reuse.posted_head import dispatched_since, timeline_gap

MAX_LISTED_COMMITS = 250  # GitHub's pull request commit listing stops here


class GitHubGateway:
    """The facts the resolver and the acknowledgement need, for one repository."""

    def __init__(self, client: ReuseClient, repo: str) -> None:
        self.client = client
        self.repo = repo
        self.permission = lru_cache(maxsize=None)(self._permission)
        self.artifacts = lru_cache(maxsize=None)(self._artifacts)
        self.tree = lru_cache(maxsize=16)(self._tree)
        self._commits = lru_cache(maxsize=None)(self._read_commits)
        self._pulls: dict[int, dict[str, Any]] = {}
        self.branch_pulls = lru_cache(maxsize=None)(self._branch_pulls)
        self.changes = lru_cache(maxsize=None)(self._changes)

    def comments(self, pr_number: int) -> list[Comment]:
        # the PR's comment count turns a listing that ends early into an error, not a
        # missed (newer) request
        return self.client.list_comments(self.repo, pr_number,
                                         expected=self._count(pr_number, "comments"))

    def _pull_json(self, pr_number: int) -> dict[str, Any]:
        data = self.client.get_pull(self.repo, pr_number, action=f"reading PR #{pr_number}",
                                    permission="pull-requests: read")
        self._pulls[pr_number] = data
        return data

    def _count(self, pr_number: int, key: str) -> int | None:
        data = self._pulls.get(pr_number) or self._pull_json(pr_number)
        value = data.get(key)
        return value if isinstance(value, int) else None

    def comment(self, comment_id: int) -> Comment | None:
        try:
            return self.client.get_comment(self.repo, comment_id)
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise

    def _permission(self, user: str) -> Permission:
        """`permission` and `role_name` (maintain shows as write in `permission`)."""
        return self.client.collaborator_permission(self.repo, user)

    def pull(self, pr_number: int, *, fresh: bool = True) -> PullRequest:
        """The PR; `fresh=False` reuses this gateway's last read of it (e.g. the comment count's)."""
        data = None if fresh else self._pulls.get(pr_number)
        return PullRequest.from_json(data or self._pull_json(pr_number))

    def pull_commits(self, pr_number: int) -> list[str]:
        return list(self._commits(pr_number))

    def _read_commits(self, pr_number: int) -> tuple[str, ...]:
        count = self._count(pr_number, "commits")
        items = self.client.pull_commits(self.repo, pr_number,
                                         action=f"listing the commits of PR #{pr_number}",
                                         permission="pull-requests: read",
                                         expected=None if count is None else min(count, MAX_LISTED_COMMITS))
        return tuple(item["sha"] for item in items)

    def run(self, run_id: int) -> WorkflowRun | None:
        try:
            data = self.client.get_run(self.repo, run_id, action=f"reading workflow run {run_id}",
                                       permission="actions: read")
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        return WorkflowRun.from_json(data)

    def branch_runs(self, branch: str) -> list[WorkflowRun]:
        """Completed pull_request runs on a branch, newest first."""
        items = self.client.workflow_runs(
            self.repo, event="pull_request", branch=branch, status="completed",
            action=f"listing workflow runs on {branch}", permission="actions: read")
        runs = [WorkflowRun.from_json(item) for item in items]
        return sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)

    def dispatched_runs(self, branch: str, *, since_pr: int | None = None,
                        completed: bool = True) -> list[WorkflowRun]:
        """Runs dispatched on a branch (trusted fork sweeps run on the default branch:
        infx.trust.fork_sweeps), newest first; finished ones only unless `completed` is False.
        With `since_pr`, only those since that PR was opened (its fork sweeps; the bound of
        posted_head.dispatched_since, as the sign-off lists them), when this gateway read it."""
        state = {"status": "completed"} if completed else {}
        since = dispatched_since((self._pulls.get(since_pr) or {}).get("created_at")) if since_pr else None
        if since:
            state["created"] = f">={since}"
        items = self.client.workflow_runs(
            self.repo, event=trust.FORK_SWEEP_EVENT, branch=branch, **state,
            action=f"listing dispatched workflow runs on {branch}", permission="actions: read")
        runs = [WorkflowRun.from_json(item) for item in items]
        return sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)

    def pull_runs(self, branch: str) -> list[WorkflowRun]:
        """Every pull_request run on a branch, whatever its state (GitHub's record of its heads)."""
        items = self.client.workflow_runs(
            self.repo, event="pull_request", branch=branch,
            action=f"listing workflow runs on {branch}", permission="actions: read")
        return [WorkflowRun.from_json(item) for item in items]

    def timeline(self, pr_number: int, head: str, commits: Sequence[str] = ()) -> list[dict[str, Any]] | None:
        """The PR's timeline events (GitHub's record of pushes and force-pushes), or None when
        it cannot be read whole: the head and each of `commits` listed (posted_head.timeline_gap;
        the binding then fails closed, saying so)."""
        try:
            items = self.client.timeline(self.repo, pr_number,
                                         action=f"listing the timeline of PR #{pr_number}",
                                         permission="pull-requests: read (or issues: read)")
        except GitHubError:
            return None
        return None if timeline_gap(items, head, commits) else items

    def _tree(self, sha: str) -> dict[str, str]:
        """The commit's files, every one: the binding and drift checks compare what a sweep job
        may execute, which may lie anywhere (benchmark_content.executed_paths); the planner
        reads the configs, and infx.trust the sweep workflow files."""
        return self.client.tree_at(self.repo, sha)

    def _changes(self, branch: str, sha: str) -> tuple[str, ...] | None:
        """The paths `sha` changes since its merge base with `branch` (GitHub's three-dot
        compare, a rename's old name too); None when they share no history (404: every executed
        file then counts). Any other failure is raised, as for every read the resolver needs."""
        try:
            data = self.client.compare(self.repo, branch, sha,
                                       action=f"comparing {sha[:12]} with {branch}", permission="contents: read")
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
            raise ReuseError(f"GitHub's compare of {sha[:12]} with {branch} has no file list")
        return tuple(dict.fromkeys(p for f in files for p in (f.get("filename"), f.get("previous_filename"))
                                   if isinstance(p, str) and p))

    def own(self, branch: str, *shas: str) -> frozenset[str] | None:
        """The paths the PR itself changes at any of `shas` (benchmark_content.own_paths)."""
        return own_paths(*(self.changes(branch, sha) for sha in shas))

    def _tree_or_none(self, ref: str) -> dict[str, str] | None:
        try:
            return self.tree(ref)
        except InfxError:
            return None  # unread: the run cannot be shown to be ours

    def run_problem(self, run: WorkflowRun, default_branch: str, *, results: bool = False,
                    workflow: str = trust.SWEEP_WORKFLOW, reference: str | None = None) -> str | None:
        """Why a run is not our sweep (infx.trust.our_run on what GitHub says of it); with
        `results`, also when none of its result artifacts is still there to take rows from.
        `reference`: the commit whose sweep files are ours (default: the default branch's tip;
        at a merge, the default branch as it was before it, so a PR's own edit of the sweep
        workflow never vouches for the runs it made)."""
        if not default_branch:
            return "the repository's default branch is not known, so no run can be shown to be ours"
        extra: dict[str, Any] = {"artifacts": self.artifacts(run.id)} if results else {}
        if run.event == "pull_request" and trust.same_head_repo(run, self.repo):
            # which base's workflow files it ran (infx.trust.base_problem); a fork's run is
            # never ours anyway (run_origin), so nothing is read for it. A listing without a PR
            # of the branch into the default branch (whose run this would be) is cut short.
            pulls = self.branch_pulls(run.head_branch or "")
            listed = pulls is not None and any(base == default_branch for _, base, _, _ in pulls.pulls)
            extra["pulls"] = pulls if listed else None
        return trust.our_run(run, repo=self.repo, default_branch=default_branch,
                             run_tree=self._tree_or_none(run.head_sha),
                             default_tree=self._tree_or_none(reference or default_branch),
                             workflow=workflow, **extra)

    def _branch_pulls(self, branch: str) -> trust.BranchPulls | None:
        """What says which bases the `pull_request` runs of this repository's `branch` may have
        run the workflow files of (infx.trust.BranchPulls): every PR the branch heads, in any
        state, and the base changes their timelines record (a PR into the default branch that
        was retargeted, or one into another base, may have run that base's run-sweep.yml).
        None when any of it cannot be read: then no `pull_request` run of the branch counts."""
        if not branch:
            return None
        owner = self.repo.split("/", 1)[0]
        try:
            items = self.client.list_pulls(self.repo, state="all", head=f"{owner}:{branch}",
                                           action=f"listing the pull requests from {owner}:{branch}",
                                           permission="pull-requests: read")
            pulls, frozen = trust.branch_pull_records(items), trust.frozen_heads(items)
            heads = {int(item["number"]): str((item.get("head") or {}).get("sha") or "")
                     for item in items if isinstance(item, dict) and isinstance(item.get("number"), int)}
            retargets: list[str] = []
            for number, *_ in pulls:
                # whole or not at all: the timeline() read says a listing cut short is unread
                events = self.timeline(number, heads[number])
                if events is None:
                    return None
                retargets += trust.retarget_times(events)
        except (GitHubError, InfxError, KeyError, TypeError, ValueError):
            return None
        return trust.BranchPulls(branch, pulls, tuple(retargets), frozen)

    def run_jobs(self, run_id: int) -> list[Job]:
        """The run's jobs as of its latest attempt."""
        return self.client.run_jobs(self.repo, run_id)

    def _artifacts(self, run_id: int) -> tuple[Artifact, ...]:
        return tuple(self.client.run_artifacts(self.repo, run_id))

    def pulls_for_commit(self, sha: str) -> list[dict[str, Any]]:
        return self.client.commit_pulls(self.repo, sha,
                                        action=f"listing the pull requests of commit {sha[:12]}",
                                        permission="pull-requests: read")

    def first_parent(self, sha: str) -> str:
        """The commit's first parent (what a push to the default branch moved from)."""
        data = self.client.get_commit(self.repo, sha, action=f"reading commit {sha[:12]}",
                                      permission="contents: read")
        parents = data.get("parents") or [] if isinstance(data, dict) else []
        if not parents or not isinstance(parents[0], dict) or not parents[0].get("sha"):
            raise ReuseError(f"commit {sha[:12]} has no parent to plan it against")
        return str(parents[0]["sha"])

    def react(self, comment_id: int, content: str) -> None:
        self.client.add_reaction(self.repo, comment_id, content)

    def clear_reactions(self, comment_id: int) -> int:
        return sum(self.client.remove_reaction(self.repo, comment_id, c) for c in ("+1", "-1"))
