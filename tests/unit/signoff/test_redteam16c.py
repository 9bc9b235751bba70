"""Red team 16c: a command variable expanded on the arms of one condition (``either``), an
expansion followed by another endpoint setting, a return or exit before a line, a call's
substitutions, a thinking setting in a function the run may not call."""

from __future__ import annotations

import pytest
from lib.chat_scripts import RAW
from lib.chat_scripts import agentic_config as _config
from lib.chat_scripts import chat_status as _status

from infx.signoff.model import Status
from infx.signoff.rules.scan import text_lines
from infx.signoff.rules.spec_decoding import thinking_mode

CMD = 'cmd=(aiperf profile --endpoint-type chat --url x)\n'
VAR = 'REPLAY_CMD="aiperf profile --endpoint-type chat"\n'
IF_A = 'if [ "$A" = 1 ]; then\n  "${cmd[@]}"\nelse\n'
CHAT = "  aiperf profile --endpoint-type chat --url x\n"


@pytest.mark.parametrize("body", [
    # three arms, two expand it: the elif arm runs raw completions
    CMD + IF_A.replace("else\n", 'elif [ "$B" = 1 ]; then\n  ' + RAW + 'else\n') + '  "${cmd[@]}"\nfi\n',
    # the other arm's "expansion" does not run the client
    CMD + IF_A + '  never() { "${cmd[@]}"; }\n  ' + RAW + 'fi\n',
    CMD + IF_A + '  : "${cmd[@]}"\n  ' + RAW + 'fi\n',
    CMD + IF_A + '  saved=("${cmd[@]}")\n  ' + RAW + 'fi\n',
    CMD + IF_A + '  false && "${cmd[@]}"\n  ' + RAW + 'fi\n',
    CMD + IF_A + '  ' + RAW + '  exit 0\n  "${cmd[@]}"\nfi\n',
    CMD + IF_A + '  ' + RAW + '  ( exit 0; "${cmd[@]}" )\nfi\n',
    # case: the first and last arms expand it, the middle one runs raw completions
    CMD + 'case "$A" in\n  1)\n    "${cmd[@]}"\n    ;;\n  2)\n    ' + RAW + '    ;;\n  *)\n    "${cmd[@]}"\n    ;;\nesac\n',
])
def test_an_expansion_on_some_arms_only_is_no_proof(body):
    assert _status(body) == Status.FAIL


@pytest.mark.parametrize("body", [
    VAR + 'Y="$REPLAY_CMD"\n' + RAW,  # copied, never run
    VAR + ': "$REPLAY_CMD"\n' + RAW,  # a no-op's argument
    VAR + RAW + 'exit 0\n$REPLAY_CMD\n',  # after the script's exit
    'bench() {\n  ' + VAR + '  ' + RAW + '  return 0\n  $REPLAY_CMD\n}\nbench\n',  # after the function's return
])
def test_an_expansion_that_does_not_run_is_no_proof(body):
    assert _status(body) == Status.FAIL


@pytest.mark.parametrize("after", [
    '--endpoint-type "completions"', "--endpoint-type  completions", "--endpoint-type $T",
    "--url http://h:8000/v1/completions",
])
def test_an_endpoint_setting_after_the_expansion_overrides_it(after):
    assert _status(CMD + 'T=completions\n"${cmd[@]}" ' + after + "\n") == Status.FAIL


@pytest.mark.parametrize("ending", [
    "    return 0\n",  # deeper than the body's first line: bash does not care
    "        return 0\n",
    "  :; return 0\n",  # after a plain command on its line
    "  { return 0; }\n",
    "  exit 0\n",  # an exit in a function ends the script
])
def test_a_return_or_exit_before_the_chat_line_whatever_its_form(ending):
    assert _status("bench() {\n  " + RAW + ending + CHAT + "}\nbench\n") == Status.FAIL


@pytest.mark.parametrize("body", [
    CMD + IF_A.replace('"${cmd[@]}"', '"${cmd[@]}" &') + '  "${cmd[@]}"\nfi\n',
    # every arm of an if/elif/else expands it
    CMD + IF_A.replace("else\n", 'elif [ "$B" = 1 ]; then\n  "${cmd[@]}" &\nelse\n') + '  "${cmd[@]}"\nfi\n',
    CMD + '"${cmd[@]}" && curl http://x/v1/completions -d ok\n',  # another command's endpoint
    CMD + '"${cmd[@]}" # not --endpoint-type completions\n',
    # a return that runs only when the list's first half fails, or in a case arm
    "bench() {\n  check ||\n  return 1\n" + CHAT + "}\nbench\n",
    'bench() {\n  [ -n "$X" ] &&\n  return 0\n' + CHAT + "}\nbench\n",
    'bench() {\n  case "$1" in\n  -h)\n  return 0 ;;\n  esac\n' + CHAT + "}\nbench\n",
    "bench() {\n  while true; do\n  ok && break\n  return 1\n  done\n" + CHAT + "}\nbench\n",
    # called in a function's body written before the definition: runs when main runs, after it
    "main() {\n  bench\n}\nbench() {\n" + CHAT + "}\nmain\n",
])
def test_honest_scripts_pass(body):
    assert _status(body) == Status.PASS


def test_a_call_before_the_definition_from_a_function_called_too_early_is_no_proof():
    assert _status("main() {\n  bench\n}\nmain\nbench() {\n" + CHAT + "}\n" + RAW) == Status.FAIL


@pytest.mark.parametrize("call", [
    "run_bench --chat $(echo --no-chat)\n", "run_bench --chat $(true; echo --no-chat)\n",
    "run_bench --chat `echo --no-chat`\n", "run_bench --chat $(echo $(echo --no-chat))\n",
])
def test_a_substitution_in_a_helpers_words_is_not_known(call):
    helper = ('run_bench() {\n  local chat=false\n  while [[ $# -gt 0 ]]; do\n    case $1 in\n'
              '      --chat) chat=true; shift ;;\n      --no-chat) chat=false; shift ;;\n      *) shift ;;\n'
              '    esac\n  done\n  if [ "$chat" = true ]; then\n  ' + CHAT + '  else\n    ' + RAW + '  fi\n}\n')
    assert _status(helper + "run_bench --chat\n") == Status.PASS
    assert _status(helper + call) == Status.FAIL


@pytest.mark.parametrize("call", [
    "trap srv EXIT\n", '"srv"\n', "\\srv\n", "export -f srv\nbash -c srv\n", "true | srv\n",
    "x=$(srv)\n", "{ srv; }\n", "for i in 1; do srv; done\n", "main() {\n  srv\n}\nmain\n",
])
def test_a_thinking_setting_in_a_function_that_may_run_still_counts(call):
    text = ("srv() {\n  vllm serve m --default-chat-template-kwargs '{\"enable_thinking\": false}'\n}\n"
            + call + "aiperf profile --endpoint-type chat\n")
    assert thinking_mode(_config(), text_lines("x.sh", text), {"x.sh": text}) == "off"


@pytest.mark.parametrize("use", [
    'aiperf profile --url "http://$(hostname):8000" $EXTRA\n', "aiperf profile --concurrency $((C * 2)) $EXTRA\n",
    "timeout 3600 aiperf profile $EXTRA\n", 'if aiperf profile $EXTRA; then echo ok; fi\n',
])
def test_an_expansion_among_a_commands_words_reaches_it(use):
    assert _status('EXTRA="--endpoint-type chat"\n' + use) == Status.PASS


@pytest.mark.parametrize("use", ['out=$(aiperf profile $EXTRA\n)\n', 'x=`echo $EXTRA`\n', 'cd /tmp && aiperf profile $EXTRA\n'])
def test_an_expansion_in_a_substitution_or_after_a_list_operator_is_not_read(use):
    assert _status('EXTRA="--endpoint-type chat"\n' + use + RAW) == Status.FAIL  # fails closed


@pytest.mark.parametrize("use", [">&2 echo $REPLAY_CMD\n", "logger $REPLAY_CMD\n", 'cat <<< "$REPLAY_CMD"\n',
                                 "command -v $REPLAY_CMD\n", "X=1 echo $REPLAY_CMD\n"])
def test_an_expansion_handed_to_a_command_that_runs_nothing_is_no_proof(use):
    assert _status(VAR + use + RAW) == Status.FAIL


def test_an_expansion_after_an_environment_setting_still_runs():
    assert _status(VAR + "CUDA_VISIBLE_DEVICES=0 $REPLAY_CMD\n") == Status.PASS
