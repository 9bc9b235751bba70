"""Check `deprecated`: the sidecar deprecation table on the review date."""

from __future__ import annotations

from dataclasses import replace

from lib.signoff_policy_support import at, with_head_file, world_evidence

from infx.signoff.checks.deprecated import run
from infx.signoff.model import Status
from infx.signoff.table import load_table

SETTINGS = load_table().settings


def test_pass_names_config_and_date():
    outcome = run(world_evidence("seed000"), SETTINGS)
    assert outcome.status == Status.PASS
    assert "minimaxm3 Agentic coding fp4" in outcome.reason
    assert "2026-09-25" in outcome.reason and "configs/amd-master.yaml:15" in outcome.reason


def test_fail_after_the_last_day_and_pass_on_it():
    assert run(world_evidence("scenario11", now=at("2026-09-09")), SETTINGS).status == Status.FAIL
    assert run(world_evidence("scenario11", now=at("2026-09-08")), SETTINGS).status == Status.PASS


def test_all_model_scenario_deprecation():
    # seed 003 adds minimaxm3 1k1k, allowed up to 2026-07-16 (1k1k deprecated from 07-17)
    assert run(world_evidence("seed003", now=at("2026-07-16")), SETTINGS).status == Status.PASS
    outcome = run(world_evidence("seed003", now=at("2026-07-17")), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "minimaxm3 Single-turn 1k1k fp4 is deprecated after 2026-07-16" in outcome.reason


def test_precision_specific_and_retired_prefixes():
    evidence = world_evidence("scenario6")
    path = "configs/amd-master.yaml"
    bf16 = with_head_file(evidence, path, evidence.head_files[path].replace("precision: fp8", "precision: bf16"))
    outcome = run(bf16, SETTINGS)
    assert outcome.status == Status.FAIL
    assert "qwen3.5" in outcome.reason and "bf16" in outcome.reason
    retired = with_head_file(evidence, path, evidence.head_files[path].replace("model-prefix: qwen3.5",
                                                                               "model-prefix: gptoss"))
    assert "retired 2026-07-06" in run(retired, SETTINGS).reason


def test_na_without_config_change():
    evidence = world_evidence("seed000")
    docs_only = with_head_file(replace(evidence, head_files=dict(evidence.base_files)), "docs/notes.md", "x\n")
    assert run(docs_only, SETTINGS).status == Status.NA


def test_removing_a_deprecated_config_is_not_a_violation():
    evidence = world_evidence("scenario11")
    path = "configs/nvidia-master.yaml"
    # the head drops the entry again: nothing added, changed or re-enabled
    outcome = run(with_head_file(evidence, path, evidence.base_files[path]), SETTINGS)
    assert outcome.status == Status.NA


def test_fail_closed():
    assert run(world_evidence("seed000", files=None), SETTINGS).status == Status.FAIL
    evidence = world_evidence("seed000")
    head = dict(evidence.head_files)
    del head["configs/amd-master.yaml"]
    outcome = run(replace(evidence, head_files=head), SETTINGS)
    assert outcome.status == Status.FAIL
    assert "configs/amd-master.yaml at the assessed head was not read" in outcome.reason


def test_a_config_reached_only_through_a_changed_shared_file_is_not_submitted(monkeypatch):
    """A PR changing a helper many configs source submits the configs its plan sweeps; a
    deprecated one it does not sweep is not a violation of this PR (infx.signoff.swept)."""
    from infx.signoff.checks import deprecated
    from infx.signoff.rules.affected import affected_configs
    from infx.signoff.swept import SHARED_ONLY

    evidence = world_evidence("seed003", now=at("2026-07-17"))
    real = affected_configs(evidence)
    assert real and run(evidence, SETTINGS).status == Status.FAIL
    shared = [replace(config, how=SHARED_ONLY) for config in real]
    monkeypatch.setattr(deprecated, "affected_configs", lambda _: shared)
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: set())
    assert run(evidence, SETTINGS).status == Status.NA
    monkeypatch.setattr("infx.signoff.swept.swept_keys", lambda head, base: {c.key for c in real})
    assert run(evidence, SETTINGS).status == Status.FAIL  # swept: submitted after all
