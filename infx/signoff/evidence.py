"""The evidence of one verification, read through the GitHub client piece by piece on first need: budgeted and fail-closed."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

from infx import trust
from infx.commands.authorization import newest_request
from infx.config.policy import load_policy_document
from infx.errors import InfxError
from infx.github.archives import ArchiveLimitError
from infx.github.budget import BudgetExceeded, RequestBudget
from infx.github.failures import ListingCapped, pull_cap_error
from infx.github.transport import parsed
from infx.plan.coverage import METADATA_ARTIFACT
from infx.reuse.posted_head import (
    ADVISORY_LATER_HEADS,
    dispatched_since,
    head_seen,
    parent_shas,
    timeline_gap,
    too_many_later,
)
from infx.signoff.model import (
    ArtifactMembers,
    ChangedFile,
    CheckRun,
    Comment,
    Comparison,
    Evidence,
    ExternalPull,
    Job,
    PullRequest,
    WorkflowRun,
    touched_paths,
)
from infx.signoff.ports import SignoffClient
from infx.signoff.render import read_marker
from infx.signoff.rules import eval_jobs, provenance, recipe_pages
from infx.signoff.rules.bypass import bypass_requests
from infx.signoff.rules.policy_reads import changed_paths, first_trusted_file
from infx.signoff.rules.sweeps import (
    family,
    green_jobs,
    green_run,
    green_union,
    latest_attempt,
    removed_content,
    removed_runs,
    run_id_of,
    took_rows,
)
from infx.signoff.table import CheckSpec, Settings
from infx.signoff.trigger import binding, codeowners
from infx.signoff.trigger.checklist import parse as parse_checklist
from infx.signoff.trigger.gating import SignoffRef
from infx.trust import Identity, our_comment

WANTED_ARTIFACTS = ("eval_results_all", "results_bmk", METADATA_ARTIFACT)


def is_result_member(path: str) -> bool:
    """Artifact members the checks read: the JSON files (aggregates, lm-eval results,
    meta_env.json); logs and other members are skipped without being inflated."""
    return path.endswith(".json")


MAX_TEAM_LOOKUPS = 3
T = TypeVar("T")
TEAM_READ_FIX = ("the token needs the organization permission members: read: an admin must "
                 "install the sign-off GitHub App with it and give the workflow its APP_ID and "
                 "APP_PRIVATE_KEY (README: Sign-off GitHub App); the workflow's own token cannot "
                 "read teams")
# per-job eval artifacts read when the aggregate is missing; past this the eval evidence stays unread (fails closed)
MAX_EVAL_JOBS = 6
MAX_BYPASS_LOOKUPS = 2
MAX_REUSE_LOOKUPS = 3  # authors of reuse commands whose permission the reuse authorization may need
MAX_EXTERNAL_PULLS = 3
MAX_EXTERNAL_PAGES = 3  # published recipe pages whose upstream source file is read
# answers that say "this does not exist" (a finding a check may judge), not "could not read"
ABSENT_STATUSES = frozenset({404, 410})
# reads the verdict does not depend on: the re-read before publishing only adds a note, and
# the branch's run listing only narrows which commits are read (every one, when it is unread)
NOT_EVIDENCE = frozenset({"live head", "workflow runs", "timeline"})
# sweep runs of ours on one commit whose jobs are read, newest first (and run records read
# one by one, for runs the branch listing did not return)
MAX_RUNS_PER_COMMIT = 3
MAX_UNION_RUNS = 8  # runs of the PR read for a union of incremental re-sweeps, newest first
MAX_UNION_TREES = 4  # commit trees read for it (the head's is already read)
_PR_LINK = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/pull/(\d+)")


class Reader:
    """Every GitHub read of a verification, counted against a hard cap on HTTP requests.

    The budget is the client's (`use_budget`): every page, redirect, download and retry of
    every reader of this verification counts, the bot's own lookups and writes included. A
    client that cannot count requests is charged one per read instead."""

    def __init__(self, client: SignoffClient, repo: str, cap: int) -> None:
        self.client = client
        self.repo = repo
        self.cap = cap
        self.budget = RequestBudget(cap)
        attach = getattr(client, "use_budget", None)
        self._metered = callable(attach)
        if self._metered:
            client.use_budget(self.budget)
        # PR number -> the commit and comment counts of the latest read, so a listing that
        # ends early (truncated pagination) is an error instead of silently missing evidence
        self.counts: dict[int, dict[str, int]] = {}
        # workflow run id -> its check suite id (GitHub's record), for the per-suite listing
        self.suites: dict[int, int] = {}
        # PR number -> when GitHub says it was opened (`created_at` of the latest read), the
        # lower bound of its fork sweeps' listing (dispatched_runs)
        self.opened: dict[int, str] = {}
        # (base, head) -> GitHub's three-dot compare: drift, the reuse binding and the sign-off
        # binding may each ask for the same commit's changes
        self._compares: dict[tuple[str, str], Comparison] = {}

    @property
    def calls(self) -> int:
        """HTTP requests sent so far (reads and writes)."""
        return self.budget.used

    def spend(self, what: str) -> None:
        """Refuse a read once the budget is spent (its requests are counted as they are sent)."""
        if not self._metered:
            self.budget.charge(what)
        elif self.budget.used >= self.cap:
            raise BudgetExceeded(f"API request budget of {self.cap} HTTP requests reached before "
                                 f"{what}; evidence is incomplete")

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Publish: requests are counted but never refused, so a run whose reads ran out of
        budget still posts its (fail-closed) verdict and a final commit status."""
        with self.budget.uncapped():
            if not self._metered:
                self.budget.sent(1)
            yield

    def read(self, what: str, endpoint: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """One endpoint of the client, within the budget; `what` names the read in errors and
        the endpoint names the permission it needs (so a refusal says which one is missing)."""
        self.spend(what)
        return endpoint(*args, action=what, **kwargs)

    # --- the reads ----------------------------------------------------------------------

    def pull(self, number: int) -> tuple[PullRequest, dict]:
        data = self.read(f"reading PR #{number}", self.client.get_pull, self.repo, number)
        self.counts[number] = {key: int(data[key]) for key in ("commits", "comments")
                               if isinstance(data.get(key), int)}
        if isinstance(data.get("created_at"), str):
            self.opened[number] = data["created_at"]
        return PullRequest.from_json(data), data

    def _expected(self, number: int, key: str) -> int | None:
        return self.counts.get(number, {}).get(key)

    def signoff(self, ref: SignoffRef, pr_number: int) -> Comment:
        """The comment, review or inline review comment `ref` names, as GitHub answers now
        (the PR it is on is read from the answer, never assumed: binding.signoff_pr)."""
        what = f"reading the sign-off {ref.kind} {ref.id}"
        if ref.kind == "review":
            data = self.read(what, self.client.pull_review, self.repo, pr_number, ref.id)
        else:
            endpoint = {"issue_comment": self.client.issue_comment,
                        "review_comment": self.client.pull_review_comment}[ref.kind]
            data = self.read(what, endpoint, self.repo, ref.id)
        return parsed(lambda item: Comment.from_json(item, ref.kind), data, what)

    def compare(self, base: str, head: str) -> Comparison:
        """The changes of `head` since its merge base with `base` (GitHub's three-dot compare),
        read once per pair."""
        if (base, head) in self._compares:
            return self._compares[(base, head)]
        data = self.read(f"comparing {head[:12]} with {base[:12]}", self.client.compare, self.repo,
                         base, head)
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, list):
            raise InfxError(f"unusable answer from GitHub while comparing {head[:12]} with {base[:12]}: "
                            "no file list")
        merge_base = data.get("merge_base_commit")
        sha = merge_base.get("sha") if isinstance(merge_base, dict) else None
        found = Comparison([changed_file(item) for item in files], sha if isinstance(sha, str) and sha else None)
        self._compares[(base, head)] = found
        return found

    def permission(self, user: str) -> dict[str, str] | None:
        self.spend(f"reading {user}'s permission")
        record = self.client.collaborator_permission(self.repo, user)
        if record.permission == "none":
            return None
        return {"permission": record.permission, "role_name": record.role_name}

    def branch_sha(self, branch: str) -> str:
        data = self.read(f"reading branch {branch}", self.client.get_branch, self.repo, branch)
        return data["commit"]["sha"]

    def tree(self, ref: str, wanted: Callable[[str], bool] | None = None) -> dict[str, str | None]:
        """The text files at `ref`; with `wanted`, only the paths it accepts are kept (the
        others are skipped in the stream, never held or counted against the caps)."""
        self.spend(f"downloading the tree at {ref[:12]}")
        return dict(self.client.tree_at(self.repo, ref, wanted=wanted))

    def codeowners_errors(self, sha: str) -> list[dict]:
        return self.read("reading CODEOWNERS errors", self.client.codeowners_errors, self.repo, sha)

    def files(self, number: int, expected: int) -> list[ChangedFile]:
        capped = pull_cap_error("files", number, expected)
        if capped is not None:
            raise capped
        items = self.read(f"listing the files of PR #{number}", self.client.pull_files,
                          self.repo, number, expected=expected)
        if len(items) != expected:
            raise InfxError(f"PR #{number} reports {expected} changed files but the listing "
                            f"returned {len(items)}; the file list is incomplete")
        return [changed_file(item) for item in items]

    def commits(self, number: int) -> list[str]:
        count = self._expected(number, "commits")
        capped = pull_cap_error("commits", number, count)
        if capped is not None:
            raise capped
        items = self.read(f"listing the commits of PR #{number}", self.client.pull_commits,
                          self.repo, number, expected=count)
        return [item["sha"] for item in items]

    def check_runs(self, sha: str) -> list[CheckRun]:
        """The check runs of a commit (`filter=latest`); ListingCapped when GitHub's listing
        stops at its 1,000-result cap (the caller narrows to the sweep's check suites)."""
        items = self.read(f"listing check runs of {sha[:12]}", self.client.check_runs,
                          self.repo, sha, latest=True)
        return [CheckRun.from_json(item) for item in items]

    def suite_check_runs(self, run_id: int) -> list[CheckRun]:
        """The check runs of one workflow run's check suite (`filter=latest`): the narrower
        query past the commit listing's cap (GitHub's record of the run names the suite)."""
        suite = self.suites.get(run_id)
        if suite is None:
            raise InfxError(f"GitHub's record of run {run_id} names no check suite")
        items = self.read(f"listing check runs of run {run_id}'s check suite",
                          self.client.suite_check_runs, self.repo, suite, latest=True)
        return [CheckRun.from_json(item) for item in items]

    def run_jobs(self, run_id: int) -> list[Job]:
        """Every attempt's jobs of a workflow run (the verdict works out the latest attempt itself,
        so that two jobs of one attempt never stand for each other)."""
        self.spend(f"listing the jobs of run {run_id}")
        return self.client.run_jobs(self.repo, run_id, latest=False)

    def comments(self, number: int) -> list[Comment]:
        items = self.read(f"listing the comments of PR #{number}", self.client.issue_comments,
                          self.repo, number, expected=self._expected(number, "comments"))
        return [Comment.from_json(item, "issue_comment") for item in items]

    def statuses(self, sha: str) -> list[dict]:
        """The commit statuses of `sha`, newest first, as GitHub's JSON (trust.our_status
        reads who created each)."""
        return self.read(f"listing the statuses of {sha[:12]}", self.client.statuses, self.repo, sha)

    def reviews(self, number: int) -> list[Comment]:
        items = self.read(f"listing the reviews of PR #{number}", self.client.pull_reviews,
                          self.repo, number)
        return [Comment.from_json(item, "review") for item in items]

    def review_comments(self, number: int) -> list[Comment]:
        items = self.read(f"listing the inline review comments of PR #{number}",
                          self.client.pull_review_comments, self.repo, number)
        return [Comment.from_json(item, "review_comment") for item in items]

    def team_member(self, team: str, user: str, *, prove: bool = True) -> bool | None:
        """Whether `user` is an active member of `org/slug`.

        GitHub answers 404 both for "not a member" and for a token that cannot see the
        team (Actions' GITHUB_TOKEN never can), so a 404 is only a "no" once the team itself
        is readable (`not_member`); otherwise, like a 403, the membership is unreadable and
        the error says what an admin must configure (PRODUCT §4.8 Identity). With
        `prove=False` a 404 is returned as None, to be proven later only if it matters."""
        org, slug = team.split("/", 1)
        self.spend(f"reading {user}'s membership of @{team}")
        try:
            state = self.client.team_membership(org, slug, user)
        except InfxError as exc:
            status = getattr(exc, "status", None)
            if status in (401, 403):
                raise InfxError(f"membership of @{team} cannot be read with this token: "
                                f"{TEAM_READ_FIX}") from None
            if status not in ABSENT_STATUSES:
                raise
            state = None
        if state is not None:
            return state == "active"
        return self.not_member(team) if prove else None

    def not_member(self, team: str) -> bool:
        """False (not a member) once the team itself is readable; unreadable otherwise."""
        org, slug = team.split("/", 1)
        self.spend(f"reading team @{team}")
        try:
            visible = self.client.team_visible(org, slug)
        except InfxError as exc:
            if getattr(exc, "status", None) not in (401, 403):
                raise
            visible = False
        if not visible:
            raise InfxError(f"membership of @{team} cannot be read with this token: "
                            f"{TEAM_READ_FIX}")
        return False

    def workflow_run(self, run_id: int) -> WorkflowRun:
        data = self.read(f"reading run {run_id}", self.client.get_run, self.repo, run_id)
        self._note_suite(data)
        return WorkflowRun.from_json(data)

    def _note_suite(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("id"), int) \
                and isinstance(data.get("check_suite_id"), int):
            self.suites[data["id"]] = data["check_suite_id"]

    def timeline(self, number: int, head: str, commits: Sequence[str] = ()) -> list[dict]:
        """The PR's timeline events (committed, head_ref_force_pushed, …), as GitHub lists them;
        an InfxError when the listing is not the whole record (posted_head.timeline_gap: the
        head and each of `commits`, the PR's commit list, must be listed)."""
        items = self.read(f"listing the timeline of PR #{number}", self.client.timeline,
                          self.repo, number)
        gap = timeline_gap(items, head, commits)
        if gap:
            raise InfxError(gap)
        # only what the binding reads (infx.reuse.posted_head.head_seen): the evidence digest
        # must not depend on the API's own URLs
        keep = ("event", "sha", "message", "created_at", "commit_id")
        return [{k: item[k] for k in keep if k in item} | _parent_shas(item)
                for item in items if isinstance(item, dict)]

    def branch_runs(self, branch: str) -> list[WorkflowRun]:
        """The PR branch's workflow runs, newest first; past GitHub's 1,000-result cap on
        runs searched by branch, ListingCapped with a remedy that works (a new branch)."""
        what = f"listing workflow runs on {branch}"
        try:
            items = self.read(what, self.client.workflow_runs, self.repo, branch=branch)
        except ListingCapped as cut:
            raise ListingCapped(what, cut.cap, cut.total,
                                fix="open the PR again from a new branch: GitHub searches at "
                                    "most 1,000 workflow runs of a branch, and a new branch's "
                                    "runs start from none") from None
        for item in items:
            self._note_suite(item)
        return [WorkflowRun.from_json(item) for item in items]

    def head_pulls(self, owner: str, branch: str, number: int) -> tuple[list[tuple[int, str, str, str | None]],
                                                                         tuple[tuple[int, str, str | None], ...]]:
        """Every pull request of the repository whose head is `owner:branch`, in any state, as
        (number, base ref, created_at, closed_at or None), and the closed ones' frozen heads
        (infx.trust.BranchPulls); an InfxError when the listing lacks PR `number` itself (it
        was cut short)."""
        items = self.read(f"listing pull requests from {owner}:{branch}", self.client.list_pulls,
                          self.repo, state="all", head=f"{owner}:{branch}")
        found = list(trust.branch_pull_records(items))
        if number not in {pull[0] for pull in found}:
            raise InfxError(f"the pull requests from {owner}:{branch} are listed without PR #{number} "
                            "itself, so the listing is incomplete")
        return found, trust.frozen_heads(items)

    def dispatched_runs(self, branch: str, number: int) -> list[WorkflowRun]:
        """Workflow runs dispatched on `branch` since PR `number` was opened (its fork sweeps
        are run-sweep.yml dispatched on the default branch by an approval on the PR:
        infx.trust), newest first. GitHub's `created` filter keeps the listing to the PR's
        lifetime, not the repository's (dispatched_since); unbounded when the PR's opening
        is unknown."""
        since = dispatched_since(self.opened.get(number))
        bound = {"created": f">={since}"} if since else {}
        items = self.read(f"listing dispatched workflow runs on {branch}", self.client.workflow_runs,
                          self.repo, branch=branch, event=trust.FORK_SWEEP_EVENT, **bound)
        for item in items:
            self._note_suite(item)
        return [WorkflowRun.from_json(item) for item in items]

    def artifacts(self, run_id: int) -> list[ArtifactMembers]:
        """The run's artifacts; the aggregates are downloaded, and the per-job `eval_*`
        artifacts too (at most MAX_EVAL_JOBS) when no usable `eval_results_all` exists."""
        self.spend(f"listing artifacts of run {run_id}")
        listed = sorted(self.client.run_artifacts(self.repo, run_id), key=lambda a: (a.name, a.id))
        usable_agg = any(a.name == "eval_results_all" and not a.expired for a in listed)
        jobs = [a for a in listed if not usable_agg and eval_jobs.is_job_artifact(a.name)]
        wanted = {a.id for a in listed if a.name in WANTED_ARTIFACTS} | {a.id for a in jobs[:MAX_EVAL_JOBS]}
        found = []
        for item in listed:
            files = None
            if item.id in wanted and not item.expired:
                self.spend(f"downloading artifact {item.name}")
                files = dict(self.client.download_artifact(self.repo, item.id, name=item.name,
                                                           size_in_bytes=item.size_in_bytes,
                                                           wanted=is_result_member))
            found.append(ArtifactMembers(item, files))
        return found

    def file_at(self, path: str, ref: str) -> str | None:
        self.spend(f"reading {path} at {ref[:12]}")
        return self.client.file_at(self.repo, path, ref)

    def external_file(self, source: recipe_pages.PageSource) -> str | None:
        """The upstream source file of a published recipe page (None: it does not exist there).
        Repository, ref and path come from the trusted page mapping, never from the link."""
        self.spend(f"reading {source.path} of {source.repo} at {source.ref}")
        return self.client.file_at(source.repo, source.path, source.ref)

    def external_pull(self, repo: str, number: int) -> ExternalPull:
        """A linked upstream PR (e.g. a recipe) with its changed files and patches."""
        data = self.read(f"reading {repo}#{number}", self.client.get_pull, repo, number)
        files = self.read(f"listing the files of {repo}#{number}", self.client.pull_files, repo, number)
        return ExternalPull(repo=repo, number=number, state=data.get("state") or "",
                            merged_at=data.get("merged_at"), draft=bool(data.get("draft")),
                            files=tuple(changed_file(item) for item in files))


# --- JSON -> model ---------------------------------------------------------------------------


def changed_file(item: dict) -> ChangedFile:
    return ChangedFile(filename=item["filename"], status=item.get("status") or "",
                       previous_filename=item.get("previous_filename"), patch=item.get("patch"),
                       additions=int(item.get("additions") or 0),
                       deletions=int(item.get("deletions") or 0))




# --- gathering --------------------------------------------------------------------------------


def optional(evidence: Evidence, key: str, read: Any, default: Any = None) -> Any:
    """Run one read; a failure is recorded (fail closed downstream) instead of aborting."""
    try:
        return read()
    except ArchiveLimitError:
        raise  # an archive over a cap ends the run with `error`, naming the artifact and cap
    except InfxError as exc:
        evidence.read_errors[key] = str(exc).split("\n")[0]
        if getattr(exc, "status", None) not in ABSENT_STATUSES and key not in NOT_EVIDENCE:
            evidence.unreadable[key] = evidence.read_errors[key]
        return default


@dataclass(frozen=True)
class Piece:
    """One piece of evidence: what it is called where it is needed (`needs:` in checks.yaml),
    the pieces it is read after (their fields are its input), the fields of the evidence it
    fills, and how it is read into them. `fatal`: without it the verification cannot go on, so it is never recorded as
    unreadable but ends the run."""

    name: str
    after: tuple[str, ...]
    fills: tuple[str, ...]  # the fields of Evidence it reads into
    read: Callable[[Reader, Evidence, Settings], None]
    fatal: bool = False


# every piece, in the order they are read (a piece is read after everything it comes after,
# and a spent budget always cuts the same pieces)
PIECES: dict[str, Piece] = {}


PieceReader = Callable[[Reader, Evidence, Settings], None]


def piece(name: str, *, fills: tuple[str, ...], after: tuple[str, ...] = (), fatal: bool = False
          ) -> Callable[[PieceReader], PieceReader]:
    """Register the reader of the piece `name`, which fills the evidence's fields `fills`
    and is read after the pieces `after`."""
    def register(read: PieceReader) -> PieceReader:
        unknown = [dep for dep in after if dep not in PIECES]
        if name in PIECES or unknown:
            raise ValueError(f"evidence piece {name!r}: registered twice, or read after "
                             f"pieces not registered before it: {unknown}")
        PIECES[name] = Piece(name, after, fills, read, fatal)
        return read
    return register


class Context:
    """The evidence of one verification, read piece by piece when a consumer first needs it.

    Scope (the PR, its changed files, the default branch's files) is read before the context
    exists; every other piece is read on its first `need`, once, after the pieces it comes
    after, within the reader's request budget. A piece that cannot be read is recorded
    (`read_errors`, and `unreadable` unless GitHub said it does not exist) under its own
    name or the finer keys its reader records, so the verdict fails closed with `error`
    naming it; its fields stay unread (None, or empty)."""

    def __init__(self, reader: Reader, evidence: Evidence, settings: Settings, *,
                 held: Iterable[str] = ()) -> None:
        """`held`: pieces the evidence already holds (never read again)."""
        self.reader, self.evidence, self.settings = reader, evidence, settings
        self.read: list[str] = list(held)  # the pieces read (or held) so far, in that order

    def need(self, *names: str) -> Evidence:
        """Read the pieces `names` (and what they come after) that are not read yet."""
        unknown = sorted(set(names) - set(PIECES))
        if unknown:
            raise InfxError(f"no such piece of evidence: {', '.join(unknown)} "
                            f"(known: {', '.join(PIECES)})")
        wanted: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name not in wanted:
                wanted.add(name)
                todo.extend(PIECES[name].after)
        for name, item in PIECES.items():
            if name in wanted and name not in self.read:
                self.read.append(name)  # before reading: a piece that failed is not read again
                self._read(item)
        return self.evidence

    def provide(self, specs: Iterable[CheckSpec], *also: str) -> Evidence:
        """Read everything the checks `specs` declare they need, and the pieces `also`."""
        return self.need(*(name for spec in specs for name in spec.needs), *also)

    def _read(self, item: Piece) -> None:
        if item.fatal:
            item.read(self.reader, self.evidence, self.settings)
            return
        optional(self.evidence, item.name, lambda: item.read(self.reader, self.evidence, self.settings))


@piece("commits", fills=("commits",))
def _commits(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    evidence.commits = optional(evidence, "commits", lambda: reader.commits(evidence.pr.number))


@piece("conversation", fills=("comments",), fatal=True)
def _conversation(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    # fatal: without the conversation the bot cannot find its own earlier verdicts (no
    # duplicates, supersede notes), so an unreadable one ends the run with an error status
    evidence.comments = reader.comments(evidence.pr.number)


@piece("reviews", fills=("reviews",))
def _reviews(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    """The PR's reviews, when the sign-off is one (a later review sign-off may outrank it)."""
    if evidence.signoff.kind == "review":
        evidence.reviews = optional(evidence, "reviews", lambda: reader.reviews(evidence.pr.number))


@piece("head tree", fills=("head_files",))
def _head_tree(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    evidence.head_files = optional(evidence, "head tree", lambda: reader.tree(evidence.pr.head_sha), {})


@piece("base tree", fills=("base_files",))
def _base_tree(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    # whole, as the head's and a swept commit's are (README, Input limits): what a sweep job
    # executes may lie anywhere (benchmark_content.executed_paths); scope may have it already
    if not evidence.base_files:
        evidence.base_files = optional(evidence, "base tree",
                                       lambda: reader.tree(evidence.pr.base_sha), {})


@piece("branch runs", fills=("branch_runs", "workflow_runs", "orphan_runs"), after=("commits",))
def _branch_runs(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    """The PR branch's workflow runs: the heads the PR had and when (binding), and where a
    sweep may be; runs on a commit rebased away are kept apart. Unread without the commits."""
    commits = evidence.commits
    if commits is None:
        return
    runs = optional(evidence, "workflow runs", lambda: reader.branch_runs(evidence.pr.head_ref))
    evidence.branch_runs = runs
    for run in runs or []:
        if run.head_sha in commits:
            evidence.workflow_runs[run.id] = run
        elif run.conclusion == "success" and provenance.origin_problem(
                run, evidence.repo, evidence.default_branch) is None:
            evidence.orphan_runs.append(run)  # a sweep of ours on a commit rebased away


@piece("timeline", fills=("timeline",), after=("commits",))
def _timeline(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    # binding (the sign-off's, and a reuse command's): not an `error` when unreadable, the
    # binding then fails closed, saying so
    evidence.timeline = optional(evidence, "timeline",
                                 lambda: reader.timeline(evidence.pr.number, evidence.pr.head_sha,
                                                         evidence.commits or ()))


@piece("branch pulls", fills=("branch_pulls",), after=("timeline",))
def _branch_pulls(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    """Which bases the PR's `pull_request` runs may have run the workflow files of
    (infx.trust.BranchPulls): the PRs its head branch heads, and its retargets from the
    timeline. Unread (None) when either cannot be read: then no such run counts."""
    pr = evidence.pr
    if evidence.timeline is None:
        return
    retargets = trust.retarget_times(evidence.timeline)
    if not trust.same_head_repo_name(pr.head_repo, evidence.repo):
        # a fork's (or a deleted fork's) pull_request runs are never ours (infx.trust.run_origin)
        evidence.branch_pulls = trust.BranchPulls(pr.head_ref, (), retargets)
        return
    owner = evidence.repo.split("/", 1)[0]
    listed = optional(evidence, "pull requests of the head branch",
                      lambda: reader.head_pulls(owner, pr.head_ref, pr.number))
    if listed is not None:
        pulls, frozen = listed
        evidence.branch_pulls = trust.BranchPulls(pr.head_ref, tuple(pulls), retargets, frozen)


@piece("sweep runs", fills=("check_runs", "workflow_runs", "run_jobs", "artifacts", "commit_files",
                            "commit_changes"),
       after=("commits", "head tree", "base tree", "branch runs", "branch pulls"))
def _sweep_runs(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    if evidence.commits is not None:
        _sweep_evidence(reader, evidence, evidence.commits, own=settings.status_context)


@piece("team memberships", fills=("team_members",))
def _team_memberships(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    team_evidence(reader, evidence, settings.codeowners_paths)


@piece("upstream sources", fills=("external_pulls", "external_files"))
def _upstream_sources(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    _external_evidence(reader, evidence)


@piece("bypass permissions", fills=("collaborators",), after=("conversation",))
def _bypass_permissions(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    _bypass_evidence(reader, evidence, settings.pareto_bypass_command)


@piece("reuse command", fills=("collaborators", "reuse_seen_head", "reuse_seen_files", "reuse_seen_problem",
                               "reuse_seen_later", "commit_files", "commit_changes"),
       after=("commits", "conversation", "branch runs", "sweep runs", "timeline", "branch pulls"))
def _reuse_command(reader: Reader, evidence: Evidence, settings: Settings) -> None:
    _reuse_evidence(reader, evidence)


def _reuse_evidence(reader: Reader, evidence: Evidence) -> None:
    """The permission reads the reuse resolver's authorization makes for this conversation.

    The verdict decides with the resolver's own `newest_request`; here the same function walks
    the same comments with a permission lookup that reads GitHub (at most
    MAX_REUSE_LOOKUPS people) and records each answer, so the verdict can replay it.
    """
    conversation = [c for c in evidence.comments or [] if c.kind == "issue_comment"]
    budget = [MAX_REUSE_LOOKUPS]

    def read(user: str) -> dict[str, str] | None:
        login = user.lower()
        if login not in evidence.collaborators:
            if budget[0] <= 0:
                raise _LookupsSpent
            budget[0] -= 1
            evidence.collaborators[login] = optional(evidence, f"permission:{login}",
                                                     lambda: reader.permission(user))
        if f"permission:{login}" in evidence.read_errors:
            raise _LookupsSpent  # the verdict reports the unreadable permission itself
        return evidence.collaborators[login]

    try:
        request = newest_request(conversation, read)
    except _LookupsSpent:
        return
    if request is None:
        return
    # the head when it was posted, from the runs already listed (binding, as the resolver)
    pr = evidence.pr
    runs = [*evidence.workflow_runs.values(), *evidence.orphan_runs]
    found = head_seen(runs, request.comment.created_at, branch=pr.head_ref, head_repo=pr.head_repo,
                      timeline=evidence.timeline, pr_number=pr.number, pulls=evidence.branch_pulls)
    seen = found.sha
    evidence.reuse_seen_head = seen or ""
    evidence.reuse_seen_problem = found.problem
    evidence.reuse_seen_later = list(found.later)
    if too_many_later(found.later, pr.head_sha, ADVISORY_LATER_HEADS):
        return  # the binding fails on their number alone: nothing more to read
    for candidate in found.candidates:
        if candidate == pr.head_sha or candidate not in (evidence.commits or []):
            continue
        # unreadable evidence is an `error` (PRODUCT §4.8), not a guess: a failure here is
        # recorded under the piece's name; a swept commit's tree, when that is a head the
        # command may have been posted on, is reused
        known = provenance.tree_of(evidence, candidate)
        files = known if known is not None else reader.tree(candidate)
        if candidate == seen:
            evidence.reuse_seen_files = files
        else:
            evidence.commit_files[candidate] = files
        commit_changes(reader, evidence, candidate)


def _parent_shas(event: dict) -> dict[str, list]:
    """A `committed` event's parents as bare shas (posted_head.parent_shas, what head_seen
    reads of them), when given."""
    shas = parent_shas(event) if event.get("event") == "committed" else None
    return {} if shas is None else {"parents": shas}


class _LookupsSpent(Exception):
    """Stop walking the reuse requests: the permission budget is spent or a read failed."""


def _bypass_evidence(reader: Reader, evidence: Evidence, command: str) -> None:
    """Permissions of whoever recorded a Pareto bypass for the head (the verdict reports it)."""
    authors = [c.user.lower() for c, sha in reversed(bypass_requests(evidence.comments, command))
               if sha == evidence.pr.head_sha]
    for login in list(dict.fromkeys(authors))[:MAX_BYPASS_LOOKUPS]:
        if login not in evidence.collaborators:
            evidence.collaborators[login] = optional(evidence, f"permission:{login}",
                                                     lambda login=login: reader.permission(login))


def _sweep_evidence(reader: Reader, evidence: Evidence, commits: list[str], own: str = "") -> None:
    """Check runs of in-PR commits, newest first, stopping at the first green sweep of ours.

    The bot's own check run (`own`, the status context's name) is left out: a verdict never
    depends on an earlier verdict. Only the commits the PR branch's workflow-run listing
    (`evidence.branch_runs`, read before) shows a sweep run on are read (one
    listing instead of one read per commit: a PR's other commits cost nothing); when that
    listing is unreadable, every commit is. A commit whose check-run listing GitHub cuts at
    1,000 results is read per check suite of its listed sweep runs instead. A run the
    check runs point at is judged from GitHub's record of it first (provenance: workflow
    file, event, head repository; nothing more is read for one set aside), then from its
    own jobs, then from the sweep workflow files at its commit, whose tree also serves the
    drift comparison and the image comparison.
    """
    evidence.check_runs = {}
    runs = evidence.branch_runs  # the piece `branch runs` (None: unreadable, so every commit is read)
    # only runs of the sweep workflow, or named like it (so that a look-alike is set aside by
    # name in the verdict), say where a green sweep may be: other workflows (the sign-off's
    # own head-status runs, CI) run on every push, and their commits are not read
    name = sweep_workflow_name(evidence.default_branch_files)
    with_runs = {run.head_sha for run in runs or []
                 if trust.is_sweep_run(run) or (name is not None and run.name == name)}
    pinned = _fork_sweeps(reader, evidence, commits)
    with_runs |= set(pinned)
    ordered = list(reversed(commits))
    if runs is not None:
        ordered = [s for s in ordered if s in with_runs]
    incremental = False
    for sha in ordered:
        runs_here = optional(evidence, f"check-runs:{sha}",
                             lambda sha=sha: _commit_check_runs(reader, runs, sha)
                             + _suites_check_runs(reader, pinned.get(sha, ())))
        if runs_here is not None and own:
            # the verdict's own check run (named like its status) is its output, never evidence
            runs_here = [c for c in runs_here if c.name != own]
        evidence.check_runs[sha] = runs_here
        # the check runs only point at the sweep runs; each run is judged from its own record
        run_ids = {run_id_of(c) for c in runs_here or [] if family(c.name)} - {None}
        # runs set aside by their record do not use up the per-commit cap (another
        # workflow's runs never hide ours); records not in the branch listing cost a call each
        judged = looked_up = 0
        for run_id in sorted(run_ids, reverse=True):
            if judged == MAX_RUNS_PER_COMMIT:
                break
            if run_id not in evidence.workflow_runs:
                if looked_up == MAX_RUNS_PER_COMMIT:
                    continue
                looked_up += 1
            if not _ours_by_record(reader, evidence, run_id):
                continue
            judged += 1
            evidence.run_jobs[run_id] = optional(evidence, f"jobs:{run_id}",
                                                 lambda run_id=run_id: reader.run_jobs(run_id))
            green = green_jobs(evidence, run_id)
            if green is None or green.commit != sha:
                if sha == evidence.pr.head_sha and _ran_rows(evidence, run_id):
                    _artifacts(reader, evidence, run_id)  # an incremental re-sweep?
                    incremental = incremental or took_rows(evidence, run_id)
                continue
            commit_tree(reader, evidence, sha)
            commit_changes(reader, evidence, sha)
            ran = evidence.workflow_runs[run_id].head_sha
            if ran != sha:  # a fork sweep: its workflow files are those of the commit it ran
                commit_tree(reader, evidence, ran)
            if green_run(evidence, run_id) is None:
                continue  # modified sweep workflow files (the verdict names them)
            _artifacts(reader, evidence, run_id)
            if took_rows(evidence, run_id):
                incremental = True  # it took rows from earlier runs: see the union below
                continue
            if incremental:
                _union_evidence(reader, evidence, commits)
            return
    if incremental or removed_runs(evidence):
        _union_evidence(reader, evidence, commits)


def _fork_sweeps(reader: Reader, evidence: Evidence, commits: list[str]) -> dict[str, list[int]]:
    """A fork PR's trusted fork sweeps (pinned sha -> run ids, newest first): runs of the sweep
    workflow dispatched on the default branch whose title pins this PR and one of its commits
    (infx.trust.fork_sweeps, as merge-time reuse finds them; the trust rule judges them like any run). Their check runs sit on
    the default branch's commit they ran, so they are read per check suite."""
    pr = evidence.pr
    runs = trust.fork_sweeps(pr.number, commits, head_repo=pr.head_repo, repo=evidence.repo,
                             dispatched=lambda: optional(evidence, "dispatched workflow runs",
                                                         lambda: reader.dispatched_runs(evidence.default_branch, pr.number)))
    found: dict[str, list[int]] = {}
    for run in runs:
        evidence.workflow_runs[run.id] = run
        found.setdefault(trust.swept_commit(run) or "", []).append(run.id)
    return {sha: ids[:MAX_RUNS_PER_COMMIT] for sha, ids in found.items()}


def _suites_check_runs(reader: Reader, run_ids: Iterable[int]) -> list[CheckRun]:
    """The check runs of these runs' check suites (a fork sweep's jobs)."""
    return [item for run_id in run_ids for item in reader.suite_check_runs(run_id)]


_WORKFLOW_NAME = re.compile(r"^name:[ \t]*(?P<q>[\"']?)(?P<name>[^\"'#\n]*?)(?P=q)[ \t]*(?:#.*)?$",
                            re.MULTILINE)


def sweep_workflow_name(default_files: dict[str, str | None]) -> str | None:
    """The `name:` the default branch's sweep workflow gives its runs (None: unreadable)."""
    text = default_files.get(trust.SWEEP_WORKFLOW)
    found = _WORKFLOW_NAME.search(text) if isinstance(text, str) else None
    return found.group("name").strip() or None if found else None


def _commit_check_runs(reader: Reader, runs: list[WorkflowRun] | None, sha: str) -> list[CheckRun]:
    """The check runs of a commit; past GitHub's 1,000-result cap on that listing, the ones it
    served plus the check runs of the check suites of the sweep runs the branch listing shows
    on the commit (newest first, at most MAX_RUNS_PER_COMMIT), never the cut list alone."""
    try:
        return reader.check_runs(sha)
    except ListingCapped as cut:
        if runs is None:
            raise InfxError(f"{cut.problems[0].message}, and the PR branch's workflow runs, which "
                            "name the sweep's check suite to list instead, could not be read "
                            "(fix: retry the verification)") from None
        sweeps = sorted((r.id for r in runs if r.head_sha == sha and trust.is_sweep_run(r)),
                        reverse=True)[:MAX_RUNS_PER_COMMIT]
        if not sweeps:
            raise  # nothing narrower to list: the cut stands, naming GitHub's cap
        found: dict[int, CheckRun] = {}
        for run_id in sweeps:
            for item in reader.suite_check_runs(run_id):
                found.setdefault(item.id, item)
        return list(found.values())


def _ran_rows(evidence: Evidence, run_id: int) -> bool:
    """Did the run end some benchmark or eval job green (so it may be part of a union)?"""
    return any(family(job.name) and job.conclusion == "success"
               for job in latest_attempt(evidence.run_jobs.get(run_id) or []))


def _union_evidence(reader: Reader, evidence: Evidence, commits: list[str]) -> None:
    """The PR has incremental re-sweeps: the jobs of its other sweep runs of ours and the trees
    of their commits, so that a union of runs covering the head's plan can count
    (sweeps.green_union); then the artifacts of the runs the union takes rows from."""
    # a run's commit is the one it swept (a fork sweep's pinned head: infx.trust.swept_commit),
    # as sweeps.union_candidates reads it
    runs = sorted((r for r in evidence.workflow_runs.values() if trust.swept_commit(r) in commits
                   and provenance.origin_problem(r, evidence.repo, evidence.default_branch) is None),
                  key=lambda r: (r.created_at or "", r.id), reverse=True)[:MAX_UNION_RUNS]
    trees = 0
    for run in runs:
        if run.id not in evidence.run_jobs:
            evidence.run_jobs[run.id] = optional(evidence, f"jobs:{run.id}",
                                                 lambda run_id=run.id: reader.run_jobs(run_id))
        sha = trust.swept_commit(run) or ""
        if provenance.tree_of(evidence, sha) is None and trees < MAX_UNION_TREES:
            trees += 1
            commit_tree(reader, evidence, sha)
    _removed_evidence(reader, evidence)
    green = green_union(evidence)
    for run_id in green.runs if green is not None else ():
        _artifacts(reader, evidence, run_id)


def _removed_evidence(reader: Reader, evidence: Evidence) -> None:
    """Sweep runs on commits a force-push or rebase removed from the PR (sweeps.removed_runs):
    the trees of the newest trust.MAX_REMOVED_COMMITS such commits, and the record and jobs of
    each run whose commit has the head's content for every planned row (sweeps.removed_content),
    so that infx.trust.counts_for_pr can admit it to the union. A tree that cannot be read
    admits nothing."""
    shas: list[str] = []
    for run in removed_runs(evidence):
        if run.head_sha not in shas:
            if len(shas) == trust.MAX_REMOVED_COMMITS:
                continue
            shas.append(run.head_sha)
            _removed_tree(reader, evidence, run.head_sha)
        if not removed_content(evidence, run):
            continue
        evidence.workflow_runs.setdefault(run.id, run)
        if run.id not in evidence.run_jobs:
            evidence.run_jobs[run.id] = optional(evidence, f"jobs:{run.id}",
                                                 lambda run_id=run.id: reader.run_jobs(run_id))


def _removed_tree(reader: Reader, evidence: Evidence, sha: str) -> None:
    """The files of a commit the PR no longer has, as `commit_tree` reads a PR commit's; a
    failure only means its runs are not admitted (recorded, never `error`: the PR's own
    evidence is complete without them)."""
    if provenance.tree_of(evidence, sha) is not None:
        return
    try:
        tree = reader.tree(sha)
    except ArchiveLimitError:
        raise
    except InfxError as exc:
        evidence.read_errors[f"removed-tree:{sha}"] = str(exc).split("\n")[0]
        return
    if tree is not None:
        evidence.commit_files[sha] = tree


def _artifacts(reader: Reader, evidence: Evidence, run_id: int) -> None:
    if run_id not in evidence.artifacts:
        evidence.artifacts[run_id] = optional(evidence, f"artifacts:{run_id}",
                                              lambda: reader.artifacts(run_id))


def _ours_by_record(reader: Reader, evidence: Evidence, run_id: int) -> bool:
    """GitHub's record of the run (from the branch listing, else read) passes the origin rules."""
    if run_id not in evidence.workflow_runs:
        record = optional(evidence, f"run:{run_id}", lambda: reader.workflow_run(run_id))
        if record is None:
            return False
        evidence.workflow_runs[run_id] = record
    return provenance.origin_problem(evidence.workflow_runs[run_id], evidence.repo,
                                     evidence.default_branch) is None


def commit_tree(reader: Reader, evidence: Evidence, sha: str) -> dict[str, str | None] | None:
    """The files of a commit of the PR (every one: provenance compares its sweep workflow
    files, drift and fingerprints what a sweep job may execute), read once (one tarball) and kept."""
    known = provenance.tree_of(evidence, sha)
    if known is not None:
        return known
    tree = optional(evidence, f"tree:{sha}", lambda: reader.tree(sha))
    if tree is not None:
        evidence.commit_files[sha] = tree
    return tree


def commit_changes(reader: Reader, evidence: Evidence, sha: str) -> None:
    """What a commit of the PR other than its head changes since its merge base with the
    default branch (one compare), read once. Unknown (no merge base: 404) only makes drift and
    the reuse binding count every executed file that differs, the default branch's too; an
    unreadable answer is an `error`, as for any evidence."""
    if sha == evidence.pr.head_sha or sha in evidence.commit_changes:
        return
    compared = optional(evidence, f"changes:{sha}", lambda: reader.compare(evidence.default_branch, sha))
    evidence.commit_changes[sha] = None if compared is None else touched_paths(compared.files)


def team_evidence(reader: Reader, evidence: Evidence, codeowners_paths: tuple[str, ...]) -> None:
    """Membership of the signer in the CODEOWNERS teams their ownership may rest on, at most MAX_TEAM_LOOKUPS.

    Teams on the specific lines that own a changed path and do not list the signer by name;
    when every changed path falls only under the catch-all and the signer is listed nowhere
    by name, the teams listed anywhere in CODEOWNERS (an active member of any of them is a
    recognised owner), stopping at the first active membership.
    """
    _, text = first_trusted_file(evidence, codeowners_paths)
    if text is None or evidence.files is None:
        return
    owners = codeowners.parse(text)
    signer = evidence.signoff.user
    teams: list[str] = []
    specific = False
    for path in changed_paths(evidence):
        rule = owners.rule_for(path)
        if rule is None or rule.is_catch_all or not rule.owners:
            continue
        specific = True
        if any(o.lower() == "@" + signer.lower() for o in rule.owners):
            continue
        for owner in rule.owners:
            team = owner.lstrip("@").lower()
            if "/" in team and team not in teams:
                teams.append(team)
    catch_all_only = not specific and "@" + signer.lower() not in owners.all_owners()
    if catch_all_only:
        teams = list(owners.teams())
    unproven: list[str] = []
    for team in teams[:MAX_TEAM_LOOKUPS]:
        # catch-all: any active membership suffices, so a 404 is proven a "no" (one more
        # read) only when no team turns out active
        member = optional(evidence, f"team:{team}",
                          lambda team=team: reader.team_member(team, signer, prove=not catch_all_only))
        evidence.team_members.setdefault(team, {})[signer] = member
        if catch_all_only and member is True:
            return
        if member is None and f"team:{team}" not in evidence.read_errors:
            unproven.append(team)
    for team in unproven:
        evidence.team_members[team][signer] = optional(evidence, f"team:{team}",
                                                       lambda team=team: reader.not_member(team))


def _external_evidence(reader: Reader, evidence: Evidence) -> None:
    detail = parse_checklist(evidence.signoff.body).detail or ""
    links = list(dict.fromkeys(_PR_LINK.findall(detail)))[:MAX_EXTERNAL_PULLS]
    for repo, number in links:
        key = f"{repo}#{number}"
        if repo.lower() == reader.repo.lower():
            continue
        evidence.external_pulls[key] = optional(
            evidence, f"external:{key}", lambda repo=repo, number=number: reader.external_pull(repo, int(number)))
    _page_evidence(reader, evidence, detail)


def _page_evidence(reader: Reader, evidence: Evidence, detail: str) -> None:
    """The upstream source files of the published recipe pages the detail section links, as
    the trusted default branch's page mapping names them (an unmapped or malformed link, or
    an unreadable mapping, reads nothing: the verdict reports it)."""
    urls = recipe_pages.LINK.findall(detail)
    if not urls:
        return
    text = evidence.default_branch_files.get(recipe_pages.POLICY)
    try:
        known = recipe_pages.sites(load_policy_document("recipe-pages", text))
    except InfxError:
        return
    sources = [s for s in (recipe_pages.resolve(url, known) for url in urls)
               if isinstance(s, recipe_pages.PageSource)]
    for source in list({s.key: s for s in sources}.values())[:MAX_EXTERNAL_PAGES]:
        evidence.external_files[source.key] = optional(
            evidence, f"page:{source.key}", lambda source=source: reader.external_file(source))


# --- identity of the evidence -----------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode()}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "value") and not isinstance(value, (str, int, float, bool)):
        return value.value
    return value


def to_json(evidence: Evidence) -> dict:
    """The evidence as plain JSON (artifact bytes as base64), for --dump-evidence."""
    return _plain(asdict(evidence))


def is_verdict(comment_: Comment, marker: str, identity: Identity) -> bool:
    """A verdict comment: written by the bot itself (``trust.our_comment``) AND starting
    with our marker line."""
    return our_comment(identity, comment_) and read_marker(comment_.body, marker) is not None


# what a check run's writer says in it and where it lives, not what it concluded: its output
# changes whenever its app rewrites it (the verdict's own check run is rewritten by every
# verdict, so digesting it would change the digest each time it is read back), and no check reads it
CHECK_RUN_NOT_DIGESTED = frozenset({"title", "summary", "text", "annotations_count", "app_slug",
                                    "html_url", "external_id"})


def _digested_check_runs(by_sha: dict[str, list[CheckRun] | None] | None) -> Any:
    if by_sha is None:
        return None
    return {sha: None if runs is None else [
        {k: v for k, v in _plain(asdict(run)).items() if k not in CHECK_RUN_NOT_DIGESTED}
        for run in runs] for sha, runs in by_sha.items()}


# where a comment of the PR's own listings is on adds nothing (they are listed as the PR's);
# the sign-off's is digested as binding reads it (_digested_signoff)
COMMENT_NOT_DIGESTED = frozenset({"issue_repo", "issue_number"})


def _digested_comments(comments: Iterable[Comment] | None) -> Any:
    if comments is None:
        return None
    return [{k: v for k, v in _plain(asdict(c)).items() if k not in COMMENT_NOT_DIGESTED}
            for c in comments]


def _digested_signoff(evidence: Evidence) -> dict[str, Any]:
    """What of the sign-off the verdict rests on: its signer and text, which one it is (kind
    and id, 0 for a draft: none), when it was posted, the PR of this repository it is on, a
    review's head and state. Named as verdicts have always digested them, so a standing
    verdict's digest does not change with the model (a changed digest re-posts it)."""
    signoff = evidence.signoff
    return {"author": signoff.user, "body": signoff.body, "url": signoff.html_url,
            "source_id": signoff.id or None, "kind": signoff.kind,
            "created_at": signoff.created_at or None,
            "pr_number": binding.signoff_pr(signoff, evidence.repo),
            "commit_id": binding.reviewed_head(signoff), "state": signoff.state}


def digest(evidence: Evidence, marker: str, identity: Identity) -> str:
    """Fingerprint of what the verdict depends on: the review DATE (not time), no verdicts, and
    of check runs what they concluded, not their output (CHECK_RUN_NOT_DIGESTED)."""
    data = to_json(evidence)
    data["now"] = evidence.now.date().isoformat()
    data["signoff"] = _digested_signoff(evidence)
    data["comments"] = _digested_comments(None if evidence.comments is None else [
        c for c in evidence.comments if not is_verdict(c, marker, identity)])
    data["reviews"] = _digested_comments(evidence.reviews)
    data["check_runs"] = _digested_check_runs(evidence.check_runs)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def evidence_clock(client: Any) -> datetime:
    """The time of the evidence: GitHub's `Date` header (the world's `now` in replays).
    The host's clock is never used, so a replay judges on the day its evidence was read."""
    server_time = getattr(client, "server_time", None)
    now = server_time() if callable(server_time) else None
    if now is None:
        raise InfxError("the evidence's clock could not be read: GitHub's answers carried "
                        "no Date header, and date-dependent checks never use the host's clock")
    return now.astimezone(timezone.utc)


def default_branch_of(raw: dict) -> str | None:
    """The repository's default branch, from GitHub's PR answer (`base.repo.default_branch`)."""
    return ((raw.get("base") or {}).get("repo") or {}).get("default_branch")
