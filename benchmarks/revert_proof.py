"""Revert proof for issue 10: the loop test fails if any one of the issue's items 1–4 is reverted.

For each revert below, this script makes a temporary git worktree of the current commit under
/tmp, applies a minimal revert of one item there (the code as it was before the item, in the
smallest edit that restores the old behaviour), runs tests/e2e/test_loop.py in it and reports which
scenarios fail; the worktree is removed afterwards, the repository itself is never touched.
A baseline run without any revert comes first and must pass. Not part of `.ci/run`: it runs the
loop test once per revert (a few minutes each on a shared machine).

    python benchmarks/revert_proof.py [--only 1a 3b …] [--keep]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOOP_TEST = "tests/e2e/test_loop.py"


def _replace(path: str, old: str, new: str) -> Callable[[Path], None]:
    """An edit of one file; fails loudly when the code no longer holds `old` (the revert is stale)."""

    def apply(tree: Path) -> None:
        target = tree / path
        text = target.read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"revert_proof: {path} no longer contains the text this revert edits:\n{old}")
        target.write_text(text.replace(old, new, 1), encoding="utf-8")

    return apply


def _delete(path: str) -> Callable[[Path], None]:
    def apply(tree: Path) -> None:
        (tree / path).unlink()

    return apply


@dataclass(frozen=True)
class Revert:
    key: str
    item: str
    what: str
    apply: Callable[[Path], None]


REVERTS = (
    Revert("1a", "1 row identity", "job names without the identity: `<prefix> <precision> <runner> <framework> c<conc>`",
           _replace("infx/plan/identity.py",
                    '    suffix = " #" + digest(row)\n',
                    '    return " ".join(readable_tokens(row)[:4] + [_conc(row.get("conc"))])\n'
                    '    suffix = " #" + digest(row)\n')),
    Revert("1b", "1 row identity", "result and artifact names `exp_prec_fw_tp-ep_conc` (before the runner), no identity",
           _replace("infx/plan/identity.py",
                    '    tokens = [_UNSAFE_SLUG.sub("-", t).strip("-") or "-" for t in readable_tokens(row)]\n',
                    '    return "_".join(_UNSAFE_SLUG.sub("-", str(row.get(f))) for f in ("exp-name", "precision", '
                    '"framework")) + f"_tp{row.get(\'tp\')}-ep{row.get(\'ep\')}_conc{row.get(\'conc\')}"\n'
                    '    tokens = [_UNSAFE_SLUG.sub("-", t).strip("-") or "-" for t in readable_tokens(row)]\n')),
    Revert("1c", "1 row identity", "Check 1 keeps one job per name (a success wins), not every job of the latest attempt",
           _replace("infx/signoff/rules/sweeps.py",
                    "    newest: dict[str, int] = {}\n",
                    "    return list({job.name: job for job in sorted(jobs, key=lambda j: (j.run_attempt, "
                    "j.conclusion == 'success'))}.values())\n    newest: dict[str, int] = {}\n")),
    Revert("1d", "1 row identity", "the agentic family named `single-node agentic` in run-sweep.yml (Check 1 expects `agentic`)",
           _replace(".github/workflows/run-sweep.yml", "    name: agentic\n", "    name: single-node agentic\n")),
    Revert("2a", "2 launchers", "no runners/launch_mi355x-amds.sh",
           _delete("runners/launch_mi355x-amds.sh")),
    Revert("2b", "2 launchers", "the launcher runs a multi-node row in one container on the runner (no Slurm)",
           _replace("runners/launch_mi355x-amds.sh", 'if [ "$node" = multi_node ]; then\n',
                    'if false; then\n')),
    Revert("3a", "3 normalised results", "`collect --kind eval` concatenates every JSON file of the eval_* artifacts",
           _replace("infx/workflow/collect.py",
                    '    rows = benchmark_rows(directory) if kind == normalise.BENCHMARK else eval_rows(directory)\n',
                    '    if kind == normalise.EVAL:\n'
                    '        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.rglob("*.json"))]\n'
                    '    rows = benchmark_rows(directory) if kind == normalise.BENCHMARK else eval_rows(directory)\n')),
    Revert("3b", "3 normalised results", "the benchmark job uploads the client's raw JSON, not normalised rows",
           _replace("infx/workflow/launch.py",
                    '    out = results_dir / f"{name}.json"\n',
                    '    for file_name, run in runs.items():\n'
                    '        (results_dir / file_name).write_text(json.dumps(run), encoding="utf-8")\n'
                    '    return sorted(results_dir.iterdir())\n'
                    '    out = results_dir / f"{name}.json"\n')),
    Revert("4", "4 evidence fix", "Check 2 reads master configs at the sweep's commit only from master files the PR changed",
           _replace("infx/signoff/checks/evals.py",
                    "        at_run = configs_at.master_entries(tree) if tree is not None else None\n",
                    "        changed = {f.filename for f in evidence.files or []}\n"
                    "        tree = {p: t for p, t in tree.items() if p in changed} if tree is not None else None\n"
                    "        at_run = configs_at.master_entries(tree) if tree is not None else None\n")),
)

_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+\S*::(\w+)", re.M)


def run_loop(tree: Path) -> tuple[dict[str, str], float]:
    """Scenario -> outcome of tests/e2e/test_loop.py in `tree`, and the wall time."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", LOOP_TEST],
                          cwd=tree, env=env, capture_output=True, text=True, check=False)
    outcomes = {name: outcome for outcome, name in _OUTCOME.findall(proc.stdout)}
    if not outcomes:
        raise SystemExit(f"revert_proof: no test outcome in the pytest output:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return outcomes, time.monotonic() - start


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="revert keys to run (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary worktree")
    args = parser.parse_args(argv)
    chosen = [r for r in REVERTS if args.only is None or r.key in args.only]
    commit = git("rev-parse", "HEAD").strip()
    tree = Path(tempfile.mkdtemp(prefix="infx-revert-proof-")) / "repo"
    git("worktree", "add", "--detach", "--quiet", str(tree), commit)
    print(f"revert proof of issue 10 at {commit[:12]}: {LOOP_TEST} once without and once per revert\n")
    failures_missed = []
    try:
        baseline, seconds = run_loop(tree)
        scenarios = list(baseline)
        bad = [s for s, o in baseline.items() if o != "PASSED"]
        print(f"baseline (no revert): {len(scenarios) - len(bad)}/{len(scenarios)} scenarios pass ({seconds:.0f} s)")
        if bad:
            print("  not passing: " + ", ".join(bad))
            return 1
        for revert in chosen:
            revert.apply(tree)
            try:
                outcomes, seconds = run_loop(tree)
            finally:
                git("checkout", "--quiet", "--", ".", cwd=tree)
                git("clean", "-fdq", cwd=tree)
            failed = [s for s in scenarios if outcomes.get(s) != "PASSED"]
            verdict = "CAUGHT" if failed else "NOT CAUGHT"
            if not failed:
                failures_missed.append(revert.key)
            print(f"\nrevert {revert.key} (item {revert.item}): {revert.what}")
            print(f"  {verdict}: {len(failed)}/{len(scenarios)} scenarios fail ({seconds:.0f} s)")
            for scenario in failed:
                print(f"    {outcomes.get(scenario, 'MISSING'):7} {scenario}")
        print(f"\nrestored: the worktree is back at {commit[:12]} after each revert"
              + ("" if args.keep else " and is removed"))
        if failures_missed:
            print("reverts the loop test does not catch: " + ", ".join(failures_missed))
        return 1 if failures_missed else 0
    finally:
        if not args.keep:
            git("worktree", "remove", "--force", str(tree))
            shutil.rmtree(tree.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
