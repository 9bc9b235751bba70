"""Check `golden`: agentic spec-decode throughput pins the golden AL."""

from __future__ import annotations

from lib.signoff_policy_support import with_body, with_head_file, world_evidence

from infx.signoff.checks.golden import choose_curve, run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

SEED_RECIPE = "benchmarks/single_node/srt-slurm-recipes/minimaxm3/atom/mi355x-fp4-mtp/agentic.yaml"
GLM_SCRIPT = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"


def edit(world, path, old, new):
    evidence = world_evidence(world)
    return with_head_file(evidence, path, evidence.head_files[path].replace(old, new))


def test_pass_names_value_line_and_curve():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.PASS
    assert f"{SEED_RECIPE}:18" in outcome.reason
    assert "minimaxm3_eagle3_gqa.yaml minimax-m3.thinking_on[3] = 2.78" in outcome.reason


def test_fail_on_mismatch():
    outcome = run(edit("seed000", SEED_RECIPE, "acceptance-length: 2.78", "acceptance-length: 2.83"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "pins AL 2.83" in outcome.reason and "= 2.78" in outcome.reason


def test_within_tolerance_passes():
    assert run(edit("seed000", SEED_RECIPE, "acceptance-length: 2.78", "acceptance-length: 2.784"), SETTINGS).status == Status.PASS


def test_fail_when_synthetic_acceptance_is_off():
    outcome = run(edit("seed000", SEED_RECIPE, "    spec-decode-acceptance-length: 2.78\n", ""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "synthetic acceptance is not enabled" in outcome.reason


def test_thinking_off_uses_the_other_curve():
    evidence = edit("scenario5", GLM_SCRIPT, '"enable_thinking": true', '"enable_thinking": false')
    outcome = run(evidence, SETTINGS)
    # glm5.2 has no thinking_off curve: no guessing, and no AL source in the sign-off
    assert outcome.status == Status.FAIL
    assert "no golden curve for glm5.2 mtp thinking_off k=3" in outcome.reason


def test_missing_golden_passes_only_with_a_stated_source():
    evidence = edit("scenario5", GLM_SCRIPT, '"enable_thinking": true', '"enable_thinking": false')
    body = evidence.signoff.body.replace(
        "Signed:", "- glm5.2 thinking-off acceptance length 3.10 comes from pending collection run 99.\n\nSigned:")
    outcome = run(with_body(evidence, body), SETTINGS)
    assert outcome.status == Status.PASS
    assert "states the AL source" in outcome.reason


def test_atom_rate_spelling_converts_to_al():
    evidence = edit("scenario5", GLM_SCRIPT, "--spec-decode-acceptance-length 2.99",
                    "--spec-decode-acceptance-rate 0.6633")
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.PASS
    assert "--spec-decode-acceptance-rate 0.6633 (k=3)" in outcome.reason


def test_vllm_needs_the_synthetic_rejection_method():
    path = "configs/recipes/kimik3-fp4-mi355x-vllm-agentic-mtp.yaml"
    evidence = world_evidence("scenario8")
    from infx.config.recipe import parse_recipe, render
    assert "rejection_sample_method" in render(parse_recipe(evidence.head_files[path], path)).server_command()
    assert run(evidence, SETTINGS).status == Status.PASS


def test_non_agentic_synthetic_knob_fails_unless_excepted():
    evidence = world_evidence("scenario6")
    body = evidence.signoff.body.replace(
        "Signed:", "- Exception: qwen3.5-fp8-mi355x-sglang-mtp keeps simulated acceptance for a study.\n\nSigned:")
    outcome = run(with_body(evidence, body), SETTINGS)
    assert any("documented exception" in d for d in outcome.details)
    assert outcome.status == Status.FAIL  # the agentic mismatch remains


def test_na_without_agentic_spec_decode():
    assert run(world_evidence("seed003"), SETTINGS).status == Status.NA
    assert run(world_evidence("scenario11"), SETTINGS).status == Status.NA


def test_choose_curve_never_guesses():
    from infx.config.policy import GoldenCurveRef
    refs = [GoldenCurveRef("minimaxm3", "eagle3", "a.yaml", "m"),
            GoldenCurveRef("minimaxm3", "eagle3", "b.yaml", "m", variant="gqa"),
            GoldenCurveRef("qwen3.8", "mtp", "c.yaml", "q", precision="fp8")]
    assert choose_curve(refs, "minimaxm3", "eagle3", None, "fp4").file == "a.yaml"
    assert choose_curve(refs, "minimaxm3", "eagle3", "gqa", "fp4").file == "b.yaml"
    assert choose_curve(refs, "minimaxm3", "eagle3", "other", "fp4") is None
    assert choose_curve(refs, "qwen3.8", "mtp", None, "fp4") is None
    assert choose_curve(refs, "qwen3.8", "mtp", None, "fp8").file == "c.yaml"


def test_fail_closed_on_unreadable_curve():
    from dataclasses import replace
    evidence = world_evidence("seed000")
    files = dict(evidence.default_branch_files)
    files["configs/golden_al_distribution/minimaxm3_eagle3_gqa.yaml"] = None
    outcome = run(replace(evidence, default_branch_files=files), SETTINGS)
    assert outcome.status == Status.FAIL and "could not be verified" in outcome.reason


def test_atom_confidence_schedule_with_forced_acceptance_fails():
    evidence = edit("scenario5", GLM_SCRIPT, "--spec-decode-acceptance-length 2.99",
                    """--spec-decode-acceptance-length 2.99 --dspark-config '{"confidence_schedule": true}'""")
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "confidence scheduler" in outcome.reason and f"{GLM_SCRIPT}:3" in outcome.reason


def test_atom_length_and_rate_together_fail():
    evidence = edit("scenario5", GLM_SCRIPT, "--spec-decode-acceptance-length 2.99",
                    "--spec-decode-acceptance-length 2.99 --spec-decode-acceptance-rate 0.6633")
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "mutually exclusive" in outcome.reason and f"{GLM_SCRIPT}:3" in outcome.reason


def test_acceptance_length_outside_the_valid_range_fails():
    outcome = run(edit("scenario5", GLM_SCRIPT, "--spec-decode-acceptance-length 2.99",
                       "--spec-decode-acceptance-length 4.50"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "outside the valid range [1, 4] for 3 draft tokens" in outcome.reason
