"""Check `golden`: agentic spec-decode throughput pins the golden AL."""

from __future__ import annotations

import pytest
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


PER_CONC = """#!/usr/bin/env bash
set -euo pipefail
if [ "$CONC" = 1 ]; then
    SPEC_AL={al1}
    NUM_SPEC=4
else
    SPEC_AL={al}
    NUM_SPEC=3
fi
python -m atom.entrypoints.openai_server --model "$MODEL" -tp 8 \\
  --kv_cache_dtype fp8 --method mtp --num-speculative-tokens "$NUM_SPEC" \\
  --spec-decode-acceptance-length "$SPEC_AL" &
aiperf profile --endpoint /v1/chat/completions --endpoint-type chat \\
  --apply-chat-template --extra-inputs '{{"chat_template_kwargs": {{"enable_thinking": true}}}}'
"""


def _per_conc(al1: str, al: str):
    evidence = world_evidence("scenario5")
    return with_head_file(evidence, GLM_SCRIPT, PER_CONC.format(al1=al1, al=al))


def test_acceptance_length_through_a_variable_set_per_concurrency_passes():
    # conc 1 runs 4 draft tokens (golden 3.33), conc 4 and 8 run 3 (golden 2.99)
    outcome = run(_per_conc("3.33", "2.99"), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "thinking_on[4] = 3.33 (rows with CONC=1)" in outcome.reason
    assert "thinking_on[3] = 2.99 (rows with CONC=4 or CONC=8)" in outcome.reason
    assert f"SPEC_AL=3.33 at {GLM_SCRIPT}:4" in outcome.reason


def test_a_variable_branch_with_a_wrong_value_fails_naming_its_rows():
    outcome = run(_per_conc("3.33", "2.50"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "(rows with CONC=4 or CONC=8)" in outcome.reason
    assert "pins AL 2.50" in outcome.reason and "thinking_on[3] = 2.99" in outcome.reason
    assert f"SPEC_AL=2.50 at {GLM_SCRIPT}:7" in outcome.reason


def test_every_failing_group_of_rows_is_counted_after_the_first():
    outcome = run(_per_conc("3.00", "2.50"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "(rows with CONC=1)" in outcome.reason and "pins AL 3.00" in outcome.reason
    assert outcome.reason.endswith("(and 1 other group of rows)"), outcome.reason
    assert "and 1 other group" not in run(_per_conc("3.33", "2.50"), SETTINGS).reason


def test_a_branch_no_row_decides_must_pass_both_ways():
    # the condition tests something no row sets: each side is a variant on its own
    evidence = _per_conc("3.33", "2.99")
    text = evidence.head_files[GLM_SCRIPT].replace('[ "$CONC" = 1 ]', '[ -n "$FAST_PATH" ]')
    assert run(with_head_file(evidence, GLM_SCRIPT, text), SETTINGS).status == Status.PASS
    wrong = text.replace("SPEC_AL=3.33", "SPEC_AL=3.20")
    outcome = run(with_head_file(evidence, GLM_SCRIPT, wrong), SETTINGS)
    assert outcome.status == Status.FAIL
    assert '[ -n "$FAST_PATH" ] holds' in outcome.reason and "pins AL 3.20" in outcome.reason


def test_an_unset_variable_is_not_a_pinned_value():
    evidence = _per_conc("3.33", "2.99")
    text = evidence.head_files[GLM_SCRIPT].replace('"$SPEC_AL"', '"$UNSET_AL"')
    outcome = run(with_head_file(evidence, GLM_SCRIPT, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "synthetic acceptance is not enabled" in outcome.reason


PRINTF_LAUNCH = """#!/usr/bin/env bash
set -euo pipefail
NUM_SPEC=3
SPEC_AL=2.99
if [ "${EVAL_ONLY:-}" = "true" ]; then
    SPEC_ARGS=$(printf -- '--num-speculative-tokens %d' "$NUM_SPEC")
else
    SPEC_ARGS=$(printf -- \\
        '--num-speculative-tokens %d --spec-decode-acceptance-length %.2f' "$NUM_SPEC" "$SPEC_AL")
fi
python -m atom.entrypoints.openai_server --model "$MODEL" -tp 8 \\
  --kv_cache_dtype fp8 --method mtp $SPEC_ARGS &
aiperf profile --endpoint /v1/chat/completions --endpoint-type chat \\
  --apply-chat-template --extra-inputs '{"chat_template_kwargs": {"enable_thinking": true}}'
"""


def test_spec_flags_built_with_printf_are_read_as_printf_prints_them():
    # the reference's vLLM launches build --speculative-config this way (#2611, #2328); the
    # eval-only arm's printf does not run in the throughput rows and leaves the value known
    evidence = with_head_file(world_evidence("scenario5"), GLM_SCRIPT, PRINTF_LAUNCH)
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "thinking_on[3] = 2.99" in outcome.reason and f"SPEC_AL=2.99 at {GLM_SCRIPT}:4" in outcome.reason
    wrong = run(with_head_file(evidence, GLM_SCRIPT, PRINTF_LAUNCH.replace("SPEC_AL=2.99", "SPEC_AL=2.5")), SETTINGS)
    assert wrong.status == Status.FAIL and "--spec-decode-acceptance-length 2.50" in wrong.reason


def test_a_draft_length_printf_cannot_know_is_not_read():
    # %d of a value the reading cannot know: bash prints whatever it is at run time
    text = PRINTF_LAUNCH.replace('NUM_SPEC=3', 'NUM_SPEC=$(cat /tmp/k)')
    outcome = run(with_head_file(world_evidence("scenario5"), GLM_SCRIPT, text), SETTINGS)
    assert outcome.status == Status.FAIL and "synthetic acceptance is not enabled" in outcome.reason


def test_digits_in_an_unresolved_reference_are_not_a_draft_length():
    # `$K3` is whatever K3 holds at run time, not 3 (the reading used to take its digits)
    text = PER_CONC.format(al1="2.99", al="2.99").replace('"$NUM_SPEC"', '"$K3"')
    text = text.replace("set -euo pipefail\n", "set -euo pipefail\nK3=$(cat /tmp/k)\n")
    outcome = run(with_head_file(world_evidence("scenario5"), GLM_SCRIPT, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "the draft length (num speculative tokens) could not be read" in outcome.reason


def test_an_elif_arm_cannot_stand_in_for_the_rows_an_earlier_arm_takes():
    # the rows CONC <= 1 take the first arm (a wrong AL); the elif's golden value is not theirs
    text = PER_CONC.format(al1="2.50", al="2.99").replace(
        'else\n    SPEC_AL=2.99', 'elif [ "$CONC" -le 99 ]; then\n    SPEC_AL=2.99').replace('= 1 ]', '-le 1 ]')
    text = text.replace("NUM_SPEC=4", "NUM_SPEC=3")
    outcome = run(with_head_file(world_evidence("scenario5"), GLM_SCRIPT, text), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason
    assert "(rows with CONC=1)" in outcome.reason and "pins AL 2.50" in outcome.reason


def test_rows_whose_launch_turns_the_draft_off_pin_nothing():
    # real #2616: a lane declares MTP, but above some concurrency the launch runs no draft
    text = PER_CONC.format(al1="3.33", al="2.99").replace("    SPEC_AL=2.99\n    NUM_SPEC=3\n", "    NUM_SPEC=0\n")
    text = text.replace('python -m atom', 'SPEC=()\nif [ "$NUM_SPEC" -gt 0 ]; then\n  SPEC=(--method mtp '
                        '--num-speculative-tokens "$NUM_SPEC" --spec-decode-acceptance-length "$SPEC_AL")\nfi\n'
                        'python -m atom').replace(
        '--kv_cache_dtype fp8 --method mtp --num-speculative-tokens "$NUM_SPEC" \\\n  --spec-decode-acceptance-length "$SPEC_AL" &',
        '--kv_cache_dtype fp8 "${SPEC[@]}" &')
    outcome = run(with_head_file(world_evidence("scenario5"), GLM_SCRIPT, text), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "thinking_on[4] = 3.33 (rows with CONC=1)" in outcome.reason
    assert "rows with CONC=4 or CONC=8 run no speculative decoding" in outcome.reason


PIN = "  --spec-decode-acceptance-length 2.99 &"
SERVER_WITHOUT_PIN = "  &"


def _pin_moved(into: str):
    """The server starts without its pin; the pin's words stand in ``into`` (PIN: the line)."""
    evidence = world_evidence("scenario5")
    text = evidence.head_files[GLM_SCRIPT].replace(PIN, SERVER_WITHOUT_PIN) + into.replace("PIN", PIN.strip(" &"))
    return run(with_head_file(evidence, GLM_SCRIPT, text), SETTINGS)



@pytest.mark.parametrize("into", [
    "cat >/dev/null <<'EOF'\nPIN\nEOF\n",  # heredoc text no shell reads
    ": '\nPIN\n'\n",  # the block-comment idiom
    'NOTE="\nPIN\n"\n',  # a string
    "unused() {\n  echo serve PIN\n}\n",  # printed
    "never_called() {\n  atom_server PIN\n}\n",  # a function nothing calls
])
def test_a_pin_the_launch_does_not_run_is_no_pin(into):
    outcome = _pin_moved(into)
    assert outcome.status == Status.FAIL, outcome.reason


def test_a_pin_in_a_function_the_launch_calls_still_counts():
    outcome = _pin_moved("serve() {\n  atom_server PIN\n}\nserve\n")
    assert outcome.status == Status.PASS, outcome.reason


@pytest.mark.parametrize("later", ["--spec-decode-acceptance-len 1.5", "--spec-decode-acceptance-r 0.1"])
def test_a_prefix_of_an_acceptance_flag_after_the_pin_fails_closed(later):
    """argparse (the ATOM server's) takes a unique prefix of a long option for it: the value
    given last is the one the server runs with."""
    evidence = edit("scenario5", GLM_SCRIPT, PIN, PIN.replace(" &", f" {later} &"))
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL and "a prefix of --spec-decode-acceptance-" in outcome.reason, outcome.reason
