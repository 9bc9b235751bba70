"""Check 8 (arch): FLOP-reducing overrides and event/metric publication."""

from __future__ import annotations

from dataclasses import replace

from signoff_policy_support import with_head_file, world_evidence

from infx.signoff.checks.arch import run
from infx.signoff.model import Status

SCRIPT = "benchmarks/multi_node/amd_utils/server_atom.sh"


def seed003_with_script_line(line: str):
    evidence = world_evidence("seed003")
    text = evidence.head_files[SCRIPT].replace("set -euo pipefail\n", f"set -euo pipefail\n{line}\n")
    return with_head_file(evidence, SCRIPT, text)


def test_pass_when_an_override_is_removed():
    outcome = run(world_evidence("seed003"))
    assert outcome.status == Status.PASS
    assert "no FLOP-reducing model-config override" in outcome.reason


def test_fail_on_added_hf_override_naming_flag_key_and_line():
    outcome = run(seed003_with_script_line("""MODEL_FLAGS="--hf-overrides '{\\"index_topk_freq\\": 4}'\""""))
    assert outcome.status == Status.FAIL
    assert f"{SCRIPT}:3" in outcome.reason
    assert "index_topk_freq=4" in outcome.reason


def test_fail_on_config_json_edit():
    outcome = run(seed003_with_script_line(
        """sed -i 's/"num_hidden_layers": 61/"num_hidden_layers": 30/' "$MODEL_DIR/config.json\""""))
    assert outcome.status == Status.FAIL
    assert "num_hidden_layers" in outcome.reason


def test_harmless_override_passes():
    outcome = run(seed003_with_script_line("""FLAGS="--hf-overrides '{\\"max_position_embeddings\\": 200000}'\""""))
    assert outcome.status == Status.PASS


def test_native_support_allowlist():
    evidence = seed003_with_script_line("""FLAGS="--hf-overrides '{\\"index_topk_freq\\": 4}'\"""")
    path = "configs/policy/overrides.yaml"
    policy = evidence.default_branch_files[path].replace(
        "native-support: []", "native-support:\n  - {prefix: minimaxm3, key: index_topk_freq, value: 4}")
    outcome = run(replace(evidence, default_branch_files={**evidence.default_branch_files, path: policy}))
    assert outcome.status == Status.PASS


def test_publication_disabled_fails():
    outcome = run(seed003_with_script_line("EXTRA='--publish_events_and_metrics false'"))
    assert outcome.status == Status.FAIL
    assert "publish_events_and_metrics to false" in outcome.reason


def test_publication_unverifiable_for_supporting_frameworks():
    evidence = world_evidence("scenario7")
    path = "configs/nvidia-master.yaml"
    evidence = with_head_file(evidence, path, evidence.head_files[path].replace("framework: trt", "framework: dynamo-trt"))
    outcome = run(evidence)
    assert outcome.status == Status.FAIL
    assert "event/metric publication could not be verified" in outcome.reason
    script = "benchmarks/single_node/agentic/dsv4_fp4_b200_trt_mtp.sh"
    text = evidence.head_files[script].replace("max_draft_len: 3", "max_draft_len: 3\npublish_events_and_metrics: true")
    assert run(with_head_file(evidence, script, text)).status == Status.PASS


def test_na_for_docs_only():
    evidence = world_evidence("seed000")
    head = {**evidence.base_files, "docs/notes.md": "hello\n"}
    outcome = run(with_head_file(replace(evidence, head_files=head), "docs/notes.md", "hello\n"))
    assert outcome.status == Status.NA


def test_fail_closed():
    outcome = run(world_evidence("seed003", files=None))
    assert outcome.status == Status.FAIL and "could not be verified" in outcome.reason


def test_unchanged_launcher_of_an_affected_config_counts():
    evidence = world_evidence("scenario11")
    launcher = "benchmarks/single_node/launchers/b300_sglang.sh"
    text = evidence.head_files[launcher].replace(
        'exec python3 -m sglang.launch_server "$@"',
        """exec python3 -m sglang.launch_server --json-model-override-args '{"num_hidden_layers": 30}' "$@\"""")
    evidence = replace(evidence, head_files={**evidence.head_files, launcher: text},
                       base_files={**evidence.base_files, launcher: text})
    outcome = run(evidence)
    assert outcome.status == Status.FAIL
    assert f"{launcher}:3: overrides num_hidden_layers=30" in outcome.reason
