"""Check `images`: upstream image repositories and engine-first ordering."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.signoff_policy_support import with_body, with_head_file, world_evidence

from infx.signoff.checks.images import image_repository, run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings


@pytest.mark.parametrize("image, repo", [
    ("vllm/vllm-openai-rocm:v0.27.1", "vllm/vllm-openai-rocm"),
    ("docker.io/lmsysorg/sglang:v0.5@sha256:abc", "lmsysorg/sglang"),
    ("nvcr.io#nvidia/tensorrt-llm/release:1.3.0", "nvcr.io/nvidia/tensorrt-llm/release"),
    ("rocm/sgl-dev:sglang-0.5.9", "rocm/sgl-dev"),
    ("localhost:5000/vllm/vllm-openai:x", "localhost:5000/vllm/vllm-openai"),
])
def test_image_repository(image, repo):
    assert image_repository(image) == repo


def test_pass_engine_first_names_the_matching_key():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "engine-first satisfied by minimaxm3-fp4-mi355x-vllm-agentic-mtp" in outcome.reason
    assert "configs/amd-master.yaml:15" in outcome.reason


def test_fail_vendor_first():
    outcome = run(world_evidence("scenario5"), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "vendor framework atom for glm5.2 on b300" in outcome.reason


def test_documented_exception_is_reported_not_silent():
    evidence = world_evidence("scenario5")
    body = evidence.signoff.body.replace(
        "Signed:", "- Exception: new architecture that SGLang maintainers confirm is not supported yet.\n\nSigned:")
    outcome = run(with_body(evidence, body), SETTINGS)
    assert outcome.status == Status.PASS
    assert outcome.reason.startswith("documented exception")
    assert "glm5.2" in outcome.reason


def test_exception_without_hardware_or_architecture_does_not_count():
    evidence = world_evidence("scenario5")
    body = evidence.signoff.body.replace("Signed:", "- Exception: the vendor asked nicely.\n\nSigned:")
    assert run(with_body(evidence, body), SETTINGS).status == Status.FAIL


def _master_with(evidence, old, new):
    """The master config (and any recipe pinning the same image) with ``old`` replaced."""
    for path in ["configs/amd-master.yaml"] + [p for p in evidence.head_files if p.startswith("configs/recipes/")]:
        if old in (evidence.head_files[path] or ""):
            evidence = with_head_file(evidence, path, evidence.head_files[path].replace(old, new))
    return evidence


def test_fail_forked_image_on_established_sku():
    evidence = _master_with(world_evidence("scenario6"), "lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260818",
                            "rocm/sgl-dev:v0.5.17-mi35x")
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "uses image rocm/sgl-dev:v0.5.17-mi35x" in outcome.reason
    assert "lmsysorg/" in outcome.reason


def test_new_hardware_is_exempt_and_said_so():
    evidence = world_evidence("scenario5")
    path = "configs/nvidia-master.yaml"
    evidence = with_head_file(evidence, path, evidence.head_files[path].replace("cluster:b300-nv", "mi455x-ualoe72"))
    outcome = run(evidence, SETTINGS)
    assert outcome.status == Status.PASS
    assert "new/preview hardware" in outcome.reason and "mi455x" in outcome.reason


def test_na_when_no_master_entry_changes():
    evidence = world_evidence("seed000")
    docs_only = with_head_file(replace(evidence, head_files=dict(evidence.base_files)), "docs/notes.md", "x\n")
    assert run(docs_only, SETTINGS).status == Status.NA


def test_fail_closed_without_trusted_policy():
    evidence = world_evidence("seed000")
    files = {k: v for k, v in evidence.default_branch_files.items() if k != "configs/policy/hardware.yaml"}
    outcome = run(replace(evidence, default_branch_files=files), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason and "configs/policy/hardware.yaml" in outcome.reason


def test_recipe_and_master_image_must_agree():
    evidence = world_evidence("scenario6")
    recipe = "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml"
    text = evidence.head_files[recipe].replace("image: lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260818",
                                               "image: lmsysorg/sglang-rocm:v0.5.18")
    outcome = run(with_head_file(evidence, recipe, text), SETTINGS)
    assert outcome.status == Status.FAIL
    assert f"its recipe {recipe} pins image lmsysorg/sglang-rocm:v0.5.18" in outcome.reason
    assert "lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260818" in outcome.reason


def test_a_documented_exception_does_not_excuse_a_recipe_mismatch():
    evidence = world_evidence("scenario6")
    recipe = "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml"
    evidence = with_head_file(evidence, recipe, evidence.head_files[recipe].replace(
        "image: lmsysorg/sglang-rocm:v0.5.17-rocm720-mi35x-20260818", "image: rocm/sgl-dev:x"))
    body = evidence.signoff.body.replace("Signed:", "- Exception: new hardware bring-up.\n\nSigned:")
    outcome = run(with_body(evidence, body), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "pins image rocm/sgl-dev:x" in outcome.reason


def _strict(evidence, on=True):
    path = "configs/policy/engines.yaml"
    text = evidence.default_branch_files[path].replace("strict-engine-mapping: false",
                                                       f"strict-engine-mapping: {str(on).lower()}")
    return replace(evidence, default_branch_files={**evidence.default_branch_files, path: text})


def test_strict_engine_mapping_is_off_by_default_and_checks_every_first_class_engine():
    evidence = world_evidence("seed000")  # minimaxm3 ATOM after a vLLM entry; vLLM is its engine
    outcome = run(_strict(evidence), SETTINGS)
    assert outcome.status == Status.PASS
    assert "every first-class engine of minimaxm3 (vllm) is present" in outcome.reason
    master = "configs/amd-master.yaml"
    sglang_only = with_head_file(evidence, master, evidence.head_files[master].replace(
        "framework: vllm", "framework: sglang").replace("image: vllm/vllm-openai-rocm:v0.27.1",
                                                        "image: lmsysorg/sglang-rocm:v0.5.17"))
    assert run(sglang_only, SETTINGS).status == Status.PASS  # the reference rule: any open-source entry
    outcome = run(_strict(sglang_only), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "lacks an entry of its first-class engine(s) vllm (strict engine mapping of MODELS.md)" in outcome.reason
