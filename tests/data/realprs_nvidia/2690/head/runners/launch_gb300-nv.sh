






source "$(dirname "${BASH_SOURCE[0]}")/slurm_utils.sh"

export SLURM_PARTITION="${SLURM_PARTITION:-batch_1}"
export SBATCH_PARTITION="$SLURM_PARTITION"


























































































































































































if [[ "$IS_AGENTIC" == "1" && $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "qwen3.5" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout v1.0.50
    TRTLLM_RECIPES_DIR="recipes/trtllm/qwen3.5/gb300-fp4/disagg/agentx"
    mkdir -p "$TRTLLM_RECIPES_DIR"
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/trtllm/qwen3.5/gb300-fp4/disagg/agentx" \
        "$TRTLLM_RECIPES_DIR"
    if [[ "${EVAL_ONLY:-false}" == "true" ]]; then
        find "$TRTLLM_RECIPES_DIR" -name "*.yaml" \
            -exec sed -i '/TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS/d' {} +
    fi
elif [[ "$IS_AGENTIC" == "1" && $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "qwen3.5" ]]; then
    # Qwen3.5 agentic uses NVIDIA/srt-slurm v1.0.38: the two features the
    # cquil11 fork was pinned for are merged upstream (present in v1.0.36) —
    #   - `srtctl apply --no-preflight` (skip the in-process model FS check):
    #     model.path resolves to /scratch/models/Qwen3.5-397B-A17B-NVFP4
    #     (compute-node-only NVMe), which the GHA runner pod can't stat, so
    #     the Path.is_dir() preflight would fail before sbatch is ever
    #     called. The engine still fails loudly at runtime if the path is
    #     genuinely missing on the compute node.
    #   - benchmark_stage propagates srun_options (container-remap-root must
    #     reach the agentic_srt.sh srun).
    # v1.0.38 additionally injects AIPERF_SERVER_METRICS_URLS for custom
    # benchmarks using each logical SGLang worker leader. This is required for
    # complete AgentX trace artifacts; the public frontend alone may expose no
    # Prometheus endpoint or only Dynamo frontend metrics.
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout v1.0.38
    mkdir -p recipes/sglang/qwen3.5
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5" \
        recipes/sglang/qwen3.5
elif [[ "$IS_AGENTIC" == "1" && $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "dsv4" ]]; then
    # DSv4 GB300 SGLang agentic uses NVIDIA/srt-slurm v1.0.38. In addition to
    # the nginx body-size fix, session-affinity frontend, and custom benchmark
    # schema required by these recipes, this release injects every logical
    # SGLang worker leader's /metrics URL into AIPERF_SERVER_METRICS_URLS.
    # AgentX forwards that list to aiperf's --server-metrics argument so its
    # trace artifacts include backend metrics for every engine.
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout v1.0.38
    mkdir -p recipes/sglang/deepseek-v4/agentic
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/agentic" \
        recipes/sglang/deepseek-v4/agentic
elif [[ "$IS_AGENTIC" == "1" && $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "dsv4" ]]; then
    SRT_SLURM_MODEL_PREFIX="deepseek-ai/DeepSeek-V4-Pro"
    git clone --branch v1.0.50 --single-branch https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR" || exit 1
    cd "$SRT_REPO_DIR" || exit 1

    mkdir -p benchmarks/multi_node/srt-slurm-recipes/trtllm/deepseek-v4 || exit 1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/trtllm/deepseek-v4" \
        benchmarks/multi_node/srt-slurm-recipes/trtllm/deepseek-v4 || exit 1
    if [[ "${EVAL_ONLY:-false}" == "true" ]]; then
        # srt-slurm v1.0.50 launches lm-eval on the allocation head and uses
        # localhost:8000. Keep AgentX frontends on first_decode for throughput,
        # but co-locate the eval-only frontend with lm-eval so loopback resolves.
        find benchmarks/multi_node/srt-slurm-recipes/trtllm/deepseek-v4 -name "*.yaml" \
            -exec sed -i \
                -e '/TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS/d' \
                -e 's/^  orchestrator_placement: first_decode$/  orchestrator_placement: head/' \
                {} +
    fi
elif [[ "$IS_AGENTIC" == "1" && $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "glm5.2" ]]; then
    # GLM-5.2 GB300 sglang AgentX: srt-slurm main has the agentx-mvp scenario,
    # the zip_override sweep selectors, and the multi-frontend session-affinity
    # schema these recipes need.
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout main
    mkdir -p recipes/sglang/glm5.2/gb300-fp4
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5.2/gb300-fp4" \
        recipes/sglang/glm5.2/gb300-fp4
elif [[ "$IS_AGENTIC" == "1" ]]; then
    # Agentic recipes use NVIDIA/srt-slurm v1.0.36. This is the upstream
    # version validated in InferenceX PR #2302 and includes per-node DP,
    # matching Dynamo health counts, multi-node TP port handling, and
    # Mooncake compatibility. Keep it pinned so sweeps are reproducible.
    git clone --branch v1.0.36 --single-branch https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR" || exit 1
    cd "$SRT_REPO_DIR" || exit 1

    mkdir -p recipes/vllm/deepseek-v4/agentic || exit 1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/agentic" \
        recipes/vllm/deepseek-v4/agentic || exit 1
    mkdir -p recipes/vllm/kimi-k3/agentic || exit 1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k3/agentic" \
        recipes/vllm/kimi-k3/agentic || exit 1
elif [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "dsv4" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout aflowers/gb200-dsv4-recipes
    mkdir -p recipes/vllm/deepseek-v4
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4" recipes/vllm/deepseek-v4
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "dsv4" ]]; then
    # Fixed-length DeepSeek-V4 recipes are version-controlled in this repository;
    # overlay them onto the selected srt-slurm checkout. Power lanes use the
    # exact producer pin and stamp it for strict result provenance; non-power
    # lanes retain the v1.0.25 release that bootstraps cargo/maturin for the
    # hash-pinned Dynamo source build before launch.
    if [[ "$USES_DCGM_POWER" == "1" ]]; then
        git clone "$POWER_SRT_SLURM_URL" "$SRT_REPO_DIR" || exit 1
        cd "$SRT_REPO_DIR" || exit 1
        git checkout "$POWER_SRT_SLURM_PIN" || exit 1
        # The power lane must run the exact pinned producer SHA, never a moving branch.
        test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN" || { echo "Error: srt-slurm HEAD does not match POWER_SRT_SLURM_PIN=$POWER_SRT_SLURM_PIN" >&2; exit 1; }
        git rev-parse HEAD > "$GITHUB_WORKSPACE/power-producer-sha.txt"
    else
        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR" || exit 1
        cd "$SRT_REPO_DIR" || exit 1
        git checkout v1.0.25 || exit 1
    fi
    mkdir -p recipes/sglang/deepseek-v4/8k1k || exit 1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k" \
        recipes/sglang/deepseek-v4/8k1k || exit 1
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "glm5" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout main
    if [[ $PRECISION == "fp4" ]]; then
        mkdir -p recipes/sglang/glm5/gb300-fp4
        cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/gb300-fp4" recipes/sglang/glm5/gb300-fp4
    fi
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "glm5.1" && $PRECISION == "fp8" ]]; then
    # GLM-5.1 FP8 (gb300) recipes are version-controlled in-repo; overlay them
    # onto the pinned submission branch.
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout sa-submission-q2-2026
    mkdir -p recipes/sglang/glm5.1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5.1" recipes/sglang/glm5.1
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "glm5.1" ]]; then
    # GLM-5.1 MTP recipe (recipes/gb300-fp4/glm5-mtp.yaml) lives on
    # NVIDIA/srt-slurm:main — check it out; no in-repo overlay needed.
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout main
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "qwen3.5" ]]; then
    # Overlay our version-controlled Qwen3.5 recipes onto the srt-slurm checkout.
    # fp8 recipes pin dynamo by commit hash (source install), which needs the
    # cargo/maturin bootstrap included in the srt-slurm v1.0.25 release — the
    # sa-submission-q2-2026 sglang install path assumes maturin ships in the
    # image, and the lmsysorg/sglang nightly-dev-cu13 image doesn't include it.
    # Same branch the identical gb200-fp8 recipes run on. fp4 recipes pin
    # dynamo by version (pip install) and stay on the submission branch they
    # were validated against.
    if [[ "$USES_DCGM_POWER" == "1" ]]; then
        git clone "$POWER_SRT_SLURM_URL" "$SRT_REPO_DIR"
        cd "$SRT_REPO_DIR"
        git checkout "$POWER_SRT_SLURM_PIN" || exit 1
        # The power lane must run the exact pinned producer SHA, never a moving branch.
        test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN" || { echo "Error: srt-slurm HEAD does not match POWER_SRT_SLURM_PIN=$POWER_SRT_SLURM_PIN" >&2; exit 1; }
        git rev-parse HEAD > "$GITHUB_WORKSPACE/power-producer-sha.txt"
    else
        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
        cd "$SRT_REPO_DIR"
        if [[ $PRECISION == "fp8" ]]; then
            git checkout v1.0.25
        else
            git checkout sa-submission-q2-2026
        fi
    fi
    mkdir -p recipes/sglang/qwen3.5
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5" recipes/sglang/qwen3.5
elif [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "minimaxm3" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    if [[ "${SPEC_DECODING:-}" == "mtp" ]]; then
        git checkout v1.0.38
    else
        git checkout sa-submission-q2-2026
    fi
    mkdir -p recipes/vllm/minimax-m3-gb300-fp8
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m3-gb300-fp8" recipes/vllm/minimax-m3-gb300-fp8
elif [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "kimik2.5" && $PRECISION == "fp4" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout main
    mkdir -p recipes/vllm/kimi-k2.5-fp4
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k2.5-fp4" recipes/vllm/kimi-k2.5-fp4
elif [[ $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "dsv4" ]]; then
    # DSv4 dynamo-trt recipes use the HuggingFace model ID as model.path,
    # so override SRT_SLURM_MODEL_PREFIX to match the recipe's model path key.
    SRT_SLURM_MODEL_PREFIX="deepseek-ai/DeepSeek-V4-Pro"
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout sa-submission-q2-2026
elif [[ $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "qwen3.5" && $PRECISION == "fp4" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout v1.0.29
    mkdir -p recipes/trtllm/qwen3.5/gb300-fp4/disagg
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/trtllm/qwen3.5/gb300-fp4/disagg" \
        recipes/trtllm/qwen3.5/gb300-fp4/disagg
else
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout sa-submission-q2-2026
fi


























SRT_DEFAULT_TIME_LIMIT="4:00:00"
if [[ "$IS_AGENTIC" == "1" && $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "dsv4" ]]; then
    SRT_DEFAULT_TIME_LIMIT="8:00:00"
fi
cat > srtslurm.yaml <<EOF
# SRT SLURM Configuration for GB300

# Default SLURM settings
default_account: "${SLURM_ACCOUNT}"
default_partition: "${SLURM_PARTITION}"
default_time_limit: "${SRT_DEFAULT_TIME_LIMIT}"

# Resource defaults
gpus_per_node: 4
network_interface: ""

# Path to srtctl repo root (where the configs live)
srtctl_root: "${SRTCTL_ROOT}"

# Cluster-level bind mounts applied to every worker container
# (see srtctl/core/runtime.py — get_srtslurm_setting("default_mounts")).
# Used here for aiperf's persistent mmap cache so the dataset isn't
# re-tokenized + re-written every job.
default_mounts:
  "${AIPERF_MMAP_CACHE_HOST_PATH}": "/aiperf_mmap_cache"
  "${HF_HUB_CACHE_HOST_PATH}": "/hf_hub_cache"
  # Warm dynamo source-build cache (nested over the auto /configs mount) so the
  # hash-pinned install is a cache hit (pip-only, no apt/root) on every job.
  "${DYNAMO_WHEELS_CACHE_HOST_PATH}": "/configs/dynamo-wheels"

# Model path aliases
model_paths:
  "${SRT_SLURM_MODEL_PREFIX}": "${MODEL_PATH}"
containers:
  dynamo-trtllm: ${SQUASH_FILE}
  dynamo-sglang: ${SQUASH_FILE}
  v0.5.11: ${SQUASH_FILE}
  v0.5.13.post1: ${SQUASH_FILE}
  "${IMAGE}": ${SQUASH_FILE}
  nginx-sqsh: ${NGINX_SQUASH_FILE}
use_segment_sbatch_directive: false
EOF

# Appended via sed so non-power lanes' generated yaml stays byte-identical.



















































SRTCTL_APPLY_ARGS=(
    -f "$CONFIG_FILE"
    --tags "gb300,${MODEL_PREFIX},${PRECISION},${ISL}x${OSL},infmax-$(date +%Y%m%d)"
)























































































































































































