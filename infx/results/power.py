"""GPU power samples of a benchmark job into the reference's power and energy fields of its rows (pure).

The launcher (runners/launch_mi355x-amds.sh) samples every GPU of each node it runs on at a
fixed interval while the benchmark container runs, with `amd-smi metric --power --csv`
(`rocm-smi --showpower --csv` when amd-smi is missing), into one samples file per node,
`power_node<rank>.samples` (node 0 alone on a single-node row). Each tick is a line
``# sample <unix time> <tool> <exit status>`` followed by the tool's CSV output; a node without
either tool writes ``# tool none``. Those files are the job's `power_*` artifact.

``power_fields`` integrates each GPU's samples over one benchmark result's measurement window
(`benchmark_start_time_unix` .. `benchmark_end_time_unix` of the client's JSON), trapezoids
with the window ends interpolated, as the reference does, and gives the reference's fields:
`power_metric_schema_version`, `power_valid` (1/0) and, when valid, average power and energy
of the whole deployment per successful query and per input, output and total token; a
multi-node row adds the prefill and decode roles' energy and power (nodes
0..PREFILL_NODE_COUNT-1 serve prefill, the others decode). An invalid measurement carries no
energy figure, and `power_invalid_reasons` names why (the reference's reason codes).
Power is best effort: an invalid measurement only fails the job when the row says
`require-power: true`.
"""

from __future__ import annotations

import csv
import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 2  # the reference's power_metric_schema_version (whole-deployment joules_per_*)
MAX_SAMPLE_GAP_S = 3.0
SAMPLES_PREFIX, SAMPLES_SUFFIX = "power_node", ".samples"
TOOLS = ("amd-smi", "rocm-smi")
WHOLE_KEYS = ("avg_power_w", "avg_total_gpu_power_w", "total_gpu_energy_j", "joules_per_successful_query",
              "joules_per_input_token", "joules_per_output_token", "joules_per_total_token")
ROLE_KEYS = ("prefill_gpu_energy_j", "prefill_avg_power_w", "prefill_joules_per_input_token",
             "decode_gpu_energy_j", "decode_avg_power_w", "decode_joules_per_output_token")
REASONS = {
    "telemetry_file_missing": "no power samples were written (the launcher did not sample this node)",
    "power_tool_missing": "neither amd-smi nor rocm-smi is on the node's PATH",
    "sample_command_failed": "a power sample command exited with an error",
    "invalid_timestamp_sample": "a sample has no valid time",
    "power_column_missing": "a sample has no GPU or power column",
    "invalid_power_sample": "a sample has a power value that is not a non-negative number",
    "no_usable_power_samples": "no GPU power value could be read",
    "invalid_benchmark_window": "the benchmark result has no valid benchmark_start/end_time_unix window",
    "invalid_successful_query_count": "the benchmark result has no positive `completed` count",
    "invalid_input_token_count": "the benchmark result has no positive `total_input_tokens`",
    "invalid_output_token_count": "the benchmark result has no positive `total_output_tokens`",
    "expected_gpu_count_mismatch": "the nodes reported a different number of GPUs than the row uses",
    "benchmark_window_not_bracketed": "the samples do not cover the whole measurement window",
    "sampling_gap_exceeded": f"two samples in the window are more than {MAX_SAMPLE_GAP_S:g} s apart",
}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_POWER_EXCLUDED = re.compile(r"limit|cap|max|min|management", re.IGNORECASE)
_GPU_COLUMNS = ("gpu", "device", "index", "card", "gpu_id")


def samples_name(rank: int) -> str:
    return f"{SAMPLES_PREFIX}{rank}{SAMPLES_SUFFIX}"


@dataclass
class NodeSamples:
    """One node's samples: (time, watts) per GPU, the tool used, and what was unusable: reason codes
    that always count, and (time, reason) of bad ticks, which count only near a measurement window."""

    rank: int
    tool: str | None = None
    by_gpu: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    bad_ticks: list[tuple[float, str]] = field(default_factory=list)

    def note(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)

    def problems(self, start: float, end: float) -> list[str]:
        """Reasons that matter for the window [start, end]: a bad tick a sample gap or less away
        could have changed it; one far outside (warm-up, shutdown) could not."""
        near = [r for t, r in self.bad_ticks if start - MAX_SAMPLE_GAP_S <= t <= end + MAX_SAMPLE_GAP_S]
        return list(dict.fromkeys(self.reasons + near))


def _columns(header: list[str]) -> tuple[int | None, int | None]:
    names = [h.strip().lower() for h in header]
    gpu = next((i for i, n in enumerate(names) if n in _GPU_COLUMNS), None)
    power = next((i for i, n in enumerate(names) if "power" in n and not _POWER_EXCLUDED.search(n)), None)
    return gpu, power


def _gpu_id(text: str) -> str:
    text = text.strip()
    return text[4:] if text.lower().startswith("card") and text[4:].isdigit() else text


def _watts(text: str) -> float | None:
    match = _NUMBER.fullmatch(text.strip().removesuffix("W").strip()) if text else None
    value = float(match.group(0)) if match else None
    return value if value is not None and math.isfinite(value) and value >= 0 else None


def parse_samples(text: str, rank: int) -> NodeSamples:
    """A node's samples file as NodeSamples; garbled, partial and failed ticks become reasons."""
    node = NodeSamples(rank)
    blocks: list[tuple[float | None, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# tool"):
            parts = line.split()
            node.tool = parts[2] if len(parts) > 2 and parts[2] != "none" else None
            if node.tool is None:
                node.note("power_tool_missing")
        elif line.startswith("# sample"):
            parts = line.split()
            when = _watts(parts[2]) if len(parts) > 2 else None
            if len(parts) > 3:
                node.tool = parts[3]
            if when is None:
                node.note("invalid_timestamp_sample")
            elif len(parts) < 5 or parts[4] != "0":
                node.bad_ticks.append((when, "sample_command_failed"))
                when = None
            blocks.append((when, []))
        elif blocks and line.strip():
            blocks[-1][1].append(line)
    for when, lines in blocks:
        if when is None:
            continue
        rows = list(csv.reader(lines))
        gpu_col, power_col = _columns(rows[0]) if rows else (None, None)
        if gpu_col is None or power_col is None:
            node.bad_ticks.append((when, "power_column_missing"))
            continue
        for cells in rows[1:]:
            gpu = _gpu_id(cells[gpu_col]) if len(cells) > gpu_col else ""
            watts = _watts(cells[power_col]) if len(cells) > power_col else None
            if not gpu or watts is None:
                node.bad_ticks.append((when, "invalid_power_sample"))
                continue
            node.by_gpu.setdefault(gpu, []).append((when, watts))
    return node


def _at(samples: list[tuple[float, float]], when: float) -> float:
    """Power at `when`, linear between the samples either side (samples bracket it)."""
    for (t0, p0), (t1, p1) in itertools.pairwise(samples):
        if t0 <= when <= t1:
            return p0 if t1 == t0 else p0 + (p1 - p0) * (when - t0) / (t1 - t0)
    raise ValueError("time outside the samples")


def gpu_energy(samples: list[tuple[float, float]], start: float, end: float) -> tuple[float | None, str | None]:
    """(joules over [start, end], None) or (None, reason) for one GPU's samples."""
    points = sorted(samples)
    if len(points) < 2 or points[0][0] > start or points[-1][0] < end:
        return None, "benchmark_window_not_bracketed"
    before = max(t for t, _ in points if t <= start)
    after = min(t for t, _ in points if t >= end)
    times = [t for t, _ in points if before <= t <= after]
    if max((b - a for a, b in itertools.pairwise(times)), default=0.0) > MAX_SAMPLE_GAP_S:
        return None, "sampling_gap_exceeded"
    inside = [(start, _at(points, start))] + [p for p in points if start < p[0] < end] + [(end, _at(points, end))]
    return sum((t1 - t0) * (p0 + p1) / 2 for (t0, p0), (t1, p1) in itertools.pairwise(inside)), None


def _counts(raw: Mapping[str, Any], reasons: list[str]) -> tuple[float, float, dict[str, int]]:
    start, end = raw.get("benchmark_start_time_unix"), raw.get("benchmark_end_time_unix")
    numbers = [v for v in (start, end) if isinstance(v, (int, float)) and not isinstance(v, bool)
               and math.isfinite(v)]
    if len(numbers) != 2 or end <= start:
        reasons.append("invalid_benchmark_window")
        start = end = math.nan
    counts = {}
    for key, reason in (("completed", "invalid_successful_query_count"),
                        ("total_input_tokens", "invalid_input_token_count"),
                        ("total_output_tokens", "invalid_output_token_count")):
        value = raw.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            reasons.append(reason)
        else:
            counts[key] = value
    return float(start), float(end), counts


def power_fields(raw: Mapping[str, Any], nodes: list[NodeSamples], gpus: int,
                 roles: tuple[int, int, int] | None = None) -> dict[str, Any]:
    """The power fields of one result row.

    ``raw`` is the benchmark client's result (window and counts), ``nodes`` every node's samples
    (none when the launcher wrote no file), ``gpus`` the GPUs the row uses, ``roles`` for a
    multi-node row (prefill nodes, prefill GPUs, decode GPUs).
    """
    reasons: list[str] = []
    start, end, counts = _counts(raw, reasons)
    if not nodes:
        reasons.append("telemetry_file_missing")
    for node in nodes:
        reasons += [r for r in node.problems(start, end) if r not in reasons]
    observed = {(node.rank, gpu): samples for node in nodes for gpu, samples in node.by_gpu.items()}
    if nodes and not observed and "power_tool_missing" not in reasons:
        reasons.append("no_usable_power_samples")
    if observed and len(observed) != gpus:
        reasons.append("expected_gpu_count_mismatch")
    energy: dict[tuple[int, str], float] = {}
    if not reasons:
        for key, samples in sorted(observed.items()):
            joules, problem = gpu_energy(samples, start, end)
            if joules is None:
                reasons.append(problem or "no_usable_power_samples")
            else:
                energy[key] = joules
    out: dict[str, Any] = {"power_metric_schema_version": SCHEMA_VERSION, "power_valid": int(not reasons)}
    if reasons:
        return out | {"power_invalid_reasons": list(dict.fromkeys(reasons))}
    duration, total = end - start, sum(energy.values())
    inputs, outputs = counts["total_input_tokens"], counts["total_output_tokens"]
    metrics = {"avg_power_w": total / duration / len(energy), "avg_total_gpu_power_w": total / duration,
               "total_gpu_energy_j": total, "joules_per_successful_query": total / counts["completed"],
               "joules_per_input_token": total / inputs, "joules_per_output_token": total / outputs,
               "joules_per_total_token": total / (inputs + outputs)}
    if roles is not None:
        prefill_nodes, prefill_gpus, decode_gpus = roles
        prefill = sum(j for (rank, _), j in energy.items() if rank < prefill_nodes)
        decode = total - prefill
        if prefill_gpus:
            metrics |= {"prefill_gpu_energy_j": prefill, "prefill_avg_power_w": prefill / duration / prefill_gpus,
                        "prefill_joules_per_input_token": prefill / inputs}
        if decode_gpus:
            metrics |= {"decode_gpu_energy_j": decode, "decode_avg_power_w": decode / duration / decode_gpus,
                        "decode_joules_per_output_token": decode / outputs}
    if not all(math.isfinite(v) for v in metrics.values()):
        return out | {"power_valid": 0, "power_invalid_reasons": ["non_finite_power_metric"]}
    return out | {k: round(v, 3 if k.endswith(("_w", "_j")) else 6) for k, v in metrics.items()}


def explain(reasons: list[str]) -> str:
    """The reason codes of an invalid measurement in words."""
    return "; ".join(f"{code} ({REASONS.get(code, 'see the power artifact')})" for code in reasons)


def tokens_per_joule(row: Mapping[str, Any]) -> float | None:
    """Total tokens per joule of a result row with a valid power measurement, else None."""
    per_token = row.get("joules_per_total_token")
    if row.get("power_valid") != 1 or isinstance(per_token, bool) or not isinstance(per_token, (int, float)):
        return None
    return 1.0 / per_token if math.isfinite(per_token) and per_token > 0 else None
