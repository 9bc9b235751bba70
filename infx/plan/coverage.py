"""Which rows of a plan earlier sweep runs cover: a green job of the row, on a commit where the
row's fingerprint (infx.plan.fingerprint) equals its fingerprint at the head being decided.

One rule shared by the incremental planner (plan only what is not covered), the reuse
resolver (a `/reuse-sweep-run` source must cover the whole plan), the GPU-free merge and the
sign-off bot (a union of runs may stand for one sweep). Pure: runs and their jobs (infx.github.models.Job) come in as plain facts.

A row's job is green when its latest attempt concluded `success`; a failed, cancelled,
skipped or unfinished job leaves the row missing. Jobs are matched to rows by their job name
(infx.plan.identity.job_name; a check run is named `<caller> / <job name>`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from infx.github.models import Job
from infx.plan import identity

# the key of a run's changelog_metadata (its changelog-metadata artifact) listing the rows
# the run took from earlier runs (job name -> run id): such a run is no whole sweep alone
REUSED_ROWS = "reused-rows"
METADATA_ARTIFACT, METADATA_FILE = "changelog-metadata", "changelog_metadata.json"


@dataclass(frozen=True)
class RunRows:
    """An earlier run: its id, commit, the row jobs that ended green, and the fingerprints of
    the wanted rows at its commit (None: its content could not be read, so it covers nothing)."""

    run_id: int
    head_sha: str
    green: frozenset[str]
    fingerprints: Mapping[str, str] | None
    url: str = ""


@dataclass(frozen=True)
class Coverage:
    """Wanted rows split into reused (row -> source run id), missing and stale."""

    reused: dict[str, int] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    # rows some run ran green, but on content that differs from the head's (row -> run ids)
    stale: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.missing and not self.stale

    @property
    def uncovered(self) -> tuple[str, ...]:
        return tuple(sorted((*self.missing, *self.stale)))

    def runs(self) -> list[int]:
        """The source runs, newest (highest id) first."""
        return sorted(set(self.reused.values()), reverse=True)

    def describe(self, limit: int = 5) -> str:
        """The missing and stale rows, named (at most `limit` of each), for error messages."""
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing)} row(s) without a green job: "
                         + _names([f"`{n}`" for n in self.missing], limit))
        if self.stale:
            stale = [f"`{name}` (run {', '.join(map(str, runs))})" for name, runs in sorted(self.stale.items())]
            parts.append(f"{len(stale)} row(s) green only on other benchmark content (stale): "
                         + _names(stale, limit))
        return "; ".join(parts) if parts else "every row is covered"


def _names(names: Sequence[str], limit: int) -> str:
    shown = ", ".join(list(names)[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def row_name(check_name: str) -> str:
    """The row's job name inside a check-run name `<caller> / <job name>` (infx.plan.identity)."""
    return identity.row_job_name(check_name)


def green_rows(jobs: Iterable[Job]) -> frozenset[str]:
    """Row job names whose latest attempt concluded success (other attempts never count)."""
    return frozenset(name for name, job in latest_jobs(jobs).items()
                     if job.status == "completed" and job.conclusion == "success")


def latest_jobs(jobs: Iterable[Job]) -> dict[str, Job]:
    """Each row job's latest attempt, by row name."""
    latest: dict[str, Job] = {}
    for job in jobs:
        name = row_name(job.name)
        if name not in latest or job.run_attempt >= latest[name].run_attempt:
            latest[name] = job
    return latest


NOT_RUN = frozenset({"skipped", "neutral"})  # a job GitHub never started (a gate said no)


def swept_any(jobs: Iterable[Job]) -> bool:
    """Whether a run swept at least one row: some row job's latest attempt is unfinished or
    concluded other than skipped/neutral (a run whose rows were all skipped swept nothing)."""
    return any(job.status != "completed" or job.conclusion not in NOT_RUN
               for job in latest_jobs(jobs).values())


def same_content(wanted: Mapping[str, str], fingerprints: Mapping[str, str] | None) -> bool:
    """Whether a commit has the head's benchmark content for the whole plan: every wanted row
    (job name -> fingerprint at the head) has the same fingerprint there (`fingerprints`: the
    wanted rows' fingerprints at that commit; None: unreadable). What a run on a commit
    removed from the PR must show before any of its rows may count (infx.trust.counts_for_pr):
    its launchers, recipes, config blocks and changelog entries are the head's for every row,
    not only for the rows it happens to cover. An empty plan shows nothing."""
    return bool(wanted) and fingerprints is not None and all(
        fingerprints.get(name) == print_ for name, print_ in wanted.items())


def cover(wanted: Mapping[str, str], runs: Sequence[RunRows]) -> Coverage:
    """Match each wanted row (job name -> fingerprint at the head) to the first run, in the
    given order (newest first), that ran it green with the same fingerprint."""
    reused: dict[str, int] = {}
    missing: list[str] = []
    stale: dict[str, tuple[int, ...]] = {}
    for name, print_ in wanted.items():
        source = next((r.run_id for r in runs if name in r.green and r.fingerprints is not None
                       and r.fingerprints.get(name) == print_), None)
        if source is not None:
            reused[name] = source
            continue
        others = tuple(r.run_id for r in runs if name in r.green)
        if others:
            stale[name] = others
        else:
            missing.append(name)
    return Coverage(reused, tuple(missing), stale)
