"""CODEOWNERS matching against the PyPI `codeowners` oracle at scale: 100,000 random patterns and 100,000 files.

tests/unit/signoff/test_signoff_codeowners.py runs the same two differential properties with
Hypothesis on 600 (pattern, path) pairs and 200 whole files so the unit suite stays fast (the
Hypothesis engine, not the matching, was most of their cost); this draws --count of each from
the same spaces with a seeded random generator and prints every disagreement.
Run: python benchmarks/bench_codeowners_oracle.py [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "signoff"))

import test_signoff_codeowners as suite  # noqa: E402

from infx.signoff.trigger import codeowners  # noqa: E402


def pattern(rng: random.Random) -> str:
    segments = [rng.choice(suite.GLOB_SEGMENTS) for _ in range(rng.randint(1, 4))]
    return rng.choice(["", "/"]) + "/".join(segments) + rng.choice(["", "/"])


def path(rng: random.Random) -> str:
    return "/".join(rng.choice(suite.PATH_SEGMENTS) for _ in range(rng.randint(1, 5)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    bad: list[tuple[str, str]] = []
    started = time.perf_counter()
    for _ in range(args.count):
        line, file = pattern(rng), path(rng)
        ours = codeowners.parse(f"{line} @o\n").rules[0].matches(file)
        if ours != bool(suite.oracle_owners(f"{line} @o", file)):
            bad.append((line, file))
    seconds = time.perf_counter() - started
    print(f"patterns: {args.count} pairs, {len(bad)} disagree ({args.count / seconds:.0f} pairs/s)")
    for case in bad[:5]:
        print(f"  {case}")
    wrong: list[tuple[str, str]] = []
    started = time.perf_counter()
    for _ in range(args.count):
        text = "".join(f"{pattern(rng)} {rng.choice(suite.OWNERS)}\n" for _ in range(rng.randint(1, 6)))
        file = path(rng)
        if codeowners.parse(text).owners_for(file) != suite.oracle_owners(text, file):
            wrong.append((text, file))
    seconds = time.perf_counter() - started
    print(f"whole files: {args.count} files, {len(wrong)} disagree ({args.count / seconds:.0f} files/s)")
    for case in wrong[:5]:
        print(f"  {case}")
    failed = bool(bad or wrong)
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
