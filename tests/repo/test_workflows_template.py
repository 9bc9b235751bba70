"""benchmark-tmpl.yml: job names, runner labels and the row hand-off evaluated from the real YAML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lib.expressions import Context, evaluate_text, interpolate

from infx.plan.identity import job_name
from infx.plan.sweep_plan import Plan
from infx.workflow.shard import shard_plan
from infx.yamlio import load_file

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
SINGLE = {"model-prefix": "dsr1", "precision": "fp8", "runner": "mi355x", "framework": "sglang",
          "conc": 4, "tp": 8}
MULTI = {"model-prefix": "dsr1", "precision": "fp4", "runner": "mi355x-disagg", "framework": "sglang",
         "conc": [8, 16], "prefill": {"tp": 4}}
EVAL = SINGLE | {"eval-only": True, "conc": 16}


@pytest.fixture(scope="module")
def template() -> dict:
    return load_file(WORKFLOWS / "benchmark-tmpl.yml")


def _inputs(row: dict) -> Context:
    # the caller passes toJSON(matrix.config); the template reads it back with fromJSON
    passed = evaluate_text("toJSON(matrix.config)", Context({"matrix": {"config": row}}))
    return Context({"inputs": {"config": passed}})


@pytest.mark.parametrize("row", [SINGLE, MULTI, EVAL])
def test_job_name_and_runner(template, row):
    # the shard step names every row by its identity; the template shows that name
    plan = {"evals": [row]} if row.get("eval-only") else {"single_node": {"1k1k": [row]}}
    ((row,),) = shard_plan(Plan.from_json(plan)).values()
    name = job_name(row)
    job = template["jobs"]["benchmark"]
    assert interpolate(job["name"], _inputs(row)) == name
    assert interpolate(job["runs-on"], _inputs(row)) == row["runner"]
    assert json.loads(interpolate(job["env"]["CONFIG_JSON"], _inputs(row))) == row


def test_template_interface(template):
    on = template.get("on", template.get(True))
    assert set(on) == {"workflow_call"}
    assert on["workflow_call"]["inputs"]["config"]["type"] == "string"
    assert template["permissions"] == {}
    steps = template["jobs"]["benchmark"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert "python -m infx.workflow row-info" in runs and "python -m infx.workflow launch" in runs
    upload = next(s for s in steps if s.get("name") == "Upload results")
    assert upload["with"]["name"] == "${{ steps.row.outputs.artifact-name }}"
