"""A workflow's jobs as GitHub runs them: a job that calls one of our bots' reusable workflows
(`uses: ./.github/workflows/infx-….yml`) stands for the called workflow's jobs, which run for the
caller's event; the static workflow tests read our bots' jobs through it. (Other local calls, the
sweep's per-row benchmark-tmpl.yml, stay one job of the caller.)"""

from __future__ import annotations

from pathlib import Path

from infx.yamlio import load_file

LOCAL = "./.github/workflows/"
BOT = "./.github/workflows/infx-"  # a bot's reusable workflow (infx.adopt.reusable.Bot.reusable)


def local_calls(path: Path) -> dict[str, Path]:
    """Caller job id -> the bot's reusable workflow of this repository it calls."""
    jobs = load_file(path).get("jobs") or {}
    return {job_id: path.parent / str(job["uses"]).removeprefix(LOCAL) for job_id, job in jobs.items()
            if str(job.get("uses", "")).startswith(BOT)}


def jobs_as_run(path: Path) -> dict[str, dict]:
    """Job id -> job of the workflow at `path`, a local call replaced by the called workflow's jobs
    (followed once: a called workflow's own `./` calls would be read in the caller's repository).
    Two jobs with one id fail: the tests index jobs by id."""
    jobs: dict[str, dict] = {}
    calls = local_calls(path)
    for job_id, job in (load_file(path).get("jobs") or {}).items():
        found = (load_file(calls[job_id]).get("jobs") or {}) if job_id in calls else {job_id: job}
        for found_id, found_job in found.items():
            assert found_id not in jobs, f"{path.name}: two jobs {found_id!r} once the calls are followed"
            jobs[found_id] = found_job
    return jobs


_RANK = {"none": 0, "read": 1, "write": 2}


def token_grant(path: Path, job_id: str) -> dict[str, str]:
    """What the job's GITHUB_TOKEN holds (job id as jobs_as_run names it): its `permissions:`
    block, for a called job capped scope by scope by its caller's block (a called workflow can
    never have more than its caller grants; a scope the caller leaves out is none)."""
    jobs = load_file(path).get("jobs") or {}
    for caller, called in local_calls(path).items():
        called_jobs = load_file(called).get("jobs") or {}
        if job_id in called_jobs:
            cap = jobs[caller].get("permissions") or {}
            own = called_jobs[job_id].get("permissions") or {}
            return {scope: min(level, cap.get(scope, "none"), key=_RANK.__getitem__) for scope, level in own.items()}
    return dict(jobs[job_id].get("permissions") or {})
