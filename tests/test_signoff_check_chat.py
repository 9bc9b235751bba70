"""Check 9 (chat): spec-decode clients go through the chat template."""

from __future__ import annotations

from signoff_policy_support import with_head_file, world_evidence

from infx.signoff.checks.chat import run
from infx.signoff.model import Status

RECIPE = "configs/recipes/qwen3.5-fp8-mi355x-sglang-agentic-mtp.yaml"


def test_pass_names_the_signal():
    outcome = run(world_evidence("seed000"))
    assert outcome.status == Status.PASS
    assert "/v1/chat/completions" in outcome.reason
    assert "agentic.yaml:24" in outcome.reason


def test_fail_on_raw_completions():
    evidence = world_evidence("scenario6")
    text = evidence.head_files[RECIPE].replace("endpoint: /v1/chat/completions", "endpoint: /v1/completions") \
        .replace("args: [--endpoint-type chat, --apply-chat-template]", "args: [--endpoint-type completions]")
    outcome = run(with_head_file(evidence, RECIPE, text))
    assert outcome.status == Status.FAIL
    assert "qwen3.5-fp8-mi355x-sglang-agentic-mtp" in outcome.reason
    assert "raw completions" in outcome.reason and RECIPE in outcome.reason


def test_fail_closed_when_client_is_unknown():
    evidence = world_evidence("scenario5")
    script = "benchmarks/single_node/agentic/glm5.2_fp4_b300_atom_mtp.sh"
    text = "\n".join(ln for ln in evidence.head_files[script].splitlines()
                     if "aiperf" not in ln and "chat_template" not in ln) + "\n"
    outcome = run(with_head_file(evidence, script, text))
    assert outcome.status == Status.FAIL
    assert "could not be verified" in outcome.reason


def test_na_when_draft_size_is_zero():
    outcome = run(world_evidence("seed003"))
    assert outcome.status == Status.NA
    assert "sets the draft size to 0" in outcome.reason


def test_na_without_spec_decode():
    assert run(world_evidence("scenario9")).status == Status.NA


def test_fail_closed_without_file_list():
    assert run(world_evidence("seed000", files=None)).status == Status.FAIL
