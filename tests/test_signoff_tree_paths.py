"""Which head files the evidence keeps: the checks' paths only, so unrelated files never hit a cap."""

from __future__ import annotations

import copy

import pytest
from signoff_policy_support import bare_evidence, trusted_policy_files

from infx import yamlio
from infx.github.archives import ArchiveLimitError, ArchiveLimits
from infx.signoff import evidence as ev
from infx.signoff.model import ChangedFile
from infx.signoff.tree_paths import head_filter

MB = 1024 * 1024
SMALL = ArchiveLimits(download_bytes=8 * MB, member_bytes=MB, total_bytes=2 * MB,
                      expanded_bytes=16 * MB, members=1000)
OWNERS = (".github/CODEOWNERS", "CODEOWNERS")


def evidence_with(changed: list[str], policy: dict[str, str] | None = None):
    files = [ChangedFile(path, "modified") for path in changed]
    files.append(ChangedFile("docs/new-name.md", "renamed", previous_filename="docs/old-name.md"))
    return bare_evidence(files=files, default_branch_files=dict(
        trusted_policy_files() if policy is None else policy))


def test_the_checks_paths_are_kept_and_nothing_else():
    wanted = head_filter(evidence_with(["assets/tool.py"]), OWNERS)
    keep = ["assets/tool.py", "docs/new-name.md", "docs/old-name.md", "perf-changelog.yaml",
            "configs/amd-master.yaml", "configs/recipes/x.yaml", "configs/runners.yaml",
            "e2e/configs/nvidia-master.yaml", "benchmarks/single_node/x.sh", "runners/launch.sh",
            "CODEOWNERS", ".github/CODEOWNERS",
            "benchmarks/multi_node/amd_utils/server.sh"]  # a helper folder of the engines policy
    skip = ["assets/weights.bin", "README.md", "docs/other.md", "utils/big.csv",
            ".github/workflows/x.yml", "a/b/configs/deep.yaml"]
    assert [p for p in keep if not wanted(p)] == []
    assert [p for p in skip if wanted(p)] == []


def test_the_helper_folders_come_from_the_trusted_engines_policy():
    policy = trusted_policy_files()
    text = policy["configs/policy/engines.yaml"].replace(
        "paths: [benchmarks/multi_node/amd_utils/]", "paths: [tools/mn_helpers/]")
    assert text != policy["configs/policy/engines.yaml"]
    wanted = head_filter(evidence_with([], {**policy, "configs/policy/engines.yaml": text}), OWNERS)
    assert wanted("tools/mn_helpers/run.sh") and not wanted("tools/other.sh")


def test_the_sweep_workflow_files_provenance_compares_are_kept():
    default = {**trusted_policy_files(),
               ".github/workflows/run-sweep.yml":
                   "jobs:\n  a:\n    uses: ./.github/workflows/benchmark-tmpl.yml\n",
               ".github/workflows/benchmark-tmpl.yml":
                   "jobs:\n  b:\n    steps:\n      - uses: ./tools/act\n",
               "tools/act/action.yml": "runs: {using: composite, steps: []}\n"}
    wanted = head_filter(evidence_with([], default), OWNERS)
    for path in (".github/workflows/run-sweep.yml", ".github/workflows/benchmark-tmpl.yml",
                 "tools/act/action.yml"):
        assert wanted(path), path
    assert not wanted(".github/workflows/unrelated.yml") and not wanted("tools/other.yml")


def test_an_unreadable_policy_keeps_every_file():
    assert head_filter(evidence_with([], policy={}), OWNERS) is None


@pytest.fixture(scope="module")
def seed000(request):
    return yamlio.load_file(request.config.rootpath / "tests/data/worlds/signoff_seed000.yaml")


def with_big_head_file(world: dict, path: str) -> dict:
    world = copy.deepcopy(world)
    head = world["pulls"][0]["head"]["sha"]
    world["commits"][head].setdefault("files", {})[path] = "x" * (MB + 10)
    return world


def test_a_large_file_no_check_reads_does_not_fail_the_head_read(fake_github, seed000):
    world = with_big_head_file(seed000, "assets/dataset.txt")
    reader = ev.Reader(fake_github(world).client(limits=SMALL), world["repo"], cap=30)
    head = world["pulls"][0]["head"]["sha"]
    evidence = evidence_with(["configs/amd-master.yaml"])
    kept = reader.tree(head, head_filter(evidence, OWNERS))
    assert "configs/amd-master.yaml" in kept and "assets/dataset.txt" not in kept
    with pytest.raises(ArchiveLimitError, match="member_bytes"):
        reader.tree(head)  # unfiltered, the same file is over the member cap


def test_a_large_file_a_check_reads_is_an_error_naming_the_cap(fake_github, seed000):
    world = with_big_head_file(seed000, "benchmarks/huge.sh")
    reader = ev.Reader(fake_github(world).client(limits=SMALL), world["repo"], cap=30)
    evidence = evidence_with([])
    with pytest.raises(ArchiveLimitError, match=r"benchmarks/huge\.sh.*member_bytes cap of 1,048,576"):
        reader.tree(world["pulls"][0]["head"]["sha"], head_filter(evidence, OWNERS))


def test_artifacts_keep_their_json_members_only(fake_github, seed000):
    world = copy.deepcopy(seed000)
    run = next(r for r in world["workflow_runs"]
               if any(a["name"] == "eval_results_all" for a in r.get("artifacts", [])))
    artifact = next(a for a in run["artifacts"] if a["name"] == "eval_results_all")
    artifact.setdefault("files", {})["server.log"] = "log line\n" * (MB // 8)  # over member cap
    reader = ev.Reader(fake_github(world).client(limits=SMALL), world["repo"], cap=30)
    found = next(a for a in reader.artifacts(run["id"]) if a.name == "eval_results_all")
    assert found.files and "server.log" not in found.files
    assert all(name.endswith(".json") for name in found.files)
