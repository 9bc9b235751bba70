"""Trusted code makes the evidence (issue 20, PRODUCT §4.8), run through the real workflow files.

A PR patches the sweep's own code in an earlier commit (the `infx` package's collect step, the
result normaliser, or `pyproject.toml` and the workflows' requirements lock), that commit is
swept on a node that scores the evals below their floor, and the head reverts the patch with
`[skip-sweep]`. The sweep's jobs install and run the default branch's infx (what the local
runner's `pip install` recorded), never import the PR's copy, so the results are the node's
and the verdict on the clean head is never `success`."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest
from lib.loop_scenarios import (
    SINGLE_NODE_DETAILS,
    failed_jobs,
    refresh,
    sign,
    single_node_pr,
    sweep,
)
from lib.sweep_loop import GpuPlan, SweepRepo, verify

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LOCK = ".github/requirements-workflows.txt"
MARKER = "IMPORTED-THE-PR-S-OWN-INFX"
# appended to a module of the PR's infx: announces that it was imported, and scores every eval 0.99
_TO_099 = """
import sys as _sys
_sys.stderr.write("{marker} ({module})\\n")
_honest_eval_rows = eval_rows


def eval_rows(*args, **kwargs):
    return [dict(r, score=0.99, **({{r["score_name"]: 0.99}} if r.get("score_name") else {{}}))
            for r in _honest_eval_rows(*args, **kwargs)]
"""


def _patched_module(repo: SweepRepo, path: str) -> dict[str, str]:
    module = path.removesuffix(".py").replace("/", ".")
    return {path: repo.read("main", path) + _TO_099.format(marker=MARKER, module=module)}


def _patch(repo: SweepRepo, kind: str) -> dict[str, str]:
    if kind == "collect":
        files = _patched_module(repo, "infx/workflow/collect.py")
        # and the package itself, so that any step importing the PR's infx says so in its log
        files["infx/__init__.py"] = (repo.read("main", "infx/__init__.py")
                                     + f'\nimport sys as _sys\n_sys.stderr.write("{MARKER} (infx)\\n")\n')
        return files
    if kind == "normaliser":
        return _patched_module(repo, "infx/results/normalise.py")
    # the build and its lock: what a job installs (a pinned package of the PR's choosing)
    pyproject = repo.read("main", "pyproject.toml").replace(
        'dependencies = [\n', 'dependencies = [\n    "evals-always-pass==1.0",\n', 1)
    lock = repo.read("main", LOCK) + ("evals-always-pass==1.0 \\\n    --hash=sha256:" + "0" * 64
                                      + "\n    # via infx (pyproject.toml)\n")
    return {"pyproject.toml": pyproject, LOCK: lock}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _eval_scores(record) -> list[float]:
    return [row["score"] for row in json.loads(record.artifacts.items["eval_results_all"].files["agg_eval_all.json"])]


def _collect_with_code_of(repo: SweepRepo, sha: str, record, work) -> list[float]:
    """The eval scores the swept commit's own infx would have collected from the run's eval
    artifacts (the control: the patch is live, so only trusted code keeps it out)."""
    code = work / f"code-{sha[:8]}"
    for rel, text in repo.tree(sha).items():
        if rel.startswith("infx/"):
            (code / rel).parent.mkdir(parents=True, exist_ok=True)
            (code / rel).write_text(text, encoding="utf-8")
    downloaded = work / "downloaded"
    for name, artifact in record.artifacts.items.items():
        if name.startswith("eval_") and name != "eval_results_all":
            for rel, data in artifact.files.items():
                (downloaded / name / rel).parent.mkdir(parents=True, exist_ok=True)
                (downloaded / name / rel).write_bytes(data)
    out = work / "agg.json"
    subprocess.run([sys.executable, "-P", "-m", "infx.workflow", "collect", "--kind", "eval", "--input",
                    str(downloaded), "--output", str(out)], cwd=work, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(code), "GITHUB_STEP_SUMMARY": ""})
    return [row["score"] for row in json.loads(out.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("kind", ["collect", "normaliser", "build-and-lock"])
def test_a_patch_of_the_sweep_code_reverted_on_the_head_never_gets_success(base_repo, tmp_path, kind):
    repo = SweepRepo(base_repo, tmp_path / "repo")
    pr = single_node_pr(repo)
    main = repo.sha("main")
    patched = repo.commit(pr.branch, "main", _patch(repo, kind), "Tune the collection")
    pr.head_sha, pr.commits = patched, [*pr.commits, patched]
    record, world = sweep(repo, pr, tmp_path, 9601, gpu=GpuPlan(low_eval=[{"model-prefix": "dsr1"}]))
    assert record.conclusion == "success", failed_jobs(record)

    # every job that ran steps installed infx once, from a clean checkout of the default branch's
    # tip, with the default branch's lock; none installed or imported the PR's code
    ran = [j for j in record.jobs if j.steps]
    assert len(ran) > 10
    for job in ran:
        packages = [i for i in job.installs if i["kind"] == "package"]
        locks = [i for i in job.installs if i["kind"] == "requirements"]
        assert [(p["source"], p["commit"], p["clean"]) for p in packages] == [("trusted", main, True)], job.name
        assert packages[0]["pyproject_sha256"] == _sha256(repo.read("main", "pyproject.toml")), job.name
        assert [(x["file"], x["sha256"]) for x in locks] == [(f"trusted/{LOCK}", _sha256(repo.read("main", LOCK)))]
        assert MARKER not in job.log, job.name
    assert sum(1 for j in ran if (j.runner_name or "").startswith("mi355x-amds_")) == 8  # the GPU jobs too

    # the results are the node's (0.5: below the floor), not what the PR's code would write
    assert set(_eval_scores(record)) == {0.5}
    if kind == "build-and-lock":  # the control: the PR's build files and lock are not the installed ones
        assert repo.read(patched, LOCK) != repo.read("main", LOCK)
        assert repo.read(patched, "pyproject.toml") != repo.read("main", "pyproject.toml")
    else:
        assert set(_collect_with_code_of(repo, patched, record, tmp_path / "control")) == {0.99}

    # the head reverts the patch and skips its sweep; the CODEOWNER signs the clean head
    head = repo.commit(pr.branch, patched, {p: repo.read("main", p) for p in _patch(repo, kind)},
                       "Revert the collection tweak [skip-sweep]")
    pr.head_sha, pr.commits = head, [*pr.commits, head]
    skipped, world = sweep(repo, pr, tmp_path, 9602, world=refresh(world, repo, pr), action="synchronize",
                           before=patched)
    assert [j.name for j in skipped.jobs if j.steps] == ["check-changelog", "reuse-sweep-gate"], failed_jobs(skipped)
    verdict = verify(world, pr.number, sign(world, SINGLE_NODE_DETAILS), tmp_path)
    assert verdict.status != "success" and verdict.verdict == "REJECTED", verdict.log
    check = verdict.check(2)
    assert check["status"] == "FAIL" and "below the threshold 0.91" in check["reason"]
    assert "0.99" not in json.dumps(verdict.checks)
