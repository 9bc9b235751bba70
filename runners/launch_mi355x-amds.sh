#!/usr/bin/env bash
# Launcher for the MI355X runners named mi355x-amds_NN (labels mi355x, mi355x-disagg and
# cluster:mi355x-amds in configs/runners.yaml). `python -m infx.workflow launch` runs it with
# the matrix row as UPPER_SNAKE variables (INFX_ROW_VARS lists their names), RESULT_NAME,
# INFX_RAW_DIR (empty; the benchmark's raw output goes there and is normalised after this
# script succeeds), INFX_POWER_DIR (empty; GPU power samples, see below) and, for a multi-node
# row, INFX_NODES, INFX_PREFILL_NODES and INFX_DECODE_NODES (the nodes the row's prefill and
# decode workers need).
#
# A single-node row runs the row's image with the row's recipe script on this node's GPUs.
# A multi-node row (prefill/decode workers) runs across INFX_NODES Slurm nodes: this runner is
# then a Slurm submit host, `srun` starts this script again on every allocated node
# (`--node`), and each node runs the image with the recipe, told its place by NODE_RANK
# (0 = head: router and benchmark client), NUM_NODES, HEAD_NODE, PREFILL_NODE_COUNT and
# DECODE_NODE_COUNT (nodes 0..PREFILL_NODE_COUNT-1 serve prefill, the others decode).
# Every exit (success, failure, timeout, cancellation) removes the job's own containers and
# its Slurm job.
#
# While a node's container runs, this script samples the node's GPU power every
# INFX_POWER_INTERVAL seconds into INFX_POWER_DIR/power_node<rank>.samples: per tick a line
# "# sample <unix time> <tool> <exit status>" and the output of `amd-smi metric --power --csv`
# (`rocm-smi --showpower --csv` when amd-smi is missing); "# tool none" when neither is on PATH.
# One last tick follows the container's exit so that the samples bracket the benchmark's
# measurement window. infx.results.power turns them into the rows' power and energy fields.
#
# Provided by the runner's maintainer (runner .env file or service environment, never by a row):
#   INFX_MODEL_CACHE      host folder with the Hugging Face model cache (required; on every
#                         Slurm node too, at the same path)
#   INFX_TIMEOUT          wall-clock limit of the benchmark in timeout(1) syntax (default 470m,
#                         below the job's 500-minute timeout so that this script still cleans up)
#   INFX_SHM_SIZE         shared memory of the container (default 64g)
#   INFX_SLURM_PARTITION  Slurm partition of the MI355X nodes (multi-node rows; default: the
#                         cluster's default partition)
#   INFX_POWER_INTERVAL   seconds between GPU power samples (default 1; amd-smi, else rocm-smi)
#   HF_TOKEN              from the workflow's HF_TOKEN secret, for gated models
set -euo pipefail

die() { echo "::error::launch_mi355x-amds: $*" >&2; exit 2; }

mode="${1:-job}"
for name in RESULT_NAME INFX_RAW_DIR INFX_ROW_VARS IMAGE MODEL_PREFIX PRECISION FRAMEWORK; do
  [ -n "${!name:-}" ] || die "$name is not set; run this script through \`python -m infx.workflow launch\`"
done
model_cache="${INFX_MODEL_CACHE:-}"
[ -n "$model_cache" ] || die "INFX_MODEL_CACHE is not set; set it in the runner's .env to the host's model cache folder"
[ -d "$model_cache" ] || die "the model cache $model_cache does not exist on $(hostname)"
[ -d "$INFX_RAW_DIR" ] || die "INFX_RAW_DIR $INFX_RAW_DIR is not a folder on $(hostname)"
limit="${INFX_TIMEOUT:-470m}"
[[ "$limit" =~ ^[1-9][0-9]*[smh]?$ ]] || die "INFX_TIMEOUT must be a duration like 470m, 8h or 90s"

# The recipe script (the reference's naming rule, the one infx.plan.launch_graph follows; the
# first existing candidate wins): single-node rows
# benchmarks/single_node/<fixed_seq_len|agentic>/<model-prefix>_<precision>_mi355x_<framework>[_mtp].sh,
# then the historical name without _<framework> (_trt for trt) [_mtp], and for an MTP row the
# same two without _mtp; multi-node rows
# benchmarks/multi_node/[agentic/]<model-prefix>_<precision>_mi355x_<framework>.sh (or …-disagg.sh).
node=single_node
[ -n "${PREFILL_TP:-}" ] && node=multi_node
stem="${MODEL_PREFIX}_${PRECISION}_mi355x"
if [ "$node" = single_node ]; then
  folder=benchmarks/single_node/fixed_seq_len
  [ "${SCENARIO_TYPE:-}" = agentic-coding ] && folder=benchmarks/single_node/agentic
  legacy=""
  [ "$FRAMEWORK" = trt ] && legacy=_trt
  mtp=""
  [ "${SPEC_DECODING:-none}" = mtp ] && mtp=_mtp
  candidates=("${folder}/${stem}_${FRAMEWORK}${mtp}.sh" "${folder}/${stem}${legacy}${mtp}.sh")
  [ -n "$mtp" ] && candidates+=("${folder}/${stem}_${FRAMEWORK}.sh" "${folder}/${stem}${legacy}.sh")
else
  folder=benchmarks/multi_node
  [ "${SCENARIO_TYPE:-}" = agentic-coding ] && folder=benchmarks/multi_node/agentic
  candidates=("${folder}/${stem}_${FRAMEWORK}.sh" "${folder}/${stem}_${FRAMEWORK}-disagg.sh")
fi
recipe=""
for candidate in "${candidates[@]}"; do
  if [ -f "$candidate" ]; then recipe="$candidate"; break; fi
done
[ -n "$recipe" ] || die "no recipe script for this row: add ${folder}/${stem}_${FRAMEWORK}.sh (looked for ${candidates[*]})"

run_id="${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}"
runner="${INFX_RUNNER:-${RUNNER_NAME:-$(hostname)}}"
export INFX_RUNNER="$runner"
if [ -z "${INFX_CONTAINER:-}" ]; then
  INFX_CONTAINER="infx-${run_id}-${RESULT_NAME:0:80}-$$"
  INFX_CONTAINER="${INFX_CONTAINER//[^A-Za-z0-9_.-]/-}"
  export INFX_CONTAINER
fi
mkdir -p logs

# The row's variables by name only (values stay out of the process list); the launcher's own
# settings come last and cannot be replaced by a row (infx.workflow.launch refuses such rows).
env_args=()
for name in $INFX_ROW_VARS; do
  [[ "$name" =~ ^[A-Z_][A-Z0-9_]*$ ]] || die "invalid row variable name $name"
  env_args+=(--env "$name")
done
[ -n "${HF_TOKEN:-}" ] && env_args+=(--env HF_TOKEN)
env_args+=(--env "RESULT_NAME=${RESULT_NAME}" --env "RESULTS=/results" --env "LOGS=/logs" --env "HF_HOME=/models"
           --env "INFX_RUNNER_NAME=${runner}")

remove_stale_containers() {
  # Containers this runner left behind (a job killed before its cleanup ran) are ours to
  # remove; nobody else's containers are touched.
  local stale
  stale="$(docker ps --all --quiet --filter "label=infx.runner=${runner}")" || stale=""
  if [ -n "$stale" ]; then
    # shellcheck disable=SC2086
    docker rm --force $stale >/dev/null || true
  fi
}

# GPU power sampling of this node (best effort: a sampling problem never fails the job).
sampler=""
power_file=""
power_tick() {
  local when out status=0
  when="$(date +%s.%N)"
  if [ "$power_tool" = amd-smi ]; then
    out="$(amd-smi metric --power --csv 2>/dev/null)" || status=$?
  else
    out="$(rocm-smi --showpower --csv 2>/dev/null)" || status=$?
  fi
  printf '# sample %s %s %s\n%s\n' "$when" "$power_tool" "$status" "$out" >> "$power_file"
}
start_power_sampler() {
  local interval="${INFX_POWER_INTERVAL:-1}"
  [[ "$interval" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "INFX_POWER_INTERVAL must be a number of seconds"
  [ -n "${INFX_POWER_DIR:-}" ] && [ -d "$INFX_POWER_DIR" ] || return 0
  power_file="${INFX_POWER_DIR}/power_node${1}.samples"
  power_stop="${power_file}.stop"
  rm -f "$power_stop"
  if command -v amd-smi >/dev/null; then power_tool=amd-smi
  elif command -v rocm-smi >/dev/null; then power_tool=rocm-smi
  else
    echo "# tool none" > "$power_file"
    echo "::warning::launch_mi355x-amds: neither amd-smi nor rocm-smi is on PATH of $(hostname); the rows' power is invalid" >&2
    power_file=""
    return 0
  fi
  echo "# tool ${power_tool}" > "$power_file"
  ( trap - EXIT INT TERM HUP
    while [ ! -e "$power_stop" ]; do power_tick; sleep "$interval"; done ) &
  sampler=$!
}
stop_power_sampler() {
  [ -n "$sampler" ] || return 0
  : > "$power_stop"
  wait "$sampler" 2>/dev/null || true  # lets the current tick finish: no partial sample
  sampler=""
  power_tick  # the tick after the benchmark's end
  rm -f "$power_stop"
}

child=""
container=""
slurm_job=""
cleanup() {
  stop_power_sampler
  if [ -n "$container" ]; then docker rm --force "$container" >/dev/null 2>&1 || true; fi
  if [ -n "${slurm_job:-}" ]; then scancel --quiet --name "$slurm_job" --user "$(id -un)" >/dev/null 2>&1 || true; fi
}
on_signal() {
  local what="container $container"
  [ -n "$container" ] || what="Slurm job ${slurm_job:-}"
  echo "::warning::launch_mi355x-amds: cancelled; removing $what (on $(hostname))" >&2
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
  cleanup
  exit 130
}
trap cleanup EXIT
trap on_signal INT TERM HUP

# Runs the row's image with the recipe on this node's GPUs, in the background so that a
# cancellation signal runs on_signal at once (bash defers traps until a foreground command ends).
run_container() {
  timeout --signal=TERM --kill-after=60 "$limit" docker run --rm --name "$container" \
    --label "infx.runner=${runner}" --label "infx.run=${run_id}" --label "infx.result=${RESULT_NAME}" \
    --device /dev/kfd --device /dev/dri --group-add video --group-add render \
    --ipc host --network host --shm-size "${INFX_SHM_SIZE:-64g}" \
    --cap-add SYS_PTRACE --security-opt seccomp=unconfined --ulimit memlock=-1:-1 \
    --volume "${PWD}:/workspace:ro" --volume "${INFX_RAW_DIR}:/results" --volume "${PWD}/logs:/logs" \
    --volume "${model_cache}:/models" --workdir /workspace "${env_args[@]}" "$@" \
    "$IMAGE" bash "/workspace/${recipe}" &
  child=$!
}

finish() {
  local status=0
  wait "$child" || status=$?
  child=""
  stop_power_sampler
  if [ "$status" -eq 124 ]; then
    echo "::error::launch_mi355x-amds: the benchmark exceeded its time limit (${limit}) and was stopped" >&2
  fi
  exit "$status"
}

if [ "$mode" = --node ]; then
  # One node of a multi-node row, started by srun below.
  rank="${SLURM_NODEID:-}"
  [ -n "$rank" ] || die "--node runs under srun (SLURM_NODEID is not set)"
  for name in INFX_NODES INFX_PREFILL_NODES INFX_DECODE_NODES INFX_HEAD_NODE INFX_SHARED_MARK; do
    [ -n "${!name:-}" ] || die "$name is not set; --node is started by this script's multi-node path"
  done
  [ -f "$INFX_SHARED_MARK" ] || die "node $(hostname) does not see $INFX_SHARED_MARK: the runner's work folder must be on a filesystem shared with the Slurm nodes, at the same path"
  container="${INFX_CONTAINER}-n${rank}"
  remove_stale_containers
  echo "launch_mi355x-amds: node ${rank}/${INFX_NODES} ($(hostname)): ${recipe} in ${IMAGE}"
  start_power_sampler "$rank"
  run_container --device /dev/infiniband --cap-add IPC_LOCK \
    --env "NODE_RANK=${rank}" --env "NUM_NODES=${INFX_NODES}" --env "HEAD_NODE=${INFX_HEAD_NODE}" \
    --env "PREFILL_NODE_COUNT=${INFX_PREFILL_NODES}" --env "DECODE_NODE_COUNT=${INFX_DECODE_NODES}"
  finish
fi

if [ "$node" = multi_node ]; then
  for name in INFX_NODES INFX_PREFILL_NODES INFX_DECODE_NODES; do
    [[ "${!name:-}" =~ ^[1-9][0-9]*$ ]] || die "$name is not a node count; run this script through \`python -m infx.workflow launch\`"
  done
  for tool in srun scancel; do
    command -v "$tool" >/dev/null || die "a multi-node row needs Slurm on the runner ($tool is not on PATH of $runner): make it a Slurm submit host of the MI355X nodes"
  done
  # One Slurm job per runner at a time (runners are ephemeral): a job left behind by an
  # earlier, killed job of this runner is cancelled first; nobody else's jobs are touched.
  slurm_job="infx.${runner}"
  scancel --quiet --name "$slurm_job" --user "$(id -un)" >/dev/null 2>&1 || true
  export INFX_SHARED_MARK="${INFX_RAW_DIR}/.infx-shared-${run_id}"
  : > "$INFX_SHARED_MARK"
  partition=()
  [ -n "${INFX_SLURM_PARTITION:-}" ] && partition=(--partition "$INFX_SLURM_PARTITION")
  echo "launch_mi355x-amds: ${recipe} in ${IMAGE} on ${INFX_NODES} nodes (${INFX_PREFILL_NODES} prefill, ${INFX_DECODE_NODES} decode; Slurm job ${slurm_job}, limit ${limit})"
  # The head node is the first of the allocation; srun passes this environment on.
  timeout --signal=TERM --kill-after=120 "$limit" \
    srun --job-name "$slurm_job" "${partition[@]}" --nodes "$INFX_NODES" --ntasks-per-node 1 --exclusive \
      --kill-on-bad-exit=1 --export=ALL \
      bash -c 'INFX_HEAD_NODE="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)" exec bash "$0" --node' \
      "$0" &
  child=$!
  finish
fi

container="$INFX_CONTAINER"
remove_stale_containers
echo "launch_mi355x-amds: ${recipe} in ${IMAGE} (container ${container}, limit ${limit})"
start_power_sampler 0
run_container
finish
