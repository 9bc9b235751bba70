"""Tests for infx.config.runners: runner labels and hardware records."""

from __future__ import annotations

import pytest

from infx.config.master import load_master_configs, load_master_configs_from_texts
from infx.config.runners import load_runners, load_runners_from_text, unknown_runner_problems
from infx.errors import InfxError

GOOD = """\
labels:
  mi355x:
    - mi355x-amds_00
    - mi355x-amds_01
  cluster:mi355x-amds: [mi355x-amds_00]
hardware:
  cluster:mi355x-amds:
    available-cpu-dram-mib: 3_095_781
    gpus-per-node: 8
"""


def error_of(text: str) -> InfxError:
    with pytest.raises(InfxError) as caught:
        load_runners_from_text("runners.yaml", text)
    return caught.value


def test_valid_file_loads():
    runners = load_runners_from_text("runners.yaml", GOOD)
    assert runners.nodes("mi355x") == ["mi355x-amds_00", "mi355x-amds_01"]
    assert runners.nodes("unknown") == []
    assert runners.hardware["cluster:mi355x-amds"]["available-cpu-dram-mib"] == 3095781


def test_hardware_is_optional():
    assert load_runners_from_text("r.yaml", "labels:\n  a: [b]\n").hardware == {}


@pytest.mark.parametrize("text, needle", [
    ("labels:\n  mi355x: mi355x-amds_00\n", "'mi355x' must be a list"),
    ("labels:\n  mi355x: [1, 2]\n", "'mi355x' must contain only strings"),
    ("labels:\n  mi355x: []\n", "'mi355x' cannot be an empty list"),
    ("mi355x: [a]\n", "must define a labels mapping"),
    ("labels: [a]\n", "must define a labels mapping"),
    ("labels:\n  a: [b]\nmodel-paths: {}\n", "unknown field 'model-paths'"),
    ("labels:\n  a: [b]\nhardware:\n  a: {available-cpu-dram-mib: 0, gpus-per-node: 8}\n",
     "greater than 0"),
    ("labels:\n  a: [b]\nhardware:\n  a: {available-cpu-dram-mib: 5, gpus-per-node: -8}\n",
     "greater than 0"),
    ("labels:\n  a: [b]\nhardware:\n  a: {available-cpu-dram-mib: 5}\n",
     "missing required field 'gpus-per-node'"),
    ("labels:\n  a: [b]\nhardware:\n  a: {available-cpu-dram-mib: 5, gpus-per-node: 8, x: 1}\n",
     "unknown field 'x'"),
])
def test_invalid_files(text, needle):
    error = error_of(text)
    assert needle in str(error)
    assert error.problems[0].file == "runners.yaml" and error.problems[0].line


def test_error_line_points_at_the_bad_label():
    error = error_of("labels:\n  ok: [a]\n  bad: []\n")
    assert error.problems[0].line == 3 and error.problems[0].key == "bad"


def test_missing_file(tmp_path):
    with pytest.raises(InfxError, match="does not exist"):
        load_runners(tmp_path / "runners.yaml")


def test_reference_and_our_runner_files_load(test_data, repo_root):
    reference = load_runners(test_data / "upstream" / "runners.yaml")
    assert len(reference.labels) == 37 and len(reference.hardware) == 16
    ours = load_runners(repo_root / "configs" / "runners.yaml")
    for label in ours.labels:
        assert ours.labels[label] == reference.labels[label]
    assert ours.hardware == {"cluster:mi355x-amds": reference.hardware["cluster:mi355x-amds"]}


def test_unknown_runner_labels_are_warnings(test_data):
    configs = load_master_configs([test_data / "upstream" / "amd-master.yaml"])
    runners = load_runners(test_data / "upstream" / "runners.yaml")
    warnings = unknown_runner_problems(configs, runners)
    assert {w.key for w in warnings} == {"dsv4-fp8-mi325x-vllm", "dsv4-fp8-mi325x-vllm-mtp"}
    assert all(w.level == "warning" and w.line for w in warnings)
    assert unknown_runner_problems(configs, runners, ["dsr1-fp4-mi355x-sglang"]) == []


def test_unknown_label_does_not_block_loading():
    text = ("k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: nowhere\n  precision: fp4\n"
            "  framework: f\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n"
            "    - {isl: 1, osl: 1, search-space: [{tp: 1, conc-list: [1]}]}\n")
    configs = load_master_configs_from_texts([("m.yaml", text)])
    runners = load_runners_from_text("r.yaml", GOOD)
    [warning] = unknown_runner_problems(configs, runners)
    assert warning.line == 5 and "'nowhere'" in warning.message
