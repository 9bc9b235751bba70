"""Tests for infx.plan.contract: the row contract, and the generator's rows held to it."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from infx.config.master import load_master_configs
from infx.config.runners import load_runners
from infx.errors import InfxError
from infx.plan.contract import check_rows, row_problems, with_defaults
from infx.plan.generate import full_sweep_tagged

WORKER = {"num-worker": 1, "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1,
          "dp-attn": False}
SINGLE = {"image": "i", "model": "m", "model-prefix": "p", "precision": "fp4",
          "framework": "sglang", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 8, "pp": 1,
          "dcp-size": 1, "pcp-size": 1, "conc": 4, "max-model-len": 9472, "ep": 1,
          "dp-attn": False, "spec-decoding": "none", "exp-name": "p_8k1k", "disagg": False,
          "run-eval": False}
MULTI = {"image": "i", "model": "m", "model-prefix": "p", "precision": "fp4",
         "framework": "sglang-disagg", "runner": "mi355x-disagg", "isl": 8192, "osl": 1024,
         "spec-decoding": "none", "prefill": dict(WORKER), "decode": dict(WORKER), "conc": [4, 8],
         "max-model-len": 9472, "exp-name": "p_8k1k", "disagg": True, "run-eval": False,
         "kv-p2p-transfer": "mori"}
AGENTIC = {"image": "i", "model": "m", "model-prefix": "p", "precision": "fp4",
           "framework": "sglang", "runner": "cluster:mi355x-amds", "tp": 8, "pp": 1,
           "dcp-size": 1, "pcp-size": 1, "ep": 1, "dp-attn": False, "spec-decoding": "none",
           "conc": 4, "kv-offloading": "none", "total-cpu-dram-gb": 0, "duration": 3600,
           "exp-name": "p_tp8_conc4_kvnone", "scenario-type": "agentic-coding"}
MN_AGENTIC = {"image": "i", "model": "m", "model-prefix": "p", "precision": "fp4",
              "framework": "sglang-disagg", "runner": "cluster:mi355x-amds",
              "spec-decoding": "none", "prefill": dict(WORKER), "decode": dict(WORKER),
              "conc": [16], "kv-offloading": "none", "total-cpu-dram-gb": 0, "duration": 3600,
              "exp-name": "p_p1x8_d1x8_conc16", "disagg": True, "scenario-type": "agentic-coding",
              "kv-p2p-transfer": "mori"}


def broken(base: dict, change) -> list[dict]:
    row = copy.deepcopy(base)
    change(row)
    return [row]


def messages(rows) -> str:
    return " | ".join(problem.message for problem in row_problems(rows))


def test_valid_rows_of_every_shape_pass():
    assert row_problems([SINGLE, MULTI, AGENTIC, MN_AGENTIC]) == []
    check_rows([])


@pytest.mark.parametrize("base, change, needle", [
    (SINGLE, lambda r: r.update({"spec-decoding": "eagle"}), "must be one of"),
    (SINGLE, lambda r: r.pop("ep"), "missing required field 'ep'"),
    (SINGLE, lambda r: r.update({"extra": 1}), "unknown field 'extra'"),
    (SINGLE, lambda r: r.update({"disagg": True}), "'disagg' must be false"),
    (SINGLE, lambda r: r.update({"recipe-fingerprint": "ABC"}), "must match"),
    (SINGLE, lambda r: r.update({"dcp-size": 3}), "must be divisible"),
    (MULTI, lambda r: r.update({"conc": 4}), "must be of type array"),
    (MULTI, lambda r: r.pop("decode"), "missing required field 'decode'"),
    (MULTI, lambda r: r.pop("kv-p2p-transfer"), "missing required field 'kv-p2p-transfer'"),
    (MULTI, lambda r: r["prefill"].update({"hardware": "mi355x"}), "both 'prefill' and 'decode'"),
    (AGENTIC, lambda r: r.update({"scenario-type": "fixed"}), "must be \"agentic-coding\""),
    (AGENTIC, lambda r: r.update({"total-cpu-dram-gb": -1}), "must be >= 0"),
    (MN_AGENTIC, lambda r: r.update({"conc": []}), "cannot be an empty list"),
])
def test_contract_violations(base, change, needle):
    assert needle in messages(broken(base, change))


def test_check_rows_raises_with_row_index():
    rows = [SINGLE, *broken(SINGLE, lambda r: r.pop("tp"))]
    with pytest.raises(InfxError) as caught:
        check_rows(rows, source="matrix.json")
    problem = caught.value.problems[0]
    assert problem.message.startswith("matrix row [1]") and problem.file == "matrix.json"


def test_not_a_list():
    assert "must be of type array" in messages({"rows": []})


UPSTREAM_DATA = Path(__file__).parents[2] / "data" / "upstream"
REFERENCE = Path(__file__).parents[4] / "shared" / "fixtures" / "upstream-inferencex"


def _master_files() -> list[list[Path]]:
    sets = [[UPSTREAM_DATA / "amd-master.yaml"]]
    if (REFERENCE / "configs").is_dir():  # both reference masters, when the shared data is here
        sets.append(sorted((REFERENCE / "configs").glob("*-master.yaml")))
    return sets


@pytest.mark.parametrize("masters", _master_files(), ids=lambda files: "+".join(f.stem for f in files))
@pytest.mark.parametrize("evals", ["default", "none", "subset", "all"])
def test_generated_rows_satisfy_the_row_contract(masters, evals):
    # the generator does not re-check its own output at run time (no work whose result is
    # not printed): the contract is held here, over every reference config in every mode
    configs = load_master_configs(masters)
    runners = load_runners(UPSTREAM_DATA / "runners.yaml")
    rows = [row for _, row in full_sweep_tagged(configs, runners, evals=evals)]
    assert rows and row_problems(rows) == []

    # infx's own rows carry every field the reference's row models default: filling changes nothing
    assert [with_defaults(row) for row in rows] == rows


# --- rows from other tools: what the reference's row models accept (issue 22 point 6) ------------

def _without(row: dict, *fields: str, worker: bool = False) -> dict:
    out = copy.deepcopy(row)
    for field in fields:
        for part in ([out["prefill"], out["decode"]] if worker else [out]):
            part.pop(field)
    return out


@pytest.mark.parametrize("row", [
    _without(MULTI, "pp", "dcp-size", "pcp-size", worker=True),
    _without(MN_AGENTIC, "pp", "pcp-size", worker=True),
    _without(AGENTIC, "spec-decoding"),
    SINGLE | {"conc": [4, 8]},
    SINGLE | {"require-power": True},
    MULTI | {"require-power": False},
], ids=["multi-node workers without pp/dcp/pcp", "multi-node agentic workers without pp/pcp",
        "single-node agentic without spec-decoding", "single-node conc list", "require-power",
        "multi-node require-power"])
def test_rows_the_reference_row_models_accept_pass(row):
    assert row_problems([row]) == []


def test_defaults_are_filled_as_the_reference_fills_them():
    filled = with_defaults(_without(MULTI, "pp", "dcp-size", "pcp-size", worker=True))
    assert filled == MULTI
    assert with_defaults(_without(AGENTIC, "spec-decoding")) == AGENTIC
    assert with_defaults(_without(MULTI, "pp", worker=True) | {"prefill": MULTI["prefill"] | {"pp": 2}})["prefill"]["pp"] == 2
    assert with_defaults(SINGLE) == SINGLE and with_defaults("x") == "x"


@pytest.mark.parametrize("base, change, needle", [
    (SINGLE, lambda r: r.update({"conc": []}), "conc"),
    (SINGLE, lambda r: r.update({"conc": [4, 0]}), "conc"),
    (SINGLE, lambda r: r.pop("spec-decoding"), "missing required field 'spec-decoding'"),
    (MULTI, lambda r: r["prefill"].update({"pp": 0}), "must be greater than 0"),
    (SINGLE, lambda r: r.update({"require-power": "yes"}), "boolean"),
])
def test_what_the_reference_refuses_is_still_refused(base, change, needle):
    assert needle in messages(broken(base, change))


def test_a_row_from_another_tool_is_sharded_as_its_complete_form():
    from infx.plan.identity import job_name
    from infx.plan.sweep_plan import Plan
    from infx.workflow.shard import shard_plan

    partial = _without(MULTI, "pp", "dcp-size", "pcp-size", worker=True)
    plan = {"single_node": {}, "multi_node": {"8k1k": [partial]}}
    (row,) = shard_plan(Plan.from_json(plan))["multi-node-8k1k-1"]
    assert row["prefill"] == MULTI["prefill"] and row["job-name"] == job_name(MULTI)
