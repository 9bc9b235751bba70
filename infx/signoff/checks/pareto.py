"""Check 14 (advisory): each affected benchmark curve has enough measured points on its frontier."""

from __future__ import annotations

import json
from typing import Any

from infx.signoff import configs_at, pareto
from infx.signoff.checks.sweep import find_green_run
from infx.signoff.model import Evidence, Outcome, Status
from infx.signoff.table import load_table

RESULTS_ARTIFACT = "results_bmk"
RESULTS_FILE = "agg_bmk.json"
AGENTIC = "agentic-coding"


def run(evidence: Evidence) -> Outcome:
    unread = configs_at.unread_trees(evidence.read_errors)
    if unread:
        return _unverifiable(unread)
    keys = configs_at.changed_keys(evidence.head_files, evidence.base_files)
    if keys == []:
        return Outcome(Status.NA, "no master-config entry changed, so no benchmark curve is affected.")
    green = find_green_run(evidence)
    if green is None:
        return _unverifiable("there is no passing in-PR sweep to take measured points from")
    rows = _rows(evidence, green.run_id)
    if isinstance(rows, str):
        return _unverifiable(rows)
    curves = _curves(rows)
    if not curves:
        return _unverifiable(f"{RESULTS_FILE} of run {green.run_id} holds no benchmark points")
    recommended = load_table().settings.recommended_frontier_points
    results = [_evaluate(key, points) for key, points in sorted(curves.items())]
    text = "; ".join(_describe(result, recommended) for result in results)
    if all(result.passes(recommended) for result in results):
        return Outcome(Status.PASS, f"{len(results)} curve(s) from run {green.run_id}: {text}.")
    return Outcome(Status.WARN, f"{len(results)} curve(s) from run {green.run_id}: {text}; "
                   f"at least {recommended} frontier points per curve are strongly recommended.")


def _unverifiable(why: str) -> Outcome:
    return Outcome(Status.WARN, f"Pareto coverage is unverifiable: {why}.")


def _rows(evidence: Evidence, run_id: int) -> list[dict[str, Any]] | str:
    artifacts = evidence.artifacts.get(run_id)
    if artifacts is None:
        return f"the artifacts of run {run_id} could not be read"
    artifact = next((a for a in artifacts if a.name == RESULTS_ARTIFACT), None)
    if artifact is None or artifact.expired or artifact.files is None:
        state = "missing" if artifact is None else "expired" if artifact.expired else "unreadable"
        return f"the {RESULTS_ARTIFACT} artifact of run {run_id} is {state}"
    try:
        rows = json.loads(artifact.files.get(RESULTS_FILE) or b"null")
    except (ValueError, UnicodeDecodeError):
        return f"{RESULTS_FILE} of run {run_id} is not valid JSON"
    if not isinstance(rows, list):
        return f"{RESULTS_FILE} of run {run_id} is not a JSON array"
    return [row for row in rows if isinstance(row, dict)]


def curve_key(row: dict[str, Any]) -> str:
    """One dashboard series: model, scenario, GPU + framework, (spec method), precision."""
    agentic = row.get("scenario_type") == AGENTIC
    scenario = AGENTIC if agentic else f"{row.get('isl')}/{row.get('osl')}"
    hw = f"{configs_at.runner_sku(str(row.get('hw', ''))).upper()} {row.get('framework')}"
    if not agentic:
        hw += f" spec={row.get('spec_decoding') or 'none'}"
    prefix = row.get("infmax_model_prefix") or row.get("model_prefix")
    return f"{prefix} / {scenario} / {hw} / {row.get('precision')}"


def _curves(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    curves: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        curves.setdefault(curve_key(row), []).append(row)
    return curves


def _evaluate(key: str, points: list[dict[str, Any]]) -> pareto.CurveResult:
    agentic = any(p.get("scenario_type") == AGENTIC for p in points)
    x_key = "p90_e2el" if agentic else "median_e2el"
    front, invalid = pareto.frontier(points, x_key, "tput_per_gpu")
    restricted = any(pareto.FRONTIER_FLAG in p for p in points)
    return pareto.CurveResult(key, len(points), invalid, tuple(front), restricted)


def _describe(result: pareto.CurveResult, recommended: int) -> str:
    return (f"{result.key}: {result.measured} measured, {result.invalid} invalid, "
            f"{len(result.frontier)}/{recommended} on the frontier")
