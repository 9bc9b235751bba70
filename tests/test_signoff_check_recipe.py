"""Check 3 (recipe): link present, merged, settings match; N/A outside vLLM/SGLang."""

from __future__ import annotations

from dataclasses import replace

from signoff_policy_support import with_body, with_head_file, world_evidence

from infx.signoff.checks.recipe import run
from infx.signoff.model import ChangedFile, ExternalPull, Status

LINK = "https://github.com/sgl-project/sglang/pull/21001"


def scenario6(**changes):
    return world_evidence("scenario6", **changes)


def with_pull(evidence, **fields):
    pull = evidence.external_pulls["sgl-project/sglang#21001"]
    return replace(evidence, external_pulls={"sgl-project/sglang#21001": replace(pull, **fields)})


def test_pass_names_link_and_settings():
    outcome = run(scenario6())
    assert outcome.status == Status.PASS
    assert LINK in outcome.reason
    assert "--model Qwen/Qwen3.5-397B-A17B-FP8" in outcome.reason
    assert "--tensor-parallel-size 4" in outcome.reason


def test_na_for_vendor_frameworks():
    outcome = run(world_evidence("seed000"))
    assert outcome.status == Status.NA
    assert "vllm/sglang" in outcome.reason


def test_fail_without_link():
    evidence = scenario6()
    outcome = run(with_body(evidence, evidence.signoff.body.replace(LINK, "similar to the official recipe")))
    assert outcome.status == Status.FAIL
    assert "no sglang upstream recipe link" in outcome.reason
    assert "configs/amd-master.yaml:" in outcome.reason


def test_fail_when_not_merged():
    outcome = run(with_pull(scenario6(), merged_at=None, state="open"))
    assert outcome.status == Status.FAIL
    assert "sgl-project/sglang#21001 is not merged (state: open)" in outcome.reason


def test_fail_closed_when_merge_status_unreadable():
    outcome = run(scenario6(external_pulls={"sgl-project/sglang#21001": None}))
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason
    assert run(scenario6(external_pulls={})).status == Status.FAIL


def test_fail_when_sglang_pr_is_not_a_cookbook_change():
    pull = scenario6().external_pulls["sgl-project/sglang#21001"]
    moved = tuple(replace(f, filename="python/sglang/srt/server.py") for f in pull.files)
    outcome = run(with_pull(scenario6(), files=moved))
    assert outcome.status == Status.FAIL
    assert "does not touch the SGLang cookbook" in outcome.reason


def test_fail_when_a_major_setting_is_missing_upstream():
    pull = scenario6().external_pulls["sgl-project/sglang#21001"]
    patch = pull.files[0].patch.replace("--tp 4", "--tp 8")
    outcome = run(with_pull(scenario6(), files=(replace(pull.files[0], patch=patch),)))
    assert outcome.status == Status.FAIL
    assert "lacks --tensor-parallel-size 4" in outcome.reason


def test_inferencex_only_justification_exempts_a_setting():
    pull = scenario6().external_pulls["sgl-project/sglang#21001"]
    patch = pull.files[0].patch.replace("--tp 4", "--tp 8")
    evidence = with_pull(scenario6(), files=(replace(pull.files[0], patch=patch),))
    body = evidence.signoff.body.replace("Signed:", "- InferenceX-only settings: the TP4 arm.\n\nSigned:")
    assert run(with_body(evidence, body)).status == Status.PASS


def test_link_for_the_other_engine_does_not_count():
    evidence = scenario6()
    body = evidence.signoff.body.replace(LINK, "https://github.com/vllm-project/recipes/pull/9")
    outcome = run(with_body(evidence, body))
    assert outcome.status == Status.FAIL
    assert "no sglang upstream recipe link" in outcome.reason


def test_published_page_needs_its_text():
    page = "https://docs.sglang.io/cookbook/qwen3.5"
    evidence = scenario6()
    evidence = with_body(evidence, evidence.signoff.body.replace(LINK, page))
    missing = run(evidence)
    assert missing.status == Status.FAIL
    assert f"published page {page} could not be read" in missing.reason
    text = "sglang serve --model Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 4"
    assert run(replace(evidence, external_texts={page: text})).status == Status.PASS


def test_fail_closed_without_file_list():
    outcome = run(scenario6(files=None))
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason


def test_external_pull_added_lines_only():
    # removed lines of the upstream PR are not recipe text
    pull = ExternalPull("sgl-project/sglang", 21001, "closed", "2026-09-20T00:00:00Z", files=(
        ChangedFile("docs/cookbook/q.md", "modified",
                    patch="@@ -1,1 +1,1 @@\n-python -m sglang.launch_server --model Qwen/Qwen3.5-397B-A17B-FP8 --tp 4\n+see below"),))
    outcome = run(scenario6(external_pulls={"sgl-project/sglang#21001": pull}))
    assert outcome.status == Status.FAIL
    assert "lacks" in outcome.reason


def test_fail_closed_when_the_recipe_pr_files_were_not_read():
    outcome = run(with_pull(scenario6(), files=()))
    assert outcome.status == Status.FAIL
    assert "changed files of sgl-project/sglang#21001 could not be read" in outcome.reason


def test_aggregated_recipe_does_not_cover_a_disaggregated_config():
    evidence = scenario6()
    path = "configs/amd-master.yaml"
    text = evidence.head_files[path].replace(
        "      - { tp: 4, kv-offloading: none, conc-list: [1, 4, 8, 16], spec-decoding: mtp }",
        "      - { spec-decoding: mtp, conc-list: [1, 4], prefill: {num-worker: 1, tp: 4}, "
        "decode: {num-worker: 1, tp: 4} }")
    outcome = run(with_head_file(evidence, path, text))
    assert outcome.status == Status.FAIL
    assert "an aggregated example does not cover a disaggregated config" in outcome.reason
