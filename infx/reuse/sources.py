"""Choosing and validating the source run a reuse request points at (fail closed)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from infx import trust
from infx.commands.grammar import ReuseCommand
from infx.github.models import Artifact, WorkflowRun
from infx.plan.labels import REUSE_INCOMPATIBLE_LABELS
from infx.reuse.facts import ReuseError

DEFAULT_WORKFLOW = "run-sweep.yml"
PINNED_CONCLUSIONS = ("success", "failure", "cancelled")  # a maintainer's explicit choice
UNPINNED_CONCLUSIONS = ("success",)
REUSABLE_ARTIFACTS = trust.RESULT_ARTIFACTS
REUSABLE_PREFIX = trust.RESULT_PREFIX
INCOMPATIBLE_LABELS = REUSE_INCOMPATIBLE_LABELS
# why a run is not our sweep (infx.trust.our_run, read through the gateway), or None
Trust = Callable[[WorkflowRun], "str | None"]


def is_reusable_artifact(artifact: Artifact) -> bool:
    return trust.is_result_artifact(artifact)


def workflow_path(workflow: str) -> str:
    return workflow if workflow.startswith(".github/") else f".github/workflows/{workflow}"


def check_labels(pr_number: int, labels: Iterable[str],
                 incompatible: Sequence[str] = INCOMPATIBLE_LABELS) -> None:
    bad = [label for label in labels if label in incompatible]
    if bad:
        raise ReuseError(f"PR #{pr_number} uses reuse-incompatible label(s): {', '.join(bad)}",
                         fix="remove the label, or let the PR sweep normally")


def validate_source(run: WorkflowRun, artifacts: Sequence[Artifact], pr_number: int,
                    pr_commits: Sequence[str], *, pinned: bool, ours: Trust,
                    workflow: str = DEFAULT_WORKFLOW, elevated: bool = False, fork_sweep: bool = False) -> None:
    """Every identity and artifact check of a source run; raises ReuseError on the first failure.

    `ours(run)`: why the run is not our sweep (infx.trust.our_run), or None.
    `elevated`: the request comes from maintain or admin, who alone may pin a run that did
    not succeed (partial data is their explicit choice, never a write user's).
    `fork_sweep`: the run is one of the PR's trusted fork sweeps (infx.trust.fork_sweeps);
    its commit is then the pinned head it swept (infx.trust.swept_commit).
    """
    if run.event != "pull_request" and not fork_sweep:
        raise ReuseError(f"run {run.id} was triggered by {run.event or 'an unknown event'}, "
                         "expected pull_request", fix="pin a PR sweep run")
    if run.status != "completed":
        raise ReuseError(f"run {run.id} is {run.status or 'in an unknown state'}, expected completed",
                         fix="wait for the run to finish")
    allowed = PINNED_CONCLUSIONS if pinned else UNPINNED_CONCLUSIONS
    if run.conclusion not in allowed:
        raise ReuseError(f"run {run.id} concluded {run.conclusion}; expected {' or '.join(allowed)}")
    if run.conclusion != "success" and not elevated:
        raise ReuseError(f"run {run.id} concluded {run.conclusion}; pinning a run that did not "
                         "succeed needs a request from a maintain or admin user",
                         fix="ask a maintainer to post the command, or pin a successful run")
    swept = trust.swept_commit(run)
    if not swept:
        raise ReuseError(f"run {run.id} has no head commit")
    if swept not in set(pr_commits):
        raise ReuseError(f"run {run.id}'s commit {swept[:12]} is not in PR #{pr_number}'s "
                         "commit list; pin a run whose commit is still part of the PR")
    if not any(is_reusable_artifact(a) for a in artifacts):
        raise ReuseError(f"run {run.id} has no benchmark, eval, or agentic result artifact "
                         "(results_bmk, eval_results_all or bmk_agentic_*, unexpired)",
                         fix="pin a run whose artifacts are still retained, or sweep again")
    why = ours(run)
    if why is not None:
        raise ReuseError(f"run {run.id} is not our sweep: {why}",
                         fix=f"pin a run of this repository's unmodified {workflow_path(workflow)}")


def select_source(command: ReuseCommand, pr_number: int, pr_commits: Sequence[str], *,
                  get_run: Callable[[int], WorkflowRun | None],
                  branch_runs: Callable[[], Sequence[WorkflowRun]],
                  artifacts_of: Callable[[int], Sequence[Artifact]], ours: Trust,
                  workflow: str = DEFAULT_WORKFLOW, elevated: bool = False,
                  drift: Callable[[WorkflowRun], Sequence[str]] | None = None,
                  covers: Callable[[WorkflowRun], None] | None = None,
                  fork_sweeps: Callable[[], Sequence[WorkflowRun]] = tuple, repo: str = "",
                  default_branch: str = "",
                  same_content: Callable[[WorkflowRun], bool] | None = None) -> WorkflowRun:
    """The pinned run (validated, never substituted) or the newest valid green run of the PR
    that is our sweep (`ours`, infx.trust.our_run).

    `drift(run)` names the benchmark-affecting content that differs between the run's commit
    and the head being decided: a pinned run with drift is refused, and automatic selection
    passes over such runs (a sweep of another plan is never reused). `covers(run)` raises
    ReuseError naming the plan rows a pinned run does not cover with matching fingerprints.
    `fork_sweeps()`: the PR's trusted fork sweeps (infx.trust.fork_sweeps), candidates beside
    its branch's pull_request runs. Without a run id, when no run on a commit of the PR
    qualifies, a run on a commit a force-push or rebase removed from it may, as
    infx.trust.counts_for_pr admits it (`same_content`: the head's content for every planned
    row; `repo`, `default_branch`); a pinned run must be on a commit of the PR.
    """
    if not pr_commits:
        raise ReuseError(f"PR #{pr_number} has no commits")
    if command.run_id is not None:
        run = get_run(command.run_id)
        if run is None:
            raise ReuseError(f"run {command.run_id} does not exist in this repository",
                             fix="check the run id in the command")
        forked = run.event == trust.FORK_SWEEP_EVENT and run.id in {r.id for r in fork_sweeps()}
        validate_source(run, artifacts_of(run.id), pr_number, pr_commits, pinned=True, ours=ours,
                        workflow=workflow, elevated=elevated, fork_sweep=forked)
        if covers is not None:
            covers(run)
        changed = drift(run) if drift is not None else ()
        if changed:
            raise ReuseError(f"run {run.id} swept commit {(trust.swept_commit(run) or '')[:12]}, whose benchmark-affecting "
                             f"content differs from the head being merged ({', '.join(changed)})",
                             fix="sweep the current head, or pin a run of identical content")
        return run
    commits = set(pr_commits)
    passed_over: list[str] = []
    listed = branch_runs()
    candidates = trust.pr_sweep_candidates(listed, fork_sweeps(), commits)
    if same_content is not None:  # after every run of the PR: our sweeps of its content elsewhere
        green = [run for run in listed if run.conclusion == "success" and run.status == "completed"
                 and trust.is_sweep_run(run, workflow_path(workflow))
                 and trust.swept_commit(run) not in commits]
        candidates += trust.pr_sweep_candidates(green, (), commits, repo=repo,
                                                default_branch=default_branch, same_content=same_content)
    for run in candidates:
        if run.conclusion != "success" or run.status != "completed":
            continue
        if not trust.is_sweep_run(run, workflow_path(workflow)):
            continue  # another workflow's run (the listing holds them all): not a candidate
        if any(is_reusable_artifact(a) for a in artifacts_of(run.id)):
            why = ours(run)
            if why is not None:
                passed_over.append(f"run {run.id} ({why})")
                continue
            changed = drift(run) if drift is not None else ()
            if not changed:
                return run
            passed_over.append(f"run {run.id} on {(trust.swept_commit(run) or '')[:12]} ({', '.join(changed)} differ)")
    stale = f"; passed over {'; '.join(passed_over)}" if passed_over else ""
    raise ReuseError(f"no successful {workflow} run with reusable artifacts on a commit of "
                     f"PR #{pr_number} with the head's benchmark-affecting content{stale}",
                     fix="sweep the current head, or pin a run explicitly with /use <run_id>")
