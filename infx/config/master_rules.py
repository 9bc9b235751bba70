"""Cross-field rules of a master config entry that a JSON Schema cannot express well.

Every function takes data already accepted by ``master.schema.json`` and returns
(path inside the entry, message) pairs; an empty list means the entry is valid.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

CLUSTER_PREFIX = "cluster:"
FIXED = "fixed-seq-len"
AGENTIC = "agentic-coding"
Finding = tuple[tuple, str]


def semantic_problems(entry: dict) -> list[Finding]:
    """All rule violations of one validated-by-schema master entry."""
    multinode = entry["multinode"] is True
    scenarios = entry["scenarios"]
    found: list[Finding] = []
    if not scenarios.get(FIXED) and not scenarios.get(AGENTIC):
        found.append((("scenarios",), "At least one scenario type must be specified "
                                      "(a non-empty fixed-seq-len or agentic-coding list)"))
    for path, item in _search_entries(scenarios, FIXED):
        found += _at(path, concurrency_problems(item))
        found += _at(path, _fixed_topology_problems(item, multinode))
    for block_index, block in enumerate(scenarios.get(AGENTIC) or []):
        block_path = ("scenarios", AGENTIC, block_index)
        for entry_index, item in enumerate(block["search-space"]):
            path = (*block_path, "search-space", entry_index)
            found += _at(path, concurrency_problems(item))
            found += _at(path, _agentic_topology_problems(item, multinode))
            found += _at(path, _kv_offload_problems(item))
        if "dram-utilization" not in block and any(
                item.get("kv-offloading") == "dram" for item in block["search-space"]):
            found.append((block_path, "kv-offloading='dram' requires dram-utilization "
                                      "(with runner hardware metadata)"))
    if scenarios.get(AGENTIC) and not entry["runner"].startswith(CLUSTER_PREFIX):
        found.append((("runner",), f"Agentic master configs must use a '{CLUSTER_PREFIX}<name>' "
                                   "runner so every point runs on one exact hardware fleet"))
    found += _component_scope_problems(entry, multinode)
    return found


def concurrency_problems(item: dict) -> list[Finding]:
    """Exactly one of a positive range (start <= end) or a non-empty positive list."""
    has_range = "conc-start" in item and "conc-end" in item
    has_list = bool(item.get("conc-list"))
    if has_range and has_list:
        return [((), "Cannot specify both 'conc-list' list and 'conc-start'/'conc-end'. "
                     "Use either a list or a range, not both.")]
    if not has_range and not has_list:
        return [((), "Must specify either 'conc-list' list or both 'conc-start' and 'conc-end'.")]
    if has_range:
        start, end = item["conc-start"], item["conc-end"]
        if start <= 0 or end <= 0:
            return [(("conc-start",), "Input 'conc-start' and 'conc-end' must be greater than 0.")]
        if start > end:
            return [(("conc-start",), f"'conc-start' ({start}) must be <= 'conc-end' ({end}).")]
        return []
    if not all(value > 0 for value in item["conc-list"]):
        return [(("conc-list",), "Input 'conc-list' entries must be greater than 0.")]
    return []


def _fixed_topology_problems(item: dict, multinode: bool) -> list[Finding]:
    if not multinode:
        return _dcp_problems(item, ())
    return [*_dcp_problems(item["prefill"], ("prefill",)),
            *_dcp_problems(item["decode"], ("decode",)),
            *_hardware_pair_problems(item)]


def _agentic_topology_problems(item: dict, multinode: bool) -> list[Finding]:
    has_tp = "tp" in item
    has_prefill, has_decode = "prefill" in item, "decode" in item
    if has_tp == (has_prefill or has_decode) or has_prefill != has_decode:
        return [((), "Agentic search-space entries must specify either tp or both prefill "
                     "and decode")]
    if has_tp:
        found = []
        if multinode:
            found.append((("tp",), "multinode=true configs must describe agentic entries with "
                                   "prefill and decode, not tp"))
        if "kv-offloading" not in item:
            found.append(((), "Single-node agentic search-space entries must specify "
                              "kv-offloading"))
        return found + _dcp_problems(item, ())
    if not multinode:
        return [(("prefill",), "Single-node search-space entries must specify tp topology and "
                               "cannot declare prefill or decode")]
    explicit = [name for name in ("pp", "dcp-size", "pcp-size") if name in item]
    found = [((explicit[0],), "Multinode agentic search-space entries cannot specify 'pp', "
                              "'dcp-size', 'pcp-size' (set them on prefill/decode)")] if explicit else []
    return [*found, *_dcp_problems(item["prefill"], ("prefill",)),
            *_dcp_problems(item["decode"], ("decode",)), *_hardware_pair_problems(item)]


def _kv_offload_problems(item: dict) -> list[Finding]:
    mode = item.get("kv-offloading")
    has_backend = "kv-offload-backend" in item
    if mode is None and has_backend:
        return [(("kv-offload-backend",), "kv-offload-backend requires kv-offloading")]
    if mode == "none" and has_backend:
        return [(("kv-offload-backend",),
                 "kv-offload-backend can only be set when kv-offloading is not 'none'")]
    if mode == "dram" and not has_backend:
        return [(("kv-offloading",), "kv-offload-backend is required when kv-offloading is 'dram'")]
    return []


STRICT_INT_FIELDS = ("pp", "dcp-size", "pcp-size")


def _strict_int_problems(topology: dict, path: tuple) -> list[Finding]:
    # The schema's "integer" admits 2.0; the reference's strict fields do not.
    return [((*path, name), f"'{name}' must be a whole number written without a decimal "
                            f"point (got {topology[name]!r})")
            for name in STRICT_INT_FIELDS if isinstance(topology.get(name), float)]


def _dcp_problems(topology: dict, path: tuple) -> list[Finding]:
    strict = _strict_int_problems(topology, path)
    if strict:
        return strict
    tp, dcp = topology["tp"], topology.get("dcp-size", 1)
    if tp % dcp != 0:
        return [((*path, "dcp-size"), f"'tp' ({tp}) must be divisible by 'dcp-size' ({dcp})")]
    return []


def _hardware_pair_problems(item: dict) -> list[Finding]:
    if bool(item["prefill"].get("hardware")) != bool(item["decode"].get("hardware")):
        return [(("prefill",), "'hardware' must be specified for both 'prefill' and 'decode', "
                               "or neither")]
    return []


def _component_scope_problems(entry: dict, multinode: bool) -> list[Finding]:
    items = [item for _, item in _all_search_entries(entry["scenarios"])]
    found: list[Finding] = []
    for field in ("router", "kv-p2p-transfer"):
        if field in entry and any(field in item for item in items):
            found.append(((field,), f"{field} must be declared either at the top level or in "
                                    "search-space entries, not both"))
    if not multinode:
        for path, item in _all_search_entries(entry["scenarios"]):
            if "kv-p2p-transfer" in item:
                found.append(((*path, "kv-p2p-transfer"),
                              "kv-p2p-transfer is only valid when multinode=true"))
    if entry.get("disagg") is True and "kv-p2p-transfer" not in entry:
        if not items or any("kv-p2p-transfer" not in item for item in items):
            found.append((("disagg",), "disagg=true requires kv-p2p-transfer at the top level "
                                       "or in every search-space entry"))
    return found


def _search_entries(scenarios: dict, scenario: str) -> Iterator[tuple[tuple, dict]]:
    for block_index, block in enumerate(scenarios.get(scenario) or []):
        for entry_index, item in enumerate(block["search-space"]):
            yield ("scenarios", scenario, block_index, "search-space", entry_index), item


def _all_search_entries(scenarios: dict) -> Iterator[tuple[tuple, Any]]:
    yield from _search_entries(scenarios, FIXED)
    yield from _search_entries(scenarios, AGENTIC)


def _at(prefix: tuple, findings: list[Finding]) -> list[Finding]:
    return [((*prefix, *path), message) for path, message in findings]
