"""Helpers of the workflows gating tests, shared with other test modules."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from infx.errors import InfxError
from infx.plan.labels import has_skip_sweep, sweep_flags
from infx.plan.sweep_plan import Plan
from infx.workflow.shard import all_shard_ids, shard_outputs
from infx.yamlio import load_file
from lib.expressions import Context, evaluate_if, interpolate

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"


REPO = "acme/inferencex"


LABEL_POOL = ("full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled", "all-evals",
              "evals-only", "documentation")


PRIMARY = {"full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled",
           "full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled"}


OPT_OUT_POOL = ("full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled", "full-sweep-enabled",
                "documentation")


# the agentx-fast modifier, the skip_queue request and a priority-policy label (which, like any
# other label, never starts, restarts or skips a sweep: PRODUCT §4.4)
MODIFIER_POOL = ("full-sweep-fail-fast", "sweep-enabled", "agentx-fast", "skip_queue", "evals-only",
                 "ci-patchwork")


RELEVANT = PRIMARY | {"all-evals", "evals-only", "agentx-fast", "skip_queue"}
REUSE_INCOMPATIBLE = {"evals-only", "agentx-fast"}
# every head of a PR: the actions that validate whatever the labels (PRODUCT §4.4)
HEAD_ACTIONS = ("opened", "reopened", "synchronize")


RUN, SKIP, FAIL = "success", "skipped", "failure"


@pytest.fixture(scope="module")
def sweep() -> dict:
    return load_file(WORKFLOWS / "run-sweep.yml")


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as True


@dataclass(frozen=True)
class Case:
    event: str
    action: str | None
    labels: frozenset
    label: str | None
    draft: bool
    fork: bool
    auth: str  # "none" | "valid" | "invalid" (authorized, but the source run fails validation)
    skip_sweep: bool
    valid: bool


def all_pr_cases(pool: tuple[str, ...] = LABEL_POOL):
    label_sets = [frozenset(c) for n in range(len(pool) + 1)
                  for c in itertools.combinations(pool, n)]
    for labels in label_sets:
        events = [("synchronize", None), ("ready_for_review", None), ("opened", None), ("reopened", None)]
        events += [("labeled", name) for name in sorted(labels)]
        events += [("unlabeled", name) for name in pool if name not in labels]
        for (action, label), draft, fork, auth, skip, valid in itertools.product(
                events, (False, True), (False, True), ("none", "valid", "invalid"),
                (False, True), (True, False)):
            yield Case("pull_request", action, labels, label, draft, fork, auth, skip, valid)


def push_cases():
    for skip in (False, True):
        yield Case("push", None, frozenset(), None, False, False, "none", skip, True)


def expected(case: Case) -> tuple[str, str, str]:
    """(validate, reuse-gate, plan) as intended."""
    if case.event == "push":
        return SKIP, SKIP, RUN  # main always plans (reuse is resolved inside the plan job)
    label_event = case.action in ("labeled", "unlabeled")
    if label_event and case.label not in RELEVANT:
        return SKIP, SKIP, SKIP  # label noise (policy labels included) runs nothing
    primaries = case.labels & PRIMARY
    if not case.valid or len(primaries) > 1:
        return FAIL, SKIP, SKIP  # forks and drafts are validated too
    gate_runs = (case.action == "synchronize" and not case.draft and not case.fork
                 and not case.labels & REUSE_INCOMPATIBLE)
    gate = SKIP if not gate_runs else (FAIL if case.auth == "invalid" else RUN)
    reused = gate_runs and case.auth == "valid"
    sweep_wanted = (len(primaries) == 1 and not case.draft and not case.fork and not case.skip_sweep
                    and case.action not in ("opened", "reopened") and gate != FAIL and not reused)
    return RUN, gate, RUN if sweep_wanted else SKIP


def github_context(case: Case) -> dict:
    if case.event == "push":
        return {"event_name": "push", "ref": "refs/heads/main", "sha": "c" * 40, "run_id": "777",
                "repository": REPO, "event": {"before": "a" * 40, "after": "c" * 40}}
    event = {
        "action": case.action,
        "pull_request": {
            "number": 12, "draft": case.draft, "title": "Bump image",
            "labels": [{"name": n} for n in sorted(case.labels)],
            "head": {"sha": "b" * 40, "repo": {"full_name": "fork/inferencex" if case.fork else REPO}},
            "base": {"sha": "a" * 40},
        },
    }
    if case.label is not None:
        event["label"] = {"name": case.label}
    return {"event_name": "pull_request", "ref": "refs/pull/12/merge", "sha": "m" * 40,
            "run_id": "777", "repository": REPO, "base_ref": "main", "event": event}


def job_status(needs: dict) -> str:
    results = [n["result"] for n in needs.values()]
    if any(r == FAIL for r in results):
        return "failure"
    return "success" if all(r == RUN for r in results) else "skipped"


def run_job(workflow: dict, job_id: str, github: dict, needs: dict) -> bool:
    job = workflow["jobs"][job_id]
    relevant_needs = {k: needs[k] for k in _needs_of(job)}
    ctx = Context({"github": github, "needs": relevant_needs}, job_status=job_status(relevant_needs))
    return evaluate_if(job.get("if"), ctx)


def _needs_of(job: dict) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def simulate(workflow: dict, case: Case) -> tuple[str, str, str]:
    github = github_context(case)
    needs: dict = {}
    if run_job(workflow, "validate", github, needs):
        try:
            flags = sweep_flags(case.labels)  # the label step's real logic
            skip = has_skip_sweep("Bump image [skip-sweep]" if case.skip_sweep else "Bump image")
            outputs = flags.outputs() | {"skip-pr-sweep": "true" if skip else "false"}
            result = RUN if case.valid else FAIL
        except InfxError:
            outputs, result = {}, FAIL
        needs["validate"] = {"result": result, "outputs": outputs if result == RUN else {}}
    else:
        needs["validate"] = {"result": SKIP, "outputs": {}}
    if run_job(workflow, "reuse-gate", github, needs):
        if case.auth == "invalid":
            needs["reuse-gate"] = {"result": FAIL, "outputs": {}}
        else:
            skip = "true" if case.auth == "valid" else "false"
            needs["reuse-gate"] = {"result": RUN, "outputs": {"skip-pr-sweep": skip}}
    else:
        needs["reuse-gate"] = {"result": SKIP, "outputs": {}}
    plan = RUN if run_job(workflow, "plan", github, needs) else SKIP
    return needs["validate"]["result"], needs["reuse-gate"]["result"], plan


def concurrency_group(sweep: dict, case: Case) -> str:
    return interpolate(sweep["concurrency"]["group"], Context({"github": github_context(case)}))


def _row(i: int, **extra) -> dict:
    return {"exp-name": f"x{i}", "runner": "mi355x", "conc": i, "model-prefix": "dsr1",
            "precision": "fp8", "framework": "sglang"} | extra


PLANS = {
    "empty": {"single_node": {}, "multi_node": {}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []},
    "throughput": {"single_node": {"1k1k": [_row(1), _row(2)]}, "multi_node": {}, "evals": []},
    "evals-only": {"single_node": {}, "evals": [_row(3, **{"eval-only": True})]},
    "big": {"single_node": {"8k1k": [_row(i) for i in range(300)]},
            "multinode_agentic_evals": [_row(1, **{"eval-only": True})]},
}


def _plan_needs(plan: dict, reuse: str) -> dict:
    outputs = shard_outputs(Plan.from_json(plan))
    return {"plan": {"result": RUN, "outputs": {
        "matrix": json.dumps(outputs["matrix"]), "shards": json.dumps(outputs["shards"]),
        "has-throughput": "true" if outputs["has-throughput"] else "false",
        "has-evals": "true" if outputs["has-evals"] else "false",
        "reuse-enabled": reuse, "fail-fast": "false", "canary": "[]"}},
        "canary": {"result": SKIP, "outputs": {}}}


CANARY_PRIMARIES = {"full-sweep-fail-fast", "full-sweep-enabled"}


CANARY_PLANS = {
    "throughput": ({"single_node": {"1k1k": [_row(2), _row(1)]}, "evals": [_row(9, **{"eval-only": True})]}, 1),
    "only-the-canary": ({"single_node": {"8k1k": [_row(4)]}}, 4),
    "both-lengths": ({"single_node": {"1k1k": [_row(8), _row(16)], "8k1k": [_row(4), _row(64)]},
                      "multi_node": {"1k1k": [_row(1, prefill={"tp": 8}, decode={"tp": 8})]}}, 4),
    "eval-rows-skipped": ({"single_node": {"1k1k": [_row(1, **{"run-eval": True}), _row(32)]}}, 32),
    "evals-only": ({"evals": [_row(3, **{"eval-only": True})]}, None),
    "agentic-only": ({"single_node": {"agentic": [_row(1, **{"scenario-type": "agentic-coding"})]}}, None),
    "multi-node-only": ({"multi_node": {"8k1k": [_row(2, prefill={"tp": 4}, decode={"tp": 4})]}}, None),
    "big": ({"single_node": {"8k1k": [_row(i) for i in range(300)]},
             "multinode_agentic_evals": [_row(1, **{"eval-only": True})]}, 0),
}


CANARY_LABEL_SETS = [frozenset(), *({p} for p in sorted(PRIMARY)), {"full-sweep-fail-fast", "evals-only"}]


def _bucket_rows(plan: dict) -> list[dict]:
    return Plan.from_json(plan).rows()


_SPLITS: dict = {}


def _canary_outputs(plan: dict, enabled: bool) -> dict:
    from infx.workflow.canary import outputs

    key = (json.dumps(plan, sort_keys=True), enabled)
    if key not in _SPLITS:
        _SPLITS[key] = outputs(Plan.from_json(plan), enabled)[0]
    return _SPLITS[key]


def simulate_canary(workflow: dict, case: Case, plan: dict, reuse: str, canary_result: str) -> dict:
    """validate -> plan (the shard step's CANARY expression and the real canary split) ->
    canary -> families -> collection, with the real `if:` of every job."""
    github = github_context(case)
    validate = {"result": RUN, "outputs": sweep_flags(case.labels).outputs()} if case.event == "pull_request" \
        else {"result": SKIP, "outputs": {}}
    step = next(s for s in workflow["jobs"]["plan"]["steps"] if s.get("id") == "shard")
    enabled = interpolate(step["env"]["CANARY"], Context({"github": github, "needs": {"validate": validate}}))
    assert enabled in ("true", "false")
    out = _canary_outputs(plan, enabled == "true")
    planned = {"result": RUN, "outputs": {
        "matrix": json.dumps(out["matrix"]), "shards": json.dumps(out["shards"]),
        "canary": json.dumps(out["canary"]), "reuse-enabled": reuse, "fail-fast": "false",
        "has-throughput": "true" if out["has-throughput"] else "false",
        "has-evals": "true" if out["has-evals"] else "false"}}
    needs = {"validate": validate, "plan": planned}
    results = {"canary": canary_result if run_job(workflow, "canary", github, needs) else SKIP}
    needs["canary"] = {"result": results["canary"], "outputs": {}}
    for shard in all_shard_ids():
        results[f"sweep-{shard}"] = RUN if run_job(workflow, f"sweep-{shard}", github, needs) else SKIP
        needs[f"sweep-{shard}"] = {"result": results[f"sweep-{shard}"], "outputs": {}}
    for job_id in ("collect-results", "collect-evals"):
        results[job_id] = RUN if run_job(workflow, job_id, github, needs) else SKIP
    results["_out"] = out
    return results


def _canary_cases():
    for labels in CANARY_LABEL_SETS:
        for action in ("synchronize", "labeled"):
            label = sorted(labels)[0] if action == "labeled" and labels else None
            yield pr_case("labeled" if label else "synchronize", labels, label)
    yield next(push_cases())


def _comment_ctx(body: str, previous: str | None = None, on_pr: bool = True) -> Context:
    event = {"action": "edited" if previous is not None else "created",
             "issue": {"number": 5, "pull_request": {"url": "x"} if on_pr else None},
             "comment": {"body": body}}
    if previous is not None:
        event["changes"] = {"body": {"from": previous}}
    return Context({"github": {"event_name": "issue_comment", "event": event}})


def pr_case(action, labels, label=None, **kw) -> Case:
    base = {"draft": False, "fork": False, "auth": "none", "skip_sweep": False, "valid": True}
    return Case("pull_request", action, frozenset(labels), label, **(base | kw))


def _push_needs(plan_result: str, reuse: str) -> dict:
    needs = _plan_needs(PLANS["big"], reuse) if plan_result == RUN else {"plan": {"result": plan_result,
                                                                                   "outputs": {}}}
    needs["plan"]["outputs"] |= {"reuse-source-run-ids": "101,99", "reuse-source-pr-number": "12"}
    needs.setdefault("canary", {"result": SKIP, "outputs": {}})  # pushes to main never run one
    return needs

