#!/usr/bin/env bash
# DeepSeek-V4 FP4 on one MI355X node with vLLM: start the server, wait for it, run the
# serving benchmark (throughput rows) or lm-eval (EVAL_ONLY=true), results into $RESULTS, logs into $LOGS.
set -euo pipefail
port=8000
vllm serve "$MODEL" --tensor-parallel-size "$TP" --port "$port" \
  > "$LOGS/server_${RESULT_NAME}.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
until curl -fs "http://localhost:${port}/health" >/dev/null; do sleep 5; done
if [ "${EVAL_ONLY:-false}" = true ]; then
  lm_eval --model local-chat-completions --tasks gsm8k --output_path "$RESULTS" \
    --model_args "base_url=http://localhost:${port}/v1/chat/completions,model=${MODEL}"
else
  python3 -m infx_bench.serving --base-url "http://localhost:${port}" --model "$MODEL" \
    --random-input-len "$ISL" --random-output-len "$OSL" --max-concurrency "$CONC" \
    --num-prompts $((CONC * 10)) --save-result --result-dir "$RESULTS" \
    --result-filename "benchmark_conc${CONC}.json" --percentile-metrics ttft,tpot,itl,e2el
fi
