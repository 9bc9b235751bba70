"""Check `pareto` (advisory): each affected benchmark curve has enough measured points on its frontier."""

from __future__ import annotations

import json
from typing import Any

from infx.errors import InfxError
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.rules import configs_at
from infx.signoff.rules import frontier as pareto
from infx.signoff.rules.affected import affected_configs
from infx.signoff.rules.bypass import bypass_state
from infx.signoff.rules.policy_reads import EvidenceGap
from infx.signoff.rules.series import (
    X_AGENTIC,
    X_AGENTIC_P75,
    X_FIXED,
    Y_KEY,
    Series,
    series_of,
    series_of_row,
)
from infx.signoff.rules.sweeps import find_green_run
from infx.signoff.swept import judged_configs
from infx.signoff.table import Settings

RESULTS_ARTIFACT = "results_bmk"
RESULTS_FILE = "agg_bmk.json"


def run(evidence: Evidence, settings: Settings) -> Outcome:
    unread = configs_at.unread_trees(evidence.read_errors)
    if unread:
        return _warn(["Pareto coverage is unverifiable: " + unread], evidence, settings)
    expected = _affected_series(evidence)
    if isinstance(expected, str):
        return _warn([f"Pareto coverage is unverifiable: {expected}"], evidence, settings)
    if not expected:
        return Outcome(Status.NA, "no benchmark config is affected, so no curve needs coverage.")
    green = find_green_run(evidence)
    if green is None:
        return _warn(["Pareto coverage is unverifiable: there is no passing in-PR sweep to take "
                      "measured points from"], evidence, settings)
    rows: list[dict[str, Any]] | str = []
    for run_id in green.runs:
        found = _rows(evidence, run_id)
        if isinstance(found, str) and green.rows_by_run and not green.contributes(run_id, evals=False):
            continue  # this run contributes no benchmark row
        if isinstance(found, str):
            rows = found
            break
        rows += [row for row in found if green.takes(run_id, row)]
    if isinstance(rows, str):
        return _warn([f"Pareto coverage is unverifiable: {rows}"], evidence, settings)
    points = _points_by_series(rows)
    recommended = settings.recommended_frontier_points
    texts, passing = [], True
    for series in sorted(expected, key=Series.label):
        text, ok = _curve_text(series, points.get(series, []), recommended)
        texts.append(text)
        passing = passing and ok
    runs = "run" + ("s " if len(green.runs) > 1 else " ") + ", ".join(map(str, green.runs))
    summary = f"{len(expected)} affected curve(s) from {runs}: " + "; ".join(texts)
    if passing:
        return Outcome(Status.PASS, summary + ".")
    return _warn([summary, f"at least {recommended} frontier points per curve are strongly "
                  "recommended"], evidence, settings)


def _warn(parts: list[str], evidence: Evidence, settings: Settings) -> Outcome:
    bypass = bypass_state(evidence, settings.pareto_bypass_command)
    return Outcome(Status.WARN, "; ".join(parts + [bypass]) + ".")


def _curve_text(series: Series, points: list[dict[str, Any]], recommended: int) -> tuple[str, bool]:
    if not points:
        return f"{series.label()}: unverifiable (no measured points in {RESULTS_FILE})", False
    x_key = X_AGENTIC if series.agentic else X_FIXED
    (report,) = pareto.coverage([{"key": series.label(), "x": x_key, "points": points}],
                                recommended, Y_KEY)
    percentile = "P90 " if series.agentic else ""
    text = (f"{series.label()}: {report['measuredPoints']} measured, {report['invalidPoints']} "
            f"invalid, {report['frontierPoints']}/{recommended} on the {percentile}{Y_KEY} vs "
            f"{x_key} frontier")
    if series.agentic and any(X_AGENTIC_P75 in p for p in points):
        # P75 is its own series: reported beside P90, never pooled with it
        (p75,) = pareto.coverage([{"key": "p75", "x": X_AGENTIC_P75, "points": points}],
                                 recommended, Y_KEY)
        text += f" (P75: {p75['frontierPoints']}/{recommended}, {p75['invalidPoints']} invalid)"
    if report["canonicalRestriction"]:
        text += " (restricted to the normalized-interactivity frontier)"
    return text, report["status"] == "PASS"


# --- which curves the PR affects -------------------------------------------------------------


def _affected_series(evidence: Evidence) -> set[Series] | str:
    if configs_at.changed_keys(evidence.head_files, evidence.base_files) is None:
        return "the master configs at head or base could not be parsed"
    try:
        configs = judged_configs(evidence, affected_configs(evidence))  # what the plan sweeps
    except (EvidenceGap, InfxError, ValueError) as exc:
        return f"the affected configs could not be determined ({exc})"
    return {series for config in configs for series in series_of(config.entry)}


def _points_by_series(rows: list[dict[str, Any]]) -> dict[Series, list[dict[str, Any]]]:
    found: dict[Series, list[dict[str, Any]]] = {}
    for row in rows:
        found.setdefault(series_of_row(row), []).append(row)
    return found


def _rows(evidence: Evidence, run_id: int) -> list[dict[str, Any]] | str:
    artifacts = evidence.artifacts.get(run_id)
    if artifacts is None:
        return f"the artifacts of run {run_id} could not be read"
    artifact = next((a for a in artifacts if a.artifact.name == RESULTS_ARTIFACT), None)
    if artifact is None or artifact.artifact.expired or artifact.files is None:
        state = "missing" if artifact is None else "expired" if artifact.artifact.expired else "unreadable"
        return f"the {RESULTS_ARTIFACT} artifact of run {run_id} is {state}"
    try:
        rows = json.loads(artifact.files.get(RESULTS_FILE) or b"null")
    except (ValueError, UnicodeDecodeError):
        return f"{RESULTS_FILE} of run {run_id} is not valid JSON"
    if not isinstance(rows, list):
        return f"{RESULTS_FILE} of run {run_id} is not a JSON array"
    return [row for row in rows if isinstance(row, dict)]
