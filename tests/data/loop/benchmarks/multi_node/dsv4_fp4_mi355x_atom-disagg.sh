#!/usr/bin/env bash
# DeepSeek-V4 FP4 disaggregated over MI355X nodes with ATOM and mooncake KV transfer. Runs on
# every node of the row (runners/launch_mi355x-amds.sh): nodes 0..PREFILL_NODE_COUNT-1 serve
# prefill, the rest decode; the head node (NODE_RANK 0) also runs the router and the benchmark.
set -euo pipefail
if [ "$NODE_RANK" -lt "$PREFILL_NODE_COUNT" ]; then role=prefill; else role=decode; fi
python3 -m atom.disagg.worker --role "$role" --model "$MODEL" --kv-transfer mooncake \
  --bootstrap "${HEAD_NODE}:8998" > "$LOGS/${role}_node${NODE_RANK}.log" 2>&1 &
worker=$!
trap 'kill "$worker" 2>/dev/null || true' EXIT
if [ "$NODE_RANK" != 0 ]; then wait "$worker"; exit; fi
atomesh --port 8000 --workers "$NUM_NODES" > "$LOGS/router.log" 2>&1 &
until curl -fs http://localhost:8000/health >/dev/null; do sleep 10; done
for conc in $CONC; do
  python3 -m infx_bench.serving --base-url http://localhost:8000 --model "$MODEL" \
    --random-input-len "$ISL" --random-output-len "$OSL" --max-concurrency "$conc" \
    --num-prompts $((conc * 10)) --save-result --result-dir "$RESULTS" \
    --result-filename "benchmark_conc${conc}.json"
done
