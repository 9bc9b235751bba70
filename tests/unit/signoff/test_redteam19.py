"""Red team 19: Check chat's defined commands and script ends (c6a57d9), Check patch's install
words and variable folders (60f7586)."""

from __future__ import annotations

import pytest
from lib.chat_scripts import RAW, chat_status
from lib.patching_scripts import scan, scan_with_components

from infx.signoff.model import Status

CHAT = "aiperf profile --endpoint-type chat --url x\n"


# --- Check chat: fixed on rt19 ------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    # the flag reaches the defined command through a variable: the use line runs the definition
    'aiperf() { :; }\nEXTRA="--endpoint-type chat"\naiperf profile -m x $EXTRA\n',
    'shopt -s expand_aliases\nalias aiperf=true\nEXTRA="--endpoint-type chat"\naiperf profile $EXTRA\n',
    # `time -p` runs the function too
    "aiperf() { :; }\ntime -p " + CHAT,
    # "$@" only in a comment hands nothing on
    'aiperf() {\n  : # "$@"\n}\n' + CHAT,
    # a quoted kill of the script, an exit before a pipeline, an exiting call before `;`
    'kill -9 "$$"\n' + CHAT,
    "exit 0; echo x | cat\n" + CHAT,
    "stop() { exit 0; }\nstop; echo done\n" + CHAT,
    "kill $$ &\n" + CHAT,
])
def test_a_client_that_does_not_run_is_no_proof(body):
    assert chat_status(body + RAW) == Status.FAIL


@pytest.mark.parametrize("body", [
    # a background watchdog that kills the script hours later does not end it here
    'watchdog() {\n  sleep 7200\n  echo "timeout" >&2\n  kill $$\n}\nwatchdog &\n' + CHAT,
    "{ sleep 7200; kill -TERM $$; } &\nWATCHDOG_PID=$!\n" + CHAT,
    # a server helper that execs the engine, run in the background
    "start_server() {\n  exec python3 -m sglang.launch_server --model x\n}\nstart_server > server.log 2>&1 &\n" + CHAT,
    "stop() {\n  exit 0\n}\nstop | tee log\n" + CHAT,  # a pipeline's part exits its subshell
    # a helper that takes the client's words positionally hands them on
    'run_client() {\n  aiperf profile $1 --url x\n}\nrun_client "--endpoint-type chat"\n',
    'bench() {\n  aiperf profile "${@:1}"\n}\nbench --endpoint-type chat --url x\n',
])
def test_a_client_that_runs_is_proof(body):
    assert chat_status(body) == Status.PASS


# --- Check chat: not fixed -----------------------------------------------------------------------

@pytest.mark.xfail(strict=True, reason="rt19: a function whose only $@ is a no-op's or an unused "
                   "assignment's, or sits in lines that never run, or that hands its words to a "
                   "swallowing function, is taken to hand them on (false PASS)")
@pytest.mark.parametrize("definition", [
    'aiperf() { : "$@"; }\n',
    'aiperf() { args=("$@"); }\n',
    'aiperf() {\n  return 0\n  command aiperf "$@"\n}\n',
    'real() { :; }\naiperf() {\n  real "$@"\n}\n',
])
def test_a_function_that_drops_its_words_is_not_the_client(definition):
    assert chat_status(definition + CHAT + RAW) == Status.FAIL


@pytest.mark.parametrize("end", [
    # a call of an exiting function behind a prefix, or through another function; a kill of the
    # script's process group
    "stop() { exit 0; }\ntime stop\n",
    "stop() { exit 0; }\nX=1 stop\n",
    "stop() { exit 0; }\n! stop\n",
    "stop() { exit 0; }\nfinish() { stop; }\nfinish\n",
    "stop() {\n  exit 0\n}\nfinish() {\n  echo bye\n  stop\n}\nfinish\n",
    "kill -9 0\n",
    "kill 0\n",
])
def test_other_ends_of_the_script(end):
    assert chat_status(end + CHAT + RAW) == Status.FAIL


@pytest.mark.parametrize("call", [
    "stop() { exit 0; }\nfinish() {\n  return 0\n  stop\n}\nfinish\n",  # returns before the call
    "stop() { exit 0; }\nfinish() {\n  if [ -n \"$X\" ]; then\n    stop\n  fi\n}\nfinish\n",  # only on a condition
    "kill -0 0\n",  # signal 0 only probes
])
def test_a_call_that_may_not_reach_an_exit_goes_on(call):
    assert chat_status(call + CHAT) == Status.PASS


def test_an_alias_a_script_does_not_expand_runs_nothing_of_its_own():
    """A script expands no alias without `shopt -s expand_aliases`; with it, any alias still
    counts as not handing the words on (test_redteam16b)."""
    assert chat_status("alias python=python3\npython -m sglang.bench_serving --apply-chat-template "
                       "--backend sglang-oai-chat\n") == Status.PASS


def test_nohup_runs_the_program_not_the_function():
    assert chat_status("aiperf() { :; }\nnohup " + CHAT.rstrip("\n") + " > log 2>&1 &\n") == Status.PASS


# --- Check patch: fixed on rt19 ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    # the value is more than one word: the marker is another command's
    'SRC=/sgl-workspace/sglang; echo lmcache\ncd "$SRC"\npip install -e .\n',
    # set only after the cd: the environment's value is what is entered
    'cd "$D"\npip install -e .\nD=/tmp/lmcache\n',
    # written again in another form than NAME=literal
    'D=/tmp/lmcache\nD+=/../../sgl-workspace/sglang\ncd "$D"\npip install -e .\n',
    'D=/tmp/lmcache\nread -r D < /tmp/engine_dir\ncd "$D"\npip install -e .\n',
])
def test_a_variable_folder_not_surely_the_components_stays_a_lead(text):
    assert scan_with_components(text), text


@pytest.mark.parametrize("line", [
    # a quoted ; & | is part of a word, not the end of the install
    "pip install \"transformers; python_version>'3.8'\" vllm==0.9.1",
    'pip install --extra-index-url "https://h/simple?a=1&b=2" sglang==0.5.1',
    "pip install 'datasets|x' sglang==0.5.1",
])
def test_a_quoted_list_operator_does_not_end_the_install(line):
    assert scan("benchmarks/run.sh", line), line


# --- Check patch: not fixed ----------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    # an assignment in heredoc text or a function's local is not the file's value; a clone of the
    # engine into a folder named like a component is the engine
    'cat > x.sh <<EOF\nD=/tmp/lmcache\nEOF\ncd "$D"\npip install -e .\n',
    'f() {\n  local D=/tmp/lmcache\n}\ncd "$D"\npip install -e .\n',
    "git clone https://github.com/vllm-project/vllm.git lmcache\ncd lmcache\npip install -e .\n",
])
def test_the_engine_built_in_a_folder_only_named_like_a_component(text):
    assert scan_with_components(text), text
