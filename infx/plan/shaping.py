"""Plan row helpers: eval filters, trim, recipe fingerprints, bucket names and field order."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from infx.config.scenarios import AGENTIC, AGENTIC_ID, seq_name

_FINGERPRINT_EXCLUDED = ("conc", "exp-name", "recipe-fingerprint")
_TRIM_EXCLUDED = ("conc", "exp-name")

# Field order of each plan row type, and the defaults the plan always spells out.
_SINGLE_FIXED = (
    "image", "model", "model-prefix", "precision", "framework", "spec-decoding", "runner",
    "isl", "osl", "tp", "pp", "dcp-size", "pcp-size", "ep", "dp-attn", "conc",
    "max-model-len", "exp-name", "disagg", "run-eval", "eval-only", "eval-framework",
    "eval-suite", "router", "recipe-fingerprint",
)
_MULTI_FIXED = (
    "image", "model", "model-prefix", "precision", "framework", "spec-decoding", "runner",
    "node-count", "isl", "osl", "prefill", "decode", "conc", "max-model-len", "exp-name",
    "disagg", "run-eval", "eval-only", "eval-conc", "eval-all-concs", "eval-framework",
    "eval-suite", "router", "kv-p2p-transfer", "recipe-fingerprint",
)
_SINGLE_AGENTIC = (
    "image", "model", "model-prefix", "precision", "framework", "runner", "tp", "pp",
    "dcp-size", "pcp-size", "ep", "dp-attn", "spec-decoding", "conc", "kv-offloading",
    "kv-offload-backend", "router", "total-cpu-dram-gb", "duration", "exp-name",
    "scenario-type", "run-eval", "eval-only", "eval-framework", "eval-suite",
    "recipe-fingerprint",
)
_MULTI_AGENTIC = (
    "image", "model", "model-prefix", "precision", "framework", "spec-decoding", "runner",
    "node-count", "prefill", "decode", "conc", "kv-offloading", "kv-offload-backend", "router",
    "kv-p2p-transfer", "total-cpu-dram-gb", "duration", "exp-name", "disagg", "scenario-type",
    "run-eval", "eval-only", "eval-conc", "eval-framework", "eval-suite", "recipe-fingerprint",
)
_WORKER = ("num-worker", "tp", "pp", "dcp-size", "pcp-size", "ep", "dp-attn", "hardware",
           "additional-settings")
_COMPONENT = ("name", "version")
_DEFAULTS = {
    "single_fixed": {"eval-only": False},
    "multi_fixed": {"eval-only": False, "eval-all-concs": False},
}


def is_multi_node(row: dict) -> bool:
    return row.get("prefill") is not None


def is_agentic(row: dict) -> bool:
    return row.get("scenario-type") == AGENTIC


def bucket_name(row: dict) -> str:
    return AGENTIC_ID if is_agentic(row) else seq_name(row.get("isl"), row.get("osl"))


# --- eval filters --------------------------------------------------------------------------

def filter_min_prefill_ep(rows: list[dict], minimum: int | None) -> list[dict]:
    """Drop multi-node eval rows whose prefill ep is below ``minimum`` (or unreadable)."""
    if minimum is None:
        return rows
    kept = []
    for row in rows:
        prefill = row.get("prefill")
        if prefill is None:
            kept.append(row)
            continue
        ep = _prefill_ep(prefill)
        if ep is not None and ep >= minimum:
            kept.append(row)
    return kept


def _prefill_ep(prefill: Any) -> int | None:
    if not isinstance(prefill, dict):
        return None
    if "ep" not in prefill:
        return 1
    try:
        return int(prefill["ep"])
    except (TypeError, ValueError):
        return None


def eval_concs_of(row: dict) -> list[int]:
    """Concurrencies an eval row will evaluate."""
    if row.get("eval-conc") is not None:
        return [row["eval-conc"]]
    conc = row.get("conc")
    return list(conc) if isinstance(conc, list) else [conc]


def filter_eval_concs(rows: list[dict], wanted: Sequence[int]) -> list[dict]:
    """Keep eval rows at the listed concurrencies; all-concurrency rows are narrowed."""
    allowed = set(wanted)
    kept = []
    for row in rows:
        if row.get("eval-all-concs") and isinstance(row.get("conc"), list):
            narrowed = [c for c in row["conc"] if c in allowed]
            if narrowed:
                kept.append({**row, "conc": narrowed})
        elif any(c in allowed for c in eval_concs_of(row)):
            kept.append(row)
    return kept


# --- trim and fingerprint ------------------------------------------------------------------

def freeze(value: Any) -> str:
    """A deterministic, hashable rendering of nested row values."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def trim_rows(rows: list[dict]) -> list[dict]:
    """Lowest concurrency per shape: single-node rows merged by shape, multi-node lists cut.

    The surviving row of a shape keeps its own position (ties: the first one), so a
    later, lower-concurrency row is not moved up to where its shape first appeared.
    """
    best: dict[str, int] = {}
    out: list[dict] = []
    for row in rows:
        if is_multi_node(row):
            conc = row.get("conc")
            out.append({**row, "conc": [min(conc)]} if isinstance(conc, list) and len(conc) > 1
                       else row)
            continue
        shape = freeze({k: v for k, v in row.items() if k not in _TRIM_EXCLUDED})
        if shape not in best or row["conc"] < out[best[shape]]["conc"]:
            best[shape] = len(out)
        out.append(row)
    survivors = set(best.values())
    return [row for index, row in enumerate(out) if is_multi_node(row) or index in survivors]


def recipe_fingerprint(row: dict) -> str:
    """SHA-256 of the row's canonical JSON without concurrency and experiment name."""
    body = {k: v for k, v in row.items() if k not in _FINGERPRINT_EXCLUDED}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


# --- output shape --------------------------------------------------------------------------

def _row_kind(row: dict) -> str:
    return ("multi_" if is_multi_node(row) else "single_") + (
        "agentic" if is_agentic(row) else "fixed")


_ORDERS = {"single_fixed": _SINGLE_FIXED, "multi_fixed": _MULTI_FIXED,
           "single_agentic": _SINGLE_AGENTIC, "multi_agentic": _MULTI_AGENTIC}


def _ordered(mapping: dict, order: Iterable[str]) -> dict:
    out = {k: mapping[k] for k in order if k in mapping and mapping[k] is not None}
    out.update((k, v) for k, v in mapping.items() if k not in out and v is not None)
    return out


def serialise_row(row: dict) -> dict:
    """The row as the plan prints it: model field order, defaults spelled out, nulls gone."""
    kind = _row_kind(row)
    data = {**_DEFAULTS.get(kind, {}), **row}
    for worker in ("prefill", "decode"):
        if isinstance(data.get(worker), dict):
            data[worker] = _ordered({"additional-settings": [], **data[worker]}, _WORKER)
    for component in ("router", "kv-offload-backend"):
        if isinstance(data.get(component), dict):
            data[component] = _ordered(data[component], _COMPONENT)
    return _ordered(data, _ORDERS[kind])
