"""Build sign-off Evidence for the policy-check tests from world files (docs/world-format.md).

The pure tests do what evidence gathering does over the fake server: trees of the base,
head and default branch, the PR's changed files with unified-diff patches, the sign-off
comment, and the external recipe PRs. The trusted policy files of this checkout are laid
onto the default-branch tree unless the world carries its own.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from infx.github.fake.world import tree_at
from infx.signoff.model import (
    ChangedFile,
    CheckRun,
    Comment,
    Evidence,
    ExternalPull,
    Job,
    PullRequest,
    WorkflowRun,
)
from infx.signoff.rules.provenance import SWEEP_WORKFLOW
from infx.trust import BranchPulls
from infx.yamlio import load_file

REPO_ROOT = Path(__file__).resolve().parents[2]
WORLDS = Path(__file__).resolve().parents[1] / "data" / "worlds"
POLICY_ROOTS = ("configs/policy", "configs/golden_al_distribution")


def trusted_policy_files() -> dict[str, str]:
    files = {}
    for root in POLICY_ROOTS:
        for path in sorted((REPO_ROOT / root).glob("*.yaml")):
            files[f"{root}/{path.name}"] = path.read_text(encoding="utf-8")
    return files


def load_world(name: str) -> dict[str, Any]:
    return load_file(WORLDS / f"policy_{name}.yaml")


def patch_between(old: str | None, new: str | None) -> str:
    lines = difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(), lineterm="", n=3)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


def changed(base: dict[str, str], head: dict[str, str]) -> list[ChangedFile]:
    files = []
    for path in sorted(set(base) | set(head)):
        old, new = base.get(path), head.get(path)
        if old == new:
            continue
        status = "added" if old is None else "removed" if new is None else "modified"
        patch = patch_between(old, new)
        files.append(ChangedFile(path, status, patch=patch,
                                 additions=sum(1 for ln in patch.splitlines() if ln.startswith("+")),
                                 deletions=sum(1 for ln in patch.splitlines() if ln.startswith("-"))))
    return files


def evidence_from_world(world: dict[str, Any], number: int | None = None,
                        comment_id: int | None = None) -> Evidence:
    pull = next(p for p in world["pulls"] if number is None or p["number"] == number)
    base_sha, head_sha = pull["base"]["sha"], pull["head"]["sha"]
    base, head = tree_at(world, base_sha), tree_at(world, head_sha)
    files = changed(base, head)
    default = tree_at(world, world["branches"][world.get("default_branch", "main")])
    default = {**trusted_policy_files(), **default}
    comment = next(c for c in pull["comments"] if comment_id is None or c["id"] == comment_id)
    return Evidence(
        repo=world["repo"], default_branch=world.get("default_branch", "main"),
        now=_time(world["now"]),
        pr=PullRequest(number=pull["number"], title=pull.get("title", ""), body=pull.get("body", ""),
                    author=pull.get("user", ""), state=pull.get("state", "open"),
                    draft=pull.get("draft", False), base_ref=pull["base"]["ref"], base_sha=base_sha,
                    head_ref=pull["head"]["ref"], head_sha=head_sha,
                    head_repo=pull["head"].get("repo"), labels=tuple(pull.get("labels", ())),
                    changed_files=len(files)),
        signoff=Comment(id=comment["id"], user=comment["user"], body=comment["body"],
                        author_association=comment.get("author_association") or "",
                        created_at=comment.get("created_at") or "", issue_repo=world["repo"],
                        issue_number=pull["number"]),
        files=files, commits=list(pull.get("commits", [head_sha])),
        head_files=dict(head), base_files=dict(base), default_branch_files=default,
        external_pulls=_external(world.get("external") or {}))


def _external(external: dict[str, Any]) -> dict[str, ExternalPull | None]:
    pulls: dict[str, ExternalPull | None] = {}
    for repo, data in external.items():
        for pr in data.get("pulls", []):
            files = tuple(ChangedFile(f["filename"], f.get("status", "added"), patch=f.get("patch"))
                          for f in pr.get("files", []))
            pulls[f"{repo}#{pr['number']}"] = ExternalPull(
                repo=repo, number=pr["number"], state=pr.get("state", "open"),
                merged_at=pr.get("merged_at"), draft=pr.get("draft", False), files=files)
    return pulls


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


SWEEP_TEXT = "name: Run Sweep\non: pull_request\njobs: {}\n"


def bare_evidence(*, head_sha: str = "d" * 40, signer: str = "alice", body: str = "",
                  now: datetime = datetime(2026, 9, 30, tzinfo=timezone.utc), provenance: bool = True,
                  **fields: Any) -> Evidence:
    """Evidence for unit tests: PR #1 of o/r by carol, signed by ``signer``, plus ``fields``.

    With ``provenance`` (default), every run the jobs belong to is recorded as a run of our
    sweep workflow on o/r, and the sweep workflow file is the same on the default branch and
    at each run's commit (PRODUCT §4.8), so the tests judge the jobs, not the provenance."""
    pr = PullRequest(1, "t", "", "carol", "open", False, "main", "c" * 40, "x", head_sha, "o/r")
    if fields.get("check_runs") and "run_jobs" not in fields:
        fields["run_jobs"] = jobs_of(fields["check_runs"])
    if provenance and fields.get("run_jobs"):
        _provenance(fields, head_sha)
    return Evidence(repo="o/r", default_branch="main", now=now, pr=pr,
                    signoff=Comment(1, signer, body, "", ""), **fields)


RUN_CREATED = "2026-09-29T00:00:00Z"


def _provenance(fields: dict[str, Any], head_sha: str) -> None:
    runs = dict(fields.get("workflow_runs") or {})
    for run_id, jobs in fields["run_jobs"].items():
        commits = {job.head_sha for job in jobs or [] if job.head_sha}
        if run_id not in runs and len(commits) == 1:
            runs[run_id] = WorkflowRun(run_id, "Run Sweep", SWEEP_WORKFLOW, "pull_request", "completed",
                                       "success", commits.pop(), head_repo="o/r")
    # PR #1's pull_request runs ran for it, into main: its head branch x heads no other PR and
    # it was never retargeted (infx.trust.base_problem)
    runs = {run_id: replace(run, head_branch=run.head_branch or "x", created_at=run.created_at or RUN_CREATED)
            if run.event == "pull_request" else run for run_id, run in runs.items()}
    fields.setdefault("branch_pulls", BranchPulls("x", (), ()))
    fields["workflow_runs"] = runs
    fields["default_branch_files"] = {SWEEP_WORKFLOW: SWEEP_TEXT, **(fields.get("default_branch_files") or {})}
    trees = {sha: dict(tree) for sha, tree in (fields.get("commit_files") or {}).items()}
    for run in runs.values():
        if run.head_sha == head_sha:
            fields["head_files"] = {SWEEP_WORKFLOW: SWEEP_TEXT, **(fields.get("head_files") or {})}
        else:
            trees[run.head_sha] = {SWEEP_WORKFLOW: SWEEP_TEXT, **trees.get(run.head_sha, {})}
    fields["commit_files"] = trees


def jobs_of(check_runs: dict[str, list[CheckRun] | None]) -> dict[int, list[Job] | None]:
    """The workflow runs' jobs behind check runs (on GitHub each job is a check run of its run):
    grouped by the run their details_url names, each job on the commit it is listed under."""
    from infx.signoff.rules.sweeps import run_id_of

    jobs: dict[int, list[Job] | None] = {}
    for sha, runs in check_runs.items():
        for run in runs or []:
            run_id = run_id_of(run)
            if run_id is not None:
                jobs.setdefault(run_id, []).append(Job(run.id, run.name, run.status, run.conclusion,
                                                          head_sha=sha, completed_at=run.completed_at))
    return jobs


def world_evidence(name: str, **changes: Any) -> Evidence:
    """Evidence of ``tests/data/worlds/policy_<name>.yaml``, with fields replaced."""
    evidence = evidence_from_world(load_world(name))
    return replace(evidence, **changes) if changes else evidence


def with_body(evidence: Evidence, body: str) -> Evidence:
    return replace(evidence, signoff=replace(evidence.signoff, body=body))


def with_head_file(evidence: Evidence, path: str, text: str | None) -> Evidence:
    """The same PR with one more file changed at head (patch recomputed)."""
    head = dict(evidence.head_files)
    if text is None:
        head.pop(path, None)
    else:
        head[path] = text
    return replace(evidence, head_files=head, files=changed(evidence.base_files, head))


def at(date: str) -> datetime:
    return _time(f"{date}T12:00:00Z")


# seed 003's shared multi-node client helper, and the spec-decode config behind it
SEED003_BENCH = "benchmarks/multi_node/amd_utils/bench.sh"
SEED003_MTP_KEY = "minimaxm3-fp4-mi355x-atom-disagg-mtp"


def seed003_with_mtp(bench_old: str | None = None, bench_new: str = "") -> Evidence:
    """Seed 003 with the fp4 ATOM disagg lanes turning EAGLE3 on (draft size 3) at head: a
    multi-node spec-decode config whose client is the shared bench.sh helper (with
    ``bench_old`` replaced by ``bench_new`` in that helper when given)."""
    evidence = world_evidence("seed003")
    master = "configs/amd-master.yaml"
    text = evidence.head_files[master]
    start = text.index(f"{SEED003_MTP_KEY}:")
    end = text.index("minimaxm3-fp8-mi355x-atom-disagg-mtp:")
    evidence = with_head_file(evidence, master, text[:start]
                              + text[start:end].replace("DECODE_MTP_SIZE=0", "DECODE_MTP_SIZE=3") + text[end:])
    if bench_old is not None:
        evidence = with_head_file(evidence, SEED003_BENCH,
                                  evidence.head_files[SEED003_BENCH].replace(bench_old, bench_new))
    return evidence


# A client helper that takes the chat template as an option (the real benchmark_lib.sh shape):
# only `--chat` / `--use-chat-template` turn it on; its client otherwise drives raw completions.
OPTION_HELPER = """#!/usr/bin/env bash
bench() {
    local use_chat_template=false
    while [[ $# -gt 0 ]]; do
        case $1 in
            --url) url="$2"; shift 2 ;;
            --use-chat-template) use_chat_template=true; shift ;;
            --chat)
                use_chat_template=true
                shift
                ;;
            *) echo "unknown option $1" >&2; exit 1 ;;
        esac
    done
    local extra=""
    if [[ "$use_chat_template" == true ]]; then
        extra="--apply-chat-template"
    fi
    python3 -m sglang.bench_serving --backend openai --base-url "$url" $extra
}
"""
