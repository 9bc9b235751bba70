"""Check `draft`: drafts run as shipped; the sign-off records draft precision."""

from __future__ import annotations

from lib.signoff_policy_support import with_body, with_head_file, world_evidence

from infx.signoff.checks.draft import missing_record_fields, run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

GLM_SCRIPT = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"
GLM_FLAGS = "--kv_cache_dtype fp8 --method mtp"


def glm(extra: str):
    evidence = world_evidence("scenario5")
    text = evidence.head_files[GLM_SCRIPT].replace(GLM_FLAGS, f"{GLM_FLAGS} {extra}")
    return with_head_file(evidence, GLM_SCRIPT, text)


def test_pass_with_record_and_clean_launch():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "minimaxm3-fp4-mi355x-atom-agentic-mtp" in outcome.reason
    assert "draft pruning/cheapening override" in outcome.reason


def test_inherited_prohibited_env_fails_with_location():
    outcome = run(world_evidence("scenario11"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "benchmarks/single_node/launchers/b300_sglang.sh:2: SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1" in outcome.reason


def test_disabled_prohibited_env_is_fine():
    evidence = world_evidence("scenario11")
    path = "benchmarks/single_node/launchers/b300_sglang.sh"
    text = evidence.head_files[path].replace("NEXTN_MOE=1", "NEXTN_MOE=0")
    assert run(with_head_file(evidence, path, text), SETTINGS).status == Status.PASS


def test_draft_quantization_flag_fails():
    outcome = run(glm("--speculative-draft-model-quantization=quark_mxfp4"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason.endswith("--speculative-draft-model-quantization quark_mxfp4 changes draft precision")


def test_quantization_inside_speculative_config_fails():
    outcome = run(glm("""--speculative-config '{"method": "mtp", "quantization": "fp8"}'"""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "--speculative-config sets quantization" in outcome.reason


def test_glm_ptpc_env_fails():
    outcome = run(glm("&& export SGLANG_GLM_NEXTN_MOE_PTPC=1"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "SGLANG_GLM_NEXTN_MOE_PTPC=1" in outcome.reason


def test_atom_online_quant_must_exclude_the_draft_layers():
    bad = run(glm("""--online_quant_config '{"quant_type": "ptpc_fp8", "exclude_layer": ["lm_head"]}'"""), SETTINGS)
    assert bad.status == Status.FAIL
    assert "does not cover the draft module(s) model.layers.78" in bad.reason
    good = run(glm("""--online_quant_config '{"quant_type": "ptpc_fp8", "exclude_layer": ["lm_head", "model.layers.78.*"]}'"""), SETTINGS)
    assert good.status == Status.PASS


def test_missing_record_fails_as_unverifiable():
    evidence = world_evidence("scenario5")
    outcome = run(with_body(evidence, "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n\nSigned: @x\n"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason.startswith("Draft precision could not be verified")


def test_record_fields():
    body = ("### Additional detail section:\n- Draft: org/draft revision abcdef1234567\n"
            "- Shipped precision: BF16\n- Default handling: the image loads it as stored\n"
            "- Effective precision: BF16\nSigned: @x\n")
    assert missing_record_fields(body) == []
    assert missing_record_fields(body.replace("- Effective precision: BF16\n", "")) == ["effective serving precision"]


def test_na_without_spec_decode():
    assert run(world_evidence("seed003"), SETTINGS).status == Status.NA
    assert run(world_evidence("scenario9"), SETTINGS).status == Status.NA


def test_fail_closed():
    assert run(world_evidence("seed000", files=None), SETTINGS).status == Status.FAIL


def test_fail_closed_when_the_launch_cannot_be_found():
    evidence = with_head_file(world_evidence("scenario5"), GLM_SCRIPT, None)
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "effective launch" in outcome.reason and "could not be verified" in outcome.reason


def test_foreign_draft_checkpoint_fails():
    evidence = world_evidence("scenario8")
    recipe = "configs/recipes/kimik3-fp4-mi355x-vllm-agentic-mtp.yaml"
    text = evidence.head_files[recipe].replace("draft-model: Inferact/Kimi-K3-DSpark",
                                               "draft-model: someone/Kimi-K3-DSpark-FP8")
    outcome = run(with_head_file(evidence, recipe, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "serves draft someone/Kimi-K3-DSpark-FP8, which is not a shipped or agreed (PoR) draft of kimik3" \
        in outcome.reason
    assert recipe in outcome.reason


def test_standalone_draft_flag_in_a_script_is_judged_too():
    outcome = run(glm("--draft-model org/glm-5.2-mtp-int4"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{GLM_SCRIPT}:3: glm5.2-fp4-b300-atom-agentic-mtp serves draft org/glm-5.2-mtp-int4" in outcome.reason


def test_shipped_drafts_pass():
    assert run(world_evidence("scenario8"), SETTINGS).status == Status.PASS  # Inferact/Kimi-K3-DSpark, the PoR draft
    assert run(world_evidence("seed000"), SETTINGS).status == Status.PASS  # Inferact/MiniMax-M3-EAGLE3-GQA


def test_pruning_the_draft_through_its_config_fails():
    outcome = run(glm("""--speculative-config '{"method": "mtp", "hf_overrides": {"num_hidden_layers": 0}}'"""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "--speculative-config sets num_hidden_layers for the draft, which prunes" in outcome.reason
    assert f"{GLM_SCRIPT}:3" in outcome.reason
    harmless = run(glm("""--speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'"""), SETTINGS)
    assert harmless.status == Status.PASS


def test_shared_launcher_enabling_the_prohibited_env_fails_without_an_affected_config():
    evidence = world_evidence("scenario9")  # no spec-decode config; a shared MI355X launcher changes
    launcher = "benchmarks/single_node/launch_mi355x.sh"
    text = evidence.head_files[launcher] + "export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n"
    outcome = run(with_head_file(evidence, launcher, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 lowers draft precision (prohibited)" in outcome.reason
    assert launcher in outcome.reason and "reaches every spec-decode config" in outcome.reason
    na = run(evidence, SETTINGS)
    assert na.status == Status.NA and "no changed benchmark file sets a prohibited" in na.reason


def test_draft_only_override_flags_that_prune_the_draft_fail():
    outcome = run(glm("""--speculative-draft-model-hf-overrides '{"num_hidden_layers": 1}'"""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert (f"{GLM_SCRIPT}:3: --speculative-draft-model-hf-overrides sets num_hidden_layers for the draft, "
            "which prunes its layers/experts/heads below the shipped draft") in outcome.reason
    experts = run(glm("""--draft-json-model-override-args '{"n_routed_experts": 64}'"""), SETTINGS)
    assert experts.status == Status.FAIL
    assert "--draft-json-model-override-args sets n_routed_experts for the draft" in experts.reason
    rope = run(glm("""--speculative-draft-model-hf-overrides '{"rope_theta": 1000000}'"""), SETTINGS)
    assert rope.status == Status.PASS, rope.reason


def test_a_non_literal_draft_override_fails_closed():
    outcome = run(glm("--draft-hf-overrides $DRAFT_OVERRIDES"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert ("--draft-hf-overrides $DRAFT_OVERRIDES overrides the draft's model config with a value that is "
            "not a literal, so the draft's architecture could not be verified") in outcome.reason


def test_overriding_the_draft_architecture_through_the_target_config_fails():
    outcome = run(glm("""--hf-overrides '{"num_nextn_predict_layers": 0}'"""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert (f"{GLM_SCRIPT}:3: --hf-overrides sets num_nextn_predict_layers, the draft's own MTP/NextN/EAGLE "
            "architecture, so the draft does not run as shipped") in outcome.reason
    yaml_form = run(glm("""--json-model-override-args '{mtp_num_hidden_layers: 1}'"""), SETTINGS)
    assert yaml_form.status == Status.FAIL and "mtp_num_hidden_layers" in yaml_form.reason
    # a draft architecture key inside --speculative-config prunes the draft too
    spec = run(glm("""--speculative-config '{"method": "mtp", "hf_overrides": {"n_predict": 1}}'"""), SETTINGS)
    assert spec.status == Status.FAIL and "--speculative-config sets n_predict for the draft" in spec.reason


def test_a_draft_token_map_makes_the_draft_cheaper():
    outcome = run(glm("--speculative-token-map thunlp/freq_32768.pt"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert outcome.reason.endswith(f"{GLM_SCRIPT}:3: --speculative-token-map thunlp/freq_32768.pt makes the draft "
                                   "cheaper than shipped (a pruned draft vocabulary/head)")


def test_a_shared_launcher_pruning_the_draft_fails_without_an_affected_config():
    evidence = world_evidence("scenario9")
    launcher = "benchmarks/single_node/launch_mi355x.sh"
    text = evidence.head_files[launcher] + "EXTRA_ARGS=\"--speculative-token-map /data/map.pt\"\n"
    outcome = run(with_head_file(evidence, launcher, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "--speculative-token-map" in outcome.reason and "reaches every spec-decode config" in outcome.reason


def test_a_config_reached_only_through_a_changed_shared_file_needs_no_record(monkeypatch):
    """The reviewer records the draft precision of what the PR's plan sweeps; a spec-decode config
    launched through a helper the PR changed, which the plan does not sweep, is judged by the
    helper's changed lines only (real #2609/#2690: NVIDIA PRs changing benchmark_lib.sh were
    charged with MI355X scripts' pre-existing lines)."""
    from dataclasses import replace

    from infx.signoff.checks import draft
    from infx.signoff.rules.affected import affected_configs
    from infx.signoff.swept import SHARED_ONLY

    evidence = with_body(world_evidence("seed000"), "CODEOWNER sign-off\n")  # no record at all
    real = affected_configs(evidence)
    assert run(evidence, SETTINGS).status == Status.FAIL  # the changed config needs its record
    monkeypatch.setattr(draft, "affected_configs", lambda _: [replace(c, how=SHARED_ONLY) for c in real])
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: set())
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.NA and "judged by that file's changed lines" in outcome.reason, outcome.reason
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: {c.key for c in real})
    assert run(evidence, SETTINGS).status == Status.FAIL  # swept after all: the record is asked


def test_a_prohibited_name_written_in_an_unreadable_form_counts_as_set():
    """Red team 3: `printf -v` / `read` / a variable holding the name set the prohibited
    environment without an assignment the scan reads; fail closed. Exporting or unsetting the
    name alone, or reading `$NAME`, is not a setting."""
    evidence = world_evidence("scenario11")
    path = "benchmarks/single_node/launchers/b300_sglang.sh"
    name = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"

    def launched(line: str):
        return run(with_head_file(evidence, path, evidence.head_files[path].replace(f"export {name}=1", line)),
                   SETTINGS)

    written = launched(f"printf -v {name} 1")
    assert written.status == Status.FAIL and "written in a form whose value cannot be read" in written.reason
    assert launched(f"N={name}").status == Status.FAIL
    for harmless in (f"{name}=0", f"export {name}=off", f"unset {name}",
                     f'echo "draft env: ${{{name}:-unset}}"', f'[ -z "${name}" ]'):
        outcome = launched(harmless)
        assert outcome.status == Status.PASS, (harmless, outcome.reason)
    assert launched(f"{name}=0\nexport {name}").status == Status.PASS  # its value is read where it is set


def test_a_hostile_word_is_read_in_linear_time():
    """A launch line of many `$` pieces (which a backtracking name pattern took exponential
    time over) is read at once, and a real built name on it is still found."""
    from infx.signoff.checks.draft import _assembled

    name = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"
    assert _assembled("x ${a}" + "b$c" * 5000 + "=1", [name]) == []
    assert len(_assembled("y " + "$a" * 5000 + " export ${P}_NEXTN_MOE=1", [name])) == 1


def test_a_prohibited_name_made_by_brace_expansion_counts_as_set():
    """``export NAME_MO{E,}=1`` is ``export NAME_MOE=1 NAME_MO=1`` to bash: each word the
    expansion makes is an assignment."""
    evidence = world_evidence("scenario11")
    path = "benchmarks/single_node/launchers/b300_sglang.sh"
    name = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"

    def launched(line: str):
        return run(with_head_file(evidence, path, evidence.head_files[path].replace(f"export {name}=1", line)),
                   SETTINGS)

    for hostile in (f"export {name[:-1]}{{E,}}=1", f"export {{{name},UNRELATED}}=1",
                    f"export {name[:-3]}{{M..M}}OE=on", f"export {name[:-2]}{{OE,X}}=$ON"):
        outcome = launched(hostile)
        assert outcome.status == Status.FAIL and "brace expansion" in outcome.reason, (hostile, outcome.reason)
    for harmless in (f"export {name[:-1]}{{E,}}=0", f"export {{{name},UNRELATED}}=off", "export OTHER_{A,B}=1"):
        outcome = launched(harmless)
        assert outcome.status == Status.PASS, (harmless, outcome.reason)


def test_a_prefix_of_a_prohibited_flag_fails_closed():
    """argparse (the engines' servers) takes ``--speculative-draft-model-quant fp8`` for
    ``--speculative-draft-model-quantization fp8``."""
    for short in ("--speculative-draft-model-quant fp8", "--speculative_draft_model_q=fp8", "--draft-dt bfloat16"):
        outcome = run(glm(short), SETTINGS)
        assert outcome.status == Status.FAIL and "which argparse takes for it" in outcome.reason, (short, outcome.reason)
    assert run(glm("--draft-model-revision r --speculative-num-steps 2"), SETTINGS).status == Status.PASS

