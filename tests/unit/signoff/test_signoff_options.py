"""What a shell function's option loop sets for its calls (infx.signoff.rules.options)."""

from __future__ import annotations

import pytest

from infx.plan.launch_graph import Branch
from infx.signoff.rules import options
from infx.signoff.rules.scan import Line, shell_guards

HELPER = """f() {
    local chat=false
    local mode=plain
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --model) model="$2"; shift 2 ;;
            --chat|-c) chat=true; shift ;;
            --dsv4) mode=dsv4; chat=true; shift ;;
            --x*) mode=x; shift ;;
            --loose) chat=true ;;
            *) shift ;;
        esac
    done
    if [[ "$chat" == true ]]; then
        echo chat
    fi
}
g() {
    echo "$1"
}
"""


def test_the_loop_its_arms_and_defaults_are_read():
    (loop,) = options.option_loops(HELPER)
    assert (loop.function, loop.case_line, loop.end_line) == ("f", 5, 13)
    assert dict(loop.defaults) == {"chat": "false", "mode": "plain"}
    assert [a.patterns for a in loop.arms] == [("--model",), ("--chat", "-c"), ("--dsv4",), ("--x*",),
                                              ("--loose",), ("*",)]
    assert [a.consumes for a in loop.arms] == [2, 1, 1, 1, None, 1]
    assert loop.arms[0].sets == (("model", None),)  # computed at run time
    assert options.loop_at(HELPER, 15) is loop and options.loop_at(HELPER, 19) is None


def test_a_call_selects_the_first_matching_arm_and_skips_option_values():
    (loop,) = options.option_loops(HELPER)
    result = options.run(loop, ('--model', '"--chat"', "--dsv4"))
    assert result is not None and result.arms == {0, 2}  # "--chat" is --model's value
    assert dict(result.values) == {"chat": "true", "mode": "dsv4"}
    assert dict(options.run(loop, ("--xyz", "-c")).values) == {"chat": "true", "mode": "x"}
    assert dict(options.run(loop, ()).values) == {"chat": "false", "mode": "plain"}


def test_what_the_loop_cannot_be_followed_through_is_unknown():
    (loop,) = options.option_loops(HELPER)
    assert options.run(loop, ('"$@"',)) is None  # options named at run time
    assert options.run(loop, ("--loose",)) is None  # an arm that does not say how far it shifts


def test_a_guard_after_the_loop_holds_only_when_every_call_sets_its_value():
    (loop,) = options.option_loops(HELPER)
    guards = shell_guards(HELPER, 15)
    chat, plain = options.run(loop, ("--chat",)), options.run(loop, ())
    assert options.guards_hold(loop, 15, guards, [chat], Branch()) == (guards, True)
    assert options.guards_hold(loop, 15, guards, [chat, plain], Branch()) == (guards, False)
    assert options.guards_hold(loop, 15, guards, [], Branch())[1] is False


def test_a_line_in_an_arm_holds_when_every_call_takes_that_arm():
    (loop,) = options.option_loops(HELPER)
    guards = shell_guards(HELPER, 8)  # the --dsv4 arm, after two arms it is not
    decided, holds = options.guards_hold(loop, 8, guards, [options.run(loop, ("--dsv4",))], Branch())
    assert len(decided) == 3 and holds
    assert options.guards_hold(loop, 8, guards, [options.run(loop, ("--chat",))], Branch())[1] is False


def test_calls_are_read_from_the_launch_lines_on_the_branch_they_run():
    script = ('source lib.sh\nif [ "$EVAL_ONLY" = "true" ]; then\n  f --model m\nelse\n'
              '  f --model m \\\n    --chat 2>&1 | tee log\nfi\n')
    texts = {"run.sh": script, "lib.sh": HELPER}
    lines = [Line("run.sh", n, t) for n, t in enumerate(script.splitlines(), 1)]
    assert options.calls(texts, lines, "f", Branch(eval_only=False)) == [("--model", "m", "--chat")]
    assert options.calls(texts, lines, "f", Branch(eval_only=True)) == [("--model", "m")]
    assert options.calls(texts, lines[:4], "f", Branch()) == []  # only the lines the launch runs count
    assert options.calls(texts, lines, "g", Branch()) == []


THROUGHPUT = Branch()


def _calls_of_script(script: str, branch: Branch = THROUGHPUT) -> list[tuple[str, ...]] | None:
    texts = {"run.sh": script, "lib.sh": HELPER}
    lines = [Line(path, n, t) for path, text in texts.items() for n, t in enumerate(text.splitlines(), 1)]
    return options.calls(texts, lines, "f", branch)


def test_calls_in_functions_count_only_when_the_launch_runs_those_functions():
    runner = "run() {\n  f --chat\n}\n"
    assert _calls_of_script(runner + "run\n") == [("--chat",)]  # called at top level
    assert _calls_of_script(runner + "outer() {\n  run\n}\nouter\n") == [("--chat",)]  # through another
    assert _calls_of_script(runner) == []  # never called: its call never runs
    assert _calls_of_script(runner + "outer() {\n  run\n}\n") == []  # called only from dead code
    assert _calls_of_script("run() {\n  f --chat\n  run\n}\n") == []  # only by itself
    # a dead function's call does not count against the live ones either
    assert _calls_of_script("spare() {\n  f\n}\nf --chat\n") == [("--chat",)]

    # a call the command's operator ends (real #2533: ``run_bench_and_eval; BENCH_RC=$?``)
    assert _calls_of_script(runner + "run; rc=$?\n") == [("--chat",)]
    assert _calls_of_script(runner + "run && echo ok\n") == [("--chat",)]


def test_calls_in_functions_whose_running_is_not_known_are_unknown():
    runner = "run() {\n  f --chat\n}\n"
    assert _calls_of_script(runner + "trap run EXIT\n") is None  # named, not read as a call
    assert _calls_of_script(runner + 'name=r; "${name}un"\n') is None  # a command named at run time
    assert _calls_of_script(runner + "eval \"$CMD\"\n") is None
    assert _calls_of_script("a() {\n  b\n}\nb() {\n  a\n  f --chat\n}\n") == []  # a cycle nobody enters
    # the call that makes a function run is taken only on the branch it runs on
    guarded = runner + 'if [ "$EVAL_ONLY" = "true" ]; then\n  run\nfi\n'
    assert _calls_of_script(guarded, Branch(eval_only=True)) == [("--chat",)]
    assert _calls_of_script(guarded, Branch(eval_only=False)) == []


def test_a_function_without_an_option_loop_has_none():
    assert options.option_loops("g() {\n  case $1 in\n    a) x=1 ;;\n  esac\n}\n") == ()


def test_the_loop_knows_its_own_lines_and_the_writes_after_it():
    (loop,) = options.option_loops(HELPER)
    assert loop.parses(5) and loop.parses(8) and loop.parses(13) and not loop.parses(14)
    assert loop.later_writes == ()
    reset = HELPER.replace("    done\n", "    done\n    chat=false\n")
    (loop,) = options.option_loops(reset)
    assert ("chat", 14) in loop.later_writes
    guards = shell_guards(reset, 16)
    # a condition on a name written again after the loop is left to the caller (undecided)
    assert options.guards_hold(loop, 16, guards, [options.run(loop, ("--chat",))], Branch())[0] == []


def test_an_arm_that_shifts_by_nothing_is_not_followed():
    """``shift 0`` would loop forever in bash: the call is unknown, never an endless walk."""
    text = "f() {\n  while [[ $# -gt 0 ]]; do\n    case $1 in\n      --a) x=1; shift 0 ;;\n    esac\n  done\n}\n"
    (loop,) = options.option_loops(text)
    assert loop.arms[0].consumes is None and options.run(loop, ("--a",)) is None


def test_a_loop_that_falls_through_between_arms_is_not_followed():
    """``--a) x=true ;&`` runs the next arm too (x=false): not modelled, so never a value."""
    text = ("f() {\n  while [[ $# -gt 0 ]]; do\n    case $1 in\n      --a) x=true; shift ;&\n"
            "      --b) x=false; shift ;;\n    esac\n  done\n}\n")
    assert options.option_loops(text) == ()
    assert len(options.option_loops(text.replace(";&", ";;"))) == 1


def test_a_loop_inside_an_arm_does_not_end_the_option_loop():
    text = ("f() {\n  local chat=false\n  while [[ $# -gt 0 ]]; do\n    case $1 in\n"
            "      --many) while read -r x; do\n          :\n        done < /dev/null; shift ;;\n"
            "      --chat) chat=true; shift ;;\n    esac\n  done\n  if [[ \"$chat\" == true ]]; then\n"
            "    echo chat\n  fi\n}\n")
    (loop,) = options.option_loops(text)
    assert loop.end_line == 10 and [a.patterns for a in loop.arms] == [("--many",), ("--chat",)]


def test_a_substitution_in_a_calls_words_is_one_word():
    """Real #2492 and #2191: ``--num-prompts $((CONC * 10))`` (quoted or not) is one word; the
    split had cut the call at its parenthesis, losing ``--use-chat-template`` after it."""
    for words in ("--n $((CONC * 10)) --chat", '--n "$((CONC * 10))" --chat', "--n $(nproc --all) --chat"):
        (call,) = _calls_of_script(f"f {words}\n")
        assert len(call) == 3 and call[0] == "--n" and call[2] == "--chat", (words, call)
        assert "$" in call[1]  # a value not known here


@pytest.mark.parametrize(("text", "name"), [
    ("aiperf profile --endpoint-type chat", "aiperf"),
    ("  FOO=1 time aiperf profile --endpoint-type chat", "aiperf"),
    ("cd x && aiperf profile --endpoint-type chat", "aiperf"),
    ("OUT=$(aiperf profile --endpoint-type chat)", "aiperf"),
    ("if aiperf profile --endpoint-type chat; then", "aiperf"),
    ("time aiperf profile --endpoint-type chat > log 2>&1 &", "aiperf"),
    # a program that runs the next word runs it from PATH, never a shell function
    ("nohup aiperf profile --endpoint-type chat > log 2>&1 &", "nohup"),
    ("sudo -E aiperf profile --endpoint-type chat", "sudo"),
    ("{ aiperf profile --endpoint-type chat; }", "aiperf"),
    ("2>/dev/null aiperf profile --endpoint-type chat", "aiperf"),
    # no command of a name: a wrapper that skips functions, an expansion, an assignment
    ("command aiperf profile --endpoint-type chat", None),
    ("exec aiperf profile --endpoint-type chat", None),
    ('"${cmd[@]}" --endpoint-type chat', None),
    ("cmd+=(--endpoint-type chat)", None),
    ('REPLAY_CMD+=" --endpoint-type chat"', None),
    ('EXTRA="--endpoint-type chat"', None),
])
def test_command_at_names_the_command_whose_words_hold_a_position(text, name):
    assert options.command_at(text, text.index("chat")) == name


def test_swallowing_commands_are_aliases_and_functions_that_hand_no_words_on():
    texts = {"a.sh": ('f() { python3 x.py "$@"; }\ng() { echo "$@"; }\nh() {\n  python3 y.py "$@"\n}\n'
                      'k() {\n  echo "$@"\n}\nm() ( python3 z "$*" )\nn() { :; }\nalias q=true r=ls\n'
                      'outer() {\n  inner() { :; }\n  run "${@}"\n}\n'),
             "b.sh": "s() {\n  true\n}\n", "c.sh": "shopt -s expand_aliases\n"}
    # aliases count only where a file of the launch turns on their expansion
    assert options.swallowing_commands(texts, ["a.sh"]) == {"g", "k", "n", "inner"}
    assert options.swallowing_commands(texts, ["a.sh", "b.sh", "missing.sh"]) == {"g", "k", "n", "inner", "s"}
    assert options.swallowing_commands(texts, ["a.sh", "c.sh"]) == {"g", "k", "n", "q", "r", "inner"}
