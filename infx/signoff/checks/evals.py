"""Check `evals`: the in-PR sweep's eval results are valid, above threshold, and ran the PR's image."""

from __future__ import annotations

import json
from typing import Any

from infx.changelog.entry import KeyResolutionError
from infx.config.thresholds import Thresholds, load_thresholds_text
from infx.errors import InfxError
from infx.plan.planner import appended_entries
from infx.signoff.model import ArtifactMembers, Evidence, Outcome, Status
from infx.signoff.rules import configs_at, eval_jobs
from infx.signoff.rules.affected import affected_configs
from infx.signoff.rules.eval_jobs import eval_score
from infx.signoff.rules.policy_reads import EvidenceGap
from infx.signoff.rules.sweeps import GreenRun, find_green_run, plans_no_evals
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

AGG_ARTIFACT = "eval_results_all"
AGG_FILE = "agg_eval_all.json"
CHANGELOG = "perf-changelog.yaml"
_CHANGELOG_UNPARSED = f"{CHANGELOG} could not be parsed, so the requested eval concurrencies are unverified."


def run(evidence: Evidence, settings: Settings) -> Outcome:
    if plans_no_evals(evidence):
        return Outcome(Status.NA, "the head's plan has no eval rows (an append-only entry, rows the "
                       "planner gives no eval, or no changelog entry), so no eval is needed.")
    green = find_green_run(evidence)
    if green is None:
        return _fail("no in-PR commit has a passing sweep (Check 1), so there are no evals to verify.")
    thresholds = _thresholds(evidence, settings.thresholds_path)
    if isinstance(thresholds, str):
        return _fail(thresholds)
    found = _union_rows(evidence, green) if green.rows_by_run else _eval_rows(evidence, green.run_id)
    if isinstance(found, str):
        return _fail(found)
    rows, jobs, source = found
    problems = [p for p in (_row_problem(row, thresholds) for row in rows) if p]
    problems += [p for p in (_manifest(evidence, job) for job in jobs) if p]
    if problems:
        return _fail(problems[0], tuple(problems[1:]))
    mismatch = _coverage_and_image(evidence, green.commit, rows) or _eval_concs_problem(evidence, rows)
    if mismatch:
        return _fail(mismatch)
    summary = "; ".join(_summary(row, thresholds) for row in rows[:4])
    more = f" (+{len(rows) - 4} more rows)" if len(rows) > 4 else ""
    runs = "run" + ("s " if len(green.runs) > 1 else " ") + ", ".join(map(str, green.runs))
    return Outcome(Status.PASS, f"{source} of {runs}: {summary}{more}; "
                   "every row has infrastructure_success: true.")


def _fail(reason: str, details: tuple[str, ...] = ()) -> Outcome:
    return Outcome(Status.FAIL, reason, details)


def _thresholds(evidence: Evidence, path: str) -> Thresholds | str:
    if path not in evidence.default_branch_files:
        return f"the eval thresholds file {path} was not read from the default branch."
    text = evidence.default_branch_files[path]
    if text is None:
        return f"the eval thresholds file {path} does not exist on the default branch."
    try:
        return load_thresholds_text(text, path)
    except InfxError as exc:
        return f"the eval thresholds file is invalid: {exc.problems[0]}"


def _eval_rows(evidence: Evidence, run_id: int
               ) -> tuple[list[dict[str, Any]], list[eval_jobs.JobEvals], str] | str:
    """(rows, per-job artifacts, source label) from `eval_results_all`, else from the `eval_*` jobs."""
    artifacts = evidence.artifacts.get(run_id)
    if artifacts is None:
        why = evidence.read_errors.get(f"artifacts:{run_id}", "not read")
        return f"the artifacts of run {run_id} could not be read ({why})."
    artifact = next((a for a in artifacts if a.artifact.name == AGG_ARTIFACT), None)
    job_artifacts = [a for a in artifacts if eval_jobs.is_job_artifact(a.artifact.name)]
    if artifact is not None and (not artifact.artifact.expired or not job_artifacts):
        rows = _rows_from(artifact, run_id)
        return rows if isinstance(rows, str) else (rows, [], AGG_FILE)
    if not job_artifacts:
        return (f"run {run_id} has no {AGG_ARTIFACT} artifact and no per-job eval_* artifacts: "
                "the evals were skipped or never collected.")
    jobs = [eval_jobs.read_job(a) for a in job_artifacts]
    unusable = [job for job in jobs if isinstance(job, str)]
    if unusable:
        return unusable[0]
    rows = [row for job in jobs for row in job.rows]
    return rows, jobs, f"{len(jobs)} per-job eval artifact(s) ({AGG_ARTIFACT} absent)"


def _union_rows(evidence: Evidence, green: GreenRun
                ) -> tuple[list[dict[str, Any]], list[eval_jobs.JobEvals], str] | str:
    """The eval rows a union of runs contributes: from each run, only the rows it covers."""
    rows: list[dict[str, Any]] = []
    jobs: list[eval_jobs.JobEvals] = []
    for run_id in green.runs:
        found = _eval_rows(evidence, run_id)
        if isinstance(found, str):
            if not green.contributes(run_id, evals=True):
                continue  # this run contributes no eval row
            return found
        rows += [row for row in found[0] if green.takes(run_id, row)]
        jobs += [job for job in found[1] if any(green.takes(run_id, row) for row in job.rows)]
    return rows, jobs, AGG_FILE


def _manifest(evidence: Evidence, job: eval_jobs.JobEvals) -> str | None:
    """The batched-eval manifest rule, with the changelog's `eval-concs` narrowing the request."""
    if not job.batched:
        return None
    narrowed = _changelog_concs(evidence, job.meta)
    if isinstance(narrowed, str):
        return narrowed
    return eval_jobs.manifest_problem(job, narrowed)


def _changelog_concs(evidence: Evidence, meta: dict[str, Any]) -> frozenset[int] | None | str:
    """The `eval-concs` of new changelog entries naming a config this job evaluated, if any."""
    requested = _requested_eval_concs(evidence)
    if requested is None:
        return _CHANGELOG_UNPARSED
    probe = {"model_prefix": meta.get("infmax_model_prefix") or meta.get("model_prefix"),
             "hw": meta.get("hw") or meta.get("runner"), "framework": meta.get("framework"),
             "precision": meta.get("precision")}
    wanted = {c for _, entry, concs in requested if _row_matches(probe, entry)
              for c in concs if isinstance(c, int)}
    return frozenset(wanted) if wanted else None


def _rows_from(artifact: ArtifactMembers, run_id: int) -> list[dict[str, Any]] | str:
    if artifact.artifact.expired:
        return f"the {AGG_ARTIFACT} artifact of run {run_id} has expired; re-run the evals."
    if artifact.files is None:
        return f"the {AGG_ARTIFACT} artifact of run {run_id} could not be downloaded."
    raw = artifact.files.get(AGG_FILE)
    if raw is None:
        return f"{AGG_ARTIFACT} of run {run_id} has no {AGG_FILE}."
    try:
        rows = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return f"{AGG_FILE} of run {run_id} is not valid JSON."
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return f"{AGG_FILE} of run {run_id} is not a JSON array of rows."
    if not rows:
        return f"{AGG_FILE} of run {run_id} is empty: no eval produced a result."
    return rows


def _label(row: dict[str, Any]) -> str:
    return (f"{row.get('task')} ({row.get('model_prefix')} {row.get('hw')} {row.get('framework')} "
            f"{row.get('precision')} conc {row.get('conc')})")


def _row_problem(row: dict[str, Any], thresholds: Thresholds) -> str | None:
    error = row.get("integration_error")
    if error:
        kind = error.get("type") if isinstance(error, dict) else str(error)
        return f"infrastructure failure for {_label(row)}: {kind}."
    if row.get("infrastructure_success") is not True:
        return f"infrastructure failure for {_label(row)}: infrastructure_success is not true."
    score = eval_score(row)
    if score is None:
        return f"{_label(row)} has no valid score (must be a number in [0, 1])."
    floor, source = thresholds.floor(row.get("model_prefix"), str(row.get("task")))
    if score < floor:
        name = row.get("score_name") or "score"
        return (f"{_label(row)} {name} {score:g} is below the threshold {floor:g} "
                f"(from {source} in thresholds).")
    return None


def _summary(row: dict[str, Any], thresholds: Thresholds) -> str:
    floor, source = thresholds.floor(row.get("model_prefix"), str(row.get("task")))
    n = row.get("n_eff")
    n_text = f", n={n}" if n is not None else ""
    return (f"{row.get('task')} {row.get('score_name') or 'score'} {eval_score(row):g}{n_text} "
            f"(floor {floor:g}, {source})")


def _coverage_and_image(evidence: Evidence, run_commit: str, rows: list[dict[str, Any]]) -> str | None:
    """Every affected config has a row, and the run used the image the head now pins."""
    unread = configs_at.unread_trees(evidence.read_errors)
    if unread:
        return unread + ", so eval coverage and the evaluated image are unverified."
    keys = _affected_keys(evidence)
    if isinstance(keys, str):
        return keys
    head = configs_at.master_entries(evidence.head_files) or {}
    if not keys:
        return None
    if run_commit == evidence.pr.head_sha:
        at_run = head
    else:
        tree = evidence.commit_files.get(run_commit)
        at_run = configs_at.master_entries(tree) if tree is not None else None
        if at_run is None:
            return (f"the master configs at the run's commit {run_commit[:8]} could not be read, "
                    "so the evaluated image cannot be compared with the PR's image.")
    for key in keys:
        entry = head[key]
        if key not in at_run:
            return (f"the sweep's commit {run_commit[:8]} has no config {key}, so its evals never "
                    "ran; re-run the evals on a commit that has it.")
        if at_run[key].get("image") != entry.get("image"):
            return (f"different image: the sweep ran {key} with {at_run.get(key, {}).get('image')}, "
                    f"but the PR head pins {entry.get('image')}; re-run the evals.")
        if not any(_row_matches(row, entry) for row in rows):
            return f"no eval row covers the affected config {key}."
    return _row_image_problem(rows, head)


def _affected_keys(evidence: Evidence) -> list[str] | str:
    """Affected config keys at head (added, changed, re-enabled, or relaunched by a changed recipe);
    one affected only through a shared file counts only when the PR's plan sweeps it
    (swept.judged_configs): no eval is demanded of a config the plan never sweeps."""
    if configs_at.changed_keys(evidence.head_files, evidence.base_files) is None:
        return "the master configs at head or base could not be parsed, so eval coverage is unverified."
    try:
        return [config.key for config in judged_configs(evidence, affected_configs(evidence))]
    except (EvidenceGap, InfxError, ValueError) as exc:
        return f"the affected configs could not be determined ({exc}), so eval coverage is unverified."


def _row_image_problem(rows: list[dict[str, Any]], head: dict[str, dict[str, Any]]) -> str | None:
    """Rows that record their image must have run one the head pins for a matching config."""
    for row in rows:
        image = row.get("image")
        if not image:
            continue
        pinned = {entry.get("image") for entry in head.values() if _row_matches(row, entry)}
        if pinned and image not in pinned:
            return (f"different image: {row.get('source') or _label(row)} ran {image}, but the PR "
                    f"head pins {', '.join(sorted(map(str, pinned)))}; re-run the evals.")
    return None


def _row_matches(row: dict[str, Any], entry: dict[str, Any]) -> bool:
    return (str(row.get("model_prefix", "")).lower() == str(entry.get("model-prefix", "")).lower()
            and configs_at.runner_sku(row.get("hw")) == configs_at.runner_sku(entry.get("runner"))
            and str(row.get("framework", "")).lower() == str(entry.get("framework", "")).lower()
            and str(row.get("precision", "")).lower() == str(entry.get("precision", "")).lower())


def _requested_eval_concs(evidence: Evidence) -> list[tuple[str, dict[str, Any], tuple[int, ...]]] | None:
    """(config key, its head master entry, eval-concs) for every config a changelog entry this
    PR appends asks eval concurrencies of; None when the new entries cannot be read."""
    head_text = evidence.head_files.get(CHANGELOG)
    if head_text is None:
        return []
    head = configs_at.master_entries(evidence.head_files) or {}
    try:
        entries = appended_entries(evidence.base_files.get(CHANGELOG), head_text, CHANGELOG)
        return [(key, head[key], entry.eval_concs) for entry in entries if entry.eval_concs
                for key in entry.resolve_keys(head)]
    except (InfxError, KeyResolutionError):
        return None


def _eval_concs_problem(evidence: Evidence, rows: list[dict[str, Any]]) -> str | None:
    """Every concurrency an entry's `eval-concs` asks for has an eval row for its configs."""
    requested = _requested_eval_concs(evidence)
    if requested is None:
        return _CHANGELOG_UNPARSED
    for key, entry, wanted in requested:
        have = {row.get("conc") for row in rows if _row_matches(row, entry)}
        missing = [c for c in wanted if c not in have]
        if missing:
            return (f"{key} has no eval result for eval-concs {missing} requested in "
                    f"{CHANGELOG}; the batch is incomplete.")
    return None
