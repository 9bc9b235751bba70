"""The sweep report comment: one per PR, rendered from a run's jobs, collected results and Checks `sweep`, `evals`, `pareto`.

Pure: `render(report)` turns facts already read (the run's sweep jobs, the reused rows, the
aggregates `collect` wrote, the eval floors, the check outcomes) into markdown under GitHub's
65,536-character limit. Reused rows are re-derived by the sign-off's own coverage rule
(`reused_rows`); the list the PR's plan job uploaded (PR code ran there) is only compared
with them, never counted. Every text that comes from the PR (job names, config keys, images,
tasks, check reasons) is rendered inert (infx.inert); the mermaid charts
(infx.report.chart) carry only numbers and titles written with mermaid's entity codes. Too much to show ends the comment with a link
to the run instead of a cut-off table or chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from infx.config.thresholds import Thresholds, load_thresholds_text
from infx.errors import InfxError
from infx.github.models import Job
from infx.inert import cell, code, link, render_inert
from infx.plan.coverage import row_name
from infx.plan.identity import matches_legacy_name, parse_job_name
from infx.report import chart
from infx.results import power
from infx.signoff.model import Evidence, Outcome
from infx.signoff.rules import configs_at
from infx.signoff.rules.eval_jobs import (
    eval_score,  # Check `evals`'s score rule, the one for the report too
)
from infx.signoff.rules.frontier import frontier, measured
from infx.signoff.rules.series import X_AGENTIC, X_FIXED, Y_KEY, Series, series_of_row
from infx.signoff.swept import swept_keys
from infx.signoff.table import load_table

MARKER_NAME = "infx-sweep-report"
LIMIT = 65_536  # GitHub's comment limit, in characters
_RESERVE = 600  # the marker line and the truncation note always fit
FAILED = frozenset({"failure", "timed_out", "startup_failure", "action_required"})
MAX_LINKS_PER_KEY = 5
OTHER = "(no changelog config key)"
CHANGELOG = "perf-changelog.yaml"


@dataclass(frozen=True)
class CheckResult:
    number: int
    name: str
    outcome: Outcome


@dataclass(frozen=True)
class Report:
    """Everything the comment shows, read beforehand; None/str fields say what could not be read."""

    repo: str
    pr_number: int
    run_id: int
    run_attempt: int
    head_sha: str
    jobs: tuple[Job, ...] | str  # str: why the jobs could not be read
    configs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # key -> head master entry
    # row job name -> source run id, by the sign-off's coverage rule (str: why not derived)
    reused: Mapping[str, int] | str = field(default_factory=dict)
    claimed: Mapping[str, int] = field(default_factory=dict)  # what the PR's plan job listed as reused
    benchmark_rows: list[dict[str, Any]] | None = None  # agg_bmk.json (None: not collected)
    eval_rows: list[dict[str, Any]] | None = None  # agg_eval_all.json (None: not collected)
    thresholds: Thresholds | str | None = None  # str: why the floors could not be read
    thresholds_source: str = ""
    checks: tuple[CheckResult, ...] | str = ()  # str: why the checks were not evaluated
    problems: tuple[str, ...] = ()  # aggregates that could not be read

    @property
    def run_url(self) -> str:
        return f"https://github.com/{self.repo}/actions/runs/{self.run_id}"


def unread(report: Report) -> list[str]:
    """What GitHub did not return for the report (the comment says so in its section; the
    step's log repeats it, naming the call and the permission it needs)."""
    parts = [("jobs", report.jobs), ("checks", report.checks)]
    return [f"{name}: {why}" for name, why in parts if isinstance(why, str)]


# --- what the PR sweeps ---------------------------------------------------------------------------


def changelog_configs(head_files: Mapping[str, str | None], base_files: Mapping[str, str | None]
                      ) -> dict[str, dict[str, Any]]:
    """Config key -> head master entry for every key the PR's appended changelog entries name
    (what its plan sweeps, swept.swept_keys); empty when the changelog or the configs cannot be read."""
    keys = swept_keys(head_files, base_files)
    if not keys:
        return {}
    files = configs_at.master_files(dict(head_files))
    return {key: files[key][1] for key in keys}


def thresholds_of(evidence: Evidence | None, path: str | None = None) -> tuple[Thresholds | str, str]:
    """The eval floors Check `evals` reads (the check table's thresholds file on the default branch)
    and their source."""
    path = path or load_table().settings.thresholds_path
    if evidence is None:
        return "the default branch could not be read", path
    source = f"{path} on {evidence.default_branch}"
    text = evidence.default_branch_files.get(path)
    if text is None:
        return f"{path} does not exist on the default branch", source
    try:
        return load_thresholds_text(text, path), source
    except InfxError as exc:
        return f"{path} is invalid: {exc.problems[0]}", source


# --- rows of the run per config key -----------------------------------------------------------


def config_keys_of(name: str, configs: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The changelog's config keys a job (or a bare row name) ran a row of: the four fixed
    fields of the row identity (model prefix, precision, runner, framework) match the entry."""
    parsed = parse_job_name(name)
    if parsed is None:  # a job of a sweep older than the row identity
        return [key for key, entry in configs.items() if matches_legacy_name(name, entry)]
    return [key for key, entry in configs.items() if parsed.matches(entry)]


@dataclass
class KeyCounts:
    passed: int = 0
    failed: int = 0
    cancelled: int = 0
    reused: int = 0
    other: int = 0  # skipped or not finished
    failing: list[Job] = field(default_factory=list)


def counts_by_key(jobs: Sequence[Job], reused: Mapping[str, int],
                  configs: Mapping[str, Mapping[str, Any]]) -> dict[str, KeyCounts]:
    table: dict[str, KeyCounts] = {key: KeyCounts() for key in configs}
    for job in jobs:
        for key in config_keys_of(job.name, configs) or [OTHER]:
            counts = table.setdefault(key, KeyCounts())
            if job.status != "completed":
                counts.other += 1
            elif job.conclusion == "success":
                counts.passed += 1
            elif job.conclusion in FAILED:
                counts.failed += 1
                counts.failing.append(job)
            elif job.conclusion == "cancelled":
                counts.cancelled += 1
            else:
                counts.other += 1
    for name in reused:
        for key in config_keys_of(name, configs) or [OTHER]:
            table.setdefault(key, KeyCounts()).reused += 1
    return table


def reused_rows(covered: Mapping[str, int], run_id: int, jobs: Sequence[Job] | str) -> dict[str, int]:
    """The rows of the head's plan that an earlier run covers (`covered`: row job name -> the
    run the sign-off's coverage rule takes it from) and this run did not run."""
    ran = set() if isinstance(jobs, str) else {row_name(job.name) for job in jobs}
    return {name: source for name, source in covered.items() if source != run_id and name not in ran}


def _job_link(job: Job, repo: str) -> str:
    text = row_name(job.name)
    return link(text, job.html_url) if job.html_url else code(text)


def jobs_section(report: Report) -> list[str]:
    lines = ["### Jobs per config key", ""]
    if isinstance(report.jobs, str):
        return lines + [render_inert(f"The jobs of this run could not be read: {report.jobs}. "
                                     "Nothing is reported as passed.", report.repo), ""]
    reused = report.reused if not isinstance(report.reused, str) else {}
    table = counts_by_key(report.jobs, reused, report.configs)
    lines += ["| config key | passed | failed | cancelled | reused | failing jobs |",
              "|---|---:|---:|---:|---:|---|"]
    for key in sorted(table, key=lambda k: (k == OTHER, k)):
        counts = table[key]
        if key == OTHER and counts.passed + counts.failed + counts.cancelled + counts.reused == 0:
            continue  # only skipped or unfinished jobs of no swept key: nothing to show
        shown = [_job_link(job, report.repo) for job in counts.failing[:MAX_LINKS_PER_KEY]]
        more = len(counts.failing) - len(shown)
        failing = ", ".join(cell(s, report.repo) for s in shown) + (f" and {more} more" if more else "")
        lines.append(f"| {cell(code(key), report.repo)} | {counts.passed} | {counts.failed} | "
                     f"{counts.cancelled} | {counts.reused} | {failing or '—'} |")
    if table and all(c.passed + c.failed + c.cancelled + c.reused == 0 for c in table.values()):
        lines += ["", "No benchmark or eval job of this run has finished."]
    return lines + reused_notes(report, reused) + [""]


def reused_notes(report: Report, reused: Mapping[str, int]) -> list[str]:
    """Where the reused rows come from, and what the plan job listed that does not count."""
    lines = []
    if isinstance(report.reused, str):
        lines += ["", render_inert(f"Reused rows are not counted: they could not be verified ({report.reused}).",
                                   report.repo)]
    elif reused:
        runs = sorted(set(reused.values()), reverse=True)
        sources = ", ".join(render_inert(link(str(r), f"https://github.com/{report.repo}/actions/runs/{r}"),
                                         report.repo) for r in runs)
        lines += ["", f"Reused rows ran green, with the head's row fingerprints, in run(s) {sources} "
                      "(checked by the sign-off's coverage rule, not taken from the plan job)."]
    unconfirmed = [name for name in report.claimed if name not in reused]
    if unconfirmed and not isinstance(report.reused, str):
        lines += ["", f"{len(unconfirmed)} row(s) the plan job listed as reused have no green job with the "
                      "head's row fingerprint in an earlier run of this PR: not counted (the sign-off "
                      "counts them as missing)."]
    return lines


# --- evals against their floors -----------------------------------------------------------------


def eval_verdict(row: Mapping[str, Any], thresholds: Thresholds) -> tuple[str, float, str]:
    """(verdict, floor, floor source) of one eval row, by the thresholds Check `evals` reads."""
    prefix = row.get("model_prefix")
    if prefix is not None and not isinstance(prefix, str):
        floor, source = thresholds.floor(None, str(row.get("task")))
        return "invalid model prefix", floor, source
    floor, source = thresholds.floor(prefix, str(row.get("task")))
    if row.get("integration_error") or row.get("infrastructure_success") is not True:
        return "infrastructure failure", floor, source
    score = eval_score(row)
    if score is None:
        return "no valid score", floor, source
    return ("below floor" if score < floor else "ok"), floor, source


def _find_job(jobs: Sequence[Job] | str, job_name: Any) -> Job | None:
    if isinstance(jobs, str) or not isinstance(job_name, str) or not job_name:
        return None
    return next((job for job in jobs if row_name(job.name) == job_name), None)


def evals_section(report: Report) -> list[str]:
    lines = ["### Evals against their floors", ""]
    if report.eval_rows is None:
        return lines + ["No eval results were collected in this run.", ""]
    if not isinstance(report.thresholds, Thresholds):
        why = report.thresholds or "not read"
        return lines + [render_inert(f"The eval floors could not be read ({why}); no eval is judged.",
                                     report.repo), ""]
    source = render_inert(code(report.thresholds_source), report.repo) if report.thresholds_source else ""
    if source:
        lines += [f"Floors from {source}.", ""]
    lines += ["| result | task | score | floor | floor source | config | conc | job |",
              "|---|---|---:|---:|---|---|---:|---|"]
    ordered = sorted(report.eval_rows, key=lambda r: eval_verdict(r, report.thresholds)[0] == "ok")
    for row in ordered:
        verdict, floor, floor_source = eval_verdict(row, report.thresholds)
        score = eval_score(row)
        job = _find_job(report.jobs, row.get("job_name"))
        config = " ".join(str(row.get(k) or "") for k in ("model_prefix", "precision", "hw", "framework"))
        mark = "✅ ok" if verdict == "ok" else f"❌ {verdict}"
        lines.append("| " + " | ".join([
            mark, cell(code(str(row.get("task"))), report.repo),
            "—" if score is None else f"{score:.4f}", f"{floor:.4f}", cell(code(floor_source), report.repo),
            cell(config, raw=True), cell(row.get("conc"), raw=True),
            cell(_job_link(job, report.repo), report.repo) if job else
            cell(row.get("job_name") or row.get("source") or "", raw=True)]) + " |")
    return lines + [""]


# --- Pareto charts ------------------------------------------------------------------------------


def _num(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text  # 2800 stays 2800
    return text if text not in ("", "-0") else "0"


@dataclass(frozen=True)
class Curve:
    series: Series
    x_key: str
    points: tuple[tuple[float, float, dict[str, Any]], ...]  # (latency, throughput, row), by latency
    frontier: tuple[tuple[float, float, dict[str, Any]], ...]
    invalid: int


def curves(rows: Sequence[Mapping[str, Any]]) -> list[Curve]:
    """One curve per dashboard series (infx.signoff.rules.series), frontier by infx.signoff.rules.frontier."""
    grouped: dict[Series, list[dict[str, Any]]] = {}
    for row in rows:
        if isinstance(row, Mapping):
            grouped.setdefault(series_of_row(dict(row)), []).append(dict(row))
    found = []
    for series in sorted(grouped, key=Series.label):
        x_key = X_AGENTIC if series.agentic else X_FIXED
        points = grouped[series]
        front, invalid = frontier(points, x_key, Y_KEY)
        valid = sorted(_valid(points, x_key), key=lambda t: (t[0], -t[1]))
        on_front = tuple(next(p for p in valid if (p[0], p[1]) == pair) for pair in front)
        found.append(Curve(series, x_key, tuple(valid), on_front, invalid))
    return found


def _valid(points: Sequence[Mapping[str, Any]], x_key: str) -> list[tuple[float, float, dict[str, Any]]]:
    """Points with a positive, finite latency and throughput (what the frontier can hold)."""
    out = []
    for point in points:
        x, y = measured(point.get(x_key)), measured(point.get(Y_KEY))
        if x is not None and y is not None:
            out.append((x, y, dict(point)))
    return out


def mermaid(curve: Curve) -> str:
    """The curve's chart (infx.report.chart): a line per parallel layout and the frontier, the
    latency axis to scale."""
    x_title = "P90 e2e latency (s)" if curve.x_key == X_AGENTIC else "median e2e latency (s)"
    return chart.block(curve.series.label(), x_title, f"{Y_KEY} (tok/s/GPU)", curve.points, curve.frontier)


def _lanes_table(curve: Curve, repo: str) -> list[str]:
    lines = ["| line | layout | points | best tok/s/GPU | at latency (s) |", "|---|---|---:|---:|---:|"]
    for colour, layout, count, best in chart.lane_rows(curve.points, curve.frontier):
        shown = ("—", "—") if best is None else (_num(best[1], 1), _num(best[0], 3))
        lines.append(f"| {colour} | {cell(layout, raw=True)} | {count} | {shown[0]} | {shown[1]} |")
    return lines


def power_note(rows: Sequence[Mapping[str, Any]], repo: str) -> str:
    """How many points of a curve have a valid GPU power measurement (tok/J is total tokens per
    joule of the GPUs, infx.results.power), and why the others have none."""
    valid = sum(1 for row in rows if power.tokens_per_joule(row) is not None)
    reasons = sorted({str(r) for row in rows if row.get("power_valid") != 1
                      for r in (row.get("power_invalid_reasons") or ["not measured"])[:6]})
    text = f"GPU power: {valid} of {len(rows)} point(s) measured (tok/J: tokens per joule of GPU energy)"
    if reasons:
        text += "; no valid measurement: " + ", ".join(code(r[:60]) for r in reasons[:6])
    return render_inert(text + ".", repo)


def pareto_blocks(report: Report) -> list[list[str]]:
    """One block per curve (heading, chart, lanes, frontier points); each is kept or dropped whole."""
    if report.benchmark_rows is None:
        return [["### Pareto frontiers", "", "No benchmark results were collected in this run.", ""]]
    blocks = [["### Pareto frontiers", "",
               f"Throughput per GPU ({Y_KEY}) against end-to-end latency, per curve, the latency axis "
               f"to scale ({chart.SAMPLES - 1} equal steps from 0): each line is the best throughput "
               "a parallel layout reaches at that latency or less (0 before its first point), the red "
               "line the same over the frontier points of every layout. The lanes table names the "
               "lines; the frontier points are listed below it.", ""]]
    for curve in curves(report.benchmark_rows):
        lines = [f"#### {render_inert(code(curve.series.label()), report.repo)}", "", mermaid(curve), "",
                 *_lanes_table(curve, report.repo), "",
                 f"{len(curve.points)} measured point(s), {curve.invalid} invalid, "
                 f"{len(curve.frontier)} on the frontier:", "",
                 "| latency (s) | tok/s/GPU | tok/J | conc | job |", "|---:|---:|---:|---:|---|"]
        for x, y, row in curve.frontier:
            job = _find_job(report.jobs, row.get("job_name"))
            name = _job_link(job, report.repo) if job else code(str(row.get("job_name") or ""))
            per_joule = power.tokens_per_joule(row)
            lines.append(f"| {_num(x, 3)} | {_num(y, 1)} | {'—' if per_joule is None else _num(per_joule, 2)} "
                         f"| {cell(row.get('conc'), raw=True)} | {cell(name, report.repo)} |")
        lines += ["", power_note([row for _, _, row in curve.points], report.repo)]
        blocks.append(lines + [""])
    if len(blocks) == 1:
        blocks[0].append("No benchmark row was collected.")
    return blocks


# --- checks 1, 2, 14 -----------------------------------------------------------------------------


def checks_section(report: Report) -> list[str]:
    lines = ["### What the sign-off would say now (Checks 1, 2, 14)", ""]
    if isinstance(report.checks, str):
        return lines + [render_inert(f"Not evaluated: {report.checks}.", report.repo), ""]
    lines += ["| # | check | status | reason |", "|---:|---|---|---|"]
    for result in report.checks:
        outcome = result.outcome
        reason = cell(outcome.reason, report.repo)
        details = "".join("<br>• " + cell(d, report.repo) for d in outcome.details[:3])
        lines.append(f"| {result.number} | {cell(result.name, raw=True)} | {outcome.status.value} | {reason}{details} |")
    return lines + [""]


# --- the comment ---------------------------------------------------------------------------------


def render(report: Report, limit: int = LIMIT) -> str:
    """The comment body (without its marker line), at most `limit - _RESERVE` characters.

    Blocks are kept whole in order (table rows one by one, each chart with its points); the first
    that does not fit ends the comment with a note and a link to the run."""
    head = [f"## Sweep report: run {render_inert(link(str(report.run_id), report.run_url), report.repo)}"
            f" (attempt {report.run_attempt}) on {render_inert(code(report.head_sha[:12]), report.repo)}", "",
            "Updated by every collection of a sweep of this PR; the newest run wins.", ""]
    if report.problems:
        head += [render_inert("Could not be read: " + "; ".join(report.problems) + ".", report.repo), ""]
    blocks: list[list[str]] = [head, checks_section(report)]
    blocks += [[line] for line in jobs_section(report)]
    blocks += [[line] for line in evals_section(report)]
    blocks += pareto_blocks(report)
    budget = limit - _RESERVE
    out: list[str] = []
    used = 0
    for block in blocks:
        text = "\n".join(block) + "\n"
        if used + len(text) > budget:
            out.append(f"\n… truncated: the full results are in the step summaries of "
                       f"[run {report.run_id}]({report.run_url}).\n")
            break
        out.append(text)
        used += len(text)
    return "".join(out)
