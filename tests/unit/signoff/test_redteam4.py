"""Red team 4: inputs a hostile PR controls that make a sign-off check wrongly green, against
today's changes (unswept own configs fail, shared-only configs judged by regression in Check
chat, the unquoted / open-quote readings of the scan, Check draft's unread prohibited names).
Every test states the correct, fail-closed outcome and is marked ``xfail(strict=True)`` while
the product still gets it wrong, so the suite stays green and the hole stays documented. No
product code is changed here."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.project_trees import BASE, ENTRY, KEY, MASTER, SIBLING
from lib.reuse_world import _key_block
from lib.signoff_policy_support import changed, seed003_with_mtp, with_head_file, world_evidence
from lib.union_world import union_world

from infx.plan.launch_graph import launch_graph
from infx.signoff.checks import chat, draft, sweep
from infx.signoff.model import Status
from infx.signoff.table import load_table
from infx.yamlio import load_text

TABLE = load_table()
SETTINGS = TABLE.settings
CHANGELOG = "perf-changelog.yaml"
SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_sglang.sh"  # KEY's and SIBLING's script
MTP_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_sglang_mtp.sh"
BENCH = "benchmarks/multi_node/amd_utils/bench.sh"  # seed 003's shared multi-node client helper
MTP_KEY = "minimaxm3-fp4-mi355x-atom-disagg-mtp"
B300_LAUNCHER = "benchmarks/single_node/launchers/b300_sglang.sh"
PROHIBITED = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"


# --- harness ----------------------------------------------------------------------------------

def _two_configs(**files: str) -> dict[str, str]:
    """This repository's configs trimmed to KEY and SIBLING (dsr1 fp4 MI355X SGLang, plain and
    MTP), both launched through SCRIPT, plus ``files``."""
    return BASE | {SCRIPT: "sglang serve\n", MASTER: _key_block(KEY) + "\n" + _key_block(SIBLING)} | files


def _swept_green(base: dict[str, str], head: dict[str, str]):
    """The PR base -> head with one sweep run (run 20, on an in-PR commit whose content is the
    head's) in which every row of the head's plan has a green job."""
    evidence, _, _ = union_world(reuse=False, trees=(base, head))
    del evidence.run_jobs[21], evidence.workflow_runs[21]
    evidence.check_runs = {sha: [c for c in runs if "/runs/21/" not in c.details_url]
                           for sha, runs in evidence.check_runs.items()}
    evidence.files = changed(base, head)
    return evidence


def _entry(keys: list[str], *extra: str) -> str:
    return ("\n- config-keys:\n" + "".join(f"    - {k}\n" for k in keys)
            + "  description:\n    - red team\n  pr-link: XXX\n" + "".join(f"  {e}\n" for e in extra))


def test_harness_control_an_unlisted_changed_config_fails():
    """Control: SIBLING's image changes and only KEY has an entry → FAIL (today's change)."""
    base = _two_configs()
    listed, sibling = base[MASTER].split("\n\n", 1)
    head = base | {CHANGELOG: base[CHANGELOG] + ENTRY,
                   MASTER: listed + "\n\n" + sibling.replace("image: ", "image: other/", 1)}
    assert sweep.run(_swept_green(base, head), SETTINGS).status == Status.FAIL


# --- 1. Check sweep: a key "listed" by an entry whose plan does not benchmark it ---------------

@pytest.mark.parametrize("modifier", ["evals-only: true", "all-evals: true"])
def test_sweep_an_entry_that_plans_no_benchmark_rows_still_lists_the_config(modifier):
    """Attack: the PR changes SIBLING's image (its own master block) and appends an entry for
    KEY plus a second entry naming SIBLING with ``evals-only: true`` (or ``all-evals: true``).
    The planner (planner._Run.add_entry) plans no throughput row for an evals-only/all-evals
    entry, so SIBLING's benchmark never runs; every planned row is green. Check sweep's
    unlisted_configs counts SIBLING as listed (benchmark_content.named_keys reads only
    config-keys) and PASSes. Correct: FAIL — no sweep benchmarks the changed config."""
    base = _two_configs()
    listed, sibling = base[MASTER].split("\n\n", 1)
    head = base | {CHANGELOG: base[CHANGELOG] + ENTRY + _entry([SIBLING], modifier),
                   MASTER: listed + "\n\n" + sibling.replace("image: ", "image: other/", 1)}
    outcome = sweep.run(_swept_green(base, head), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("keys", [[SIBLING, KEY], ["dsr1-fp4-mi355x-sglang*"]])
def test_sweep_an_append_only_entry_lists_configs_whose_script_it_changes(keys):
    """Attack: an append-only PR adds one concurrency (c128) to SIBLING and, in the same PR,
    edits SCRIPT, the recipe script KEY and SIBLING both run. The append-only plan is the new
    row only (planner._append_only_rows / append_only.delta_rows: one row, SIBLING c128);
    append-only's scope check looks at the master config, not at scripts. Its one row is
    green, both keys are "listed" by the entry (by name or by a wildcard), so Check sweep
    PASSes while every existing row of KEY and SIBLING now runs an unswept script. Correct:
    FAIL — the configs whose own script changed are not swept by a delta plan."""
    base = _two_configs()
    listed, sibling = base[MASTER].split("\n\n", 1)
    head = base | {MASTER: listed + "\n\n" + sibling.replace("conc-end: 64", "conc-end: 128"),
                   SCRIPT: "sglang serve --mem-fraction-static 0.95\n",
                   CHANGELOG: base[CHANGELOG] + _entry(keys, "append-only: true")}
    evidence = _swept_green(base, head)
    outcome = sweep.run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 1. affected.py: a change to the script a config ran at base is not seen ----------------

def test_sweep_deleting_the_mtp_script_switches_the_config_to_another_script_unseen():
    """Attack: at base SIBLING's MTP lanes run MTP_SCRIPT (the launcher's first candidate,
    ``…_sglang_mtp.sh``). The PR deletes that file, so at head the launcher falls back to
    SCRIPT (unchanged): SIBLING's benchmark now runs another script (no speculative decoding
    flags at all). affected._affected_configs only intersects the changed files with the
    head's launch graph, which no longer holds the deleted file, so SIBLING is not affected at
    all: no unlisted config, Check sweep PASSes on KEY's entry. Correct: FAIL — SIBLING's own
    script changed (deleted) and no entry names it."""
    base = _two_configs(**{MTP_SCRIPT: "sglang serve --speculative-algorithm EAGLE\n"})
    head = {p: t for p, t in base.items() if p != MTP_SCRIPT} | {CHANGELOG: base[CHANGELOG] + ENTRY}
    entry = load_text(base[MASTER], MASTER)[SIBLING]
    runners = load_text(base["configs/runners.yaml"], "configs/runners.yaml")
    assert MTP_SCRIPT in launch_graph(base, SIBLING, entry, runners, MASTER).paths()  # precondition
    assert SCRIPT in launch_graph(head, SIBLING, entry, runners, MASTER).paths()
    outcome = sweep.run(_swept_green(base, head), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 2. Check chat: shared-only configs keep "chat evidence" their client no longer gets ------

def _seed003_mtp_settled():
    """Seed 003 with its fp4 ATOM disagg lanes on EAGLE3 (a spec-decode config behind the shared
    bench.sh), all of it already on the base: the PR may change only shared helper files, so
    the configs are shared-only (judged by _dropped_by_shared_files), no changelog entry."""
    evidence = world_evidence("seed003")
    master = "configs/amd-master.yaml"
    text = evidence.head_files[master]
    start = text.index(f"{MTP_KEY}:")
    end = text.index("minimaxm3-fp8-mi355x-atom-disagg-mtp:")
    text = text[:start] + text[start:end].replace("DECODE_MTP_SIZE=0", "DECODE_MTP_SIZE=3") + text[end:]
    base = {**evidence.head_files, master: text, CHANGELOG: evidence.base_files[CHANGELOG]}
    return replace(evidence, base_files=base, head_files=base, files=[],
                   check_runs={commit: [] for commit in evidence.commits})


def _shared_change(**files: str):
    evidence = _seed003_mtp_settled()
    head = {**evidence.base_files, **files}
    return replace(evidence, head_files=head, files=changed(evidence.base_files, head))


def test_harness_control_a_shared_helper_dropping_the_template_fails():
    """Control (today's change): bench.sh no longer sets the flag → Check chat FAILs."""
    bench = _seed003_mtp_settled().base_files[BENCH]
    evidence = _shared_change(**{BENCH: bench.replace('EXTRA="--use-chat-template"', 'EXTRA=""')})
    assert {c.how for c in chat.affected_configs(evidence)} == {"shared helper changed"}
    assert chat.run(evidence, SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("edit", [
    (" $EXTRA\n", "\n"),  # the client line no longer passes $EXTRA
    ("fi\n", 'fi\nEXTRA=""\n'),  # reset after the guard
    ("fi\n", "fi\nunset EXTRA\n"),  # unset after the guard
    ("$EXTRA", "${EXTRA:0:0}"),  # expands to nothing
])
def test_chat_shared_helper_keeps_a_dead_chat_assignment(edit):
    """Attack: the PR edits only the shared bench.sh so its client runs raw completions, yet
    keeps ``EXTRA="--use-chat-template"`` under the IS_MTP guard: the client line drops
    ``$EXTRA``, or EXTRA is reset/unset after the ``fi``, or expanded to nothing. Bash runs
    ``--backend openai`` with no template. chat._chat_evidence takes the assignment line as
    the client's chat evidence (only ``*use_chat_template*=`` variables are set aside), so at
    head the config "uses the chat template", _dropped_by_shared_files sees no regression and
    Check chat is N/A. Correct: FAIL — the template the base's launch used is gone."""
    bench = _seed003_mtp_settled().base_files[BENCH]
    old, new = edit
    outcome = chat.run(_shared_change(**{BENCH: bench.replace(old, new)}), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


def test_chat_shared_helper_decoy_file_in_the_helper_folder():
    """Attack: the PR drops the flag from bench.sh and adds ``amd_utils/notes.sh`` (sourced by
    nothing) holding a ``--use-chat-template`` client line. On this tree (no launcher of the
    runner: affected._named_launch_lines) every file in the policy's helper folder is read as
    launch lines, so the decoy is the head's "chat evidence" and Check chat is N/A. Correct:
    FAIL — the launch's client lost its template. (Fixed: a helper the PR adds is read only
    when a file of the launch names it.)"""
    bench = _seed003_mtp_settled().base_files[BENCH]
    outcome = chat.run(_shared_change(**{
        BENCH: bench.replace('EXTRA="--use-chat-template"', 'EXTRA=""'),
        "benchmarks/multi_node/amd_utils/notes.sh":
            "#!/usr/bin/env bash\npython3 -m sglang.bench_serving --use-chat-template\n"}), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 3. scan._embedded_end: a quote balanced in bash read as left open -----------------------

def _qwen_only_bench(odd: str) -> str:
    """bench.sh whose chat flag is set only for *Qwen* models (never for this MiniMax config),
    after a line ``odd`` and with an apostrophe in a double-quoted echo inside the branch."""
    return ("#!/usr/bin/env bash\nEXTRA=\"\"\n" + odd + "\n"
            'if [[ "$MODEL_NAME" == *Qwen* ]]; then\n'
            '  echo "it\'s a Qwen run"\n'
            '  EXTRA="--use-chat-template"\n'
            "fi\n"
            'python3 -m sglang.bench_serving --backend openai --base-url "$URL" $EXTRA\n')


def test_harness_control_qwen_only_guard_fails():
    assert chat.run(with_head_file(seed003_with_mtp(), BENCH, _qwen_only_bench("LABEL=plain")),
                    SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("odd", [
    """LABEL="$(printf '%s' "it's")\"""",  # quotes inside $(…) inside double quotes
    "SEP='\\'",  # a single-quoted backslash
    "NOTE=don\\'t  # it's the default",  # an escaped apostrophe, then a comment with one
])
def test_chat_guard_hidden_by_a_quote_the_scan_reads_as_open(odd):
    """Attack: one line before the *Qwen* guard whose quotes bash balances (``bash -n`` accepts
    the file; it prints ``it's \\ don't``) but scan._embedded_end reads as a quote left open at
    the line's end: ``"$(printf '%s' "it's")"`` (_QUOTED pairs the inner double quotes),
    ``'\\'`` (``\\'`` is removed before pairing, though a backslash is literal inside single
    quotes), ``don\\'t  # it's`` (strip_comment treats ``\\'`` as opening a quote, so the
    comment stays). The guard scan then reads the ``if [[ … *Qwen* ]]`` line as string text
    up to the next apostrophe (the echo), so the chat flag looks unguarded and Check chat
    PASSes. Bash applies the template only for Qwen; this MiniMax config drives raw
    completions. Correct: FAIL (as with the control line ``LABEL=plain``)."""
    outcome = chat.run(with_head_file(seed003_with_mtp(), BENCH, _qwen_only_bench(odd)), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 4. Check draft: the prohibited name set in forms still missed ---------------------------

def _launcher(line: str):
    evidence = world_evidence("scenario11")
    text = evidence.head_files[B300_LAUNCHER].replace(f"export {PROHIBITED}=1\n", line + "\n")
    return with_head_file(evidence, B300_LAUNCHER, text)


def test_harness_control_prohibited_env_fails():
    assert draft.run(_launcher(f"export {PROHIBITED}=1"), SETTINGS).status == Status.FAIL


@pytest.mark.parametrize("line", [
    f': "${{{PROHIBITED}:=1}}"\nexport {PROHIBITED}',
    f": ${{{PROHIBITED}=1}}\nexport {PROHIBITED}",
])
def test_draft_prohibited_env_assigned_by_a_default_expansion(line):
    """Attack: ``: "${NAME:=1}"`` (or ``${NAME=1}``) assigns 1 to the prohibited name, then a bare
    ``export NAME`` exports it. draft._unread_prohibited skips the first line (``_named_word``
    takes ``${NAME`` for a read) and the export line (``_UNSET``: a name-only export is
    assumed to be read where it is set); env_settings reads neither. Check draft PASSes.
    Correct: FAIL (prohibited), as with ``export NAME=1``."""
    outcome = draft.run(_launcher(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("line", [
    "P=SGLANG_NVFP4_CKPT_FP8\nexport ${P}_NEXTN_MOE=1",
    'export "SGLANG_NVFP4_CKPT_FP8_${X:-NEXTN}_MOE=1"',
])
def test_draft_prohibited_env_name_assembled_from_pieces(line):
    """Attack: the name is built from a variable (``export ${P}_NEXTN_MOE=1``) or a default
    expansion inside it; no spelling of the whole name appears, so neither env_settings nor
    _unread_prohibited fire and Check draft PASSes. Correct: FAIL closed — an exported name
    that cannot be read and could be a prohibited one (its literal parts match) is unverified."""
    outcome = draft.run(_launcher(line), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


# --- 3. scan.HEREDOC: an arithmetic shift `<<` read as a heredoc ------------------------------

SHIFTS = ["X=$(( 1 << then ))", "X=$((1<<then))", "(( X = 1 << then ))"]


@pytest.mark.parametrize("shift", SHIFTS)
def test_chat_arithmetic_shift_read_as_a_heredoc_hides_the_guard(shift):
    """Attack: ``X=$(( 1 << then ))`` (bash: arithmetic, ``then`` an unset variable: X=1; the file
    passes ``bash -n``) before ``if [[ "$MODEL_NAME" == *Qwen* ]]`` / ``then`` on its own line.
    scan._heredoc (HEREDOC) takes ``<< then`` for a heredoc whose word is ``then``, so the guard
    scan reads the ``if`` line as heredoc text ending at the ``then`` line; the chat flag after
    it looks unguarded and Check chat PASSes, though bash sets it only for Qwen. Correct: FAIL
    (a ``<<`` inside ``$(( ))`` / ``(( ))`` opens no heredoc)."""
    text = ("#!/usr/bin/env bash\nEXTRA=\"\"\n" + shift + "\n"
            'if [[ "$MODEL_NAME" == *Qwen* ]]\nthen\n'
            '  EXTRA="--use-chat-template"\n'
            "fi\n"
            'python3 -m sglang.bench_serving --backend openai --base-url "$URL" $EXTRA\n')
    outcome = chat.run(with_head_file(seed003_with_mtp(), BENCH, text), SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason


@pytest.mark.parametrize("shift", SHIFTS)
def test_patch_arithmetic_shift_read_as_a_heredoc_hides_an_engine_reinstall(shift):
    """Attack: a launch file the PR adds runs ``pip install git+…/sglang@fast`` (alone: Check
    patch FAILs, "installs engine package") after ``X=$(( 1 << then ))``. patching._scan takes
    the shift for a heredoc (scan.heredoc_opening) with word ``then`` and swallows every later
    line as its body; a body is only searched for engine paths, not for installs, so the
    reinstall is never read and Check patch PASSes. Correct: FAIL, as without the shift line."""
    from infx.signoff.checks import patch

    path = "benchmarks/single_node/fixed_seq_len/zz_fix.sh"
    install = "pip install git+https://github.com/someone/sglang@fast\n"
    control = with_head_file(world_evidence("seed000"), path, "#!/usr/bin/env bash\n" + install)
    assert patch.run(control, SETTINGS).status == Status.FAIL  # control
    evidence = with_head_file(world_evidence("seed000"), path, f"#!/usr/bin/env bash\n{shift}\n{install}")
    outcome = patch.run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL, outcome.reason
