"""A PR's earlier sweep runs as row coverage of a plan (infx.plan.coverage), read from GitHub.

Used by the incremental planner (`infx reuse incremental`), the resolver (a reuse source
must cover the plan) and the merge to main (no sweep when the PR's runs cover the merge
commit's plan). Commit trees come from a `tree(sha)` reader (the checkout's git, or the
gateway's tarball reads), so the same fingerprints are computed wherever this runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from infx import trust
from infx.errors import InfxError
from infx.github.models import Job, WorkflowRun
from infx.plan.benchmark_content import Tree, Unreadable
from infx.plan.coverage import Coverage, RunRows, cover, green_rows, same_content
from infx.plan.fingerprint import Content, content_of, fingerprint
from infx.plan.identity import job_name
from infx.plan.incremental import plan_from_trees
from infx.plan.planner import PlanFlags
from infx.plan.sweep_plan import Plan
from infx.reuse.facts import ReuseError
from infx.reuse.sources import Trust

MAX_RUNS = 30  # earlier runs read per decision, newest first (each costs a jobs listing)
TreeReader = Callable[[str], "Tree | None"]


@dataclass(frozen=True)
class Wanted:
    """The rows of a plan (job name -> row) and their fingerprints at the head."""

    rows: Mapping[str, Mapping[str, Any]]
    prints: Mapping[str, str]

    def __len__(self) -> int:
        return len(self.rows)


def wanted_rows(plan: Plan, content: Content) -> Wanted:
    rows = {job_name(row): row for row in plan.rows()}
    return Wanted(rows, {name: fingerprint(row, content) for name, row in rows.items()})


def flags_of(labels: Iterable[str]) -> PlanFlags:
    """The planner flags a PR's labels select (as the sweep's label step reads them)."""
    from infx.plan.labels import sweep_flags

    flags = sweep_flags(labels)
    return PlanFlags(trim=flags.trim_conc, all_evals=flags.all_evals, evals_only=flags.evals_only)


def plan_at(base: Tree, head: Tree, flags: PlanFlags, *, base_ref: str, head_ref: str) -> Wanted:
    """The plan of `head` against `base`, with the rows' fingerprints at `head`."""
    try:
        plan = plan_from_trees(base, head, flags, base_ref=base_ref, head_ref=head_ref)
        content = content_of(head, base)
    except Unreadable as exc:
        raise ReuseError(f"cannot plan {head_ref[:12]}: {exc}") from exc
    except InfxError as exc:
        raise ReuseError(f"cannot plan {head_ref[:12]}: "
                         + "; ".join(p.message for p in exc.problems)) from exc
    return wanted_rows(plan, content)


def head_content(wanted: Wanted, tree: TreeReader, base: Tree) -> Callable[[WorkflowRun], bool]:
    """Whether the commit a run swept has the head's content for every row of `wanted`
    (infx.plan.coverage.same_content on fingerprints computed from `tree(sha)`; an unreadable
    tree: no): the content half of infx.trust.counts_for_pr for a run on a commit the PR no
    longer has."""
    def check(run: WorkflowRun) -> bool:
        swept = trust.swept_commit(run)
        content = None if swept is None else _content(tree, swept, base)
        prints = None if content is None else {
            name: fingerprint(row, content) for name, row in wanted.rows.items()}
        return same_content(wanted.prints, prints)
    return check


def eligible_runs(runs: Sequence[WorkflowRun], pr_commits: Sequence[str], *, ours: Trust,
                  exclude: Iterable[int] = (), pinned: Sequence[WorkflowRun] = (), repo: str = "",
                  default_branch: str = "",
                  same: Callable[[WorkflowRun], bool] | None = None) -> list[WorkflowRun]:
    """Completed pull_request runs on a commit of the PR — or, when `same` (`head_content`) is
    given, on a commit a force-push or rebase removed from it whose content is the head's for
    the whole plan (infx.trust.counts_for_pr) — and the PR's completed trusted fork sweeps
    (`pinned`: infx.trust.fork_sweeps, already chosen for this PR and its commits), that
    are our sweep (`ours`: infx.trust.our_run — our workflow, this repository, unmodified sweep
    files), newest first (at most MAX_RUNS). Their conclusion does not matter: only their green
    jobs count."""
    commits, skip = set(pr_commits), set(exclude)
    done = [run for run in runs if run.id not in skip and run.status == "completed"]
    chosen = trust.pr_sweep_candidates(done, [run for run in pinned if run.id not in skip
                                              and run.status == "completed"], commits,
                                       repo=repo, default_branch=default_branch, same_content=same)
    return [run for run in chosen if ours(run) is None][:MAX_RUNS]


def run_rows(runs: Sequence[WorkflowRun], wanted: Wanted, *, jobs_of: Callable[[int], list[Job]],
             tree: TreeReader, base: Tree) -> list[RunRows]:
    """Each run's green wanted rows and their fingerprints at the commit it swept
    (infx.trust.swept_commit: a fork sweep's pinned head, not the default-branch commit it ran)."""
    contents: dict[str, Content | None] = {}
    out: list[RunRows] = []
    for run in runs:
        green = green_rows(jobs_of(run.id)) & frozenset(wanted.rows)
        swept = trust.swept_commit(run)
        if not green or swept is None:
            continue
        if swept not in contents:
            contents[swept] = _content(tree, swept, base)
        content = contents[swept]
        prints = None if content is None else {
            name: fingerprint(wanted.rows[name], content) for name in green}
        out.append(RunRows(run.id, swept, green, prints, run.html_url))
    return out


def _content(tree: TreeReader, sha: str, base: Tree) -> Content | None:
    files = tree(sha)
    if files is None:
        return None
    try:
        return content_of(files, base)
    except Unreadable:
        return None


def coverage(wanted: Wanted, runs: Sequence[WorkflowRun], *, jobs_of: Callable[[int], list[Job]],
             tree: TreeReader, base: Tree) -> tuple[Coverage, list[RunRows]]:
    rows = run_rows(runs, wanted, jobs_of=jobs_of, tree=tree, base=base)
    return cover(wanted.prints, rows), rows
