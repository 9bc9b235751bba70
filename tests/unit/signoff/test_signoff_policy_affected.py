"""infx.signoff.rules.affected: which configs a PR touches, and facts about them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.signoff_policy_support import with_head_file, world_evidence

from infx.signoff.rules.affected import (
    AffectedConfig,
    affected_configs,
    config_line,
    config_where,
    is_spec_decode,
    launch_lines,
    scenario_ids,
)
from infx.signoff.rules.policy_reads import EvidenceGap


def test_scenario_ids():
    entry = {"scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024}, {"isl": 1024, "osl": 1024}],
                           "agentic-coding": [{}]}}
    assert scenario_ids(entry) == ["8k1k", "1k1k", "agentic"]


def test_changed_and_added_entries():
    assert [(c.key, c.how) for c in affected_configs(world_evidence("seed000"))] == [
        ("minimaxm3-fp4-mi355x-atom-agentic-mtp", "changed")]
    assert [(c.key, c.how) for c in affected_configs(world_evidence("scenario11"))] == [
        ("dsv4-fp4-b300-sglang-mtp", "added")]


def test_recipe_and_launch_file_changes_affect_their_config():
    evidence = world_evidence("scenario11")
    base = {**evidence.base_files, **{p: evidence.head_files[p] for p in
                                      ("configs/nvidia-master.yaml", "configs/recipes/dsv4-fp4-b300-sglang-mtp.yaml")}}
    evidence = replace(evidence, base_files=base)
    launcher = "benchmarks/single_node/launchers/b300_sglang.sh"
    moved = with_head_file(evidence, launcher, evidence.head_files[launcher] + "echo done\n")
    assert [(c.key, c.how) for c in affected_configs(moved)] == [("dsv4-fp4-b300-sglang-mtp", "launch file changed")]
    recipe = "configs/recipes/dsv4-fp4-b300-sglang-mtp.yaml"
    edited = with_head_file(evidence, recipe, evidence.head_files[recipe].replace("num-draft-tokens: 3",
                                                                                "num-draft-tokens: 2"))
    assert [(c.key, c.how) for c in affected_configs(edited)] == [("dsv4-fp4-b300-sglang-mtp", "recipe changed")]


def test_unread_master_config_is_a_gap():
    evidence = world_evidence("seed000")
    head = dict(evidence.head_files)
    del head["configs/amd-master.yaml"]
    with pytest.raises(EvidenceGap, match="not read"):
        affected_configs(replace(evidence, head_files=head))


def test_spec_decode_detection():
    lane = {"tp": 8, "spec-decoding": "mtp"}
    entry = {"scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [lane]}]}}
    assert is_spec_decode(AffectedConfig("x-sglang", entry, "added", "m"))
    plain = {"scenarios": {"fixed-seq-len": [{"search-space": [{"tp": 8}]}]}}
    assert not is_spec_decode(AffectedConfig("x-sglang", plain, "added", "m"))
    assert is_spec_decode(AffectedConfig("x-sglang-mtp", plain, "added", "m"))
    zero = {"scenarios": {"fixed-seq-len": [{"search-space": [
        {"spec-decoding": "mtp", "decode": {"additional-settings": ["DECODE_MTP_SIZE=0"]}}]}]}}
    assert not is_spec_decode(AffectedConfig("x-atom-disagg-mtp", zero, "added", "m"))


def test_launch_lines_include_rendered_recipe_with_line_numbers():
    evidence = world_evidence("scenario6")
    config = next(c for c in affected_configs(evidence) if c.agentic)
    lines = launch_lines(evidence, config)
    knob = next(ln for ln in lines if "SGLANG_SIMULATE_ACC_LEN" in ln.text)
    assert knob.where() == "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml:16"


def test_launch_lines_pick_files_named_after_the_config():
    evidence = world_evidence("seed000")
    config = affected_configs(evidence)[0]
    paths = {ln.path for ln in launch_lines(evidence, config)}
    assert paths == {"benchmarks/single_node/srt-slurm-recipes/minimaxm3/atom/mi355x-fp4-mtp/agentic.yaml"}
    assert config_where(evidence, config) == "configs/amd-master.yaml:15 [minimaxm3-fp4-mi355x-atom-agentic-mtp]"


def test_explicit_none_on_every_lane_beats_the_key_name():
    lanes = [{"spec-decoding": "none", "tp": 8}, {"spec-decoding": "none", "tp": 4}]
    entry = {"scenarios": {"fixed-seq-len": [{"search-space": lanes}]}}
    assert not is_spec_decode(AffectedConfig("x-atom-disagg-mtp", entry, "added", "m"))
    half = {"scenarios": {"fixed-seq-len": [{"search-space": [lanes[0], {"tp": 4}]}]}}
    assert is_spec_decode(AffectedConfig("x-atom-disagg-mtp", half, "added", "m"))


def test_changed_script_named_after_a_config_affects_it():
    evidence = world_evidence("seed000")
    master = "configs/amd-master.yaml"
    evidence = with_head_file(evidence, master, evidence.base_files[master])
    assert [(c.key, c.how) for c in affected_configs(evidence)] == [
        ("minimaxm3-fp4-mi355x-atom-agentic-mtp", "launch file changed")]


def test_changed_master_without_text_is_a_gap():
    evidence = world_evidence("seed000")
    head = {**evidence.head_files, "configs/amd-master.yaml": None}
    with pytest.raises(EvidenceGap, match="no text at the assessed head"):
        affected_configs(replace(evidence, head_files=head))
    base = {**evidence.base_files, "configs/amd-master.yaml": None}
    with pytest.raises(EvidenceGap, match="no text at the PR base"):
        affected_configs(replace(evidence, base_files=base))


def test_recipe_launching_a_missing_file_is_a_gap():
    evidence = world_evidence("scenario11")
    launcher = "benchmarks/single_node/launchers/b300_sglang.sh"
    evidence = replace(evidence, head_files={**evidence.head_files, launcher: None})
    config = affected_configs(evidence)[0]
    with pytest.raises(EvidenceGap, match="does not exist at the assessed head"):
        launch_lines(evidence, config)


def test_atom_method_flag_marks_spec_decode_but_shared_helper_flags_do_not():
    from infx.signoff.rules.scan import Line
    plain = {"scenarios": {"fixed-seq-len": [{"search-space": [{"tp": 8}]}]}}
    config = AffectedConfig("x-atom", plain, "added", "m")
    assert is_spec_decode(config, [Line("run.sh", 3, "atom serve --method mtp --num-speculative-tokens 3")])
    assert is_spec_decode(config, [Line("run.sh", 3, "atom serve --method=eagle3")])
    assert not is_spec_decode(config, [Line("run.sh", 3, "atom serve --method default")])
    helper = Line("benchmarks/multi_node/amd_utils/server_atom.sh", 5,
                  'FLAGS="$FLAGS --num-speculative-tokens $DECODE_MTP_SIZE"', shared=True)
    assert not is_spec_decode(config, [helper])


def test_multi_node_launch_lines_include_the_policy_helpers_marked_shared():
    evidence = world_evidence("seed003")
    config = next(c for c in affected_configs(evidence) if c.key == "minimaxm3-fp4-mi355x-atom-disagg-mtp")
    lines = launch_lines(evidence, config)
    helpers = {ln.path for ln in lines if ln.shared}
    assert helpers == {"benchmarks/multi_node/amd_utils/bench.sh", "benchmarks/multi_node/amd_utils/server_atom.sh",
                       "benchmarks/multi_node/amd_utils/models_atom.yaml"}
    single = next(c for c in affected_configs(world_evidence("seed000")))
    assert not any(ln.shared for ln in launch_lines(world_evidence("seed000"), single))


@pytest.mark.parametrize("text, key, line", [
    ("a:\n  x: 1\nb :\n  y: 2\n", "b", 3),
    ("a:b: 1\n", "a:b", 1),
    ("a:b: 1\n", "a", 1),
    ("  b: 1\nb: 2\n", "b", 2),  # indented: a nested key, not the config's
    ("bb: 1\nb: 2\nb: 3\n", "b", 2),  # the first line that starts with it
    ("b-x: 1\n", "b", None),
    ("b\t: 1\r\n", "b", 1),
    ("x: 1\n", " x", None),  # a key YAML could not give a config: searched as before
])
def test_a_config_key_is_found_at_the_first_line_that_starts_with_it(text, key, line):
    evidence = replace(world_evidence("seed000"), head_files={"configs/x-master.yaml": text})
    assert config_line(evidence, AffectedConfig(key, {}, "added", "configs/x-master.yaml")) == line


LAUNCHER = "runners/launch_mi355x-amds.sh"
VLLM_KEY = "minimaxm3-fp4-mi355x-vllm-agentic-mtp"
VLLM_SCRIPT = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_vllm_mtp.sh"


def _with_launcher(evidence, extra_base: dict[str, str] | None = None):
    """The PR on a tree that holds our MI355X launcher and runners.yaml at base and head (so
    every MI355X key's launch is followed from its runner)."""
    from lib.signoff_policy_support import REPO_ROOT, changed
    shared = {p: (REPO_ROOT / p).read_text() for p in (LAUNCHER, "configs/runners.yaml")}
    base = {**evidence.base_files, **shared, **(extra_base or {})}
    head = {**evidence.head_files, **shared}
    return replace(evidence, base_files=base, head_files=head, files=changed(base, head))


def test_a_broken_key_the_pr_does_not_touch_is_no_gap():
    # the vllm key's script is missing at base and head; the PR changes only the atom key
    evidence = _with_launcher(world_evidence("seed000"))
    assert VLLM_SCRIPT not in evidence.head_files
    assert [(c.key, c.how) for c in affected_configs(evidence)] == [
        ("minimaxm3-fp4-mi355x-atom-agentic-mtp", "changed")]


def test_a_pr_that_removes_a_keys_script_gets_the_gap_for_that_key():
    evidence = _with_launcher(world_evidence("seed000"), {VLLM_SCRIPT: "#!/bin/bash\nvllm serve x\n"})
    configs = {c.key: c for c in affected_configs(evidence)}
    assert configs[VLLM_KEY].files == (VLLM_SCRIPT,)
    with pytest.raises(EvidenceGap, match=f"finds no benchmark script; add {VLLM_SCRIPT}"):
        launch_lines(evidence, configs[VLLM_KEY])


def test_a_pr_that_removes_the_runners_launcher_gets_a_gap_not_the_named_files():
    # the base holds the launcher; at head it is gone, so the trimmed-tree reading (files named
    # after the config) must not stand in for a launch the runner can no longer start
    evidence = _with_launcher(world_evidence("seed000"))
    head = {p: t for p, t in evidence.head_files.items() if p != LAUNCHER}
    evidence = replace(evidence, head_files=head)
    config = next(c for c in affected_configs(evidence) if c.key == "minimaxm3-fp4-mi355x-atom-agentic-mtp")
    with pytest.raises(EvidenceGap, match="launcher of runner .* is gone at the assessed head"):
        launch_lines(evidence, config)


SEED003_MTP = "minimaxm3-fp4-mi355x-atom-disagg-mtp"
HELPERS = "benchmarks/multi_node/amd_utils/"


@pytest.mark.parametrize("bench_addition, read", [
    ("", False),  # nothing names the new file: never run
    ("source \"$(dirname \"$0\")/extra.sh\"\n", True),  # the base's helper sources it
])
def test_a_helper_the_pr_adds_is_launch_only_when_the_launch_names_it(bench_addition, read):
    evidence = world_evidence("seed003")
    bench = HELPERS + "bench.sh"
    head = {**evidence.head_files, bench: evidence.head_files[bench] + bench_addition,
            HELPERS + "extra.sh": "#!/usr/bin/env bash\necho extra\n"}
    evidence = replace(evidence, head_files=head)
    config = next(c for c in affected_configs(evidence) if c.key == SEED003_MTP)
    paths = {ln.path for ln in launch_lines(evidence, config) if ln.shared}
    assert (HELPERS + "extra.sh" in paths) is read
    assert bench in paths


def test_a_launch_file_is_named_after_a_config_by_whole_names_only():
    """A GB200 recipe is no B200 config's file, nor a GLM-5.2 script a GLM-5 config's
    ("b200" is inside "gb200", "glm5" inside "glm5.2")."""
    from infx.signoff.rules.affected import _names_family

    def names(path: str, prefix: str = "glm5", sku: str = "b200") -> bool:
        return _names_family(path, "sglang", prefix, sku, "fp4", False)

    assert names("benchmarks/single_node/fixed_seq_len/glm5_fp4_b200_sglang.sh")
    assert not names("benchmarks/single_node/fixed_seq_len/glm5_fp4_gb200_sglang.sh")
    assert not names("benchmarks/single_node/fixed_seq_len/glm5.2_fp4_b200_sglang.sh")
    assert names("benchmarks/single_node/fixed_seq_len/glm5.2_fp4_b200_sglang.sh", prefix="glm5.2")
    assert names("benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/b200-fp4/x.yaml")
