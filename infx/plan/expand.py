"""Expand one master config entry into benchmark rows (the reference's row shapes).

Key order inside every row is part of the output contract: rows are printed as JSON
exactly as built here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from infx.config.runners import Runners
from infx.config.scenarios import AGENTIC, FIXED, seq_name
from infx.errors import InfxError

AGENTIC_DURATION_SECONDS = 3600
DRAM_CAP_MIB = 2_861_022  # 3 TB (decimal) of host DRAM, before utilization scaling
MAX_MODEL_LEN_MARGIN = 256

# A concurrency policy maps (scenario kind, search-space entry) to the concurrencies
# to emit, or None to drop the entry. Kinds: "fixed-single", "fixed-multi", "agentic".
ConcPolicy = Callable[[str, dict], "list[int] | None"]


@dataclass(frozen=True)
class KeyScope:
    """What to expand for one config key."""

    runners_for_rows: Sequence[str]
    seq_lens: frozenset | None = None
    scenario_types: frozenset | None = None
    include_single: bool = True
    include_multi: bool = True
    max_tp: int | None = None
    max_ep: int | None = None


class GenerationError(ValueError):
    """A config that validated but cannot be turned into rows (path inside the entry)."""

    def __init__(self, path: tuple, message: str) -> None:
        super().__init__(message)
        self.path = path


def conc_range(start: int, end: int, step: int) -> list[int]:
    """start, start*step, ... with the first overshoot replaced by ``end`` (always included)."""
    values = []
    conc = start
    while conc <= end:
        values.append(conc)
        if conc == end:
            break
        conc = min(conc * step, end)
    return values


def listed_or_range(item: dict, step: int, by_presence: bool = False) -> list[int]:
    """The entry's conc-list, else its expanded range."""
    has_list = "conc-list" in item if by_presence else bool(item.get("conc-list"))
    if has_list:
        return list(item["conc-list"])
    return conc_range(item["conc-start"], item["conc-end"], step)


def expand_config(config: dict, runners: Runners, scope: KeyScope,
                  concs: ConcPolicy) -> list[dict]:
    """All rows of one config key, fixed-seq-len blocks first, then agentic blocks."""
    multinode = config["multinode"] is True
    scenarios = config["scenarios"]
    rows: list[dict] = []
    if scope.scenario_types is None or FIXED in scope.scenario_types:
        for block in scenarios.get(FIXED) or []:
            if scope.seq_lens and (block["isl"], block["osl"]) not in scope.seq_lens:
                continue
            for item in block["search-space"]:
                if multinode and not scope.include_multi:
                    continue
                if not multinode and not scope.include_single:
                    continue
                if multinode:
                    rows += _fixed_multi_rows(config, block, item, scope, concs)
                else:
                    rows += _fixed_single_rows(config, block, item, scope, concs)
    if multinode and not scope.include_multi or not multinode and not scope.include_single:
        return rows
    if scope.scenario_types is None or AGENTIC in scope.scenario_types:
        for block_index, block in enumerate(scenarios.get(AGENTIC) or []):
            for entry_index, item in enumerate(block["search-space"]):
                path = ("scenarios", AGENTIC, block_index, "search-space", entry_index)
                rows += _agentic_rows(config, block, item, runners, scope, concs, multinode, path)
    return rows


def _fixed_single_rows(config: dict, block: dict, item: dict, scope: KeyScope,
                       concs: ConcPolicy) -> list[dict]:
    tp = item["tp"]
    ep = item.get("ep")
    if scope.max_tp is not None and (scope.max_tp <= 0 or tp > scope.max_tp):
        return []
    if scope.max_ep is not None:
        if scope.max_ep <= 0:
            return []
        if ep is not None and ep > scope.max_ep:
            ep = scope.max_ep
    values = concs("fixed-single", item)
    if not values:
        return []
    isl, osl = block["isl"], block["osl"]
    rows = []
    for conc in values:
        for runner in scope.runners_for_rows:
            row = _head(config, runner)
            row.update({
                "isl": isl, "osl": osl, "tp": tp, "pp": item.get("pp", 1),
                "dcp-size": item.get("dcp-size", 1), "pcp-size": item.get("pcp-size", 1),
                "conc": conc, "max-model-len": isl + osl + MAX_MODEL_LEN_MARGIN,
                "ep": 1 if ep is None else ep,
                "dp-attn": item.get("dp-attn", False),
                "spec-decoding": item.get("spec-decoding", "none"),
                "exp-name": f"{config['model-prefix']}_{seq_name(isl, osl)}",
                "disagg": config.get("disagg", False), "run-eval": False,
            })
            row.update(_components(item, config))
            rows.append(row)
    return rows


def _fixed_multi_rows(config: dict, block: dict, item: dict, scope: KeyScope,
                      concs: ConcPolicy) -> list[dict]:
    values = concs("fixed-multi", item)
    if values is None:
        return []
    isl, osl = block["isl"], block["osl"]
    rows = []
    for runner in scope.runners_for_rows:
        row = _head(config, runner)
        row.update({
            "isl": isl, "osl": osl, "spec-decoding": item.get("spec-decoding", "none"),
            "prefill": worker_with_defaults(item["prefill"]),
            "decode": worker_with_defaults(item["decode"]),
            "conc": list(values), "max-model-len": isl + osl + MAX_MODEL_LEN_MARGIN,
            "exp-name": f"{config['model-prefix']}_{seq_name(isl, osl)}",
            "disagg": config.get("disagg", False), "run-eval": False,
        })
        row.update(_components(item, config))
        rows.append(row)
    return rows


def _agentic_rows(config: dict, block: dict, item: dict, runners: Runners, scope: KeyScope,
                  concs: ConcPolicy, multinode: bool, path: tuple) -> list[dict]:
    dram_gb = dram_offload_gb(block, item, config["runner"], runners, path)
    values = concs("agentic", item)
    if not values:
        return []
    kv_mode = item.get("kv-offloading", "none")
    backend = item.get("kv-offload-backend")
    spec = item.get("spec-decoding", "none")
    prefix = config["model-prefix"]
    rows = []
    if multinode:
        prefill, decode = item["prefill"], item["decode"]
        suffix = f"_{_kv_tag(kv_mode, backend)}" if kv_mode != "none" else ""
        for runner in scope.runners_for_rows:
            for conc in values:  # one allocation per concurrency
                row = _head(config, runner)
                row.update({
                    "spec-decoding": spec, "prefill": worker_with_defaults(prefill),
                    "decode": worker_with_defaults(decode),
                    "conc": [conc], "kv-offloading": kv_mode, "total-cpu-dram-gb": dram_gb,
                    "duration": AGENTIC_DURATION_SECONDS,
                    "exp-name": f"{prefix}_{_worker_tag(prefill, 'p')}_{_worker_tag(decode, 'd')}"
                                f"_conc{conc}{suffix}",
                    "disagg": config.get("disagg", False), "scenario-type": AGENTIC,
                })
                rows.append(_agentic_tail(row, backend, item, config))
        return rows
    tp = item["tp"]
    for conc in values:
        for runner in scope.runners_for_rows:
            row = _head(config, runner)
            row.update({
                "tp": tp, "pp": item.get("pp", 1), "dcp-size": item.get("dcp-size", 1),
                "pcp-size": item.get("pcp-size", 1), "ep": item.get("ep", 1),
                "dp-attn": item.get("dp-attn", False), "spec-decoding": spec, "conc": conc,
                "kv-offloading": kv_mode, "total-cpu-dram-gb": dram_gb,
                "duration": AGENTIC_DURATION_SECONDS,
                "exp-name": f"{prefix}_tp{tp}_conc{conc}_{_kv_tag(kv_mode, backend)}"
                            + (f"_spec-{spec}" if spec != "none" else ""),
                "scenario-type": AGENTIC,
            })
            rows.append(_agentic_tail(row, backend, item, config))
    return rows


def dram_offload_gb(block: dict, item: dict, runner: str, runners: Runners,
                    path: tuple = ()) -> int:
    """Host DRAM (GB) one agentic server may use for KV offload; 0 without offload."""
    if item.get("kv-offloading", "none") != "dram":
        return 0
    available = min(_hardware_int(runner, runners, "available-cpu-dram-mib", path), DRAM_CAP_MIB)
    gpus_per_node = _hardware_int(runner, runners, "gpus-per-node", path)
    from decimal import Decimal  # exact like the reference; only offloading rows need it

    utilization = Decimal(str(block["dram-utilization"]))
    if "prefill" in item:
        gpus = _replica_gpus_on_node(item["prefill"], gpus_per_node, path)
    else:
        gpus = item["tp"] * item.get("pp", 1) * item.get("pcp-size", 1)
        if gpus > gpus_per_node:
            raise GenerationError(path, (
                f"tp={item['tp']} with pp={item.get('pp', 1)} and "
                f"pcp-size={item.get('pcp-size', 1)} requires {gpus} GPUs and exceeds "
                f"gpus-per-node={gpus_per_node} for runner '{runner}'"))
    budget = Decimal(available) * 1024 * 1024 * utilization * gpus / gpus_per_node
    return int(budget / 1_000_000_000)


def worker_with_defaults(worker: dict) -> dict:
    """A fresh worker dict with pp / dcp-size / pcp-size filled in (default 1)."""
    filled = {**worker, "pp": worker.get("pp", 1), "dcp-size": worker.get("dcp-size", 1),
              "pcp-size": worker.get("pcp-size", 1)}
    if "additional-settings" in filled:
        filled["additional-settings"] = list(filled["additional-settings"])
    return filled


def _head(config: dict, runner: str) -> dict:
    return {"image": config["image"], "model": config["model"],
            "model-prefix": config["model-prefix"], "precision": config["precision"],
            "framework": config["framework"], "runner": runner}


def _components(item: dict, config: dict) -> dict:
    found = {}
    for field in ("router", "kv-p2p-transfer"):
        value = item.get(field, config.get(field))
        if value is not None:
            found[field] = dict(value) if isinstance(value, dict) else value
    return found


def _agentic_tail(row: dict, backend: dict | None, item: dict, config: dict) -> dict:
    if backend is not None:
        row["kv-offload-backend"] = dict(backend)
    row.update(_components(item, config))
    return row


def _kv_tag(mode: str, backend: dict | None) -> str:
    return "kvnone" if mode == "none" else f"kv{mode}-{backend['name']}"


def _worker_tag(worker: dict, role: str) -> str:
    tag = f"{role}{worker['num-worker']}x{worker['tp']}"
    if worker.get("ep", 1) != 1:
        tag += f"ep{worker['ep']}"
    if worker.get("dp-attn", False):
        tag += "dpa"
    return tag


def _hardware_int(runner: str, runners: Runners, field: str, path: tuple) -> int:
    value = runners.hardware.get(runner, {}).get(field)
    if value is None:
        known = ", ".join(sorted(runners.hardware))
        raise GenerationError(path, f"Runner '{runner}' requires '{field}' in runner hardware "
                                    f"metadata. Available hardware keys: {known}")
    return value


def _replica_gpus_on_node(worker: dict, gpus_per_node: int, path: tuple) -> int:
    replica = worker["tp"] * worker.get("pp", 1) * worker.get("pcp-size", 1)
    if replica > gpus_per_node:
        if replica % gpus_per_node:
            raise GenerationError((*path, "prefill"), (
                f"worker tp*pp*pcp-size={replica} spans multiple nodes but is not a multiple "
                f"of gpus-per-node={gpus_per_node}"))
        return gpus_per_node
    if gpus_per_node % replica:
        raise GenerationError((*path, "prefill"), (
            f"worker tp*pp*pcp-size={replica} does not divide gpus-per-node={gpus_per_node} "
            "evenly"))
    return replica


def raise_located(configs, key: str, error: GenerationError) -> None:
    """Re-raise a GenerationError as an InfxError naming file, line and key."""
    raise InfxError(configs.locate(key, error.path, f"config '{key}': {error}",
                                   fix="fix the topology or the runner hardware record")) from None
