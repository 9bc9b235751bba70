"""Trusted fork sweeps in run-sweep.yml's real expressions (PRODUCT §4.4): a dispatch sweeps only
through the approval gate, as its PR's labels ask (canary, fail-fast, trim), titled with the PR
and the pinned head (infx.trust reads it back), in a concurrency group of its own; a fork PR's
own run never plans; the PR's checkout is the pinned head on a dispatch and the event's commit
otherwise."""

from __future__ import annotations

import itertools
import json

import pytest
from lib.expressions import Context, evaluate_if, interpolate
from lib.workflow_gating import (
    CANARY_PLANS,
    PRIMARY,
    REPO,
    RUN,
    SKIP,
    WORKFLOWS,
    _canary_outputs,
    github_context,
    pr_case,
    run_job,
    triggers,
)

from infx import trust
from infx.plan.labels import sweep_flags
from infx.workflow.shard import all_shard_ids
from infx.yamlio import load_file

FAIL = "failure"


@pytest.fixture(scope="module")
def sweep() -> dict:
    return load_file(WORKFLOWS / "run-sweep.yml")
SHA = "b" * 40
MAIN = "c" * 40


def dispatch_context(number: str = "41", sha: str = SHA) -> dict:
    """What GitHub gives a run of run-sweep.yml dispatched by fork-sweep.yml."""
    event = {"inputs": {"pr-number": number, "head-sha": sha}, "ref": "refs/heads/main",
             "repository": {"full_name": REPO, "default_branch": "main"}}
    return {"event_name": "workflow_dispatch", "ref": "refs/heads/main", "sha": MAIN, "run_id": "901",
            "repository": REPO, "base_ref": "", "event": event}


def _ctx(github: dict, **contexts) -> Context:
    return Context({"github": github, "inputs": github["event"].get("inputs", {}), **contexts})


def _step(workflow: dict, job: str, step_id: str) -> dict:
    return next(s for s in workflow["jobs"][job]["steps"] if s.get("id") == step_id)


def simulate_dispatch(workflow: dict, labels: frozenset, gate: str) -> dict:
    """validate (the gate step's result, then the label step's real logic on the labels the gate
    read) -> plan -> canary -> families, with the real `if:` of every job."""
    github = dispatch_context()
    results = {"validate": RUN if evaluate_if(workflow["jobs"]["validate"]["if"], _ctx(github)) else SKIP}
    validate = {"result": SKIP, "outputs": {}}
    if results["validate"] == RUN:
        gate_step = next(s for s in workflow["jobs"]["validate"]["steps"] if s.get("id") == "fork")
        assert evaluate_if(gate_step["if"], _ctx(github))
        if gate in (RUN, "invalid"):
            fork = {"outputs": {"labels-json": json.dumps(sorted(labels)), "head-sha": SHA, "base-ref": "main"}}
            env = _step(workflow, "validate", "labels")["env"]
            steps = {"fork": fork}
            assert json.loads(interpolate(env["LABELS_JSON"], _ctx(github, steps=steps))) == sorted(labels)
            assert interpolate(env["HEAD_SHA"], _ctx(github, steps=steps)) == SHA
            try:
                # "invalid": the changelog validation fails after the label step set its outputs
                validate = {"result": RUN if gate == RUN else FAIL,
                            "outputs": sweep_flags(labels).outputs() | {"skip-pr-sweep": "false"} | fork["outputs"]}
            except Exception:
                validate = {"result": FAIL, "outputs": {}}
        else:
            validate = {"result": FAIL, "outputs": {}}  # the gate refused: the job fails there
        results["validate"] = validate["result"]
    needs = {"validate": validate, "reuse-gate": {"result": SKIP, "outputs": {}}}
    results["reuse-gate"] = RUN if run_job(workflow, "reuse-gate", github, needs) else SKIP
    plans = run_job(workflow, "plan", github, needs)
    results["plan"] = RUN if plans else SKIP
    if not plans:
        needs["plan"] = {"result": SKIP, "outputs": {}}
    else:
        shard = _step(workflow, "plan", "shard")
        enabled = interpolate(shard["env"]["CANARY"], _ctx(github, needs={"validate": validate}))
        out = _canary_outputs(CANARY_PLANS["throughput"][0], enabled == "true")
        results["canary-enabled"] = enabled
        fail_fast = interpolate(workflow["jobs"]["plan"]["outputs"]["fail-fast"], _ctx(github, needs=needs))
        results["fail-fast"] = fail_fast
        needs["plan"] = {"result": RUN, "outputs": {
            "matrix": json.dumps(out["matrix"]), "shards": json.dumps(out["shards"]),
            "canary": json.dumps(out["canary"]), "reuse-enabled": "", "fail-fast": fail_fast,
            "has-throughput": "true" if out["has-throughput"] else "false",
            "has-evals": "true" if out["has-evals"] else "false"}}
    results["canary"] = RUN if run_job(workflow, "canary", github, needs) else SKIP
    needs["canary"] = {"result": results["canary"], "outputs": {}}
    results["families"] = sorted(s for s in all_shard_ids()
                                 if run_job(workflow, f"sweep-{s}", github, needs))
    for job in ("results-link", "report", "publish"):
        results[job] = RUN if run_job(workflow, job, github, needs | {
            "collect-results": {"result": RUN, "outputs": {}},
            "collect-evals": {"result": SKIP, "outputs": {}}}) else SKIP
    return results


LABEL_SETS = [frozenset(c) for n in range(3) for c in itertools.combinations(
    ("full-sweep-fail-fast", "sweep-enabled", "full-sweep-fail-fast-no-canary", "all-evals", "documentation"), n)]


@pytest.mark.parametrize("labels", LABEL_SETS, ids=lambda s: "+".join(sorted(s)) or "none")
@pytest.mark.parametrize("gate", [RUN, FAIL, "invalid"])
def test_a_dispatch_sweeps_only_through_the_gate_as_its_labels_ask(sweep, labels, gate):
    got = simulate_dispatch(sweep, labels, gate)
    primaries = labels & PRIMARY
    sweeps = gate == RUN and len(primaries) == 1
    assert got["validate"] == (RUN if gate == RUN and len(primaries) <= 1 else FAIL), got
    assert got["reuse-gate"] == SKIP  # a fork sweep never reuses: it sweeps the pinned head whole
    assert got["plan"] == (RUN if sweeps else SKIP), got
    assert got["publish"] == SKIP  # only the merge-time push publishes
    if not sweeps:  # no plan: no GPU job at all
        assert got["canary"] == SKIP and got["families"] == [] and got["report"] == SKIP
        return
    flags = sweep_flags(labels)
    assert got["canary-enabled"] == ("true" if flags.canary else "false")
    assert got["fail-fast"] == ("true" if flags.fail_fast else "false")
    assert got["canary"] == (RUN if flags.canary else SKIP)
    assert got["families"] and got["results-link"] == RUN and got["report"] == RUN


def test_the_dispatch_trigger_takes_the_pr_and_the_head_as_strings(sweep):
    inputs = triggers(sweep)["workflow_dispatch"]["inputs"]
    assert set(inputs) == {"pr-number", "head-sha"}
    assert all(spec["required"] is True and spec["type"] == "string" for spec in inputs.values())


@pytest.mark.parametrize("number", ["41", "7"])
def test_the_run_title_is_the_pin_the_trust_rule_reads(sweep, number):
    title = interpolate(sweep["run-name"], _ctx(dispatch_context(number)))
    assert title == trust.fork_sweep_title(int(number), SHA)
    run = type("Run", (), {"event": "workflow_dispatch", "display_title": title, "head_sha": MAIN,
                           "head_branch": "main", "head_repo": REPO, "path": trust.SWEEP_WORKFLOW})()
    assert trust.pinned_head(run) == (int(number), SHA)
    assert trust.run_origin(run, repo=REPO, default_branch="main") is None
    # a PR's own run keeps GitHub's PR title, which never pins anything
    pr = github_context(pr_case("synchronize", {"full-sweep-enabled"}))
    assert interpolate(sweep["run-name"], _ctx(pr)) == "Run Sweep - Bump image"


def test_a_fork_sweep_has_its_own_concurrency_group(sweep):
    group = interpolate(sweep["concurrency"]["group"], _ctx(dispatch_context()))
    own = interpolate(sweep["concurrency"]["group"], _ctx(github_context(pr_case("synchronize", set(), fork=True))))
    assert group == "sweep-fork-41-active"  # a new approval of the PR replaces a running fork sweep
    assert own == "sweep-12-active" and group != own  # the fork's own runs never cancel it


def _pr_checkouts(workflow: dict, job: str) -> list[dict]:
    return [s["with"] for s in workflow["jobs"][job]["steps"]
            if str(s.get("uses", "")).startswith("actions/checkout@") and s["with"].get("path") == "pr"]


def test_the_prs_files_are_the_pinned_head_on_a_dispatch_and_the_events_commit_otherwise(sweep):
    template = load_file(WORKFLOWS / "benchmark-tmpl.yml")
    checkouts = _pr_checkouts(sweep, "validate") + _pr_checkouts(sweep, "plan") + _pr_checkouts(template, "benchmark")
    assert len(checkouts) == 3
    pr = github_context(pr_case("synchronize", {"full-sweep-enabled"}))
    for with_ in checkouts:
        assert interpolate(with_["ref"], _ctx(dispatch_context())) == SHA
        assert interpolate(with_["ref"], _ctx(pr)) == ""  # actions/checkout: the event's commit


def test_the_plan_of_a_dispatch_is_its_prs_whole_plan(sweep):
    """The plan and fingerprint steps treat a fork sweep as its PR's label event (never an
    incremental re-sweep), against the base branch the gate read; the policy is the base's."""
    github = dispatch_context()
    needs = {"validate": {"result": RUN, "outputs": {"head-sha": SHA, "base-ref": "main",
                                                     "labels-json": '["full-sweep-fail-fast"]'}}}
    env = {}
    for step in sweep["jobs"]["plan"]["steps"]:
        env |= {k: interpolate(str(v), _ctx(github, needs=needs)) for k, v in (step.get("env") or {}).items()
                if k in ("EVENT_NAME", "EVENT_ACTION", "BASE_REF", "PR_HEAD_SHA", "PR_NUMBER", "POLICY_REF",
                         "LABELS_JSON")}
    assert env == {"EVENT_NAME": "pull_request", "EVENT_ACTION": "labeled", "BASE_REF": "main",
                   "PR_HEAD_SHA": SHA, "PR_NUMBER": "41", "POLICY_REF": "origin/main",
                   "LABELS_JSON": '["full-sweep-fail-fast"]'}


def test_the_approval_and_drop_workflows_run_only_the_default_branchs_code():
    approve = load_file(WORKFLOWS / "fork-sweep.yml")
    assert triggers(approve) == {"issue_comment": {"types": ["created"]}}
    job = approve["jobs"]["approve"]
    assert job["permissions"] == {"actions": "write", "contents": "read", "issues": "write",
                                  "pull-requests": "read"}
    drop = load_file(WORKFLOWS / "fork-sweep-drop.yml")
    push = load_file(WORKFLOWS / "fork-push.yml")
    assert triggers(drop) == {"workflow_run": {"workflows": [push["name"]], "types": ["completed"]}}
    assert triggers(push) == {"pull_request": {"types": ["synchronize"]}}
    assert push["jobs"]["handoff"]["permissions"] == {}
    assert all("uses" not in step for step in push["jobs"]["handoff"]["steps"])  # runs nothing
    for job in (approve["jobs"]["approve"], drop["jobs"]["drop"]):
        checkouts = [s["with"] for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
        assert checkouts == [{"ref": "${{ github.event.repository.default_branch }}", "persist-credentials": False}]
        assert not any(str(s.get("uses", "")).startswith("actions/download-artifact@") for s in job["steps"])
    run_ctx = Context({"github": {"repository": REPO, "event": {"workflow_run": {
        "event": "pull_request", "head_repository": {"full_name": "vendor/inferencex"}}}}})
    assert evaluate_if(drop["jobs"]["drop"]["if"], run_ctx)
    run_ctx.values["github"]["event"]["workflow_run"]["head_repository"]["full_name"] = REPO
    assert not evaluate_if(drop["jobs"]["drop"]["if"], run_ctx)  # a same-repository PR: nothing to drop
