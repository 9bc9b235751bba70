"""Check `chat`: spec-decode clients go through the chat template."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib import realprs_nvidia
from lib.signoff_policy_support import (
    OPTION_HELPER,
    seed003_with_mtp,
    with_head_file,
    world_evidence,
)

from infx.signoff.checks.chat import run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

RECIPE = "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml"


def test_pass_names_the_signal():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "/v1/chat/completions" in outcome.reason
    assert "agentic.yaml:24" in outcome.reason


def test_fail_on_raw_completions():
    evidence = world_evidence("scenario6")
    text = evidence.head_files[RECIPE].replace("endpoint: /v1/chat/completions", "endpoint: /v1/completions") \
        .replace("args: [--endpoint-type chat, --apply-chat-template]", "args: [--endpoint-type completions]")
    outcome = run(with_head_file(evidence, RECIPE, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "qwen3.5-fp8-mi355x-sglang-agentic-mtp" in outcome.reason
    assert "raw completions" in outcome.reason and RECIPE in outcome.reason


def test_fail_closed_when_client_is_unknown():
    evidence = world_evidence("scenario5")
    script = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"
    text = "\n".join(ln for ln in evidence.head_files[script].splitlines()
                     if "aiperf" not in ln and "chat_template" not in ln) + "\n"
    outcome = run(with_head_file(evidence, script, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason


def test_na_when_draft_size_is_zero():
    outcome = run(world_evidence("seed003"), SETTINGS)
    assert outcome.status == Status.NA
    assert "sets the draft size to 0" in outcome.reason


def test_na_without_spec_decode():
    assert run(world_evidence("scenario9"), SETTINGS).status == Status.NA


def test_fail_closed_without_file_list():
    assert run(world_evidence("seed000", files=None), SETTINGS).status == Status.FAIL


BENCH = "benchmarks/multi_node/amd_utils/bench.sh"


def test_shared_multi_node_helper_adds_the_chat_template_when_mtp_is_on():
    outcome = run(seed003_with_mtp(), SETTINGS)
    assert outcome.status == Status.PASS
    assert "minimaxm3-fp4-mi355x-atom-disagg-mtp" in outcome.reason
    assert f"{BENCH}:4" in outcome.reason and "--use-chat-template" in outcome.reason
    assert 'when [[ "${IS_MTP:-false}" == "true" ]]' in outcome.reason


def test_helper_guard_unrelated_to_spec_decoding_fails():
    outcome = run(seed003_with_mtp('"${IS_MTP:-false}" == "true"', '"$MODEL_NAME" == *Qwen*'), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "the chat template is applied only under" in outcome.reason
    assert "*Qwen*" in outcome.reason and f"{BENCH}:4" in outcome.reason


def test_chat_flag_in_the_else_branch_of_the_mtp_guard_fails():
    outcome = run(seed003_with_mtp('  EXTRA="--use-chat-template"\n',
                                   '  EXTRA=""\nelse\n  EXTRA="--use-chat-template"\n'), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "else of" in outcome.reason


def test_helpers_count_only_for_the_skus_the_policy_names():
    from dataclasses import replace
    evidence = seed003_with_mtp()
    path = "configs/policy/engines.yaml"
    policy = evidence.default_branch_files[path].replace("skus: [mi300x, mi325x, mi355x]", "skus: [mi300x]")
    outcome = run(replace(evidence, default_branch_files={**evidence.default_branch_files, path: policy}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "could not be verified to use a chat template" in outcome.reason


def test_changing_a_shared_helper_affects_the_multi_node_configs():
    from infx.signoff.rules.affected import affected_configs
    evidence = seed003_with_mtp()
    from dataclasses import replace
    settled = replace(evidence, base_files={**evidence.base_files,
                                            "configs/amd-master.yaml": evidence.head_files["configs/amd-master.yaml"]})
    edited = with_head_file(settled, BENCH, settled.head_files[BENCH] + "echo done\n")
    found = {(c.key, c.how) for c in affected_configs(edited)}
    assert ("minimaxm3-fp4-mi355x-atom-disagg-mtp", "shared helper changed") in found
    assert not any(key.endswith("-vllm") for key, _ in found)  # single-node configs do not use it


def with_option_helper(call: str):
    """Seed 003's MTP lanes whose client helper takes the chat template as an option (real
    #1981: ``run_benchmark_serving --dsv4`` sets ``use_chat_template=true`` in
    benchmark_lib.sh's option loop); ``call`` is the rest of the file, which calls it."""
    evidence = seed003_with_mtp()
    return with_head_file(evidence, BENCH, OPTION_HELPER + call)


def test_an_option_the_launch_passes_to_a_helpers_option_loop_applies_the_template():
    outcome = run(with_option_helper('bench --url "$URL" \\\n  --chat\n'), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    # the line that passes the template flag on is the evidence, not the loop's own `chat=true`
    assert f"{BENCH}:17" in outcome.reason and "every call of bench passes" in outcome.reason


def test_a_value_the_helper_sets_again_after_its_option_loop_is_not_the_options():
    """Red-team: the option sets use_chat_template=true, then the helper resets it before testing
    it; the flag line is then never proven (and the loop's own assignment is no evidence)."""
    helper = OPTION_HELPER.replace('    local extra=""\n', '    local extra=""\n    use_chat_template=false\n')
    evidence = with_head_file(seed003_with_mtp(), BENCH, helper + 'bench --url "$URL" --chat\n')
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("call", [
    'bench --url "$URL"\n',  # the option is not passed
    'bench "$@"\n',  # options named at run time
    'bench --url "$URL" --unknown --chat\n',  # an option no arm takes ends the helper first
    'bench --url "$URL" --chat\nbench --url "$URL"\n',  # one of two calls does not pass it
    'if [ "$EVAL_ONLY" = "true" ]; then\n  bench --url "$URL" --chat\nelse\n  bench --url "$URL"\nfi\n',
    '',  # the helper is never called
    'bench() {\n  python3 -m sglang.bench_serving --backend openai\n}\nbench --url "$URL" --chat\n',  # redefined
])
def test_a_helpers_option_loop_proves_nothing_without_every_call_passing_the_option(call):
    outcome = run(with_option_helper(call), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason
    assert "minimaxm3-fp4-mi355x-atom-disagg-mtp" in outcome.reason


def test_the_throughput_call_is_the_one_that_counts():
    call = 'if [ "$EVAL_ONLY" = "true" ]; then\n  bench --url "$URL"\nelse\n  bench --url "$URL" --chat\nfi\n'
    assert run(with_option_helper(call), SETTINGS).status == Status.PASS


def test_a_spec_config_reached_only_through_a_changed_shared_file_is_judged_by_what_the_pr_changes(monkeypatch):
    """A spec-decode config affected only through a shared file the PR changed, which its plan
    does not sweep, is not what the PR submits: a launch that lacked the chat template already
    at base is not held against the PR, but a shared-file change that takes the template away
    fails (red team 3: a helper-only PR could drop it for every config behind the helper)."""
    from dataclasses import replace

    from infx.signoff.checks import chat
    from infx.signoff.rules.affected import affected_configs
    from infx.signoff.swept import SHARED_ONLY

    evidence = seed003_with_mtp('"${IS_MTP:-false}" == "true"', '"$MODEL_NAME" == *Qwen*')
    real = affected_configs(evidence)
    monkeypatch.setattr(chat, "affected_configs", lambda _: [replace(c, how=SHARED_ONLY) for c in real])
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: [])
    taken = run(evidence, SETTINGS)
    assert taken.status == Status.FAIL, taken
    assert "takes away the chat template its launch used at base" in taken.reason
    already = replace(evidence, base_files={**evidence.base_files, BENCH: evidence.head_files[BENCH]})
    assert run(already, SETTINGS).status == Status.NA  # as it was at base: not this PR's doing
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: [c.key for c in real])
    assert run(already, SETTINGS).status == Status.FAIL  # swept: judged on its own


def test_a_chat_variable_set_in_one_branch_and_cleared_in_the_other_is_evidence():
    """`EXTRA="--use-chat-template"` under the MTP test and `EXTRA=""` in its else: the else
    never runs for a spec config, so the client still gets the flag; clearing it after the
    `fi` takes it away."""
    evidence = seed003_with_mtp()
    text = evidence.head_files[BENCH]
    assert 'EXTRA="--use-chat-template"\nfi\n' in text
    branches = text.replace('EXTRA="--use-chat-template"\nfi\n', 'EXTRA="--use-chat-template"\nelse\n  EXTRA=""\nfi\n')
    assert run(with_head_file(evidence, BENCH, branches), SETTINGS).status == Status.PASS
    cleared = text.replace('EXTRA="--use-chat-template"\nfi\n', 'EXTRA="--use-chat-template"\nfi\nEXTRA=""\n')
    assert run(with_head_file(evidence, BENCH, cleared), SETTINGS).status == Status.FAIL


SCENARIO5_SCRIPT = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"
_SERVER = ('python -m atom.entrypoints.openai_server --model "$MODEL" -tp 8 \\\n'
           '  --kv_cache_dtype fp8 --method mtp --num-speculative-tokens 3 \\\n'
           '  --spec-decode-acceptance-length 2.99 &\n')
_EVAL = ('run_lm_eval() {\n  local base="http://0.0.0.0:${PORT}/v1/chat/completions"\n'
         '  lm_eval --model local-chat-completions --apply_chat_template --model_args "base_url=$base"\n}\n')


def _with_script(body: str):
    evidence = world_evidence("scenario5")
    return run(with_head_file(evidence, SCENARIO5_SCRIPT, "#!/usr/bin/env bash\n" + body), SETTINGS)


def test_the_accuracy_evals_chat_template_is_not_the_benchmark_clients():
    """Real #2611 and the agentic configs of 87 merged PRs: the only chat endpoint the check
    had found was run_lm_eval's (benchmark_lib.sh), which only the eval-only run calls; with
    the replay client's lines emptied the config still passed."""
    eval_only = _EVAL + _SERVER + ('if [ "${EVAL_ONLY}" = "true" ]; then\n  run_lm_eval\nelse\n'
                                   '  aiperf profile --endpoint /v1/completions\nfi\n')
    outcome = _with_script(eval_only)
    assert outcome.status == Status.FAIL and "raw completions" in outcome.reason, outcome
    # a function nobody calls is never evidence either
    assert _with_script(_EVAL + _SERVER + "aiperf profile --url x\n").status == Status.FAIL
    # the same function on the throughput path is
    assert _with_script(_EVAL + _SERVER + "run_lm_eval\n").status == Status.PASS


def test_a_chat_flag_in_a_function_whose_call_is_not_known_is_no_proof():
    # "$CLIENT" may name any function: whether run_lm_eval runs is not known
    outcome = _with_script(_EVAL + _SERVER + '"$CLIENT" --port 1\n')
    assert outcome.status == Status.FAIL, outcome
    assert "inside the shell function" in outcome.reason and "run_lm_eval" in outcome.reason
    assert "could not be shown to call" in outcome.reason


def test_a_command_variable_extended_with_plus_equals_keeps_the_chat_flag():
    """benchmark_lib.sh's build_replay_cmd: REPLAY_CMD+=" --endpoint-type chat", more
    REPLAY_CMD+= lines, then $REPLAY_CMD runs: the flag reaches the client."""
    built = _SERVER + ('REPLAY_CMD="aiperf profile"\nREPLAY_CMD+=" --endpoint-type chat"\n'
                       'REPLAY_CMD+=" --streaming"\n$REPLAY_CMD\n')
    assert _with_script(built).status == Status.PASS
    # set anew afterwards (not extended): the flag is gone
    reset = built.replace('REPLAY_CMD+=" --streaming"', 'REPLAY_CMD="aiperf profile --streaming"')
    assert _with_script(reset).status == Status.FAIL


def test_a_command_array_expanded_on_both_arms_of_a_condition_reaches_the_client():
    """benchmark_lib.sh's run_benchmark_serving: ``"${benchmark_cmd[@]}" &`` when a server pid
    is given, else ``"${benchmark_cmd[@]}"``: one of the two runs whichever way the test goes."""
    built = _SERVER + ('cmd=(aiperf profile)\ncmd+=(--endpoint-type chat)\n'
                       'if [[ -n "$SERVER_PID" ]]; then\n  "${cmd[@]}" &\nelse\n  "${cmd[@]}"\nfi\n')
    assert _with_script(built).status == Status.PASS
    # on one arm only: whether it runs is not known
    one_arm = built.replace('else\n  "${cmd[@]}"\n', 'else\n  echo "${cmd[@]}"\n')
    assert _with_script(one_arm).status == Status.FAIL


def test_an_expansion_that_adds_a_raw_setting_after_the_chat_flag_is_no_proof():
    built = _SERVER + 'cmd=(aiperf profile)\ncmd+=(--endpoint-type chat)\n"${cmd[@]}" --endpoint-type completions\n'
    assert _with_script(built).status == Status.FAIL
    assert _with_script(built.replace(" --endpoint-type completions", " --streaming")).status == Status.PASS


# srt-slurm's sa-bench applies the chat template unless a recipe turns it off (engines.yaml
# chat-template-defaults); real recipes of two merged PRs (tests/data/realprs_nvidia)
GLM_RECIPE = "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/gb200-fp4/glm5-mtp.yaml"


def _corpus_chat(number: int, path: str | None = None, edit=None):
    evidence = realprs_nvidia.pr_evidence(realprs_nvidia.load(number))
    if path is not None:
        evidence = with_head_file(evidence, path, edit(evidence.head_files[path]))
    return run(evidence, SETTINGS)


@pytest.mark.parametrize("number", [2218, 2115])
def test_an_sa_bench_recipe_that_leaves_the_setting_unset_uses_the_harness_default(number):
    outcome = _corpus_chat(number)
    assert outcome.status == Status.PASS
    assert "srt-slurm's benchmark.use_chat_template default (true)" in outcome.reason


@pytest.mark.parametrize("edit", [
    # the setting written (false), in the base section or in one variant
    lambda text: text.replace("    type: sa-bench\n", "    type: sa-bench\n    use_chat_template: false\n", 1),
    lambda text: text.replace("    concurrencies: [[109], [398], [853], [2132]]\n",
                              "    concurrencies: [[109], [398], [853], [2132]]\n    use-chat-template: false\n", 1),
    # a variant that runs another client, or a section the rule does not know
    lambda text: text.replace("    concurrencies: [[109], [398], [853], [2132]]\n",
                              "    concurrencies: [[109], [398], [853], [2132]]\n    type: gsm8k\n", 1),
    lambda text: text.replace("zip_override_mtp_8k1k_lowlat:", "extra:\n  x: 1\nzip_override_mtp_8k1k_lowlat:", 1),
    # a recipe YAML cannot read
    lambda text: text + "\n  - [unclosed\n",
], ids=["base-false", "variant-false", "variant-client", "unknown-section", "invalid-yaml"])
def test_the_harness_default_is_not_taken_where_the_recipe_may_decide_otherwise(edit):
    outcome = _corpus_chat(2115, GLM_RECIPE, edit)
    assert outcome.status == Status.FAIL
    assert "could not be verified to use a chat template" in outcome.reason


LAUNCHER_2115 = "runners/launch_gb200-nv.sh"


@pytest.mark.parametrize("line", [
    'sed -i "s/type: sa-bench/&\\n    use_chat_template: false/" "${CONFIG_FILE%%:*}"',
    'echo "  use_chat_template: false" >> "$CONFIG_PATH"',
    'yq -i \'.base.benchmark.use_chat_template = false\' "$CONFIG_PATH"',
    'eval "$EDIT use_chat_template"',
    "python3 - <<'PY'\nopen('r.yaml', 'a').write('use_chat_template: false')\nPY",
])
def test_a_launch_line_that_may_set_the_setting_keeps_the_default_from_counting(line):
    outcome = _corpus_chat(2115, LAUNCHER_2115, lambda text: text + line + "\n")
    assert outcome.status == Status.FAIL
    assert "srt-slurm's" not in outcome.reason


def test_shell_lines_that_only_name_the_setting_leave_the_default_standing():
    helper = ("bench() {\n    local use_chat_template=false\n    while [[ $# -gt 0 ]]; do\n        case $1 in\n"
              "            --use-chat-template) use_chat_template=true; shift ;;\n            *) shift ;;\n"
              "        esac\n    done\n    if [[ \"$use_chat_template\" == true ]]; then\n"
              "        cmd+=(--use-chat-template)\n    fi\n}\n")
    outcome = _corpus_chat(2115, LAUNCHER_2115, lambda text: text + helper)
    assert outcome.status == Status.PASS
    assert "srt-slurm's benchmark.use_chat_template default (true)" in outcome.reason


def test_without_the_trusted_rule_nothing_is_taken_as_a_default():
    evidence = realprs_nvidia.pr_evidence(realprs_nvidia.load(2218))
    engines = "configs/policy/engines.yaml"
    text = evidence.default_branch_files[engines]
    trimmed = text[:text.index("# Benchmark harnesses that apply the chat template")]
    evidence = replace(evidence, default_branch_files={**evidence.default_branch_files, engines: trimmed})
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "could not be verified to use a chat template" in outcome.reason


_CHAT_LINE = "aiperf profile --endpoint-type chat --url x\n"
_RAW_LINE = "aiperf profile --endpoint /v1/completions\n"
_BENCH = "bench() {\n  " + _CHAT_LINE + "}\n"


@pytest.mark.parametrize("body", [
    "exec " + _RAW_LINE + _CHAT_LINE,  # the shell becomes the raw client: the chat line never runs
    "bench() {\n  exec " + _RAW_LINE + "  " + _CHAT_LINE + "}\nbench\n",
    _BENCH + "exec -a client " + _RAW_LINE + "bench\n",  # the call comes after the exec
])
def test_a_chat_line_after_an_exec_of_another_command_is_no_proof(body):
    assert _with_script(_SERVER + body).status == Status.FAIL


@pytest.mark.parametrize("body", [
    "exec >log 2>&1\n" + _CHAT_LINE,  # an exec of redirections only: the script goes on
    "exec 3<input\n" + _CHAT_LINE,
    "exec " + _CHAT_LINE,
    _BENCH + "bench\nexec sleep 1\n",
])
def test_an_exec_that_does_not_come_before_the_chat_line_still_passes(body):
    assert _with_script(_SERVER + body).status == Status.PASS


@pytest.mark.parametrize("opening", [": '", ': "', "true '", 'echo "', "echo -e '"])
def test_a_chat_line_inside_a_multi_line_string_a_no_op_or_print_is_given_is_no_proof(opening):
    """``: '`` … ``'`` (the block-comment idiom) and ``echo "`` … ``"``: the lines between are
    the words of a command that runs nothing, not commands."""
    quote = opening[-1]
    body = f"{opening}\n{_CHAT_LINE}{quote}\n{_RAW_LINE}"
    assert _with_script(_SERVER + body).status == Status.FAIL
    # the same string closed on its own line: the chat line after it is a command
    assert _with_script(_SERVER + f"{opening}\nnotes\n{quote}\n{_CHAT_LINE}").status == Status.PASS


@pytest.mark.parametrize("test", ['[[ "nomtp" == "mtp" ]]', "[ 1 -eq 0 ]", "[[ mtp == 'm*' ]]"])
def test_a_condition_of_two_written_words_is_decided_as_bash_does(test):
    """A test between two written words has one value whatever the row: false here, so the
    chat client under it never runs (its spec-looking text proves nothing)."""
    body = f"if {test}; then\n  {_CHAT_LINE}fi\n"
    assert _with_script(_SERVER + body).status == Status.FAIL
    true_test = test.replace('"nomtp"', '"mtp"').replace("-eq 0", "-eq 1").replace("'m*'", "m*")
    assert _with_script(_SERVER + f"if {true_test}; then\n  {_CHAT_LINE}fi\n").status == Status.PASS


@pytest.mark.parametrize("body", [
    "true || {\n  " + _CHAT_LINE + "}\n",  # a group that runs only when `true` fails
    "false && {\n  " + _CHAT_LINE + "}\n",
    _BENCH + "check || {\n  bench\n}\n",  # the chat function called only in such a group
])
def test_a_chat_line_in_a_group_after_a_list_operator_is_no_proof(body):
    assert _with_script(_SERVER + body + _RAW_LINE).status == Status.FAIL


def test_a_plain_group_and_an_error_handler_before_the_chat_line_leave_it_proof():
    assert _with_script(_SERVER + "{\n  " + _CHAT_LINE + "}\n").status == Status.PASS
    assert _with_script(_SERVER + "check || {\n  echo failed\n  exit 1\n}\n" + _CHAT_LINE).status == Status.PASS
