"""GPU jobs a PR costs under the reference policy and under infx, over replayed PR lifecycles.

Usage: python benchmarks/bench_gpu_jobs.py
Each lifecycle opens a PR on one config key of a config set (our configs/, and the reference
configs of ../shared/fixtures/upstream-inferencex when present) and replays:

1. label -> sweep of the whole plan (one row's job fails: its node is broken);
2. a push changing one search-space entry of the key (its top concurrency doubles);
3. a benchmark-neutral merge of main (main bumped another key's image meanwhile);
4. a push fixing the failed row (the node is repaired; the push only rewords the entry);
5. the merge to main.

Reference policy: every push of a labeled PR re-sweeps the whole plan, reuse happens only by a
maintainer's command (none is posted here), and the merge to main re-sweeps the whole plan.
infx policy: each push plans only the rows without a green result of the same fingerprint in
an earlier in-PR run (infx.reuse.covering / infx.plan.coverage), and the merge to main runs
no sweep when the PR's runs cover the merge commit's plan. Both are computed with the real
planner (infx.plan.incremental.plan_from_trees) and fingerprints; the script fails if
any row of the merged plan is not covered by a green result with a matching fingerprint.
Last line: `infx/reference GPU jobs: <ratio>` (goal <= 0.40).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infx.plan.coverage import JobFacts  # noqa: E402
from infx.plan.fingerprint import content_of  # noqa: E402
from infx.plan.incremental import plan_from_trees  # noqa: E402
from infx.plan.planner import PlanFlags  # noqa: E402
from infx.reuse.covering import coverage, eligible_runs, wanted_rows  # noqa: E402
from infx.reuse.facts import RunFacts  # noqa: E402

UPSTREAM = ROOT.parent / "shared" / "fixtures" / "upstream-inferencex"
CHANGELOG = "perf-changelog.yaml"
WORKFLOW = ".github/workflows/run-sweep.yml"
FLAGS = PlanFlags()  # full-sweep-fail-fast / full-sweep-enabled: no trim
GOAL = 0.40


def dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False, width=200)


def entry(key: str, words: str, link: str = "XXX") -> str:
    return f"\n- config-keys:\n    - {key}\n  description:\n    - \"{words}\"\n  pr-link: {link}\n"


def config_set(name: str, files: dict[str, Path], launchers: dict[str, str]) -> dict[str, str]:
    tree = {path: file.read_text(encoding="utf-8") for path, file in files.items()}
    for path, text in list(tree.items()):
        if path.endswith("-master.yaml"):
            tree[path] = dump(yaml.safe_load(text))  # one formatting for every variant below
    tree[CHANGELOG] = "- config-keys: [none]\n  description: [history]\n  pr-link: https://x/pull/1\n"
    return tree | launchers


def master_of(tree: dict[str, str], key: str) -> str:
    return next(p for p, t in tree.items() if p.endswith("-master.yaml") and key in yaml.safe_load(t))


def edit_key(tree: dict[str, str], key: str, change) -> dict[str, str]:
    path = master_of(tree, key)
    data = yaml.safe_load(tree[path])
    change(data[key])
    return tree | {path: dump(data)}


def widen_first_entry(block: dict) -> None:
    """The first search-space entry reaches one concurrency higher (its top doubles)."""
    for items in block["scenarios"].values():
        for item in items:
            for space in item.get("search-space", []):
                if "conc-list" in space:
                    space["conc-list"] = [*space["conc-list"], max(space["conc-list"]) * 2]
                else:
                    space["conc-end"] = space["conc-end"] * 2
                return


def bump_image(block: dict) -> None:
    block["image"] = block["image"] + "-next"


@dataclass
class Pr:
    """The PR's runs as infx sees them: trees by commit, jobs by run."""

    trees: dict[str, dict[str, str]] = field(default_factory=dict)
    runs: list[RunFacts] = field(default_factory=list)
    jobs: dict[int, list[JobFacts]] = field(default_factory=dict)

    def run(self, sha: str, rows: list[str], broken: str | None) -> None:
        run_id = 1000 + len(self.runs)
        jobs = [JobFacts(f"sweep / {name}", "failure" if name == broken else "success") for name in rows]
        self.jobs[run_id] = jobs
        conclusion = "failure" if any(j.conclusion == "failure" for j in jobs) else "success"
        self.runs.append(RunFacts(run_id, "pull_request", "completed", conclusion, sha, WORKFLOW,
                                  created_at=f"2026-09-{10 + len(self.runs):02d}T10:00:00Z"))

    def uncovered(self, base: dict[str, str], sha: str, plan: dict) -> list[str]:
        """The plan's rows no earlier run of this PR ran green with the same fingerprint."""
        wanted = wanted_rows(plan, content_of(self.trees[sha], base))
        runs = eligible_runs(self.runs, list(self.trees), workflow=WORKFLOW)
        cov, _ = coverage(wanted, runs, jobs_of=lambda i: self.jobs[i], tree=self.trees.get, base=base)
        return list(cov.uncovered)


def lifecycle(main: dict[str, str], key: str, other: str) -> tuple[list[int], list[int], bool]:
    """(reference jobs per step, infx jobs per step, every merged row covered)."""
    pr = Pr()
    ref: list[int] = []
    ours: list[int] = []

    def push(sha: str, tree: dict[str, str], base: dict[str, str], broken: str | None) -> dict:
        pr.trees[sha] = tree
        plan = plan_from_trees(base, tree, FLAGS, base_ref="main", head_ref=sha)
        rows = list(wanted_rows(plan, content_of(tree, base)).rows)
        todo = pr.uncovered(base, sha, plan)
        ref.append(len(rows))
        ours.append(len(todo))
        pr.run(sha, todo, broken if broken in todo else None)
        return plan

    head1 = main | {CHANGELOG: main[CHANGELOG] + entry(key, "bump")}
    head2 = edit_key(head1, key, widen_first_entry)
    rows = [wanted_rows(plan_from_trees(main, head, FLAGS, base_ref="main", head_ref=sha),
                        content_of(head, main)).rows for sha, head in (("h1", head1), ("h2", head2))]
    # the broken node fails a benchmark row that the one-entry push leaves as it is
    kept = [name for name in rows[0] if name in rows[1]]
    broken = next((name for name in kept if not rows[0][name].get("eval-only")), kept[0] if kept else None)
    push("h1", head1, main, broken)                                          # 1. label
    push("h2", head2, main, broken)                                          # 2. one entry
    main2 = edit_key(main, other, bump_image)
    main2 = main2 | {CHANGELOG: main2[CHANGELOG] + entry(other, "other PR", "https://x/pull/6")}
    head3 = edit_key(main2, key, lambda b: None) | {
        master_of(main2, key): edit_key(main2, key, lambda b: b.update(yaml.safe_load(
            head2[master_of(head2, key)])[key]))[master_of(main2, key)],
        CHANGELOG: main2[CHANGELOG] + entry(key, "bump")}
    push("h3", head3, main2, broken)                                         # 3. merge of main
    head4 = head3 | {CHANGELOG: main2[CHANGELOG] + entry(key, "bump (node fixed)")}
    push("h4", head4, main2, None)                                           # 4. fix
    merged = head4 | {CHANGELOG: head4[CHANGELOG].replace("pr-link: XXX", "pr-link: https://x/pull/7")}
    plan5 = plan_from_trees(main2, merged, FLAGS, base_ref="main", head_ref="merge")
    ref.append(len(list(wanted_rows(plan5, content_of(merged, main2)).rows)))  # 5. merge
    pr.trees["merge"] = merged
    left = pr.uncovered(main2, "merge", plan5)
    ours.append(0)  # GPU-free: a covered merge publishes the PR's runs; otherwise it fails
    return ref, ours, not left


def config_sets() -> list[tuple[str, dict[str, str], list[tuple[str, str]]]]:
    launchers = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted((ROOT / "runners").rglob("*")) if p.is_file() and p.suffix == ".sh"}
    ours = config_set("ours", {"configs/amd-master.yaml": ROOT / "configs" / "amd-master.yaml",
                               "configs/runners.yaml": ROOT / "configs" / "runners.yaml"}, launchers)
    sets = [("infx configs", ours, [("dsr1-fp4-mi355x-atom", "qwen3.5-fp8-mi355x-sglang"),
                                    ("dsv4-fp4-mi355x-atom-disagg", "dsr1-fp8-mi355x-sglang"),
                                    ("kimik3-fp4-mi355x-atom-agentic-mtp", "dsr1-fp8-mi355x-sglang")])]
    if UPSTREAM.is_dir():
        files = {f"configs/{n}": UPSTREAM / "configs" / n
                 for n in ("amd-master.yaml", "nvidia-master.yaml", "runners.yaml")}
        ref = config_set("reference", files, launchers)
        sets.append(("reference configs", ref, [("qwen3.5-fp8-mi355x-sglang", "dsr1-fp8-mi355x-sglang"),
                                                ("dsr1-fp8-mi355x-sglang-disagg", "qwen3.5-fp8-mi355x-sglang"),
                                                ("dsr1-fp4-b200-sglang", "qwen3.5-fp8-mi355x-sglang")]))
    else:
        print(f"(reference configs skipped: {UPSTREAM} is absent)")
    return sets


def main() -> int:
    total_ref = total_ours = 0
    intact = True
    print(f"{'lifecycle':58} {'reference':>24} {'infx':>24}")
    for set_name, tree, cases in config_sets():
        for key, other in cases:
            if not any(key in yaml.safe_load(t) for p, t in tree.items() if p.endswith("-master.yaml")):
                print(f"  {set_name}: {key} is not a config key here, skipped")
                continue
            ref, ours, covered = lifecycle(tree, key, other)
            intact &= covered
            total_ref += sum(ref)
            total_ours += sum(ours)
            steps = lambda xs: "+".join(map(str, xs)) + f"={sum(xs)}"  # noqa: E731
            mark = "" if covered else "  MERGED PLAN NOT COVERED"
            print(f"{set_name + ': ' + key:58} {steps(ref):>24} {steps(ours):>24}{mark}")
    print("steps: label sweep + one-entry push + merge of main + fix push + merge to main")
    print(f"coverage of every merged plan by green results with matching fingerprints: "
          f"{'intact' if intact else 'BROKEN'}")
    ratio = total_ours / total_ref if total_ref else float("nan")
    print(f"GPU jobs: infx {total_ours}, reference {total_ref} (goal: ratio <= {GOAL:.2f})")
    print(f"infx/reference GPU jobs: {ratio:.2f}")
    return 0 if intact else 1


if __name__ == "__main__":
    raise SystemExit(main())
