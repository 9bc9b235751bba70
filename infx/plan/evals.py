"""Eval selection: which generated rows also run accuracy evals.

Policies (``mode``): ``none`` leaves rows untouched; ``default`` marks a subset and
keeps every row; ``subset`` marks the subset (agentic rows included) and keeps only
eval rows; ``all`` widens the subset to every eligible row and keeps only eval rows.
Rows travel as (tag, row) pairs so callers can remember where each row came from;
merged rows keep the tag of the first row of their group.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

EVAL_MODES = ("default", "none", "subset", "all")
EVAL_ISL_OSL = (8192, 1024)
MIN_EVAL_CONC = 16
AGENTIC = "agentic-coding"
_NOT_TOPOLOGY = frozenset({"conc", "run-eval", "eval-only", "eval-conc", "eval-all-concs",
                           "exp-name"})

Tagged = tuple[Any, dict]


def apply_eval_mode(items: list[Tagged], mode: str) -> list[Tagged]:
    """Apply one eval policy to (tag, row) pairs in output order."""
    if mode not in EVAL_MODES:
        raise ValueError(f"unknown eval mode '{mode}' (choose one of {', '.join(EVAL_MODES)})")
    if mode == "none":
        return items
    mark_subset(items, include_agentic=mode != "default")
    if mode == "all":
        items = widen_to_all(items)
    if mode == "default":
        return items
    kept = [(tag, row) for tag, row in items if row.get("run-eval")]
    for _, row in kept:
        row["eval-only"] = True
    return kept


def mark_subset(items: list[Tagged], include_agentic: bool) -> None:
    """Set run-eval on every row; True on the default eval subset (in place)."""
    chosen: set[int] = set()
    eval_conc: dict[int, int] = {}
    _pick_single_fixed(items, chosen)
    _pick_topologies(items, chosen, eval_conc, agentic=False)
    if include_agentic:
        _pick_single_agentic(items, chosen)
        _pick_topologies(items, chosen, eval_conc, agentic=True)
    for index, (_, row) in enumerate(items):
        row["run-eval"] = index in chosen
        if index in eval_conc:
            row["eval-conc"] = eval_conc[index]


def widen_to_all(items: list[Tagged]) -> list[Tagged]:
    """--all-evals: every 8k1k fixed row evaluates; multi-node rows merge per topology."""
    out: list[Tagged] = []
    fixed_groups: dict[tuple, int] = {}
    agentic_groups: dict[tuple, int] = {}
    for tag, row in items:
        concs = _as_list(row["conc"])
        if row.get("scenario-type") == AGENTIC:
            if "prefill" not in row:
                row["run-eval"] = True
                out.append((tag, row))
            else:
                _merge_agentic(out, agentic_groups, tag, row, concs)
        elif (row.get("isl"), row.get("osl")) != EVAL_ISL_OSL:
            out.append((tag, row))
        elif "prefill" in row:
            _merge_fixed(out, fixed_groups, tag, row, concs)
        else:
            row["run-eval"] = True
            out.append((tag, row))
    return out


def topology_key(row: dict) -> tuple:
    """Identity of a multi-node setup, ignoring concurrency and eval bookkeeping."""
    return tuple(sorted((key, _freeze(value)) for key, value in row.items()
                        if key not in _NOT_TOPOLOGY))


def _pick_single_fixed(items: list[Tagged], chosen: set[int]) -> None:
    groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for index, (_, row) in enumerate(items):
        if "tp" not in row or (row.get("isl"), row.get("osl")) != EVAL_ISL_OSL:
            continue
        if not _eligible(row["conc"]):
            continue
        key = (row["model"], row["runner"], row["framework"], row["precision"], row["isl"],
               row["osl"], row["spec-decoding"], row["dp-attn"])
        groups[key].append((index, row["conc"]))
    for members in groups.values():
        concs = sorted({conc for _, conc in members})
        targets = {concs[-1], concs[len(concs) // 2]}
        chosen.update(index for index, conc in members if conc in targets)


def _pick_topologies(items: list[Tagged], chosen: set[int], eval_conc: dict[int, int],
                     agentic: bool) -> None:
    groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for index, (_, row) in enumerate(items):
        if "prefill" not in row or "tp" in row:
            continue
        if (row.get("scenario-type") == AGENTIC) != agentic:
            continue
        if not agentic and (row.get("isl"), row.get("osl")) != EVAL_ISL_OSL:
            continue
        eligible = _eligible(row["conc"])
        if eligible:
            groups[topology_key(row)].append((index, eligible[-1]))
    for members in groups.values():
        index, conc = max(members, key=lambda member: member[1])
        chosen.add(index)
        eval_conc[index] = conc


def _pick_single_agentic(items: list[Tagged], chosen: set[int]) -> None:
    groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for index, (_, row) in enumerate(items):
        if row.get("scenario-type") != AGENTIC or "prefill" in row:
            continue
        key = (row["model"], row["runner"], row["framework"], row["precision"])
        groups[key].append((index, max(_as_list(row["conc"]))))
    for members in groups.values():
        chosen.add(max(members, key=lambda member: member[1])[0])


def _merge_fixed(out: list[Tagged], groups: dict, tag: Any, row: dict, concs: list[int]) -> None:
    key = topology_key(row)
    if key in groups:
        merged = out[groups[key]][1]
        merged["conc"] = sorted(set(merged["conc"] + concs))
        return
    merged = {**row, "conc": sorted(set(concs)), "run-eval": True, "eval-all-concs": True}
    merged.pop("eval-conc", None)
    groups[key] = len(out)
    out.append((tag, merged))


def _merge_agentic(out: list[Tagged], groups: dict, tag: Any, row: dict,
                   concs: list[int]) -> None:
    key = topology_key(row)
    if key in groups:
        merged = out[groups[key]][1]
        merged["conc"] = sorted(set(merged["conc"] + concs))
        merged["eval-conc"] = max(merged["conc"])
        return
    groups[key] = len(out)
    out.append((tag, {**row, "conc": sorted(set(concs)), "run-eval": True,
                      "eval-conc": max(concs)}))


def _eligible(conc: Any) -> list[int]:
    return sorted(value for value in _as_list(conc) if value >= MIN_EVAL_CONC)


def _as_list(conc: Any) -> list[int]:
    return list(conc) if isinstance(conc, list) else [conc]


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((key, _freeze(item)) for key, item in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value
