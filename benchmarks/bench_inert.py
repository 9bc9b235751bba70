"""Inertness under GitHub's renderer: >= 20,000 generated hostile strings per renderer of untrusted text.

Each string (tests/lib/inert_oracle.py: autolink triggers after every punctuation character, HTML,
entities, mentions, pipes, backticks, brackets, emphasis, line separators, sentinels) goes
through every renderer (verdict rows, report tables and charts, report notes, step summaries,
acknowledgement summaries); cmark-gfm renders the markdown and the oracle looks for a tag,
attribute, table cell, mention, reference or shortcode the product did not write.
Printed per renderer: strings checked, strings with structure, the first few, and the rate.
Run: python benchmarks/bench_inert.py [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "lib"))

import inert_oracle as oracle  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    failed = False
    for name, renderer in oracle.RENDERERS.items():
        rng = random.Random(f"{args.seed}:{name}")
        started, bad = time.perf_counter(), []
        for _ in range(args.count):
            text = oracle.generate(rng)
            found = oracle.problems(renderer, text)
            if found:
                bad.append((text, found))
        seconds = time.perf_counter() - started
        print(f"{name}: {args.count} strings, {len(bad)} with structure the product did not write "
              f"({args.count / seconds:.0f} strings/s)")
        for text, found in bad[:5]:
            print(f"  {text!r}: {found}")
        failed = failed or bool(bad)
    print("FAIL" if failed else "PASS: every renderer inert")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
