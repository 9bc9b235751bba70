"""Posting the welcome and results-link comments through the shared GitHub client (upserts)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from infx import trust
from infx.errors import InfxError, Problem
from infx.github.client import GitHubClient
from infx.github.endpoints.issues import Upsert
from infx.github.markers import make_marker, parse_markers
from infx.github.models import WorkflowRun
from infx.workflow.comments import (
    RESULTS_MARKER_NAME,
    WELCOME_MARKER_NAME,
    results_link_body,
    should_update_results_link,
    welcome_body,
)

_SHA = re.compile(r"[0-9a-f]{40}")
_FULL_NAME = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_BRANCH_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")  # what git refuses in branch names


def post_welcome(client: GitHubClient, repo: str, pr_number: int, default_branch: str = "main") -> Upsert:
    return client.upsert_comment(repo, pr_number, make_marker(WELCOME_MARKER_NAME),
                                 welcome_body(repo, default_branch))


def post_results_link(client: GitHubClient, repo: str, pr_number: int, run_id: int) -> str:
    """`created`, `updated`, `unchanged`, or `kept-newer` (the comment links a newer run)."""
    existing = client.find_comment(repo, pr_number, make_marker(RESULTS_MARKER_NAME))
    marker = make_marker(RESULTS_MARKER_NAME, run=run_id)
    body = f"{marker.text}\n{results_link_body(run_id)}"
    if existing is None:
        return client.upsert_comment(repo, pr_number, marker, body).action
    if not should_update_results_link(_linked_run(existing.body), run_id):
        return "kept-newer"
    if existing.body == body:
        return "unchanged"
    client.edit_comment(repo, existing.id, body)
    return "updated"


def _linked_run(body: str) -> int | None:
    for marker in parse_markers(body):
        if marker.name == RESULTS_MARKER_NAME and marker.fields.get("run", "").isdigit():
            return int(marker.fields["run"])
    return None


# --- welcome for fork PRs (posted from a workflow_run-triggered job) ------------------------


@dataclass(frozen=True)
class RunHead:
    """Where a triggering pull_request run's commit lives: fork repository, branch and sha."""

    repo: str
    branch: str
    sha: str

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]


def run_head(run: WorkflowRun) -> RunHead:
    """The run's head, checked before use: a fork's run is untrusted data, never trusted input."""
    repo, branch, sha = trust.head_repo_of(run), run.head_branch or "", run.head_sha or ""
    if not _FULL_NAME.fullmatch(repo):
        raise InfxError(Problem(f"workflow run {run.id} has no usable head repository ({repo!r})",
                                key="workflow_run.head_repository"))
    if not branch or _BRANCH_FORBIDDEN.search(branch) or len(branch) > 255:
        raise InfxError(Problem(f"workflow run {run.id} has no usable head branch ({branch!r})",
                                key="workflow_run.head_branch"))
    if not _SHA.fullmatch(sha):
        raise InfxError(Problem(f"workflow run {run.id} has no usable head sha ({sha!r})",
                                key="workflow_run.head_sha"))
    return RunHead(repo, branch, sha)


def pulls_for_run_head(client: GitHubClient, repo: str, head: RunHead) -> list[int]:
    """Open PRs of `repo` whose head is that fork branch, as the base repository lists them.

    The numbers come from our own repository's API, never from the fork's run; PRs whose
    head is exactly the run's commit win when the branch has moved on in several PRs.
    """
    items = client.list_pulls(repo, state="open", head=f"{head.owner}:{head.branch}",
                              action=f"finding the open PR of {head.repo}:{head.branch}",
                              permission="pull-requests: read")
    same_head = [p for p in items
                 if ((p.get("head") or {}).get("repo") or {}).get("full_name") == head.repo
                 and (p.get("head") or {}).get("ref") == head.branch]
    exact = [p for p in same_head if p["head"].get("sha") == head.sha]
    return sorted(int(p["number"]) for p in (exact or same_head))
