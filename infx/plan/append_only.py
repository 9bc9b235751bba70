"""append-only entries: scope checks against the base revision and the new-points delta."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from infx.errors import InfxError, Problem
from infx.plan.shaping import freeze, is_agentic

_CURVE_EXCLUDED = ("conc", "exp-name", "recipe-fingerprint")


def _fail(message: str, fix: str | None = None) -> None:
    raise InfxError(Problem(message, key="append-only", fix=fix))


def check_scope(base: Mapping[str, Any], head: Mapping[str, Any],
                scope: Mapping[str, set[str]]) -> None:
    """Master-level checks: only selected scenarios of selected configs may change.

    ``base``/``head`` are the raw master mappings of both revisions; ``scope`` maps
    each selected config key to its selected scenario types.
    """
    missing = sorted(k for k in scope if k not in base)
    if missing:
        _fail("append-only requires every selected config to exist in the base revision; "
              f"missing: {missing}", "add new configs with a regular changelog entry")
    changed = sorted(k for k in set(base) | set(head)
                     if k not in scope and base.get(k) != head.get(k))
    if changed:
        _fail(f"append-only PR changed configs not selected by its changelog entry: {changed}",
              "list those configs in the entry or revert their changes")
    for key, selected in scope.items():
        _check_config_scope(key, base[key], head.get(key), selected)


def _scenarios(config: Any) -> dict:
    if not isinstance(config, dict) or not isinstance(config.get("scenarios"), dict):
        return {}
    return config["scenarios"]


def _check_config_scope(key: str, old: Any, new: Any, selected: set[str]) -> None:
    old_scenarios, new_scenarios = _scenarios(old), _scenarios(new)
    if set(old_scenarios) != set(new_scenarios):
        _fail(f"append-only added or removed a scenario in config '{key}'")
    unselected = [s for s in old_scenarios if s not in selected]
    if not unselected:
        return
    if _config_wide(old) != _config_wide(new):
        _fail(f"append-only changed config-wide fields that can affect scenarios outside its "
              f"changelog scope: '{key}'", "limit the change to the selected scenario")
    for scenario in unselected:
        if old_scenarios.get(scenario) != new_scenarios.get(scenario):
            _fail(f"append-only changed a scenario outside its changelog scope: "
                  f"'{key}' / '{scenario}'")


def _config_wide(config: Any) -> Any:
    if not isinstance(config, dict):
        return config
    return {k: v for k, v in config.items() if k != "scenarios"}


def _curve(row: dict) -> str:
    return freeze({k: v for k, v in row.items() if k not in _CURVE_EXCLUDED})


def _concs(row: dict) -> list:
    conc = row.get("conc")
    return list(conc) if isinstance(conc, list) else [conc]


def _series(row: dict) -> str:
    agentic = is_agentic(row)
    prefill, decode = row.get("prefill") or {}, row.get("decode") or {}
    return freeze([
        row.get("model"), row.get("model-prefix"), row.get("precision"), row.get("framework"),
        row.get("runner"), bool(row.get("disagg", False)),
        "agentic_traces" if agentic else "single_turn",
        None if agentic else row.get("isl"), None if agentic else row.get("osl"),
        row.get("kv-offloading") not in (None, "", "none"),
        "" if agentic else row.get("spec-decoding", "none"),
        prefill.get("hardware") if isinstance(prefill, dict) else None,
        decode.get("hardware") if isinstance(decode, dict) else None,
    ])


def delta_rows(base_rows: list[dict], head_rows: list[dict]) -> list[dict]:
    """Head rows reduced to the points the base revision did not generate."""
    if not base_rows:
        _fail("append-only requires an existing curve in the base revision")
    base_points: dict[str, set] = {}
    for row in base_rows:
        base_points.setdefault(_curve(row), set()).update(_concs(row))
    head_points: dict[str, set] = {}
    for row in head_rows:
        head_points.setdefault(_curve(row), set()).update(_concs(row))
    if any(curve not in head_points for curve in base_points):
        _fail("append-only may not remove or modify existing generated recipes",
              "keep every existing recipe unchanged and only add concurrency points")
    for curve, points in base_points.items():
        lost = sorted(points - head_points[curve])
        if lost:
            _fail(f"append-only may not remove existing concurrency points: {lost}")
    delta = list(_new_points(base_points, head_rows))
    if not delta:
        _fail("append-only did not add any generated points")
    _check_series(base_rows, delta)
    return delta


def _new_points(base_points: dict[str, set], head_rows: list[dict]) -> Iterable[dict]:
    emitted: dict[str, set] = {}
    for row in head_rows:
        curve = _curve(row)
        seen = emitted.setdefault(curve, set(base_points.get(curve, set())))
        if isinstance(row.get("conc"), list):
            fresh = []
            for conc in row["conc"]:
                if conc not in seen:
                    seen.add(conc)
                    fresh.append(conc)
            if fresh:
                yield {**row, "conc": fresh}
        elif row.get("conc") not in seen:
            seen.add(row.get("conc"))
            yield row


def _check_series(base_rows: list[dict], delta: list[dict]) -> None:
    images: dict[str, set] = {}
    for row in base_rows:
        images.setdefault(_series(row), set()).add(row.get("image"))
    for row in delta:
        image = row.get("image")
        if image is None or images.get(_series(row)) != {image}:
            _fail("append-only additions must belong to an existing visual curve with one "
                  "unchanged non-null image")
