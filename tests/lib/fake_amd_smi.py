"""A fake `amd-smi` (and `rocm-smi`) for the launcher's GPU power sampling (tests only).

`amd-smi metric --power --csv` prints one CSV line per GPU in AMDSMI's column layout, and
`rocm-smi --showpower --csv` its own (`device,Current Socket Graphics Package Power (W)`,
devices `card<N>`). $FAKE_AMD_SMI_GPUS GPUs (default 8) draw about $FAKE_AMD_SMI_WATTS watts
(default 600) each. $FAKE_AMD_SMI_MODE plays a broken tool: `garbled` (GPU 1 reports N/A),
`partial` (the last GPU's line is cut short), `fail` (exits 1 with nothing on stdout). Every
call is appended to $FAKE_AMD_SMI_LOG, when set, as a JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

AMD_HEADER = "gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management"


def install(bin_dir: Path, tools: tuple[str, ...] = ("amd-smi",)) -> list[Path]:
    """Put executable stand-ins for ``tools`` (amd-smi, rocm-smi) into ``bin_dir``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for tool in tools:
        path = bin_dir / tool
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{Path(__file__).resolve()}" {tool} "$@"\n')
        path.chmod(0o755)
        paths.append(path)
    return paths


def output(tool: str, gpus: int, watts: float, mode: str, now: float) -> str:
    lines = [AMD_HEADER if tool == "amd-smi" else "device,Current Socket Graphics Package Power (W)"]
    for gpu in range(gpus):
        value = "N/A" if mode == "garbled" and gpu == 1 else f"{watts + 10 * gpu + (now % 7):.1f}"
        line = (f"{gpu},{value},N/A,N/A,N/A,UNTHROTTLED,ENABLED" if tool == "amd-smi"
                else f"card{gpu},{value}")
        if mode == "partial" and gpu == gpus - 1:
            line = line.split(",", 1)[0]
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    if os.environ.get("FAKE_AMD_SMI_LOG"):
        with Path(os.environ["FAKE_AMD_SMI_LOG"]).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"tool": tool, "argv": args}) + "\n")
    wanted = ["metric", "--power", "--csv"] if tool == "amd-smi" else ["--showpower", "--csv"]
    mode = os.environ.get("FAKE_AMD_SMI_MODE", "ok")
    if args != wanted or mode == "fail":
        print(f"{tool}: unsupported call {args}" if args != wanted else f"{tool}: GPU not found", file=sys.stderr)
        return 1
    sys.stdout.write(output(tool, int(os.environ.get("FAKE_AMD_SMI_GPUS", "8")),
                            float(os.environ.get("FAKE_AMD_SMI_WATTS", "600")), mode, time.time()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
