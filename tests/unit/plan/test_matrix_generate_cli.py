"""Tests for infx.cli.matrix: `infx matrix full-sweep|test-config` end to end."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from infx.cli import main

MI355X_LABELS = {"mi355x", "mi355x-disagg", "cluster:mi355x-amds"}


@pytest.fixture
def ref(test_data):
    base = test_data / "upstream"
    return {"amd": str(base / "amd-master.yaml"), "runners": str(base / "runners.yaml")}


def run(capsys, *args):
    code = main(["matrix", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def rows_of(capsys, *args) -> list[dict]:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return json.loads(out)


def test_full_sweep_matches_reference_output(capsys, ref, upstream_dir):
    expected = json.loads((upstream_dir / "expected" / "full-sweep-amd.json").read_text())
    assert rows_of(capsys, "full-sweep", "--config-files", ref["amd"],
                   "--runner-config", ref["runners"]) == expected


def test_full_sweep_no_evals_matches_reference_output(capsys, ref, upstream_dir):
    expected = json.loads((upstream_dir / "expected" / "full-sweep-amd-no-evals.json").read_text())
    assert rows_of(capsys, "full-sweep", "--config-files", ref["amd"],
                   "--runner-config", ref["runners"], "--no-evals") == expected


def test_output_is_one_json_line_in_emission_order(capsys, ref):
    code, out, _ = run(capsys, "test-config", "--config-files", ref["amd"], "--runner-config",
                       ref["runners"], "--config-keys", "dsr1-fp4-mi355x-sglang", "--conc", "4")
    assert code == 0 and out.endswith("]\n") and out.count("\n") == 1
    assert out.startswith('[{"image": "lmsysorg/sglang:v0.5.12-rocm700-mi35x", "model": ')
    assert json.dumps(json.loads(out)) + "\n" == out


def test_reference_scale_figures(capsys, ref):
    common = ["full-sweep", "--config-files", ref["amd"], "--runner-config", ref["runners"]]
    assert len(rows_of(capsys, *common, "--no-evals")) == 465
    assert len(rows_of(capsys, *common, "--evals-only")) == 121
    assert len(rows_of(capsys, *common, "--all-evals")) == 447
    assert len(rows_of(capsys, *common, "--all-evals", "--evals-only")) == 447


def test_both_reference_masters_give_1820_rows(capsys, ref, upstream_dir):
    nvidia = upstream_dir / "configs" / "nvidia-master.yaml"
    rows = rows_of(capsys, "full-sweep", "--config-files", ref["amd"], nvidia,
                   "--runner-config", ref["runners"])
    assert len(rows) == 1820 and sum(r["run-eval"] for r in rows) == 519
    nv_only = rows_of(capsys, "full-sweep", "--config-files", nvidia,
                      "--runner-config", ref["runners"], "--no-evals")
    assert len(nv_only) == 1355


def test_our_configs_give_the_reference_mi355x_rows(capsys, repo_root, upstream_dir):
    expected = json.loads((upstream_dir / "expected" / "full-sweep-amd.json").read_text())
    ours = rows_of(capsys, "full-sweep", "--config-files", repo_root / "configs" / "amd-master.yaml",
                   "--runner-config", repo_root / "configs" / "runners.yaml")
    assert ours == [row for row in expected if row["runner"] in MI355X_LABELS]
    assert len(ours) == 345


def test_test_config_flags(capsys, ref):
    rows = rows_of(capsys, "test-config", "--config-files", ref["amd"], "--runner-config",
                   ref["runners"], "--config-keys", "dsr1-fp4-mi355x-*", "qwen3.5-fp8-mi355x-atom",
                   "--conc", "32", "64", "--seq-lens", "8k1k", "--scenario-type", "fixed-seq-len",
                   "--evals-only", "--runner-node-filter", "amds_01")
    assert rows and all(r["eval-only"] and r["runner"] == "mi355x-amds_01" for r in rows)
    assert {r["model-prefix"] for r in rows} == {"dsr1", "qwen3.5"}


def test_full_sweep_filter_flags(capsys, ref):
    rows = rows_of(capsys, "full-sweep", "--config-files", ref["amd"], "--runner-config",
                   ref["runners"], "--model-prefix", "dsr1", "qwen3.5", "--precision", "fp4",
                   "--framework", "sglang", "atom", "--runner-type", "mi355x", "--seq-lens",
                   "8k1k", "--step-size", "4", "--min-conc", "8", "--max-conc", "128",
                   "--max-tp", "8", "--max-ep", "1", "--single-node", "--no-evals")
    assert rows and all(8 <= r["conc"] <= 128 and r["ep"] == 1 and r["runner"] == "mi355x"
                        for r in rows)


def test_negative_numbers_are_values(capsys, ref):
    common = ["full-sweep", "--config-files", ref["amd"], "--runner-config", ref["runners"],
              "--no-evals"]
    assert rows_of(capsys, *common, "--max-conc", "-1", "--single-node") == []
    rows = rows_of(capsys, *common, "--min-conc", "-1", "--multi-node")
    assert len(rows) == 12 and all(r["scenario-type"] == "agentic-coding" for r in rows)


@pytest.mark.parametrize("flags", [["--no-evals", "--all-evals"], ["--no-evals", "--evals-only"],
                                   ["--step-size", "1"], ["--min-conc", "8", "--max-conc", "4"],
                                   ["--seq-lens", "2k2k"]])
def test_usage_errors_exit_2_without_json(capsys, ref, flags):
    code, out, err = run(capsys, "full-sweep", "--config-files", ref["amd"],
                         "--runner-config", ref["runners"], *flags)
    assert code == 2 and out == "" and err


BAD_INPUTS = {
    "syntax": ("k:\n  image: [\n", "invalid YAML"),
    "unknown field": ("k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: mi355x\n"
                      "  precision: fp4\n  framework: f\n  multinode: false\n  colour: red\n"
                      "  scenarios:\n    fixed-seq-len:\n"
                      "    - {isl: 1, osl: 1, search-space: [{tp: 1, conc-list: [1]}]}\n",
                      "unknown field 'colour'"),
    "wrong type": ("k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: mi355x\n"
                   "  precision: fp4\n  framework: f\n  multinode: false\n  scenarios:\n"
                   "    fixed-seq-len:\n"
                   "    - {isl: 1, osl: 1, search-space: [{tp: eight, conc-list: [1]}]}\n",
                   "must be of type integer"),
    "bad range": ("k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: mi355x\n"
                  "  precision: fp4\n  framework: f\n  multinode: false\n  scenarios:\n"
                  "    fixed-seq-len:\n"
                  "    - {isl: 1, osl: 1, search-space: [{tp: 1, conc-start: 9, conc-end: 2}]}\n",
                  "must be <="),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_exits_1_with_located_message_and_no_json(capsys, tmp_path, ref, case):
    text, needle = BAD_INPUTS[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code, out, err = run(capsys, "full-sweep", "--config-files", path,
                         "--runner-config", ref["runners"])
    assert code == 1 and out == ""
    assert needle in err and f"{path}:" in err
    assert len([line for line in err.splitlines() if line.startswith("error:")]) == 1


def test_missing_file_exits_1(capsys, tmp_path, ref):
    code, out, err = run(capsys, "test-config", "--config-files", tmp_path / "none.yaml",
                         "--runner-config", ref["runners"], "--config-keys", "x")
    assert code == 1 and out == "" and "does not exist" in err


def test_unknown_key_exits_1(capsys, ref):
    code, out, err = run(capsys, "test-config", "--config-files", ref["amd"],
                         "--runner-config", ref["runners"], "--config-keys", "nope")
    assert code == 1 and out == "" and "Config key(s) not found: nope" in err


def test_annotations_under_actions(capsys, tmp_path, ref, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_INPUTS["bad range"][0])
    code, _, err = run(capsys, "full-sweep", "--config-files", path,
                       "--runner-config", ref["runners"])
    assert code == 1 and f"::error file={path},line=11::" in err


def test_unknown_runner_label_warns_but_succeeds(capsys, ref):
    code, out, err = run(capsys, "test-config", "--config-files", ref["amd"], "--runner-config",
                         ref["runners"], "--config-keys", "dsv4-fp8-mi325x-vllm")
    assert code == 0 and json.loads(out) and "warning:" in err and "cluster:mi325x-tw" in err


def test_summary_goes_to_stderr(capsys, ref):
    code, out, err = run(capsys, "full-sweep", "--config-files", ref["amd"], "--runner-config",
                         ref["runners"], "--runner-type", "mi355x-disagg", "--summary")
    assert code == 0 and len(json.loads(out)) == 34
    assert "dsr1-fp4-mi355x-sglang-disagg" in err and "multi-node fixed" in err
    assert "total: 34 rows" in err


def test_python_module_entry_point(ref):
    result = subprocess.run(
        [sys.executable, "-m", "infx", "matrix", "test-config", "--config-files", ref["amd"],
         "--runner-config", ref["runners"], "--config-keys", "dsr1-fp4-mi355x-sglang",
         "--no-evals"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 10


def test_nvidia_eval_row_counts_match_the_reference_generator(capsys, ref, upstream_dir):
    # Pinned by running the rebuilt reference generator on the same file (research/matrix.md
    # section 6 hand-counted 525 and 1,221; the reference itself gives 524 and 1,216).
    common = ["full-sweep", "--config-files", upstream_dir / "configs" / "nvidia-master.yaml",
              "--runner-config", ref["runners"]]
    assert len(rows_of(capsys, *common, "--evals-only")) == 524
    assert len(rows_of(capsys, *common, "--all-evals")) == 1216


def test_explicit_null_optionals_give_the_same_rows_as_absent_ones(capsys, tmp_path, ref):
    # Regression from differential testing: `ep: null` / `dp-attn: null` used to be rejected.
    entry = ("k:\n  image: i\n  model: m\n  model-prefix: p\n  runner: mi355x\n"
             "  precision: fp4\n  framework: f\n  multinode: false\n{router}  scenarios:\n"
             "    fixed-seq-len:\n"
             "    - {{isl: 8192, osl: 1024, search-space: [{{tp: 8, {extra}conc-start: 8,"
             " conc-end: 64}}]}}\n")
    plain, nulls = tmp_path / "plain.yaml", tmp_path / "nulls.yaml"
    plain.write_text(entry.format(router="", extra=""))
    nulls.write_text(entry.format(router="  router: null\n",
                                  extra="ep: null, dp-attn: null, conc-list: [], "))
    common = ["--runner-config", ref["runners"], "--evals-only"]
    expected = rows_of(capsys, "full-sweep", "--config-files", plain, *common)
    assert len(expected) == 2
    assert rows_of(capsys, "full-sweep", "--config-files", nulls, *common) == expected


# --- argparse-compatible command lines (regressions from differential testing) ----------

LONG = ["--config-files", "--max-conc", "--max-ep", "--max-tp", "--no-evals", "--seq-lens"]
LISTS = {"--config-files", "--seq-lens"}


@pytest.mark.parametrize("argv, expected", [
    (["--seq-lens", "1k1k", "8k1k"], ["--seq-lens", "1k1k", "--seq-lens", "8k1k"]),
    (["--seq-lens", "1k1k", "--seq-lens", "8k1k"], ["--seq-lens", "8k1k"]),
    (["--seq-lens=1k1k", "8k1k"], ["8k1k", "--seq-lens", "1k1k"]),
    (["--max-c", "8", "--no-e"], ["--max-conc", "8", "--no-evals"]),
    (["--max", "8"], ["--max", "8"]),
    (["--seq-l", "-1", "-", "-x y", "-1.5", "--no-evals"],
     ["--no-evals", "--seq-lens", "-1", "--seq-lens", "-", "--seq-lens", "-x y",
      "--seq-lens", "-1.5"]),
    (["--seq-lens"], ["--seq-lens"]),
])
def test_argparse_style_rewrites_argv(argv, expected):
    from infx.cli.args import argparse_style

    assert argparse_style(argv, LONG, LISTS) == expected


def test_repeated_list_option_keeps_the_last_values(capsys, ref, upstream_dir):
    nvidia = upstream_dir / "configs" / "nvidia-master.yaml"
    rows = rows_of(capsys, "full-sweep", "--config-files", ref["amd"], "--runner-config",
                   ref["runners"], "--config-files", nvidia, "--model-prefix", "dsr1",
                   "--model-prefix", "dsv4", "--no-evals")
    assert rows and {r["model-prefix"] for r in rows} == {"dsv4"}
    assert {r["runner"] for r in rows}.isdisjoint(MI355X_LABELS)


def test_equals_form_takes_one_value_and_prefixes_expand(capsys, ref):
    code, out, err = run(capsys, "full-sweep", f"--config-files={ref['amd']}", "--runner-config",
                         ref["runners"], "--seq-lens=1k1k", "8k1k")
    assert code == 2 and out == "" and "8k1k" in err
    rows = rows_of(capsys, "full-sweep", f"--config-f={ref['amd']}", "--runner-config",
                   ref["runners"], "--max-c", "8", "--no-e")
    assert rows and not any(r.get("run-eval") for r in rows)
    assert max(max(r["conc"]) if isinstance(r["conc"], list) else r["conc"] for r in rows) == 8
