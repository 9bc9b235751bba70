




































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































































build_replay_cmd() {
    # aiperf invocation for the inferencex-agentx-mvp scenario.
    #
    # Pre-canned assistant replay is the default: recorded assistant responses
    # are used for future prompt construction, and live server responses are
    # discarded. Set AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES=1 explicitly
    # to use live-assistant mode, where the loader emits user-only deltas and
    # the worker threads the server's live assistant response back into the
    # session.
    #
    # The scenario plugin locks --cache-bust first_turn_prefix and a 10-second
    # whole-system idle cap. InferenceX also applies a 300-second per-trajectory
    # runtime idle cap below. Source end-to-start delays remain intact; either
    # cap advances pending timers only while its scope is idle. See
    # utils/aiperf/docs/tutorials/agentx-mvp.md.
    local result_dir="$1"
    local duration="$DURATION"
    local warmup_requests_per_lane="${AIPERF_WARMUP_REQUESTS_PER_LANE:-10}"

    # Fast mode minimizes setup by advancing each trajectory lane only once
    # and shortens profiling to 20 minutes.
    if [[ "${AIPERF_EXPERIMENTAL_FAST:-0}" == "1" ]]; then
        duration=1200
        warmup_requests_per_lane=1
    fi

    export AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES="${AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES:-0}"
    # Dataset configuration (load + reconstruct + inputs.json + mmap)
    # routinely takes 4-5 min for the Weka corpus on fast /tmp
    # (B300) but can stretch to 14 min on slower /tmp + parallel contention
    # (observed on H200 where all 14 R3 jobs hit aiperf's 900s Configure
    # Profiling timeout simultaneously). Bump to 1800s to absorb 3x
    # worst-case slowdown — the post-setup measurement window is unaffected.
    export AIPERF_DATASET_CONFIGURATION_TIMEOUT=1800
    # aiperf validates that SERVICE_PROFILE_CONFIGURE_TIMEOUT >=
    # DATASET_CONFIGURATION_TIMEOUT at startup. Bump it in lockstep.
    export AIPERF_SERVICE_PROFILE_CONFIGURE_TIMEOUT=1800
    # Headless realtime metrics are opt-in on current AIPerf main. Enable the
    # rolling TTFT/ITL/throughput block and emit it every 30 seconds.
    export AIPERF_UI_REALTIME_METRICS_ENABLED=true
    REPLAY_CMD="$AIPERF_CLI profile --scenario inferencex-agentx-mvp"
    REPLAY_CMD+=" --url ${AIPERF_SERVER_URL:-http://localhost:$PORT}"
    REPLAY_CMD+=" --endpoint /v1/chat/completions"
    REPLAY_CMD+=" --endpoint-type chat"
    REPLAY_CMD+=" --streaming"
    # SERVED_MODEL_NAME overrides $MODEL when the frontend registers the
    # model under a different name than the recipe's model.path alias (e.g.
    # dynamo-trt srt-slurm recipes serve "DeepSeek-V4-Pro" while $MODEL is
    # the HF id "deepseek-ai/DeepSeek-V4-Pro"). Mismatches 404 at warmup.
    REPLAY_CMD+=" --model ${SERVED_MODEL_NAME:-$MODEL}"
    # aiperf's dataset manager resolves the tokenizer from --model by
    # default, but a SERVED_MODEL_NAME override (above) is a wire name, not
    # necessarily a valid HF repo id (e.g. "Qwen3.5-397B-A17B-NVFP4-V2" vs
    # the real "nvidia/Qwen3.5-397B-A17B-NVFP4-V2"), which 404s tokenizer
    # loading. Always pass the real HF id explicitly.
    REPLAY_CMD+=" --tokenizer $MODEL"
    REPLAY_CMD+=" --concurrency $CONC"
    REPLAY_CMD+=" --benchmark-duration $duration"
    REPLAY_CMD+=" --stats-interval 30"
    REPLAY_CMD+=" --random-seed 42"
    # Fail runs early once the live error ratio crosses the configured limit.
    # Recipes with correlated low-concurrency trajectories may allow a larger
    # live sample while retaining AIPERF_FAILED_REQUEST_THRESHOLD as the strict
    # post-run validity gate below.
    REPLAY_CMD+=" --failed-request-threshold $AIPERF_LIVE_FAILED_REQUEST_THRESHOLD"
    # Sample each trajectory's warmup start position uniformly from
    # [25%, 75%] of the trace's turn count, clamped by AIPerf to leave at
    # least one profile turn after warmup.
    REPLAY_CMD+=" --trajectory-start-min-ratio 0.25"
    REPLAY_CMD+=" --trajectory-start-max-ratio 0.75"
    # After the normal t* snapshot primers, advance every trajectory lane by
    # this many additional one-token requests with no idle delay. Profiling
    # begins after those requests drain and resumes from the resulting live
    # state. Do not pass --burst-phase-starts: AIPerf main's spread default
    # preserves each lane's recorded phase-start offset.
    REPLAY_CMD+=" --warmup-requests-per-lane $warmup_requests_per_lane"
    # Limit observed end-to-start idle time across each complete trajectory
    # tree, including root and subagent streams. AIPerf advances that tree's
    # pending timers uniformly without bypassing spawn/join dependencies or
    # changing request order.
    REPLAY_CMD+=" --trace-idle-gap-cap-seconds $AIPERF_TRACE_IDLE_GAP_CAP_SECONDS"
    # Give long-context warmup requests up to 30 minutes to drain before
    # declaring warmup failed. Recipes whose saturation arms carry a larger
    # in-flight working set may override via AGENTIC_WARMUP_GRACE_PERIOD
    # (grace is a maximum wait, not a fixed sleep — drain exits when done).
    # cancelling any remaining requests and starting profiling.
    REPLAY_CMD+=" --warmup-grace-period ${AGENTIC_WARMUP_GRACE_PERIOD:-1800}"
    # Use server-reported usage fields (prompt_tokens / completion_tokens) for
    # ISL/OSL instead of client-side tokenizer.encode(). Auto-enables
    # stream_options.include_usage on the OpenAI chat endpoint. Skips the
    # heavy per-record tokenization in the records pipeline that was pinning
    # CPU on minimax-m2.5 at high concurrency. Lossless for vLLM (server
    # usage is authoritative).
    REPLAY_CMD+=" --use-server-token-count"
    if [ -n "${AIPERF_EXTRA_INPUTS:-}" ]; then
        REPLAY_CMD+=" --extra-inputs $AIPERF_EXTRA_INPUTS"
    fi
    # Dynamo's KV router needs an explicit conversation session binding to
    # keep later turns on the prefill worker that owns their prefix blocks.
    # X-Correlation-ID is useful tracing metadata but does not establish that
    # binding by itself. AIPerf emits nvext.session_control bind/close actions
    # keyed by the stable conversation correlation ID when this flag is set.
    # Opt-out: recipes set AIPERF_USE_DYNAMO_CONV_AWARE_ROUTING=0 to skip this.
    # aiperf's conv-aware routing emits nvext.session_control, a removed POC field
    # (dynamo #9920 / v1.3.0-dev) that current dynamo builds reject with a 400
    # (they moved to router/routing_constraints/agent_context). Default stays on.
    # New recipes instead set AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=true
    # to route by X-Dynamo-Session-ID header, which needs no routing CLI flag.
    if [[ "${FRAMEWORK:-}" == dynamo-* \
          && "${AIPERF_USE_DYNAMO_CONV_AWARE_ROUTING:-1}" != "0" \
          && "${AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID:-false}" != "true" ]]; then
        REPLAY_CMD+=" --use-dynamo-conv-aware-routing"
        # The upstream 300s affinity TTL is shorter than an overloaded
        # high-concurrency agentic request. Keep bindings alive across long
        # prefills, generation, and capped inter-turn delay. This controls the
        # router's inactivity lease; it does not relax HTTP/request failures.
        REPLAY_CMD+=" --dynamo-session-timeout-seconds ${AIPERF_DYNAMO_SESSION_TIMEOUT_SECONDS:-3600}"
    fi
    # Disable DCGM GPU telemetry collection. aiperf's GpuMetricTimeSeries
    # freezes its metric schema on the first DCGM scrape, then KeyErrors when
    # an optional field (xid_errors, power_violation, encoder_utilization)
    # first appears mid-run. We don't consume the gpu_telemetry artifact in
    # downstream processing, and the server-metrics path (Prometheus /metrics
    # from vLLM) is unaffected by this flag and still gives us KV usage,
    # prefix cache hit rate, etc.
    REPLAY_CMD+=" --no-gpu-telemetry"
    # aiperf's dataset manager (separate from the inference parser) loads
    # the model's tokenizer for trace-prompt tokenization regardless of
    # --use-server-token-count. Models like kimi (amd/Kimi-K2.5-MXFP4,
    # moonshotai/Kimi-K2.5) ship a custom tokenizer in their HF repo and
    # need trust_remote_code=True to load. Benign for models without
    # custom tokenizer code, so we set it unconditionally.
    REPLAY_CMD+=" --tokenizer-trust-remote-code"
    # Keep replay inputs inside the same context window used to launch the
    # server. The WEKA corpus contains a few very long parent/subagent traces;
    # if we mmap and replay them against a smaller-context server they become
    # deterministic 4xxs and can still pressure the engine while queued.
    if [ -n "${MAX_MODEL_LEN:-}" ] && [ "$MAX_MODEL_LEN" != "0" ]; then
        REPLAY_CMD+=" --max-context-length $MAX_MODEL_LEN"
    fi
    # Default --num-dataset-entries is 100; the with-subagents Weka corpus
    # has 393. Cap at 393 so all unique traces are loaded (the loader treats
    # this as a ``min(cap, available)`` ceiling, not a target — see
    # semianalysis_cc_traces_weka.py).
    REPLAY_CMD+=" --num-dataset-entries 393"
    # 1-second timeslices on the server-metrics scrape so the post-run
    # plotter has per-window time series (KV usage, cache hit rate,
    # throughput, etc.). Matches kv-cache-tester's poll_interval=1.0
    # snapshot cadence so metrics_plots.png is visually comparable.
    # Without this, aiperf only emits aggregate stats and the 6x2 panels
    # collapse to flat lines.
    REPLAY_CMD+=" --slice-duration 1.0"
    # Multi-node launchers can provide the Prometheus endpoints for every
    # inference worker as a comma-separated list. AIPerf accepts multiple
    # values after one --server-metrics flag and preserves endpoint_url on
    # every exported series. The inference frontend's automatically detected
    # /metrics endpoint remains enabled as well.
    if [ -n "${AIPERF_SERVER_METRICS_URLS:-}" ]; then
        local metrics_url
        local -a metrics_urls
        IFS=',' read -r -a metrics_urls <<< "$AIPERF_SERVER_METRICS_URLS"
        REPLAY_CMD+=" --server-metrics"
        for metrics_url in "${metrics_urls[@]}"; do
            if [ -z "$metrics_url" ] || [[ "$metrics_url" == *[[:space:]]* ]]; then
                echo "ERROR: AIPERF_SERVER_METRICS_URLS must be a comma-separated list of non-empty URLs" >&2
                return 1
            fi
            REPLAY_CMD+=" $metrics_url"
        done
    fi
    REPLAY_CMD+=" --output-artifact-dir $result_dir/aiperf_artifacts"
    # The inferencex-agentx-mvp scenario enforces a 900s minimum
    # benchmark duration. For smoke tests with shorter durations, opt
    # into --unsafe-override (the run's submission_valid will be flagged
    # false; that's expected for non-canonical runs).
    if [ "$duration" -lt 900 ] || [ "${AIPERF_UNSAFE_OVERRIDE:-false}" = "true" ]; then
        REPLAY_CMD+=" --unsafe-override"
    fi
    REPLAY_CMD+=" $TRACE_SOURCE_FLAG"
}

















































run_agentic_replay_and_write_outputs() (
    local result_dir="$1"
    local replay_rc
    local validation_rc
    local power_rc=0
    local agentx_power_enabled=0
    local agentx_monitor_stopped=1

    case "${ENABLE_AGENTX_POWER:-1}" in
        1|true|TRUE|yes|YES)
            if [ "${IS_MULTINODE:-false}" != "true" ]; then
                agentx_power_enabled=1
            fi
            ;;
    esac

    _stop_agentx_power_monitor() {
        if [ "$agentx_monitor_stopped" = "0" ]; then
            agentx_monitor_stopped=1
            stop_gpu_monitor
        fi
    }

    if [ "$agentx_power_enabled" = "1" ]; then
        # AIPerf currently exports naive local datetimes while SMI emits the
        # same host wall clock. Capture the launch-time offset so the adapter
        # can attach it explicitly before normalizing the profiling window.
        date +%z > "$result_dir/agentic_power_timezone_offset.txt"
        start_gpu_monitor --output "$result_dir/gpu_metrics.csv"
        agentx_monitor_stopped=0
        # This function runs in a subshell, so these handlers cannot replace
        # launcher-owned traps. The stopped flag keeps explicit and signal/EXIT
        # cleanup idempotent.
        trap '_stop_agentx_power_monitor' EXIT
        trap '_stop_agentx_power_monitor; exit 130' INT
        trap '_stop_agentx_power_monitor; exit 143' TERM
    fi

    echo "$REPLAY_CMD" > "$result_dir/benchmark_command.txt"

    set +e
    set -x
    $REPLAY_CMD 2>&1 | tee "$result_dir/benchmark.log"
    replay_rc=${PIPESTATUS[0]}
    set +x
    set -e

    if [ "$agentx_power_enabled" = "1" ]; then
        _stop_agentx_power_monitor
        trap - EXIT INT TERM
    fi

    write_agentic_result_json "$result_dir"

    if [ "$agentx_power_enabled" = "1" ]; then
        local expected_num_gpus
        local -a power_args
        expected_num_gpus=$((${TP:-1} * ${PP_SIZE:-1} * ${PCP_SIZE:-1}))
        power_args=(
            --result-dir "$result_dir"
            --agg-result "${AGENTIC_OUTPUT_DIR:-$INFMAX_CONTAINER_WORKSPACE}/$RESULT_FILENAME.json"
            --expected-num-gpus "$expected_num_gpus"
        )
        case "${REQUIRE_POWER:-0}" in
            1|true|TRUE|yes|YES) power_args+=(--require-power) ;;
        esac
        set +e
        (
            cd "$INFMAX_CONTAINER_WORKSPACE"
            "$AIPERF_PYTHON" -m utils.agentic.aggregation.power_adapter "${power_args[@]}"
        )
        power_rc=$?
        set -e
    fi

    "$AIPERF_PYTHON" "$AGENTIC_DIR/scripts/analyze_benchmark_distributions.py" \
        "$result_dir/aiperf_artifacts" -o "$result_dir" 2>&1 || true

    set +e
    (
        cd "$INFMAX_CONTAINER_WORKSPACE"
        "$AIPERF_PYTHON" -m utils.agentic.validation.validate_agentic_result \
            "$result_dir/aiperf_artifacts" \
            --failed-request-threshold "$AIPERF_FAILED_REQUEST_THRESHOLD"
    )
    validation_rc=$?
    set -e

    if [ "$replay_rc" -ne 0 ]; then
        echo "ERROR: agentic trace replay exited with code $replay_rc after writing available results" >&2
        return "$replay_rc"
    fi

    if [ "$validation_rc" -ne 0 ]; then
        echo "ERROR: agentic trace replay produced invalid results after writing available artifacts" >&2
        return "$validation_rc"
    fi

    if [ "$power_rc" -ne 0 ]; then
        echo "ERROR: AgentX power validation failed after writing audit artifacts" >&2
        return "$power_rc"
    fi

    validate_required_agentic_server_metrics "$result_dir"
)
