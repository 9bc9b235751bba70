





























































































































































if [[ $FRAMEWORK == "dynamo-sglang" ]]; then
    export CONFIG_DIR="/mnt/lustre01/artifacts/sglang-configs/1k1k"
    if [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp8" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/deepseek-r1-0528"
        export SRT_SLURM_MODEL_PREFIX="dsr1-fp8"
    elif [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/deepseek-r1-0528-fp4-v2/"
        export SRT_SLURM_MODEL_PREFIX="dsr1-fp4"
    elif [[ $MODEL_PREFIX == "dsv4" && $PRECISION == "fp4" ]]; then
        # Lustre-resident weights staged on the GB200 external cluster.
        # SRT_SLURM_MODEL_PREFIX matches the model.path alias in our
        # DSV4 sglang recipes.
        export MODEL_PATH="/mnt/lustre01/models/deepseek-v4-pro"
        export SRT_SLURM_MODEL_PREFIX="deepseek-v4-pro"
    elif [[ $MODEL_PREFIX == "glm5.1" && $PRECISION == "fp4" ]]; then
        # SRT_SLURM_MODEL_PREFIX matches the model.path alias ("glm-5-fp4")
        # in our GLM-5.1 sglang recipes.
        export MODEL_PATH="/mnt/lustre01/models/GLM-5.1-NVFP4"
        export SRT_SLURM_MODEL_PREFIX="glm-5-fp4"
    elif [[ $MODEL_PREFIX == "qwen3.5" && $PRECISION == "fp8" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/Qwen3.5-397B-A17B-FP8"
        export SRT_SLURM_MODEL_PREFIX="qwen3.5-fp8"
    elif [[ $MODEL_PREFIX == "qwen3.5" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/Qwen3.5-397B-A17B-NVFP4-V2"
        export SRT_SLURM_MODEL_PREFIX="qwen3.5-fp4"
    elif [[ $MODEL_PREFIX == "glm5.2" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/users-public/sa-shared/models/GLM-5.2-NVFP4"
        export SRT_SLURM_MODEL_PREFIX="glm-5.2-fp4"
    elif [[ $MODEL_PREFIX == "glm5.1" && $PRECISION == "fp4" ]]; then
        # SRT_SLURM_MODEL_PREFIX matches the model.path alias ("glm-5-fp4")
        # in our GLM-5.1 sglang recipes.
        export MODEL_PATH="/mnt/lustre01/models/GLM-5.1-NVFP4"
        export SRT_SLURM_MODEL_PREFIX="glm-5-fp4"
    elif [[ $MODEL_PREFIX == "glm5.1" && $PRECISION == "fp8" ]]; then
        # SRT_SLURM_MODEL_PREFIX matches the model.path alias ("glm-5.1-fp8")
        # in our GLM-5.1 sglang recipes.
        export MODEL_PATH="/mnt/lustre01/models/GLM-5.1-FP8"
        export SRT_SLURM_MODEL_PREFIX="glm-5.1-fp8"
    else
        export MODEL_PATH=$MODEL
    fi
elif [[ $FRAMEWORK == "dynamo-trt" ]]; then
    if [[ $MODEL_PREFIX == "gptoss" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/gpt-oss-120b"
        export SERVED_MODEL_NAME="gpt-oss-120b"
    elif [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/numa1/models/DeepSeek-R1-0528-NVFP4-v2"
        export SERVED_MODEL_NAME="deepseek-r1-fp4"
        export SRT_SLURM_MODEL_PREFIX="dsr1"
    elif [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp8" ]]; then
        export MODEL_PATH="/mnt/numa1/models/DeepSeek-R1-0528"
        export SERVED_MODEL_NAME="deepseek-r1-fp8"
        export SRT_SLURM_MODEL_PREFIX="dsr1-fp8"
    elif [[ $MODEL_PREFIX == "kimik2.5" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/kimi-k2.5-nvfp4"
        export SERVED_MODEL_NAME="kimi-k2.5-nvfp4"
        export SRT_SLURM_MODEL_PREFIX="nvidia/Kimi-K2.5-NVFP4"
    elif [[ $MODEL_PREFIX == "glm5" && $PRECISION == "fp4" ]]; then
        # SRT_SLURM_MODEL_PREFIX matches the model.path alias
        # ("nvidia/GLM-5-NVFP4") in the upstream GLM5 trtllm_dynamo recipes.
        export MODEL_PATH="/mnt/lustre01/slurm-shared/glm-model/GLM-5-NVFP4"
        export SERVED_MODEL_NAME="glm-5-nvfp4"
        export SRT_SLURM_MODEL_PREFIX="nvidia/GLM-5-NVFP4"
    else
        echo "Unsupported model prefix: $MODEL_PREFIX. Supported prefixes are: gptoss, dsr1, kimik2.5, or glm5"
        exit 1
    fi
elif [[ $FRAMEWORK == "dynamo-vllm" ]]; then
    if [[ $MODEL_PREFIX == "kimik2.5" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/kimi-k2.5-nvfp4"
        export SRT_SLURM_MODEL_PREFIX="kimi-k2.5-nvfp4"
    elif [[ $MODEL_PREFIX == "kimik3" && $PRECISION == "fp4" ]]; then
        # Load Kimi K3 from node-local NVMe for faster startup. The checkpoint
        # must be pre-staged at this exact path on every allocated GB200 node.
        # This alias matches model.path in the checked-in AgentX recipes.
        export MODEL_PATH="/mnt/numa1/models/Kimi-K3"
        export SRT_SLURM_MODEL_PREFIX="kimi-k3"
    elif [[ $MODEL_PREFIX == "dsv4" && $PRECISION == "fp4" ]]; then
        # FP4 checkpoint on compute-visible Lustre (the /mnt/numa1 path is gone
        # on watchtower compute nodes). Use the base DeepSeek-V4-Pro checkpoint,
        # NOT the -NVFP4 re-quant: the recipe's served identity is plain
        # deepseek-ai/DeepSeek-V4-Pro and the pinned v0.20.1 container's
        # deepseek_v4 loader doesn't define the NVFP4 export's extra quant
        # params (e.g. ffn.experts.w13_input_scale), which KeyErrors at load.
        # The lowercase Lustre sibling is the FP8 checkpoint, so name the
        # CamelCase FP4 path explicitly (Linux is case-sensitive).
        export MODEL_PATH="/mnt/lustre01/models/DeepSeek-V4-Pro"
        export SRT_SLURM_MODEL_PREFIX="deepseek-v4-pro"
        MODEL_PATHS_EXTRA='  "deepseek-v4-pro-mxfp4": "/mnt/lustre01/models/DeepSeek-V4-Pro"'
    elif [[ $MODEL_PREFIX == "minimaxm2.5" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/MiniMax-M2.5-NVFP4"
        export SRT_SLURM_MODEL_PREFIX="minimax-m2.5-nvfp4"
    elif [[ $MODEL_PREFIX == "minimaxm2.5" && $PRECISION == "fp8" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/MiniMax-M2.5"
        export SRT_SLURM_MODEL_PREFIX="minimax-m2.5-fp8"
    elif [[ $MODEL_PREFIX == "minimaxm3" && $PRECISION == "fp8" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/MiniMax-M3-MXFP8"
        export SRT_SLURM_MODEL_PREFIX="minimax-m3-mxfp8"
    elif [[ $MODEL_PREFIX == "minimaxm3" && $PRECISION == "fp4" ]]; then
        export MODEL_PATH="/mnt/lustre01/models/MiniMax-M3-NVFP4"
        export SRT_SLURM_MODEL_PREFIX="minimax-m3-nvfp4"
    else
        echo "Unsupported model prefix/precision combination: $MODEL_PREFIX/$PRECISION. Supported combinations for dynamo-vllm: kimik2.5/fp4, kimik3/fp4, dsv4/fp4, minimaxm2.5/fp4, minimaxm2.5/fp8, minimaxm3/fp4, minimaxm3/fp8"
        exit 1
    fi
else
    export MODEL_PATH=$MODEL
fi



uses_watchtower_shared_fs() {
    case "$MODEL_PREFIX" in
        minimaxm2.5|minimaxm3|kimik2.5|kimik3|qwen3.5|glm5.2) return 0 ;;
    esac
    # dsv4 multinode runs only under dynamo-vllm on watchtower, which likewise
    # needs the srt-slurm workspace/outputs on a compute-visible shared FS
    # (the runner home is not cross-mounted to compute nodes).
    [[ "$FRAMEWORK" == "dynamo-vllm" && "$MODEL_PREFIX" == "dsv4" ]] && return 0
    return 1
}



















































































































if [ -d "$SRT_REPO_DIR" ]; then
    echo "Removing existing $SRT_REPO_DIR..."
    rm -rf "$SRT_REPO_DIR"
fi

# GLM-5.2 and MiniMax-M3 AgentX use v1.0.50 for complete logical-worker
# metrics discovery across aggregate, DP-attention, and disaggregated topologies.
if [[ "$IS_AGENTIC" == "1" && "$MODEL_PREFIX" == "glm5.2" && "$PRECISION" == "fp4" && "$FRAMEWORK" == "dynamo-sglang" ]]; then
    git clone --branch v1.0.50 --single-branch https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    test "$(git rev-parse HEAD)" = "e4019633c9e2bc25f38c44b81edf52bb0504d937" || {
        echo "Error: NVIDIA/srt-slurm v1.0.50 resolved to an unexpected commit" >&2
        exit 1
    }
    mkdir -p recipes/sglang/glm5.2/gb200-fp4/agentic
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5.2/gb200-fp4/agentic" \
        recipes/sglang/glm5.2/gb200-fp4/agentic
elif [[ "$IS_AGENTIC" == "1" && "$MODEL_PREFIX" == "minimaxm3" && "$PRECISION" == "fp4" && "$FRAMEWORK" == "dynamo-vllm" ]]; then
    git clone --branch v1.0.50 --single-branch https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    test "$(git rev-parse HEAD)" = "e4019633c9e2bc25f38c44b81edf52bb0504d937" || {
        echo "Error: NVIDIA/srt-slurm v1.0.50 resolved to an unexpected commit" >&2
        exit 1
    }
    mkdir -p recipes/vllm/minimax-m3/gb200-fp4/agentic
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m3/gb200-fp4/agentic" \
        recipes/vllm/minimax-m3/gb200-fp4/agentic
# These AgentX submissions use released srt-slurm custom-benchmark metrics
# discovery so AIPerf receives every logical worker endpoint.
elif [[ "$IS_AGENTIC" == "1" && (( "$MODEL_PREFIX" == "qwen3.5" && "$PRECISION" == "fp4" && "$FRAMEWORK" == "dynamo-sglang" ) || ( "$MODEL_PREFIX" == "dsv4" && "$PRECISION" == "fp4" && "$FRAMEWORK" == "dynamo-vllm" )) ]]; then
    git clone --branch v1.0.45 --single-branch https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    test "$(git rev-parse HEAD)" = "9d8d92b20c350a5d42f0709f5a0b64e30eb37d33" || {
        echo "Error: NVIDIA/srt-slurm v1.0.45 resolved to an unexpected commit" >&2
        exit 1
    }
    if [[ "$MODEL_PREFIX" == "qwen3.5" ]]; then
        mkdir -p recipes/sglang/qwen3.5/gb200-fp4/agentic
        cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb200-fp4/agentic" \
            recipes/sglang/qwen3.5/gb200-fp4/agentic
    else
        mkdir -p recipes/vllm/deepseek-v4/agentic
        cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/agentic" \
            recipes/vllm/deepseek-v4/agentic
    fi
# TODO(CJQ): migrate the remaining Agentic model paths to released srt-slurm.
elif [[ "$IS_AGENTIC" == "1" ]]; then
    # Agentic multi-node pins cquil11/srt-slurm-nv revisions that provide:
    #   - BenchmarkType.CUSTOM + benchmark.command + benchmark.env
    #     (the hook that hands off to benchmarks/multi_node/agentic_srt.sh)
    #   - DynamoConfig.wheel (recipes pin the ai-dynamo wheel)
    #   - srtctl apply --no-preflight (model path /mnt/numa1 is compute-node
    #     local NVMe, invisible to the login-node runner)
    #   - benchmark_stage srun_options propagation (container-remap-root
    #     must reach the agentic_srt.sh srun)
    git clone https://github.com/cquil11/srt-slurm-nv.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    if [[ "$MODEL_PREFIX" == "kimik3" ]]; then
        # Kimi K3 additionally needs vLLM TP groups within data parallel and
        # every DP engine metrics endpoint exposed to AIPerf.
        git checkout b1fb626fbdbfe3306dcb51cb181ab35861ec3b1c
        mkdir -p recipes/vllm/kimi-k3/agentic
        cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k3/agentic" \
            recipes/vllm/kimi-k3/agentic
        cp "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/configs/kimik3-dspark-config-compat.sh" \
            configs/kimik3-dspark-config-compat.sh
    else
        git checkout de59739b172e507e15ebf145bfe305f606e82fbf
        mkdir -p recipes/vllm/deepseek-v4/agentic
        cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/agentic" \
            recipes/vllm/deepseek-v4/agentic
    fi
elif [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "dsv4" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout v1.0.31
    # Use `cp -rT` so if the upstream branch ever ships a stub
    # `recipes/vllm/deepseek-v4/` directory, we overlay our recipes onto
    # it rather than nesting (`cp -r src dst` would create
    # `recipes/vllm/deepseek-v4/deepseek-v4/...` in that case).
    mkdir -p recipes/vllm/deepseek-v4
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4" recipes/vllm/deepseek-v4
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "dsv4" ]]; then
    # Stay on NVIDIA/srt-slurm:main (default) — submission branch no
    # longer needed; overlay our hand-rolled DSV4 sglang recipes onto it.
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    mkdir -p recipes/sglang/deepseek-v4
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4" recipes/sglang/deepseek-v4
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "glm5.1" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout sa-submission-q2-2026
    mkdir -p recipes/sglang/glm5
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5" recipes/sglang/glm5
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "qwen3.5" ]]; then
    if [[ "$USES_DCGM_POWER" == "1" ]]; then
        # Power lanes run the exact pinned producer SHA, never a moving
        # branch; CI derives POWER_PRODUCER_SHA from the stamp file.
        git clone "$POWER_SRT_SLURM_URL" "$SRT_REPO_DIR"
        cd "$SRT_REPO_DIR"
        git checkout "$POWER_SRT_SLURM_PIN" || exit 1
        test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN" || { echo "Error: srt-slurm HEAD does not match POWER_SRT_SLURM_PIN=$POWER_SRT_SLURM_PIN" >&2; exit 1; }
        git rev-parse HEAD > "$GITHUB_WORKSPACE/power-producer-sha.txt"
    else
        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
        cd "$SRT_REPO_DIR"
    fi
    mkdir -p recipes/sglang/qwen3.5
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5" recipes/sglang/qwen3.5
elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "glm5.1" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    mkdir -p recipes/sglang/glm5
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/glm5" recipes/sglang/glm5
elif [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "minimaxm3" && $PRECISION == "fp8" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR" || exit 1
    cd "$SRT_REPO_DIR" || exit 1
    git checkout sa-submission-q2-2026 || exit 1
    mkdir -p recipes/vllm/minimax-m3-gb200-fp8 || exit 1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m3-gb200-fp8" recipes/vllm/minimax-m3-gb200-fp8 || exit 1
elif [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "kimik2.5" && $PRECISION == "fp4" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR" || exit 1
    cd "$SRT_REPO_DIR" || exit 1
    git checkout main || exit 1
    mkdir -p recipes/vllm/kimi-k2.5-fp4 || exit 1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k2.5-fp4" recipes/vllm/kimi-k2.5-fp4 || exit 1
elif [[ $FRAMEWORK == "dynamo-vllm" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout sa-submission-q2-2026
elif [[ $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "kimik2.5" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout sa-submission-q2-2026
elif [[ $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "glm5" ]]; then
    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
    git checkout v1.0.26
    mkdir -p recipes/trtllm/glm5
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/trtllm/glm5" recipes/trtllm/glm5
else
    git clone --branch cam/sa-submission-q2-2026 --single-branch https://github.com/cquil11/srt-slurm-nv.git "$SRT_REPO_DIR"
    cd "$SRT_REPO_DIR"
fi










































if [[ "$IS_AGENTIC" == "1" ]]; then
    AIPERF_MMAP_CACHE_HOST_PATH="/mnt/lustre01/users-public/sa-shared/ai-perf-cache"
    HF_HUB_CACHE_HOST_PATH="/mnt/lustre01/users-public/sa-shared/hf-hub-cache"
    mkdir -p "$AIPERF_MMAP_CACHE_HOST_PATH" "$HF_HUB_CACHE_HOST_PATH"
    chmod 777 "$AIPERF_MMAP_CACHE_HOST_PATH" "$HF_HUB_CACHE_HOST_PATH" 2>/dev/null || true
    DEFAULT_MOUNTS_BLOCK="default_mounts:
  ${AIPERF_MMAP_CACHE_HOST_PATH}: /aiperf_mmap_cache
  ${HF_HUB_CACHE_HOST_PATH}: /hf_hub_cache"
    if uses_watchtower_shared_fs && [[ "$MODEL_PREFIX" == "glm5.2" && "$PRECISION" == "fp4" && "$FRAMEWORK" == "dynamo-sglang" ]]; then
        DYNAMO_WHEELS_CACHE_HOST_PATH="${SHARED_BASE}/dynamo-wheels"
        mkdir -p "$DYNAMO_WHEELS_CACHE_HOST_PATH"
        chmod 777 "$DYNAMO_WHEELS_CACHE_HOST_PATH" 2>/dev/null || true
        DEFAULT_MOUNTS_BLOCK+="
  ${DYNAMO_WHEELS_CACHE_HOST_PATH}: /configs/dynamo-wheels"
    fi
fi


cat > srtslurm.yaml <<EOF
# SRT SLURM Configuration for GB200

# Default SLURM settings
default_account: "${SLURM_ACCOUNT}"
default_partition: "${SLURM_PARTITION}"
default_time_limit: "6:00:00"

# Resource defaults
gpus_per_node: 4
network_interface: ""

# Path to srtctl repo root (where the configs live)
srtctl_root: "${SRTCTL_ROOT}"

# Model path aliases
model_paths:
  "${SRT_SLURM_MODEL_PREFIX}": "${MODEL_PATH}"
${MODEL_PATHS_EXTRA}
containers:
  dynamo-trtllm: ${SQUASH_FILE}
  dynamo-sglang: ${SQUASH_FILE}
  "${IMAGE}": ${SQUASH_FILE}
  nginx-sqsh: ${NGINX_SQUASH_FILE}
# srtctl defaults this to true, which adds #SBATCH --segment=<total_nodes>.
# On watchtower the whole batch partition (blue-cn01-18) is a single NVL72
# rack, so segment contiguity buys nothing for MNNVL — but it DOES make
# jobs unschedulable when the partition is fragmented: Slurm backfills a
# non-contiguous node set, fails segment placement at start, and the job
# dies with "CANCELLED Reason=Resources" at RunTime=0 (hit by the first
# gb200 agentic run, job 18582). Mirror launch_gb300-nv.sh and disable.
use_segment_sbatch_directive: false
${DEFAULT_MOUNTS_BLOCK}
EOF

# Appended via sed so non-power lanes' generated yaml stays byte-identical.





















































































































































































































