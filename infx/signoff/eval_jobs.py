"""Eval rows rebuilt from per-job `eval_*` artifacts, and the batched-eval manifest rule (pure)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from infx.signoff.model import Artifact

META_FILE = "meta_env.json"
NOT_JOB_ARTIFACTS = ("eval_results_all", "eval_server_logs_", "eval_gpu_metrics_")
_RESULTS = re.compile(r"(?:^|/)results[^/]*\.json$")
_CONC = re.compile(r"_conc(\d+)\.json$")
# lm-eval metric keys -> our score names, in the order the primary score is chosen
_METRICS = (("em_strict", ("exact_match,strict-match", "em_strict")),
            ("accuracy", ("acc,none", "accuracy", "acc")),
            ("em_flexible", ("exact_match,flexible-extract", "em_flexible")))


def is_job_artifact(name: str) -> bool:
    """A raw per-job eval artifact (not the aggregate, server logs or GPU metrics)."""
    return name.startswith("eval_") and not name.startswith(NOT_JOB_ARTIFACTS)


@dataclass(frozen=True)
class JobEvals:
    """One eval job's artifact: its identity (meta_env.json) and the rows of its result files."""

    artifact: str
    meta: dict[str, Any]
    rows: tuple[dict[str, Any], ...]
    file_concs: frozenset[int]  # concurrencies that have a `*_conc<N>.json` result file

    @property
    def batched(self) -> bool:
        return "eval_concs" in self.meta


def read_job(artifact: Artifact) -> JobEvals | str:
    """The job's rows, or why the artifact cannot be used (expired, unreadable, malformed)."""
    if artifact.expired:
        return f"the eval artifact {artifact.name} has expired; re-run the evals."
    if artifact.files is None:
        return f"the eval artifact {artifact.name} could not be downloaded."
    meta = _json(artifact.files.get(META_FILE))
    if not isinstance(meta, dict):
        return f"{artifact.name} has no valid {META_FILE} (a JSON object is required)."
    rows: list[dict[str, Any]] = []
    concs: set[int] = set()
    for name in sorted(artifact.files):
        if not _RESULTS.search(name):
            continue
        data = _json(artifact.files[name])
        if not isinstance(data, dict):
            return f"{artifact.name}/{name} is not a JSON object of lm-eval results."
        conc = _conc_of(name)
        if conc is not None:
            concs.add(conc)
        rows += rows_of(data, meta, f"{artifact.name}/{name}", conc)
    if not rows:
        return f"{artifact.name} holds no eval result (no results*.json with a task)."
    return JobEvals(artifact.name, meta, tuple(rows), frozenset(concs))


def _json(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None


def _conc_of(filename: str) -> int | None:
    match = _CONC.search(filename)
    return int(match.group(1)) if match else None


def rows_of(data: dict[str, Any], meta: dict[str, Any], source: str,
            conc: int | None = None) -> list[dict[str, Any]]:
    """One row per task of an lm-eval result file, shaped like an `agg_eval_all.json` row."""
    results = data.get("results")
    if not isinstance(results, dict):
        return []
    samples = data.get("n-samples") if isinstance(data.get("n-samples"), dict) else None
    error = data.get("integration_error") or None
    rows = []
    for task in sorted(results):
        metrics = results[task] if isinstance(results[task], dict) else {}
        scores = {name: _metric(metrics, keys) for name, keys in _METRICS}
        score_name = next((name for name, value in scores.items() if value is not None), None)
        score = scores[score_name] if score_name else None
        n_eff, sample_error = _effective(samples, task)
        row_error = error or sample_error
        valid = row_error is None and _unit_interval(score)
        rows.append({
            "model_prefix": meta.get("infmax_model_prefix") or meta.get("model_prefix"),
            "hw": str(meta.get("hw") or meta.get("runner") or "").upper(),
            "framework": str(meta.get("framework") or "").lower(),
            "precision": str(meta.get("precision") or "").lower(),
            "conc": conc if conc is not None else meta.get("conc"),
            "task": task, "score": score, "score_name": score_name,
            "em_strict": scores["em_strict"], "em_flexible": scores["em_flexible"],
            "n_eff": n_eff, "infrastructure_success": valid, "integration_error": row_error,
            "image": meta.get("image"), "source": source,
        })
    return rows


def _metric(metrics: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in metrics:
            return metrics[key]
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


def manifest_problem(job: JobEvals, narrowed: frozenset[int] | None = None) -> str | None:
    """A batched job must complete every requested concurrency, fail none, and add none.

    ``narrowed`` is the changelog's `eval-concs` for this job's config: it replaces the
    job's own request as the expected set.
    """
    if not job.batched:
        return None
    lists = {name: job.meta.get(name, []) for name in
             ("eval_concs", "completed_eval_concs", "failed_eval_concs")}
    for name, value in lists.items():
        if not isinstance(value, list) or not all(isinstance(c, int) and not isinstance(c, bool)
                                                  for c in value):
            return f"{job.artifact}/{META_FILE}: {name} is not a list of integer concurrencies."
    if lists["failed_eval_concs"]:
        return (f"{job.artifact}: batched eval concurrencies {sorted(lists['failed_eval_concs'])} "
                "failed; re-run the evals.")
    expected = narrowed if narrowed is not None else frozenset(lists["eval_concs"])
    completed = frozenset(lists["completed_eval_concs"])
    missing = sorted(c for c in expected if c not in completed or c not in job.file_concs)
    if missing:
        return (f"{job.artifact}: requested eval concurrencies {missing} have no completed "
                f"`*_conc<N>.json` result; the batch is incomplete.")
    extras = sorted((completed | job.file_concs) - expected)
    if extras:
        return (f"{job.artifact}: unexpected eval concurrencies {extras} beyond the requested "
                f"{sorted(expected)}.")
    return None
