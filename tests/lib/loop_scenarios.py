"""Helpers of the loop tests, shared with other test modules."""

from __future__ import annotations

import re

import pytest

from lib.sweep_loop import (
    MAINTAINER,
    SIGNER,
    GpuPlan,
    PullRequest,
    SweepRepo,
    add_comment,
    base_world,
    checklist_body,
    make_base_repo,
    pull_request_event,
    run_with_github,
)

MASTER = "configs/amd-master.yaml"


CHANGELOG = "perf-changelog.yaml"


LABEL = "full-sweep-fail-fast"


SWEPT_AT = "2026-09-29T10:00:00Z"


SIGNED_AT = "2026-09-30T09:00:00Z"


REVIEWED_AT = "2026-09-30T12:00:00Z"


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory):
    return make_base_repo(tmp_path_factory.mktemp("loop") / "base")


def block(text: str, key: str) -> tuple[int, int]:
    """(start, end) of a top-level key's block in a YAML file."""
    match = re.search(rf"^{re.escape(key)}:\n", text, re.M)
    assert match, f"{key} is not in the file"
    end = re.search(r"^\S", text[match.end():], re.M)
    return match.start(), match.end() + end.start() if end else len(text)


def edit_block(text: str, key: str, old: str, new: str) -> str:
    start, end = block(text, key)
    part = text[start:end]
    assert old in part, f"{old!r} is not in {key}"
    return text[:start] + part.replace(old, new, 1) + text[end:]


def image_of(text: str, key: str) -> str:
    start, end = block(text, key)
    return re.search(r"^  image: (\S+)$", text[start:end], re.M).group(1)


def entry(keys: list[str], description: str, extra: str = "") -> str:
    names = "".join(f"    - {k}\n" for k in keys)
    return f"\n- config-keys:\n{names}  description:\n    - \"{description}\"\n  pr-link: XXX\n{extra}"


def open_pr(repo: SweepRepo, number: int, branch: str, files: dict[str, str], title: str,
            labels: list[str]) -> PullRequest:
    main = repo.sha("main")
    head = repo.commit(branch, "main", files, title)
    return PullRequest(number, title, branch, main, head, [head], labels)


def sweep(repo: SweepRepo, pr: PullRequest, work, run_id: int, world=None, action: str = "labeled",
          gpu: GpuPlan | None = None, before: str | None = None, start: str = SWEPT_AT,
          now: str = REVIEWED_AT, repositories=None):
    """One pull_request event through run-sweep.yml; the recorded world comes back."""
    merge = repo.pull_refs(pr.number, pr.head_sha)
    event = pull_request_event(pr, action, merge, label=LABEL if action == "labeled" else None,
                               before=before)
    world = world or base_world(repo, pr, now=now)
    return run_with_github(world, repo, event, run_id, work / f"run{run_id}", gpu=gpu, start=start,
                           repositories=repositories)


def jobs_of(record, caller: str) -> list:
    """The jobs a run-sweep.yml shard job (by its YAML id) ran through the template."""
    return [j for j in record.jobs if j.key.startswith(caller + "/")]


def authorize_reuse(world: dict, run_id: int, when: str = "2026-09-29T20:00:00Z") -> int:
    """A maintainer pins the green run (what merging with reuse needs; Check `reuse`)."""
    return add_comment(world, MAINTAINER, "MEMBER", f"/reuse-sweep-run {run_id}", when)


def sign(world: dict, details: list[str], when: str = SIGNED_AT) -> int:
    return add_comment(world, SIGNER, "MEMBER", checklist_body(SIGNER, details), when)


def failed_jobs(record) -> dict[str, str]:
    """Failed job -> the end of its log (the assertion message when a run is not green)."""
    return {j.name: j.log[-1500:] for j in record.jobs if j.conclusion == "failure"}


def report_comment(world: dict) -> dict:
    """The PR's one sweep report comment, as the run's `report` job left it on the fake GitHub."""
    (comment,) = [c for c in world["pulls"][0]["comments"] if c["body"].startswith("<!-- infx-sweep-report ")]
    return comment


def job_page(world: dict, record, job) -> str:
    """A job's page as GitHub lists it: the check run recorded for that job of the run."""
    (url,) = [c["details_url"] for c in world["check_runs"][record.head_sha]
              if c["run_id"] == record.run_id and c["name"] == job.name]
    return url


def report_checks(body: str) -> dict[str, str]:
    """Check number -> status, from the report's table of what the sign-off would say now."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| (\d+) \| [^|]+ \| ([A-Z/]+) \|", body, re.M)}


def assert_pass(verdict) -> None:
    failing = "\n".join(f"Check {k}: {c['reason']} {c['details']}" for k, c in verdict.checks.items()
                        if c["status"] in ("FAIL", "WARN"))
    assert verdict.verdict == "PASS", failing
    assert verdict.status == "success"


def single_node_pr(repo: SweepRepo) -> PullRequest:
    key = "dsr1-fp4-mi355x-atom"
    master = repo.read("main", MASTER)
    image = image_of(master, key)
    master = edit_block(master, key, image, image[:-8] + "20260925")
    master = edit_block(master, key, "conc-start: 4, conc-end: 256", "conc-start: 4, conc-end: 64")
    changelog = repo.read("main", CHANGELOG) + entry([key], "Bump the ATOM image of DeepSeek-R1 FP4 on MI355X")
    return open_pr(repo, 41, "vendor-dev/dsr1-atom", {MASTER: master, CHANGELOG: changelog},
                   "perf(amd): bump the dsr1 fp4 ATOM image", [LABEL])


# The run id of the first sweep of single_node_pr in the scenarios that start with its green
# default sweep: the same inputs, so the session runs it once (sweep_loop.run_with_github).
FIRST_SWEEP = 9101


SINGLE_NODE_DETAILS = ["- ATOM submission: the vLLM/SGLang upstream-recipe rule does not apply.",
                       "- No speculative decoding in this config."]


AGENTIC_KEY = "kimik3-fp4-mi355x-atom-agentic-mtp"


AGENTIC_RECIPE = f"configs/recipes/{AGENTIC_KEY}.yaml"


AGENTIC_DETAILS = [
    "- ATOM submission: the vLLM/SGLang upstream-recipe rule does not apply.",
    "- Draft-model precision record: Inferact/Kimi-K3-DSpark@4c1d2e3f, shipped BF16, loaded by the pinned image "
    "without a quant config, effective BF16. SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is not set.",
    "- Golden AL: synthetic acceptance 2.51 with 2 draft tokens, thinking on.",
]


def refresh(world: dict, repo: SweepRepo, pr: PullRequest) -> dict:
    """The world after new commits: trees, branches and the PR's head, base and commit list."""
    fresh = base_world(repo, pr)
    for name in ("check_runs", "workflow_runs", "statuses"):
        fresh[name] = world[name]
    fresh["pulls"][0]["comments"] = world["pulls"][0]["comments"]
    fresh["commits"] = world["commits"] | fresh["commits"]
    return fresh


RECIPE_SCRIPT = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x_atom.sh"

