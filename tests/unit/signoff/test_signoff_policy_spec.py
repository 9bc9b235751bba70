"""infx.signoff.rules.spec_decoding: speculative-decoding facts read from launch lines."""

from __future__ import annotations

from infx.signoff.rules.affected import AffectedConfig
from infx.signoff.rules.scan import Line
from infx.signoff.rules.spec_decoding import (
    acceptance_readings,
    draft_length,
    draft_method,
    draft_variant,
    engine_family,
    thinking_mode,
)


def lines(*texts):
    return [Line("s.sh", i, t) for i, t in enumerate(texts, 1)]


def config(key="m-fp4-b200-vllm-agentic-mtp", framework="vllm"):
    return AffectedConfig(key, {"framework": framework, "model-prefix": "m"}, "added", "m.yaml")


def test_engine_family():
    assert engine_family(config(framework="dynamo-sglang")) == "sglang"
    assert engine_family(config(framework="atom-disagg")) == "atom"
    assert engine_family(config(framework="dynamo-trt")) == "trt"


def test_draft_length_per_engine():
    assert draft_length("vllm", lines('--speculative-config \'{"num_speculative_tokens": 4}\'')) == 4
    assert draft_length("sglang", lines("--speculative-num-steps 3 --speculative-num-draft-tokens 4")) == 3
    assert draft_length("trt", lines("  max_draft_len: 2")) == 2
    assert draft_length("atom", lines("--num-speculative-tokens 7")) == 7
    assert draft_length("atom", lines("nothing")) is None


def test_method_variant_and_thinking():
    launch = lines("--speculative-algorithm EAGLE3 --draft Inferact/MiniMax-M3-EAGLE3-GQA",
                   '--extra-inputs \'{"chat_template_kwargs": {"thinking_mode": "disabled"}}\'')
    assert draft_method(config(), launch) == "eagle3"
    assert draft_variant(config(), launch) == "gqa"
    assert thinking_mode(config(), launch) == "off"
    assert thinking_mode(config(), lines("serve")) == "on"
    # a server default (Dynamo's, #2690) governs requests that set nothing; the request's own wins
    default = lines("    DYN_DEFAULT_THINKING_MODE: disabled")
    assert thinking_mode(config(), default) == "off"
    asked = lines("--extra-inputs '{\"chat_template_kwargs\": {\"enable_thinking\": true}}'")
    assert thinking_mode(config(), default + asked) == "on"
    # a name that only ends in the word is no setting of it
    assert thinking_mode(config(), lines("MY_THINKING=off")) == "on"
    assert draft_method(config("x-dspark"), lines("serve")) == "dspark"


def test_method_from_a_trt_speculative_config_or_the_master_configs_lanes():
    # TensorRT-LLM's speculative_config names its method `decoding_type`; a key without a method
    # word whose every lane says `spec-decoding: mtp` is an MTP config (real #2690's dsv4 GB300 AgentX)
    trt = config("dsv4-fp4-gb300-dynamo-trt-agentx", framework="dynamo-trt")
    assert draft_method(trt, lines("  speculative_config:", "    decoding_type: MTP")) == "mtp"
    lanes = {"scenarios": {"agentic-coding": [{"search-space": [{"spec-decoding": "mtp"}, {"spec-decoding": "mtp"}]}]}}
    declared = AffectedConfig("dsv4-fp4-gb300-dynamo-trt-agentx", {**trt.entry, **lanes}, "added", "m.yaml")
    assert draft_method(declared, lines("serve")) == "mtp"
    mixed = {"scenarios": {"agentic-coding": [{"search-space": [{"spec-decoding": "mtp"}, {"spec-decoding": "none"}]}]}}
    assert draft_method(AffectedConfig("x-trt-agentx", {**trt.entry, **mixed}, "added", "m.yaml"), lines("serve")) is None


def test_readings_convert_to_acceptance_length():
    found = acceptance_readings(lines(
        "export SGLANG_SIMULATE_ACC_LEN=3.39",
        "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.49 trtllm-serve",
        '--speculative-config \'{"rejection_sample_method":"synthetic","synthetic_acceptance_length":2.78}\'',
        "--spec-decode-acceptance-rate 0.5 --num-speculative-tokens 4"), k=4)
    assert [round(r.al, 2) for r in found] == [3.39, 2.49, 2.78, 3.0]
    assert found[1].spelling == "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.49"


INJECTED = [{"switch": "SYNTHETIC_ACCEPTANCE", "length": "SYNTHETIC_ACCEPTANCE_LENGTH",
             "runs": "inject_synthetic_acceptance", "files": ["runners/inject_synthetic_acceptance.py",
                                                              "runners/synthetic_injectors/"]}]
LAUNCHER = 'CONFIG_PATH="${CONFIG_FILE%%:*}"\ninject_synthetic_acceptance "$CONFIG_PATH" "$FRAMEWORK" || exit 1\n'
HELPER = 'inject_synthetic_acceptance() {\n    python3 "$GITHUB_WORKSPACE/runners/inject_synthetic_acceptance.py" "$1" "$2"\n}\n'


def _injected(settings: list[str], launcher: str = LAUNCHER, changed: tuple[str, ...] = ()):
    from infx.signoff.rules.spec_decoding import injected_acceptance
    texts = {"runners/launch_x.sh": launcher, "runners/slurm_utils.sh": HELPER}
    launch = [Line("configs/nvidia-master.yaml", 10 + i, s) for i, s in enumerate(settings)]
    launch += [Line(p, n, t) for p, text in texts.items() for n, t in enumerate(text.splitlines(), 1)]
    return injected_acceptance(launch, INJECTED, texts, changed)


def test_acceptance_a_launcher_injects_from_the_rows_settings():
    readings, problem = _injected(["SYNTHETIC_ACCEPTANCE=true", "SYNTHETIC_ACCEPTANCE_LENGTH=2.49"])
    assert problem is None and [(r.al, r.spelling, r.line.number) for r in readings] == [
        (2.49, "SYNTHETIC_ACCEPTANCE_LENGTH=2.49", 11)]
    # off, or nothing the row runs calls the injector (only the helper's body names it): inert
    assert _injected(["SYNTHETIC_ACCEPTANCE=false", "SYNTHETIC_ACCEPTANCE_LENGTH=2.49"]) == ([], None)
    assert _injected(["SYNTHETIC_ACCEPTANCE=true", "SYNTHETIC_ACCEPTANCE_LENGTH=2.49"],
                     launcher='echo "see inject_synthetic_acceptance"\n') == ([], None)
    # the launcher may run the injector's script itself
    direct = 'python3 "$GITHUB_WORKSPACE/runners/inject_synthetic_acceptance.py" "$CONFIG_PATH" "$FRAMEWORK"\n'
    assert _injected(["SYNTHETIC_ACCEPTANCE=true", "SYNTHETIC_ACCEPTANCE_LENGTH=3.84"], launcher=direct)[0]


def test_injected_acceptance_that_cannot_be_verified():
    _, problem = _injected(["SYNTHETIC_ACCEPTANCE=true"])
    assert "leaves the AL to the injector" in problem
    _, problem = _injected(["SYNTHETIC_ACCEPTANCE=true", "SYNTHETIC_ACCEPTANCE_LENGTH=2.49"],
                           changed=("runners/synthetic_injectors/vllm.py",))
    assert "changes the acceptance injector (runners/synthetic_injectors/vllm.py)" in problem


def test_a_disaggregated_recipe_judges_the_decode_workers_draft_length():
    # real #2642: prefill drafts 1 token, decode 2; SGLANG_SIMULATE_ACC_LEN 2.5 is decode's AL
    recipe = ("backend:\n  sglang_config:\n    prefill:\n      speculative-num-steps: 1\n"
              "    decode:\n      speculative-num-steps: 2\n")
    path = "benchmarks/multi_node/srt-slurm-recipes/sglang/x/disagg.yaml"
    launch = [Line(path, 4, "      speculative-num-steps: 1"), Line(path, 6, "      speculative-num-steps: 2")]
    assert draft_length("sglang", launch, {path: recipe}) == 2
    assert draft_length("sglang", launch) == 1  # without the recipe's text: the first setting
    one_sided = recipe.replace("    decode:\n", "    other:\n")
    assert draft_length("sglang", launch, {path: one_sided}) == 1


def test_the_decode_side_is_read_from_the_recipe_as_yaml_and_unclear_structure_reads_nothing():
    path = "benchmarks/multi_node/srt-slurm-recipes/sglang/x/disagg.yaml"

    def length(recipe: str) -> int | None:
        launch = [Line(path, n, text) for n, text in enumerate(recipe.splitlines(), 1)]
        return draft_length("sglang", launch, {path: recipe})

    # a decode command in a block scalar, a flow map, a quoted key: decode's 2, not prefill's 1
    assert length("prefill:\n  speculative-num-steps: 1\ndecode:\n  cmd: |\n"
                  "    run --speculative-num-steps 2\n") == 2
    assert length("prefill: {speculative-num-steps: 1}\ndecode: {speculative-num-steps: 2}\n") == 2
    assert length('prefill:\n  speculative-num-steps: 1\n"decode":\n  speculative-num-steps: 2\n') == 2
    # both sides on one line, an alias, a repeated key, decode's value in hex or with a leading
    # zero (YAML 1.1 reads 010 as 8): which length decode runs is not known
    for unclear in ("x: {prefill: {speculative-num-steps: 1}, decode: {speculative-num-steps: 2}}\n",
                    "prefill: &p\n  speculative-num-steps: 1\ndecode: *p\n",
                    "prefill: &p\n  speculative-num-steps: 1\ndecode:\n  <<: *p\n  x: 1\n",
                    "decode:\n  speculative-num-steps: 2\ndecode:\n  speculative-num-steps: 3\n",
                    "prefill:\n  speculative-num-steps: 1\ndecode:\n  speculative-num-steps: 0x2\n",
                    "prefill:\n  speculative-num-steps: 1\ndecode:\n  speculative-num-steps: 010\n"):
        assert length(unclear) is None, unclear


def test_the_probabilistic_curve_is_chosen_by_the_drafting_method():
    # real #2561/#2616: throughput verifies with the synthetic method; only drafting tells the
    # probabilistic curve (measured with block verification) from the standard one
    spec = ('--speculative-config "{\\"method\\": \\"dspark\\", \\"draft_sample_method\\": \\"probabilistic\\", '
            '\\"rejection_sample_method\\": \\"synthetic\\", \\"synthetic_acceptance_length\\": 2.51}"')
    assert draft_variant(config("kimik3-fp4-b300-vllm-agentic-dspark"), lines(spec, "--block-size 64")) \
        == "probabilistic-block"
    # the words alone are no setting: a comment-like string and a block size
    assert draft_variant(config("kimik3-fp4-b300-vllm-agentic-dspark"),
                         lines('echo "probabilistic sampling is off"', "--block-size 64")) is None
