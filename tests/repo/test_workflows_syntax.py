"""A small actionlint substitute: every expression parses and every needs/steps reference resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lib.expressions import parse

from infx.yamlio import load_file

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
OURS = ["run-sweep.yml", "benchmark-tmpl.yml", "pr-welcome.yml", "pr-welcome-fork.yml", "reuse-command.yml",
        "ci.yml"]
EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
NEEDS_REF = re.compile(r"needs\.([A-Za-z0-9_-]+)")
STEPS_REF = re.compile(r"steps\.([A-Za-z0-9_-]+)")


def _strings(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, (*path, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _strings(value, (*path, str(index)))
    elif isinstance(node, str):
        yield path, node


def _expressions(job: dict):
    for path, text in _strings(job):
        if path and path[-1] == "if" and "${{" not in text:
            yield path, text
        for match in EXPR.finditer(text):
            yield path, match.group(1)


@pytest.mark.parametrize("name", OURS)
def test_every_expression_parses(name):
    workflow = load_file(WORKFLOWS / name)
    count = 0
    for _, text in _strings(workflow):
        for match in EXPR.finditer(text):
            parse(match.group(1))
            count += 1
    for job in workflow["jobs"].values():
        if isinstance(job.get("if"), str):
            parse(job["if"])
            count += 1
    assert count > 0


@pytest.mark.parametrize("name", OURS)
def test_needs_and_steps_references_resolve(name):
    workflow = load_file(WORKFLOWS / name)
    for job_id, job in workflow["jobs"].items():
        needs = job.get("needs", [])
        needs = {needs} if isinstance(needs, str) else set(needs)
        assert needs <= set(workflow["jobs"]), f"{job_id} needs unknown jobs"
        step_ids = {s["id"] for s in job.get("steps", []) if "id" in s}
        for path, text in _expressions(job):
            for ref in NEEDS_REF.findall(text):
                assert ref in needs, f"{name}:{job_id}:{'.'.join(path)} uses needs.{ref} without needing it"
            for ref in STEPS_REF.findall(text):
                assert ref in step_ids, f"{name}:{job_id}:{'.'.join(path)} uses unknown step {ref}"


def test_job_outputs_come_from_steps_that_write_them():
    workflow = load_file(WORKFLOWS / "run-sweep.yml")
    plan_outputs = set(workflow["jobs"]["plan"]["outputs"])
    for job_id, job in workflow["jobs"].items():
        for _, text in _expressions(job):
            for output in re.findall(r"needs\.plan\.outputs\.([A-Za-z0-9_-]+)", text):
                assert output in plan_outputs, f"{job_id} reads undeclared plan output {output}"
