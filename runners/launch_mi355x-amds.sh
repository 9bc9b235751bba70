#!/usr/bin/env bash
# Launcher for the MI355X runners named mi355x-amds_NN (labels mi355x, mi355x-disagg and
# cluster:mi355x-amds in configs/runners.yaml). `python -m infx.workflow launch` runs it with
# the matrix row as UPPER_SNAKE variables (INFX_ROW_VARS lists their names), RESULT_NAME,
# and INFX_RAW_DIR (empty; the benchmark's raw output goes there and is normalised after
# this script succeeds).
#
# It runs the row's image with the row's recipe script on this node's GPUs and removes the
# job's own container on every exit: success, failure, timeout and cancellation.
#
# Provided by the runner's maintainer (runner .env file or service environment, never by a row):
#   INFX_MODEL_CACHE      host folder with the Hugging Face model cache (required)
#   INFX_TIMEOUT          wall-clock limit of the benchmark container in timeout(1) syntax
#                         (default 470m, below the job's 500-minute timeout so that this script
#                         still cleans up)
#   INFX_SHM_SIZE         shared memory of the container (default 64g)
#   HF_TOKEN              from the workflow's HF_TOKEN secret, for gated models
set -euo pipefail

die() { echo "::error::launch_mi355x-amds: $*" >&2; exit 2; }

for name in RESULT_NAME INFX_RAW_DIR INFX_ROW_VARS IMAGE MODEL_PREFIX PRECISION FRAMEWORK; do
  [ -n "${!name:-}" ] || die "$name is not set; run this script through \`python -m infx.workflow launch\`"
done
model_cache="${INFX_MODEL_CACHE:-}"
[ -n "$model_cache" ] || die "INFX_MODEL_CACHE is not set; set it in the runner's .env to the host's model cache folder"
[ -d "$model_cache" ] || die "the model cache $model_cache does not exist on $(hostname)"
[ -d "$INFX_RAW_DIR" ] || die "INFX_RAW_DIR $INFX_RAW_DIR is not a folder"
limit="${INFX_TIMEOUT:-470m}"
[[ "$limit" =~ ^[1-9][0-9]*[smh]?$ ]] || die "INFX_TIMEOUT must be a duration like 470m, 8h or 90s"

# The recipe script: benchmarks/<single_node|multi_node>/<fixed_seq_len|agentic>/
# <model-prefix>_<precision>_mi355x_<framework>[_mtp].sh, the _mtp variant when the row
# decodes speculatively with MTP and the script exists.
node=single_node
[ -n "${PREFILL_TP:-}" ] && node=multi_node
scenario=fixed_seq_len
[ "${SCENARIO_TYPE:-}" = agentic-coding ] && scenario=agentic
base="benchmarks/${node}/${scenario}/${MODEL_PREFIX}_${PRECISION}_mi355x_${FRAMEWORK}"
recipe="${base}.sh"
if [ "${SPEC_DECODING:-none}" = mtp ] && [ -f "${base}_mtp.sh" ]; then recipe="${base}_mtp.sh"; fi
[ -f "$recipe" ] || die "no recipe script for this row: add $recipe (or ${base}_mtp.sh)"

run_id="${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}"
runner="${RUNNER_NAME:-$(hostname)}"
container="infx-${run_id}-${RESULT_NAME:0:80}-$$"
container="${container//[^A-Za-z0-9_.-]/-}"

child=""
cleanup() {
  docker rm --force "$container" >/dev/null 2>&1 || true
}
on_signal() {
  echo "::warning::launch_mi355x-amds: cancelled; removing container $container" >&2
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
  cleanup
  exit 130
}
trap cleanup EXIT
trap on_signal INT TERM HUP

# Containers this runner left behind (a job killed before its cleanup ran) are ours to remove;
# nobody else's containers are touched.
stale="$(docker ps --all --quiet --filter "label=infx.runner=${runner}")" || stale=""
if [ -n "$stale" ]; then
  # shellcheck disable=SC2086
  docker rm --force $stale >/dev/null || true
fi

# The row's variables by name only (values stay out of the process list); the launcher's own
# settings come last and cannot be replaced by a row (infx.workflow.launch refuses such rows).
env_args=()
for name in $INFX_ROW_VARS; do
  [[ "$name" =~ ^[A-Z_][A-Z0-9_]*$ ]] || die "invalid row variable name $name"
  env_args+=(--env "$name")
done
[ -n "${HF_TOKEN:-}" ] && env_args+=(--env HF_TOKEN)
env_args+=(--env "RESULT_NAME=${RESULT_NAME}" --env "RESULTS=/results" --env "HF_HOME=/models"
           --env "INFX_RUNNER_NAME=${runner}")

echo "launch_mi355x-amds: ${recipe} in ${IMAGE} (container ${container}, limit ${limit})"
# In the background, so that a cancellation signal runs on_signal at once (bash defers traps
# until a foreground command ends).
timeout --signal=TERM --kill-after=60 "$limit" \
  docker run --rm --name "$container" \
    --label "infx.runner=${runner}" --label "infx.run=${run_id}" --label "infx.result=${RESULT_NAME}" \
    --device /dev/kfd --device /dev/dri --group-add video --group-add render \
    --ipc host --network host --shm-size "${INFX_SHM_SIZE:-64g}" \
    --cap-add SYS_PTRACE --security-opt seccomp=unconfined --ulimit memlock=-1:-1 \
    --volume "${PWD}:/workspace:ro" --volume "${INFX_RAW_DIR}:/results" --volume "${model_cache}:/models" \
    --workdir /workspace "${env_args[@]}" \
    "$IMAGE" bash "/workspace/${recipe}" &
child=$!
status=0
wait "$child" || status=$?
child=""
if [ "$status" -eq 124 ]; then
  echo "::error::launch_mi355x-amds: the benchmark exceeded its time limit (${limit}) and was stopped" >&2
fi
exit "$status"
