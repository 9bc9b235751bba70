"""Seconds each tree-only sign-off check takes on one real merged PR of the reference, full trees.

The PR is read as benchmarks/probe_merged_prs.py reads it (base = the squash commit's parent,
head = the commit, from the bare clone INFX_REFERENCE_REPO, default the mirror), and the seven
checks run once each in one ``per_verdict.shared`` scope, as the verdict runs them. The largest
PRs (#2263, #2096: 80 non-agentic spec configs, hundreds of row variants) are where Check golden's
cost shows. ``--profile CHECK`` prints that check's top functions (cumulative time).

    python benchmarks/bench_realpr_checks.py 2263 [--profile golden]

Not run by run_all.py or CI; skips, saying so, without the clone.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import probe_merged_prs as probe  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("number", type=int, help="the PR number")
    parser.add_argument("--profile", metavar="CHECK", help="profile this check")
    parser.add_argument("--limit", type=int, default=400, help="newest first-parent commits searched")
    args = parser.parse_args(argv)
    reference = probe.REFERENCE
    if not (reference / "HEAD").exists():
        print(f"skipped: no clone of the reference repository at {reference} (set INFX_REFERENCE_REPO)")
        return 0
    found = [pr for pr in probe.merged_prs(reference, args.limit) if pr["number"] == args.number]
    if not found:
        print(f"#{args.number} is not among the newest {args.limit} first-parent commits", file=sys.stderr)
        return 1
    pr = found[0]
    generator, corpus = probe.tools()
    from infx.signoff import per_verdict
    from infx.signoff.table import load_table

    base, head = generator.full_tree(pr["base"]), generator.full_tree(pr["sha"])
    evidence = corpus.evidence(base, head, datetime.fromisoformat(pr["merged_at"]), pr["base"], pr["sha"])
    settings = load_table().settings
    profile = cProfile.Profile()
    total = time.perf_counter()
    with per_verdict.shared(evidence):
        for name, module in corpus.CHECKS.items():
            start = time.perf_counter()
            if name == args.profile:
                profile.enable()
            outcome = module.run(evidence, settings)
            if name == args.profile:
                profile.disable()
            print(f"{name:<11} {time.perf_counter() - start:6.2f} s  {outcome.status.value}")
    print(f"{'all':<11} {time.perf_counter() - total:6.2f} s")
    if args.profile:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
