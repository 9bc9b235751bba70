"""A fake MI355X node for the loop tests: the `docker` the real launcher runs (tests only).

The loop puts this file on the PATH of every self-hosted job as `docker` (and
tests/lib/stub_slurm.py as `srun`/`scancel`/`scontrol`), so everything up to the container
is real: the workflow, `infx.workflow launch`, `runners/launch_mi355x-amds.sh` with its recipe
lookup, its docker options and, for a multi-node row, its Slurm path with one container per
node. `docker run` then does what the benchmark container does on a real node, in the folders
the launcher mounts (on a multi-node row only the head node, NODE_RANK 0, writes results):

- a fixed-sequence-length row: the serving benchmark's result JSON per concurrency,
  `benchmark_conc<N>.json` (token throughput, TTFT / TPOT / ITL / E2EL percentiles in
  milliseconds, request counts) in /results;
- an agentic row: the agentic harness's point result per concurrency (throughput and
  end-to-end latency percentiles);
- an eval row: lm-eval's `results_<timestamp>.json` and samples JSONL;
- a server log in /logs naming the recipe script and its sha256.

The recipe script the launcher chose must exist in the checkout mounted at /workspace.
A plan (JSON file named by $FAKE_GPU_PLAN) can make a row fail (non-zero exit after writing a
partial log, like a crashed server) or score an eval low. Each benchmark point lasts
$FAKE_GPU_SECONDS (default 0) and its result carries that measurement window's unix times; a
worker node keeps serving until the head node is done (its power samples cover the window). Rows are selected by a subset of
their fields, e.g. ``{"conc": 8, "tp": 4}``. Every call is appended to $FAKE_GPU_LOG as a JSON
line (argv, container env, mounts).
"""

from __future__ import annotations

import json
import os
import sys


def _record(argv: list[str]) -> int:
    """Any call but `docker run` (the launcher's `ps` for stale containers, `rm --force`): recorded."""
    with open(os.environ["FAKE_GPU_LOG"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"argv": argv}) + "\n")
    return 0  # ps (no stale containers), rm


if __name__ == "__main__" and sys.argv[1:] and sys.argv[1] != "run":
    sys.exit(_record(sys.argv[1:]))  # two of a row's three calls: without the imports `run` needs

import hashlib  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lib.stub_docker import parse_run  # noqa: E402

EVAL_TASKS = {"minimaxm3": "minimax_m3_full", "kimik3": "kimi_tool_call_full"}
TIMESTAMP = "2026-09-29T10-20-00.123456"


def matches(row: dict[str, Any], selector: dict[str, Any]) -> bool:
    return all(row.get(key) == value for key, value in selector.items())


def eval_task(row: dict[str, Any]) -> str:
    if row.get("scenario-type") == "agentic-coding":
        return EVAL_TASKS.get(str(row.get("model-prefix")), "bfcl_multi_turn")
    return "gsm8k"


def _conc(row: dict[str, Any]) -> int:
    conc = row.get("conc")
    if isinstance(conc, list):
        return int(conc[0]) if conc else 1
    return int(conc or 1)


def gpus(row: dict[str, Any]) -> int:
    if isinstance(row.get("prefill"), dict):
        sides = [row["prefill"], row["decode"]]
        return sum(int(s.get("tp", 1)) * int(s.get("num-worker", 1)) for s in sides)
    return int(row.get("tp") or 1) * int(row.get("pp") or 1)


def throughput_result(row: dict[str, Any], name: str, window: tuple[float, float] | None = None
                      ) -> dict[str, Any]:
    """The serving benchmark's own result file (milliseconds, whole-server throughput); with
    ``window``, the measurement window's unix times as the reference's client writes them."""
    conc = _conc(row)
    isl, osl = int(row.get("isl") or 1024), int(row.get("osl") or 1024)
    prompts = conc * 10
    duration = 60.0 + conc
    tpot = 8.0 + conc * 0.25
    ttft = 120.0 + conc * 6.0
    out_tokens, in_tokens = prompts * osl, prompts * isl
    result = {
        "date": "20260929-102000", "backend": "openai-chat" if row.get("spec-decoding") not in (None, "none")
        else "openai", "model_id": row.get("model"), "tokenizer_id": row.get("model"),
        "num_prompts": prompts, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
        "duration": duration, "completed": prompts, "failed": 0,
        "total_input_tokens": in_tokens, "total_output_tokens": out_tokens,
        "request_throughput": prompts / duration, "output_throughput": out_tokens / duration,
        "total_token_throughput": (in_tokens + out_tokens) / duration,
        "num_gpus": gpus(row), "result_name": name,
    }
    if window is not None:
        result |= {"benchmark_start_time_unix": window[0], "benchmark_end_time_unix": window[1]}
    for metric, base in (("ttft", ttft), ("tpot", tpot), ("itl", tpot * 0.97), ("e2el", ttft + tpot * osl)):
        result[f"mean_{metric}_ms"] = base
        result[f"median_{metric}_ms"] = base * 0.98
        result[f"std_{metric}_ms"] = base * 0.05
        for pct, factor in ((75, 1.05), (90, 1.12), (99, 1.3)):
            result[f"p{pct}_{metric}_ms"] = base * factor
    return result


def agentic_result(row: dict[str, Any], name: str) -> dict[str, Any]:
    conc = _conc(row)
    e2el = 40.0 + conc * 1.5
    return {
        "scenario_type": "agentic-coding", "result_name": name, "model_id": row.get("model"),
        "max_concurrency": conc, "sessions": conc * 4, "completed_sessions": conc * 4,
        "duration_s": float(row.get("duration") or 1200), "num_gpus": gpus(row),
        "total_token_throughput": 4000.0 * conc ** 0.5, "output_throughput": 900.0 * conc ** 0.5,
        "input_throughput": 3100.0 * conc ** 0.5, "kv_offloading": row.get("kv-offloading"),
        "median_e2el_ms": e2el * 1000 * 0.9, "p75_e2el_ms": e2el * 1000, "p90_e2el_ms": e2el * 1000 * 1.2,
        "median_ttft_ms": 300.0 + conc, "p90_ttft_ms": 450.0 + conc,
    }


def eval_files(row: dict[str, Any], score: float) -> dict[str, Any]:
    task = eval_task(row)
    n = 1319 if task == "gsm8k" else 102
    results = {
        "results": {task: {"alias": task, "exact_match,strict-match": score,
                           "exact_match_stderr,strict-match": 0.006,
                           "exact_match,flexible-extract": min(1.0, score + 0.004),
                           "exact_match_stderr,flexible-extract": 0.006}},
        "n-samples": {task: {"original": n, "effective": n}},
        "config": {"model": "local-chat-completions", "batch_size": _conc(row)},
        "versions": {task: 3.0}, "n-shot": {task: 5}, "date": 1790000000.0,
    }
    sample = {"doc_id": 0, "target": "72", "filtered_resps": ["72"], "exact_match": 1.0}
    return {f"results_{TIMESTAMP}.json": results,
            f"samples_{task}_{TIMESTAMP}.jsonl": json.dumps(sample) + "\n"}


def _container(argv: list[str]) -> int:
    """`docker run …`: play the row's benchmark in the mounted folders."""
    call = parse_run(argv)
    env, mounts, command = call["env"], call["mounts"], call["command"]
    with Path(os.environ["FAKE_GPU_LOG"]).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"argv": ["run", *argv], "env": {k: v for k, v in env.items() if k != "HF_TOKEN"},
                                 "mounts": mounts}) + "\n")
    if len(command) != 3 or command[1] != "bash" or not command[2].startswith("/workspace/"):
        print(f"fake node: unexpected container command {command}", file=sys.stderr)
        return 125
    recipe = Path(mounts["/workspace"]) / command[2].removeprefix("/workspace/")
    if not recipe.is_file():
        print(f"bash: {command[2]}: No such file or directory", file=sys.stderr)
        return 127
    row = json.loads(env["CONFIG_JSON"])
    name = env["RESULT_NAME"]
    raw, logs = Path(mounts["/results"]), Path(mounts["/logs"])
    rank = env.get("NODE_RANK", "0")
    digest = hashlib.sha256(recipe.read_bytes()).hexdigest()
    log = logs / (f"server_{name}.log" if rank == "0" else f"server_{name}_node{rank}.log")
    log.write_text(f"serving {row.get('model')} with {command[0]} on {env.get('INFX_RUNNER_NAME')} "
                   f"(node {rank} of {env.get('NUM_NODES', '1')})\nrecipe {command[2]} sha256 {digest}\n",
                   encoding="utf-8")
    done = raw / ".fake-benchmark-done"
    if rank != "0":  # a prefill or decode worker node serves until the head node's client is done
        deadline = time.time() + 60
        while not done.exists() and time.time() < deadline:
            time.sleep(0.05)
        return 0
    try:
        return _head(row, name, raw, log)
    finally:
        done.touch()


def _head(row: dict[str, Any], name: str, raw: Path, log: Path) -> int:
    """The head node (or the only one): the server and the benchmark client."""
    plan_file = os.environ.get("FAKE_GPU_PLAN")
    plan = json.loads(Path(plan_file).read_text(encoding="utf-8")) if plan_file else {}
    if any(matches(row, s) for s in plan.get("fail", [])):
        with log.open("a", encoding="utf-8") as handle:
            handle.write("RuntimeError: HIP error: out of memory\nserver exited with code 1\n")
        print(f"fake node: the server for {name} crashed", file=sys.stderr)
        return 1
    if row.get("eval-only"):
        low = any(matches(row, s) for s in plan.get("low_eval", []))
        score = 0.5 if low else (0.955 if eval_task(row) == "gsm8k" else 0.97)
        for filename, content in eval_files(row, score).items():
            text = content if isinstance(content, str) else json.dumps(content, indent=1)
            (raw / filename).write_text(text, encoding="utf-8")
    else:
        concs = row["conc"] if isinstance(row.get("conc"), list) else [row.get("conc")]
        for conc in concs:
            point = dict(row, conc=conc)
            start = time.time()
            time.sleep(float(os.environ.get("FAKE_GPU_SECONDS", "0")))  # the measurement window
            result = (agentic_result(point, name) if row.get("scenario-type") == "agentic-coding"
                      else throughput_result(point, name, (start, time.time())))
            (raw / f"benchmark_conc{conc}.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"fake node: wrote the raw results of {name}")
    return 0


def main(argv: list[str]) -> int:
    if not argv:
        return 1
    if argv[0] == "run":
        return _container(argv[1:])
    return _record(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
