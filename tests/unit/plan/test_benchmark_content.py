"""infx.plan.benchmark_content: what a PR's benchmarks depend on, and where two of its trees differ."""

from __future__ import annotations

import pytest

from infx.plan.benchmark_content import (
    CHANGELOG_LABEL,
    Unreadable,
    affected_keys,
    differences,
    executed_paths,
    master_blocks,
    named_keys,
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


LAUNCH = "benchmarks/x.sh"


@pytest.mark.parametrize("path", [
    "utils/bench_serving/benchmark_serving.py", "tools/warm.py", "setup.py", "configs/policy/hardware.yaml",
    "configs/runners.yaml", "runners/launch_mi355x.sh", ".claude/mcp/x.py", "experimental/a.json",
    "a/b/configs/amd-master.yaml", "configs/recipes/a/k.yaml", "docs/warm.sh", "infx/workflow/collect.py",
    "tests/warm.py", "pyproject.toml", ".github/actions/a/run.sh", ".github/scripts/x.sh",
    "benchmarks/notice_helpers.py", "runners/licensed_setup.sh", "requirements.txt"])
def test_every_program_and_data_file_may_run(path):
    """Everything a launcher can run, by any path, glob or folder change: no program is neutral."""
    assert executed_paths({path: "x\n"}) == {path}


@pytest.mark.parametrize("path", [
    "README.md", "docs/procedures.md", "benchmarks/agentic/README.md", "LICENSE", "NOTICE.txt", "CODEOWNERS",
    ".github/workflows/run-sweep.yml", ".github/actions/a/action.yml", "img/chart.png", ".gitignore"])
def test_documents_and_workflow_files_no_program_runs_are_neutral(path):
    assert executed_paths({path: "x\n", LAUNCH: "serve\n"}) == {LAUNCH}


@pytest.mark.parametrize(("line", "target"), [
    ("bash docs/run.md\n", "docs/run.md"),  # from the root
    ('bash "$ROOT/docs/run.md"\n', "docs/run.md"),
    ('source "${BASH_SOURCE%/*}/../docs/run.md"\n', "docs/run.md"),  # from the script's folder
    ('bash "$(dirname "$0")/../docs/run.md"\n', "docs/run.md"),
    ("bash /workspace/docs/run.md\n", "docs/run.md"),
    ("source ./notes.md\n", "benchmarks/notes.md"),
    ("cp docs/run.md /tmp/run.sh && bash /tmp/run.sh\n", "docs/run.md"),
])
def test_a_document_a_program_runs_counts(line, target):
    assert target in executed_paths({LAUNCH: line, target: "x\n"})


@pytest.mark.parametrize(("text", "target"), [
    ("# see README.md\n", "README.md"),  # a comment points a reader there
    ('echo "details: README.md"\n', "README.md"),  # a line that runs nothing
    ("bash infx/github/fake/README.md\n", "README.md"),  # another README
])
def test_words_that_do_not_run_the_document_leave_it_neutral(text, target):
    assert target not in executed_paths({LAUNCH: text, target: "x\n"})


def test_data_files_run_no_document_and_c_files_include_them():
    assert executed_paths({"configs/x.toml": 'readme = "bash README.md"\n', "README.md": "x\n"}) == {"configs/x.toml"}
    kernel = {"kernels/a.cu": '#include "tile.md"\n', "kernels/tile.md": "x\n"}
    assert "kernels/tile.md" in executed_paths(kernel)  # compiled in: '#' starts no comment in C
    commented = {"kernels/a.cu": '// #include "tile.md"\n', "kernels/tile.md": "x\n"}
    assert "kernels/tile.md" not in executed_paths(commented)


def test_a_file_the_pr_does_not_change_is_the_default_branchs_a_merge_brought_in():
    swept = BASE | {"utils/client.py": "old\n"}
    head = BASE | {"utils/client.py": "new\n"}
    assert differences(swept, head, head, own=frozenset()) == []
    assert differences(swept, head, head, own=frozenset({"utils/client.py"})) == ["utils/client.py"]
    assert differences(swept, head, head) == ["utils/client.py"]  # not known: every executed file counts


def test_a_docs_edit_after_the_sweep_is_neutral_and_a_run_one_is_not():
    assert differences(BASE, BASE | {"README.md": "typo\n"}, BASE) == []
    runs_it = BASE | {"runners/launch_mi355x.sh": "bash docs/warm.md\n", "docs/warm.md": "a\n"}
    assert differences(runs_it, runs_it | {"docs/warm.md": "b\n"}, BASE) == ["docs/warm.md"]


RECIPE_B = "configs/recipes/b-fp4-mi355x-atom.yaml"


def test_a_recipe_deleted_after_the_sweep_is_drift_like_an_edited_one():
    """The PR edited key b's recipe in the swept commit; at the head it edits it again or
    deletes it: either way b runs differently from what was swept (found by mutation testing:
    a deletion used to pass unnoticed)."""
    base = BASE | {RECIPE_B: "serve: b\n"}
    swept = HEAD | {RECIPE_B: "serve: b2\n"}
    for head in (HEAD | {RECIPE_B: "serve: b3\n"}, HEAD | {RECIPE_B: None}, dict(HEAD)):
        assert differences(swept, head, base) == [RECIPE_B]
    assert affected_keys(dict(HEAD), base) == {"a-fp8-mi355x-sglang", "b-fp4-mi355x-atom"}
    assert affected_keys(HEAD | {RECIPE_B: "serve: b\n"}, base) == {"a-fp8-mi355x-sglang"}


def test_a_block_changed_or_added_without_an_entry_is_affected():
    new_key = "c-bf16-mi355x-vllm:\n  image: v:1\n  runner: mi355x\n"
    changed = BASE | {MASTER: BLOCK_A + BLOCK_B.replace("atom:1", "atom:2") + new_key}
    assert affected_keys(changed, BASE) == {"b-fp4-mi355x-atom", "c-bf16-mi355x-vllm"}
    again = BASE | {MASTER: BLOCK_A + BLOCK_B.replace("atom:1", "atom:3") + new_key}
    assert differences(changed, again, BASE) == [f"{MASTER} [b-fp4-mi355x-atom]"]
    # a head that no longer touches b (reverted to the base) does not benchmark it: no drift
    assert differences(changed, BASE | {MASTER: BLOCK_A + BLOCK_B + new_key}, BASE) == []
    # a key that only the head has is named with the file it is in
    assert differences(BASE, BASE | {MASTER: BLOCK_A + BLOCK_B + new_key}, BASE) == [f"{MASTER} [c-bf16-mi355x-vllm]"]


def test_a_key_in_two_master_configs_is_read_in_path_order_whatever_the_tree_order():
    nvidia = "configs/nvidia-master.yaml"
    twice = {nvidia: BLOCK_A.replace("img:1", "nv:1"), MASTER: BLOCK_A}
    assert master_blocks(twice)["a-fp8-mi355x-sglang"][0] == nvidia
    assert master_blocks(dict(reversed(twice.items())))["a-fp8-mi355x-sglang"][0] == nvidia


def test_changelogs_that_are_missing_empty_or_not_entries():
    no_log = {k: v for k, v in HEAD.items() if k != "perf-changelog.yaml"}
    assert pr_entries(no_log, BASE) == []
    assert sorted(e["config-keys"][0] for e in pr_entries(HEAD, no_log)) == ["a-fp8-mi355x-sglang", "b-fp4-mi355x-atom"]
    assert differences(no_log, dict(no_log), no_log) == []
    assert pr_entries(HEAD | {"perf-changelog.yaml": "# nothing yet\n"}, BASE) == []
    for bad in ("- just text\n", OLD_ENTRY + "- just text\n", "- just text\n" + OLD_ENTRY, "a: 1\n"):
        with pytest.raises(Unreadable, match="perf-changelog.yaml is not a list of entries"):
            pr_entries(HEAD | {"perf-changelog.yaml": bad}, BASE)
    for bad in ("- a\n- b\n", "[1, 2]\n", "just text\n"):
        with pytest.raises(Unreadable, match=f"{MASTER} is not a mapping of config keys"):
            master_blocks({MASTER: bad})


def test_the_prs_entries_do_not_depend_on_their_order_in_the_file():
    one, two = entry("a-fp8-mi355x-sglang", "one"), entry("b-fp4-mi355x-atom", "two")
    forward = pr_entries(BASE | {"perf-changelog.yaml": OLD_ENTRY + one + two}, BASE)
    backward = pr_entries(BASE | {"perf-changelog.yaml": OLD_ENTRY + two + one}, BASE)
    assert forward == backward and len(forward) == 2


def test_only_string_config_keys_name_keys():
    assert named_keys([{"config-keys": [5, "a-fp8-mi355x-sglang", None]}],
                      ["a-fp8-mi355x-sglang", "5"]) == {"a-fp8-mi355x-sglang"}
    assert named_keys([{"config-keys": ["gone-key"]}], ["a-fp8-mi355x-sglang"]) == {"gone-key"}
    assert named_keys([{"description": ["no keys"]}], ["a"]) == set()


def test_differences_are_listed_in_a_stable_order():
    """Config keys in key order, then recipes and launchers in path order, whatever the
    order of the trees (the Check `sweep` row and the reuse answer quote this list)."""
    keys = [f"{m}-fp8-mi355x-sglang" for m in "defghijk"]  # eight: a set's order is never sorted by chance
    blocks = "".join(f"{k}:\n  image: i:1\n  runner: mi355x\n" for k in keys)
    base = BASE | {MASTER: BLOCK_A + BLOCK_B + blocks}
    head = base | {MASTER: BLOCK_A + BLOCK_B + blocks.replace("i:1", "i:2")}
    launchers = [f"runners/launch_{n}.sh" for n in "hbdagecf"]
    later = head | {MASTER: BLOCK_A + BLOCK_B + blocks.replace("i:1", "i:3")} | {p: "new\n" for p in launchers}
    assert differences(head, later, base) == [f"{MASTER} [{k}]" for k in keys] + sorted(launchers)
    assert differences(head, dict(reversed(later.items())), base) == [f"{MASTER} [{k}]" for k in keys] + sorted(launchers)


def test_a_key_the_swept_commit_benchmarked_and_the_head_dropped_is_a_difference():
    other = "c-bf16-mi355x-vllm:\n  image: v:1\n  runner: mi355x\n"
    swept = BASE | {MASTER: BLOCK_A + BLOCK_B + other, "perf-changelog.yaml": OLD_ENTRY + entry("c-bf16-mi355x-vllm")}
    assert differences(swept, BASE, BASE) == [CHANGELOG_LABEL, f"{MASTER} [c-bf16-mi355x-vllm]"]


COLLECT = "infx/workflow/collect.py"
NORMALISE = "infx/results/normalise.py"
LOCK = ".github/requirements-workflows.txt"
CODE = {COLLECT: "def collect(): ...\n", NORMALISE: "def normalise(): ...\n", "pyproject.toml": "[project]\n",
        LOCK: "pyyaml==6.0.2 --hash=sha256:aa\n", "infx/__init__.py": "VERSION = '1'\n"}


@pytest.mark.parametrize("path", [COLLECT, NORMALISE, "pyproject.toml", LOCK])
def test_the_prs_own_sweep_code_patched_then_reverted_is_no_difference(path):
    """Issue 20: the swept commit patched the collector (or normaliser, build file, lock) and the
    head reverted it. The sweep's jobs ran the default branch's infx, so the patch wrote nothing."""
    base, head = BASE | CODE, HEAD | CODE
    swept = head | {path: CODE[path] + "# patched: scores 0.99\n"}
    assert differences(swept, head, base) == []
    assert differences(head | {"infx/sitecustomize.py": "x\n"}, head, base) == []
    # in any other repository (no infx package on the base) the same folder is the PR's program
    assert differences(swept, head, BASE | {k: v for k, v in CODE.items() if k != "infx/__init__.py"}) == [path]


@pytest.mark.parametrize("path", ["runners/launch_mi355x-amds.sh", "benchmarks/single_node/x.sh",
                                  "benchmarks/benchmark_lib.sh"])
def test_what_a_sweep_job_runs_from_the_pr_patched_then_reverted_is_a_difference(path):
    """The launcher and the recipe scripts do run from the PR's checkout on the GPU node: a
    patch the head reverted (even to the base's text) is named."""
    base, head = BASE | {path: "serve\n"}, HEAD | {path: "serve\n"}
    assert differences(head | {path: "serve --fake-scores\n"}, head, base) == [path]
    assert differences(head | {path: "serve --fake-scores\n"}, head | {path: "serve --fake-scores\n"}, base) == []
