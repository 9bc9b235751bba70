"""Realistic raw outputs of a benchmark job, for tests that stand in for the GPU.

`bench_serving` is shaped like the JSON the serving benchmark client writes (vLLM's
`benchmark_serving.py --save-result`: throughputs in tokens/s, latencies in ms, percentiles
requested with --metric-percentiles); `lm_eval` like lm-evaluation-harness's results file.
`write_raw` writes what a job's container leaves in INFX_RAW_DIR for one plan row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def bench_serving(conc: int, *, gpus: int = 8, tok_per_gpu: float = 1500.0, isl: int = 8192,
                  osl: int = 1024, window: tuple[float, float] | None = None) -> dict[str, Any]:
    total = tok_per_gpu * gpus
    output = total * osl / (isl + osl)
    tpot = 1000.0 * conc / max(output, 1.0)
    e2el = (osl * tpot) + 250.0
    data: dict[str, Any] = {
        "date": "20260929-101500", "backend": "openai-chat", "max_concurrency": conc,
        "num_prompts": conc * 10, "completed": conc * 10, "duration": 600.0,
        "total_input_tokens": conc * 10 * isl, "total_output_tokens": conc * 10 * osl,
        "request_throughput": conc * 10 / 600.0, "request_goodput": None,
        "output_throughput": output, "total_token_throughput": total,
        "input_throughput": total - output,
    }
    if window is not None:  # the measurement window's unix times, as the reference's client writes them
        data |= {"benchmark_start_time_unix": window[0], "benchmark_end_time_unix": window[1],
                 "duration": window[1] - window[0]}
    for metric, base in (("ttft", 250.0), ("tpot", tpot), ("itl", tpot), ("e2el", e2el)):
        data.update({f"mean_{metric}_ms": base, f"median_{metric}_ms": base * 0.98,
                     f"std_{metric}_ms": base * 0.05, f"p75_{metric}_ms": base * 1.05,
                     f"p90_{metric}_ms": base * 1.1, f"p99_{metric}_ms": base * 1.3})
    return data


def lm_eval(task: str = "gsm8k", score: float = 0.95, n: int = 1319, *,
            error: dict | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "results": {task: {"alias": task, "exact_match,strict-match": score,
                           "exact_match_stderr,strict-match": 0.006,
                           "exact_match,flexible-extract": min(score + 0.01, 1.0),
                           "exact_match_stderr,flexible-extract": 0.006}},
        "n-samples": {task: {"original": n, "effective": n}},
        "config": {"model": "local-chat-completions", "batch_size": 1},
        "git_hash": "0d1ba7e", "date": 1790000000.0,
    }
    if error is not None:
        data["integration_error"] = error
    return data


def write_raw(raw_dir: Path, row: dict[str, Any], *, score: float = 0.95,
              window: tuple[float, float] | None = None) -> list[Path]:
    """What the container leaves for a plan row: one client JSON per concurrency, or lm-eval files."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    if row.get("eval-only"):
        concs = row["conc"] if row.get("eval-all-concs") else [row.get("eval-conc", row.get("conc"))]
        concs = [c[0] if isinstance(c, list) else c for c in concs]
        paths = []
        for conc in concs:
            suffix = f"_conc{conc}" if row.get("eval-all-concs") else ""
            path = raw_dir / "gsm8k" / f"results_2026-09-29T10-15-00{suffix}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(lm_eval(score=score)))
            paths.append(path)
        return paths
    concs = row["conc"] if isinstance(row["conc"], list) else [row["conc"]]
    paths = []
    for conc in concs:
        path = raw_dir / f"benchmark_conc{conc}.json"
        path.write_text(json.dumps(bench_serving(conc, isl=row.get("isl") or 8192, osl=row.get("osl") or 1024,
                                                 window=window)))
        paths.append(path)
    return paths
