"""Stand-ins for Slurm's `srun`, `scancel` and `scontrol` on a runner that submits multi-node rows
(tests only; install with `install`).

Every call is appended to $STUB_SLURM_LOG as one JSON line {"tool": ..., "argv": [...]}.
`srun --nodes N … CMD…` starts CMD once per node at the same time, as Slurm does with
`--ntasks-per-node 1`: each task gets SLURM_NODEID, SLURM_PROCID, SLURM_NNODES,
SLURM_JOB_NAME and SLURM_JOB_NODELIST (nodes named `$STUB_SLURM_PREFIX<i>`, default
`mi355x-amds-c`), and srun exits with the first non-zero task status (`--kill-on-bad-exit`
stops the others). SIGTERM/SIGINT are passed on to the tasks. `scontrol show hostnames LIST`
prints the nodes of a list srun made; `scancel` succeeds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TOOLS = ("srun", "scancel", "scontrol")
_TAKES_VALUE = {"--job-name", "--nodes", "--ntasks-per-node", "--partition", "--export", "--time", "-N", "-J", "-p"}


def install(bin_dir: Path) -> list[Path]:
    """Put executable `srun`, `scancel` and `scontrol` running this stub into ``bin_dir``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for tool in TOOLS:
        path = bin_dir / tool
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{Path(__file__).resolve()}" {tool} "$@"\n')
        path.chmod(0o755)
        paths.append(path)
    return paths


def calls(log: Path) -> list[dict]:
    """The recorded calls, oldest first."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _options(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    options, i = {}, 0
    while i < len(argv):
        arg = argv[i]
        if arg in _TAKES_VALUE:
            options[arg] = argv[i + 1]
            i += 2
        elif arg.startswith("-"):
            name, _, value = arg.partition("=")
            options[name] = value
            i += 1
        else:
            return options, argv[i:]
    return options, []


def _nodes(count: int) -> list[str]:
    prefix = os.environ.get("STUB_SLURM_PREFIX", "mi355x-amds-c")
    return [f"{prefix}{i}" for i in range(count)]


def srun(argv: list[str]) -> int:
    options, command = _options(argv)
    count = int(options.get("--nodes") or options.get("-N") or 1)
    nodes = _nodes(count)
    job = options.get("--job-name") or options.get("-J") or "stub"
    tasks = []
    for rank in range(count):
        env = dict(os.environ) | {"SLURM_NODEID": str(rank), "SLURM_PROCID": str(rank),
                                  "SLURM_NNODES": str(count), "SLURM_JOB_NAME": job,
                                  "SLURM_JOB_NODELIST": ",".join(nodes), "SLURMD_NODENAME": nodes[rank]}
        tasks.append(subprocess.Popen(command, env=env))

    def forward(signum: int, _frame: object) -> None:
        for task in tasks:
            if task.poll() is None:
                task.send_signal(signal.SIGTERM)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    status = 0
    while any(task.poll() is None for task in tasks):
        failed = [t.returncode for t in tasks if t.returncode not in (None, 0)]
        if failed and "--kill-on-bad-exit" in options and not status:
            status = failed[0]
            forward(signal.SIGTERM, None)
        time.sleep(0.05)
    codes = [t.returncode for t in tasks]
    return status or next((c if c > 0 else 128 - c for c in codes if c != 0), 0)


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    with Path(os.environ["STUB_SLURM_LOG"]).open("a") as handle:
        handle.write(json.dumps({"tool": tool, "argv": args}) + "\n")
    if tool == "srun":
        return srun(args)
    if tool == "scontrol" and args[:2] == ["show", "hostnames"]:
        print("\n".join(args[2].split(",")) if len(args) > 2 else "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
