#!/usr/bin/env bash
# DeepSeek-V4 FP4 AgentX on one MI355X node with SGLang and MTP speculative decoding: serve, then replay agentic coding
# sessions at $CONC for $DURATION seconds; results into $RESULTS.
set -euo pipefail
port=8000
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$port" \
  --speculative-algorithm NEXTN --speculative-num-steps 2 \
  > "$LOGS/server_${RESULT_NAME}.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
until curl -fs "http://localhost:${port}/health" >/dev/null; do sleep 5; done
for conc in $CONC; do
  python3 -m agentx.replay --base-url "http://localhost:${port}" --concurrency "$conc" \
    --duration "$DURATION" --output "$RESULTS/benchmark_conc${conc}.json"
done
