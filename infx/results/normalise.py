"""The one normaliser of job results: raw benchmark output and lm-eval files into schema rows.

Benchmark rows are made at the end of each benchmark job (``benchmark_rows``) from the
client's raw JSON; eval rows are rebuilt from an eval job's files (``eval_job``), by
``infx workflow collect`` and by the sign-off bot's per-job fallback alike. Both row kinds
are documented as JSON Schemas in ``infx/results/schemas/`` and checked with ``check_rows``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from infx.plan import identity
from infx.plan.gpus import row_gpus, worker_gpus
from infx.results import power
from infx.schemas import schema_problems

BENCHMARK, EVAL = "benchmark", "eval"
META_FILE = "meta_env.json"
NOT_JOB_ARTIFACTS = ("eval_results_all", "eval_server_logs_", "eval_gpu_metrics_")
_RESULTS = re.compile(r"(?:^|/)results[^/]*\.json$")
_CONC = re.compile(r"_conc(\d+)\.json$")
# lm-eval metric keys -> our score names, in the order the primary score is chosen
_METRICS = (("em_strict", ("exact_match,strict-match", "em_strict")),
            ("accuracy", ("acc,none", "accuracy", "acc")),
            ("em_flexible", ("exact_match,flexible-extract", "em_flexible")))
_LATENCY = re.compile(r"^(mean|median|std|p\d{1,2}(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")


class ResultError(ValueError):
    """Raw results that cannot be normalised (the message names what is wrong)."""


# --- schemas ------------------------------------------------------------------------------------


@cache
def schema(kind: str) -> dict:
    """The packaged JSON Schema of a row kind (`benchmark` or `eval`)."""
    text = resources.files("infx.results").joinpath(f"schemas/{kind}-row.schema.json").read_text("utf-8")
    return json.loads(text)


def row_problem(row: Any, kind: str) -> str | None:
    """Why ``row`` is not a valid row of ``kind`` (first schema error), or None."""
    if not isinstance(row, dict):
        return f"a {kind} row must be a JSON object, not {type(row).__name__}"
    problems = schema_problems(schema(kind), row, file=f"{kind} row", fix="")
    if not problems:
        return None
    first = problems[0]
    return f"{first.key + ': ' if first.key else ''}{first.message}"


# --- benchmark rows -----------------------------------------------------------------------------


def _int(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _identity_fields(row: Mapping[str, Any], runner_name: str, result_name: str) -> dict[str, Any]:
    agentic = row.get("scenario-type") == "agentic-coding"
    out: dict[str, Any] = {
        "identity": identity.result_slug(row), "job_name": identity.job_name(row),
        "result_name": result_name, "runner_name": runner_name, "hw": row.get("runner"),
        "image": row.get("image"), "model": row.get("model"),
        "infmax_model_prefix": row.get("model-prefix"), "framework": row.get("framework"),
        "precision": row.get("precision"), "spec_decoding": row.get("spec-decoding", "none"),
        "disagg": bool(row.get("disagg", False)),
        "isl": None if agentic else row.get("isl"), "osl": None if agentic else row.get("osl"),
    }
    for field, name in (("recipe-fingerprint", "recipe_fingerprint"), (identity.FINGERPRINT_FIELD, identity.FINGERPRINT_FIELD),
                        ("router", "router"), ("kv-p2p-transfer", "kv_p2p_transfer")):
        if row.get(field) is not None:
            out[name] = row[field]
    if agentic:
        out["scenario_type"] = "agentic-coding"
        out["kv_offloading"] = row.get("kv-offloading", "none")
        if isinstance(row.get("kv-offload-backend"), Mapping):
            out["kv_offload_backend"] = dict(row["kv-offload-backend"])
    prefill, decode = row.get("prefill"), row.get("decode")
    if isinstance(prefill, Mapping) and isinstance(decode, Mapping):
        out["is_multinode"] = True
        for side, parts in (("prefill", prefill), ("decode", decode)):
            out.update({f"{side}_tp": _int(parts.get("tp")), f"{side}_pp": _int(parts.get("pp")),
                        f"{side}_dcp_size": _int(parts.get("dcp-size")),
                        f"{side}_pcp_size": _int(parts.get("pcp-size")), f"{side}_ep": _int(parts.get("ep")),
                        f"{side}_dp_attention": parts.get("dp-attn") is True,
                        f"{side}_num_workers": _int(parts.get("num-worker"))})
            if parts.get("hardware"):
                out[f"{side}_hw"] = parts["hardware"]
        out["num_prefill_gpu"] = worker_gpus(prefill, workers=True)
        out["num_decode_gpu"] = worker_gpus(decode, workers=True)
        if not out["num_decode_gpu"]:  # a prefill-only layout: no decode parallelism, as the reference writes it
            out.update(decode_tp=0, decode_ep=0, decode_pp=1, decode_dcp_size=1, decode_pcp_size=1)
        out["num_gpus"] = out["num_prefill_gpu"] + out["num_decode_gpu"]
    else:
        out["is_multinode"] = False
        out.update({"tp": _int(row.get("tp")), "pp": _int(row.get("pp")),
                    "dcp_size": _int(row.get("dcp-size")), "pcp_size": _int(row.get("pcp-size")),
                    "ep": _int(row.get("ep")), "dp_attention": row.get("dp-attn") is True})
        out["num_gpus"] = row_gpus(row)
    return out


def _number(raw: Mapping[str, Any], key: str, source: str) -> float:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ResultError(f"{source}: `{key}` must be a non-negative number, got {value!r}")
    return float(value)


def _denominators(base: Mapping[str, Any]) -> tuple[int, int, int]:
    """(all GPUs, GPUs producing input tokens, GPUs producing output tokens) of a result row.

    As the reference: a multi-node row divides output throughput by its decode GPUs and input
    throughput by its prefill GPUs. A side with no GPUs (a prefill-only layout, decode
    ``num-worker: 0``) produced nothing itself; its tokens came from the row's other GPUs,
    so that figure is divided by all of them.
    """
    total = base["num_gpus"]
    if not base.get("is_multinode"):
        return total, total, total
    return total, base["num_prefill_gpu"] or total, base["num_decode_gpu"] or total


def _metrics(raw: Mapping[str, Any], gpus: tuple[int, int, int], source: str) -> dict[str, Any]:
    """Throughput per GPU (total, input, output) and every latency in seconds, plus intvty."""
    output = _number(raw, "output_throughput", source)
    if "total_token_throughput" in raw:
        total = _number(raw, "total_token_throughput", source)
        given_input = raw.get("input_throughput")
        inputs = _number(raw, "input_throughput", source) if given_input is not None else max(total - output, 0.0)
    else:
        inputs = _number(raw, "input_throughput", source)
        total = inputs + output
    all_gpus, input_gpus, output_gpus = gpus
    out: dict[str, Any] = {"tput_per_gpu": total / all_gpus, "input_tput_per_gpu": inputs / input_gpus,
                           "output_tput_per_gpu": output / output_gpus}
    if "request_throughput" in raw:
        out["request_throughput"] = _number(raw, "request_throughput", source)
    if isinstance(raw.get("completed"), int) and not isinstance(raw.get("completed"), bool):
        out["completed"] = raw["completed"]
    if "duration" in raw:
        out["duration"] = _number(raw, "duration", source)
    for key in sorted(raw):
        match = _LATENCY.match(key)
        if not match:
            continue
        stat, metric = match.groups()
        millis = _number(raw, key, source)
        out[f"{stat}_{metric}"] = millis / 1000.0
        if metric == "tpot" and millis > 0:
            out[f"{stat}_intvty"] = 1000.0 / millis
    if "median_e2el" not in out:
        raise ResultError(f"{source}: no `median_e2el_ms` latency (the benchmark client must report "
                          "end-to-end latency percentiles)")
    return out


def benchmark_rows(row: Mapping[str, Any], runs: Mapping[str, Any], runner_name: str,
                   result_name: str, power_nodes: list[power.NodeSamples] | None = None,
                   prefill_nodes: int = 0) -> list[dict[str, Any]]:
    """One schema row per concurrency of the job's plan row.

    ``runs`` maps a raw result file name to its parsed JSON (the benchmark client's output,
    one file per concurrency; the concurrency is the file's `max_concurrency`, else the
    `_conc<N>` in its name, else the row's only concurrency). Every planned concurrency
    must have exactly one result and no other may appear. With ``power_nodes`` (the job's GPU
    power samples per node; ``prefill_nodes`` of them serve prefill on a multi-node row) each
    row gets the power fields of its measurement window (infx.results.power).
    """
    planned = row.get("conc") if isinstance(row.get("conc"), list) else [row.get("conc")]
    if not planned or not all(isinstance(c, int) and not isinstance(c, bool) for c in planned):
        raise ResultError(f"the plan row has no integer concurrency: {row.get('conc')!r}")
    base = _identity_fields(row, runner_name, result_name)
    found: dict[int, dict[str, Any]] = {}
    for name in sorted(runs):
        raw = runs[name]
        if not isinstance(raw, Mapping):
            raise ResultError(f"{name}: the benchmark result is not a JSON object")
        conc = raw.get("max_concurrency")
        if not isinstance(conc, int) or isinstance(conc, bool):
            match = _CONC.search(name)
            conc = int(match.group(1)) if match else (planned[0] if len(set(planned)) == 1 else None)
        if conc not in planned:
            raise ResultError(f"{name}: concurrency {conc!r} is not one the row planned ({planned})")
        if conc in found:
            raise ResultError(f"{name}: a second result for concurrency {conc}")
        found[conc] = {**base, "conc": conc, **_metrics(raw, _denominators(base), name)}
        if power_nodes is not None:
            roles = ((prefill_nodes, base["num_prefill_gpu"], base["num_decode_gpu"])
                     if base["is_multinode"] else None)
            found[conc] |= power.power_fields(raw, power_nodes, base["num_gpus"], roles)
    missing = sorted(set(planned) - set(found))
    if missing:
        raise ResultError(f"no benchmark result for concurrency {missing} of {base['job_name']}")
    rows = [found[c] for c in sorted(found)]
    for out in rows:
        problem = row_problem(out, BENCHMARK)
        if problem:
            raise ResultError(f"the normalised row for concurrency {out['conc']} breaks the schema: {problem}")
    return rows


def eval_meta(row: Mapping[str, Any], runner_name: str) -> dict[str, Any]:
    """The `meta_env.json` an eval job writes next to its lm-eval results: who was evaluated."""
    conc = row.get("eval-conc", row.get("conc"))
    meta: dict[str, Any] = {
        "infmax_model_prefix": row.get("model-prefix"), "model": row.get("model"),
        "hw": row.get("runner"), "runner_name": runner_name, "framework": row.get("framework"),
        "precision": row.get("precision"), "image": row.get("image"),
        "spec_decoding": row.get("spec-decoding", "none"),
        "isl": row.get("isl"), "osl": row.get("osl"),
        "identity": identity.result_slug(row), "job_name": identity.job_name(row),
    }
    if row.get(identity.FINGERPRINT_FIELD) is not None:
        meta[identity.FINGERPRINT_FIELD] = row[identity.FINGERPRINT_FIELD]
    prefill, decode = row.get("prefill"), row.get("decode")
    if isinstance(prefill, Mapping) and isinstance(decode, Mapping):
        meta["is_multinode"] = True
        dpa = {side: parts.get("dp-attn") is True for side, parts in (("prefill", prefill), ("decode", decode))}
        meta["dp_attention"] = (str(dpa["prefill"]).lower() if dpa["prefill"] == dpa["decode"]
                                else f"prefill={str(dpa['prefill']).lower()},decode={str(dpa['decode']).lower()}")
        if row.get("eval-all-concs") and isinstance(row.get("conc"), list):
            meta["eval_concs"] = list(row["conc"])
        else:
            meta["conc"] = conc[0] if isinstance(conc, list) and len(conc) == 1 else conc
    else:
        meta.update(is_multinode=False, tp=_int(row.get("tp")), ep=_int(row.get("ep")),
                    dp_attention=str(row.get("dp-attn") is True).lower(), conc=conc)
    return meta


# --- eval rows ----------------------------------------------------------------------------------


def is_eval_job_artifact(name: str) -> bool:
    """A raw per-job eval artifact (not the aggregate, server logs or GPU metrics)."""
    return name.startswith("eval_") and not name.startswith(NOT_JOB_ARTIFACTS)


@dataclass(frozen=True)
class EvalJob:
    """One eval job's files: its identity (meta_env.json) and the rows of its result files."""

    name: str
    meta: dict[str, Any]
    rows: tuple[dict[str, Any], ...]
    file_concs: frozenset[int]  # concurrencies that have a `*_conc<N>.json` result file

    @property
    def batched(self) -> bool:
        return "eval_concs" in self.meta

    @property
    def artifact(self) -> str:
        return self.name


def result_conc(path: str) -> int | None:
    """The concurrency of a batched lm-eval result file (`results*_conc<N>.json`), else None."""
    match = _CONC.search(path) if _RESULTS.search(path) else None
    return int(match.group(1)) if match else None


BATCH_LISTS = ("eval_concs", "completed_eval_concs", "failed_eval_concs")


def batch_manifest(requested: list[int], file_concs: frozenset[int]) -> dict[str, list[int]]:
    """The manifest of a batched eval job from what it left: a requested concurrency with a
    `*_conc<N>.json` result completed, one without failed (`meta_env.json`'s three lists)."""
    return {"eval_concs": list(requested),
            "completed_eval_concs": sorted({c for c in requested if c in file_concs}),
            "failed_eval_concs": sorted({c for c in requested if c not in file_concs})}


def batch_problem(job: EvalJob, *, complete: bool = False,
                  narrowed: frozenset[int] | None = None) -> str | None:
    """Why a batched job's manifest is refused, or None: the one batch rule of collection and
    the sign-off (a job without `eval_concs` is not batched and has none).

    Always: the three lists are positive integer concurrencies (`completed_eval_concs` defaults
    to the requested ones, as the reference reads a manifest without it), no point failed, and
    every completed point was requested and has its `*_conc<N>.json` result. With `complete`
    (the sign-off) the batch must also be whole: every expected point (the request, or
    `narrowed`, the changelog's `eval-concs` that replace it) completed with its result, and no
    completed point or result file beyond them.
    """
    if not job.batched:
        return None
    lists: dict[str, Any] = {name: job.meta.get(name, job.meta.get("eval_concs") if name == BATCH_LISTS[1] else [])
                             for name in BATCH_LISTS}
    for name, value in lists.items():
        if not isinstance(value, list) or not all(isinstance(c, int) and not isinstance(c, bool) and c > 0
                                                  for c in value):
            return f"{job.artifact}/{META_FILE}: {name} is not a list of positive integer concurrencies."
    if lists["failed_eval_concs"]:
        return (f"{job.artifact}: the batch says eval concurrencies {sorted(set(lists['failed_eval_concs']))} "
                "failed; its results are incomplete, re-run the evals.")
    completed = frozenset(lists["completed_eval_concs"])
    unrequested = sorted(completed - set(lists["eval_concs"]))
    if unrequested:
        return f"{job.artifact}: completed eval concurrencies {unrequested} were not requested ({lists['eval_concs']})."
    without_file = sorted(completed - job.file_concs)
    if without_file:
        return f"{job.artifact}: completed eval concurrencies {without_file} have no *_conc<N>.json result."
    if not complete:
        return None
    expected = narrowed if narrowed is not None else frozenset(lists["eval_concs"])
    missing = sorted(expected - completed)
    if missing:
        return (f"{job.artifact}: requested eval concurrencies {missing} have no completed "
                "*_conc<N>.json result; the batch is incomplete.")
    extras = sorted((completed | job.file_concs) - expected)
    if extras:
        return (f"{job.artifact}: unexpected eval concurrencies {extras} beyond the requested "
                f"{sorted(expected)}.")
    return None


def collected_rows(job: EvalJob) -> list[dict[str, Any]] | str:
    """The rows of a job that belong in the sweep's eval aggregate, or why the job is refused.

    As the reference collects them: a batched job contributes only its completed concurrencies
    (`completed_eval_concs`, the requested ones when absent). Unlike the reference, a job that
    `batch_problem` refuses (a failed point, an inconsistent manifest) contributes nothing.
    """
    if not job.batched:
        return list(job.rows)
    problem = batch_problem(job)
    if problem is not None:
        return problem
    completed = set(job.meta.get("completed_eval_concs", job.meta["eval_concs"]))
    return [row for row in job.rows if row.get("conc") in completed]


def _json(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None


def eval_job(name: str, files: Mapping[str, bytes]) -> EvalJob | str:
    """The rows of one eval job's files (path -> bytes), or why they cannot be used."""
    meta = _json(files.get(META_FILE))
    if not isinstance(meta, dict):
        return f"{name} has no valid {META_FILE} (a JSON object is required)."
    rows: list[dict[str, Any]] = []
    concs: set[int] = set()
    for path in sorted(files):
        if not _RESULTS.search(path):
            continue
        data = _json(files[path])
        if not isinstance(data, dict):
            return f"{name}/{path} is not a JSON object of lm-eval results."
        conc = result_conc(path)
        if conc is not None:
            concs.add(conc)
        rows += eval_rows(data, meta, f"{name}/{path}", conc)
    if not rows:
        return f"{name} holds no eval result (no results*.json with a task)."
    return EvalJob(name, meta, tuple(rows), frozenset(concs))


_META_COPIED = ("model", "runner_name", "spec_decoding", "isl", "osl", "tp", "ep", "is_multinode",
                "dp_attention", "identity", "job_name", identity.FINGERPRINT_FIELD)


def eval_rows(data: dict[str, Any], meta: dict[str, Any], source: str,
              conc: int | None = None) -> list[dict[str, Any]]:
    """One row per task of an lm-eval result file, shaped like an `agg_eval_all.json` row."""
    results = data.get("results")
    if not isinstance(results, dict):
        return []
    samples = data.get("n-samples") if isinstance(data.get("n-samples"), dict) else None
    error = _error(data.get("integration_error"))
    rows = []
    for task in sorted(results):
        metrics = results[task] if isinstance(results[task], dict) else {}
        scores = {name: _metric(metrics, keys) for name, keys in _METRICS}
        score_name = next((name for name, value in scores.items() if value is not None), None)
        score = scores[score_name] if score_name else None
        n_eff, sample_error = _effective(samples, task)
        row_error = error or sample_error
        valid = row_error is None and _unit_interval(score)
        row = {
            "model_prefix": meta.get("infmax_model_prefix") or meta.get("model_prefix"),
            "hw": str(meta.get("hw") or meta.get("runner") or "").upper(),
            "framework": str(meta.get("framework") or "").lower(),
            "precision": str(meta.get("precision") or "").lower(),
            "conc": conc if conc is not None else meta.get("conc"),
            "task": task, "score": score, "score_name": score_name,
            "em_strict": scores["em_strict"], "em_flexible": scores["em_flexible"],
            "n_eff": n_eff, "infrastructure_success": valid, "integration_error": row_error,
            "image": meta.get("image"), "source": source,
        }
        row.update({key: meta[key] for key in _META_COPIED if meta.get(key) is not None})
        rows.append(row)
    return rows


def _error(value: Any) -> dict[str, str] | None:
    """An lm-eval `integration_error` as {type, message} (None when there is none)."""
    if not value:
        return None
    if isinstance(value, dict):
        return {"type": str(value.get("type") or "IntegrationError"), "message": str(value.get("message") or "")}
    return {"type": "IntegrationError", "message": str(value)}


def _metric(metrics: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The first reported key's value; a reported non-number is kept as NaN (present, invalid)."""
    for key in keys:
        if key in metrics and metrics[key] is not None:
            value = metrics[key]
            return value if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    return None


def _unit_interval(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and 0.0 <= value <= 1.0)


def _effective(samples: dict[str, Any] | None, task: str) -> tuple[Any, dict[str, str] | None]:
    """(n_eff, error): a declared sample count needs a positive finite effective count."""
    if samples is None or task not in samples:
        return None, None
    counts = samples[task] if isinstance(samples[task], dict) else {}
    effective = counts.get("effective")
    if (isinstance(effective, bool) or not isinstance(effective, (int, float))
            or not math.isfinite(effective) or effective <= 0):
        return 0, {"type": "InvalidEffectiveSampleCount",
                   "message": f"n-samples.{task}.effective is {effective!r}"}
    return effective, None
