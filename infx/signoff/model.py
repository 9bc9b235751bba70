"""The evidence a sign-off verdict is computed from, and the shape of a check's outcome.

Evidence is gathered once per run by ``infx.signoff.evidence`` (the only part that
talks to GitHub); every check is a pure function ``run(evidence) -> Outcome``.
A field that is ``None`` (or a ``Missing`` entry) means *could not be read*: a check
that needs it must fail closed (FAIL, or the verdict becomes an error), never PASS.

This module is a shared contract between the checks: add fields (with defaults),
never rename or remove them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from infx.github.models import (  # noqa: F401 - the checks' models are GitHub's
    Artifact,
    CheckRun,
    Comment,
    Job,
    PullRequest,
    WorkflowRun,
)
from infx.trust import BranchPulls


class Status(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    NA = "N/A"


@dataclass(frozen=True)
class Outcome:
    """What one check concluded, and why, in words a reviewer can act on."""

    status: Status
    reason: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChangedFile:
    filename: str
    status: str  # added | modified | removed | renamed | copied | changed | unchanged
    previous_filename: str | None = None
    patch: str | None = None  # unified diff hunk text as GitHub returns it; None if too large
    additions: int = 0
    deletions: int = 0


def touched_paths(files: Iterable[ChangedFile]) -> list[str]:
    """Every path a file list touches (a rename's old and new name), once each, in listing order."""
    return list(dict.fromkeys(p for f in files for p in (f.filename, f.previous_filename) if p))


@dataclass(frozen=True)
class Comparison:
    """GitHub's three-dot compare of two commits: the head's changes since their merge base
    (at most COMPARE_FILE_LIMIT files, as GitHub lists them), and that merge base."""

    files: list[ChangedFile]
    merge_base: str | None


def unposted(author: str = "", body: str = "") -> Comment:
    """A sign-off that is no comment on GitHub: the draft given to `infx signoff preview`
    (its signer and text only), or, with neither, none at all (a head's status, the sweep
    report). It has no id (0, which GitHub never gives), URL, time or PR."""
    return Comment(id=0, user=author, body=body, author_association="", created_at="")


@dataclass(frozen=True)
class ArtifactMembers:
    """A run's artifact as GitHub lists it, with the members the gatherer downloaded from it
    (None: not downloaded: expired, not needed, or unreadable)."""

    artifact: Artifact
    files: dict[str, bytes] | None


@dataclass(frozen=True)
class ExternalPull:
    repo: str  # owner/name
    number: int
    state: str
    merged_at: str | None
    draft: bool = False
    files: tuple[ChangedFile, ...] = ()


@dataclass
class Evidence:
    """Everything a verdict may depend on, read once from GitHub (or a world file)."""

    repo: str
    default_branch: str
    now: datetime
    pr: PullRequest
    signoff: Comment  # the comment, review or inline review comment verified (or `unposted`)
    files: list[ChangedFile] | None = None
    commits: list[str] | None = None  # oldest first
    check_runs: dict[str, list[CheckRun]] | None = None  # by commit sha
    comments: list[Comment] | None = None  # conversation comments, oldest first
    reviews: list[Comment] | None = None
    # path -> text at the PR head / base; a path mapped to None does not exist there.
    # A path absent from the mapping was not fetched (ask for it in evidence gathering).
    head_files: dict[str, str | None] = field(default_factory=dict)
    base_files: dict[str, str | None] = field(default_factory=dict)
    # trusted policy files read from the default branch tip (CODEOWNERS, checklist, policy YAML)
    default_branch_files: dict[str, str | None] = field(default_factory=dict)
    workflow_runs: dict[int, WorkflowRun] = field(default_factory=dict)
    artifacts: dict[int, list[ArtifactMembers] | None] = field(default_factory=dict)  # by run id
    # the jobs of a workflow run, every attempt (None: could not be read), by run id
    run_jobs: dict[int, list[Job] | None] = field(default_factory=dict)
    external_pulls: dict[str, ExternalPull | None] = field(default_factory=dict)  # "o/r#n"
    # source files of linked published recipe pages ("o/r/path at ref" -> text; None: no such file)
    external_files: dict[str, str | None] = field(default_factory=dict)
    collaborators: dict[str, dict[str, str] | None] = field(default_factory=dict)
    team_members: dict[str, dict[str, bool | None]] = field(default_factory=dict)  # team -> user -> active?
    read_errors: dict[str, str] = field(default_factory=dict)  # what could not be read, and why
    # the subset of read_errors that is not an answer about the PR (5xx, rate limits, bad
    # token or permissions, malformed or truncated bodies, the call budget): the verdict is
    # then `error`, never a finding against the signer (404/410 "absent" stay findings)
    unreadable: dict[str, str] = field(default_factory=dict)
    # successful workflow runs on the PR branch whose commit is no longer one of the PR's
    orphan_runs: list[WorkflowRun] = field(default_factory=list)
    # trees of other commits (sha -> path -> text): the commit a sweep ran on (its sweep
    # workflow files for provenance, its benchmark-affecting content for drift)
    commit_files: dict[str, dict[str, str | None]] = field(default_factory=dict)
    # the paths each of those commits changes since its merge base with the default branch
    # (GitHub's three-dot compare; None: not read): drift and the reuse binding tell the PR's
    # own changes from the default branch's a merge brought in
    commit_changes: dict[str, list[str] | None] = field(default_factory=dict)
    # the PR head when the reuse command Check `reuse` rests on was posted (infx.reuse.posted_head;
    # "" = no run before it tells; None = no authorised command), and its tree when that is
    # not the assessed head
    reuse_seen_head: str | None = None
    reuse_seen_files: dict[str, str | None] = field(default_factory=dict)
    reuse_seen_problem: str = ""  # why reuse_seen_head is "" (infx.reuse.posted_head.head_seen)
    # the commits pushed after reuse_seen_head that may have been the head then (HeadSeen.later;
    # their trees are in commit_files)
    reuse_seen_later: list[str] = field(default_factory=list)
    # the PR's timeline events as GitHub lists them (None: not read): pushes and force-pushes
    # no workflow run records (binding)
    timeline: list[dict] | None = None
    # the PR head as re-read when the verdict is written (None: not re-read)
    live_head_sha: str | None = None
    # every workflow run listed on the PR branch (None: not read): the heads the PR had and
    # when (binding: the head a sign-off was posted on)
    branch_runs: list[WorkflowRun] | None = None
    # which bases the PR's `pull_request` runs may have run for: the PRs headed by its branch
    # and the PR's retargets (infx.trust.BranchPulls; None: not read, so no such run counts)
    branch_pulls: BranchPulls | None = None
