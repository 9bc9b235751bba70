"""Reuse-command benchmark: hostile comment bodies through GitHub's renderer (cmark-gfm).

A command only counts as rendered text, so every comment holding a command line is rendered.
GitHub caps a comment at 65,536 characters; this times the worst shapes we know at that size
(deep block quotes, bracket and emphasis runs, raw HTML, entities), best of three, in one
process and as a whole `infx reuse parse` process, next to a bar of 2 s per comment.
Run: ``python benchmarks/bench_reuse.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 65_536  # GitHub's comment body limit
BAR = 2.0
SHAPES = {
    "nested block quotes": ">",
    "open brackets": "[",
    "emphasis runs": "*a ",
    "link openers": "[a](",
    "raw html tags": "<b>",
    "html comment openers": "<!--",
    "entities": "&amp;",
    "list markers": "- ",
    "backticks": "`",
}


def body(unit: str) -> str:
    head = "/reuse-sweep-run 42\n\n"  # a command line, so the body is rendered at all
    return head + unit * ((LIMIT - len(head)) // len(unit))


def best_of(fn, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from infx.commands.grammar import parse_command

    worst, worst_name, over = 0.0, "", False
    for name, unit in SHAPES.items():
        text = body(unit)
        seconds = best_of(lambda text=text: parse_command.__wrapped__(text))  # uncached
        worst, worst_name = max((worst, worst_name), (seconds, name))
        over |= seconds > BAR
        print(f"{name:22s} {len(text):6d} chars  {seconds * 1000:8.1f} ms   (bar {BAR:.0f} s)")
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as handle:
        handle.write(body(SHAPES[worst_name]))
    command = [sys.executable, "-m", "infx", "reuse", "parse", handle.name]
    whole = best_of(lambda: subprocess.run(command, check=True, capture_output=True, cwd=ROOT))
    Path(handle.name).unlink()
    over |= whole > BAR
    print(f"whole process, worst shape ({worst_name}): {whole:.2f} s   (bar {BAR:.0f} s)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
