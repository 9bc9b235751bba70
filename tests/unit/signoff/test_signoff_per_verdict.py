"""infx.signoff.per_verdict: what one verdict's checks share is worked out once, and only inside it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lib.signoff_policy_support import world_evidence

from infx.signoff import per_verdict
from infx.signoff.rules import affected
from infx.signoff.table import load_table
from infx.signoff.verdict import decide


def counting(calls: list[int], value: object = "fact"):
    def compute():
        calls.append(1)
        return value
    return compute


def test_a_fact_is_computed_once_inside_a_scope_and_every_time_outside():
    evidence, calls = world_evidence("seed000"), []
    per_verdict.once(evidence, "x", counting(calls))
    per_verdict.once(evidence, "x", counting(calls))
    assert len(calls) == 2
    with per_verdict.shared(evidence):
        assert per_verdict.once(evidence, "x", counting(calls)) == "fact"
        assert per_verdict.once(evidence, "x", counting(calls)) == "fact"
        per_verdict.once(evidence, "y", counting(calls))
    assert len(calls) == 4
    per_verdict.once(evidence, "x", counting(calls))
    assert len(calls) == 5  # the scope is closed: nothing outlives the verdict


def test_another_evidence_object_never_shares_the_scope():
    evidence, calls = world_evidence("seed000"), []
    other = replace(evidence, signoff=replace(evidence.signoff, user="someone-else"))
    with per_verdict.shared(evidence):
        per_verdict.once(evidence, "x", counting(calls))
        per_verdict.once(other, "x", counting(calls))
        per_verdict.once(other, "x", counting(calls))
    assert len(calls) == 3


def test_a_failure_is_not_remembered():
    evidence, calls = world_evidence("seed000"), []

    def broken():
        calls.append(1)
        raise ValueError("unreadable")

    with per_verdict.shared(evidence):
        for _ in range(2):
            with pytest.raises(ValueError):
                per_verdict.once(evidence, "x", broken)
    assert len(calls) == 2


def test_a_verdict_works_out_the_affected_configs_and_launch_lines_once(monkeypatch):
    evidence, table = world_evidence("seed000"), load_table()
    counts = {"configs": 0, "lines": 0}
    real_configs, real_lines = affected._affected_configs, affected._launch_lines

    def configs(*args):
        counts["configs"] += 1
        return real_configs(*args)

    def lines(*args):
        counts["lines"] += 1
        return real_lines(*args)

    monkeypatch.setattr(affected, "_affected_configs", configs)
    monkeypatch.setattr(affected, "_launch_lines", lines)
    first = decide(table, evidence)
    assert counts == {"configs": 1, "lines": 1}  # seed 000 affects one config
    monkeypatch.setattr(affected, "_affected_configs", real_configs)
    monkeypatch.setattr(affected, "_launch_lines", real_lines)
    assert decide(table, world_evidence("seed000")) == first


def test_launch_lines_of_another_config_under_the_same_key_are_not_shared():
    evidence = world_evidence("seed000")
    config = affected.affected_configs(evidence)[0]
    elsewhere = replace(config, master_path="configs/nvidia-master.yaml", entry=dict(config.entry))
    with per_verdict.shared(evidence):
        mine = affected.launch_lines(evidence, config)
        assert affected.launch_lines(evidence, elsewhere) == affected._launch_lines(evidence, elsewhere, False)
        assert affected.launch_lines(evidence, config) == mine
