"""The adopter scenario (issue 25): a repository that runs infx only by reference.

It starts with the reference configs alone (our MI355X master configs, runner labels,
launchers, recipe scripts, changelog and CODEOWNERS: no infx, no pyproject, no workflow), and
`infx init` writes its workflows, each one job calling a reusable workflow of
`infx-project/infx` pinned to a commit. The local runner reads those from a git repository of
this checkout at that commit, as GitHub reads a called workflow and a remote action: the
called jobs check infx out from it and install it with its composite action. A labeled PR that
appends a changelog entry is swept by the adopter's run-sweep.yml (plan, the rows on the fake
MI355X node, collection, the report comment), then a CODEOWNER's sign-off goes through the
adopter's signoff-verify.yml and gets PASS with the success status."""

from __future__ import annotations

import re
import shutil

import pytest
from lib.loop_scenarios import (
    SINGLE_NODE_DETAILS,
    authorize_reuse,
    failed_jobs,
    report_comment,
    sign,
    single_node_pr,
    sweep,
)
from lib.sweep_loop import (
    INFX_REPO,
    GpuPlan,
    SweepRepo,
    comment_event,
    make_adopter_repo,
    make_infx_repo,
    run_comment_workflow,
)

from infx.yamlio import load_file

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

KEY = "dsr1-fp4-mi355x-atom"
STATUS = "codeowner-signoff-verify"


@pytest.fixture(scope="module")
def adopter(tmp_path_factory):
    """(the infx repository, its commit, the adopter's repository after `infx init`, init's output)."""
    root = tmp_path_factory.mktemp("adopter")
    infx_sha = make_infx_repo(root / "infx")
    out = make_adopter_repo(root / "adopter", INFX_REPO, infx_sha)
    return root / "infx", infx_sha, root / "adopter", out


def _row_jobs(record, shard: str) -> list:
    """The jobs of one shard job of the called sweep (by its YAML id), one per matrix row."""
    return [j for j in record.jobs if j.key == f"sweep/{shard}"]


def test_init_writes_only_callers_of_the_pinned_reusable_workflows(adopter):
    _, infx_sha, base, out = adopter
    assert not (base / "infx").exists() and not (base / "pyproject.toml").exists()
    workflows = sorted((base / ".github" / "workflows").glob("*.yml"))
    assert {p.name for p in workflows} >= {"run-sweep.yml", "signoff-verify.yml"}
    for path in workflows:
        (job,) = load_file(path)["jobs"].values()
        assert re.fullmatch(rf"{INFX_REPO}/\.github/workflows/infx-[\w-]+\.yml@{infx_sha}", job["uses"]), path.name
        assert job["with"] == {"infx-repository": INFX_REPO, "infx-ref": infx_sha}
    assert re.search(r"^wrote +\.github/workflows/run-sweep\.yml$", out, re.MULTILINE), out


def test_a_labeled_pr_is_swept_reported_and_signed_off_through_the_reusable_workflows(adopter, tmp_path):
    infx_dir, infx_sha, base, _ = adopter
    repositories = {INFX_REPO: infx_dir}
    repo = SweepRepo(base, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, 9301, repositories=repositories)
    assert record.conclusion == "success", failed_jobs(record)
    assert record.path == ".github/workflows/run-sweep.yml" and record.concurrency == "sweep-41-active"
    # every job is the called sweep's: GitHub names them `sweep / <job>`
    assert all(j.name.startswith("sweep / ") and j.key.startswith("sweep/") for j in record.jobs)
    assert record.job("sweep / setup").conclusion == "success"
    canary, family = _row_jobs(record, "canary"), _row_jobs(record, "sweep-single-node-8k1k-1")
    evals = _row_jobs(record, "sweep-evals-1")
    assert (len(canary), len(family), len(evals)) == (1, 5, 2)
    rows = canary + family + evals
    assert {j.conclusion for j in rows} == {"success"}
    assert canary[0].name.startswith("sweep / canary / dsr1 fp4 mi355x atom ")
    assert all(j.name.startswith("sweep / single-node 8k1k / ") for j in family)
    # the real launcher on the fake node, one container per row
    assert len(record.node.containers()) == 8
    # every job that ran steps installed infx from the infx checkout at the pinned commit, and
    # its hash-locked requirements from there (the adopter has no infx to install)
    ran = [j for j in record.jobs if j.steps]
    assert ran and all(j.installs for j in ran)
    for job in ran:
        (package,) = [i for i in job.installs if i["kind"] == "package"]
        (lock,) = [i for i in job.installs if i["kind"] == "requirements"]
        assert (package["source"], package["commit"]) == (".infx", infx_sha), job.name
        assert lock["file"] == ".infx/.github/requirements-workflows.txt", job.name
    names = set(record.artifacts.items)
    assert {"results_bmk", "eval_results_all", "changelog-metadata"} <= names
    # the report job's comment counts the 8 rows of the key as passed
    body = report_comment(world)["body"]
    assert body.startswith(f"<!-- infx-sweep-report run={record.run_id} attempt=1 -->")
    key_row = next(line for line in body.split("\n") if line.startswith(f"| `{KEY}` |"))
    assert key_row.startswith(f"| `{KEY}` | {len(rows)} | 0 | 0 | 0 |"), key_row

    # a CODEOWNER signs off; the adopter's signoff-verify.yml (one job calling ours) verifies
    authorize_reuse(world, record.run_id)
    signed = sign(world, SINGLE_NODE_DETAILS)
    run, after = run_comment_workflow(world, repo, comment_event(world, signed, repo.sha("main")),
                                      ".github/workflows/signoff-verify.yml", 9302, tmp_path / "signoff",
                                      repositories=repositories)
    assert run.conclusion == "success", failed_jobs(run)
    verify = next(j for j in run.jobs if j.key == "signoff/verify")
    assert verify.conclusion == "success" and verify.name.startswith("signoff / ")
    (package,) = [i for i in verify.installs if i["kind"] == "package"]
    assert (package["source"], package["commit"]) == (".infx", infx_sha)
    statuses = [s for s in after["statuses"].get(pr.head_sha, []) if s["context"] == STATUS]
    assert statuses and statuses[-1]["state"] == "success", statuses
    verdicts = [c for c in after["pulls"][0]["comments"] if c["id"] != signed and "PASS" in c["body"]
                and c["user"] == "github-actions[bot]"]
    assert verdicts, [c["body"][:200] for c in after["pulls"][0]["comments"]]


def test_a_failed_row_of_the_adopters_sweep_rejects_the_signoff(adopter, tmp_path):
    """The same path with one row crashing on the node: the sign-off through the adopter's
    signoff-verify.yml is REJECTED naming that row's job, and the status is failure."""
    infx_dir, _, base, _ = adopter
    repositories = {INFX_REPO: infx_dir}
    repo = SweepRepo(base, tmp_path / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, tmp_path, 9311, gpu=GpuPlan(fail=[{"tp": 4, "conc": 8}]),
                          repositories=repositories)
    (failed,) = [j for j in record.jobs if j.conclusion == "failure"]
    assert failed.name.startswith("sweep / single-node 8k1k / ") and " TP4 c8 " in failed.name
    signed = sign(world, SINGLE_NODE_DETAILS)
    run, after = run_comment_workflow(world, repo, comment_event(world, signed, repo.sha("main")),
                                      ".github/workflows/signoff-verify.yml", 9312, tmp_path / "signoff",
                                      repositories=repositories)
    assert run.conclusion == "success", failed_jobs(run)
    statuses = [s for s in after["statuses"].get(pr.head_sha, []) if s["context"] == STATUS]
    assert statuses and statuses[-1]["state"] == "failure", statuses
    (verdict,) = [c for c in after["pulls"][0]["comments"] if c["user"] == "github-actions[bot]"
                  and "REJECTED" in c["body"]]
    assert failed.name.rsplit(" / ", 1)[1].split(" #")[0] in verdict["body"], verdict["body"][:3000]
