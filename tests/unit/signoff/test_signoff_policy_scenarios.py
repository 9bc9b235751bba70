"""Acceptance: signoff.md §6 scenarios 5, 6, 7, 8 (8b, 8c), 9 (9b), 11 (11b) and seeds 000/003
for the policy checks 3 and 6-13, over Evidence built from tests/data/worlds/policy_*.yaml."""

from __future__ import annotations

import pytest
from lib.policy_scenarios import EXPECTED, F, N, P, outcomes, statuses
from lib.signoff_policy_support import at, with_body, with_head_file, world_evidence


@pytest.mark.parametrize("world", sorted(EXPECTED))
def test_scenario_rows(world):
    assert statuses(world_evidence(world)) == EXPECTED[world]


def test_seed003_fails_none_of_our_checks():
    assert all(s in (P, N) for s in statuses(world_evidence("seed003")).values())


def test_scenario5_names_the_missing_open_source_entry():
    reason = outcomes(world_evidence("scenario5"))["images"].reason
    assert "glm5.2-fp4-b300-atom-agentic-mtp" in reason and "b300" in reason
    assert "configs/nvidia-master.yaml:14" in reason


def test_scenario6_flags_both_the_mismatch_and_the_non_agentic_knob():
    outcome = outcomes(world_evidence("scenario6"))["golden"]
    assert len(outcome.details) == 2
    mismatch, synthetic = outcome.details
    assert "SGLANG_SIMULATE_ACC_LEN=3.50" in mismatch and "3.39" in mismatch
    assert "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml:16" in mismatch
    assert "qwen3.5-fp8-mi355x-sglang-mtp" in synthetic and "non-agentic" in synthetic


def test_scenario7_explains_the_trt_off_by_one():
    reason = outcomes(world_evidence("scenario7"))["golden"].reason
    assert "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.49" in reason
    assert "AL 3.49" in reason and "2.49" in reason and "AL - 1" in reason


def test_scenario8b_unlinked_waiver_fails_only_the_patch_check():
    evidence = world_evidence("scenario8")
    body = evidence.signoff.body.replace("- Engine patch waiver: docs/waiver/3801.md\n", "")
    result = outcomes(with_body(evidence, body))
    assert result["patch"].status == F
    assert "does not link docs/waiver/3801.md" in " ".join(result["patch"].details)
    assert {c: o.status for c, o in result.items() if c != "patch"} == \
        {c: s for c, s in EXPECTED["scenario8"].items() if c != "patch"}


def test_scenario8c_patch_that_changes_draft_precision_fails_draft_not_patch():
    evidence = world_evidence("scenario8")
    script = "benchmarks/single_node/agentic/kimik3_container_fixes.sh"
    text = evidence.head_files[script].replace(
        'text = text.replace("stride = int(block_stride)", "stride = int(block_stride) * 1")',
        'text = text.replace("draft_quant = None", "draft_quant = \'fp8\'")')
    result = statuses(with_head_file(evidence, script, text))
    assert result["patch"] == P
    assert result["draft"] == F


def test_scenario9b_guarded_launcher_edit_passes_append_only():
    evidence = world_evidence("scenario9")
    launcher = "benchmarks/single_node/launch_mi355x.sh"
    guarded = evidence.head_files[launcher].replace(
        "export SGLANG_LARGE_BATCH_TUNING=1\n",
        'if [ "$CONC" -ge 48 ]; then\n  export SGLANG_LARGE_BATCH_TUNING=1\nfi\n')
    result = outcomes(with_head_file(evidence, launcher, guarded))
    assert result["append"].status == P
    assert "conc [48, 64]" in result["append"].reason


def test_scenario11b_last_allowed_day_passes_deprecation_but_not_draft():
    result = outcomes(world_evidence("scenario11", now=at("2026-09-08")))
    assert result["deprecated"].status == P
    assert result["draft"].status == F
    assert "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1" in result["draft"].reason
    assert "benchmarks/single_node/launchers/b300_sglang.sh:2" in result["draft"].reason


def test_scenario11_deprecation_names_prefix_scenario_and_date():
    reason = outcomes(world_evidence("scenario11"))["deprecated"].reason
    assert "dsv4 Single-turn 8k1k" in reason and "2026-09-08" in reason and "2026-09-30" in reason


@pytest.mark.parametrize("world", ["seed000", "scenario8", "scenario6"])
def test_no_check_passes_on_unread_data(world):
    """Unread file list, head tree or trusted policy never yields PASS (FAIL, or N/A only where
    the check can tell from what was read that it does not apply)."""
    from dataclasses import replace

    evidence = world_evidence(world)
    without_policy = {p: t for p, t in evidence.default_branch_files.items()
                      if not p.startswith(("configs/policy/", "configs/golden_al_distribution/"))}
    broken = {
        "file list": replace(evidence, files=None),
        "head tree": replace(evidence, head_files={}),
        "policy": replace(evidence, default_branch_files=without_policy),
    }
    for what, bad in broken.items():
        found = statuses(bad)
        if what == "policy":
            # the chat rule is code, not policy data: single-node configs need no policy to judge
            found.pop("chat")
        assert P not in found.values(), (what, found)
        assert all(found[c] == F for c in found if EXPECTED[world][c] == P), (what, found)


def test_multi_node_chat_judgement_needs_the_helper_policy():
    from dataclasses import replace

    evidence = world_evidence("seed003")
    path = "configs/amd-master.yaml"
    evidence = with_head_file(evidence, path, evidence.head_files[path].replace("DECODE_MTP_SIZE=0", "DECODE_MTP_SIZE=3"))
    files = {p: t for p, t in evidence.default_branch_files.items() if p != "configs/policy/engines.yaml"}
    outcome = outcomes(replace(evidence, default_branch_files=files))["chat"]
    assert outcome.status == F
    assert "configs/policy/engines.yaml" in outcome.reason

