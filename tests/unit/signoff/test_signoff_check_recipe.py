"""Check `recipe`: link present, merged, settings match; N/A outside vLLM/SGLang."""

from __future__ import annotations

from dataclasses import replace

from lib.signoff_policy_support import with_body, with_head_file, world_evidence

from infx.signoff.checks.recipe import run
from infx.signoff.model import ChangedFile, ExternalPull, Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings

LINK = "https://github.com/sgl-project/sglang/pull/21001"


def scenario6(**changes):
    return world_evidence("scenario6", **changes)


def with_pull(evidence, **fields):
    pull = evidence.external_pulls["sgl-project/sglang#21001"]
    return replace(evidence, external_pulls={"sgl-project/sglang#21001": replace(pull, **fields)})


def test_pass_names_link_and_settings():
    outcome = run(scenario6(), SETTINGS)
    assert outcome.status == Status.PASS
    assert LINK in outcome.reason
    assert "--model Qwen/Qwen3.5-397B-A17B-FP8" in outcome.reason
    assert "--tensor-parallel-size 4" in outcome.reason


def test_na_for_vendor_frameworks():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.NA
    assert "vllm/sglang" in outcome.reason


def test_fail_without_link():
    evidence = scenario6()
    outcome = run(with_body(evidence, evidence.signoff.body.replace(LINK, "similar to the official recipe")), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "no sglang upstream recipe link" in outcome.reason
    assert "configs/amd-master.yaml:" in outcome.reason


def test_fail_when_not_merged():
    outcome = run(with_pull(scenario6(), merged_at=None, state="open"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "sgl-project/sglang#21001 is not merged (state: open)" in outcome.reason


def test_fail_closed_when_merge_status_unreadable():
    outcome = run(scenario6(external_pulls={"sgl-project/sglang#21001": None}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason
    assert run(scenario6(external_pulls={}), SETTINGS).status == Status.FAIL


def test_fail_when_sglang_pr_is_not_a_cookbook_change():
    pull = scenario6().external_pulls["sgl-project/sglang#21001"]
    moved = tuple(replace(f, filename="python/sglang/srt/server.py") for f in pull.files)
    outcome = run(with_pull(scenario6(), files=moved), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "does not touch the SGLang cookbook" in outcome.reason


def test_fail_when_a_major_setting_is_missing_upstream():
    pull = scenario6().external_pulls["sgl-project/sglang#21001"]
    patch = pull.files[0].patch.replace("--tp 4", "--tp 8")
    outcome = run(with_pull(scenario6(), files=(replace(pull.files[0], patch=patch),)), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "lacks agg: --tensor-parallel-size 4" in outcome.reason


def test_inferencex_only_justification_exempts_a_setting():
    pull = scenario6().external_pulls["sgl-project/sglang#21001"]
    patch = pull.files[0].patch.replace("--tp 4", "--tp 8")
    evidence = with_pull(scenario6(), files=(replace(pull.files[0], patch=patch),))
    body = evidence.signoff.body.replace("Signed:", "- InferenceX-only settings: the TP4 arm.\n\nSigned:")
    assert run(with_body(evidence, body), SETTINGS).status == Status.PASS


def test_link_for_the_other_engine_does_not_count():
    evidence = scenario6()
    body = evidence.signoff.body.replace(LINK, "https://github.com/vllm-project/recipes/pull/9")
    outcome = run(with_body(evidence, body), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "no sglang upstream recipe link" in outcome.reason


PAGE = "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5"
SOURCE = "sgl-project/sglang/docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx at main"
PAGE_TEXT = """---
title: Qwen3.5
---
## Deploy Qwen3.5-397B-A17B-FP8 on AMD MI355X

```bash
python -m sglang.launch_server \\
  --model Qwen/Qwen3.5-397B-A17B-FP8 \\
  --tp 4 \\
  --speculative-algorithm EAGLE --speculative-num-steps 3
```
"""


def with_page(page=PAGE, files=None):
    evidence = scenario6()
    evidence = with_body(evidence, evidence.signoff.body.replace(LINK, page))
    return replace(evidence, external_pulls={},
                   external_files={SOURCE: PAGE_TEXT} if files is None else files)


def test_published_page_is_judged_on_its_upstream_source_file():
    outcome = run(with_page(), SETTINGS)
    assert outcome.status == Status.PASS
    assert (f"{PAGE} (source sgl-project/sglang/docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx at main) "
            "is published and lists the production settings") in outcome.reason
    assert "--tensor-parallel-size 4" in outcome.reason


def test_archived_cookbook_page_is_judged_on_the_current_cookbook_page():
    page = "https://cookbook.sglang.io/autoregressive/Qwen/Qwen3.5"
    assert run(with_page(page), SETTINGS).status == Status.PASS
    outcome = run(with_page(page, files={}), SETTINGS)
    assert outcome.status == Status.FAIL and "was not read" in outcome.reason


def test_published_page_missing_a_setting_fails_naming_the_source():
    outcome = run(with_page(files={SOURCE: PAGE_TEXT.replace("--tp 4", "--tp 8")}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "Qwen3.5.mdx at main) lacks agg: --tensor-parallel-size 4" in outcome.reason


def test_published_page_whose_source_does_not_exist_fails_with_the_fix():
    outcome = run(with_page(files={SOURCE: None}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "which does not exist; correct the page's mapping in configs/policy/recipe-pages.yaml" \
        in " ".join(outcome.details)


def test_published_page_whose_source_was_not_read_fails_closed():
    outcome = run(with_page(files={}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "was not read, so its settings could not be verified" in " ".join(outcome.details)


def test_page_on_an_unmapped_site_fails_closed_naming_the_policy_file():
    page = "https://rocm.blogs.amd.com/artificial-intelligence/qwen35-mi355x/README.html"
    outcome = run(with_page(page), SETTINGS)
    assert outcome.status == Status.FAIL
    detail = " ".join(outcome.details)
    assert f"{page} is not on a recipe site configs/policy/recipe-pages.yaml maps" in detail
    assert "add the site with its source repository to configs/policy/recipe-pages.yaml" in detail
    assert "docs.sglang.io" in detail  # the mapped sites are named


def test_page_of_a_mapped_site_that_is_not_a_recipe_page_fails_with_the_patterns():
    outcome = run(with_page("https://docs.sglang.io/cookbook/intro"), SETTINGS)
    assert outcome.status == Status.FAIL
    detail = " ".join(outcome.details)
    assert "is not a recipe page of docs.sglang.io" in detail
    assert "docs.sglang.io/cookbook/{category}/{org}/{model}" in detail


def test_page_links_that_leave_the_mapped_paths_read_nothing_and_fail():
    for page in ("https://docs.sglang.io/cookbook/autoregressive/../../../.github/workflows",
                 "https://docs.sglang.io/cookbook/autoregressive/%2e%2e/Qwen/Qwen3.5",
                 "https://docs.sglang.io@evil.example/cookbook/autoregressive/Qwen/Qwen3.5",
                 "https://evil.example/docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5"):
        assert run(with_page(page), SETTINGS).status == Status.FAIL, page


def test_a_vllm_page_does_not_count_for_an_sglang_config():
    outcome = run(with_page("https://recipes.vllm.ai/Qwen/Qwen3.5-397B-A17B-FP8"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "no sglang upstream recipe link" in outcome.reason


def test_a_page_link_without_the_mapping_on_the_default_branch_fails_closed():
    evidence = with_page()
    files = {k: v for k, v in evidence.default_branch_files.items()
             if k != "configs/policy/recipe-pages.yaml"}
    outcome = run(replace(evidence, default_branch_files=files), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "restore configs/policy/recipe-pages.yaml on the default branch" in outcome.reason


def test_published_page_next_to_a_merged_pr_passes_on_the_pr():
    evidence = scenario6()
    body = evidence.signoff.body.replace(LINK, f"https://recipes.vllm.ai/x and https://docs.sglang.io/cookbook/q {LINK}")
    assert run(with_body(evidence, body), SETTINGS).status == Status.PASS


def test_archived_cookbook_and_branch_links_are_named_as_near_misses():
    evidence = scenario6()
    archived = run(with_body(evidence, evidence.signoff.body.replace(
        LINK, "https://github.com/sgl-project/sgl-cookbook/pull/12")), SETTINGS)
    assert archived.status == Status.FAIL
    assert "archived SGLang cookbook copy" in archived.reason
    branch = run(with_body(evidence, evidence.signoff.body.replace(
        LINK, "https://github.com/sgl-project/sglang/tree/main/docs/cookbook")), SETTINGS)
    assert branch.status == Status.FAIL
    assert "is a branch, commit or file in sgl-project/sglang, not a merged PR" in branch.reason


def test_fail_closed_without_file_list():
    outcome = run(scenario6(files=None), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason


def test_external_pull_added_lines_only():
    # removed lines of the upstream PR are not recipe text
    pull = ExternalPull("sgl-project/sglang", 21001, "closed", "2026-09-20T00:00:00Z", files=(
        ChangedFile("docs/cookbook/q.md", "modified",
                    patch="@@ -1,1 +1,1 @@\n-python -m sglang.launch_server --model Qwen/Qwen3.5-397B-A17B-FP8 --tp 4\n+see below"),))
    outcome = run(scenario6(external_pulls={"sgl-project/sglang#21001": pull}), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "lacks" in outcome.reason


def test_fail_closed_when_the_recipe_pr_files_were_not_read():
    outcome = run(with_pull(scenario6(), files=()), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "changed files of sgl-project/sglang#21001 could not be read" in outcome.reason


DISAGG_LANE = ("      - { spec-decoding: mtp, conc-list: [1, 4], prefill: {num-worker: 1, tp: 4}, "
               "decode: {num-worker: 1, tp: 8, ep: 8, dp-attn: true} }")
AGENTIC_LANE = "      - { tp: 4, kv-offloading: none, conc-list: [1, 4, 8, 16], spec-decoding: mtp }"
PD_RECIPE = """@@ -0,0 +1,6 @@
+## Qwen3.5-397B-A17B-FP8 PD disaggregation on MI355X
+python -m sglang.launch_server --model Qwen/Qwen3.5-397B-A17B-FP8 --disaggregation-mode prefill \\
+  --tp 4 --disaggregation-transfer-backend mori
+python -m sglang.launch_server --model Qwen/Qwen3.5-397B-A17B-FP8 --disaggregation-mode decode \\
+  --tp 8 --ep 8 --enable-dp-attention --disaggregation-transfer-backend mori
+python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 --decode http://d:30000
"""


def disaggregated(upstream=PD_RECIPE, transport="  kv-p2p-transfer: mori\n", recipe_extra=""):
    """Scenario 6 with its agentic config turned into a PD-disaggregated sglang-disagg config."""
    evidence = scenario6()
    path = "configs/amd-master.yaml"
    key = "qwen3.5-fp8-mi355x-sglang-agentic-mtp:\n"
    start = evidence.head_files[path].index(key)
    entry = evidence.head_files[path][start:].replace(AGENTIC_LANE, DISAGG_LANE).replace(
        "  framework: sglang\n", "  framework: sglang-disagg\n  disagg: true\n" + transport
        + "  router: {name: sglang-router, version: 0.3.2}\n")
    evidence = with_head_file(evidence, path, evidence.head_files[path][:start] + entry)
    if recipe_extra:
        recipe = "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml"
        evidence = with_head_file(evidence, recipe, evidence.head_files[recipe] + recipe_extra)
    pull = evidence.external_pulls["sgl-project/sglang#21001"]
    return with_pull(evidence, files=(replace(pull.files[0], patch=upstream),))


def test_disaggregated_pass_compares_every_role():
    outcome = run(disaggregated(), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "prefill: --tensor-parallel-size 4, transport mori" in outcome.reason
    assert "decode: --tensor-parallel-size 8, --expert-parallel-size 8, --enable-dp-attention, transport mori" \
        in outcome.reason
    assert "router: router sglang-router" in outcome.reason


def test_disaggregated_fail_names_variant_role_and_missing_transport():
    upstream = PD_RECIPE.replace("--enable-dp-attention --disaggregation-transfer-backend mori",
                                 "--enable-dp-attention --disaggregation-transfer-backend mooncake")
    outcome = run(disaggregated(upstream), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "[qwen3.5-fp8-mi355x-sglang-agentic-mtp] (sglang-disagg)" in outcome.reason
    assert "lacks decode: transport mori" in outcome.reason


def test_disaggregated_fail_when_the_router_is_not_documented():
    upstream = "\n".join(ln for ln in PD_RECIPE.splitlines() if "sglang_router" not in ln) + "\n"
    upstream = upstream.replace("+1,6", "+1,5")
    outcome = run(disaggregated(upstream), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "router: the router role is not shown" in outcome.reason


def test_disaggregated_role_flags_of_the_recipe_are_compared():
    extra = "disagg:\n  decode:\n    args: [--moe-runner-backend aiter]\n"
    outcome = run(disaggregated(recipe_extra=extra), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "decode: --moe-runner-backend aiter" in outcome.reason
    upstream = PD_RECIPE.replace("--enable-dp-attention", "--enable-dp-attention --moe-runner-backend aiter")
    assert run(disaggregated(upstream, recipe_extra=extra), SETTINGS).status == Status.PASS


def test_disaggregated_without_declared_transport_fails_closed():
    outcome = run(disaggregated(transport=""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "declares no KV transport (kv-p2p-transfer)" in outcome.reason


def test_aggregated_recipe_does_not_cover_a_disaggregated_config():
    agg_only = """@@ -0,0 +1,2 @@
+python -m sglang.launch_server --model Qwen/Qwen3.5-397B-A17B-FP8 --tp 4 \\
+  --disaggregation-transfer-backend mori
"""
    outcome = run(disaggregated(agg_only), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "prefill: the prefill role is not shown (an aggregated example does not cover a " \
        "disaggregated config)" in outcome.reason


def test_documented_default_justification_exempts_a_setting():
    extra = "disagg:\n  decode:\n    args: [--moe-runner-backend aiter]\n"
    evidence = disaggregated(recipe_extra=extra)
    unexplained = evidence.signoff.body.replace("Signed:", "- moe-runner-backend aiter is what we like.\n\nSigned:")
    assert run(with_body(evidence, unexplained), SETTINGS).status == Status.FAIL
    body = evidence.signoff.body.replace(
        "Signed:", "- moe-runner-backend aiter is the documented default on MI355X (cookbook: backends).\n\nSigned:")
    assert run(with_body(evidence, body), SETTINGS).status == Status.PASS


def test_deployment_layers_are_judged_against_their_engine():
    evidence = scenario6()
    path = "configs/amd-master.yaml"
    text = evidence.head_files[path].replace("  framework: sglang\n", "  framework: dynamo-sglang\n")
    outcome = run(with_head_file(evidence, path, text), SETTINGS)
    assert outcome.status == Status.PASS
    assert "(dynamo-sglang)" in outcome.reason
    llmd = with_head_file(evidence, path, text.replace("framework: dynamo-sglang", "framework: llmd-vllm"))
    outcome = run(llmd, SETTINGS)
    assert outcome.status == Status.FAIL and "no vllm upstream recipe link" in outcome.reason


def test_kv_offload_backend_must_appear_upstream():
    evidence = scenario6()
    path = "configs/amd-master.yaml"
    text = evidence.head_files[path].replace(
        AGENTIC_LANE, "      - { tp: 4, kv-offloading: dram, kv-offload-backend: {name: hicache}, "
                      "conc-list: [1, 4, 8, 16], spec-decoding: mtp }")
    evidence = with_head_file(evidence, path, text)
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "lacks agg: kv-offload hicache" in outcome.reason
    pull = evidence.external_pulls["sgl-project/sglang#21001"]
    patch = pull.files[0].patch.replace("--speculative-num-steps 3", "--speculative-num-steps 3 --enable-hierarchical-cache"
                                        ).replace("Use the chat endpoint", "HiCache on. Use the chat endpoint")
    assert run(with_pull(evidence, files=(replace(pull.files[0], patch=patch),)), SETTINGS).status == Status.PASS


def test_disaggregated_router_must_be_shown_even_when_undeclared():
    evidence = disaggregated()
    path = "configs/amd-master.yaml"
    evidence = with_head_file(evidence, path, evidence.head_files[path].replace(
        "  router: {name: sglang-router, version: 0.3.2}\n", ""))
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.PASS
    assert "router: command shown" in outcome.reason
    upstream = "\n".join(ln for ln in PD_RECIPE.splitlines() if "sglang_router" not in ln) + "\n"
    pull = evidence.external_pulls["sgl-project/sglang#21001"]
    outcome = run(with_pull(evidence, files=(replace(pull.files[0], patch=upstream.replace("+1,6", "+1,5")),)), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "router: the router role is not shown" in outcome.reason


AGENTIC_RECIPE = "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml"
UPSTREAM_LAUNCH = "--speculative-num-steps 3"


def with_server_args(evidence, *args: str):
    """Scenario 6 with extra server flags in the agentic config's recipe."""
    text = evidence.head_files[AGENTIC_RECIPE] + "server-args: [" + ", ".join(args) + "]\n"
    return with_head_file(evidence, AGENTIC_RECIPE, text)


def with_upstream(evidence, old: str, new: str):
    pull = evidence.external_pulls["sgl-project/sglang#21001"]
    return with_pull(evidence, files=(replace(pull.files[0], patch=pull.files[0].patch.replace(old, new)),))


def test_production_family_flags_must_appear_upstream_with_their_family_named():
    evidence = with_server_args(scenario6(), "--chunked-prefill-size 16384", "--cuda-graph-max-bs 64",
                                "--max-running-requests 128", "--enable-hierarchical-cache")
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "[qwen3.5-fp8-mi355x-sglang-agentic-mtp] (sglang)" in outcome.reason
    assert ("lacks agg: --chunked-prefill-size 16384 (chunked-prefill setting), --cuda-graph-max-bs 64 "
            "(graph setting), --max-running-requests 128 (scheduling setting), --enable-hierarchical-cache "
            "(cache-offload setting)") in outcome.reason
    shown = with_upstream(evidence, UPSTREAM_LAUNCH, UPSTREAM_LAUNCH + " --chunked-prefill-size=16384 "
                          "--cuda-graph-max-bs 64 --max-running-requests 128 --enable-hierarchical-cache")
    passed = run(shown, SETTINGS)
    assert passed.status == Status.PASS, passed.reason
    assert "--cuda-graph-max-bs 64 (graph setting)" in passed.reason


def test_a_production_flag_with_another_value_upstream_fails():
    evidence = with_server_args(scenario6(), "--chunked-prefill-size 16384")
    outcome = run(with_upstream(evidence, UPSTREAM_LAUNCH, UPSTREAM_LAUNCH + " --chunked-prefill-size 8192"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "lacks agg: --chunked-prefill-size 16384 (chunked-prefill setting)" in outcome.reason


def test_a_documented_default_value_need_not_be_repeated_upstream():
    default = run(with_server_args(scenario6(), "--schedule-policy fcfs", "--schedule-conservativeness 1"), SETTINGS)
    assert default.status == Status.PASS, default.reason
    assert "--schedule-policy" not in default.reason
    changed = run(with_server_args(scenario6(), "--schedule-policy lpm"), SETTINGS)
    assert changed.status == Status.FAIL
    assert "lacks agg: --schedule-policy lpm (scheduling setting)" in changed.reason


def test_an_excluded_production_flag_needs_a_justifying_line():
    evidence = with_server_args(scenario6(), "--cuda-graph-max-bs 64")
    named_only = evidence.signoff.body.replace("Signed:", "- cuda-graph-max-bs 64 works well.\n\nSigned:")
    outcome = run(with_body(evidence, named_only), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "--cuda-graph-max-bs 64 (graph setting)" in outcome.reason
    justified = evidence.signoff.body.replace(
        "Signed:", "- --cuda-graph-max-bs 64 is InferenceX-only: it matches the sweep's largest conc.\n\nSigned:")
    assert run(with_body(evidence, justified), SETTINGS).status == Status.PASS


def test_harness_flags_outside_the_policy_lists_are_not_compared():
    outcome = run(with_server_args(scenario6(), "--port 30000", "--log-level warning"), SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "--port" not in outcome.reason


def test_the_sku_must_appear_upstream_in_any_case():
    evidence = scenario6()
    outcome = run(with_upstream(evidence, " on MI355X", ""), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "[qwen3.5-fp8-mi355x-sglang-agentic-mtp] (sglang)" in outcome.reason
    assert "lacks agg: SKU mi355x" in outcome.reason
    assert run(with_upstream(evidence, " on MI355X", " (tested on mi355x)"), SETTINGS).status == Status.PASS
    runner_name = run(with_upstream(evidence, " on MI355X", " on mi355x-amds"), SETTINGS)
    assert runner_name.status == Status.FAIL and "SKU mi355x" in runner_name.reason


def test_a_config_without_a_runner_fails_closed():
    evidence = scenario6()
    path = "configs/amd-master.yaml"
    text = evidence.head_files[path].replace("  runner: cluster:mi355x-amds\n", "")
    outcome = run(with_head_file(evidence, path, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "declares no runner, so its SKU could not be compared" in outcome.reason


def test_disaggregated_role_production_flags_are_compared_per_role():
    extra = "disagg:\n  decode:\n    args: [--cuda-graph-max-bs 128]\n  prefill:\n    args: [--chunked-prefill-size 32768]\n"
    outcome = run(disaggregated(recipe_extra=extra), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "prefill: --chunked-prefill-size 32768 (chunked-prefill setting)" in outcome.reason
    assert "decode: --cuda-graph-max-bs 128 (graph setting)" in outcome.reason
    # shown in the other role's command does not count
    wrong_role = PD_RECIPE.replace("--tp 4 --disaggregation", "--tp 4 --cuda-graph-max-bs 128 --disaggregation")
    outcome = run(disaggregated(wrong_role, recipe_extra=extra), SETTINGS)
    assert "decode: --cuda-graph-max-bs 128 (graph setting)" in outcome.reason
    upstream = PD_RECIPE.replace("--tp 4 --disaggregation", "--tp 4 --chunked-prefill-size 32768 --disaggregation"
                                 ).replace("--enable-dp-attention", "--enable-dp-attention --cuda-graph-max-bs 128")
    assert run(disaggregated(upstream, recipe_extra=extra), SETTINGS).status == Status.PASS


def test_fail_closed_without_the_trusted_recipe_policy():
    evidence = scenario6()
    trusted = {p: t for p, t in evidence.default_branch_files.items() if p != "configs/policy/recipe.yaml"}
    outcome = run(replace(evidence, default_branch_files=trusted), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "configs/policy/recipe.yaml" in outcome.reason


def test_a_config_affected_only_through_a_shared_file_and_not_swept_is_not_judged(monkeypatch):
    """A harness helper the PR changes (benchmark_lib.sh) leaves the serving settings of the
    configs that source it as they were: only configs the plan sweeps need an upstream recipe."""
    from infx.signoff.checks import recipe
    from infx.signoff.rules.affected import AffectedConfig, affected_configs
    from infx.signoff.swept import SHARED_ONLY

    evidence = scenario6()
    real = affected_configs(evidence)
    other = AffectedConfig("dsr1-fp8-mi355x-sglang", {"framework": "sglang", "runner": "mi355x",
                                                      "model": "deepseek-ai/DeepSeek-R1-0528"},
                           SHARED_ONLY, "configs/amd-master.yaml", files=("benchmarks/benchmark_lib.sh",))
    monkeypatch.setattr(recipe, "affected_configs", lambda _: [*real, other])
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.PASS, outcome.reason
    assert "dsr1" not in outcome.reason
    # the same config changed in its own right is judged (and has no matching upstream recipe)
    monkeypatch.setattr(recipe, "affected_configs", lambda _: [*real, replace(other, how="changed")])
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL and "dsr1-fp8-mi355x-sglang" in outcome.reason
