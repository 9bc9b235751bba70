"""Check `arch`: FLOP-reducing overrides and event/metric publication."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.signoff_policy_support import with_head_file, world_evidence

from infx.signoff.checks.arch import run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

SCRIPT = "benchmarks/multi_node/amd_utils/server_atom.sh"


def seed003_with_script_line(line: str):
    evidence = world_evidence("seed003")
    text = evidence.head_files[SCRIPT].replace("set -euo pipefail\n", f"set -euo pipefail\n{line}\n")
    return with_head_file(evidence, SCRIPT, text)


def test_pass_when_an_override_is_removed():
    outcome = run(world_evidence("seed003"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "no FLOP-reducing model-config override" in outcome.reason


def test_fail_on_added_hf_override_naming_flag_key_and_line():
    outcome = run(seed003_with_script_line("""MODEL_FLAGS="--hf-overrides '{\\"index_topk_freq\\": 4}'\""""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{SCRIPT}:3" in outcome.reason
    assert "index_topk_freq=4" in outcome.reason


def test_fail_on_config_json_edit():
    outcome = run(seed003_with_script_line(
        """sed -i 's/"num_hidden_layers": 61/"num_hidden_layers": 30/' "$MODEL_DIR/config.json\""""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "num_hidden_layers" in outcome.reason


def test_harmless_override_passes():
    outcome = run(seed003_with_script_line("""FLAGS="--hf-overrides '{\\"max_position_embeddings\\": 200000}'\""""), SETTINGS)
    assert outcome.status == Status.PASS


@pytest.mark.parametrize("line, finding", [
    ('atom serve --hf-overrides "$OVERRIDES"', "value built at run time"),
    ("""atom serve --hf-overrides '{"num_hidden_layers": $N}'""", "num_hidden_layers with a value that cannot be read"),
    ("ARGS=(--hf-overrides)", "value cannot be read"),
    ('atom serve "--$OPTION" x', "builds an option name at run time"),
    ('atom serve --json-model-override-args "$(cat o.json)"', "value built at run time"),
])
def test_an_override_the_check_cannot_read_fails_closed(line, finding):
    outcome = run(seed003_with_script_line(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason
    assert finding in outcome.reason and f"{SCRIPT}:3" in outcome.reason


@pytest.mark.parametrize("line", [
    'atom serve --tp "$TP" --port=$PORT --kv-cache-$DTYPE -- "$@"',  # option names no override flag spells
    'cp -r "$HOME/models--${MODEL//\\//--}" /tmp',  # "--" inside a word is not an option
])
def test_options_built_at_run_time_that_cannot_spell_an_override_pass(line):
    assert run(seed003_with_script_line(line), SETTINGS).status == Status.PASS


def test_native_support_allowlist():
    evidence = seed003_with_script_line("""FLAGS="--hf-overrides '{\\"index_topk_freq\\": 4}'\"""")
    path = "configs/policy/overrides.yaml"
    policy = evidence.default_branch_files[path].replace(
        "native-support: []", "native-support:\n  - {prefix: minimaxm3, key: index_topk_freq, value: 4}")
    outcome = run(replace(evidence, default_branch_files={**evidence.default_branch_files, path: policy}), SETTINGS)
    assert outcome.status == Status.PASS


def test_publication_disabled_fails():
    outcome = run(seed003_with_script_line("EXTRA='--publish_events_and_metrics false'"), SETTINGS)
    assert outcome.status == Status.FAIL
    # the shared helper is part of every MI355X multi-node launch, so the row names the config
    assert f"{SCRIPT}:3: minimaxm3-fp8-mi355x-atom-disagg-mtp runs with publish_events_and_metrics=false" \
        in outcome.details


def test_publication_disabled_in_a_non_launch_benchmark_file_fails():
    evidence = world_evidence("seed003")
    outcome = run(with_head_file(evidence, "benchmarks/tools/extra.sh", "ARGS='--publish_events_and_metrics off'\n"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason == "benchmarks/tools/extra.sh:1: sets publish_events_and_metrics to false"


def test_publication_unverifiable_for_supporting_frameworks():
    evidence = world_evidence("scenario7")
    path = "configs/nvidia-master.yaml"
    evidence = with_head_file(evidence, path, evidence.head_files[path].replace("framework: trt", "framework: dynamo-trt"))
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "Event/metric publication could not be verified" in outcome.reason
    script = "benchmarks/single_node/agentic/dsv4_fp4_b200_trt_mtp.sh"
    text = evidence.head_files[script].replace("max_draft_len: 3", "max_draft_len: 3\npublish_events_and_metrics: true")
    outcome = run(with_head_file(evidence, script, text), SETTINGS)
    assert outcome.status == Status.PASS
    assert f"dsv4-fp4-b200-trt-agentic-mtp sets publish_events_and_metrics true at {script}:8" in outcome.reason


def test_na_for_docs_only():
    evidence = world_evidence("seed000")
    head = {**evidence.base_files, "docs/notes.md": "hello\n"}
    outcome = run(with_head_file(replace(evidence, head_files=head), "docs/notes.md", "hello\n"), SETTINGS)
    assert outcome.status == Status.NA


def test_fail_closed():
    outcome = run(world_evidence("seed003", files=None), SETTINGS)
    assert outcome.status == Status.FAIL and "could not be verified" in outcome.reason


def test_unchanged_launcher_of_an_affected_config_counts():
    evidence = world_evidence("scenario11")
    launcher = "benchmarks/single_node/launchers/b300_sglang.sh"
    text = evidence.head_files[launcher].replace(
        'exec python3 -m sglang.launch_server "$@"',
        """exec python3 -m sglang.launch_server --json-model-override-args '{"num_hidden_layers": 30}' "$@\"""")
    evidence = replace(evidence, head_files={**evidence.head_files, launcher: text},
                       base_files={**evidence.base_files, launcher: text})
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{launcher}:3: overrides num_hidden_layers=30" in outcome.reason


def _dynamo_trt_script(line: str):
    """Scenario 7 as a dynamo-trt config whose launch script carries ``line``."""
    evidence = world_evidence("scenario7")
    path = "configs/nvidia-master.yaml"
    evidence = with_head_file(evidence, path, evidence.head_files[path].replace("framework: trt", "framework: dynamo-trt"))
    script = "benchmarks/single_node/agentic/dsv4_fp4_b200_trt_mtp.sh"
    text = evidence.head_files[script].replace("max_draft_len: 3", f"max_draft_len: 3\n{line}")
    return with_head_file(evidence, script, text)


def test_publication_cli_switch_forms():
    assert run(_dynamo_trt_script('EXTRA="--publish-events-and-metrics"'), SETTINGS).status == Status.PASS
    negated = run(_dynamo_trt_script('EXTRA="--no-publish-events-and-metrics"'), SETTINGS)
    assert negated.status == Status.FAIL
    assert "publish_events_and_metrics=false" in negated.reason


def test_publication_value_that_is_not_a_literal_fails_closed():
    outcome = run(_dynamo_trt_script("publish_events_and_metrics: ${PUBLISH}"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "Event/metric publication could not be verified" in outcome.reason
    assert "${PUBLISH" in outcome.reason


def test_publication_in_a_comment_does_not_count():
    outcome = run(_dynamo_trt_script("publish_events_and_metrics: true  # was: publish_events_and_metrics: false"), SETTINGS)
    assert outcome.status == Status.PASS


def test_inherited_false_fails_for_any_framework():
    # sglang does not support the setting, but an explicit false in its unchanged launcher still fails
    evidence = world_evidence("scenario11")
    launcher = "benchmarks/single_node/launchers/b300_sglang.sh"
    text = evidence.head_files[launcher].replace('"$@"', '--publish-events-and-metrics false "$@"')
    evidence = replace(evidence, head_files={**evidence.head_files, launcher: text},
                       base_files={**evidence.base_files, launcher: text})
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{launcher}:3: dsv4-fp4-b300-sglang-mtp runs with publish_events_and_metrics=false" in outcome.reason


def test_non_supporting_framework_need_not_set_publication():
    # scenario 11's sglang config never sets the setting and still passes the publication rule
    outcome = run(world_evidence("scenario11"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "no affected framework supports it (supported by: dynamo-trt)" in outcome.reason


def test_python_heredoc_rewriting_config_json_on_another_line_fails():
    evidence = world_evidence("seed003")
    script = "benchmarks/multi_node/amd_utils/prune.sh"
    text = ("#!/usr/bin/env bash\npython3 - <<EOF\nimport json\npath = f'{MODEL_DIR}/config.json'\n"
            "cfg = json.load(open(path))\ncfg[\"num_hidden_layers\"] = 30\njson.dump(cfg, open(path, 'w'))\nEOF\n")
    outcome = run(with_head_file(evidence, script, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{script}:6: overrides num_hidden_layers=30" in outcome.reason


def test_reading_config_json_without_writing_it_passes():
    evidence = world_evidence("seed003")
    script = "benchmarks/multi_node/amd_utils/inspect.sh"
    text = ("#!/usr/bin/env bash\npython3 - <<EOF\nimport json\ncfg = json.load(open('config.json'))\n"
            "num_hidden_layers = cfg['num_hidden_layers']\nprint(num_hidden_layers)\nEOF\n")
    assert run(with_head_file(evidence, script, text), SETTINGS).status == Status.PASS


def test_a_changed_shared_helper_line_is_reported_once():
    outcome = run(seed003_with_script_line("""MODEL_FLAGS="--hf-overrides '{\\"index_topk_freq\\": 4}'\""""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason.endswith("does not natively support")  # one problem, no "(+1 more)"


def test_a_config_the_pr_reaches_only_through_a_changed_shared_file_is_judged_by_that_files_lines(monkeypatch):
    """Real #2609/#2690 (NVIDIA PRs changing three lines of benchmarks/benchmark_lib.sh) were
    charged with an MI355X script's pre-existing `use_index_cache=True`: a config affected only
    through a changed shared file, which the PR's plan does not sweep, is judged by the shared
    file's changed lines; swept, its whole launch counts again."""
    from infx.signoff.checks import arch
    from infx.signoff.rules.affected import affected_configs
    from infx.signoff.swept import SHARED_ONLY

    evidence = world_evidence("scenario11")
    launcher = "benchmarks/single_node/launchers/b300_sglang.sh"
    text = evidence.head_files[launcher].replace(
        'exec python3 -m sglang.launch_server "$@"',
        """exec python3 -m sglang.launch_server --json-model-override-args '{"num_hidden_layers": 30}' "$@\"""")
    evidence = replace(evidence, head_files={**evidence.head_files, launcher: text},
                       base_files={**evidence.base_files, launcher: text})
    real = affected_configs(evidence)
    monkeypatch.setattr(arch, "affected_configs", lambda _: [replace(c, how=SHARED_ONLY) for c in real])
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: [])
    assert run(evidence, SETTINGS).status != Status.FAIL
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: [c.key for c in real])
    assert run(evidence, SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("line", [
    """atom serve --hf-overr '{"num_hidden_layers": 30}'""",  # argparse takes a unique prefix
    """python3 -m sglang.launch_server --json-model-override '{"num_experts": 8}'""",
    """python3 -m sglang.launch_server --json_model_ov='{"num_experts": 8}'""",
])
def test_a_prefix_of_an_override_flag_fails_closed(line):
    outcome = run(seed003_with_script_line(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason
    assert "a prefix of a model-config override flag" in outcome.reason and f"{SCRIPT}:3" in outcome.reason


def test_options_that_are_no_prefix_of_an_override_flag_pass():
    outcome = run(seed003_with_script_line("atom serve --hf-token x --json-output o --hf-config-path p"), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
