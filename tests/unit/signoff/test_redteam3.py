"""Red team 3: inputs a hostile PR controls that make a sign-off check (or what a reader sees)
wrongly green. Every test states the correct, fail-closed outcome and is marked
``xfail(strict=True)`` while the product still gets it wrong, so the suite stays green and the
hole stays documented. No product code is changed here."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.signoff_policy_support import (
    OPTION_HELPER,
    changed,
    seed003_with_mtp,
    with_head_file,
    world_evidence,
)

from infx.signoff.checks import arch, chat, draft, evals, sweep
from infx.signoff.model import Status
from infx.signoff.render import row_line
from infx.signoff.table import load_table
from infx.signoff.verdict import Overall, Row, overall_of

TABLE = load_table()
SETTINGS = TABLE.settings
CHANGELOG = "perf-changelog.yaml"
BENCH = "benchmarks/multi_node/amd_utils/bench.sh"  # seed 003's shared multi-node client helper
SERVER = "benchmarks/multi_node/amd_utils/server_atom.sh"
MTP_KEY = "minimaxm3-fp4-mi355x-atom-disagg-mtp"
B300_LAUNCHER = "benchmarks/single_node/launchers/b300_sglang.sh"


def with_bench(text: str):
    return with_head_file(seed003_with_mtp(), BENCH, text)


CHAT_ARM = "            --chat)\n                use_chat_template=true\n"
CALL_WITH_CHAT = 'bench --url "$URL" --chat\n'


def chat_outcome(helper: str, call: str):
    return chat.run(with_bench(helper + call), SETTINGS)


def test_harness_control_option_helper_passes_and_fails_as_bash_would():
    """Control for the option-loop attacks below: the option passed → PASS; not passed → FAIL."""
    assert chat_outcome(OPTION_HELPER, CALL_WITH_CHAT).status == Status.PASS
    assert chat_outcome(OPTION_HELPER, 'bench --url "$URL"\n').status == Status.FAIL


# --- 1. options.py: calls of the helper the call reader never sees ---------------------------

@pytest.mark.parametrize("hidden_call", [
    '(bench --url "$URL")',  # subshell
    'OUT=$(bench --url "$URL")',  # command substitution
    'time bench --url "$URL"',  # `time` keyword
    'if bench --url "$URL"; then echo ok; fi',  # call as an if condition
    '! bench --url "$URL"',  # negated pipeline
    '{ bench --url "$URL"; }',  # brace group
    'command bench --url "$URL"',  # `command` builtin
])
def test_chat_a_second_call_without_the_option_in_an_unrecognised_form_is_ignored(hidden_call):
    """Attack: the launch calls the option-loop helper twice, once with ``--chat`` (seen) and once
    without it in a call form options._calls_in does not recognise (subshell, $(…), time, if-
    condition, !, brace group, `command`). Bash runs the second benchmark through raw
    /v1/completions. The check says "every call of bench passes the option" and PASSes.
    Correct: FAIL (or cannot-decide), since not every call applies the chat template."""
    outcome = chat_outcome(OPTION_HELPER, CALL_WITH_CHAT + hidden_call + "\n")
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("dead_call", [
    "cat > /tmp/usage.txt <<'EOF'\nbench --url \"$URL\" --chat\nEOF\n",  # heredoc body (data)
    'USAGE="\nbench --url "$URL" --chat\n"\n',  # inside a multi-line string
    'never_called() {\n  bench --url "$URL" --chat\n}\n',  # a function nobody calls
    'outer() {\n  inner\n}\ninner() {\n  bench --url "$URL" --chat\n}\n',  # called only from one nobody calls
    'loop() {\n  bench --url "$URL" --chat\n  loop\n}\n',  # it calls only itself
])
def test_chat_a_call_in_text_that_never_runs_proves_the_option(dead_call):
    """Attack: the only 'call' of the helper is text bash never executes (a heredoc written to a
    file, a string, a function nobody calls). With no call at all the check FAILs (existing
    test: 'the helper is never called'); this dead text turns it into PASS.
    Correct: FAIL — no executed call passes the option."""
    outcome = chat_outcome(OPTION_HELPER, dead_call)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("call", [
    'bench --url x; --chat 2>/dev/null || true',
    'bench --url x& --chat 2>/dev/null || true',
])
def test_chat_option_after_a_list_operator_glued_to_a_word(call):
    """Attack: ``bench --url x; --chat`` — shlex(posix=False) keeps ``x;`` as one word, so the
    tool reads ``--chat`` as bench's option; bash ends the call at ``;`` and runs ``--chat`` as a
    (failing, ignored) command. The benchmark runs without the chat template, the check PASSes.
    Correct: FAIL."""
    outcome = chat_outcome(OPTION_HELPER, call + "\n")
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("reset", [
    "[[ -n x ]] && use_chat_template=false",
    "export use_chat_template=false",
    "printf -v use_chat_template false",
    "unset use_chat_template",
    "eval use_chat_template=false",
    "read -r use_chat_template <<< false",
])
def test_chat_an_arm_that_sets_then_resets_the_value(reset):
    """Attack: the ``--chat`` arm sets ``use_chat_template=true`` and then resets it with a write
    options._arm does not model (``&&``-guarded assignment, export, printf -v, unset, eval,
    read). Bash leaves it false/empty; the tool keeps "true" and PASSes.
    Correct: FAIL (the value is unknown, or false)."""
    helper = OPTION_HELPER.replace(CHAT_ARM, CHAT_ARM + f"                {reset}\n")
    outcome = chat_outcome(helper, CALL_WITH_CHAT)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("reset", ["printf -v use_chat_template false", "export use_chat_template=false"])
def test_chat_a_default_overwritten_before_the_loop(reset):
    """Attack: ``local use_chat_template=true`` then, still before the loop, a write the default
    reader skips (printf -v / export). The call passes no option; bash tests false, the tool
    tests its default "true" and PASSes. Correct: FAIL."""
    helper = OPTION_HELPER.replace("    local use_chat_template=false\n",
                                   f"    local use_chat_template=true\n    {reset}\n")
    outcome = chat_outcome(helper, 'bench --url "$URL"\n')
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("reset", [
    "printf -v use_chat_template false",
    'eval "use_chat""_template=false"',
    "source ./reset_client.sh",
])
def test_chat_a_write_after_the_loop_the_write_scan_misses(reset):
    """Attack: after the option loop the helper resets the value with ``printf -v``, ``eval`` or
    by sourcing a file; OptionLoop.later_writes (launch_graph.shell_writes) does not see it, so
    the guard is still decided with the loop's value and the check PASSes (a plain
    ``use_chat_template=false`` there is caught). Correct: FAIL / undecided."""
    helper = OPTION_HELPER.replace('    local extra=""\n', f'    local extra=""\n    {reset}\n')
    outcome = chat_outcome(helper, CALL_WITH_CHAT)
    assert outcome.status == Status.FAIL, outcome.reason


def test_chat_a_posix_class_arm_bash_takes_first():
    """Attack: an earlier arm ``--[[:lower:]]hat) shift ;;`` matches ``--chat`` in bash (so the
    chat arm never runs); fnmatch has no POSIX classes, does not match it, and the tool picks
    the ``--chat`` arm. Raw completions run; the check PASSes. Correct: FAIL (pattern
    undecidable)."""
    helper = OPTION_HELPER.replace("            --chat)\n", "            --[[:lower:]]hat) shift ;;\n            --chat)\n")
    outcome = chat_outcome(helper, CALL_WITH_CHAT)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("arm, word", [
    ("--stop) shift; break ;;", "--stop"),
    ("--reset) set -- ; shift ;;", "--reset"),
])
def test_chat_an_arm_that_ends_the_loop_before_the_option(arm, word):
    """Attack: ``bench --url "$URL" --stop --chat`` where the ``--stop`` arm ``break``s out of the
    loop (or ``set --`` clears the rest). Bash never reads ``--chat``; the tool walks on and
    PASSes. Correct: FAIL."""
    helper = OPTION_HELPER.replace("            --url)", f"            {arm}\n            --url)")
    outcome = chat_outcome(helper, f'bench --url "$URL" {word} --chat\n')
    assert outcome.status == Status.FAIL, outcome.reason


def test_chat_template_flag_passed_to_a_helper_whose_loop_discards_it():
    """Attack: the call passes ``--apply-chat-template`` to a helper whose option loop has no arm
    for it and drops unknown words (``*) shift ;;``). The call line itself matches the chat
    pattern and is taken as evidence; the client runs raw completions. The loop is modelled,
    so the tool could see the flag reaches no arm that sets anything. Correct: FAIL."""
    helper = OPTION_HELPER.replace('            *) echo "unknown option $1" >&2; exit 1 ;;', "            *) shift ;;")
    outcome = chat_outcome(helper, 'bench --url "$URL" --apply-chat-template\n')
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("decoy", [
    "cat > /tmp/notes.txt <<EOF\nclient flags: --use-chat-template\nEOF",  # heredoc data
    "echo 'TODO: add --use-chat-template'",  # printed text
    'UNUSED="--use-chat-template"',  # a variable the client never gets
])
def test_chat_flag_mentioned_in_text_that_never_reaches_the_client(decoy):
    """Attack: the only client line drives raw completions (``--backend openai``, no template);
    a decoy mention of ``--use-chat-template`` elsewhere (heredoc written to a file, echo, an
    unused variable) is taken as the client's chat signal and the check PASSes instead of
    reporting the raw-completions line. Correct: FAIL."""
    text = (f"#!/usr/bin/env bash\n{decoy}\n"
            'python3 -m sglang.bench_serving --backend openai --base-url "$URL"\n')
    outcome = chat.run(with_bench(text), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 4. scan.py: heredoc words the guard scan misreads ----------------------------------------

def _guarded_bench(opener: str, closer: str = "EOF", spoof: str = "") -> str:
    """A bench.sh whose chat flag really sits under a non-spec guard (*Qwen*): the heredoc body
    holds ``fi`` + an IS_MTP ``if`` that only a scanner reading the body as shell obeys."""
    return ("#!/usr/bin/env bash\nEXTRA=\"\"\n"
            'if [[ "$MODEL_NAME" == *Qwen* ]]; then\n'
            f"  {opener}\n{spoof}"
            "fi\n"
            'if [[ "${IS_MTP:-false}" == "true" ]]; then\n'
            f"{closer}\n"
            '  EXTRA="--use-chat-template"\n'
            "fi\n"
            'python3 -m sglang.bench_serving --backend openai --base-url "$URL" $EXTRA\n')


def test_harness_control_quoted_heredoc_is_skipped():
    """Control: with ``<<'EOF'`` the body is skipped and the real *Qwen* guard makes it FAIL."""
    outcome = chat.run(with_bench(_guarded_bench("cat > /tmp/notes <<'EOF'")), SETTINGS)
    assert outcome.status == Status.FAIL


@pytest.mark.parametrize("opener, closer, spoof", [
    ("cat > /tmp/notes <<\\EOF", "EOF", ""),  # backslash-quoted word: not recognised
    ("cat > /tmp/notes <<'END-X'", "END-X", ""),  # quoted word with '-': not recognised
    ("sudo tee /tmp/notes >/dev/null <<'EOF'", "EOF", ""),  # data for tee, read as shell
    ("ssh host 'cat > /tmp/notes' <<'EOF'", "EOF", ""),  # data for a remote cat, read as shell
    ("cat > /tmp/notes <<'EOF'", "EOF", "EOF \n"),  # 'EOF ' (trailing blank) ends it early
])
def test_heredoc_body_spoofs_a_spec_guard_for_the_chat_flag(opener, closer, spoof):
    """Attack: inside the *Qwen* branch a heredoc whose body is ``fi`` / ``if [[ IS_MTP ]]``. Bash
    treats the body as data, so the chat flag stays under *Qwen* only (never for MiniMax). The
    guard scan (scan._case_structure via scan._heredoc/_embedded_end) does not recognise the
    heredoc word (``<<\\EOF``, ``<<'END-X'``), takes tee/ssh input as shell, or ends the body
    at ``EOF `` (bash needs the exact word), reads the body as shell, and sees the chat flag
    under an MTP guard: PASS. Correct: FAIL, as with ``<<'EOF'``."""
    outcome = chat.run(with_bench(_guarded_bench(opener, closer, spoof)), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 1/4. flag readers: a FLOP-reducing override hidden by shell quoting ---------------------

def _server_line(line: str):
    evidence = world_evidence("seed003")
    text = evidence.head_files[SERVER].replace("set -euo pipefail\n", f"set -euo pipefail\n{line}\n")
    return with_head_file(evidence, SERVER, text)


def test_harness_control_plain_override_fails():
    line = """python -m atom.entrypoints.openai_server --hf-overrides '{"num_hidden_layers": 30}'"""
    assert arch.run(_server_line(line), SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("line", [
    """python -m atom.entrypoints.openai_server --hf-"overrides" '{"num_hidden_layers": 30}'""",
    """python -m atom.entrypoints.openai_server --hf''-overrides '{"num_hidden_layers": 30}'""",
    """python -m atom.entrypoints.openai_server --hf-overrid\\es '{"num_hidden_layers": 30}'""",
    # a backslash-newline inside a word at column 0: bash joins with no blank, the scan adds one
    """python -m atom.entrypoints.openai_server --hf-over\\\nrides '{"num_hidden_layers": 30}'""",
    # the key itself assembled from two quoted pieces
    """python -m atom.entrypoints.openai_server --hf-overrides '{"num_hidden_'"layers": 30}'""",
])
def test_arch_override_flag_or_key_split_by_quotes_or_a_continuation(line):
    """Attack: the PR adds ``--hf-overrides '{"num_hidden_layers": 30}'`` to the multi-node
    server launch, spelled so bash still builds the same words (quotes inside the word, a
    backslash, ``\\<newline>`` mid-word at column 0, the key split over two quotes). may_name /
    flag_values see no flag (join_continuations inserts a blank) and Check arch PASSes.
    Correct: FAIL naming num_hidden_layers."""
    outcome = arch.run(_server_line(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("line", [
    """F=--hf-overrides; python -m atom.entrypoints.openai_server $F '{"num_hidden_layers": 30}'""",
    """ARGS=(--hf-overrides); ARGS+=('{"num_hidden_layers": 30}'); python -m atom.entrypoints.openai_server "${ARGS[@]}\"""",
    """python -m atom.entrypoints.openai_server $(printf -- '--hf-%s' overrides) '{"num_hidden_layers": 30}'""",
    """L=layers; python -m atom.entrypoints.openai_server --hf-overrides "{\\"num_hidden_$L\\": 30}\"""",
])
def test_arch_override_through_indirection(line):
    """Attack: the flag (or the key) reaches the server through a variable, an array built in two
    pushes, or ``$(printf …)``. The check passes as if no override existed. Correct: FAIL, or
    at least fail closed ("could not be verified") for an override flag/key the scan cannot
    read literally."""
    outcome = arch.run(_server_line(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- the named prohibition SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE hidden from Check draft -----------

def _launcher(line: str):
    evidence = world_evidence("scenario11")
    text = evidence.head_files[B300_LAUNCHER].replace("export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n", line + "\n")
    return with_head_file(evidence, B300_LAUNCHER, text)


def test_harness_control_plain_prohibited_env_fails():
    assert draft.run(_launcher("export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1"), SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("line", [
    'export "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1"',
    "export 'SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1'",
    'export SGLANG_NVFP4_CKPT_FP8_NEXTN_"MOE"=1',
    "export SGLANG_NVFP4_CKPT_FP8_\\\nNEXTN_MOE=1",
    "printf -v SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE 1; export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
    "read -r SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE <<< 1; export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
    'N=SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE\nexport "$N=1"',
])
def test_draft_prohibited_env_enabled_in_a_form_the_scan_misses(line):
    """Attack: scenario 11's launcher enables the named prohibition SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE
    with a quoted ``export "NAME=1"`` (ordinary bash), a quote inside the name, a
    continuation mid-name, ``printf -v`` / ``read`` then export, or a name held in a variable.
    Check draft PASSes ("no … prohibited env"). Correct: FAIL (prohibited), or fail closed."""
    outcome = draft.run(_launcher(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 2/3. empty plan: a benchmark change with no changelog entry is never swept --------------

def _no_changelog_entry(evidence):
    head = {**evidence.head_files, CHANGELOG: evidence.base_files[CHANGELOG]}
    return replace(evidence, head_files=head, files=changed(evidence.base_files, head),
                   check_runs={commit: [] for commit in evidence.commits})


def test_changed_master_configs_without_a_changelog_entry_are_not_swept_yet_not_failed():
    """Attack: seed 003's PR (changes amd-master.yaml entries and the ATOM server script) with
    perf-changelog.yaml left untouched, and no sweep run at all. The plan is empty, so Check
    sweep returns N/A downgraded to an advisory WARN and Check evals N/A; WARN maps to status
    `success` (pipeline.DESCRIPTIONS). PRODUCT §4.8: success must mean the benchmarks the PR
    changes were swept green. Correct: Check sweep FAIL (fail closed), so the verdict is
    REJECTED."""
    evidence = _no_changelog_entry(world_evidence("seed003"))
    rows = [sweep.run(evidence, SETTINGS), evals.run(evidence, SETTINGS)]
    assert overall_of([r.status for r in rows]) == Overall.REJECTED, [(r.status, r.reason) for r in rows]


def test_a_pr_changing_only_a_shared_helper_to_drop_the_chat_template_is_green():
    """Attack: the master configs are settled (an MTP config already on main) and the PR only
    edits the shared multi-node client helper bench.sh so it never adds --use-chat-template,
    with no changelog entry. judged_configs drops the shared-only config (not swept), so Check
    chat is N/A; Check sweep is N/A→WARN and evals N/A: the verdict is WARN → `success`, and
    every later sweep of that spec-decode config drives raw completions. Correct: at least one
    of sweep/chat FAILs (the change is judged, or its missing sweep fails closed)."""
    evidence = seed003_with_mtp()
    base = {**evidence.head_files, CHANGELOG: evidence.base_files[CHANGELOG]}
    head = {**base, BENCH: base[BENCH].replace('EXTRA="--use-chat-template"', 'EXTRA=""')}
    evidence = replace(evidence, base_files=base, head_files=head, files=changed(base, head),
                       check_runs={commit: [] for commit in evidence.commits})
    assert [f.filename for f in evidence.files] == [BENCH]
    rows = [sweep.run(evidence, SETTINGS), evals.run(evidence, SETTINGS), chat.run(evidence, SETTINGS)]
    assert overall_of([r.status for r in rows]) == Overall.REJECTED, [(r.status, r.reason) for r in rows]


# --- 5. render: a PR-controlled path pushes the decisive text out of the row -----------------

def test_a_deep_path_hides_what_the_fail_row_is_about():
    """Attack: the override is added in a file whose path (nested directories the PR creates) is
    longer than ROW_CHARS. The verdict is FAIL, but the posted row is the path cut with "…":
    neither the flag nor the key (num_hidden_layers=30) is visible to the reader. Correct: the
    row keeps the decisive finding visible (cut the path, not the finding)."""
    evidence = world_evidence("seed003")
    deep = "benchmarks/multi_node/amd_utils/" + "/".join(["d" * 240] * 9) + "/x.sh"
    evidence = with_head_file(evidence, deep, "#!/usr/bin/env bash\npython -m atom.entrypoints.openai_server "
                              """--hf-overrides '{"num_hidden_layers": 30}'\n""")
    outcome = arch.run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL and "num_hidden_layers=30" in outcome.reason  # the verdict is right
    spec = next(c for c in TABLE.checks if c.id == "arch")
    line = row_line(Row(spec, outcome))
    assert "num_hidden_layers" in line, line[-200:]
