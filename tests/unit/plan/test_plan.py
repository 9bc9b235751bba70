"""Planner behaviour on fixture F (research/changelog.md §8) through real git repos."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lib.changelog_support import HISTORY, URL, fixture_f_repo, git

from infx.cli import main as infx_main
from infx.errors import InfxError
from infx.matrix import plan as plan_entry
from infx.plan import planner
from infx.plan.sweep_plan import EVAL_BUCKETS


def entry(*keys, link="XXX", **fields):
    lines = ["- config-keys:", *[f"    - \"{k}\"" for k in keys], "  description:",
             "    - \"Change\""]
    for name, value in fields.items():
        lines.append(f"  {name.replace('_', '-')}: {json.dumps(value)}")
    lines.append(f"  pr-link: {link}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(tmp_path, test_data, monkeypatch):
    fixture_f_repo(tmp_path, test_data)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def commit(repo, text: str | None = None, config_edit=None) -> tuple[str, str]:
    base = git(repo, "rev-parse", "HEAD")
    if text is not None:
        path = repo / "perf-changelog.yaml"
        path.write_text(path.read_text() + text)
    if config_edit:
        master = repo / "configs" / "f-master.yaml"
        master.write_text(config_edit(master.read_text()))
    git(repo, "commit", "-q", "--allow-empty", "-am", "change")
    return base, git(repo, "rev-parse", "HEAD")


def plan(repo, capsys, text=None, *flags, config_edit=None):
    """Run `infx plan`; returns (exit code, parsed plan or None, stderr)."""
    base, head = commit(repo, text, config_edit)
    code = infx_main(["plan", "--base-ref", base, "--head-ref", head, *flags])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def ok(repo, capsys, *blocks, flags=(), config_edit=None) -> dict:
    code, result, err = plan(repo, capsys, "".join("\n" + b for b in blocks), *flags,
                             config_edit=config_edit)
    assert code == 0, err
    return result


def failure(repo, capsys, *blocks, flags=(), config_edit=None) -> str:
    code, result, err = plan(repo, capsys, "".join("\n" + b for b in blocks), *flags,
                             config_edit=config_edit)
    assert code == 1 and result is None
    assert err.startswith("error: ")
    return err


def concs(rows):
    return [row["conc"] for row in rows]


def test_c1_plain_append(repo, capsys):
    result = ok(repo, capsys, entry("alpha-fp8-h100-vllm"))
    assert list(result) == ["single_node", "multi_node", "evals", "agentic_evals",
                            "multinode_evals", "multinode_agentic_evals", "changelog_metadata"]
    assert list(result["single_node"]) == ["8k1k", "1k1k"]
    assert concs(result["single_node"]["8k1k"]) == [4, 16, 32, 64]
    assert concs(result["single_node"]["1k1k"]) == [8, 16]
    assert result["multi_node"] == {}
    assert concs(result["evals"]) == [32, 64]
    assert all(r["eval-only"] and r["run-eval"] for r in result["evals"])
    assert all(r["eval-only"] is False for r in result["single_node"]["8k1k"])
    assert result["agentic_evals"] == result["multinode_evals"] == []
    meta = result["changelog_metadata"]["entries"]
    assert meta == [{"config-keys": ["alpha-fp8-h100-vllm"], "description": ["Change"],
                     "pr-link": "XXX", "evals-only": False, "all-evals": False,
                     "append-only": False}]


def test_output_is_one_compact_line(repo, capsys):
    base, head = commit(repo, "\n" + entry("alpha-fp8-h100-vllm"))
    assert plan_entry.main(["--base-ref", base, "--head-ref", head]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and ", " not in out.split('"description"')[0]
    first_row = json.loads(out)["single_node"]["8k1k"][0]
    assert list(first_row)[:3] == ["image", "model", "model-prefix"]
    assert list(first_row)[-1] == "recipe-fingerprint"


def test_module_entry_point_failure_prints_no_json(repo, capsys):
    base, head = commit(repo, "\n" + entry("nope"))
    assert plan_entry.main(["--base-ref", base, "--head-ref", head]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Config key 'nope' not found in master configs." in err


def test_c2_trim_keeps_lowest_and_fingerprints(repo, capsys):
    full = ok(repo, capsys, entry("alpha-fp8-h100-vllm"))
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    trimmed = ok(repo, capsys, entry("alpha-fp8-h100-vllm"), flags=["--trim-conc"])
    assert concs(trimmed["single_node"]["8k1k"]) == [4]
    assert concs(trimmed["single_node"]["1k1k"]) == [8]
    assert concs(trimmed["evals"]) == [32, 64]
    prints = {r["recipe-fingerprint"] for r in full["single_node"]["8k1k"]}
    assert len(prints) == 1 and len(next(iter(prints))) == 64
    assert trimmed["single_node"]["8k1k"][0]["recipe-fingerprint"] in prints
    assert all("recipe-fingerprint" not in r for r in trimmed["evals"])


def test_c3_wildcard_and_duplicates(repo, capsys):
    result = ok(repo, capsys, entry("alpha-*", "alpha-fp4-b200-vllm", link=URL + "512"))
    rows = result["single_node"]["8k1k"]
    assert [(r["precision"], r["conc"]) for r in rows] == [
        ("fp8", 4), ("fp8", 16), ("fp8", 32), ("fp8", 64), ("fp4", 16), ("fp4", 32)]
    assert [(r["precision"], r["conc"]) for r in result["evals"]] == [
        ("fp8", 32), ("fp8", 64), ("fp4", 32)]


def test_c3_question_mark_is_literal(repo, capsys):
    assert "Config key 'alpha-?' not found in master configs." in failure(
        repo, capsys, entry("alpha-?"))


def test_c3_unmatched_wildcard_fails_even_after_valid_key(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", "zeta-*"))
    assert "No config keys matched the wildcard pattern 'zeta-*' in master configs." in err
    assert err.startswith("error: perf-changelog.yaml:7 [config-keys]")


def test_errors_point_at_head_file_lines(repo, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm"),
                  entry("alpha-fp8-h100-vllm", all_evals="sometimes"))
    assert "::error file=perf-changelog.yaml,line=17::" in err
    assert "changelog entry is invalid" in err
    err = failure(repo, capsys, "- config-keys: [a\n")
    assert "not valid YAML" in err and "line=" in err


def test_c4_entry_evals_only(repo, capsys):
    result = ok(repo, capsys, entry("delta-fp8-b300-ax", evals_only=True))
    assert result["single_node"] == {} and result["multi_node"] == {}
    assert concs(result["evals"]) == [32]
    assert concs(result["agentic_evals"]) == [24]


def test_c5_all_evals_entry_claims_evals_first(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    result = ok(repo, capsys, entry("alpha-fp8-h100-vllm"),
                entry("alpha-fp8-h100-vllm", all_evals=True))
    assert concs(result["single_node"]["8k1k"]) == [4, 16, 32, 64]
    assert concs(result["single_node"]["1k1k"]) == [8, 16]
    assert concs(result["evals"]) == [4, 16, 32, 64]
    assert calls == [("all", ("fixed-seq-len", "agentic-coding")), ("none", None)]


def test_c6_scenario_filters(repo, capsys):
    agentic = entry("delta-fp8-b300-ax", scenario_type=["agentic-coding"])
    result = ok(repo, capsys, agentic)
    assert list(result["single_node"]) == ["agentic"]
    assert concs(result["single_node"]["agentic"]) == [1, 8, 24]
    assert concs(result["agentic_evals"]) == [24] and result["evals"] == []
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    both = ok(repo, capsys, agentic, entry("delta-fp8-b300-ax", scenario_type=["fixed-seq-len"]))
    assert concs(both["single_node"]["8k1k"]) == [16, 32]
    assert concs(both["evals"]) == [32]


def test_c7_history_edit_is_a_deletion(repo, capsys):
    path = repo / "perf-changelog.yaml"
    path.write_text(path.read_text().replace("History", "Rewritten"))
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm"))
    assert ("Deletions are not allowed in perf-changelog.yaml. Only additions to the changelog "
            "are permitted. Found deleted line:     - \"History\"") in err


def test_c7_whitespace_only_line_change_plans(repo, capsys):
    path = repo / "perf-changelog.yaml"
    path.write_text(path.read_text() + "  \n")
    git(repo, "commit", "-q", "-am", "blank")
    path.write_text(HISTORY + "\n")
    result = ok(repo, capsys, entry("alpha-fp4-b200-vllm"))
    assert concs(result["single_node"]["8k1k"]) == [16, 32]


def test_no_additions_and_empty_yaml(repo, capsys):
    assert "No additions found in the changelog file." in failure(repo, capsys)
    assert "No valid YAML entries found" in failure(repo, capsys, "# just a comment\n")


def test_edit_inside_history_as_mapping_is_rejected(repo, capsys):
    path = repo / "perf-changelog.yaml"
    path.write_text(HISTORY + "  evals-only: true\n")
    err = failure(repo, capsys)
    assert "not a list of entries" in err


def test_invalid_entry_names_key(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", eval_conc=[1]))
    assert "unknown field 'eval-conc' (did you mean 'eval-concs'?)" in err and "[eval-conc]" in err
    assert "Extra inputs" not in err


# --- eval policies and modifiers ----------------------------------------------------------

def spy(monkeypatch):
    """Record (eval mode, scenario filter) of each generator call."""
    from infx.plan import generate

    calls = []
    real = generate.generate_test_config

    def recording(configs, runners, keys, **options):
        scope = options.get("scenario_type")
        calls.append((options["evals"], tuple(scope) if scope else None))
        return real(configs, runners, keys, **options)

    monkeypatch.setattr(generate, "generate_test_config", recording)
    return calls


BOTH = ("fixed-seq-len", "agentic-coding")


@pytest.mark.parametrize("fields, flags, expected", [
    ({}, [], [("none", None), ("subset", BOTH)]),
    ({}, ["--all-evals"], [("none", None), ("all", BOTH)]),
    ({}, ["--evals-only"], [("subset", BOTH)]),
    ({}, ["--evals-only", "--all-evals"], [("all", BOTH)]),
    ({"evals-only": True}, [], [("subset", BOTH)]),
    ({"evals-only": True}, ["--all-evals"], [("all", BOTH)]),
    ({"all-evals": True}, [], [("all", BOTH)]),
    ({"all-evals": True}, ["--evals-only"], [("all", BOTH)]),
    ({"evals-only": True, "all-evals": True}, ["--all-evals"], [("all", BOTH)]),
])
def test_modifier_truth_table(repo, capsys, monkeypatch, fields, flags, expected):
    calls = spy(monkeypatch)
    block = entry("alpha-fp8-h100-vllm", **{k.replace("-", "_"): v for k, v in fields.items()})
    ok(repo, capsys, block, flags=flags)
    assert calls == expected


def test_agentic_only_entry_scopes_every_call(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    ok(repo, capsys, entry("delta-fp8-b300-ax", scenario_type=["agentic-coding"]),
       flags=["--all-evals"])
    assert calls == [("none", ("agentic-coding",)), ("all", ("agentic-coding",))]


def test_agentic_only_entry_with_cli_evals_only(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    result = ok(repo, capsys, entry("delta-fp8-b300-ax", scenario_type=["agentic-coding"]),
                flags=["--evals-only"])
    assert calls == [("subset", ("agentic-coding",))]
    assert result["single_node"] == {} and concs(result["agentic_evals"]) == [24]


def test_disjoint_scenario_entries_generate_separately(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    ok(repo, capsys, entry("delta-fp8-b300-ax", scenario_type=["fixed-seq-len"]),
       entry("delta-fp8-b300-ax", scenario_type=["agentic-coding"]))
    assert len(calls) == 4


def test_agentic_all_evals_then_fixed_entry(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    ok(repo, capsys, entry("delta-fp8-b300-ax", all_evals=True,
                           scenario_type=["agentic-coding"]),
       entry("delta-fp8-b300-ax"))
    assert calls == [("all", ("agentic-coding",)), ("none", None),
                     ("subset", ("fixed-seq-len",))]


def test_repeated_key_generated_once(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    result = ok(repo, capsys, entry("alpha-fp8-h100-vllm"), entry("alpha-fp8-h100-vllm"))
    assert len(calls) == 2 and concs(result["single_node"]["8k1k"]) == [4, 16, 32, 64]
    assert len(result["changelog_metadata"]["entries"]) == 2


def test_cli_all_evals_keeps_throughput(repo, capsys):
    result = ok(repo, capsys, entry("gamma-fp4-gb200-dyn"), flags=["--all-evals"])
    assert [r["conc"] for r in result["multi_node"]["8k1k"]] == [[32, 64, 256], [64, 128]]
    mn = result["multinode_evals"]
    assert [r["conc"] for r in mn] == [[32, 64, 256], [64, 128]]
    assert all(r["eval-all-concs"] is True and "eval-conc" not in r for r in mn)
    assert all(r["eval-all-concs"] is False for r in result["multi_node"]["8k1k"])


def test_c10b_eval_min_prefill_ep(repo, capsys):
    result = ok(repo, capsys, entry("gamma-fp4-gb200-dyn", eval_min_prefill_ep=2))
    assert [r["conc"] for r in result["multi_node"]["8k1k"]] == [[32, 64, 256], [64, 128]]
    assert [r["eval-conc"] for r in result["multinode_evals"]] == [128]
    assert result["multinode_evals"][0]["prefill"]["ep"] == 4


def test_multinode_trim(repo, capsys):
    result = ok(repo, capsys, entry("gamma-fp4-gb200-dyn"), flags=["--trim-conc"])
    assert [r["conc"] for r in result["multi_node"]["8k1k"]] == [[32], [64]]
    assert [r["eval-conc"] for r in result["multinode_evals"]] == [256, 128]


def test_no_evals_entry(repo, capsys):
    result = ok(repo, capsys, entry("alpha-fp8-h100-vllm", no_evals=True),
                entry("gamma-fp4-gb200-dyn"))
    assert concs(result["single_node"]["8k1k"]) == [4, 16, 32, 64]
    assert result["evals"] == [] and len(result["multinode_evals"]) == 2
    assert result["changelog_metadata"]["entries"][0]["no-evals"] is True


def test_no_evals_with_cli_modifier(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", no_evals=True),
                  flags=["--evals-only"])
    assert "no-evals entries cannot use all-evals or evals-only modifiers" in err


# --- eval-concs ------------------------------------------------------------------------------

def test_eval_concs_keeps_listed_eval_rows_only(repo, capsys):
    result = ok(repo, capsys, entry("alpha-fp8-h100-vllm", eval_concs=[64, 4]))
    assert concs(result["evals"]) == [64]
    assert concs(result["single_node"]["8k1k"]) == [4, 16, 32, 64]  # throughput untouched
    assert result["changelog_metadata"]["entries"][0]["eval-concs"] == [64, 4]


def test_eval_concs_with_all_evals_widens_choice(repo, capsys):
    result = ok(repo, capsys, entry("alpha-fp8-h100-vllm", all_evals=True, eval_concs=[4, 16]))
    assert concs(result["evals"]) == [4, 16]


def test_eval_concs_narrows_multinode_all_concurrency_row(repo, capsys):
    result = ok(repo, capsys, entry("gamma-fp4-gb200-dyn", all_evals=True,
                                    eval_concs=[64, 256]))
    assert [r["conc"] for r in result["multinode_evals"]] == [[64, 256], [64]]


def test_eval_concs_on_multinode_subset_uses_eval_conc(repo, capsys):
    result = ok(repo, capsys, entry("gamma-fp4-gb200-dyn", eval_concs=[128]))
    assert [r["eval-conc"] for r in result["multinode_evals"]] == [128]


def test_eval_concs_applies_to_agentic_rows(repo, capsys):
    result = ok(repo, capsys, entry("delta-fp8-b300-ax", all_evals=True, eval_concs=[8]))
    assert concs(result["agentic_evals"]) == [8] and result["evals"] == []


def test_eval_concs_without_match_fails(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", eval_concs=[4]))
    assert "eval-concs [4] of changelog entry 1 matched no eval row" in err
    assert "[32, 64]" in err


def test_eval_concs_on_keys_already_planned_by_another_entry(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", all_evals=True),
                  entry("alpha-fp8-h100-vllm", eval_concs=[64]))
    assert "eval-concs [64] of changelog entry 2" in err
    assert "already plans these evals" in err


def test_eval_concs_after_prefill_filter(repo, capsys):
    err = failure(repo, capsys, entry("gamma-fp4-gb200-dyn", eval_min_prefill_ep=2,
                                      eval_concs=[256]))
    assert "selected concurrencies [128]" in err


def test_eval_concs_cannot_combine(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", eval_concs=[32], no_evals=True))
    assert "eval-concs cannot be combined with no-evals" in err
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", eval_concs=[32], append_only=True))
    assert "cannot be combined" in err


# --- append-only ---------------------------------------------------------------------------

def add_48(text: str) -> str:
    return text.replace("{ tp: 4, conc-list: [16, 32] }", "{ tp: 4, conc-list: [16, 32, 48] }")


APPEND = entry("alpha-fp4-b200-vllm", append_only=True, scenario_type=["fixed-seq-len"])


def test_c10a_append_only_delta(repo, capsys, monkeypatch):
    calls = spy(monkeypatch)
    result = ok(repo, capsys, APPEND, config_edit=add_48)
    assert concs(result["single_node"]["8k1k"]) == [48]
    assert len(result["single_node"]["8k1k"][0]["recipe-fingerprint"]) == 64
    assert result["evals"] == [] and calls == [("none", ("fixed-seq-len",))] * 2
    assert result["changelog_metadata"]["entries"][0]["append-only"] is True


def test_append_only_image_change(repo, capsys):
    def bump(text):
        return add_48(text).replace("vllm/vllm-openai:v0.11.0\n  model: example/alpha-fp4",
                                    "vllm/vllm-openai:v0.12.0\n  model: example/alpha-fp4")
    assert "remove or modify" in failure(repo, capsys, APPEND, config_edit=bump)


def test_append_only_other_config_edited(repo, capsys):
    def both(text):
        return add_48(text).replace("conc-list: [8, 16]", "conc-list: [8, 16, 32]")
    assert "changed configs not selected" in failure(repo, capsys, APPEND, config_edit=both)


def test_append_only_removed_point(repo, capsys):
    def swap(text):
        return text.replace("{ tp: 4, conc-list: [16, 32] }", "{ tp: 4, conc-list: [32, 48] }")
    assert "remove existing concurrency points: [16]" in failure(repo, capsys, APPEND,
                                                                 config_edit=swap)


def test_append_only_nothing_new(repo, capsys):
    assert "did not add any generated points" in failure(repo, capsys, APPEND)


def test_append_only_cannot_mix(repo, capsys):
    err = failure(repo, capsys, APPEND, entry("alpha-fp8-h100-vllm"), config_edit=add_48)
    assert "cannot share a sweep" in err
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm"), APPEND, config_edit=add_48)
    assert "append-only entries cannot share a sweep with regular changelog entries" in err


@pytest.mark.parametrize("flags", [["--evals-only"], ["--all-evals"],
                                   ["--all-evals", "--evals-only"],
                                   ["--evals-only", "--trim-conc"],
                                   ["--all-evals", "--trim-conc"]])
def test_append_only_with_cli_eval_modifiers(repo, capsys, flags):
    err = failure(repo, capsys, APPEND, flags=flags, config_edit=add_48)
    assert "append-only sweeps cannot use all-evals or evals-only modifiers" in err


def test_append_only_trim_applies_after_delta(repo, capsys):
    result = ok(repo, capsys, APPEND, flags=["--trim-conc"], config_edit=lambda text: text.replace(
        "{ tp: 4, conc-list: [16, 32] }", "{ tp: 4, conc-list: [16, 32, 48, 96] }"))
    assert concs(result["single_node"]["8k1k"]) == [48]


@pytest.mark.parametrize("field", ["evals-only: true", "all-evals: true",
                                   "eval-min-prefill-ep: 2"])
def test_append_only_with_entry_eval_fields(repo, capsys, field):
    block = APPEND.replace("  pr-link", f"  {field}\n  pr-link")
    err = failure(repo, capsys, block, config_edit=add_48)
    assert "append-only cannot be combined with eval selection fields" in err


def test_append_only_unselected_scenario_edit(repo, capsys):
    delta = entry("delta-fp8-b300-ax", append_only=True, scenario_type=["fixed-seq-len"])

    def edit(text):
        return text.replace("conc-list: [1, 8, 24]", "conc-list: [1, 8, 24, 32]")
    assert "changed a scenario outside its changelog scope" in failure(repo, capsys, delta,
                                                                       config_edit=edit)


ROUTER = 'router: { name: vllm-router, version: "0.1.0" }'


def route_alpha_fp4(text: str) -> str:
    """Give alpha-fp4-b200-vllm (one scenario only) a config-wide router."""
    return text.replace("  precision: fp4\n  framework: vllm\n",
                        f"  precision: fp4\n  framework: vllm\n  {ROUTER}\n")


def move_router_into_rows(text: str, router: str = ROUTER) -> str:
    text = text.replace(f"  framework: vllm\n  {ROUTER}\n", "  framework: vllm\n")
    return text.replace("{ tp: 4, conc-list: [16, 32] }",
                        f"{{ tp: 4, conc-list: [16, 32], {router} }}\n"
                        f"      - {{ tp: 8, conc-list: [8, 16], {router} }}")


def test_append_only_router_moved_into_rows_plus_new_row(repo, capsys):
    commit(repo, config_edit=route_alpha_fp4)
    result = ok(repo, capsys, entry("alpha-fp4-b200-vllm", append_only=True),
                config_edit=move_router_into_rows)
    rows = result["single_node"]["8k1k"]
    assert [(r["tp"], r["conc"]) for r in rows] == [(8, 8), (8, 16)]
    assert all(r["router"] == {"name": "vllm-router", "version": "0.1.0"} for r in rows)
    assert result["evals"] == []


def test_append_only_router_changed_while_moving(repo, capsys):
    commit(repo, config_edit=route_alpha_fp4)
    other = 'router: { name: vllm-router, version: "0.2.0" }'
    err = failure(repo, capsys, entry("alpha-fp4-b200-vllm", append_only=True),
                  config_edit=lambda text: move_router_into_rows(text, other))
    assert "may not remove or modify existing generated recipes" in err


def test_append_only_config_wide_change_with_unselected_scenario(repo, capsys):
    delta = entry("delta-fp8-b300-ax", append_only=True, scenario_type=["fixed-seq-len"])

    def edit(text):
        text = text.replace("  framework: sglang\n", f"  framework: sglang\n  {ROUTER}\n")
        return text.replace("{ tp: 8, conc-list: [16, 32] }", "{ tp: 8, conc-list: [16, 32, 64] }")
    err = failure(repo, capsys, delta, config_edit=edit)
    assert ("changed config-wide fields that can affect scenarios outside its changelog "
            "scope: 'delta-fp8-b300-ax'") in err


def test_append_only_range_rewritten_as_list_plus_new_point(repo, capsys):
    delta = entry("delta-fp8-b300-ax", append_only=True, scenario_type=["fixed-seq-len"])
    commit(repo, config_edit=lambda text: text.replace(
        "{ tp: 8, conc-list: [16, 32] }", "{ tp: 8, conc-start: 16, conc-end: 32 }"))
    result = ok(repo, capsys, delta, config_edit=lambda text: text.replace(
        "{ tp: 8, conc-start: 16, conc-end: 32 }", "{ tp: 8, conc-list: [16, 32, 48] }"))
    assert concs(result["single_node"]["8k1k"]) == [48]


NEW_CONFIG = """alpha-fp4-b300-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: example/alpha-fp4
  model-prefix: alpha
  runner: b200
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-list: [16] }
"""


def test_append_only_selected_config_missing_at_base(repo, capsys):
    err = failure(repo, capsys, entry("alpha-fp4-b300-vllm", append_only=True),
                  config_edit=lambda text: text + NEW_CONFIG)
    assert ("append-only requires every selected config to exist in the base revision; "
            "missing: ['alpha-fp4-b300-vllm']") in err


# --- robustness and summary ----------------------------------------------------------------

@pytest.mark.parametrize("bad_key, message", [
    ("nope-key", "Config key 'nope-key' not found in master configs."),
    ("nope-*", "No config keys matched the wildcard pattern 'nope-*' in master configs."),
])
def test_bad_runner_file_does_not_hide_key_errors(repo, capsys, bad_key, message):
    (repo / "configs" / "runners.yaml").write_text("labels: [broken\n")
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm", bad_key))
    assert message in err


def test_failure_in_a_later_generator_call_prints_nothing(repo, capsys, monkeypatch):
    from infx.plan import generate

    real = generate.generate_test_config
    calls = []

    def failing_second(configs, runners, keys, **options):
        calls.append(keys)
        if len(calls) == 2:
            raise ValueError("simulated generator failure")
        return real(configs, runners, keys, **options)

    monkeypatch.setattr(generate, "generate_test_config", failing_second)
    err = failure(repo, capsys, entry("alpha-fp8-h100-vllm"))
    assert "matrix generation failed for ['alpha-fp8-h100-vllm']: simulated" in err


def test_summary_goes_to_step_summary(repo, capsys, monkeypatch, tmp_path_factory):
    target = tmp_path_factory.mktemp("gh") / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    planned = ok(repo, capsys, entry("alpha-*"), flags=["--summary"])
    text = target.read_text()
    assert "| `single_node.8k1k` | 6 | 40 |" in text  # jobs, then GPUs: 4 at TP8 (h100), 2 at TP4 (b200)
    assert "| `alpha-fp8-h100-vllm` | 8 | 64 |" in text
    assert "| `h100` | 8 | 64 |" in text
    # the plan on stdout (the drop-in output) is the same with or without the summary
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    base, head = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    assert infx_main(["plan", "--base-ref", base, "--head-ref", head]) == 0
    assert json.loads(capsys.readouterr().out) == planned


def test_config_files_accept_space_separated_list(repo, capsys):
    (repo / "configs" / "empty-master.yaml").write_text("{}\n")
    base, head = commit(repo, "\n" + entry("alpha-fp8-h100-vllm"))
    code = infx_main(["plan", "--base-ref", base, "--head-ref", head, "--config-files",
                      "configs/f-master.yaml", "configs/empty-master.yaml", "--trim-conc"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert concs(json.loads(out)["single_node"]["8k1k"]) == [4]


@pytest.fixture(scope="module")
def f_sources(request):
    data = request.config.rootpath / "tests" / "data" / "changelog"
    return planner.file_sources([str(data / "f-master.yaml")], str(data / "f-runners.yaml"))


yaml_like = st.text(st.sampled_from(list("- :\n\"'[]{}#&*!|>%@`,?abck1 \t")), max_size=80)


@settings(max_examples=100, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(text=st.one_of(yaml_like, st.text(max_size=60),
                      st.builds(lambda k, extra: entry(k) + extra,
                                st.sampled_from(["alpha-*", "gamma-fp4-gb200-dyn", "x"]),
                                yaml_like)))
def test_planner_never_crashes_on_added_text(f_sources, text):
    try:
        entries = planner.parse_additions(text)
        result = planner.build_plan(entries, base_ref="a", head_ref="b",
                                    flags=planner.PlanFlags(), sources=f_sources)
    except InfxError as exc:
        assert str(exc)
    else:
        assert set(result.to_json()) >= {"single_node", "evals", "changelog_metadata"}


def test_rows_breaking_the_contract_fail_closed(f_sources):
    def broken(configs, runners, keys, **options):
        return [{"image": "i", "conc": "many"}]

    sources = planner.Sources(f_sources.load_configs, f_sources.load_runners, generate=broken)
    entries = planner.parse_additions(entry("alpha-fp8-h100-vllm"))
    with pytest.raises(InfxError, match="matrix row"):
        planner.build_plan(entries, base_ref="a", head_ref="b", flags=planner.PlanFlags(),
                           sources=sources)


# --- §5 items 44-45: modifier truth table x trim, four overlapping entries -------------------

SINGLE, MULTI = "nu-fp8-b300-sglang", "nu-fp8-gb300-dyn"
THROUGHPUT = {
    False: {"single_node": {"8k1k": [16, 32, 64], "agentic": [16, 32]},
            "multi_node": {"8k1k": [[16, 32, 64]], "agentic": [[16], [32]]}},
    # the reference trims single-node rows per shape and cuts multi-node lists to their
    # minimum; one-concurrency multi-node rows are left alone
    True: {"single_node": {"8k1k": [16], "agentic": [16]},
           "multi_node": {"8k1k": [[16]], "agentic": [[16], [32]]}},
}
SUBSET = {"evals": [32, 64], "agentic_evals": [32], "multinode_evals": [[16, 32, 64]],
          "multinode_agentic_evals": [[32]]}
ALL = {"evals": [16, 32, 64], "agentic_evals": [16, 32], "multinode_evals": [[16, 32, 64]],
       "multinode_agentic_evals": [[16, 32]]}


@pytest.fixture(scope="module")
def n2_sources(request):
    data = request.config.rootpath / "tests" / "data" / "changelog"
    return planner.file_sources([str(data / "n2-master.yaml")], str(data / "n2-runners.yaml"))


def n2_plan(sources, text: str, **flags) -> dict:
    entries = planner.parse_additions(text)
    return planner.build_plan(entries, base_ref="a", head_ref="b",
                              flags=planner.PlanFlags(**flags), sources=sources).to_json()


def shape(result: dict) -> dict:
    """Concurrencies per bucket (empty buckets left out)."""
    out = {node: {name: concs(rows) for name, rows in result[node].items()}
           for node in ("single_node", "multi_node") if result[node]}
    out.update({name: concs(result[name]) for name in EVAL_BUCKETS if result[name]})
    return out


ENTRY_FLAGS = [{}, {"evals_only": True}, {"all_evals": True},
               {"evals_only": True, "all_evals": True}]
CLI_FLAGS = [{}, {"all_evals": True}, {"evals_only": True},
             {"all_evals": True, "evals_only": True}]


@pytest.mark.parametrize("trim", [False, True])
@pytest.mark.parametrize("cli", CLI_FLAGS)
@pytest.mark.parametrize("fields", ENTRY_FLAGS)
def test_item44_truth_table_with_trim(n2_sources, fields, cli, trim):
    result = n2_plan(n2_sources, entry(SINGLE, MULTI, **fields), trim=trim, **cli)
    benchmarks = not (cli.get("evals_only") or fields.get("evals_only")
                      or fields.get("all_evals"))
    every_eval = cli.get("all_evals") or fields.get("all_evals")
    expected = dict(THROUGHPUT[trim]) if benchmarks else {}
    expected.update(ALL if every_eval else SUBSET)
    assert shape(result) == expected
    all_concs = [r.get("eval-all-concs") for r in result["multinode_evals"]]
    assert all_concs == ([True] if every_eval else [False])
    assert [r.get("eval-conc") for r in result["multinode_evals"]] == (
        [None] if every_eval else [64])
    assert [r["eval-conc"] for r in result["multinode_agentic_evals"]] == [32]


def test_item45_four_overlapping_entries(request, monkeypatch):
    calls = spy(monkeypatch)
    data = request.config.rootpath / "tests" / "data" / "changelog"
    n2_sources = planner.file_sources([str(data / "n2-master.yaml")],
                                      str(data / "n2-runners.yaml"))
    text = "\n".join([entry(SINGLE), entry(MULTI),
                      entry(SINGLE, all_evals=True, scenario_type=["agentic-coding"]),
                      entry(MULTI, all_evals=True, scenario_type=["fixed-seq-len"])])
    assert shape(n2_plan(n2_sources, text)) == {
        "single_node": {"8k1k": [16, 32, 64], "agentic": [16, 32]},
        "multi_node": {"8k1k": [[16, 32, 64]], "agentic": [[16], [32]]},
        "evals": [32, 64], "agentic_evals": [16, 32], "multinode_evals": [[16, 32, 64]],
        "multinode_agentic_evals": [[32]]}
    # all-evals entries go first and claim their scenarios; regular entries fill the rest
    assert calls == [("all", ("agentic-coding",)), ("all", ("fixed-seq-len",)),
                     ("none", None), ("subset", ("fixed-seq-len",)),
                     ("none", None), ("subset", ("agentic-coding",))]


# --- §5 item 50: inputs read once, no subprocess, empty input fails first ---------------------

def test_planning_reads_each_input_once_and_spawns_nothing(request, tmp_path, monkeypatch):
    import subprocess as subprocess_module
    from pathlib import Path

    data = request.config.rootpath / "tests" / "data" / "changelog"
    extra = tmp_path / "extra-master.yaml"
    extra.write_text("{}\n")
    files = [str(data / "f-master.yaml"), str(extra), str(data / "f-runners.yaml")]
    reads: list[str] = []
    real_open = Path.open
    package = str(Path(planner.__file__).resolve().parent.parent)

    def counting_open(self, *args, **kwargs):
        if not str(self.resolve()).startswith(package):  # packaged schemas do not count
            reads.append(str(self))
        return real_open(self, *args, **kwargs)

    def no_subprocess(*args, **kwargs):
        raise AssertionError("the planner may not spawn processes")

    monkeypatch.setattr(Path, "open", counting_open)
    monkeypatch.setattr(subprocess_module, "run", no_subprocess)
    monkeypatch.setattr(subprocess_module, "Popen", no_subprocess)
    sources = planner.file_sources(files[:2], files[2])
    text = "\n".join([entry("alpha-*"), entry("gamma-fp4-gb200-dyn", all_evals=True),
                      entry("delta-fp8-b300-ax", scenario_type=["agentic-coding"])])
    result = planner.build_plan(planner.parse_additions(text), base_ref="a", head_ref="b",
                                flags=planner.PlanFlags(trim=True), sources=sources).to_json()
    assert sorted(reads) == sorted(files)
    assert result["single_node"]["agentic"] and result["multinode_evals"]


def test_empty_entry_list_fails_before_reading_inputs():
    def untouchable():
        raise AssertionError("inputs read for an empty plan")

    sources = planner.Sources(load_configs=untouchable, load_runners=untouchable)
    with pytest.raises(InfxError, match="No valid YAML entries found"):
        planner.build_plan([], base_ref="a", head_ref="b", flags=planner.PlanFlags(),
                           sources=sources)
