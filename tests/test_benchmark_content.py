"""infx.benchmark_content: what a PR's benchmarks depend on, and where two of its trees differ."""

from __future__ import annotations

import pytest

from infx.benchmark_content import (
    CHANGELOG_LABEL,
    Unreadable,
    affected_keys,
    differences,
    is_benchmark_path,
    pr_entries,
)

MASTER = "configs/amd-master.yaml"
BLOCK_A = "a-fp8-mi355x-sglang:\n  image: img:1\n  runner: mi355x\n"
BLOCK_B = "b-fp4-mi355x-atom:\n  image: atom:1\n  runner: mi355x\n"
OLD_ENTRY = "- config-keys: [b-fp4-mi355x-atom]\n  description: [old]\n  pr-link: https://github.com/o/r/pull/1\n"


def entry(keys: str, text: str = "bump", link: str = "XXX") -> str:
    return f"\n- config-keys: [{keys}]\n  description: [{text}]\n  pr-link: {link}\n"


BASE = {MASTER: BLOCK_A + BLOCK_B, "perf-changelog.yaml": OLD_ENTRY, "runners/launch_mi355x.sh": "run\n",
        "README.md": "hi\n"}
HEAD = BASE | {MASTER: BLOCK_A.replace("img:1", "img:2") + BLOCK_B,
               "perf-changelog.yaml": OLD_ENTRY + entry("a-fp8-mi355x-sglang")}


def test_identical_trees_have_no_differences():
    assert differences(HEAD, dict(HEAD), BASE) == []


def test_swapping_the_changelog_to_other_keys_is_a_difference():
    swapped = HEAD | {"perf-changelog.yaml": OLD_ENTRY + entry("b-fp4-mi355x-atom")}
    assert differences(HEAD, swapped, BASE) == [CHANGELOG_LABEL]


def test_a_changed_affected_block_is_named_with_its_key():
    changed = HEAD | {MASTER: BLOCK_A.replace("img:1", "img:3") + BLOCK_B}
    assert differences(HEAD, changed, BASE) == [f"{MASTER} [a-fp8-mi355x-sglang]"]


def test_recipes_of_affected_keys_and_launchers_count():
    recipe = "configs/recipes/a-fp8-mi355x-sglang.yaml"
    with_recipe = HEAD | {recipe: "serve: x\n"}
    assert differences(HEAD, with_recipe, BASE) == [recipe]
    assert differences(HEAD, HEAD | {"runners/launch_mi355x.sh": "run --x\n"}, BASE) == \
        ["runners/launch_mi355x.sh"]
    assert differences(HEAD, HEAD | {"benchmarks/new.py": "x\n"}, BASE) == ["benchmarks/new.py"]


def test_a_merge_of_the_default_branch_and_link_canonicalisation_are_neutral():
    # main gained another PR's entry and an unrelated config and recipe meanwhile
    other = "c-bf16-mi355x-vllm:\n  image: v:1\n  runner: mi355x\n"
    main = BASE | {MASTER: BASE[MASTER] + other,
                   "perf-changelog.yaml": OLD_ENTRY + entry("c-bf16-mi355x-vllm", "other", "https://github.com/o/r/pull/2"),
                   "configs/recipes/c-bf16-mi355x-vllm.yaml": "serve: c\n", "README.md": "changed\n"}
    merged = main | {MASTER: HEAD[MASTER] + other,
                     "perf-changelog.yaml": main["perf-changelog.yaml"]
                     + entry("a-fp8-mi355x-sglang", link="https://github.com/o/r/pull/12")}
    assert differences(HEAD, merged, main) == []


def test_only_the_prs_own_entries_and_blocks_are_affected():
    assert [e["config-keys"] for e in pr_entries(HEAD, BASE)] == [["a-fp8-mi355x-sglang"]]
    assert affected_keys(HEAD, BASE) == {"a-fp8-mi355x-sglang"}
    assert affected_keys(BASE, BASE) == set()
    glob = HEAD | {"perf-changelog.yaml": OLD_ENTRY + entry("'*-mi355x-*'")}
    assert affected_keys(glob, BASE) == {"a-fp8-mi355x-sglang", "b-fp4-mi355x-atom"}


def test_an_unparsable_tree_fails_closed():
    with pytest.raises(Unreadable, match="configs/amd-master.yaml cannot be parsed"):
        differences(HEAD, HEAD | {MASTER: "a: [\n"}, BASE)
    with pytest.raises(Unreadable, match="perf-changelog.yaml is not a list of entries"):
        differences(HEAD, HEAD | {"perf-changelog.yaml": "a: 1\n"}, BASE)


@pytest.mark.parametrize(("path", "yes"), [
    ("perf-changelog.yaml", True), (MASTER, True), ("configs/recipes/x.yaml", True),
    ("runners/launch_mi355x.sh", True), ("benchmarks/run.py", True), ("README.md", False),
    ("configs/policy/hardware.yaml", False), ("docs/perf-changelog.yaml", False),
    # one folder down (a monorepo's e.g. inferencex-e2e/) counts; deeper, or a near miss, does not
    ("e2e/configs/amd-master.yaml", True), ("e2e/configs/recipes/k.yaml", True), ("e2e/runners/x.sh", True),
    ("a/b/configs/amd-master.yaml", False), ("configs/amd-master.yaml.orig", False),
    ("configs/-master.yaml", False), ("configs/recipes/.yaml", False), ("configs/recipes/k.yaml.bak", False),
    ("configs/recipes/a/k.yaml", False), ("docs/old/runners/x.sh", False), ("runners", False)])
def test_benchmark_paths(path, yes):
    assert is_benchmark_path(path) is yes
