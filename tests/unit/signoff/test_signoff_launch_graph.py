"""The sign-off's affected configs and launch lines follow the launch graph on trees that hold
the runners' launchers (infx.plan.launch_graph), instead of matching file names to keys."""

from __future__ import annotations

from lib.signoff_policy_support import bare_evidence, changed, trusted_policy_files

from infx.signoff.checks.chat import run as chat_check
from infx.signoff.model import Status
from infx.signoff.rules.affected import affected_configs, launch_lines
from infx.signoff.table import load_table

SETTINGS = load_table().settings
MASTER = "configs/nvidia-master.yaml"
RUNNERS = "labels:\n  b200: [b200-cw_00]\n  gb200: [gb200-nv_0]\n"
LIB = "benchmarks/benchmark_lib.sh"
SOURCE_LIB = 'source "$(dirname "$0")/../../benchmark_lib.sh"\n'
GB200_RECIPE = "benchmarks/multi_node/srt-slurm-recipes/sglang/dsv4/disagg-gb200-fp4.yaml"
FIXED = "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_sglang_mtp.sh"
AGENTIC = "benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh"


def block(key: str, runner: str, framework: str, kind: str, lane: str, multinode: bool = False) -> str:
    return (f"{key}:\n  image: img:1\n  model: m/M\n  model-prefix: dsv4\n  runner: {runner}\n"
            f"  precision: fp4\n  framework: {framework}\n  multinode: {str(multinode).lower()}\n"
            f"  scenarios:\n    {kind}:\n    - isl: 8192\n      osl: 1024\n      search-space:\n      - {lane}\n")


KEYS = (block("dsv4-fp4-b200-sglang-mtp", "b200", "sglang", "fixed-seq-len",
              "{ tp: 8, conc-list: [4], spec-decoding: mtp }")
        + block("dsv4-fp4-b200-sglang-agentic-mtp", "b200", "sglang", "agentic-coding",
                "{ tp: 8, conc-list: [4], spec-decoding: mtp }")
        + block("dsv4-fp4-gb200-dynamo-sglang-mtp", "gb200", "dynamo-sglang", "fixed-seq-len",
                "{ spec-decoding: mtp, conc-list: [4], prefill: { num-worker: 1, tp: 8, additional-settings: "
                "[\"CONFIG_FILE=recipes/sglang/dsv4/disagg-gb200-fp4.yaml\"] }, decode: { num-worker: 1, tp: 8 } }",
                multinode=True))
CHAT_BY_BRANCH = (SOURCE_LIB
                  + 'if [ "${EVAL_ONLY}" = "true" ]; then\n  run_eval --framework lm-eval\nelse\n'
                  + '  run_benchmark_serving --model "$MODEL" --use-chat-template\nfi\n')
BASE = {
    MASTER: KEYS, "configs/runners.yaml": RUNNERS,
    "runners/launch_b200-cw.sh": 'bash "$BENCH_SCRIPT"\n',
    "runners/launch_gb200-nv.sh": 'srtctl apply -f "$CONFIG_FILE"\n',
    LIB: "run_benchmark_serving() { python3 bench.py \"$@\"; }\n",
    FIXED: CHAT_BY_BRANCH,
    AGENTIC: SOURCE_LIB + "run_agentic --endpoint-type chat\n",
    GB200_RECIPE: "backend:\n  decode_environment:\n    X: '1'\nbenchmark:\n  use_chat_template: true\n",
}


def evidence(**head_changes: str | None):
    head = {**BASE, **head_changes}
    head = {p: t for p, t in head.items() if t is not None}
    return bare_evidence(head_files=head, base_files=dict(BASE), files=changed(BASE, head),
                         default_branch_files=trusted_policy_files())


def keys(ev) -> list[tuple[str, str]]:
    return [(c.key, c.how) for c in affected_configs(ev)]


def test_a_gb200_recipe_is_not_charged_to_the_b200_key():
    moe = BASE[GB200_RECIPE].replace("X: '1'", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: '1'")
    ev = evidence(**{GB200_RECIPE: moe})
    assert keys(ev) == [("dsv4-fp4-gb200-dynamo-sglang-mtp", "launch file changed")]
    config = affected_configs(ev)[0]
    assert any("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" in ln.text and ln.path == GB200_RECIPE
               for ln in launch_lines(ev, config))


def test_an_agentic_script_is_not_charged_to_the_fixed_seq_len_key_and_back():
    assert keys(evidence(**{AGENTIC: BASE[AGENTIC] + "echo x\n"})) == [
        ("dsv4-fp4-b200-sglang-agentic-mtp", "launch file changed")]
    assert keys(evidence(**{FIXED: BASE[FIXED] + "echo x\n"})) == [
        ("dsv4-fp4-b200-sglang-mtp", "launch file changed")]


def test_a_sourced_helper_affects_its_configs_as_shared_and_its_lines_are_shared():
    ev = evidence(**{LIB: BASE[LIB] + "export NEW=1\n"})
    assert keys(ev) == [("dsv4-fp4-b200-sglang-agentic-mtp", "shared helper changed"),
                        ("dsv4-fp4-b200-sglang-mtp", "shared helper changed")]
    lines = launch_lines(ev, affected_configs(ev)[1])
    assert all(ln.shared for ln in lines if ln.path == LIB) and any(ln.path == LIB for ln in lines)


def test_launch_lines_are_the_throughput_branch_of_the_script():
    ev = evidence(**{FIXED: CHAT_BY_BRANCH + "echo changed\n"})
    config = affected_configs(ev)[0]
    texts = [ln.text.strip() for ln in launch_lines(ev, config) if ln.path == FIXED]
    assert any("--use-chat-template" in t for t in texts) and not any("lm-eval" in t for t in texts)
    evals = [ln.text.strip() for ln in launch_lines(ev, config, eval_only=True) if ln.path == FIXED]
    assert any("lm-eval" in t for t in evals) and not any("--use-chat-template" in t for t in evals)


def test_check_9_passes_a_chat_template_in_the_throughput_branch_of_eval_only():
    outcome = chat_check(evidence(**{FIXED: CHAT_BY_BRANCH + "echo changed\n"}), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert f"{FIXED}:5" in outcome.reason and 'when not [ "${EVAL_ONLY}" = "true" ]' in outcome.reason


def test_check_9_still_fails_a_chat_template_only_in_the_eval_only_branch():
    only_eval = (SOURCE_LIB + 'if [ "${EVAL_ONLY}" = "true" ]; then\n  run_eval --use-chat-template\nelse\n'
                 + "  run_benchmark_serving --backend vllm\nfi\n")
    outcome = chat_check(evidence(**{FIXED: only_eval}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "raw completions" in outcome.reason and f"{FIXED}:5" in outcome.reason


def test_check_9_passes_a_chat_template_under_is_mtp():
    text = SOURCE_LIB + 'if [ "$IS_MTP" = "true" ]; then\n  CHAT=--use-chat-template\nfi\nrun $CHAT\n'
    outcome = chat_check(evidence(**{FIXED: text}), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason


def test_check_9_reads_the_config_file_recipe_of_a_multi_node_key():
    outcome = chat_check(evidence(**{GB200_RECIPE: BASE[GB200_RECIPE] + "# refreshed\n"}), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert GB200_RECIPE in outcome.reason


def test_check_9_reads_the_chat_endpoint_of_the_sourced_helper():
    lib = "run_benchmark_serving() { aiperf profile --endpoint-type chat \"$@\"; }\n"
    script = SOURCE_LIB + "run_benchmark_serving --model m\n"
    outcome = chat_check(evidence(**{LIB: lib, FIXED: script, AGENTIC: BASE[AGENTIC] + "#\n"}), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert f"{LIB}:1" in outcome.reason


SRT_LAUNCHER = ('git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\ncd "$SRT_REPO_DIR"\n'
                "git show 22d46ba --format= -- src/srtctl/core/ip_utils/get_node_ip.sh | git apply -\n"
                "uv pip install -e .\nsrtctl apply -f \"$CONFIG_FILE\"\n")


def test_check_10_does_not_take_the_srtctl_install_of_the_launcher_for_an_engine_rebuild():
    from infx.signoff.checks.patch import run as patch_check

    base = {**BASE, "runners/launch_gb200-nv.sh": SRT_LAUNCHER}
    head = {**base, GB200_RECIPE: BASE[GB200_RECIPE] + "# refreshed\n"}
    ev = bare_evidence(head_files=head, base_files=base, files=changed(base, head),
                       default_branch_files=trusted_policy_files())
    outcome = patch_check(ev, SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason


def test_check_10_still_rejects_an_engine_install_in_the_script_without_a_waiver():
    from infx.signoff.checks.patch import run as patch_check

    script = CHAT_BY_BRANCH + "pip install git+https://github.com/fork/sglang@fix\n"
    ev = evidence(**{FIXED: script})
    outcome = patch_check(ev, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "installs engine package git+https://github.com/fork/sglang@fix" in outcome.reason
    assert "no waiver docs/waiver/1.md" in outcome.reason


M3_MASTER = "configs/amd-master.yaml"
M3_SCRIPT = "benchmarks/single_node/agentic/minimaxm3_fp4_b200_vllm_mtp.sh"
DSV4_SCRIPT = "benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh"


def golden_evidence(master: str, script: str, text: str):
    base = {**BASE, master: BASE.get(master, ""),
            script: SOURCE_LIB + "run_agentic --endpoint-type chat\n" + SCRIPTS[script]}
    head = {**base, master: base[master] + text}
    return bare_evidence(head_files=head, base_files=base, files=changed(base, head),
                         default_branch_files=trusted_policy_files())


SCRIPTS = {
    M3_SCRIPT: ("vllm serve \"$MODEL\" --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, "
                "\"rejection_sample_method\": \"synthetic\", \"synthetic_acceptance_length\": 2.78}'\n"),
    DSV4_SCRIPT: "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3\n",
}


def test_check_11_looks_minimax_m3_mtp_up_as_its_eagle3_gqa_draft():
    from infx.signoff.checks.golden import run as golden_check

    key = block("minimaxm3-fp4-b200-vllm-agentic-mtp", "b200", "vllm", "agentic-coding",
                "{ tp: 4, conc-list: [4], spec-decoding: mtp }").replace("model-prefix: dsv4", "model-prefix: minimaxm3")
    outcome = golden_check(golden_evidence(M3_MASTER, M3_SCRIPT, key), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "minimaxm3_eagle3_gqa.yaml minimax-m3.thinking_on[3] = 2.78" in outcome.reason


def test_check_11_reads_an_acceptance_length_pinned_in_the_master_config_settings():
    from infx.signoff.checks.golden import run as golden_check

    lane = "{ tp: 8, conc-list: [4], spec-decoding: mtp, additional-settings: [\"SGLANG_SIMULATE_ACC_LEN=%s\"] }"
    key = block("dsv4-fp4-b200-sglang-agentic-mtp-acc", "b200", "sglang", "agentic-coding", lane % "2.49")
    outcome = golden_check(golden_evidence(MASTER, DSV4_SCRIPT, key), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "SGLANG_SIMULATE_ACC_LEN=2.49" in outcome.reason and f"{MASTER}:" in outcome.reason
    wrong = block("dsv4-fp4-b200-sglang-agentic-mtp-acc", "b200", "sglang", "agentic-coding", lane % "3.10")
    outcome = golden_check(golden_evidence(MASTER, DSV4_SCRIPT, wrong), SETTINGS)
    assert outcome.status == Status.FAIL and "pins AL 3.10, but the golden value is" in outcome.reason


def test_every_draft_kind_example_is_a_value_of_its_curve():
    from infx.config.policy import draft_kind, golden_refs
    from infx.signoff.rules.policy_reads import policy

    reader = policy(bare_evidence(default_branch_files=trusted_policy_files()))
    doc = reader.doc("golden")
    for row in doc["draft-kinds"]:
        example = row["example"]
        assert draft_kind(doc, row["prefix"], row["method"], None) == (row["is"]["method"], row["is"].get("variant"))
        ref = next(r for r in golden_refs(doc) if r.file == example["curve"])
        assert (ref.prefix, ref.method, ref.variant) == (row["prefix"], row["is"]["method"], row["is"].get("variant"))
        curve = reader.golden_curve(example["curve"])[ref.model_key]
        assert curve[f"thinking_{example['thinking']}"][example["k"]] == example["al"]


def test_true_rejections_stay_on_the_graph_path():
    """A FLOP-reducing override in the key's own script (Check `arch`) and a prohibited draft
    environment in its own CONFIG_FILE recipe (Check `draft`) are still rejected, with their lines."""
    from infx.signoff.checks.arch import run as arch_check
    from infx.signoff.checks.draft import run as draft_check

    override = CHAT_BY_BRANCH + "serve --hf-overrides '{\"num_experts_per_tok\": 4}'\n"
    outcome = arch_check(evidence(**{FIXED: override}), SETTINGS)
    assert outcome.status == Status.FAIL and f"{FIXED}:7" in outcome.reason, outcome.reason
    assert "num_experts_per_tok" in outcome.reason
    moe = BASE[GB200_RECIPE].replace("X: '1'", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: '1'")
    outcome = draft_check(evidence(**{GB200_RECIPE: moe}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"{GB200_RECIPE}:3: SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 lowers draft precision" in outcome.reason
    assert "dsv4-fp4-b200-sglang-mtp:" not in outcome.reason  # charged to the GB200 key only
