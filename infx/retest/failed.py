"""`/retest-failed` (or Prow's `/retest`): re-run only the failed rows of a PR's latest sweep, for triage or above.

The command counts only as a line of the comment as GitHub renders it, by the same rules as
`/reuse-sweep-run` (infx.commands.rendered: never inside an HTML comment, code or a quote, and a
whole line of the source too). Who may ask: the role GitHub's collaborator permission API
reports in `role_name` is triage, write, maintain or admin (`permission` folds triage into
read, so it cannot tell), never a bot. What is re-run: the newest sweep run of the PR, when it
ran on the PR's current head and finished with failed or cancelled jobs; GitHub's "re-run failed
jobs" then runs those jobs and the jobs that depend on them (a failed canary brings back its
families), nothing that passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from infx import trust
from infx.commands.authorization import Authority, is_bot
from infx.commands.grammar import RETEST_COMMAND, has_retest
from infx.commands.registry import RETEST_ROLES
from infx.github.models import Job, WorkflowRun
from infx.inert import code, render_inert
from infx.plan.coverage import swept_any
from infx.reuse.ports import ReuseClient
from infx.reuse.sources import DEFAULT_WORKFLOW, workflow_path
from infx.workflow.shard import bucket_of_job

COMMAND = RETEST_COMMAND
ALLOWED_ROLES = RETEST_ROLES
RETESTABLE = frozenset({"failure", "cancelled", "timed_out", "startup_failure"})


@lru_cache(maxsize=256)
def has_command(body: str | None) -> bool:
    """The comment holds `/retest-failed` (or `/retest`) as a whole source line that a reader also sees as a
    plain-text line (the slash-command grammar, infx.commands.grammar)."""
    return has_retest(body)


def rejection(login: str, user_type: str | None, permission: Any) -> str | None:
    """Why this commenter may not retest, or None. `permission` is the collaborator record."""
    if is_bot(login, user_type):
        return "a bot cannot request a retest"
    authority = Authority.of(permission)
    if authority.role_name not in ALLOWED_ROLES and authority.permission not in ("admin", "write"):
        return (f"/retest-failed needs the triage, write, maintain or admin role; @{login} has "
                f"{authority.role_name}")
    return None


@dataclass(frozen=True)
class Decision:
    """Re-run `run_id` (its failed rows listed), or say why not (`run_id` None)."""

    run_id: int | None
    reason: str
    failed_rows: tuple[str, ...] = ()


def latest(runs: Sequence[WorkflowRun], *, jobs_of: Callable[[int], Sequence[Job]],
           ours: Callable[[WorkflowRun], str | None], workflow: str = DEFAULT_WORKFLOW,
           pinned: Sequence[WorkflowRun] = ()) -> tuple[WorkflowRun | None, tuple[str, ...]]:
    """The newest pull_request run among `runs`, or trusted fork sweep of the PR (`pinned`:
    infx.trust.fork_sweeps), that is our sweep (`ours`: infx.trust.our_run) and swept rows: a
    finished run whose row jobs were all skipped (a label change the gate turned away) is
    passed over (infx.plan.coverage.swept_any), as is a fork's run or one made with the PR's
    own edited sweep workflow. Also returns why newer runs were passed over."""
    path = workflow_path(workflow)
    passed: list[str] = []
    mine = [r for r in trust.pr_sweep_candidates(runs, pinned) if trust.is_sweep_run(r, path)]
    for run in mine:
        why = ours(run)
        if why is not None:
            passed.append(f"run {run.id} is not our sweep: {why}")
            continue
        if run.status == "completed" and not swept_any(
                j for j in jobs_of(run.id) if bucket_of_job(j.name) is not None):
            passed.append(f"run {run.id} swept no row (every row job was skipped)")
            continue
        return run, tuple(passed)
    return None, tuple(passed)


def failed_rows(jobs: Sequence[Any]) -> tuple[str, ...]:
    """The benchmark and eval jobs (run-sweep.yml's shard and canary jobs) that failed or were
    cancelled, latest attempt (`jobs` as the jobs API lists them with filter=latest)."""
    return tuple(sorted(job.name for job in jobs
                        if bucket_of_job(job.name) is not None and job.conclusion in RETESTABLE))


def decide(run: WorkflowRun | None, head_sha: str, failed: Sequence[str] = (),
           passed_over: Sequence[str] = ()) -> Decision:
    """What `/retest-failed` does with the PR's newest sweep run and its failed rows
    (`passed_over`: why newer runs did not count, named when nothing is retested)."""
    passed = f" (passed over: {'; '.join(passed_over)})" if passed_over else ""
    if run is None:
        return Decision(None, f"this PR has no sweep run to retest{passed}")
    if run.status != "completed":
        return Decision(None, f"the latest sweep run {run.id} has not finished; retest after it does{passed}")
    swept = trust.swept_commit(run) or ""  # a fork sweep's pinned head, not the commit it ran
    if swept != head_sha:
        return Decision(None, f"the latest sweep run {run.id} ran on {swept[:12] or 'no pinned commit'}, not on the "
                              f"PR head {head_sha[:12]}; a new sweep of the head is needed, not a retest{passed}")
    if run.conclusion not in RETESTABLE:
        return Decision(None, f"the latest sweep run {run.id} concluded {run.conclusion}: nothing failed{passed}")
    rows = tuple(failed)
    what = f"{len(rows)} failed or cancelled row(s)" if rows else "its failed jobs"
    return Decision(run.id, f"re-running {what} of sweep run {run.id}", rows)


@dataclass(frozen=True)
class RetestOutcome:
    reaction: str | None  # "+1" (re-run requested), "-1" (refused), None (nothing to do)
    summary: str
    run_id: int | None = None
    failed: bool = False


def retest(client: ReuseClient, repo: str, event: Any, *, workflow: str = DEFAULT_WORKFLOW) -> RetestOutcome:
    """Handle one issue_comment event (infx.reuse.ack.CommentEvent): re-read the comment, check
    the command and its author, find the PR's newest sweep run and ask GitHub to re-run its failed
    jobs; react 👍 when a re-run was requested, 👎 with the reason otherwise."""
    from infx.reuse.gateway import GitHubGateway

    gateway = GitHubGateway(client, repo)
    if event.action not in ("created", "edited") or not event.is_pull_request:
        return RetestOutcome(None, "Not a new or edited pull request comment; nothing to do.")
    current = gateway.comment(event.comment_id)
    if current is None or current.body != event.body or current.updated_at != event.updated_at:
        return RetestOutcome(None, "The comment changed since this event was queued; a newer run handles it.")
    if not has_command(current.body):
        return RetestOutcome(None, f"The comment holds no {COMMAND} line (as shown: not in code, a "
                                   "quote or an HTML comment); nothing to do.")
    pr = event.issue_number
    why = rejection(current.user, current.user_type, None if is_bot(current.user, current.user_type)
                    else gateway.permission(current.user))
    if why is None:
        pull = gateway.pull(pr)
        # a fork PR's sweeps of its head, found as the sign-off and reuse find them
        pinned = trust.fork_sweeps(pull.number, [pull.head_sha], head_repo=pull.head_repo, repo=repo,
                                   dispatched=lambda: gateway.dispatched_runs(pull.default_branch, since_pr=pull.number,
                                                                              completed=False),
                                   workflow=workflow_path(workflow))
        run, passed = latest(gateway.pull_runs(pull.head_ref), jobs_of=gateway.run_jobs, workflow=workflow,
                             ours=lambda r: gateway.run_problem(r, pull.default_branch, workflow=workflow_path(workflow)),
                             pinned=pinned)
        failed = failed_rows(client.run_jobs(repo, run.id)) if run is not None and run.status == "completed" \
            and trust.swept_commit(run) == pull.head_sha and run.conclusion in RETESTABLE else ()
        decision = decide(run, pull.head_sha, failed, passed)
        if decision.run_id is not None:
            client.rerun_failed_jobs(repo, decision.run_id)
            gateway.react(current.id, "+1")
            return RetestOutcome("+1", rerun_summary(pr, decision.reason, decision.failed_rows), decision.run_id)
        why = decision.reason
    gateway.react(current.id, "-1")
    return RetestOutcome("-1", f"{COMMAND} on PR #{pr} refused: " + render_inert(f"{why}."), failed=True)


def rerun_summary(pr: int, reason: str, failed_rows: Sequence[str]) -> str:
    """The step summary of a requested re-run: job names come from the PR's matrix, shown as
    code spans that nothing can close."""
    shown = ", ".join(code(name) for name in failed_rows[:10])
    more = f" and {len(failed_rows) - 10} more" if len(failed_rows) > 10 else ""
    rows = f": {shown}{more}" if shown else ""
    return f"PR #{pr}: " + render_inert(f"{reason}{rows}.")
