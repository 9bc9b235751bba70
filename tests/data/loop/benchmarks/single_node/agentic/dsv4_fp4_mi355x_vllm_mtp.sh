#!/usr/bin/env bash
# DeepSeek-V4 FP4 AgentX on one MI355X node with vLLM and MTP speculative decoding: serve, then replay agentic coding
# sessions at $CONC for $DURATION seconds; results into $RESULTS.
set -euo pipefail
port=8000
vllm serve "$MODEL" --tensor-parallel-size "$TP" --port "$port" \
  --speculative-config '{"method":"mtp","num_speculative_tokens":2}' \
  > "$LOGS/server_${RESULT_NAME}.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
until curl -fs "http://localhost:${port}/health" >/dev/null; do sleep 5; done
for conc in $CONC; do
  python3 -m agentx.replay --base-url "http://localhost:${port}" --concurrency "$conc" \
    --duration "$DURATION" --output "$RESULTS/benchmark_conc${conc}.json"
done
