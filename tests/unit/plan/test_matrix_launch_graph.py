"""infx.plan.launch_graph: the files a config key's jobs execute, checked against real launchers."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import UPSTREAM

from infx import yamlio
from infx.plan.launch_graph import (
    HELPER,
    LAUNCHER,
    RECIPE,
    SCRIPT,
    Branch,
    LaunchGraphError,
    branch_lines,
    lane_spec,
    lanes,
    launch_graph,
)

RUNNERS = {"labels": {"b200": ["b200-cw_00"], "gb200": ["gb200-nv_0"], "mi355x": ["mi355x-amds_00"]}}
LIB = "benchmarks/benchmark_lib.sh"
SOURCE_LIB = 'source "$(dirname "$0")/../../benchmark_lib.sh"\n'
TREE = {
    "runners/launch_b200-cw.sh": "bash \"$BENCH_SCRIPT\"\n",
    "runners/launch_gb200-nv.sh": 'source "$(dirname "${BASH_SOURCE[0]}")/slurm_utils.sh"\nsrtctl apply -f "$CONFIG_FILE"\n',
    "runners/slurm_utils.sh": "wait_job() { :; }\n",
    "runners/launch_mi355x-amds.sh": "bash x\n",
    LIB: "run_benchmark_serving() { :; }\n",
    "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_sglang.sh": SOURCE_LIB + "serve\n",
    "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_sglang_mtp.sh": SOURCE_LIB + "serve --speculative\n",
    "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200.sh": SOURCE_LIB + "legacy\n",
    "benchmarks/single_node/agentic/dsv4_fp4_b200_sglang.sh": SOURCE_LIB + "agentic\n",
    "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200.sh": SOURCE_LIB + "legacy only\n",
    "benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k/disagg-gb200-1p1d.yaml": "env: {A: 1}\n",
    "benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k/disagg-b200-1p1d.yaml": "env: {B: 1}\n",
    "benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k/eval-gb200.yaml": "env: {E: 1}\n",
}


def entry(runner: str = "b200", framework: str = "sglang", prefix: str = "dsv4", precision: str = "fp4",
          kind: str = "fixed-seq-len", lane: dict | None = None, multinode: bool = False) -> dict:
    return {"runner": runner, "framework": framework, "model-prefix": prefix, "precision": precision,
            "multinode": multinode, "scenarios": {kind: [{"isl": 8192, "osl": 1024,
                                                          "search-space": [lane or {"tp": 8}]}]}}


def test_single_node_key_runs_the_framework_tagged_script_with_its_launcher_and_helper():
    graph = launch_graph(TREE, "dsv4-fp4-b200-sglang", entry(), RUNNERS)
    assert [(f.path, f.role) for f in graph.files] == [
        ("runners/launch_b200-cw.sh", LAUNCHER),
        ("benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_sglang.sh", SCRIPT),
        (LIB, HELPER)]
    assert graph.runs_of("runners/launch_b200-cw.sh", "fixed-seq-len", "none") == (
        "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_sglang.sh",)


def test_mtp_lane_runs_the_mtp_script_and_a_legacy_name_is_the_fallback():
    graph = launch_graph(TREE, "k", entry(lane={"tp": 8, "spec-decoding": "mtp"}), RUNNERS)
    assert graph.paths(SCRIPT) == ("benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_sglang_mtp.sh",)
    assert {b.spec for b in graph.branches} == {True}
    legacy = launch_graph(TREE, "k", entry(prefix="dsr1", precision="fp8"), RUNNERS)
    assert legacy.paths(SCRIPT) == ("benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200.sh",)


def test_agentic_and_fixed_seq_len_keys_never_share_a_script():
    agentic = launch_graph(TREE, "k", entry(kind="agentic-coding"), RUNNERS)
    fixed = launch_graph(TREE, "k", entry(), RUNNERS)
    assert agentic.paths(SCRIPT) == ("benchmarks/single_node/agentic/dsv4_fp4_b200_sglang.sh",)
    assert not set(agentic.paths(SCRIPT)) & set(fixed.paths(SCRIPT))


def test_multi_node_key_launches_its_config_file_recipe_not_another_skus():
    lane = {"prefill": {"num-worker": 1, "additional-settings": [
        "CONFIG_FILE=recipes/sglang/deepseek-v4/8k1k/disagg-gb200-1p1d.yaml",
        "EVAL_CONFIG_FILE=recipes/sglang/deepseek-v4/8k1k/eval-gb200.yaml"]}, "decode": {"num-worker": 1}}
    graph = launch_graph(TREE, "dsv4-fp4-gb200-dynamo-sglang",
                         entry(runner="gb200", framework="dynamo-sglang", lane=lane, multinode=True), RUNNERS)
    root = "benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k/"
    assert graph.paths(RECIPE) == (root + "disagg-gb200-1p1d.yaml", root + "eval-gb200.yaml")
    eval_recipe = next(f for f in graph.files if f.path.endswith("eval-gb200.yaml"))
    assert {b.eval_only for b in eval_recipe.branches} == {True}
    assert graph.paths(HELPER) == ("runners/slurm_utils.sh",)
    assert root + "disagg-b200-1p1d.yaml" not in graph.paths()


def test_a_recipes_benchmark_command_is_followed_into_the_repository_it_mounts():
    # real #2676: the recipe's client is `bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh`
    # (the launcher mounts the checkout there), which sources benchmark_lib.sh through
    # $INFMAX_CONTAINER_WORKSPACE: the AIPerf client the chat check reads
    root = "benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/agentic/"
    tree = {**TREE, root + "agg-gb200-tp8.yaml": "benchmark:\n  type: custom\n"
                                                "  command: bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh\n",
            "benchmarks/multi_node/agentic_srt.sh": 'source "$INFMAX_CONTAINER_WORKSPACE/benchmarks/benchmark_lib.sh"\n'
                                                    "run_agentic_replay\n"}
    lane = {"spec-decoding": "mtp", "prefill": {"num-worker": 1, "additional-settings": [
        "CONFIG_FILE=recipes/vllm/deepseek-v4/agentic/agg-gb200-tp8.yaml"]}, "decode": {"num-worker": 0}}
    graph = launch_graph(tree, "dsv4-fp4-gb200-dynamo-vllm-agentic-mtp-agg",
                         entry(runner="gb200", framework="dynamo-vllm", kind="agentic-coding", lane=lane,
                               multinode=True), RUNNERS)
    named = {f.path: f.named_by for f in graph.files if f.role == HELPER}
    assert named["benchmarks/multi_node/agentic_srt.sh"] == root + "agg-gb200-tp8.yaml"
    assert named[LIB] == "benchmarks/multi_node/agentic_srt.sh"


AMD = "benchmarks/multi_node/amd_utils"
AMD_TREE = {
    "runners/launch_mi355x-amds.sh": "bash x\n",
    # the reference's AMD multi-node layout: the script moves into amd_utils and submits there
    "benchmarks/multi_node/agentic/dsv4_fp4_mi355x_sglang-disagg.sh":
        'cd "$GITHUB_WORKSPACE/benchmarks/multi_node/amd_utils" || exit 1\nexport MODEL_NAME=$MODEL_NAME\n'
        'JOB_ID=$(bash ./submit.sh 1 1)\n',
    f"{AMD}/submit.sh": 'usage() {\n  echo "bash submit.sh"\n}\nexport ENGINE="${FRAMEWORK:-sglang}"\n'
                        'cmd=(\n  sbatch\n  "$(dirname "$0")/job.slurm"\n)\n',
    f"{AMD}/job.slurm": 'RUN_FILE="server.sh"\nDOC="notes.sh"\necho "see $(dirname "$0")/more.sh"\n'
                        'WS_PATH="${DOCKER_MOUNT_PATH}/x"\ndocker run img bash "$WS_PATH/$RUN_FILE"\n',
    f"{AMD}/notes.sh": "never run: only named\n",
    f"{AMD}/more.sh": "never run: only printed\n",
    f"{AMD}/server.sh": 'if [[ "$ENGINE" == "vllm-disagg" ]]; then\n    source "$WS_PATH/server_vllm.sh"\n'
                        'else\n    source "$WS_PATH/server_sglang.sh"\nfi\n',
    f"{AMD}/server_sglang.sh": "serve sglang\n",
    f"{AMD}/server_vllm.sh": "serve vllm\n",
    f"{AMD}/unrelated.sh": "never named\n",
}


def test_a_multi_node_launch_is_followed_through_cd_sbatch_and_the_engine_dispatch():
    lane = {"spec-decoding": "mtp", "prefill": {"num-worker": 1}, "decode": {"num-worker": 1}}
    block = entry(runner="mi355x", framework="sglang-disagg", kind="agentic-coding", lane=lane, multinode=True)
    graph = launch_graph(AMD_TREE, "dsv4-fp4-mi355x-sglang-disagg", block | {"model": "org/DeepSeek-V4-Pro"}, RUNNERS)
    assert graph.paths(HELPER) == tuple(f"{AMD}/{name}" for name in
                                        ("job.slurm", "server.sh", "server_sglang.sh", "submit.sh"))
    server = next(f for f in graph.files if f.path.endswith("server_sglang.sh"))
    # what submit.sh sets at its top level reaches the files it starts (ENGINE decides server.sh)
    assert {dict(b.row).get("ENGINE") for b in server.branches} == {"sglang-disagg"}
    assert {dict(b.row)["MODEL_NAME"] for b in server.branches} == {"DeepSeek-V4-Pro"}
    tree = AMD_TREE | {"benchmarks/multi_node/agentic/dsv4_fp4_mi355x_vllm-disagg.sh":
                       AMD_TREE["benchmarks/multi_node/agentic/dsv4_fp4_mi355x_sglang-disagg.sh"]}
    # what a file sets inside a block, after it starts the child, or from a command, the child
    # cannot be said to see: the engine is unknown and both servers are followed
    for change in ('if [ -n "$X" ]; then\n  export ENGINE=vllm-disagg\nfi\n', 'export ENGINE=$(echo vllm)\n',
                   'unset ENGINE\n'):
        moved = AMD_TREE | {f"{AMD}/submit.sh": AMD_TREE[f"{AMD}/submit.sh"].replace("cmd=(", change + "cmd=(")}
        both = launch_graph(moved, "k", block | {"model": "org/DeepSeek-V4-Pro"}, RUNNERS)
        assert {f"{AMD}/server_vllm.sh", f"{AMD}/server_sglang.sh"} <= set(both.paths()), change
    vllm = launch_graph(tree, "k", block | {"framework": "vllm-disagg"}, RUNNERS)
    assert f"{AMD}/server_vllm.sh" in vllm.paths() and f"{AMD}/server_sglang.sh" not in vllm.paths()


def test_a_recipe_that_is_not_checked_in_is_external_not_a_file():
    lane = {"prefill": {"additional-settings": ["CONFIG_FILE=recipes/trtllm/b200-fp4/x.yaml"]}}
    graph = launch_graph(TREE, "k", entry(runner="gb200", framework="dynamo-trt", lane=lane, multinode=True), RUNNERS)
    assert graph.external == ("benchmarks/multi_node/srt-slurm-recipes/trtllm/b200-fp4/x.yaml",)
    assert graph.paths(RECIPE) == ()


def test_unresolvable_launch_is_a_located_error():
    with pytest.raises(LaunchGraphError, match=r"configs/x.yaml \[k\]: no launcher for runner 'h100'"):
        launch_graph(TREE, "k", entry(runner="h100"), RUNNERS, "configs/x.yaml")
    with pytest.raises(LaunchGraphError, match=r"finds no benchmark script; add benchmarks/single_node/"
                                               r"fixed_seq_len/qwen3.5_fp8_b200_sglang.sh"):
        launch_graph(TREE, "k", entry(prefix="qwen3.5", precision="fp8"), RUNNERS)


def test_branch_lines_keep_the_side_the_row_takes():
    text = ("a\n"
            'if [ "${EVAL_ONLY}" = "true" ]; then\n'
            "  run_eval --completions\n"
            "else\n"
            "  CHAT=--use-chat-template\n"
            "fi\n"
            'if [ "$IS_MTP" = "true" ]; then\n'
            "  SPEC=--speculative-algorithm\n"
            "fi\n"
            'if [ -n "$OTHER" ]; then\n'
            "  both\n"
            "fi\n")
    throughput = [t.strip() for _, t in branch_lines(text, Branch(eval_only=False, spec=False))]
    assert "CHAT=--use-chat-template" in throughput and "run_eval --completions" not in throughput
    assert "SPEC=--speculative-algorithm" not in throughput and "both" in throughput
    spec_eval = [t.strip() for _, t in branch_lines(text, Branch(eval_only=True, spec=True))]
    assert "run_eval --completions" in spec_eval and "CHAT=--use-chat-template" not in spec_eval
    assert "SPEC=--speculative-algorithm" in spec_eval
    numbers = [n for n, t in branch_lines(text, Branch()) if "CHAT" in t]
    assert numbers == [5]


def test_elif_and_nested_conditionals():
    text = ('if [[ "$SPEC_DECODING" == "mtp" ]]; then\n  m\n'
            'elif [ -n "$X" ]; then\n  x\nelse\n  e\nfi\n'
            'if [ "${EVAL_ONLY:-false}" != "true" ]; then\n  if [ -f f ]; then\n    inner\n  fi\nfi\n')
    no_spec = [t.strip() for _, t in branch_lines(text, Branch())]
    assert "m" not in no_spec and {"x", "e", "inner"} <= set(no_spec)
    spec_eval = [t.strip() for _, t in branch_lines(text, Branch(eval_only=True, spec=True))]
    assert "m" in spec_eval and "x" not in spec_eval and "e" not in spec_eval and "inner" not in spec_eval


# --- the reference's real trees, checked against its real launchers run with stand-ins -----

REFERENCE_REPO = Path(os.environ.get("INFX_REFERENCE_REPO", "/work/.mirror/SemiAnalysisAI+InferenceX/repo"))
REFERENCE_COMMIT = "843c6254f"  # the snapshot of ../shared/fixtures/upstream-inferencex
MASTERS = ("configs/nvidia-master.yaml", "configs/amd-master.yaml")
STANDINS = ("docker srun salloc squeue scancel sbatch enroot flock unsquashfs git curl uv srtctl nvidia-smi "
            "sudo sleep bash sh rocm-smi amd-smi scontrol sinfo sbcast timeout").split()
STANDIN = """#!/bin/sh
echo "${0##*/} $*" >> "$STANDIN_LOG"
case "${0##*/}" in
  squeue) echo 12345;;
  salloc) echo "salloc: Granted job allocation 12345"; echo "salloc: Granted job allocation 12345" >&2;;
esac
exit 0
"""
RUN_SCRIPT = re.compile(r"(?:/workspace/|\./)?(benchmarks/single_node/[^\s\"';]+\.sh)")


@pytest.fixture(scope="module")
def reference_tree(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The reference's runners/, benchmarks/ and configs/ at the fixture's snapshot, from a
    local clone of the reference repository (skips when there is none)."""
    upstream_dir = Path(os.environ.get("INFX_UPSTREAM_DIR", UPSTREAM))
    if not upstream_dir.is_dir():
        pytest.skip("../shared/fixtures/upstream-inferencex is not present")
    if shutil.which("git") is None or not (REFERENCE_REPO / "HEAD").exists():
        pytest.skip(f"no clone of the reference repository at {REFERENCE_REPO} (set INFX_REFERENCE_REPO)")
    root = tmp_path_factory.mktemp("reference")
    archive = subprocess.run(["git", "--git-dir", str(REFERENCE_REPO), "archive", REFERENCE_COMMIT,
                              "runners", "benchmarks", "configs"], capture_output=True)
    if archive.returncode:
        pytest.skip(f"the reference clone lacks commit {REFERENCE_COMMIT}")
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    for master in MASTERS:  # the same data the fixtures hold
        assert (root / master).read_bytes() == (upstream_dir / master).read_bytes()
    tree: dict[str, str] = {}
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            try:
                tree[str(path.relative_to(root))] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
        elif path.is_symlink():
            tree[str(path.relative_to(root))] = os.readlink(path)
    return root, tree


def _reference_keys(tree: dict[str, str]):
    runners = yamlio.load_text(tree["configs/runners.yaml"], "configs/runners.yaml")
    for master in MASTERS:
        for key, block in yamlio.load_text(tree[master], master).items():
            yield master, key, block, runners


@pytest.fixture(scope="module")
def reference_graphs(reference_tree) -> list[tuple[str, dict, object]]:
    """Each reference key with its launch graph, or the LaunchGraphError it raises: built once
    for the tests below (about 2 s)."""
    _, tree = reference_tree
    out = []
    for master, key, block, runners in _reference_keys(tree):
        try:
            out.append((key, block, launch_graph(tree, key, block, runners, master)))
        except LaunchGraphError as exc:
            out.append((key, block, exc))
    return out


def test_every_reference_key_names_existing_files_only(reference_tree, reference_graphs):
    _, tree = reference_tree
    resolved = failed = 0
    for key, block, graph in reference_graphs:
        if isinstance(graph, LaunchGraphError):
            failed += 1
            assert "finds no benchmark script" in str(graph), str(graph)
            continue
        resolved += 1
        assert all(p in tree for p in graph.paths()), key
        assert graph.paths(LAUNCHER) and (graph.paths(SCRIPT) or graph.paths(RECIPE) or graph.external), key
        if block.get("multinode"):
            assert not graph.paths(SCRIPT) or all("multi_node" in p for p in graph.paths(SCRIPT)), key
        for path in graph.paths(SCRIPT):
            sku = path.rsplit("/", 1)[-1].removesuffix(".sh").split("_")[2]
            assert sku in str(block["runner"]), (key, path)
    assert resolved >= 200 and failed <= 1


def test_graph_names_the_script_the_real_launcher_runs(reference_tree, reference_graphs, tmp_path):
    """Each reference launcher runs, under `bash -x`, with every command it would reach the
    cluster with (docker, srun, salloc, srtctl, …) replaced by a stand-in that records its
    arguments; the benchmark script it hands over must be the one the graph names. One bash
    driver starts every launcher run (each its own `bash -x`, clean environment and log), so
    the ~150 runs cost one subprocess from Python."""
    root, tree = reference_tree
    standins = tmp_path / "bin"
    standins.mkdir()
    for name in STANDINS:
        (standins / name).write_text(STANDIN)
        (standins / name).chmod(0o755)
    runs: dict[tuple, tuple[str, tuple]] = {}  # combo -> (key, what the graph says it runs)
    driver = []
    for key, block, graph in reference_graphs:
        if block.get("multinode") or isinstance(graph, LaunchGraphError):
            continue
        for launcher in graph.paths(LAUNCHER):
            for kind, lane in lanes(block):
                spec = lane_spec(lane)
                combo = (launcher, block["model-prefix"], block["precision"], block["framework"], kind, spec)
                if combo in runs:
                    continue
                log = tmp_path / f"log{len(runs)}"
                runs[combo] = (key, graph.runs_of(launcher, kind, spec))
                env = {"PATH": f"{standins}:/usr/bin:/bin", "STANDIN_LOG": str(log), "HOME": str(tmp_path),
                       "EXP_NAME": f"{block['model-prefix']}_tp8", "MODEL_PREFIX": block["model-prefix"],
                       "PRECISION": block["precision"], "FRAMEWORK": block["framework"], "SPEC_DECODING": spec,
                       "IS_MULTINODE": "false", "SCENARIO_TYPE": kind,
                       "SCENARIO_SUBDIR": "agentic/" if kind == "agentic-coding" else "fixed_seq_len/",
                       "RUNNER_NAME": launcher.removeprefix("runners/launch_").removesuffix(".sh") + "_01",
                       "IMAGE": str(block["image"]), "MODEL": str(block["model"]), "TP": "8", "EP_SIZE": "1",
                       "CONC": "4", "ISL": "1024", "OSL": "1024", "GITHUB_WORKSPACE": str(root), "HF_TOKEN": "x",
                       "HF_HUB_CACHE": "/hf-cache"}
                assignments = " ".join(shlex.quote(f"{name}={value}") for name, value in env.items())
                driver.append(f": > {shlex.quote(str(log))}\n/usr/bin/timeout 30 /usr/bin/env -i {assignments} "
                              f"/bin/bash -x {shlex.quote(launcher)} </dev/null >/dev/null 2>&1\n")
    # The driver goes in a file: as one `bash -c` argument it outgrows the kernel's limit on a
    # single argument (128 KiB) once the temp paths are long.
    script = tmp_path / "driver.sh"
    script.write_text("".join(driver))
    subprocess.run(["/bin/bash", str(script)], cwd=root, timeout=30 * len(runs) + 60, check=False)
    agree, undecided = 0, []
    for index, (combo, (key, expected)) in enumerate(runs.items()):
        ran = RUN_SCRIPT.findall((tmp_path / f"log{index}").read_text())
        if not ran:
            undecided.append(combo)
            continue
        assert (ran[0],) == expected, (key, combo, ran[0], expected)
        agree += 1
    assert not undecided, undecided  # every launcher reached its benchmark script
    assert agree >= 150, agree


ROW = Branch(row=(("MODEL_PREFIX", "dsv4"), ("PRECISION", "fp4"), ("FRAMEWORK", "sglang"),
                  ("MODEL", "nvidia/Qwen3.5-NVFP4-V2")))


@pytest.mark.parametrize(("condition", "expected"), [
    ('[[ $MODEL_PREFIX == "dsv4" && $PRECISION == "fp4" ]]', True),
    ('[[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp4" ]]', False),
    ('[[ $MODEL_PREFIX == "dsr1" ]] || [[ $FRAMEWORK == "sglang" ]]', True),
    ('[[ $MODEL == *NVFP4-V2 ]]', True),
    ('[ "$MODEL" = "*NVFP4-V2" ]', False),
    ('[[ "$FRAMEWORK" != "trt" ]]', True),
    ('[[ $MODEL_PREFIX == "dsr1" && -n "$CONFIG_FILE" ]]', False),
    ('[[ -n "$CONFIG_FILE" && $MODEL_PREFIX == "dsv4" ]]', None),
    ('[[ $RUNNER == x ]]', None),
    ('[ "${EVAL_ONLY:-false}" != "true" ]', True),
    # `{ …; }` groups are decided first, then the chain
    ('[[ $PRECISION == "fp8" ]] && { [[ $MODEL_PREFIX == "dsv4" ]] || [[ $RUNNER == x ]]; }', False),
    ('[[ $PRECISION == "fp4" ]] && { [[ $MODEL_PREFIX == "dsr1" ]] || [[ $FRAMEWORK == "sglang" ]]; }', True),
    ('[[ $PRECISION == "fp4" ]] && { [[ $MODEL_PREFIX == "dsr1" ]] || [[ $RUNNER == x ]]; }', None),
    # case arms (infx.plan.launch_graph.case_predicate): globs over the word, `|` alternatives
    ('case "${MODEL_PREFIX}:${PRECISION}" in dsr1:*|dsv4:fp4)', True),
    ('case "${MODEL_PREFIX}:${PRECISION}" in dsv4:fp8)', False),
    ('case "$RUNNER" in a|b)', None),
    ('case "$RUNNER" in *)', True),
])
def test_decide_reads_the_rows_own_variables(condition, expected):
    from infx.plan.launch_graph import decide

    assert decide(condition, ROW) is expected


def test_launcher_branches_for_another_model_are_not_the_keys_lines():
    from infx.plan.launch_graph import graph_lines

    launcher = ('if [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp4" ]]; then\n'
                "  export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\nfi\nbash \"$BENCH_SCRIPT\"\n")
    tree = {**TREE, "runners/launch_b200-cw.sh": launcher,
            "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_sglang.sh": SOURCE_LIB}
    dsv4 = launch_graph(tree, "k", entry(), RUNNERS)
    assert not any("NEXTN_MOE" in text for _, _, text in graph_lines(dsv4, tree))
    dsr1 = launch_graph(tree, "k", entry(prefix="dsr1"), RUNNERS)
    assert any("NEXTN_MOE" in text for _, _, text in graph_lines(dsr1, tree))
