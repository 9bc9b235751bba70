"""Shell variables in launch lines followed per row (infx.signoff.rules.shell_values)."""

from __future__ import annotations

from infx.plan.launch_graph import Branch, decide
from infx.signoff.rules.scan import join_continuations, text_lines
from infx.signoff.rules.shell_values import row_variables, variants

PATH = "benchmarks/single_node/agentic/x_fp4_mi355x_atom_mtp.sh"
ENTRY = {"scenarios": {"agentic-coding": [{"search-space": [
    {"tp": 8, "conc-list": [1, 4], "spec-decoding": "mtp"},
    {"tp": 8, "conc-start": 8, "conc-end": 16, "spec-decoding": "mtp",
     "additional-settings": ["EXTRA=yes"]}]}]}}


def _variants(text: str, entry=ENTRY):
    return variants(text_lines(PATH, text), {PATH: text}, entry)


def _line(variant, number: int):
    return next(ln for ln in variant.lines if ln.number == number)


def _values(found, number: int) -> dict[tuple[str, ...], str]:
    return {v.rows: _line(v, number).text.strip() for v in found}


def test_row_variables_name_fields_as_the_launch_step_does():
    rows = row_variables(ENTRY)
    assert [r["CONC"] for r in rows] == ["1", "4", "8", "16"]
    assert rows[0]["TP"] == "8" and rows[0]["SPEC_DECODING"] == "mtp" and rows[0]["EVAL_ONLY"] == "false"
    assert rows[2]["EXTRA"] == "yes" and "EXTRA" not in rows[0]


def test_the_branch_each_row_takes_gives_its_value():
    text = 'if [ "$CONC" -le 4 ]; then\n  AL=3.5\nelse\n  AL=2.5\nfi\nrun --al "$AL"\n'
    assert _values(_variants(text), 6) == {("CONC=1", "CONC=4"): 'run --al "3.5"',
                                           ("CONC=8", "CONC=16"): 'run --al "2.5"'}


def test_a_later_unconditional_assignment_wins_and_export_counts():
    text = 'export AL=3.5\nAL="2.5"\nrun --al ${AL}\n'
    found = _variants(text)
    assert _values(found, 3) == {(): "run --al 2.5"}
    assert found[0].source(_line(found[0], 3)) == f"AL=2.5 at {PATH}:2"


def test_an_undecided_condition_is_taken_both_ways():
    text = 'AL=2.5\nif [[ -n "$FAST" ]]; then\n  AL=3.5\nfi\nrun --al "$AL"\n'
    found = _variants(text)
    assert sorted(next(ln.text for ln in v.lines if ln.number == 5) for v in found) == \
        ['run --al "2.5"', 'run --al "3.5"']
    assert {v.assumed for v in found} == {(('[[ -n "$FAST" ]]', True),), (('[[ -n "$FAST" ]]', False),)}


def test_lane_settings_defaults_and_unknown_names():
    # the row's fields decide conditions only; a lane's NAME=value setting is a value
    text = 'run --tp "$TP" --e "$EXTRA" --x "${NOPE:-7}" --y "$UNKNOWN" --z "$(cmd)"\n'
    assert _values(_variants(text), 1) == {
        ("EXTRA unset",): 'run --tp "$TP" --e "$EXTRA" --x "7" --y "$UNKNOWN" --z "$(cmd)"',
        ("EXTRA=yes",): 'run --tp "$TP" --e "yes" --x "7" --y "$UNKNOWN" --z "$(cmd)"'}


def test_case_arms_are_followed_per_row_and_later_lines_are_not():
    text = 'case "$CONC" in\n  1) AL=3.5 ;;\n  *) AL=2.5 ;;\nesac\nrun --al "$AL"\nAL=9\n'
    assert _values(_variants(text), 5) == {("CONC=1",): 'run --al "3.5"',
                                           ("CONC=4", "CONC=8", "CONC=16"): 'run --al "2.5"'}
    # an arm's body on its own lines, closed by a lone ;;
    text = text.replace("  1) AL=3.5 ;;", "  1)\n    AL=3.5\n    ;;")
    assert _values(_variants(text), 7) == {("CONC=1",): 'run --al "3.5"',
                                           ("CONC=4", "CONC=8", "CONC=16"): 'run --al "2.5"'}


def test_a_case_the_row_cannot_decide_leaves_the_value_unknown():
    text = 'case "$WHO" in\n  a|b) AL=3.5 ;;\n  *) AL=2.5 ;;\nesac\nrun --al "$AL"\n'
    found = _variants(text)
    values = {next(ln.text for ln in v.lines if ln.number == 5) for v in found}
    assert values == {'run --al "3.5"', 'run --al "2.5"'}  # taken both ways, like an if
    assert all(v.assumed for v in found)


def test_the_first_matching_arm_wins_and_patterns_match_the_rows_launch_variables():
    entry = {"model": "deepseek-ai/DeepSeek-V4-Pro", "multinode": True, "scenarios": {"agentic-coding": [
        {"search-space": [{"spec-decoding": "mtp", "conc-list": [4],
                           "decode": {"additional-settings": ["DECODE_MTP_SIZE=3"]}}]}]}}
    text = ('AL=""\ncase "${MODEL_NAME}:${DECODE_MTP_SIZE}" in\n  *DeepSeek-V4*:3) AL=2.49 ;;\n'
            '  *:3) AL=9 ;;\nesac\nrun SIM_AL=${AL}\n')
    assert _values(_variants(text, entry), 6) == {("DECODE_MTP_SIZE=3",): "run SIM_AL=2.49"}
    single = entry | {"multinode": False}  # MODEL_NAME is the multi-node launch's variable: unknown
    assert {_line(v, 6).text for v in _variants(text, single)} == {"run SIM_AL=2.49", "run SIM_AL=9", "run SIM_AL="}


def test_conditions_on_a_nodes_place_in_the_job_run_both_sides():
    text = ('if [ "$NODE_RANK" -eq 0 ]; then\n  ROLE=head\nelse\n  AL=2.5\n  run --al "$AL"\nfi\n')
    found = _variants(text)
    assert {next(ln.text for ln in v.lines if ln.number == 5).strip() for v in found} == {'run --al "2.5"'}
    assert not any(v.assumed for v in found)


def test_heredocs_and_inline_programs_are_not_shell_conditions():
    text = ('eval "$(python3 -c "\nif x in y:\n    print(1)\n")"\ncat <<EOF\nif nothing\nEOF\n'
            'if [ "$CONC" -le 4 ]; then\n  AL=3.5\nelse\n  AL=2.5\nfi\nrun --al "$AL"\n')
    assert _values(_variants(text), 13) == {("CONC=1", "CONC=4"): 'run --al "3.5"',
                                            ("CONC=8", "CONC=16"): 'run --al "2.5"'}


def test_decide_reads_integer_tests_of_row_variables():
    branch = Branch(row=(("CONC", "8"),))
    assert decide('[ "$CONC" -ge 8 ]', branch) is True
    assert decide('[[ $CONC -lt 8 ]]', branch) is False
    assert decide('[ "$CONC" -eq x ]', branch) is None
    assert decide('[ "$TP" -eq 8 ]', branch) is None


def test_a_default_never_overrides_a_row_field():
    assert _values(_variants('run --c "${CONC:-1}"\n'), 1) == {(): 'run --c "${CONC:-1}"'}


def test_past_the_cap_a_value_set_under_an_open_condition_stays_as_written():
    conditions = "".join(f'if [ -n "$F{i}" ]; then\n  X{i}=1\nfi\n' for i in range(5))
    text = f'AL=2.5\n{conditions}if [ -n "$G" ]; then\n  AL=9\nfi\nrun --al "$AL" ' + \
        " ".join(f'"$X{i}"' for i in range(5)) + "\n"
    (found,) = _variants(text)
    assert found.lines[-1].text.startswith('run --al "$AL"')


def test_a_double_quoted_json_value_naming_another_variable_is_followed():
    # vLLM launches build --speculative-config as escaped JSON in a shell string whose
    # acceptance length is itself a variable (reference PR #2487)
    text = ('AL=2.78\n'
            'if [ "${EVAL_ONLY}" = "true" ]; then\n'
            '  SPEC="{\\"method\\": \\"eagle3\\"}"\n'
            'else\n'
            '  SPEC="{\\"method\\": \\"eagle3\\", \\"synthetic_acceptance_length\\": $AL}"\n'
            'fi\n'
            'serve --speculative-config "$SPEC"\n')
    found = _variants(text)
    assert _values(found, 7) == {(): 'serve --speculative-config "{"method": "eagle3", '
                                      '"synthetic_acceptance_length": 2.78}"'}
    assert found[0].source(_line(found[0], 7)) == (f"AL=2.78 at {PATH}:1, SPEC={{\"method\": \"eagle3\", "
                                                  f"\"synthetic_acceptance_length\": 2.78}} at {PATH}:5")


def test_a_value_naming_a_variable_the_launch_never_sets_stays_as_written():
    text = 'MODEL=x\nif [[ -n "$MODEL_PATH" ]]; then\n  MODEL=$MODEL_PATH\nfi\nserve --model "$MODEL"\n'
    found = _variants(text)
    # MODEL=$MODEL_PATH cannot be followed, so it is not an assignment the rows choose between
    assert len(found) == 1 and not found[0].assumed


def test_an_acceptance_rate_computed_with_awk_is_followed():
    # ATOM launches derive the rate from the golden AL (reference PR #2576)
    text = ('AL=2.99\nK=3\nRATE=$(awk "BEGIN{print ($AL-1)/$K}")\n'
            'serve --num-speculative-tokens "$K" --spec-decode-acceptance-rate "$RATE"\n')
    assert _values(_variants(text), 4) == {
        (): 'serve --num-speculative-tokens "3" --spec-decode-acceptance-rate "0.663333"'}


def test_awk_that_is_not_plain_arithmetic_stays_as_written():
    from infx.signoff.rules.shell_values import arithmetic

    assert arithmetic("(2.99-1)/3") == "0.663333" and arithmetic("-2*3+1") == "-5"
    assert arithmetic("1/0") is None and arithmetic("system(1)") is None and arithmetic("2**8") is None
    text = 'K=3\nRATE=$(awk "BEGIN{print $UNSET/$K}")\nserve --rate "$RATE"\n'
    assert _values(_variants(text), 3) == {(): 'serve --rate "$RATE"'}


def test_values_naming_variables_many_times_over_stay_bounded():
    # each value names the next variable 300 times: followed in full, $A would be 300**4
    # characters (and as many lookups); too long a value stays as written instead
    names = "ABCDE"
    chain = [f'{n}="' + f"${names[i + 1]}" * 300 + '"' for i, n in reversed(list(enumerate(names[:-1])))]
    text = "".join(f"{n}=x\n" for n in names) + "\n".join(chain) + '\nserve --spec "$A"\n'
    number = text.count("\n")
    assert _values(_variants(text), number) == {(): 'serve --spec "$A"'}


def test_awk_arithmetic_nested_too_deep_for_the_parser_is_not_computed():
    from infx.signoff.rules.shell_values import arithmetic

    assert arithmetic("1" + "+1" * 5000) is None and arithmetic("-" * 5000 + "1") is None
    assert arithmetic("1" + "+1" * 100) == "101"


def test_a_conditions_script_variable_is_read_where_it_is_tested():
    text = ('AL=""\nif [[ "$CONC" -le 4 ]]; then\n  AL=3.5\nfi\nif [[ -n "$AL" ]]; then\n  ENV="SIM_AL=${AL}"\n'
            'fi\nrun "$ENV"\n')
    assert _values(_variants(text), 8) == {("CONC=1", "CONC=4"): 'run "SIM_AL=3.5"',
                                           ("CONC=8", "CONC=16"): 'run "$ENV"'}  # unset: "" stays unknown


def test_a_functions_positional_parameter_is_what_every_call_passes():
    entry = {"scenarios": {"agentic-coding": [{"search-space": [
        {"conc-list": [4], "decode": {"additional-settings": ["MTP=3"]}}]}]}}
    text = ('build() {\n    local steps="$2"\n    echo "--speculative-num-steps ${steps}"\n}\n'
            'A=$(build "prefill" "$MTP")\nB=$(build "decode" "$MTP")\n')
    assert _values(_variants(text, entry), 3) == {("MTP=3",): 'echo "--speculative-num-steps 3"'}
    calls_differ = text.replace('B=$(build "decode" "$MTP")', 'B=$(build "decode" 7)')
    assert _values(_variants(calls_differ, entry), 3) == {("MTP=3",): 'echo "--speculative-num-steps ${steps}"'}


def test_a_name_defaulting_to_itself_takes_the_lane_setting_or_the_default():
    text = 'SPEC="${SPEC:-2}"\nrun --k "$SPEC"\n'
    assert _values(_variants(text), 2) == {(): 'run --k "2"'}
    entry = {"scenarios": {"agentic-coding": [{"search-space": [
        {"conc-list": [1], "additional-settings": ["SPEC=3"]}, {"conc-list": [8]}]}]}}
    assert {_line(v, 2).text for v in _variants(text, entry)} == {'run --k "3"', 'run --k "2"'}


# what a launch author could write so that the reading says one value while bash runs another
# (the adversarial review of the launch reading): each now reads as unknown, or as bash does
def _run_values(text: str) -> set[str]:
    return {next(ln.text for ln in v.lines if ln.text.startswith("run")) for v in _variants(text)}


def test_a_write_the_reading_does_not_model_makes_the_value_unknown():
    for write in ("AL=$(echo 3.40)", '[[ -d / ]] && AL=3.40', "read AL < f", "unset AL", "declare AL=3.40"):
        assert _run_values(f'AL=2.99\n{write}\nrun --al "$AL"\n') == {'run --al "$AL"'}, write


def test_a_condition_on_a_rewritten_variable_is_not_decided_with_its_first_value():
    text = 'MODE=golden\nMODE=$(echo custom)\nAL=3.40\nif [[ "$MODE" == golden ]]; then\n  AL=2.99\nfi\nrun --al "$AL"\n'
    assert 'run --al "3.40"' in _run_values(text)  # what bash runs is a variant the rules judge


def test_case_arms_bash_reads_differently_are_not_decided():
    for arms in ('  1) AL=3.40 ;&\n  *) AL=2.99 ;;\n', '  "*") AL=2.99 ;;\n', '  [^0]) AL=2.99 ;;\n',
                 '  $MODE) AL=2.99 ;;\n'):
        text = f'AL=3.40\ncase "$CONC" in\n{arms}esac\nrun --al "$AL"\n'
        assert _run_values(text) != {'run --al "2.99"'}, arms


def test_a_value_set_on_one_node_only_is_not_the_value_every_node_reads():
    text = 'AL=3.40\nif [[ "${NODE_RANK:-0}" == 7 ]]; then\n  AL=2.99\nfi\nrun --al "$AL"\n'
    assert _run_values(text) == {'run --al "$AL"'}


def test_a_function_that_moves_its_arguments_resolves_no_positional_parameter():
    entry = {"scenarios": {"agentic-coding": [{"search-space": [{"conc-list": [4]}]}]}}
    text = 'serve() {\n    shift\n    local al="$1"\n    echo "--al ${al}"\n}\nserve 2.99 3.40\n'
    assert _values(_variants(text, entry), 4) == {(): 'echo "--al ${al}"'}


def test_settings_in_a_string_count_only_as_the_environment_of_a_command():
    from infx.signoff.rules.scan import env_settings
    assert ("SGLANG_SIMULATE_ACC_LEN", "2.99") not in env_settings('NOTE="SGLANG_SIMULATE_ACC_LEN=2.99 is golden"')
    assert ("SGLANG_SIMULATE_ACC_LEN", "2.99") in env_settings(
        'CMD="A=1 ${EXTRA} SGLANG_SIMULATE_ACC_LEN=2.99 python3 -m sglang.launch_server"')


def test_the_row_variables_are_what_the_launch_step_exports_for_the_planned_rows():
    """The seam: the planner's real rows of real corpus configs, through the launch step's real
    row_env, give every variable the sign-off's model of those rows (row_variables) claims —
    exports, lane settings and the row's own fields — with the same value."""
    from pathlib import Path

    from infx.config.runners import load_runners
    from infx.plan.generate import generate_full_sweep
    from infx.workflow.launch import row_env
    from infx.yamlio import load_file

    root = Path(__file__).resolve().parents[2]
    configs = load_file(root / "data" / "realprs" / "2309" / "head" / "configs" / "amd-master.yaml")
    runners = load_runners(root.parent / "configs" / "runners.yaml")
    keys = ["dsv4-fp4-mi355x-sglang-disagg-agentic-hicache-mtp", "dsv4-fp4-mi355x-sglang-disagg-mtp"]
    rows = generate_full_sweep({k: configs[k] for k in keys}, runners, evals="none")
    assert rows
    model = [dict(v) for k in keys for v in row_variables(configs[k])]
    envs = [row_env(row) for row in rows]
    compared = 0
    for variables in model:
        claimed = {n: v for n, v in variables.items() if n not in ("EVAL_ONLY", "RUN_EVAL", "CONC")}
        # some planned row of that lane runs with exactly these values
        assert any(all(env.get(n) == v for n, v in claimed.items()) for env in envs), claimed
        compared += len(claimed)
    assert compared > 20


def test_a_multi_node_row_reads_its_own_srt_slurm_recipe_only():
    # real #2657: one config, several CONFIG_FILE recipes pinning different acceptance for
    # different draft lengths; a row is judged by the recipe it hands the launcher
    root = "benchmarks/multi_node/srt-slurm-recipes/"
    lane = {"conc-list": [4], "spec-decoding": "mtp", "prefill": {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": True},
            "decode": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": False}}
    entry = {"multinode": True, "scenarios": {"agentic-coding": [{"search-space": [
        {**lane, "prefill": {**lane["prefill"], "additional-settings": [f"CONFIG_FILE=recipes/{name}.yaml"]}}
        for name in ("a-mtp5", "b-mtp3")]}]}}
    texts = {f"{root}{name}.yaml": f"env:\n  ACCEPTED: '{al}'\n" for name, al in (("a-mtp5", "2.6"), ("b-mtp3", "1.99"))}
    launcher = "runners/launch_x.sh"
    texts[launcher] = 'srtctl apply -f "$CONFIG_FILE"\n'
    lines = [ln for path, text in texts.items() for ln in text_lines(path, text)]
    found = variants(lines, texts, entry)
    by_recipe = {next(r for r in v.rows[0].split() if r.startswith("CONFIG_FILE=")): {ln.path for ln in v.lines}
                 for v in found}
    assert by_recipe == {"CONFIG_FILE=recipes/a-mtp5.yaml": {f"{root}a-mtp5.yaml", launcher},
                         "CONFIG_FILE=recipes/b-mtp3.yaml": {f"{root}b-mtp3.yaml", launcher}}


def test_a_json_config_built_with_printf_is_followed():
    # the reference's minimaxm3 B200/B300 vLLM launches (#2611, #2328)
    text = ('K=3\nAL=2.5\nSPEC=$(printf \\\n  \'{"model":"%s","num_speculative_tokens":%d,"synthetic_acceptance_length":%.2f}\' '
            '"$DRAFT" "$K" "$AL")\nrun --speculative-config "$SPEC"\n')
    lines = list(join_continuations(text_lines(PATH, text)))
    found = variants(lines, {PATH: text}, ENTRY)
    # the unknown %s stays as written inside the value, as on a line spelling the JSON out
    assert _values(found, 5) == {(): 'run --speculative-config "{"model":"$DRAFT","num_speculative_tokens":3,'
                                      '"synthetic_acceptance_length":2.50}"'}


def test_printf_formats_as_bash_does_or_not_at_all():
    from infx.signoff.rules.shell_values import printf

    def same(text):
        return text

    assert printf("'%s=%d %.2f %5.1f %%\\n' a 7 2.5 3", same) == "a=7 2.50   3.0 %"
    assert printf("'k=%d' 3.5", same) is None  # bash: invalid number
    assert printf("'k=%d' '$K'", same) is None  # a number conversion of what is not known
    assert printf("'%s %s' a", same) is None and printf("'%s' a b", same) is None  # arguments != conversions
    assert printf("'%q' a", same) is None and printf("'a\\x41'", same) is None  # not modelled
    assert printf("\"$F\" 3", lambda t: t.replace("$F", "k=%d")) == "k=3"  # a format from a variable


def test_printf_the_reading_cannot_follow_leaves_the_name_as_written():
    for write in ("AL=$(printf -v X '%s' 3)", "AL=$(printf '%s' \"$(cat f)\")", "AL=$(printf '%d' \"$U\")",
                  "AL=$(printf '$X')", "AL=$(printf '%s' 3 | tr 3 4)"):
        assert _run_values(f'AL=2.99\n{write}\nrun --al "$AL"\n') == {'run --al "$AL"'}, write
    assert _run_values("AL=2.99\nAL=$(printf '%.2f' 3.4)\nrun --al \"$AL\"\n") == {'run --al "3.40"'}


def test_a_write_on_an_arm_the_row_does_not_take_leaves_the_value_known():
    text = ('AL=2.99\nif [ "${EVAL_ONLY:-}" = "true" ]; then\n  AL=$(cat f)\nfi\nrun --al "$AL"\n')
    assert _run_values(text) == {'run --al "2.99"'}
    undecided = text.replace('"${EVAL_ONLY:-}" = "true"', '-f /x')
    assert _run_values(undecided) == {'run --al "$AL"'}


def test_an_elif_arm_is_not_the_value_of_rows_an_earlier_arm_takes():
    # real #2616: CONC <= 8 runs 7 draft tokens; reading `elif` alone gave those rows 3
    text = ('if [ "$CONC" -le 1 ]; then\n  K=7\nelif [ "$CONC" -le 8 ]; then\n  K=3\nelse\n  K=0\nfi\n'
            'run --k "$K"\n')
    assert _values(_variants(text), 8) == {("CONC=1",): 'run --k "7"', ("CONC=4",): 'run --k "3"',
                                           ("CONC=8", "CONC=16"): 'run --k "0"'} or \
        _values(_variants(text), 8) == {("CONC=1",): 'run --k "7"', ("CONC=4", "CONC=8"): 'run --k "3"',
                                        ("CONC=16",): 'run --k "0"'}


def test_lines_on_an_arm_the_rows_do_not_take_are_not_in_their_launch():
    text = ('if [ "$CONC" -le 4 ]; then\n  export SIM_AL=3.5\nelse\n  export SIM_AL=2.5\nfi\n'
            'K=0\nif [ "$K" -gt 0 ]; then\n  ARGS="--speculative-num-steps $K"\nfi\nrun $ARGS\n')
    found = {v.rows: {ln.number for ln in v.lines} & {2, 4, 8, 10} for v in _variants(text)}
    assert found == {("CONC=1", "CONC=4"): {2, 10}, ("CONC=8", "CONC=16"): {4, 10}}
    unknown = text.replace("K=0", "K=$(cat k)")  # a condition the reading cannot decide keeps its lines
    assert all(8 in {ln.number for ln in v.lines} for v in _variants(unknown))
