#!/usr/bin/env bash
# Qwen3.5 FP8 disaggregated over MI355X nodes with SGLang and mooncake KV
# transfer. Runs on every node of the row (runners/launch_mi355x-amds.sh): nodes
# 0..PREFILL_NODE_COUNT-1 serve prefill, the rest decode; the head node (NODE_RANK 0) also
# runs the router and the benchmark.
set -euo pipefail
if [ "$NODE_RANK" -lt "$PREFILL_NODE_COUNT" ]; then role=prefill; else role=decode; fi
python3 -m sglang.launch_server --model-path "$MODEL" --disaggregation-mode "$role" \
  --disaggregation-transfer-backend mooncake --port 8100 \
  > "$LOGS/${role}_node${NODE_RANK}.log" 2>&1 &
worker=$!
trap 'kill "$worker" 2>/dev/null || true' EXIT
if [ "$NODE_RANK" != 0 ]; then wait "$worker"; exit; fi
python3 -m sglang_router.launch_router --pd-disaggregation --port 8000 > "$LOGS/router.log" 2>&1 &
until curl -fs http://localhost:8000/health >/dev/null; do sleep 10; done
for conc in $CONC; do
  python3 -m infx_bench.serving --base-url http://localhost:8000 --model "$MODEL" \
    --random-input-len "$ISL" --random-output-len "$OSL" --max-concurrency "$conc" \
    --num-prompts $((conc * 10)) --save-result --result-dir "$RESULTS" \
    --result-filename "benchmark_conc${conc}.json"
done
