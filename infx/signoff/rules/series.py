"""Dashboard series (benchmark curves) of master-config entries and result rows: read by Check `pareto` and the sweep report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from infx.signoff.rules import configs_at

AGENTIC = "agentic-coding"
FIXED = "fixed-seq-len"
Y_KEY = "tput_per_gpu"
X_FIXED, X_AGENTIC, X_AGENTIC_P75 = "median_e2el", "p90_e2el", "p75_e2el"


@dataclass(frozen=True)
class Series:
    """One dashboard series; config keys, images, recipes and topologies on it share one curve."""

    prefix: str
    scenario: str  # "agentic-coding" or "<isl>/<osl>"
    sku: str
    framework: str
    spec: str | None  # fixed-seq curves split by spec method; AgentX curves do not
    precision: str

    @property
    def agentic(self) -> bool:
        return self.scenario == AGENTIC

    def label(self) -> str:
        hw = f"{self.sku.upper()} {self.framework}" + ("" if self.agentic else f" spec={self.spec}")
        return f"{self.prefix} / {self.scenario} / {hw} / {self.precision}"


def series_of(entry: dict[str, Any]) -> set[Series]:
    """The dashboard series a master-config entry draws points on."""
    base = (str(entry.get("model-prefix", "")), configs_at.runner_sku(entry.get("runner")),
            str(entry.get("framework", "")).lower(), str(entry.get("precision", "")).lower())
    scenarios = entry.get("scenarios") if isinstance(entry.get("scenarios"), dict) else {}
    found: set[Series] = set()
    for name, items in scenarios.items():
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            if name == AGENTIC:
                found.add(_series(base, AGENTIC, None))
            elif name == FIXED:
                scenario = f"{item.get('isl')}/{item.get('osl')}"
                for lane in item.get("search-space") or [{}]:
                    found.add(_series(base, scenario, _spec(lane)))
    return found


def _series(base: tuple[str, str, str, str], scenario: str, spec: str | None) -> Series:
    prefix, sku, framework, precision = base
    return Series(prefix, scenario, sku, framework, spec, precision)


def _spec(lane: Any) -> str:
    if not isinstance(lane, dict):
        return "none"
    value = lane.get("spec-decoding") or (lane.get("decode") or {}).get("spec-decoding")
    return str(value or "none").lower()


def series_of_row(row: dict[str, Any]) -> Series:
    agentic = row.get("scenario_type") == AGENTIC
    base = (str(row.get("infmax_model_prefix") or row.get("model_prefix") or ""),
            configs_at.runner_sku(str(row.get("hw", ""))), str(row.get("framework", "")).lower(),
            str(row.get("precision", "")).lower())
    if agentic:
        return _series(base, AGENTIC, None)
    return _series(base, f"{row.get('isl')}/{row.get('osl')}",
                   str(row.get("spec_decoding") or "none").lower())
