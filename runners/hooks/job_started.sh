#!/usr/bin/env bash
# The runner's ACTIONS_RUNNER_HOOK_JOB_STARTED script: runs job_started.py from this folder
# (install both outside any job workspace, owned by root, read-only for the runner user).
set -euo pipefail
exec python3 "$(dirname "$0")/job_started.py"
