"""Read what the sweep report shows and upsert it as the PR's one report comment (the report's shell)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infx.errors import InfxError
from infx.github.markers import make_marker, parse_markers
from infx.github.models import Job
from infx.report.build import (
    MARKER_NAME,
    CheckResult,
    Report,
    changelog_configs,
    render,
    reused_rows,
    thresholds_of,
)
from infx.report.snapshot import Snapshot, snapshot
from infx.signoff.ports import SignoffClient
from infx.signoff.rules.sweeps import family, union_coverage

MAX_AGGREGATE_BYTES = 64 * 1024 * 1024  # an aggregate above this is reported, not read


def _json_file(path: Path | None, what: str) -> tuple[Any, str | None]:
    """(parsed JSON or None, why not): an absent file means "not collected", not a problem."""
    if path is None or not path.is_file():
        return None, None
    if path.stat().st_size > MAX_AGGREGATE_BYTES:
        return None, f"{what} is larger than {MAX_AGGREGATE_BYTES:,} bytes"
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{what} is not valid JSON ({exc})"


def _rows(data: Any, what: str, problems: list[str]) -> list[dict[str, Any]] | None:
    if data is None:
        return None
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        problems.append(f"{what} is not a JSON array of rows")
        return None
    return data


def read_report(client: SignoffClient, repo: str, pr_number: int, run_id: int, run_attempt: int,
                head_sha: str, *, results: Path | None = None, evals: Path | None = None,
                reused: Path | None = None) -> Report:
    """Everything the report shows: this run's benchmark and eval jobs (latest attempt), the
    aggregates the workflow downloaded, Checks `sweep`, `evals` and `pareto` on the PR now, and the rows reused
    from earlier runs as the sign-off's evidence shows them (`reused`: the plan job's list,
    only compared with them)."""
    try:
        jobs: tuple[Job, ...] | str = tuple(
            job for job in client.run_jobs(repo, run_id) if family(job.name) is not None)
    except InfxError as exc:
        jobs = str(exc).split("\n")[0]
    state = snapshot(client, repo, pr_number)
    checks: tuple[CheckResult, ...] | str = state.problem or tuple(
        CheckResult(spec.number, spec.name, outcome) for spec, outcome in state.rows)
    evidence = state.evidence
    configs = changelog_configs(evidence.head_files, evidence.base_files) if evidence else {}
    thresholds, source = thresholds_of(evidence)
    problems: list[str] = []
    bmk, problem = _json_file(results, "agg_bmk.json")
    problems += [problem] if problem else []
    agg, problem = _json_file(evals, "agg_eval_all.json")
    problems += [problem] if problem else []
    pairs, problem = _json_file(reused, "the reused rows")
    problems += [problem] if problem else []
    claimed = {str(k): v for k, v in pairs.items() if isinstance(v, int) and not isinstance(v, bool)} \
        if isinstance(pairs, dict) else {}
    return Report(repo=repo, pr_number=pr_number, run_id=run_id, run_attempt=run_attempt,
                  head_sha=head_sha, jobs=jobs, configs=configs, reused=_reused(state, run_id, jobs),
                  claimed=claimed,
                  benchmark_rows=_rows(bmk, "agg_bmk.json", problems),
                  eval_rows=_rows(agg, "agg_eval_all.json", problems), thresholds=thresholds,
                  thresholds_source=source, checks=checks, problems=tuple(problems))


def _reused(state: Snapshot, run_id: int, jobs: tuple[Job, ...] | str) -> dict[str, int] | str:
    """This run's reused rows, re-derived from the sign-off's evidence by its coverage rule
    (the plan job's own list is PR code's word); why not, when the evidence was not read."""
    if state.evidence is None or state.problem is not None:
        return state.problem or "the PR could not be read"
    found = union_coverage(state.evidence)
    return reused_rows(found[0].reused if found else {}, run_id, jobs)


def _shown_run(body: str) -> int | None:
    for marker in parse_markers(body):
        if marker.name == MARKER_NAME and marker.fields.get("run", "").isdigit():
            return int(marker.fields["run"])
    return None


def report_body(report: Report) -> str:
    """The report comment's whole text, marker first: what post_report posts."""
    marker = make_marker(MARKER_NAME, run=report.run_id, attempt=report.run_attempt)
    return f"{marker.text}\n{render(report)}"


def post_report(client: SignoffClient, repo: str, report: Report) -> str:
    """Create or edit the PR's one report comment: `created`, `updated`, `unchanged`, or
    `kept-newer` (it shows a newer run; a re-run attempt of the same run edits it)."""
    existing = client.find_comment(repo, report.pr_number, make_marker(MARKER_NAME))
    marker = make_marker(MARKER_NAME, run=report.run_id, attempt=report.run_attempt)
    body = report_body(report)
    if existing is None:
        return client.upsert_comment(repo, report.pr_number, marker, body, pointer=report.run_url).action
    shown = _shown_run(existing.body)
    if shown is not None and shown > report.run_id:
        return "kept-newer"
    if existing.body == body:
        return "unchanged"
    client.edit_comment(repo, existing.id, body)
    return "updated"
