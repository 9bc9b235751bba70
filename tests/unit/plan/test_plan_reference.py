"""The planner against the reference planner's recorded outputs on the real data."""

from __future__ import annotations

import json
import shutil

import pytest
from lib.changelog_support import git

from infx.plan.planner import PlanFlags, dump_plan, file_sources, plan_from_git

CONFIGS = ["configs/amd-master.yaml", "configs/nvidia-master.yaml"]
RUNNERS = "configs/runners.yaml"


@pytest.fixture
def reference_repo(tmp_path, upstream_dir, monkeypatch):
    """A git repo holding the reference configs and changelog as its base commit."""
    (tmp_path / "configs").mkdir()
    for name in ("amd-master.yaml", "nvidia-master.yaml", "runners.yaml"):
        shutil.copy(upstream_dir / "configs" / name, tmp_path / "configs" / name)
    shutil.copy(upstream_dir / "perf-changelog.yaml", tmp_path / "perf-changelog.yaml")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def append_and_commit(repo, blocks: list[str]) -> tuple[str, str]:
    base = git(repo, "rev-parse", "HEAD")
    path = repo / "perf-changelog.yaml"
    path.write_bytes(path.read_bytes() + "".join("\n" + b for b in blocks).encode())
    git(repo, "commit", "-q", "-am", "append")
    return base, git(repo, "rev-parse", "HEAD")


def plan_for(repo, blocks, flags: PlanFlags) -> dict:
    base, head = append_and_commit(repo, blocks)
    plan = plan_from_git(base, head, "perf-changelog.yaml", flags,
                         file_sources(CONFIGS, RUNNERS, base))
    return json.loads(dump_plan(plan))


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_matches_reference_plan(reference_repo, upstream_dir, number):
    expected = json.loads((upstream_dir / "expected" / f"plan-{number}.json").read_text())
    flags = PlanFlags(trim="--trim-conc" in expected["flags"],
                      all_evals="--all-evals" in expected["flags"],
                      evals_only="--evals-only" in expected["flags"])
    plan = plan_for(reference_repo, expected["appended_entries"], flags)
    want = expected["plan"]
    plan["changelog_metadata"].pop("base_ref")
    plan["changelog_metadata"].pop("head_ref")
    want["changelog_metadata"].pop("base_ref")
    want["changelog_metadata"].pop("head_ref")
    assert plan == want


def test_conflict_resolution_that_dropped_a_main_pr_link_line(reference_repo):
    """§5 item 16: the real-history regression where a merge lost main's pr-link line."""
    from infx.errors import InfxError

    path = reference_repo / "perf-changelog.yaml"
    link = "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1798\n"
    text = path.read_text()
    assert text.count(link) == 1
    path.write_text(text.replace(link, ""))
    new = ("- config-keys:\n    - dsr1-fp8-mi355x-sglang\n  description:\n    - \"x\"\n"
           "  pr-link: XXX\n")
    base, head = append_and_commit(reference_repo, [new])
    with pytest.raises(InfxError) as caught:
        plan_from_git(base, head, "perf-changelog.yaml", PlanFlags(),
                      file_sources(CONFIGS, RUNNERS, base))
    message = caught.value.problems[0].message
    assert message == ("Deletions are not allowed in perf-changelog.yaml. Only additions to the "
                       "changelog are permitted. Found deleted line: " + link.rstrip("\n"))
