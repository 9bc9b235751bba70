"""GPU-hours a PR costs under infx, next to three baselines, over PR lifecycles replayed for real.

Usage: python benchmarks/bench_gpu_jobs.py
GPU time is rows x GPUs of the row (infx.plan.gpus.row_gpus) x the hours a row of its plan
section holds them (benchmarks/gpu_durations.yaml). Each lifecycle runs on a config set (ours:
configs/amd-master.yaml; the reference's: ../shared/fixtures/upstream-inferencex, required) in a
scratch git repository and a fake GitHub world holding the same commits, the PR, its sweep runs
and their row jobs. infx's side goes through the commands the sweep workflow runs, in process:
`infx plan` (the label sweep), `infx reuse incremental` (each later push: only rows without a
green job of the same fingerprint in an earlier in-PR run) and `infx reuse resolve` on the push
to main (GPU-free when the PR's runs cover the merge commit's plan, else the command fails and
the uncovered rows are charged and flagged). A failed or cancelled row is re-run as GitHub's
"re-run failed jobs" does (what `/retest-failed` asks for, infx.retest.failed.RETESTABLE).

Baselines, each over the same events:
- diligent reference: every PR sweep runs the whole plan (the reference has no incremental
  re-sweep); failed and cancelled rows are re-run with "re-run failed jobs"; a maintainer posts
  `/reuse-sweep-run` before the merge, so the merge costs nothing;
- worst reference: the whole plan at every step (a failure is answered by re-applying the
  label, the merge to main re-sweeps the merge commit's plan);
- oracle: each (row, fingerprint) the PR's swept heads and its merge commit plan, run once.

Lifecycles: plain label -> merge; a push changing one search-space entry; a flaky row re-run
(the middle row of the plan fails once: a broken node); a fail-fast cancellation (that row
fails under `full-sweep-fail-fast` and the rows after it in plan order are cancelled before
they start, costing nothing); a second PR on the same key (both swept, the first merges, the
second merges main in and is swept again); a rebase of the PR onto a main another PR moved
(force-pushed). Each lifecycle ends with the merge. After the per-lifecycle lines, the ratios
per lifecycle kind and per config set. Exit status 1 when a ratio is over its bar (infx/diligent <= 0.40,
infx/oracle <= 1.15), when a merged plan is not covered by green results of identical
fingerprints, or when the reference configs are absent.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infx.plan.fingerprint import content_of  # noqa: E402
from infx.plan.gpus import row_gpus  # noqa: E402
from infx.plan.identity import job_name  # noqa: E402
from infx.plan.incremental import plan_from_trees  # noqa: E402
from infx.plan.sweep_plan import Plan  # noqa: E402
from infx.retest.failed import RETESTABLE  # noqa: E402
from infx.reuse.covering import flags_of, wanted_rows  # noqa: E402

UPSTREAM = ROOT.parent / "shared" / "fixtures" / "upstream-inferencex"
DURATIONS = Path(__file__).resolve().parent / "gpu_durations.yaml"
CHANGELOG = "perf-changelog.yaml"
WORKFLOW = ".github/workflows/run-sweep.yml"
REPO = "acme/inferencex"
LABELS = ["full-sweep-fail-fast"]
BARS = {"diligent": 0.40, "oracle": 1.15}
POLICIES = ("infx", "diligent", "worst", "oracle")


class BenchError(Exception):
    """The benchmark cannot measure what it claims (missing input, a command that failed)."""


def durations() -> dict[str, float]:
    data = yaml.safe_load(DURATIONS.read_text(encoding="utf-8"))
    hours = data.get("hours") if isinstance(data, dict) else None
    if not isinstance(hours, dict) or not all(isinstance(v, (int, float)) and v > 0 for v in hours.values()):
        raise BenchError(f"{DURATIONS}: `hours` must map plan sections to positive hours")
    return hours


def row_hours(plan: Plan, hours: dict[str, float]) -> dict[str, float]:
    """job name -> GPU-hours of each row of a plan (GPUs x its section's duration; a section is
    a node of benchmark buckets or an eval list)."""
    out: dict[str, float] = {}
    for (section, *_), rows in plan.buckets():
        for row in rows:
            if section not in hours:
                raise BenchError(f"{DURATIONS}: no duration for plan section {section!r}")
            out[job_name(row)] = row_gpus(row) * hours[section]
    return out


# ---- trees ---------------------------------------------------------------------------------

def dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False, width=200)


def entry(key: str, words: str) -> str:
    return f"\n- config-keys:\n    - {key}\n  description:\n    - \"{words}\"\n  pr-link: XXX\n"


def sweep_files() -> dict[str, str]:
    """Our sweep workflow and what it calls (infx.trust compares them with the default branch's)."""
    from infx import trust

    class Checkout(dict):
        def get(self, path, default=None):
            file = ROOT / path
            return file.read_text(encoding="utf-8") if file.is_file() else default

    return {p: t for p in trust.sweep_files(Checkout()) if (t := Checkout().get(p)) is not None}


def config_tree(files: dict[str, Path]) -> dict[str, str]:
    tree = {path: file.read_text(encoding="utf-8") for path, file in files.items()}
    for path, text in list(tree.items()):
        if path.endswith("-master.yaml"):
            tree[path] = dump(yaml.safe_load(text))  # one formatting for every variant below
    tree[CHANGELOG] = "- config-keys: [none]\n  description: [history]\n  pr-link: https://x/pull/1\n"
    launchers = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted((ROOT / "runners").rglob("*.sh")) if p.is_file()}
    return tree | launchers | sweep_files()


def master_of(tree: dict[str, str], key: str) -> str | None:
    return next((p for p, t in tree.items() if p.endswith("-master.yaml") and key in yaml.safe_load(t)), None)


def edit(tree: dict[str, str], key: str, change: Callable[[dict], None], words: str) -> dict[str, str]:
    """The tree with the key's block changed and a changelog entry for it appended."""
    path = master_of(tree, key)
    data = yaml.safe_load(tree[path])
    change(data[key])
    return tree | {path: dump(data), CHANGELOG: tree[CHANGELOG] + entry(key, words)}


def carry(onto: dict[str, str], pr_base: dict[str, str], pr_head: dict[str, str]) -> dict[str, str]:
    """`pr_head`'s changes since `pr_base` applied onto `onto` (a merge or rebase without conflicts:
    the changelog keeps `onto`'s history and appends the PR's entries; a master file the PR
    changed takes the PR's blocks for the keys it changed)."""
    out = dict(onto)
    for path, text in pr_head.items():
        if text == pr_base.get(path):
            continue
        if path == CHANGELOG:
            out[path] = onto[path] + text[len(pr_base[path]):]
        elif path.endswith("-master.yaml"):
            before, after, mine = (yaml.safe_load(t) for t in (pr_base[path], text, onto[path]))
            mine.update({k: v for k, v in after.items() if before.get(k) != v})
            out[path] = dump(mine)
        else:
            out[path] = text
    return out


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


# ---- the replay: a git repository and a fake GitHub world with the same commits -------------

@dataclass
class Run:
    id: int
    sha: str
    branch: str
    jobs: dict[str, list[str]]  # row -> conclusion per attempt


@dataclass
class Pull:
    number: int
    branch: str
    base: str
    head: str = ""
    commits: list[str] = field(default_factory=list)
    merged_as: str = ""


class Replay:
    """Commits in a scratch git repository (what `infx plan` / `incremental` read) and the same
    commits, the PRs, runs and jobs in a fake GitHub world (what the reuse commands read)."""

    def __init__(self, where: Path, main: dict[str, str]) -> None:
        self.git_dir = where
        self._git("init", "-q", "-b", "main")
        self.trees: dict[str, dict[str, str]] = {}
        self.parents: dict[str, list[str]] = {}
        self.pulls: dict[int, Pull] = {}
        self.runs: list[Run] = []
        self.main = self.commit(main, [], "initial")

    def _git(self, *args: str, data: bytes | None = None) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
               "GIT_COMMITTER_EMAIL": "b@x", "GIT_AUTHOR_DATE": "2026-09-01T00:00:00Z",
               "GIT_COMMITTER_DATE": "2026-09-01T00:00:00Z"}
        done = subprocess.run(["git", *args], cwd=self.git_dir, input=data, capture_output=True, env=env)
        if done.returncode != 0:
            raise BenchError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace')}")
        return done.stdout.decode().strip()

    def commit(self, tree: dict[str, str], parents: list[str], message: str) -> str:
        index = self.git_dir / ".git" / "bench-index"
        env_index = {"GIT_INDEX_FILE": str(index)}
        old = {k: os.environ.get(k) for k in env_index}
        os.environ.update(env_index)
        try:
            self._git("read-tree", "--empty")
            lines = []
            for path, text in sorted(tree.items()):
                blob = self._git("hash-object", "-w", "--stdin", data=text.encode("utf-8"))
                lines.append(f"100644 {blob}\t{path}")
            self._git("update-index", "--index-info", data=("\n".join(lines) + "\n").encode())
            root = self._git("write-tree")
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        args = ["commit-tree", root, "-m", message]
        for parent in parents:
            args += ["-p", parent]
        sha = self._git(*args)
        self.trees[sha], self.parents[sha] = dict(tree), list(parents)
        return sha

    def checkout(self, sha: str) -> None:
        """The working tree at `sha` (the sweep plans in the PR's checkout)."""
        self._git("checkout", "-q", "-f", "--detach", sha)
        self._git("clean", "-fdq")

    def world(self) -> dict:
        commits = {}
        for sha, tree in self.trees.items():
            parent = (self.parents[sha] or [None])[0]
            if parent is None:
                commits[sha] = {"parents": [], "message": "c", "files": tree}
            else:
                ptree = self.trees[parent]
                changed = {p: t for p, t in tree.items() if ptree.get(p) != t}
                gone = {p: None for p in ptree if p not in tree}
                commits[sha] = {"parents": self.parents[sha], "message": "c", "files_from": parent,
                                "files": changed | gone}
        pulls, check_runs, runs = [], {}, []
        for pull in self.pulls.values():
            pulls.append({
                "number": pull.number, "title": f"PR {pull.number}", "user": "carol",
                "state": "closed" if pull.merged_as else "open", "merged": bool(pull.merged_as),
                **({"merged_at": "2026-09-30T11:00:00Z"} if pull.merged_as else {}),
                "base": {"ref": "main", "sha": pull.base},
                "head": {"ref": pull.branch, "sha": pull.head, "repo": REPO},
                "labels": LABELS, "commits": pull.commits, "comments": [],
                **({"merge_commit_sha": pull.merged_as} if pull.merged_as else {})})
        job_id = 90000
        for n, run in enumerate(self.runs):
            when = f"2026-09-{10 + n // 24:02d}T{n % 24:02d}:00:00Z"
            attempts = max(len(c) for c in run.jobs.values()) if run.jobs else 1
            last = [c[-1] for c in run.jobs.values()]
            runs.append({"id": run.id, "name": "Run Sweep", "path": WORKFLOW, "event": "pull_request",
                         "status": "completed",
                         "conclusion": "success" if all(c == "success" for c in last) else "failure",
                         "head_sha": run.sha, "head_branch": run.branch, "run_attempt": attempts,
                         "created_at": when,
                         "artifacts": [{"name": "results_bmk", "expired": False,
                                        "files": {"agg_bmk.json": []}}]})
            for row, conclusions in run.jobs.items():
                for attempt, conclusion in enumerate(conclusions, start=1):
                    job_id += 1
                    check_runs.setdefault(run.sha, []).append({
                        "id": job_id, "name": f"sweep / {row}", "status": "completed",
                        "conclusion": conclusion, "started_at": when, "completed_at": when,
                        "details_url": f"https://github.com/{REPO}/actions/runs/{run.id}/job/{job_id}",
                        "run_id": run.id, "run_attempt": attempt})
        branches = {"main": self.main} | {p.branch: p.head for p in self.pulls.values() if p.head}
        return {"repo": REPO, "default_branch": "main", "now": "2026-09-30T12:00:00Z",
                "token_login": "github-actions[bot]", "branches": branches, "commits": commits,
                "collaborators": {"root": {"permission": "admin", "role_name": "admin"}},
                "pulls": pulls, "workflow_runs": runs, "check_runs": check_runs}

    def infx(self, *argv: str) -> str:
        """One infx command, in process, against the fake server serving the current world."""
        from infx.cli.router import run_named
        from infx.github.fake import FakeGitHub

        with FakeGitHub(copy.deepcopy(self.world())) as fake:
            env = {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": "bench", "GITHUB_REPOSITORY": REPO}
            saved = {k: os.environ.get(k) for k in [*env, "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"]}
            os.environ.update(env)
            for k in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
                os.environ.pop(k, None)
            cwd, out, err = Path.cwd(), io.StringIO(), io.StringIO()
            os.chdir(self.git_dir)
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = run_named(argv[0], list(argv[1:]), "infx")
            finally:
                os.chdir(cwd)
                for k, v in saved.items():
                    os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        if code not in (0, None):
            raise CommandFailed(argv, err.getvalue().strip() or out.getvalue().strip())
        return out.getvalue()


class CommandFailed(BenchError):
    def __init__(self, argv: tuple[str, ...], message: str) -> None:
        super().__init__(f"infx {' '.join(argv[:2])}: {message}")
        self.message = message


# ---- the four policies over one lifecycle ------------------------------------------------------

@dataclass
class Ledger:
    """GPU-hours per policy, and every (row, fingerprint) the oracle runs once."""

    hours: dict[str, float]
    spent: dict[str, float] = field(default_factory=lambda: dict.fromkeys(POLICIES, 0.0))
    oracle_seen: set[tuple[str, str]] = field(default_factory=set)
    # GPU-hours of first attempts that failed: no policy can avoid them (a broken node is only
    # known once its row ran), so the floor of any policy is the oracle plus these
    failed: float = 0.0
    covered: bool = True
    notes: list[str] = field(default_factory=list)

    def charge(self, policy: str, plan: Plan, names) -> None:
        cost = row_hours(plan, self.hours)
        self.spent[policy] += sum(cost[n] for n in names)

    def oracle(self, plan: Plan, base: dict[str, str], head: dict[str, str]) -> None:
        wanted = wanted_rows(plan, content_of(head, base))
        cost = row_hours(plan, self.hours)
        for name, print_ in wanted.prints.items():
            if (name, print_) not in self.oracle_seen:
                self.oracle_seen.add((name, print_))
                self.spent["oracle"] += cost[name]


@dataclass
class Outcome:
    """How the GPUs treat a run: rows that fail (a broken node), fail-fast cancelling the rest."""

    broken: frozenset[str] = frozenset()
    fail_fast: bool = False

    def conclusions(self, rows: list[str]) -> dict[str, str]:
        out, stopped = {}, False
        for name in rows:
            if stopped:
                out[name] = "cancelled"
            elif name in self.broken:
                out[name], stopped = "failure", self.fail_fast
            else:
                out[name] = "success"
        return out


class Lifecycle:
    """One PR (or two) replayed under every policy at once."""

    def __init__(self, replay: Replay, ledger: Ledger) -> None:
        self.r, self.l = replay, ledger

    def plan(self, base: str, head: str) -> Plan:
        """`infx plan` as the sweep's plan step runs it for a PR."""
        flags = flags_of(LABELS)
        self.r.checkout(head)
        args = ["plan", "--base-ref", base, "--head-ref", head]
        args += ["--trim-conc"] if flags.trim else []
        return Plan.parse(self.r.infx(*args), "infx plan")

    def open(self, number: int, head_tree: dict[str, str]) -> Pull:
        pull = Pull(number, f"carol/pr{number}", self.r.main)
        self.r.pulls[number] = pull
        self.push(pull, head_tree, [self.r.main])
        return pull

    def push(self, pull: Pull, tree: dict[str, str], parents: list[str] | None = None, *,
             force: bool = False) -> None:
        sha = self.r.commit(tree, parents or [pull.head], f"push to #{pull.number}")
        pull.commits = [sha] if force else [*pull.commits, sha]
        pull.head = sha

    def sweep(self, pull: Pull, action: str, outcome: Outcome | None = None) -> None:
        """A sweep of the PR's head (`labeled`, or `synchronize` for a push)."""
        r, outcome = self.r, outcome or Outcome()
        pull.base = r.main  # the sweep plans against origin/<base branch>, as GitHub's base.sha moves
        base, head = pull.base, pull.head
        plan = self.plan(base, head)
        everything = [job_name(row) for row in plan.rows()]
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "plan.json"
            path.write_text(plan.dump(), encoding="utf-8")
            run_id = 1000 + len(r.runs)
            r.infx("reuse", "incremental", "--plan", str(path), "--base-ref", base, "--head-ref", head,
                   "--event-action", action, "--pr-number", str(pull.number), "--repo", REPO,
                   "--run-id", str(run_id))
            todo = [job_name(row) for row in Plan.read(path).rows()]
        theirs, result = outcome.conclusions(everything), outcome.conclusions(todo)
        for policy in ("diligent", "worst"):  # a row cancelled before it started costs nothing
            self.l.charge(policy, plan, [n for n, c in theirs.items() if c != "cancelled"])
        self.l.charge("infx", plan, [n for n, c in result.items() if c != "cancelled"])
        cost = row_hours(plan, self.l.hours)
        self.l.failed += sum(cost[n] for n, c in theirs.items() if c == "failure")
        self.l.oracle(plan, r.trees[base], r.trees[head])
        r.runs.append(Run(run_id, head, pull.branch, {n: [c] for n, c in result.items()}))
        self._reference_failures(plan, theirs)

    def _reference_failures(self, plan: Plan, result: dict[str, str]) -> None:
        """The reference's answer to rows that did not pass: "re-run failed jobs" (diligent),
        the whole plan again by re-applying the label (worst)."""
        again = [n for n, c in result.items() if c in RETESTABLE]
        if again:
            self.l.charge("diligent", plan, again)
            self.l.charge("worst", plan, list(result))

    def rerun_failed(self, pull: Pull) -> None:
        """infx's `/retest-failed`: GitHub re-runs the newest run's failed and cancelled rows."""
        run = next(run for run in reversed(self.r.runs) if run.sha == pull.head)
        again = [n for n, c in run.jobs.items() if c[-1] in RETESTABLE]
        plan = self.plan(pull.base, pull.head)
        self.l.charge("infx", plan, again)
        for name in again:
            run.jobs[name].append("success")  # the node was repaired

    def merge(self, pull: Pull) -> None:
        """Squash-merge onto main; the push to main is resolved by `infx reuse resolve`."""
        r = self.r
        before = r.main
        merged = carry(r.trees[before], r.trees[pull.base], r.trees[pull.head])
        sha = r.commit(merged, [before], f"#{pull.number}")
        pull.merged_as, r.main = sha, sha
        r.checkout(sha)
        plan = Plan.parse(r.infx("plan", "--base-ref", before, "--head-ref", sha), "infx plan")
        self.l.charge("worst", plan, [job_name(row) for row in plan.rows()])
        self.l.oracle(plan, r.trees[before], merged)
        try:
            answer = json.loads(r.infx("reuse", "resolve", "--repo", REPO, "--event-name", "push",
                                       "--ref", "refs/heads/main", "--commit-sha", sha,
                                       "--before-sha", before))
        except CommandFailed as exc:
            answer = {"reuse-reason": exc.message}
        if answer.get("reuse-enabled") != "true":
            # no GPU-free merge: the merged plan's rows would have to be swept again
            self.l.covered = False
            self.l.notes.append(f"merge of #{pull.number} not covered: {answer.get('reuse-reason', answer)}")
            self.l.charge("infx", plan, [job_name(row) for row in plan.rows()])


def middle_row(base: dict[str, str], head: dict[str, str]) -> str:
    """The row in the middle of the plan (a broken node fails it; fail-fast then cancels the
    rows after it, which have not started)."""
    plan = plan_from_trees(base, head, flags_of(LABELS), base_ref="base", head_ref="head")
    names = [job_name(row) for row in plan.rows()]
    if not names:
        raise BenchError("the key plans no row")
    return names[len(names) // 2]


def run_lifecycle(kind: str, main: dict[str, str], key: str, other: str, hours: dict[str, float],
                  where: Path) -> Ledger:
    replay, ledger = Replay(where, main), Ledger(hours)
    life = Lifecycle(replay, ledger)
    head1 = edit(main, key, bump_image, "bump")
    if kind == "plain":
        pull = life.open(1, head1)
        life.sweep(pull, "labeled")
    elif kind == "push one entry":
        pull = life.open(1, head1)
        life.sweep(pull, "labeled")
        life.push(pull, edit(head1, key, widen_first_entry, "widen")
                  | {CHANGELOG: head1[CHANGELOG]})
        life.sweep(pull, "synchronize")
    elif kind in ("flaky re-run", "fail-fast cancel"):
        broken = frozenset({middle_row(main, head1)})
        pull = life.open(1, head1)
        life.sweep(pull, "labeled", Outcome(broken, fail_fast=kind == "fail-fast cancel"))
        life.rerun_failed(pull)
    elif kind == "second PR, same key":
        first = life.open(1, edit(main, key, widen_first_entry, "widen"))
        pull = life.open(2, head1)
        life.sweep(first, "labeled")
        life.sweep(pull, "labeled")
        life.merge(first)
        life.push(pull, carry(replay.trees[replay.main], replay.trees[pull.base], replay.trees[pull.head]),
                  [pull.head, replay.main])  # merge of main into the PR
        life.sweep(pull, "synchronize")
    elif kind == "rebase":
        pull = life.open(1, head1)
        life.sweep(pull, "labeled")
        mover = life.open(2, edit(main, other, bump_image, "other"))  # its sweep is not this PR's
        mover_tree = replay.trees[mover.head]
        mover_sha = replay.commit(mover_tree, [replay.main], "#2")
        mover.merged_as, replay.main = mover_sha, mover_sha
        rebased = carry(mover_tree, main, replay.trees[pull.head])
        pull.base = replay.main
        life.push(pull, rebased, [replay.main], force=True)
        life.sweep(pull, "synchronize")
    else:
        raise BenchError(f"unknown lifecycle {kind}")
    life.merge(pull)
    return ledger


LIFECYCLES = ("plain", "push one entry", "flaky re-run", "fail-fast cancel", "second PR, same key", "rebase")


def config_sets() -> list[tuple[str, dict[str, str], str, str]]:
    if not (UPSTREAM / "configs").is_dir():
        raise BenchError(f"the reference configs are required and absent: {UPSTREAM} "
                         "(the shared fixtures next to the repository, ../shared)")
    ours = config_tree({"configs/amd-master.yaml": ROOT / "configs" / "amd-master.yaml",
                        "configs/runners.yaml": ROOT / "configs" / "runners.yaml"})
    ref = config_tree({f"configs/{n}": UPSTREAM / "configs" / n
                       for n in ("amd-master.yaml", "nvidia-master.yaml", "runners.yaml")})
    return [("ours", ours, "dsr1-fp4-mi355x-atom", "qwen3.5-fp8-mi355x-sglang"),
            ("ours", ours, "dsv4-fp4-mi355x-atom-disagg", "dsr1-fp8-mi355x-sglang"),
            ("reference", ref, "qwen3.5-fp8-mi355x-sglang", "dsr1-fp8-mi355x-sglang"),
            ("reference", ref, "dsr1-fp8-mi355x-sglang-disagg", "qwen3.5-fp8-mi355x-sglang"),
            ("reference", ref, "dsr1-fp4-b200-sglang", "qwen3.5-fp8-mi355x-sglang")]


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def main() -> int:
    try:
        sets, hours = config_sets(), durations()
    except BenchError as exc:
        print(f"FAILED: {exc}")
        return 1
    totals: dict[str, dict[str, float]] = {}
    by_kind: dict[str, dict[str, float]] = {}
    intact = True
    head = (f"{'config set: key / lifecycle':62} " + " ".join(f"{p:>9}" for p in POLICIES)
            + " " + " ".join(f"{'/' + b:>9}" for b in BARS))
    print("GPU-hours (rows x GPUs x hours per row, benchmarks/gpu_durations.yaml)")
    print(head)
    with tempfile.TemporaryDirectory(prefix="bench-gpu-") as scratch:
        for n, (set_name, tree, key, other) in enumerate(sets):
            for kind in LIFECYCLES:
                where = Path(scratch) / f"{n}-{hashlib.sha1(kind.encode()).hexdigest()[:8]}"
                where.mkdir()
                try:
                    ledger = run_lifecycle(kind, tree, key, other, hours, where)
                except BenchError as exc:
                    print(f"FAILED: {set_name}: {key} / {kind}: {exc}")
                    return 1
                intact &= ledger.covered
                total = totals.setdefault(set_name, dict.fromkeys(POLICIES, 0.0))
                kinds = by_kind.setdefault(kind, dict.fromkeys(POLICIES, 0.0))
                for p in POLICIES:
                    total[p] += ledger.spent[p]
                    kinds[p] += ledger.spent[p]
                for bucket in (total, kinds):
                    bucket["floor"] = bucket.get("floor", 0.0) + ledger.spent["oracle"] + ledger.failed
                mark = "" if ledger.covered else "  MERGED PLAN NOT COVERED"
                print(f"{set_name + ': ' + key + ' / ' + kind:62} "
                      + " ".join(f"{ledger.spent[p]:9.1f}" for p in POLICIES) + " "
                      + " ".join(f"{ratio(ledger.spent['infx'], ledger.spent[b]):9.2f}" for b in BARS) + mark)
                for note in ledger.notes:
                    print(f"    {note}")
    print("by lifecycle, both config sets: " + "; ".join(
        f"{kind} {ratio(t['infx'], t['diligent']):.2f}/{ratio(t['infx'], t['oracle']):.2f}"
        for kind, t in by_kind.items()) + " (infx/diligent / infx/oracle)")
    # the least any policy can spend: every (row, fingerprint) once (the oracle) plus the first
    # attempts that failed (a broken node is known only after its row ran); its ratio to the
    # diligent reference is the best infx/diligent reachable on these lifecycles
    print("floor (oracle + failed first attempts) / diligent by lifecycle: " + "; ".join(
        f"{kind} {ratio(t['floor'], t['diligent']):.2f}" for kind, t in by_kind.items())
        + "; infx/floor: " + "; ".join(f"{kind} {ratio(t['infx'], t['floor']):.2f}" for kind, t in by_kind.items()))
    over = not intact
    print(f"coverage of every merged plan by green results with matching fingerprints: "
          f"{'intact' if intact else 'BROKEN'}")
    for set_name, total in totals.items():
        figures = []
        for baseline, bar in BARS.items():
            value = ratio(total["infx"], total[baseline])
            bad = not value <= bar
            over |= bad
            figures.append(f"infx/{baseline} {value:.2f} (bar {bar:.2f}){' OVER BAR' if bad else ''}")
        print(f"{set_name} configs: infx {total['infx']:.1f}, diligent {total['diligent']:.1f}, "
              f"worst {total['worst']:.1f}, oracle {total['oracle']:.1f} GPU-hours; "
              f"infx/worst {ratio(total['infx'], total['worst']):.2f}; " + "; ".join(figures))
        print(f"    floor {total['floor']:.1f} GPU-hours (oracle {total['oracle']:.1f} + failed first "
              f"attempts {total['floor'] - total['oracle']:.1f}): the best infx/diligent any policy "
              f"reaches on this lifecycle set is {ratio(total['floor'], total['diligent']):.2f}, the best "
              f"infx/oracle {ratio(total['floor'], total['oracle']):.2f}; infx/floor "
              f"{ratio(total['infx'], total['floor']):.2f}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
