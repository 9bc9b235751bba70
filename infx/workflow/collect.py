"""Aggregate the per-job result artifacts of a sweep into schema rows (agg_bmk.json / agg_eval_all.json).

`collect` reads one directory per downloaded artifact. Benchmark artifacts (`bmk_*`) hold
rows the job already normalised; eval artifacts (`eval_*`) hold meta_env.json and lm-eval
files, turned into rows by the same normaliser the sign-off bot's per-job fallback uses.
Anything that is not a row, and an empty or missing input, is an error: a sweep whose
results cannot be collected must not look collected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infx import inert
from infx.errors import InfxError, Problem
from infx.results import normalise

KINDS = (normalise.BENCHMARK, normalise.EVAL)
_PREFIX = {normalise.BENCHMARK: "bmk_", normalise.EVAL: "eval_"}


def _artifacts(directory: Path, kind: str) -> list[Path]:
    if not directory.is_dir():
        raise InfxError(Problem(f"the {kind} input folder does not exist", file=str(directory),
                                fix="download the job artifacts into it first"))
    found = sorted(p for p in directory.iterdir() if p.is_dir() and p.name.startswith(_PREFIX[kind])
                   and (kind != normalise.EVAL or normalise.is_eval_job_artifact(p.name)))
    if not found:
        raise InfxError(Problem(f"no {_PREFIX[kind]}* artifact in the input folder: no {kind} job "
                                "uploaded a result", file=str(directory),
                                fix="check the sweep's jobs; collect runs only after they upload"))
    return found


def _files(artifact: Path) -> dict[str, bytes]:
    return {p.relative_to(artifact).as_posix(): p.read_bytes()
            for p in sorted(artifact.rglob("*")) if p.is_file() and not p.is_symlink()}


def benchmark_rows(directory: Path) -> list[dict[str, Any]]:
    """Every row of every `bmk_*` artifact; each file must be a row or an array of rows."""
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, int], str] = {}
    for artifact in _artifacts(directory, normalise.BENCHMARK):
        files = sorted(p for p in artifact.rglob("*.json") if p.is_file())
        if not files:
            raise InfxError(Problem(f"artifact {artifact.name} holds no result file", file=str(artifact),
                                    fix="check the benchmark job's Launch step"))
        for path in files:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise InfxError(Problem(f"result file is not valid JSON: {exc}", file=str(path),
                                        fix="check the job that produced this artifact")) from None
            for index, row in enumerate(data if isinstance(data, list) else [data]):
                problem = normalise.row_problem(row, normalise.BENCHMARK)
                if problem:
                    raise InfxError(Problem(f"row {index} is not a benchmark row: {problem}", file=str(path),
                                            fix="only normalised rows (infx/results/schemas/"
                                                "benchmark-row.schema.json) belong in bmk_* artifacts"))
                key = (row["identity"], row["conc"])
                if key in seen:
                    raise InfxError(Problem(f"a second result for {row['job_name']} at concurrency "
                                            f"{row['conc']} (first in {seen[key]})", file=str(path),
                                            fix="re-run the sweep; one row must have one result"))
                seen[key] = str(path)
                rows.append(row)
    return sorted(rows, key=lambda r: (r["identity"], r["conc"]))


def eval_rows(directory: Path) -> list[dict[str, Any]]:
    """The rows of every per-job `eval_*` artifact, by the one eval normaliser."""
    rows: list[dict[str, Any]] = []
    for artifact in _artifacts(directory, normalise.EVAL):
        job = normalise.eval_job(artifact.name, _files(artifact))
        if isinstance(job, str):
            raise InfxError(Problem(job, file=str(artifact), fix="check the eval job's Launch step"))
        kept = normalise.collected_rows(job)
        if isinstance(kept, str):
            raise InfxError(Problem(kept, file=str(artifact), fix="re-run the eval job; only completed "
                                                                 "concurrencies of a complete batch are collected"))
        for row in kept:
            problem = normalise.row_problem(row, normalise.EVAL)
            if problem:
                raise InfxError(Problem(f"{row['source']} gives an invalid eval row: {problem}",
                                        file=str(artifact)))
            rows.append(row)
    return rows


def collect(directory: Path, kind: str) -> list[dict[str, Any]]:
    """The aggregate of one kind; never empty."""
    rows = benchmark_rows(directory) if kind == normalise.BENCHMARK else eval_rows(directory)
    if not rows:
        raise InfxError(Problem(f"no {kind} rows were collected", file=str(directory)))
    return rows


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else inert.cell(value, raw=True)


def summary(rows: list[dict[str, Any]], kind: str) -> str:
    """Markdown for the step summary: one line per row."""
    if kind == normalise.EVAL:
        lines = [f"### Evals ({len(rows)} rows)", "", "| job | conc | task | score | n | infrastructure |",
                 "|---|---:|---|---:|---:|---|"]
        for row in rows:
            state = "ok" if row["infrastructure_success"] else (
                (row["integration_error"] or {}).get("type") or "invalid")
            score = f"{_cell(row['score'])} ({_cell(row['score_name'])})" if row["score_name"] else "none"
            lines.append("| " + " | ".join(_cell(c) for c in (
                row.get("job_name") or row["source"], row["conc"], row["task"])) + f" | {score} | "
                + f"{_cell(row['n_eff'])} | {_cell(state)} |")
    else:
        lines = [f"### Benchmarks ({len(rows)} rows)", "",
                 "| job | conc | tok/s/GPU | in | out | median e2el (s) |", "|---|---:|---:|---:|---:|---:|"]
        for row in rows:
            lines.append("| " + " | ".join(_cell(c) for c in (
                row["job_name"], row["conc"], row["tput_per_gpu"], row["input_tput_per_gpu"],
                row["output_tput_per_gpu"], row["median_e2el"])) + " |")
    return "\n".join(lines) + "\n"
