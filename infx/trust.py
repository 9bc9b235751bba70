"""What on GitHub is the bot's own: the one trust decision every path asks (PRODUCT §4.8).

Comments, reviews and statuses (Identity): `our_comment`, `our_status` — by the author's or
creator's login only, never by text.

Workflow runs (provenance): every consumer — the sign-off's Check `sweep`, the reuse resolver
(`/use <run_id>`, a bare `/reuse-sweep-run`, the PR push and the merge), the GPU-free neutral
merge, the incremental planner, `/retest-failed` and the sweep report — asks `our_run` (or,
before a commit's files are read, its first half `run_origin`), and no other module reads a
run's workflow path or head repository (tests/repo/test_trust_architecture.py holds this).
A run is ours when GitHub's own run record says it is a run of our sweep workflow
(`run-sweep.yml`) for a `pull_request` (or the merge-time `push` to the default branch, or a
trusted fork sweep: see below), its head commit lives in this repository (a fork's runs never
count), the sweep workflow files at
its commit are byte-identical to the default branch's (a run made by a PR's own edited
workflow is the PR's, not ours), and — where its results are needed — it still holds an
unexpired result artifact. The set of sweep files is data the decision reads (`sweep_files`
derives it from the default branch; callers may pass their own).

Trusted fork sweeps (PRODUCT §4.4): a fork PR's own runs never count. A maintainer approves the
exact head (infx.commands.fork_approval) and fork-sweep.yml dispatches run-sweep.yml on the
default branch (`workflow_dispatch`, inputs `pr-number` and `head-sha`); the run re-decides the
approval before anything else and sweeps the pinned head with the PR's files as data. GitHub
records such a run with the default branch's commit as its head (the code that ran, compared
with the default branch's like any run's) and, as its `display_title`, the title run-sweep.yml's
`run-name` renders from the inputs: `Fork sweep - PR #<n> @ <40-hex sha>` (`fork_sweep_title`).
The title is the pinned head (`pinned_head`, `swept_commit`): only a dispatch on the default
branch of a byte-identical run-sweep.yml renders it, a PR cannot write it (its own runs are
`pull_request` runs titled by GitHub from the PR title, never counted as dispatches), and a
dispatch naming a head no maintainer approved fails its first job, so it has no green job to offer.

Pure: logins, runs, trees and artifact listings come in as plain facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol, TypeVar

from infx import yamlio
from infx.errors import InfxError

# the login every workflow's GITHUB_TOKEN writes as: never the identity of a GitHub App
SHARED_ACTIONS_LOGIN = "github-actions[bot]"


@dataclass(frozen=True)
class Identity:
    """Who the bot is on GitHub: the login its token writes as, and whether that token is a
    GitHub App's (then the login is the App's own `<app-slug>[bot]`)."""

    login: str
    app: bool = False

    def __post_init__(self) -> None:
        if self.app and self.login.lower() == SHARED_ACTIONS_LOGIN:
            raise ValueError(f"a GitHub App never writes as {SHARED_ACTIONS_LOGIN}: give the "
                             "App's own '<app-slug>[bot]' login")


class Authored(Protocol):
    """A comment or review as read from GitHub: `user` is its author's login."""

    @property
    def user(self) -> str: ...


def _is(identity: Identity, login: Any) -> bool:
    """Is `login` exactly the bot's own login (GitHub logins compare case-insensitively)?"""
    return bool(identity.login) and isinstance(login, str) and login.lower() == identity.login.lower()


def our_comment(identity: Identity, comment: Authored) -> bool:
    """Was this comment (or review) written by the bot itself? Only by its author's login:
    never by its text (anyone can copy a marker line), and for an App never by the shared
    github-actions[bot] login that any workflow of any PR can post as."""
    return _is(identity, comment.user)


def _creator(status: Mapping[str, Any]) -> str | None:
    """The login that created a commit status (the statuses API's `creator`), or None."""
    creator = status.get("creator")
    if isinstance(creator, Mapping):
        creator = creator.get("login")
    return creator if isinstance(creator, str) and creator else None


ACTIONS_APP_SLUG = "github-actions"


def app_slug(identity: Identity) -> str:
    """The app whose check runs the bot writes: its own App's slug (`<slug>[bot]`), else
    GitHub Actions (a workflow's GITHUB_TOKEN writes check runs as that app)."""
    login = identity.login
    return login[: -len("[bot]")] if identity.app and login.lower().endswith("[bot]") \
        else ACTIONS_APP_SLUG


def our_check_run(identity: Identity, slug: str | None) -> bool:
    """May the bot update this check run in place: was it written by the bot's app (by the
    check run's `app.slug`)? Without an App that is GitHub Actions, which every workflow
    writes as: such a check run is the bot's to overwrite, never evidence of anything."""
    return isinstance(slug, str) and slug.lower() == app_slug(identity).lower()


def our_status(identity: Identity, status: Mapping[str, Any]) -> bool:
    """Was this commit status (GitHub's JSON) created by the bot itself, by its `creator`?
    A status without a readable creator is not ours."""
    return _is(identity, _creator(status))


# --- workflow runs ----------------------------------------------------------------------

SWEEP_WORKFLOW = ".github/workflows/run-sweep.yml"
RUN_EVENTS = ("pull_request", "push")  # push: only the merge-time push to the default branch
FORK_SWEEP_EVENT = "workflow_dispatch"  # a trusted fork sweep, dispatched on the default branch
FORK_SWEEP_TITLE = "Fork sweep - PR #{number} @ {sha}"  # run-sweep.yml's run-name for a dispatch
_PINNED = re.compile(r"Fork sweep - PR #([1-9][0-9]{0,9}) @ ([0-9a-f]{40})")
MAX_CALLED_FILES = 20  # local workflows/actions followed from run-sweep.yml (a cycle or a fan-out stops here)
RESULT_ARTIFACTS = ("results_bmk", "eval_results_all")
RESULT_PREFIX = "bmk_agentic_"

Files = Mapping[str, "str | None"]


class RunRecord(Protocol):
    """GitHub's record of a workflow run, as every run model of infx carries it."""

    @property
    def head_sha(self) -> str: ...
    @property
    def event(self) -> str: ...
    @property
    def path(self) -> str | None: ...
    @property
    def head_branch(self) -> str | None: ...
    @property
    def head_repo(self) -> str | None: ...


class ArtifactRecord(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def expired(self) -> bool: ...


def fork_sweep_title(number: int, sha: str) -> str:
    """The display title GitHub gives a fork sweep run of PR `number` pinned to `sha`."""
    return FORK_SWEEP_TITLE.format(number=number, sha=sha)


def pinned_head(run: RunRecord) -> tuple[int, str] | None:
    """(PR number, head sha) a fork sweep run is pinned to, from GitHub's `display_title` of a
    `workflow_dispatch` run; None for every other run or a title of another shape. Run models
    without the field pin nothing."""
    if run.event != FORK_SWEEP_EVENT:
        return None
    title = getattr(run, "display_title", None)
    found = _PINNED.fullmatch(title) if isinstance(title, str) else None
    return (int(found.group(1)), found.group(2)) if found else None


def swept_commit(run: RunRecord) -> str | None:
    """The commit whose benchmark content a run swept: a fork sweep's pinned head, else the
    run's head commit (None: a dispatch that pins nothing)."""
    if run.event == FORK_SWEEP_EVENT:
        pinned = pinned_head(run)
        return pinned[1] if pinned else None
    return run.head_sha or None


R = TypeVar("R", bound=RunRecord)


def is_fork_pull(head_repo: str | None, repo: str) -> bool:
    """Whether a PR's head lives in another repository (a deleted fork is none: nothing sweeps it)."""
    return bool(head_repo) and str(head_repo).lower() != repo.lower()


def fork_sweeps(number: int, commits: Collection[str], *, head_repo: str | None, repo: str,
                dispatched: Callable[[], Iterable[R] | None], workflow: str = SWEEP_WORKFLOW) -> list[R]:
    """The trusted fork sweeps of PR `number`, in the listing's order: the runs of the sweep
    workflow among `dispatched` (the runs dispatched on the default branch, listed only for a
    fork PR; None: unread) whose title pins this PR and one of its `commits` (`pinned_head`).
    Empty for a same-repository PR, whose own runs sweep it. Which of them are ours is still
    `our_run`'s to decide; the sign-off and merge-time reuse both ask this for "the PR's
    fork sweeps"."""
    if not is_fork_pull(head_repo, repo):
        return []
    wanted = set(commits)
    found = []
    for run in dispatched() or ():
        head = pinned_head(run)
        if head is not None and head[0] == number and head[1] in wanted and is_sweep_run(run, workflow):
            found.append(run)
    return found


MAX_REMOVED_COMMITS = 4  # commits a force-push or rebase removed from a PR, judged per decision


def counts_for_pr(run: R, commits: Collection[str], *, repo: str, default_branch: str,
                  same_content: Callable[[R], bool] | None = None) -> bool:
    """Whether a run may stand as one of a PR's sweeps by the commit it swept (PRODUCT §4.8;
    the one rule the sign-off, the reuse resolver, the merge and the incremental planner ask).

    A run on one of the PR's `commits` may. A run on a commit the PR no longer has (a force-push
    or a rebase removed it; the branch's listing keeps its runs) may only when GitHub's record
    shows a `pull_request` run of our sweep workflow whose head commit lives in this repository
    (`run_origin`) and `same_content(run)` holds: at its commit, every row of the head's plan has
    the fingerprint it has at the head (infx.plan.coverage.same_content). Without
    `same_content` it never may. Which candidates are ours is still `our_run`'s to decide for
    every run (the sweep workflow files at its commit equal the default branch's)."""
    swept = swept_commit(run)
    if swept is None:
        return False
    if swept in commits:
        return True
    if same_content is None or run.event != "pull_request":
        return False
    if run_origin(run, repo=repo, default_branch=default_branch) is not None:
        return False
    return same_content(run)


def pr_sweep_candidates(runs: Iterable[R], forks: Iterable[R],
                        commits: Collection[str] | None = None, *, repo: str = "",
                        default_branch: str = "",
                        same_content: Callable[[R], bool] | None = None) -> list[R]:
    """The runs that may be a PR's sweeps, newest first: the `pull_request` runs among `runs`
    (its branch's listing; when `commits` is given, those `counts_for_pr` admits: on one of
    them, or on a removed commit with the head's content for the whole plan, judged for the
    newest MAX_REMOVED_COMMITS such commits only) and its trusted fork sweeps (`forks`:
    `fork_sweeps`, already on its commits). Which of them are ours is `our_run`'s."""
    own = sorted((run for run in runs if run.event == "pull_request"),
                 key=lambda run: (run.created_at, run.id), reverse=True)
    if commits is not None:
        judged: dict[str, bool] = {}  # removed commit -> same content (read once per commit)

        def content(run: R) -> bool:
            swept = swept_commit(run) or ""
            if swept not in judged:
                if same_content is None or len(judged) == MAX_REMOVED_COMMITS:
                    return False
                judged[swept] = same_content(run)
            return judged[swept]

        own = [run for run in own if counts_for_pr(run, commits, repo=repo, default_branch=default_branch,
                                                   same_content=content)]
    return sorted([*own, *forks], key=lambda run: (run.created_at, run.id), reverse=True)


def head_repo_of(run: RunRecord) -> str:
    """The repository GitHub records the run's head commit in ("" when not recorded): where
    to find the run's PR (a fork's run points at the fork), never an answer to "is it ours"."""
    return run.head_repo or ""


def workflow_of(run: RunRecord) -> str:
    """The workflow file a run's record names (without a `@ref` suffix), or ""."""
    return (run.path or "").split("@", 1)[0]


def is_sweep_run(run: RunRecord, workflow: str = SWEEP_WORKFLOW) -> bool:
    """Whether the record names our sweep workflow (a listing filter; `our_run` decides trust)."""
    return workflow_of(run) == workflow


def same_head_repo(run: RunRecord, repo: str | None) -> bool:
    """Whether the run's head commit came from `repo` (unknown on either side: not shown)."""
    return bool(run.head_repo and repo and run.head_repo.lower() == repo.lower())


def same_head_repo_name(head_repo: str | None, repo: str) -> bool:
    """Whether a PR's head repository is `repo` itself (a fork's, or an unknown one, is not)."""
    return bool(head_repo) and str(head_repo).lower() == repo.lower()


def run_origin(run: RunRecord, *, repo: str, default_branch: str,
               workflow: str = SWEEP_WORKFLOW) -> str | None:
    """Why GitHub's record of a run says it is not our sweep, or None: the workflow file,
    the event, and where its head commit lives. The first half of `our_run`, for callers
    that filter runs before reading their commits' files."""
    path = workflow_of(run)
    if path != workflow:
        return f"it is a run of {path or 'an unnamed workflow'}, not {workflow}"
    if run.event == "push":
        if run.head_branch != default_branch:
            return (f"it was started by a push to {run.head_branch or 'an unknown branch'}, not the "
                    f"merge-time push to {default_branch}")
    elif run.event == FORK_SWEEP_EVENT:
        if run.head_branch != default_branch:
            return (f"it was dispatched on {run.head_branch or 'an unknown branch'}, not on "
                    f"{default_branch} (a fork sweep runs the default branch's workflow)")
        if pinned_head(run) is None:
            return ("it is a dispatch whose title pins no PR head (a fork sweep is titled "
                    f"'{FORK_SWEEP_TITLE.format(number='<n>', sha='<40-hex sha>')}')")
    elif run.event not in RUN_EVENTS:
        return (f"it was started by a {run.event or 'an unknown'} event, not pull_request, push "
                "or a fork sweep's dispatch")
    if not run.head_repo:
        return "its head repository is not recorded, so it cannot be shown to be this repository"
    if not same_head_repo(run, repo):
        return f"its head commit comes from {run.head_repo}, not {repo} (a fork's runs never count)"
    return None


@dataclass(frozen=True)
class BranchPulls:
    """What says which base a PR's `pull_request` runs ran the workflow files of: GitHub runs
    a `pull_request` workflow from the merge of the head into the PR's base, so a run on a
    commit whose sweep files equal ours still ran another base's run-sweep.yml when it ran for
    a PR into another branch. `head_ref` is the PR's head branch; `pulls`: every PR of this
    repository whose head is that branch, in any state, as (number, base ref, created_at,
    closed_at or None); `retargets`: when the PR's timeline shows its base changed."""

    head_ref: str
    pulls: tuple[tuple[int, str, str, str | None], ...]
    retargets: tuple[str, ...]
    # the closed ones' frozen heads, as (number, head sha, closed_at or None): GitHub keeps a
    # closed PR's head where it was, and editing the PR runs its workflows with that head on
    # the branch, so such a run does not show where the branch was (posted_head.head_seen)
    frozen: tuple[tuple[int, str, str | None], ...] = ()


def branch_pull_records(items: Iterable[Any]) -> tuple[tuple[int, str, str, str | None], ...]:
    """GitHub's PR listing as BranchPulls.pulls: (number, base ref, created_at, closed_at or
    None) of each PR it holds (items that are no PR are left out)."""
    return tuple((int(item["number"]), str((item.get("base") or {}).get("ref") or ""),
                  str(item.get("created_at") or ""), item.get("closed_at") or None)
                 for item in items if isinstance(item, dict) and isinstance(item.get("number"), int))


def frozen_heads(items: Iterable[Any]) -> tuple[tuple[int, str, str | None], ...]:
    """The closed PRs of GitHub's PR listing as BranchPulls.frozen: (number, head sha,
    closed_at or None)."""
    return tuple((int(item["number"]), str((item.get("head") or {}).get("sha") or ""),
                  item.get("closed_at") or None)
                 for item in items if isinstance(item, dict) and isinstance(item.get("number"), int)
                 and item.get("state") != "open")


def retarget_times(timeline: Iterable[Any]) -> tuple[str, ...]:
    """When a PR's timeline shows its base changed (``base_ref_changed``), as written."""
    return tuple(str(event.get("created_at") or "") for event in timeline
                 if isinstance(event, dict) and event.get("event") == "base_ref_changed")


def _when(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=timezone.utc)


def base_problem(run: RunRecord, pulls: BranchPulls | None, *, default_branch: str) -> str | None:
    """Why a `pull_request` run cannot be shown to have run the default branch's workflow
    files for its PR (`pulls`: BranchPulls; None: not read), or None. A run of another head
    branch, a run created while a PR from the same branch into another base was open, or a
    run created before the PR was last retargeted may have run that base's run-sweep.yml.
    Other events are not asked (their code is the run's head commit)."""
    if run.event != "pull_request":
        return None
    if pulls is None:
        return ("the pull requests its head branch heads, or the PR's retargets, could not be "
                "read, so which base's workflow files it ran is unknown")
    if run.head_branch != pulls.head_ref:
        return (f"it ran for the branch {run.head_branch or 'unknown'}, not this PR's head branch "
                f"{pulls.head_ref}")
    created = _when(getattr(run, "created_at", None))
    if created is None:
        return "when it was created is not recorded, so which base it ran for is unknown"
    for number, base, opened, closed in pulls.pulls:
        if base == default_branch:
            continue
        start, end = _when(opened), _when(closed) if closed else None
        if start is None or (closed and end is None) or (start <= created and (end is None or created <= end)):
            return (f"it was created while PR #{number} from the same branch into {base} was open, "
                    f"whose run would run {base}'s workflow files")
    for stamp in pulls.retargets:
        when = _when(stamp)
        if when is None or created <= when:
            return (f"the PR's base was changed at {stamp or 'an unrecorded time'}, after it was "
                    "created, so it may have run another base's workflow files")
    return None


def _calls(data: Any) -> list[str]:
    """Every local `uses: ./…` in a parsed workflow (job-level reusable workflows and step actions)."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "uses" and isinstance(value, str) and value.startswith("./"):
                found.append(value[2:].split("@", 1)[0].rstrip("/"))
            else:
                found += _calls(value)
    elif isinstance(data, list):
        for item in data:
            found += _calls(item)
    return found


_FULL_SHA = re.compile(r"[0-9a-f]{40}")


def _movable_calls(data: Any) -> list[str]:
    """The job-level calls of another repository's reusable workflow (`owner/name/…@ref`) whose
    ref is not a full commit SHA: a tag or branch can move, so the calling file alone would no
    longer say what a run ran (an adopter's sweep calls ours this way, pinned)."""
    jobs = data.get("jobs") if isinstance(data, dict) else None
    calls = [job["uses"] for job in (jobs.values() if isinstance(jobs, dict) else [])
             if isinstance(job, dict) and isinstance(job.get("uses"), str)]
    return [call for call in calls if not call.startswith("./")
            and not _FULL_SHA.fullmatch(call.rpartition("@")[2])]


def _file_of(call: str, tree: Files) -> str:
    """The file a local `uses:` names: a workflow file, or a local action's action.yml/.yaml."""
    if call.endswith((".yml", ".yaml")):
        return call
    return next((f"{call}/{name}" for name in ("action.yml", "action.yaml")
                 if tree.get(f"{call}/{name}") is not None), f"{call}/action.yml")


def sweep_files(default_tree: Files, workflow: str = SWEEP_WORKFLOW) -> tuple[str, ...]:
    """The sweep workflow and the local workflows and actions it calls (transitively), as the
    default branch has them. Raises InfxError when the default branch has no sweep workflow
    or one of them cannot be parsed (then no run can be shown to be ours)."""
    if default_tree.get(workflow) is None:
        raise InfxError(f"the default branch has no {workflow}, so no run can be shown to "
                        "come from our sweep workflow")
    files: list[str] = []
    queue = [workflow]
    while queue:
        path = _file_of(queue.pop(0), default_tree)
        if path in files:
            continue
        if len(files) == MAX_CALLED_FILES:
            raise InfxError(f"the default branch's {workflow} calls more than "
                            f"{MAX_CALLED_FILES} local workflows and actions; they cannot all be compared")
        files.append(path)
        text = default_tree.get(path)
        if text is None:
            continue  # compared as absent on both sides
        try:
            data = yamlio.load_shared(text, path)  # read-only; parsed once per process
        except InfxError as exc:
            raise InfxError(f"the default branch's {path} cannot be parsed "
                            f"({str(exc).splitlines()[0]})") from None
        movable = _movable_calls(data)
        if movable:
            raise InfxError(f"the default branch's {path} calls {movable[0]}, whose ref can move: pin it "
                            "to a full commit SHA so that the workflow files show what a run ran")
        queue += _calls(data)
    return tuple(files)


def is_sweep_file_candidate(path: str) -> bool:
    """Whether a file may be one of the sweep files (what a commit reader must keep so that
    `our_run` can compare them): YAML files, where workflows and local actions live."""
    return path.endswith((".yml", ".yaml"))


def files_problem(run_tree: Files, default_tree: Files, commit: str,
                  files: Sequence[str] | None = None) -> str | None:
    """Which sweep workflow files at the run's commit differ from the default branch's
    (`files`: the file set to compare, default `sweep_files(default_tree)`). Identical files
    are enough: the default branch's sweep workflows run the default branch's infx, installed
    from its own checkout, and take the PR's checkout as data (tests/repo/
    test_workflows_trusted_code.py holds them to it), so the PR's `infx/`, build files and lock
    at the run's commit wrote nothing the run produced."""
    if files is None:
        try:
            files = sweep_files(default_tree)
        except InfxError as exc:
            return str(exc)
    changed = [path for path in files if run_tree.get(path) != default_tree.get(path)]
    if changed:
        return (f"its commit {commit[:8]} has sweep workflow files that differ from the default "
                f"branch's ({', '.join(changed)})")
    return None


def is_result_artifact(artifact: ArtifactRecord) -> bool:
    """An unexpired artifact holding a run's result rows (benchmark, eval or agentic)."""
    if artifact.expired:
        return False
    return artifact.name in RESULT_ARTIFACTS or artifact.name.startswith(RESULT_PREFIX)


def artifacts_problem(artifacts: Iterable[ArtifactRecord] | None) -> str | None:
    """Why a run's artifacts cannot supply its results (unread, or none unexpired), or None."""
    if artifacts is None:
        return "its artifacts could not be listed"
    listed = list(artifacts)
    if not any(is_result_artifact(a) for a in listed):
        expired = sorted(a.name for a in listed if a.expired)
        gone = f" (expired: {', '.join(expired)})" if expired else ""
        return ("it holds no unexpired result artifact (results_bmk, eval_results_all or "
                f"bmk_agentic_*){gone}")
    return None


_UNSET: Any = object()


def our_run(run: RunRecord | None, *, repo: str, default_branch: str,
            run_tree: Files | None, default_tree: Files | None,
            files: Sequence[str] | None = None, artifacts: Any = _UNSET,
            workflow: str = SWEEP_WORKFLOW, pulls: Any = _UNSET) -> str | None:
    """Why a run is not our sweep, or None when it is (PRODUCT §4.8 provenance).

    `run_tree`: the files at the run's head commit (None: unread, so not shown to be ours; for a
    fork sweep that is the default-branch commit it ran, not the pinned head it swept);
    `default_tree`: the default branch's; `files`: the sweep file set (default derived from
    `default_tree`). `artifacts`: pass the run's artifact listing (None when it could not be
    read) when its results are needed — a run whose result artifacts all expired is then
    not usable; leave it out where only the run's jobs count. `pulls`: pass the PR's
    BranchPulls (None when unread) where a `pull_request` run must be shown to have run for a
    PR into the default branch (`base_problem`).
    """
    if run is None:
        return "GitHub's record of the run could not be read"
    problem = run_origin(run, repo=repo, default_branch=default_branch, workflow=workflow)
    if problem is None and pulls is not _UNSET:
        problem = base_problem(run, pulls, default_branch=default_branch)
    if problem is not None:
        return problem
    if default_tree is None:
        return "the default branch's sweep workflow files could not be read"
    if run_tree is None:
        return f"the sweep workflow files at its commit {run.head_sha[:8]} could not be read"
    problem = files_problem(run_tree, default_tree, run.head_sha, files)
    if problem is not None:
        return problem
    if artifacts is not _UNSET:
        return artifacts_problem(artifacts)
    return None
