"""A stand-in for the `docker` CLI on a GPU node, for launcher tests (install with `install`).

Every call is appended to $STUB_DOCKER_LOG as one JSON line {"argv": [...], "env": {...}}, where
`env` holds the values a `docker run --env NAME` would pass into the container. `docker run`
then plays the benchmark: it writes realistic raw results into the folder mounted at /results
(client JSON per concurrency, or lm-eval files for eval rows; on a multi-node row only the
head node, NODE_RANK 0, does), after sleeping
$STUB_DOCKER_SLEEP seconds (the client's measurement window is the middle half of them), and exits with $STUB_DOCKER_EXIT (default 0). `docker ps` prints
$STUB_DOCKER_STALE; `docker rm` succeeds.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lib.fake_results import write_raw  # noqa: E402


def install(bin_dir: Path) -> Path:
    """Put an executable `docker` running this stub into ``bin_dir``; returns its path."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    docker = bin_dir / "docker"
    docker.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{Path(__file__).resolve()}" "$@"\n')
    docker.chmod(0o755)
    return docker


def calls(log: Path) -> list[dict]:
    """The recorded calls, oldest first."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def parse_run(argv: list[str]) -> dict:
    """The container env, mounts and command of a `docker run` call."""
    env, mounts, rest, i = {}, {}, [], 0
    takes_value = {"--name", "--label", "--device", "--group-add", "--ipc", "--network", "--shm-size",
                   "--cap-add", "--security-opt", "--ulimit", "--workdir", "--volume", "--env"}
    while i < len(argv):
        arg = argv[i]
        if arg in takes_value:
            value = argv[i + 1]
            if arg == "--env":
                name, sep, given = value.partition("=")
                env[name] = given if sep else os.environ.get(name, "")
            elif arg == "--volume":
                parts = value.split(":")
                if parts[-1] == "ro":
                    parts = parts[:-1]
                mounts[parts[-1]] = ":".join(parts[:-1])
            i += 2
        elif arg.startswith("--"):
            i += 1
        else:
            rest = argv[i:]
            break
    return {"env": env, "mounts": mounts, "command": rest}


def main(argv: list[str]) -> int:
    log = Path(os.environ["STUB_DOCKER_LOG"])
    record: dict = {"argv": argv, "env": {}}
    if argv and argv[0] == "run":
        record.update(parse_run(argv[1:]))
    with log.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    if not argv:
        return 1
    if argv[0] == "ps":
        stale = os.environ.get("STUB_DOCKER_STALE", "")
        if stale:
            print("\n".join(stale.split()))
        return 0
    if argv[0] != "run":
        return 0
    started, sleep = time.time(), float(os.environ.get("STUB_DOCKER_SLEEP", "0"))
    time.sleep(sleep)
    code = int(os.environ.get("STUB_DOCKER_EXIT", "0"))
    if code == 0 and record["env"].get("NODE_RANK", "0") == "0":  # on a multi-node row, the head node
        row = json.loads(record["env"]["CONFIG_JSON"])
        # the client measured in the middle of the server's life
        window = (started + sleep / 4, started + sleep * 3 / 4) if sleep else None
        write_raw(Path(record["mounts"]["/results"]), row, score=float(os.environ.get("STUB_DOCKER_SCORE", "0.95")),
                  window=window)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
