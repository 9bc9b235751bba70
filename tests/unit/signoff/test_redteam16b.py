"""Red team 16b: a chat flag in a function the throughput run may not call, a disaggregated
recipe's decode draft length, the thinking mode, whole-name launch-file matching."""

from __future__ import annotations

import pytest
from lib.chat_scripts import BENCH, RAW, SCRIPT, SETTINGS, agentic_config, chat_status
from lib.signoff_policy_support import with_head_file, world_evidence

from infx.signoff.model import Status
from infx.signoff.rules.scan import function_spans, text_lines
from infx.signoff.rules.spec_decoding import draft_length, thinking_mode

_status = chat_status
_config = agentic_config


def test_a_called_chat_function_still_passes():
    assert _status(BENCH + "bench\n") == Status.PASS
    assert _status('bench() (\n  aiperf profile --endpoint-type chat --url x\n)\nbench\n') == Status.PASS
    # an array's words expanded whole reach the client
    assert _status('cmd=(aiperf profile)\ncmd+=(--endpoint-type chat)\n"${cmd[@]}"\n') == Status.PASS


@pytest.mark.parametrize("call", [
    "if false; then bench; fi\n",  # a condition the launch graph does not decide
    "false && bench\n",  # after a list operator
    "while false; do bench; done\n",  # a loop body that may not run
    "[ 1 = 2 ] && bench\n",
    "exit 0\nbench\n",  # after the script's exit
])
def test_a_call_that_may_not_run_is_no_proof(call):
    assert _status(BENCH + call + RAW) == Status.FAIL


@pytest.mark.parametrize("body", [
    # the later definition is what bash runs
    BENCH + 'bench() {\n  aiperf profile --endpoint /v1/completions\n}\nbench\n',
    'bench() { aiperf profile --endpoint-type chat; }\nbench() { aiperf profile --endpoint /v1/completions; }\nbench\n',
    BENCH + "unset -f bench\nbench 2>/dev/null || " + RAW,
    BENCH + "shopt -s expand_aliases\nalias bench='aiperf profile --endpoint /v1/completions'\nbench\n",
    # called before it is defined: "command not found"
    "bench\n" + BENCH + RAW,
])
def test_a_function_bash_may_not_run_as_defined_is_no_proof(body):
    assert _status(body) == Status.FAIL


@pytest.mark.parametrize("definition", [
    "bench() { aiperf profile --endpoint-type chat; }\n",  # one-line body
    "function bench {\n  aiperf profile --endpoint-type chat --url x\n}\n",
    "bench() (\n  aiperf profile --endpoint-type chat --url x\n)\n",  # subshell body
    # nested: calling outer only defines inner
    "outer() {\n  inner() {\n    aiperf profile --endpoint-type chat --url x\n  }\n  true\n}\nouter\n",
])
def test_every_form_of_function_body_is_a_function_nobody_calls(definition):
    assert _status(definition + RAW) == Status.FAIL


def test_function_spans_read_every_form():
    text = ("a() {\n  b() {\n    x\n  }\n}\nc() { z; }\nfunction d {\n q\n}\ne() (\n  w\n)\n")
    assert function_spans(text) == (("a", 1, 5), ("b", 2, 4), ("c", 6, 6), ("d", 7, 9), ("e", 10, 12))


def test_a_chat_line_after_the_scripts_exit_is_no_proof():
    assert _status("exit 0\naiperf profile --endpoint-type chat --url x\n") == Status.FAIL


@pytest.mark.parametrize("body", [
    # the flag is what the expansion removes
    'REPLAY_CMD="aiperf profile"\nREPLAY_CMD+=" --endpoint-type chat"\n'
    'REPLAY_CMD="${REPLAY_CMD/--endpoint-type chat/}"\n$REPLAY_CMD\n',
    # expanded only where it is printed, in a function nobody calls, under an undecided condition
    'REPLAY_CMD="aiperf profile --endpoint-type chat"\necho $REPLAY_CMD\n' + RAW,
    'REPLAY_CMD="aiperf profile --endpoint-type chat"\nnever() {\n  $REPLAY_CMD\n}\n' + RAW,
    'REPLAY_CMD="aiperf profile --endpoint-type chat"\nif false; then\n  $REPLAY_CMD\nfi\n' + RAW,
])
def test_a_command_variable_that_does_not_reach_the_client_is_no_proof(body):
    assert _status(body) == Status.FAIL


def test_a_return_before_the_chat_line():
    assert _status('bench() {\n  return 0\n  aiperf profile --endpoint-type chat --url x\n}\nbench\n' + RAW) \
        == Status.FAIL
    # a return that runs only on failure (an if, a `|| {` block) leaves the line reachable
    for failing in ('  if [ -z "$URL" ]; then\n    return 1\n  fi\n', '  check || {\n    return 1\n  }\n'):
        script = 'bench() {\n' + failing + '  aiperf profile --endpoint-type chat --url x\n}\nbench\n'
        assert _status(script) == Status.PASS, failing


@pytest.mark.parametrize("loop", ["while false; do\n  bench\ndone\n", "until true\ndo\n  bench\ndone\n",
                                  "while [ 1 = 2 ]; do\n  bench\ndone\n"])
def test_a_call_in_a_multi_line_loop_that_never_runs(loop):
    assert _status(BENCH + loop + RAW) == Status.FAIL


@pytest.mark.parametrize("loop", ["for c in 1 2; do\n  bench\ndone\n", "while true; do\n  bench\n  break\ndone\n",
                                  'for i in "${!CONCURRENCIES[@]}"; do\n  bench\ndone\n'])
def test_a_call_in_a_loop_that_runs_or_a_for_loop_is_proof(loop):
    assert _status(BENCH + loop) == Status.PASS


def test_a_later_endpoint_type_overrides_the_chat_one():
    assert _status('REPLAY_CMD="aiperf profile"\nREPLAY_CMD+=" --endpoint-type chat"\n'
                   'REPLAY_CMD+=" --endpoint-type completions"\n$REPLAY_CMD\n') == Status.FAIL


RECIPE = "benchmarks/multi_node/srt-slurm-recipes/sglang/x/disagg.yaml"


def _length(recipe: str) -> int | None:
    return draft_length("sglang", text_lines(RECIPE, recipe), {RECIPE: recipe})


@pytest.mark.parametrize("recipe", [
    # decode sets none (the engine's default runs): the prefill's 1 is not decode's
    "backend:\n  sglang_config:\n    prefill:\n      speculative-num-steps: 1\n    decode:\n      tp: 8\n",
    # decode's value on the next line, which the line reader does not see
    "prefill:\n  speculative-num-steps: 1\ndecode:\n  speculative-num-steps:\n    3\n",
    # a decode entry inside the prefill's
    "prefill:\n  speculative-num-steps: 1\n  decode:\n    speculative-num-steps: 4\ndecode:\n  speculative-num-steps: 3\n",
    # decode says two lengths: a flag in a block scalar and a key, a key's text in a string
    "decode:\n  extra: |\n    --speculative-num-steps 5\n  speculative-num-steps: 3\n",
    "prefill:\n  speculative-num-steps: 1\ndecode:\n  name: \"speculative-num-steps: 7\"\n  speculative-num-steps: 3\n",
    "prefill:\n  speculative-num-steps: 1\ndecode:\n  speculative_num_steps: 2\n  speculative-num-steps: 3\n",
])
def test_a_decode_draft_length_that_is_not_clear_reads_nothing(recipe):
    assert _length(recipe) is None


def test_a_clear_decode_draft_length_is_read():
    assert _length("prefill:\n  speculative-num-steps: 1  # speculative-num-steps: 9\n"
                   "decode:\n  # speculative-num-steps: 5\n  speculative-num-steps: 3\n") == 3
    assert _length("prefill:\r\n  speculative-num-steps: 1\r\ndecode:\r\n  speculative-num-steps: 3\r\n") == 3


def test_thinking_mode_ignores_printed_lines_and_does_not_pick_between_disagreeing_settings():
    assert thinking_mode(_config(), text_lines("x.sh", 'echo "enable_thinking=false"\nvllm serve\n')) == "on"
    both = ("lm_eval --gen_kwargs enable_thinking=false\n"
            "aiperf --extra-inputs '{\"chat_template_kwargs\": {\"enable_thinking\": true}}'\n")
    assert thinking_mode(_config(), text_lines("x.sh", both)) is None


def test_thinking_set_only_for_the_accuracy_eval():
    """A setting in a function the throughput run never calls is not the benchmark's (the
    launch files given); one it may call still counts (then the settings disagree: unknown)."""
    eval_only = "run_lm_eval() {\n  lm_eval --gen_kwargs enable_thinking=false\n}\naiperf profile\n"
    assert thinking_mode(_config(), text_lines("x.sh", eval_only), {"x.sh": eval_only}) == "on"
    called = eval_only + 'if [ "$X" = 1 ]; then run_lm_eval; fi\n'
    assert thinking_mode(_config(), text_lines("x.sh", called), {"x.sh": called}) == "off"


def test_check_golden_fails_when_the_thinking_mode_is_not_known():
    from infx.signoff.checks import golden

    evidence = world_evidence("scenario5")
    text = evidence.head_files[SCRIPT]
    assert '"enable_thinking": true' in text
    both = text + 'lm_eval --gen_kwargs enable_thinking=false\n'
    assert golden.run(evidence, SETTINGS).status == Status.PASS
    outcome = golden.run(with_head_file(evidence, SCRIPT, both), SETTINGS)
    assert outcome.status == Status.FAIL and "thinking mode could not be read" in outcome.reason, outcome


def test_an_exit_in_a_block_that_runs_on_failure_does_not_end_the_script():
    """``wait_for_server || {`` … ``exit 1`` … ``}``: the benchmark after it runs when the
    server came up; only an exit at the start of a line, outside functions and conditions,
    ends the script for the lines after it."""
    failure = "wait_for_server || {\n    echo down\n    exit 1\n}\naiperf profile --endpoint-type chat --url x\n"
    assert _status(failure) == Status.PASS


@pytest.mark.parametrize("body", [
    # a function of the client's name: the line runs it, not the client
    "aiperf() { :; }\naiperf profile --endpoint-type chat --url x\n",
    "aiperf() {\n  true\n}\naiperf profile --endpoint-type chat --url x\n",
    "function aiperf {\n  return 0\n}\ntime aiperf profile --endpoint-type chat --url x > log 2>&1 &\n",
    "aiperf() { :; }\nOUT=$(aiperf profile --endpoint-type chat --url x)\n",
    "aiperf() { :; }\ncd /tmp && aiperf profile --endpoint-type chat --url x\n",
    # an alias of that name
    "shopt -s expand_aliases\nalias aiperf=true\naiperf profile --endpoint-type chat --url x\n",
    # a function that only prints its words
    'aiperf() { echo "$@"; }\naiperf profile --endpoint-type chat --url x\n',
    'aiperf() {\n  printf "%s\\n" "$*"\n}\naiperf profile --endpoint-type chat --url x\n',
])
def test_a_command_the_launch_defines_itself_is_not_the_client(body):
    assert _status(body + RAW) == Status.FAIL


def test_a_wrapper_that_skips_functions_runs_the_client():
    # `command` and `exec` never run a shell function: the program of that name runs
    assert _status("aiperf() { :; }\ncommand aiperf profile --endpoint-type chat --url x\n") == Status.PASS
    # a function of another name leaves the client's lines alone
    assert _status("other() { :; }\naiperf profile --endpoint-type chat --url x\n") == Status.PASS
    # a helper that hands its words to the client passes them on
    assert _status('bench() {\n  aiperf profile "$@"\n}\nbench --endpoint-type chat --url x\n') == Status.PASS


@pytest.mark.parametrize("end", ["kill $$\n", "kill -9 $$\n", "kill -s KILL -- -$$\n", "eval 'exit 0'\n",
                                 'eval "exit 0"\n', "eval exit 3\n"])
def test_a_kill_of_the_script_or_an_eval_that_exits_ends_it(end):
    assert _status(end + "aiperf profile --endpoint-type chat --url x\n" + RAW) == Status.FAIL


@pytest.mark.parametrize("command", ["kill -0 $$\n", "kill $SERVER_PID\n", 'eval "$(python3 -c x)"\n',
                                     'eval "$CMD"\n'])
def test_a_kill_of_another_process_or_an_eval_of_other_words_goes_on(command):
    assert _status(command + "aiperf profile --endpoint-type chat --url x\n") == Status.PASS


@pytest.mark.parametrize("stop", [
    "stop() { exit 0; }\nstop\n",
    "function stop { exit 0; }\nstop\n",
    "stop() {\n  exit 0\n}\nstop\n",
    'stop() {\n  echo "bye"\n  exit 0\n}\nstop "now"\n',
    "stop() {\n  kill $$\n}\nstop\n",
])
def test_a_call_of_a_function_that_exits_ends_the_script(stop):
    assert _status(stop + "aiperf profile --endpoint-type chat --url x\n" + RAW) == Status.FAIL


@pytest.mark.parametrize("call", [
    'die() {\n  echo "$*" >&2\n  exit 1\n}\n[ -z "$X" ] && die "no X"\n',  # runs only on failure
    'die() {\n  exit 1\n}\nif [ -z "$X" ]; then\n  die x\nfi\n',
    "r() {\n  return 0\n  exit 1\n}\nr\n",  # returns first
    "stop() { exit 0; }\n",  # never called
    "stop\nstop() { exit 0; }\n",  # called before it is defined
    'f() {\n  if [ -n "$A" ]; then\n    exit 1\n  fi\n}\nf\n',  # exits only on a condition
    "f() ( exit 0 )\nf\n",  # a subshell body: its exit ends the subshell
    "f() (\n  exit 0\n)\nf\n",
])
def test_a_call_of_a_function_that_may_not_exit_goes_on(call):
    assert _status(call + "aiperf profile --endpoint-type chat --url x\n") == Status.PASS


@pytest.mark.parametrize("guard", [
    '[ "$SPEC" = never ]',  # names spec decoding, never holds
    '[ "$USE_EAGLE" = "1" ]',  # a setting the launch does not decide
    '[[ "$DRAFT_MODEL" == *nothing* ]]',
])
def test_a_condition_the_launch_does_not_decide_is_no_proof_whatever_it_names(guard):
    outcome_status = _status(f"if {guard}; then\n  aiperf profile --endpoint-type chat --url x\nfi\n" + RAW)
    assert outcome_status == Status.FAIL


@pytest.mark.parametrize("guard", ['[ "$IS_MTP" = "true" ]', '[ "${SPEC_DECODING}" != "none" ]',
                                   '[ "${EVAL_ONLY:-false}" != "true" ]'])
def test_a_condition_the_launch_decides_for_a_spec_config_holds(guard):
    assert _status(f"if {guard}; then\n  aiperf profile --endpoint-type chat --url x\nfi\n") == Status.PASS
