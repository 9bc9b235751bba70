"""Tests for infx.config.master: loading, merging and validating master configs."""

from __future__ import annotations

import copy
import textwrap

import pytest
import yaml

from infx.config.master import MasterConfigs, load_master_configs, load_master_configs_from_texts
from infx.errors import InfxError

SINGLE = textwrap.dedent("""\
    dsr1-fp4-mi355x-sglang:
      image: lmsysorg/sglang:v0.5.12-rocm700-mi35x
      model: amd/DeepSeek-R1-0528-MXFP4-Preview
      model-prefix: dsr1
      runner: mi355x
      precision: fp4
      framework: sglang
      multinode: false
      scenarios:
        fixed-seq-len:
        - isl: 8192
          osl: 1024
          search-space:
          - { tp: 4, conc-start: 4, conc-end: 64 }
          - { tp: 8, conc-start: 4, conc-end: 64 }
    """)

DISAGG = textwrap.dedent("""\
    dsr1-fp4-mi355x-sglang-disagg:
      image: lmsysorg/sglang-rocm:v0.5.12-rocm720-mi35x-20260519
      model: amd/DeepSeek-R1-0528-MXFP4-v2
      model-prefix: dsr1
      runner: mi355x-disagg
      precision: fp4
      framework: sglang-disagg
      router: { name: sglang-router, version: "0.3.2" }
      kv-p2p-transfer: mori
      multinode: true
      disagg: true
      scenarios:
        fixed-seq-len:
        - isl: 8192
          osl: 1024
          search-space:
          - spec-decoding: "none"
            conc-list: [ 64, 4, 16 ]
            prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false, additional-settings: ["PREFILL_NODES=1"] }
            decode: { num-worker: 2, tp: 8, ep: 1, dp-attn: false, additional-settings: ["DECODE_NODES=2"] }
    """)

AGENTIC = textwrap.dedent("""\
    glm5.2-fp4-mi355x-sglang-agentic-mtp:
      image: lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260728
      model: amd/GLM-5.2-MXFP4
      model-prefix: glm5.2
      runner: cluster:mi355x-amds
      precision: fp4
      framework: sglang
      multinode: false
      scenarios:
        agentic-coding:
        - dram-utilization: 0.8
          search-space:
          - { tp: 8, ep: 8, kv-offloading: none, conc-list: [1, 4], spec-decoding: mtp }
          - { tp: 4, ep: 4, kv-offloading: dram, kv-offload-backend: { name: hicache }, conc-list: [8, 16], spec-decoding: mtp }
    """)


def load(*texts: str) -> MasterConfigs:
    return load_master_configs_from_texts([(f"f{i}.yaml", t) for i, t in enumerate(texts)])


def mutate(text: str, change) -> str:
    data = yaml.safe_load(text)
    key = next(iter(data))
    change(data[key])
    return yaml.safe_dump(data, sort_keys=False)


def error_of(text: str) -> InfxError:
    with pytest.raises(InfxError) as caught:
        load(text)
    return caught.value


def test_valid_configs_load_as_a_mapping_in_file_order():
    configs = load(SINGLE, DISAGG + "\n" + AGENTIC)
    assert list(configs) == ["dsr1-fp4-mi355x-sglang", "dsr1-fp4-mi355x-sglang-disagg",
                             "glm5.2-fp4-mi355x-sglang-agentic-mtp"]
    assert configs["dsr1-fp4-mi355x-sglang"]["runner"] == "mi355x"
    assert configs.source("dsr1-fp4-mi355x-sglang-disagg")[0] == "f1.yaml"


def test_duplicate_key_across_files_names_second_file_and_line():
    error = error_of_two(SINGLE, "# comment\n" + SINGLE)
    problem = error.problems[0]
    assert "Duplicate configuration keys found in 'f1.yaml'" in problem.message
    assert (problem.file, problem.line, problem.key) == ("f1.yaml", 2, "dsr1-fp4-mi355x-sglang")


def error_of_two(first: str, second: str) -> InfxError:
    with pytest.raises(InfxError) as caught:
        load(first, second)
    return caught.value


def test_wildcard_key_is_rejected():
    error = error_of(SINGLE.replace("dsr1-fp4-mi355x-sglang:", "dsr1-*-mi355x:"))
    assert "Wildcard '*' is not allowed" in str(error)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(InfxError) as caught:
        load_master_configs([tmp_path / "nope.yaml"])
    assert "does not exist" in str(caught.value)
    assert caught.value.problems[0].file.endswith("nope.yaml")


def test_files_are_read_from_disk_and_merged(tmp_path):
    (tmp_path / "a.yaml").write_text(SINGLE)
    (tmp_path / "b.yaml").write_text(AGENTIC)
    configs = load_master_configs([tmp_path / "a.yaml", str(tmp_path / "b.yaml")])
    assert len(configs) == 2


def test_yaml_syntax_error_names_file_and_line():
    error = error_of(SINGLE + "  bad: [\n")
    assert error.problems[0].file == "f0.yaml" and error.problems[0].line
    assert "invalid YAML" in str(error)


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just text\n"])
def test_top_level_must_be_a_mapping(text):
    assert "must contain a mapping of config keys" in str(error_of(text))


def test_unknown_field_names_key_line_and_fix():
    text = SINGLE.replace("{ tp: 8, conc-start", "{ tp: 8, max-num-seqs: 8, conc-start")
    problem = error_of(text).problems[0]
    assert "unknown field 'max-num-seqs'" in problem.message
    assert "Master config entry 'dsr1-fp4-mi355x-sglang' failed validation" in problem.message
    assert (problem.file, problem.line, problem.key) == ("f0.yaml", 15, "dsr1-fp4-mi355x-sglang")
    assert problem.fix


def test_unknown_top_level_field_points_at_its_own_line():
    lines = SINGLE.splitlines(keepends=True)
    text = "".join(lines[:2] + ["  bogus-field: 1\n"] + lines[2:])
    problem = error_of(text).problems[0]
    assert "unknown field 'bogus-field'" in problem.message
    assert problem.line == 3


def test_wrong_type_is_reported_with_line():
    problem = error_of(SINGLE.replace("{ tp: 4,", "{ tp: four,")).problems[0]
    assert "'tp' must be of type integer" in problem.message and problem.line == 14


@pytest.mark.parametrize("field", ["hardware", "duration", "gpus-per-node",
                                   "available-cpu-dram-mib", "total-cpu-dram-gb",
                                   "trace-source"])
def test_fields_not_accepted_at_master_level(field):
    text = mutate(SINGLE, lambda entry: entry.update({field: 1}))
    assert f"unknown field '{field}'" in str(error_of(text))


@pytest.mark.parametrize("field", ["image", "model", "model-prefix", "runner", "precision",
                                   "framework", "multinode", "scenarios"])
def test_required_top_level_fields(field):
    text = mutate(SINGLE, lambda entry: entry.pop(field))
    assert f"missing required field '{field}'" in str(error_of(text))


def test_single_node_disagg_true_is_rejected():
    text = mutate(SINGLE, lambda entry: entry.update({"disagg": True}))
    assert "'disagg' must be false" in str(error_of(text))


def test_single_node_top_level_kv_p2p_transfer_is_unknown():
    text = mutate(SINGLE, lambda entry: entry.update({"kv-p2p-transfer": "mori"}))
    assert "unknown field 'kv-p2p-transfer'" in str(error_of(text))


def test_multinode_flag_selects_schema():
    text = mutate(SINGLE, lambda entry: entry.update({"multinode": True}))
    assert "missing required field 'prefill'" in str(error_of(text))
    text = mutate(DISAGG, lambda entry: entry.update({"multinode": False}))
    assert "unknown field" in str(error_of(text))


def test_multinode_must_be_boolean():
    text = mutate(SINGLE, lambda entry: entry.update({"multinode": "yes"}))
    assert "'multinode' must be false" in str(error_of(text))


def test_one_bad_key_fails_the_whole_load():
    bad = SINGLE.replace("dsr1-fp4-mi355x-sglang:", "other-key:").replace("tp: 8,", "tp: 8, pp: 0,")
    with pytest.raises(InfxError) as caught:
        load(SINGLE, bad)
    assert caught.value.problems[0].key == "other-key"
    assert "greater than 0" in str(caught.value)


def test_several_problems_are_reported_together():
    bad = SINGLE.replace("conc-start: 4, conc-end: 64 }\n      - { tp: 8",
                         "conc-start: 64, conc-end: 4 }\n      - { tp: 8, dcp-size: 3")
    messages = [p.message for p in error_of(bad).problems]
    assert any("must be <=" in m for m in messages)
    assert any("must be divisible" in m for m in messages)


def test_entries_keep_raw_field_names_and_values():
    configs = load(DISAGG)
    entry = configs["dsr1-fp4-mi355x-sglang-disagg"]
    item = entry["scenarios"]["fixed-seq-len"][0]["search-space"][0]
    assert item["conc-list"] == [64, 4, 16] and "pp" not in item["prefill"]


def test_locate_points_at_nested_paths():
    configs = load(SINGLE + "\n" + AGENTIC)
    problem = configs.locate("glm5.2-fp4-mi355x-sglang-agentic-mtp",
                             ["scenarios", "agentic-coding", 0, "search-space", 1], "x")
    assert problem.line == 30 and problem.file == "f0.yaml"


def test_reference_master_files_load_unchanged(upstream_dir):
    configs = load_master_configs([upstream_dir / "configs" / "amd-master.yaml",
                                   upstream_dir / "configs" / "nvidia-master.yaml"])
    assert len(configs) == 208
    assert list(configs)[0] == "dsr1-fp4-mi355x-sglang"


def test_bundled_reference_copy_and_our_configs_load(test_data, repo_root):
    assert len(load_master_configs([test_data / "upstream" / "amd-master.yaml"])) == 56
    ours = load_master_configs([repo_root / "configs" / "amd-master.yaml"])
    assert len(ours) == 41
    assert {entry["runner"] for entry in ours.values()} == {
        "mi355x", "mi355x-disagg", "cluster:mi355x-amds"}


def test_our_configs_match_the_reference_mi355x_entries(test_data, repo_root):
    reference = load_master_configs([test_data / "upstream" / "amd-master.yaml"])
    ours = load_master_configs([repo_root / "configs" / "amd-master.yaml"])
    expected = {key: entry for key, entry in reference.items()
                if entry["runner"] in ("mi355x", "mi355x-disagg", "cluster:mi355x-amds")}
    assert list(ours) == list(expected)
    assert all(ours[key] == expected[key] for key in ours)


def test_loading_does_not_mutate_its_input():
    configs = load(AGENTIC)
    before = copy.deepcopy(dict(configs))
    load_master_configs_from_texts([("again.yaml", AGENTIC)])
    assert dict(configs) == before


def test_duplicate_keys_inside_one_file_are_rejected():
    error = error_of(SINGLE + SINGLE)
    assert "duplicate key" in str(error) and error.problems[0].line == 16


def test_duplicate_field_inside_an_entry_is_rejected():
    assert "duplicate key 'runner'" in str(error_of(SINGLE.replace(
        "  runner: mi355x\n", "  runner: mi355x\n  runner: mi300x\n")))


ROUTER_ENTRY = DISAGG.replace('  router: { name: sglang-router, version: "0.3.2" }\n', "")


@pytest.mark.parametrize("router, needle", [
    ("{ name: sglang-router }", "missing required field 'version'"),
    ('{ version: "1" }', "missing required field 'name'"),
    ('{ name: r, version: "1", url: x }', "unknown field 'url'"),
    ('{ name: "", version: "1" }', "must be a non-empty string"),
    ('{ name: r, version: "image:lmsysorg/x" }', "not an image reference"),
    ('"sglang-router"', "must be of type object"),
])
def test_router_metadata_rules(router, needle):
    text = ROUTER_ENTRY.replace('spec-decoding: "none"', f'spec-decoding: "none"\n        router: {router}')
    assert needle in str(error_of(text))


@pytest.mark.parametrize("value, needle", [('""', "non-empty string"),
                                           ("{ name: mori }", "must be of type string")])
def test_kv_p2p_transfer_must_be_a_non_empty_string(value, needle):
    assert needle in str(error_of(DISAGG.replace("kv-p2p-transfer: mori", f"kv-p2p-transfer: {value}")))


@pytest.mark.parametrize("backend, needle", [
    ("{ name: hicache, version: v1 }", None),
    ("{ name: hicache, extra: 1 }", "unknown field 'extra'"),
    ('{ name: hicache, version: "image:x" }', "not an image reference"),
    ("{ version: v1 }", "missing required field 'name'"),
])
def test_kv_offload_backend_metadata(backend, needle):
    text = AGENTIC.replace("kv-offload-backend: { name: hicache }", f"kv-offload-backend: {backend}")
    if needle is None:
        assert load(text)
    else:
        assert needle in str(error_of(text))


@pytest.mark.parametrize("prefill, needle", [
    ("{ num-worker: 1, tp: 8, ep: 1, pp: 0, dp-attn: false }", "greater than 0"),
    ("{ num-worker: 1, tp: 8, ep: 1, dcp-size: 0, dp-attn: false }", "greater than 0"),
    ("{ num-worker: 1, tp: 8, ep: 1, pcp-size: -1, dp-attn: false }", "greater than 0"),
    ("{ num-worker: 1, tp: 8, dp-attn: false }", "missing required field 'ep'"),
    ("{ num-worker: 1, tp: 8, ep: 1 }", "missing required field 'dp-attn'"),
    ("{ num-worker: 1, tp: 8, ep: 1, dp-attn: false, extra: 1 }", "unknown field 'extra'"),
    ("{ num-worker: 1, tp: 8, ep: 1, dp-attn: false, hardware: '' }", "non-empty string"),
])
def test_worker_rules(prefill, needle):
    text = DISAGG.replace(
        'prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false, additional-settings: ["PREFILL_NODES=1"] }',
        f"prefill: {prefill}")
    assert needle in str(error_of(text))


# Found by differential testing against the reference generator: it treats an explicit
# YAML null like an absent field for these optional fields (its models default them to None).
def test_null_optional_fields_load_as_absent():
    text = SINGLE.replace("{ tp: 4, conc-start: 4, conc-end: 64 }",
                          "{ tp: 4, ep: null, dp-attn: null, conc-start: 4, conc-end: 64 }")
    entry = load(text.replace("  multinode: false\n", "  multinode: false\n  router: null\n"))[
        "dsr1-fp4-mi355x-sglang"]
    item = entry["scenarios"]["fixed-seq-len"][0]["search-space"][0]
    assert item == {"tp": 4, "conc-start": 4, "conc-end": 64} and "router" not in entry


def test_null_optional_fields_of_agentic_and_multinode_entries():
    text = AGENTIC.replace("{ tp: 8, ep: 8, kv-offloading: none,",
                           "{ tp: 8, ep: null, dp-attn: null, kv-offloading: none,"
                           " kv-offload-backend: null, conc-start: null,")
    block = load(text)["glm5.2-fp4-mi355x-sglang-agentic-mtp"]["scenarios"]["agentic-coding"][0]
    assert block["search-space"][0] == {"tp": 8, "kv-offloading": "none", "conc-list": [1, 4],
                                        "spec-decoding": "mtp"}
    disagg = load(DISAGG.replace("conc-list: [ 64, 4, 16 ]",
                                 "conc-list: [ 64, 4, 16 ]\n        conc-end: null"))
    item = disagg["dsr1-fp4-mi355x-sglang-disagg"]["scenarios"]["fixed-seq-len"][0]
    assert "conc-end" not in item["search-space"][0]


@pytest.mark.parametrize("old, new", [
    # the reference copies these nulls into rows or lets them hide a top-level value:
    # we reject them instead of guessing
    ("PREFILL_NODES=1\"] }", "PREFILL_NODES=1\"], hardware: null }"),
    ("spec-decoding: \"none\"", "spec-decoding: \"none\"\n        router: null"),
    ("conc-list: [ 64, 4, 16 ]", "conc-list: null\n        conc-start: 4\n        conc-end: 8"),
])
def test_nulls_the_reference_does_not_treat_as_absent_are_rejected(old, new):
    assert old in DISAGG
    assert "must be of type" in str(error_of(DISAGG.replace(old, new)))


def test_the_merged_configs_do_not_share_the_readers_parse(repo_root) -> None:
    """The planner's entries are its own: changing them leaves the parse the sign-off's tree
    readers share (infx.yamlio.load_shared) as it was, and duplicate keys are still refused."""
    from infx import yamlio

    text = (repo_root / "configs" / "amd-master.yaml").read_text()
    name = "configs/amd-master.yaml"
    shared = yamlio.load_shared(text, name)
    before = copy.deepcopy(shared)
    configs = load_master_configs_from_texts([(name, text)])
    for key in before:  # every list and mapping inside every entry, down to the leaves
        stack = [configs[key]]
        while stack:
            node = stack.pop()
            children = list(node.values()) if isinstance(node, dict) else list(node)
            stack += [c for c in children if isinstance(c, (dict, list))]
            node.clear()
    assert yamlio.load_shared(text, name) == before
    first = text.split("\n", 1)[0]
    with pytest.raises(InfxError, match="duplicate key"):
        load_master_configs_from_texts([(name, text + "\n" + first + "\n  model: x\n")])
