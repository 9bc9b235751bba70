"""The real `if:` and concurrency expressions of run-sweep.yml against an independent truth table.

The truth table below is plain Python describing what should happen; the simulation evaluates
the expressions parsed from the workflow file (with support.expressions) and the label
step's real Python logic, and both must agree for every combination of event, action, labels,
acted-on label, draft, fork, reuse authorization, [skip-sweep] and changelog validity.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.expressions import Context, evaluate_if, interpolate

from infx.errors import InfxError
from infx.workflow.labels import has_skip_sweep, sweep_flags
from infx.workflow.shard import all_shard_ids, shard_outputs
from infx.yamlio import load_file

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"
REPO = "acme/inferencex"
LABEL_POOL = ("full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled", "all-evals",
              "evals-only", "documentation")
# Independent statement of intent (deliberately not imported from infx.workflow.labels).
PRIMARY = {"full-sweep-fail-fast", "full-sweep-enabled", "sweep-enabled",
           "full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled"}
# the opt-out spellings, with a canary label to conflict with and a noise label
OPT_OUT_POOL = ("full-sweep-fail-fast-no-canary", "non-canary-full-sweep-enabled", "full-sweep-enabled",
                "documentation")
RELEVANT = PRIMARY | {"all-evals", "evals-only"}
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
        events = [("synchronize", None), ("ready_for_review", None)]
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
    if case.fork or (label_event and case.label not in RELEVANT):
        return SKIP, SKIP, SKIP
    primaries = case.labels & PRIMARY
    if not case.valid or len(primaries) > 1:
        return FAIL, SKIP, SKIP
    gate_runs = case.action == "synchronize" and not case.draft and "evals-only" not in case.labels
    gate = SKIP if not gate_runs else (FAIL if case.auth == "invalid" else RUN)
    reused = gate_runs and case.auth == "valid"
    sweep_wanted = (len(primaries) == 1 and not case.draft and not case.skip_sweep
                    and gate != FAIL and not reused)
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


@pytest.mark.parametrize(("pool", "least"), [(LABEL_POOL, 20_000), (OPT_OUT_POOL, 4_000)])
def test_every_pr_combination_matches_the_truth_table(sweep, pool, least):
    mismatches, count = [], 0
    for case in itertools.chain(all_pr_cases(pool), push_cases()):
        count += 1
        got, want = simulate(sweep, case), expected(case)
        if got != want:
            mismatches.append((case, got, want))
    assert count > least
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"


@pytest.mark.parametrize(("case", "want"), [
    (Case("pull_request", "synchronize", frozenset({"full-sweep-fail-fast"}), None, False, False,
          "none", False, True), (RUN, RUN, RUN)),
    (Case("pull_request", "synchronize", frozenset({"full-sweep-fail-fast"}), None, False, False,
          "valid", False, True), (RUN, RUN, SKIP)),
    (Case("pull_request", "synchronize", frozenset({"full-sweep-enabled", "full-sweep-fail-fast"}),
          None, False, False, "valid", False, True), (FAIL, SKIP, SKIP)),
    (Case("pull_request", "synchronize", frozenset(), None, False, False, "none", False, True),
     (RUN, RUN, SKIP)),
    (Case("pull_request", "labeled", frozenset({"full-sweep-enabled", "documentation"}),
          "documentation", False, False, "none", False, True), (SKIP, SKIP, SKIP)),
    (Case("pull_request", "labeled", frozenset({"full-sweep-enabled"}), "full-sweep-enabled",
          False, False, "valid", False, True), (RUN, SKIP, RUN)),  # re-labeling forces a sweep
    (Case("pull_request", "synchronize", frozenset({"full-sweep-enabled", "evals-only"}), None,
          False, False, "valid", False, True), (RUN, SKIP, RUN)),
    (Case("pull_request", "synchronize", frozenset({"full-sweep-enabled"}), None, False, True,
          "none", False, True), (SKIP, SKIP, SKIP)),  # forks never run anything
    (Case("pull_request", "synchronize", frozenset({"full-sweep-enabled"}), None, True, False,
          "none", False, True), (RUN, SKIP, SKIP)),  # drafts validate but never sweep
    (Case("pull_request", "ready_for_review", frozenset({"full-sweep-enabled"}), None, False, False,
          "none", False, True), (RUN, SKIP, RUN)),
    (Case("pull_request", "synchronize", frozenset({"sweep-enabled"}), None, False, False,
          "none", True, True), (RUN, RUN, SKIP)),  # [skip-sweep]
    (Case("pull_request", "unlabeled", frozenset(), "full-sweep-enabled", False, False,
          "none", False, True), (RUN, SKIP, SKIP)),
    (Case("pull_request", "synchronize", frozenset({"full-sweep-enabled"}), None, False, False,
          "invalid", False, True), (RUN, FAIL, SKIP)),
    (Case("push", None, frozenset(), None, False, False, "none", True, True), (SKIP, SKIP, RUN)),
])
def test_named_cases(sweep, case, want):
    assert expected(case) == want
    assert simulate(sweep, case) == want


def test_triggers(sweep):
    on = triggers(sweep)
    assert set(on) == {"pull_request", "push"}
    assert set(on["pull_request"]["types"]) == {"synchronize", "labeled", "unlabeled", "ready_for_review"}
    assert "opened" not in on["pull_request"]["types"] and "reopened" not in on["pull_request"]["types"]
    assert on["pull_request"]["paths"] == ["perf-changelog.yaml"]
    assert on["push"] == {"branches": ["main"], "paths": ["perf-changelog.yaml"]}


def concurrency_group(sweep: dict, case: Case) -> str:
    return interpolate(sweep["concurrency"]["group"], Context({"github": github_context(case)}))


@pytest.mark.parametrize(("action", "label", "suffix"), [
    ("synchronize", None, "active"),
    ("labeled", "full-sweep-fail-fast", "active"),
    ("unlabeled", "evals-only", "active"),
    ("labeled", "documentation", "777"),
    ("unlabeled", "documentation", "777"),
    ("ready_for_review", None, "active"),
])
def test_concurrency_cancels_only_on_relevant_changes(sweep, action, label, suffix):
    case = Case("pull_request", action, frozenset({"full-sweep-enabled"}), label, False, False,
                "none", False, True)
    assert concurrency_group(sweep, case) == f"sweep-12-{suffix}"
    assert sweep["concurrency"]["cancel-in-progress"] is True


def test_concurrency_on_push_is_per_commit(sweep):
    case = next(push_cases())
    assert concurrency_group(sweep, case) == f"sweep-{'c' * 40}-active"


# ---- downstream jobs ----------------------------------------------------------------

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
    outputs = shard_outputs(plan)
    return {"plan": {"result": RUN, "outputs": {
        "matrix": json.dumps(outputs["matrix"]), "shards": json.dumps(outputs["shards"]),
        "has-throughput": "true" if outputs["has-throughput"] else "false",
        "has-evals": "true" if outputs["has-evals"] else "false",
        "reuse-enabled": reuse, "fail-fast": "false", "canary": "[]"}},
        "canary": {"result": SKIP, "outputs": {}}}


@pytest.mark.parametrize("plan_name", sorted(PLANS))
@pytest.mark.parametrize("reuse", ["", "false", "true"])
def test_sweep_jobs_start_only_for_non_empty_shards(sweep, plan_name, reuse):
    plan = PLANS[plan_name]
    needs = _plan_needs(plan, reuse)
    github = github_context(next(push_cases()))
    non_empty = set(shard_outputs(plan)["shards"])
    for shard in all_shard_ids():
        job_id = f"sweep-{shard}"
        runs = run_job(sweep, job_id, github, needs)
        assert runs == (reuse != "true" and shard in non_empty), job_id
        if runs:
            job = sweep["jobs"][job_id]
            matrix = interpolate(job["strategy"]["matrix"]["config"].replace(
                "${{", "${{ toJSON(", 1).replace("}}", ") }}", 1), Context({"needs": needs}))
            assert 0 < len(json.loads(matrix)) <= 256


def test_every_shard_slot_has_a_job_and_the_template(sweep):
    sweep_jobs = {j for j in sweep["jobs"] if j.startswith("sweep-")}
    assert sweep_jobs == {f"sweep-{s}" for s in all_shard_ids()}
    for job_id in sweep_jobs:
        job = sweep["jobs"][job_id]
        assert job["uses"] == "./.github/workflows/benchmark-tmpl.yml"
        assert job["with"] == {"config": "${{ toJSON(matrix.config) }}"}
        assert "secrets" in job and job["secrets"] != "inherit"


def test_plan_job_publishes_single_line_outputs_and_the_summary(sweep):
    """PRODUCT §4.4: the plan reaches jobs through $GITHUB_OUTPUT (written by the shard step, one
    line per output) and its per bucket / config key / runner summary goes to the step summary."""
    job = sweep["jobs"]["plan"]
    runs = {step.get("name"): step.get("run", "") for step in job["steps"]}
    assert "infx plan \"${args[@]}\" --summary > plan.json" in runs["Plan the sweep"]
    assert runs["Shard the matrix and summarise"].startswith("python -m infx.workflow shard --plan plan.json")
    for name in ("matrix", "shards", "jobs", "has-throughput", "has-evals"):
        assert job["outputs"][name] == f"${{{{ steps.shard.outputs.{name} }}}}"


def test_check_run_names_are_what_the_signoff_verifier_counts(sweep):
    """Check runs of called jobs are named "<caller name> / <callee name>"; check 1 of the sign-off
    bot classifies them by the caller's name, so renaming a job must not hide it from the bot."""
    from infx.signoff.sweeps import family
    from infx.workflow.shard import BUCKETS

    for bucket in BUCKETS:
        for index in range(1, bucket.slots + 1):
            name = sweep["jobs"][f"sweep-{bucket.id}-{index}"]["name"]
            assert name.startswith(bucket.title)
            want = "eval" if bucket.is_eval else "benchmark"
            assert family(f"{name} / dsr1 fp8 mi355x sglang c4") == want, name
    for job_id in ("validate", "reuse-gate", "plan", "collect-results", "collect-evals", "results-link"):
        assert family(f"{sweep['jobs'][job_id]['name']} / x") is None, job_id


@pytest.mark.parametrize(("plan_name", "results", "evals"), [
    ("empty", False, False), ("throughput", True, False), ("evals-only", False, True), ("big", True, True),
])
def test_collect_jobs(sweep, plan_name, results, evals):
    needs = _plan_needs(PLANS[plan_name], "false")
    # families may have succeeded, failed or been skipped: collection still happens
    for family_result in (RUN, FAIL, SKIP):
        all_needs = needs | {f"sweep-{s}": {"result": family_result, "outputs": {}} for s in all_shard_ids()}
        github = github_context(next(push_cases()))
        assert run_job(sweep, "collect-results", github, all_needs) is results
        assert run_job(sweep, "collect-evals", github, all_needs) is evals


def test_results_link_only_on_prs_without_reuse(sweep):
    pr = github_context(Case("pull_request", "synchronize", frozenset({"full-sweep-enabled"}), None,
                             False, False, "none", False, True))
    push = github_context(next(push_cases()))
    assert run_job(sweep, "results-link", pr, _plan_needs(PLANS["throughput"], ""))
    assert not run_job(sweep, "results-link", push, _plan_needs(PLANS["throughput"], "false"))
    assert not run_job(sweep, "results-link", pr, _plan_needs(PLANS["throughput"], "true"))
    assert not run_job(sweep, "results-link", pr, {"plan": {"result": SKIP, "outputs": {}}})


def test_fail_fast_follows_the_label(sweep):
    expr = sweep["jobs"]["plan"]["outputs"]["fail-fast"]
    for value, want in (("true", "true"), ("false", "false"), (None, "false")):
        needs = {"validate": {"outputs": {"fail-fast": value} if value else {}}}
        assert interpolate(expr, Context({"needs": needs})) == want


# ---- the canary (research/workflows.md §1.7) --------------------------------------------

# Independent statement of intent: which labels get a canary, and which plans have a candidate
# (a single-node 1k1k/8k1k row whose run-eval is not true) and its concurrency.
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
    return [row for node in ("single_node", "multi_node") for rows in plan.get(node, {}).values()
            for row in rows] + [row for key, rows in plan.items() if key.endswith("evals") for row in rows]


_SPLITS: dict = {}


def _canary_outputs(plan: dict, enabled: bool) -> dict:
    from infx.workflow.canary import outputs

    key = (json.dumps(plan, sort_keys=True), enabled)
    if key not in _SPLITS:
        _SPLITS[key] = outputs(plan, enabled)[0]
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


@pytest.mark.parametrize("plan_name", sorted(CANARY_PLANS))
def test_canary_truth_table(sweep, plan_name):
    """Canary success / failure / cancelled / skipped (no candidate, opt-out label, push, reuse)
    for every primary label: the canary runs alone first, and only its success or its absence
    lets the families and collection start."""
    plan, candidate = CANARY_PLANS[plan_name]
    for case, reuse, result in itertools.product(_canary_cases(), ("", "false", "true"), (RUN, FAIL, "cancelled")):
        got = simulate_canary(sweep, case, plan, reuse, result)
        out = got.pop("_out")
        wants_canary = (case.event == "pull_request" and bool(case.labels & CANARY_PRIMARIES)
                        and candidate is not None)
        canary_runs = wants_canary and reuse != "true"
        assert got["canary"] == (result if canary_runs else SKIP), (case, reuse)
        rows = _bucket_rows(plan)
        if wants_canary:  # the candidate leaves the matrix and is the canary's only row
            assert [r["conc"] for r in out["canary"]] == [candidate]
            assert out["canary"][0].get("run-eval") is not True
        else:
            assert out["canary"] == []
        in_matrix = [r for shard in out["matrix"].values() for r in shard]
        assert len(in_matrix) + len(out["canary"]) == len(rows) == out["jobs"]
        families_may_run = reuse != "true" and (not canary_runs or result == RUN)
        for shard in all_shard_ids():
            want = RUN if families_may_run and shard in out["shards"] else SKIP
            assert got[f"sweep-{shard}"] == want, (case, reuse, result, shard)
        has_throughput = any(not r.get("eval-only") for r in rows)
        has_evals = any(r.get("eval-only") for r in rows)
        assert got["collect-results"] == (RUN if families_may_run and has_throughput else SKIP)
        assert got["collect-evals"] == (RUN if families_may_run and has_evals else SKIP)


@pytest.mark.parametrize(("labels", "canary"), [
    ({"full-sweep-fail-fast"}, True), ({"full-sweep-enabled"}, True),
    ({"full-sweep-fail-fast-no-canary"}, False), ({"non-canary-full-sweep-enabled"}, False),
    ({"sweep-enabled"}, False), (set(), False),
])
def test_opt_out_labels(sweep, labels, canary):
    """The `-no-canary` labels keep their fail-fast meaning but never run a canary."""
    flags = sweep_flags(labels)
    assert flags.canary is canary
    assert flags.fail_fast is bool(labels & {"full-sweep-fail-fast", "full-sweep-fail-fast-no-canary"})
    plan, _ = CANARY_PLANS["throughput"]
    got = simulate_canary(sweep, pr_case("synchronize", labels), plan, "", FAIL)
    assert got["canary"] == (FAIL if canary else SKIP)
    assert got["sweep-single-node-1k1k-1"] == (SKIP if canary else RUN)


def test_canary_job_runs_the_template_alone_and_never_fails_fast(sweep):
    job = sweep["jobs"]["canary"]
    assert job["name"] == "canary" and job["needs"] == "plan"
    assert job["uses"] == "./.github/workflows/benchmark-tmpl.yml"
    assert job["with"] == {"config": "${{ toJSON(matrix.config) }}"}
    assert job["strategy"]["fail-fast"] is False
    for shard in all_shard_ids():
        assert "canary" in sweep["jobs"][f"sweep-{shard}"]["needs"]
    from infx.signoff.sweeps import family

    assert family("canary / dsr1 fp4 mi355x atom 8k1k TP4 c4 #0123abcd") == "benchmark"


# ---- the acknowledgement workflow ------------------------------------------------------

def _comment_ctx(body: str, previous: str | None = None, on_pr: bool = True) -> Context:
    event = {"action": "edited" if previous is not None else "created",
             "issue": {"number": 5, "pull_request": {"url": "x"} if on_pr else None},
             "comment": {"body": body}}
    if previous is not None:
        event["changes"] = {"body": {"from": previous}}
    return Context({"github": {"event_name": "issue_comment", "event": event}})


@pytest.mark.parametrize(("body", "previous", "on_pr", "runs"), [
    ("/reuse-sweep-run", None, True, True),
    ("/use 42", None, True, True),
    ("lgtm", None, True, False),
    ("lgtm", "/use 42", True, True),  # an edit that removed the command clears the reaction
    ("/reuse-sweep-run", None, False, False),  # plain issues never
])
def test_ack_workflow_trigger(body, previous, on_pr, runs):
    workflow = load_file(WORKFLOWS / "reuse-command.yml")
    assert set(triggers(workflow)) == {"issue_comment"}
    assert triggers(workflow)["issue_comment"]["types"] == ["created", "edited"]
    job = workflow["jobs"]["acknowledge"]
    assert evaluate_if(job["if"], _comment_ctx(body, previous, on_pr)) is runs


# ---- /retest-failed (infx/reuse/retest.py decides the rest: tests/test_reuse_retest.py) ----------

@pytest.mark.parametrize(("body", "on_pr", "runs"), [
    ("/retest-failed", True, True),
    ("> /retest-failed", True, True),  # the job starts; the rendered-text rules then ignore it
    ("/reuse-sweep-run", True, False),
    ("lgtm", True, False),
    ("/retest-failed", False, False),  # plain issues never
])
def test_retest_workflow_trigger(body, on_pr, runs):
    workflow = load_file(WORKFLOWS / "retest-command.yml")
    assert set(triggers(workflow)) == {"issue_comment"}
    assert triggers(workflow)["issue_comment"]["types"] == ["created", "edited"]
    job = workflow["jobs"]["retest"]
    assert evaluate_if(job["if"], _comment_ctx(body, None, on_pr)) is runs
    assert job["concurrency"] == {"group": "retest-comment-${{ github.event.comment.id }}",
                                  "cancel-in-progress": False}
    assert job["permissions"] == {"actions": "write", "contents": "read", "issues": "write",
                                  "pull-requests": "read"}


# ---- the sweep report comment ------------------------------------------------------------------

@pytest.mark.parametrize("canary", [RUN, FAIL, SKIP])
@pytest.mark.parametrize("collect", [RUN, FAIL, SKIP])
def test_report_after_collection_on_prs_without_reuse(sweep, canary, collect):
    """The report follows collection whatever happened to the sweep (a failed canary or
    collection is what it must show), only on PRs, never for a reused sweep or a cancelled run."""
    pr = github_context(pr_case("synchronize", {"full-sweep-enabled"}))
    push = github_context(next(push_cases()))
    needs = _plan_needs(PLANS["throughput"], "") | {
        "canary": {"result": canary, "outputs": {}},
        "collect-results": {"result": collect, "outputs": {}},
        "collect-evals": {"result": SKIP, "outputs": {}}}
    assert set(_needs_of(sweep["jobs"]["report"])) == {"plan", "canary", "collect-results", "collect-evals"}
    assert run_job(sweep, "report", pr, needs)
    assert not run_job(sweep, "report", push, needs)
    assert not run_job(sweep, "report", pr, needs | _plan_needs(PLANS["throughput"], "true"))
    assert not run_job(sweep, "report", pr, needs | {"plan": {"result": SKIP, "outputs": {}}})
    ctx = Context({"github": pr, "needs": needs}, job_status="cancelled")
    assert not evaluate_if(sweep["jobs"]["report"]["if"], ctx)
    job = sweep["jobs"]["report"]
    assert job["concurrency"] == {"group": "sweep-report-${{ github.event.pull_request.number }}",
                                  "cancel-in-progress": False}
    checkout = job["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"  # never PR code


# ---- the welcome workflows: every PR gets exactly one poster -----------------------------

@pytest.mark.parametrize("fork", [False, True])
@pytest.mark.parametrize("action", ["opened", "reopened", "ready_for_review"])
def test_welcome_reaches_same_repo_and_fork_prs_through_exactly_one_poster(fork, action):
    welcome = load_file(WORKFLOWS / "pr-welcome.yml")
    poster = load_file(WORKFLOWS / "pr-welcome-fork.yml")
    assert action in triggers(welcome)["pull_request"]["types"]
    head_repo = "vendor/inferencex" if fork else REPO
    pr_ctx = Context({"github": {"event_name": "pull_request", "repository": REPO, "event": {
        "action": action, "pull_request": {"number": 12, "head": {"repo": {"full_name": head_repo}}}}}})
    direct = evaluate_if(welcome["jobs"]["welcome"]["if"], pr_ctx)
    handoff = evaluate_if(welcome["jobs"]["fork-handoff"]["if"], pr_ctx)
    assert (direct, handoff) == (not fork, fork)  # the run always has a job, so it completes
    run_ctx = Context({"github": {"event_name": "workflow_run", "repository": REPO, "event": {
        "action": "completed", "workflow_run": {"event": "pull_request", "name": welcome["name"],
                                                "head_repository": {"full_name": head_repo}}}}})
    assert evaluate_if(poster["jobs"]["welcome"]["if"], run_ctx) is fork


def test_fork_poster_ignores_runs_not_started_by_a_pull_request():
    poster = load_file(WORKFLOWS / "pr-welcome-fork.yml")
    ctx = Context({"github": {"event_name": "workflow_run", "repository": REPO, "event": {
        "workflow_run": {"event": "push", "head_repository": {"full_name": "vendor/inferencex"}}}}})
    assert not evaluate_if(poster["jobs"]["welcome"]["if"], ctx)


# ---- workflows.md §7 scenarios 1-4 (the gating half; 5-10 are in test_reuse_resolver.py) ----

def pr_case(action, labels, label=None, **kw) -> Case:
    base = {"draft": False, "fork": False, "auth": "none", "skip_sweep": False, "valid": True}
    return Case("pull_request", action, frozenset(labels), label, **(base | kw))


def test_scenario_1_label_starts_and_a_push_restarts_in_the_same_group(sweep):
    labeled = pr_case("labeled", {"full-sweep-fail-fast"}, "full-sweep-fail-fast")
    pushed = pr_case("synchronize", {"full-sweep-fail-fast"})
    assert simulate(sweep, labeled) == (RUN, SKIP, RUN)
    assert simulate(sweep, pushed) == (RUN, RUN, RUN)
    assert concurrency_group(sweep, labeled) == concurrency_group(sweep, pushed) == "sweep-12-active"
    assert sweep_flags(labeled.labels).fail_fast


def test_scenario_2_noise_label_runs_nothing_and_cancels_nothing(sweep):
    noise = pr_case("labeled", {"full-sweep-fail-fast", "documentation"}, "documentation")
    assert simulate(sweep, noise) == (SKIP, SKIP, SKIP)
    assert concurrency_group(sweep, noise) != concurrency_group(sweep, pr_case("synchronize", {"full-sweep-fail-fast"}))


def test_scenario_3_conflicting_primaries_then_removing_one(sweep):
    both = {"full-sweep-enabled", "full-sweep-fail-fast"}
    assert simulate(sweep, pr_case("synchronize", both)) == (FAIL, SKIP, SKIP)
    fixed = pr_case("unlabeled", {"full-sweep-fail-fast"}, "full-sweep-enabled")
    assert simulate(sweep, fixed) == (RUN, SKIP, RUN)


def test_scenario_4_unlabelled_pr_validates_only(sweep):
    case = pr_case("synchronize", set())
    assert simulate(sweep, case) == (RUN, RUN, SKIP)
    assert not run_job(sweep, "results-link", github_context(case), {"plan": {"result": SKIP, "outputs": {}}})


def test_cancelled_run_never_plans(sweep):
    case = pr_case("synchronize", {"full-sweep-enabled"})
    needs = {"validate": {"result": RUN, "outputs": sweep_flags(case.labels).outputs() | {"skip-pr-sweep": "false"}},
             "reuse-gate": {"result": RUN, "outputs": {"skip-pr-sweep": "false"}}}
    ctx = Context({"github": github_context(case), "needs": needs}, job_status="cancelled")
    assert not evaluate_if(sweep["jobs"]["plan"]["if"], ctx)
    needs["reuse-gate"]["result"] = "cancelled"
    assert not run_job(sweep, "plan", github_context(case), needs)


# ---- push to main: GPU-free merges (issue 14) ----------------------------------------------

def _push_needs(plan_result: str, reuse: str) -> dict:
    needs = _plan_needs(PLANS["big"], reuse) if plan_result == RUN else {"plan": {"result": plan_result,
                                                                                   "outputs": {}}}
    needs["plan"]["outputs"] |= {"reuse-source-run-ids": "101,99", "reuse-source-pr-number": "12"}
    needs.setdefault("canary", {"result": SKIP, "outputs": {}})  # pushes to main never run one
    return needs


@pytest.mark.parametrize(("plan_result", "reuse", "publish"), [
    (RUN, "true", True),     # covering reuse (a command, or runs covering the merge commit's plan)
    (FAIL, "", False),       # no covering reuse: the resolver failed the plan job with the command
])
def test_push_to_main_never_sweeps_and_publishes_only_a_covering_reuse(sweep, plan_result, reuse, publish):
    github = github_context(next(push_cases()))
    needs = _push_needs(plan_result, reuse)
    for shard in all_shard_ids():
        assert not run_job(sweep, f"sweep-{shard}", github, needs), shard
    all_needs = needs | {f"sweep-{s}": {"result": SKIP, "outputs": {}} for s in all_shard_ids()}
    for job in ("collect-results", "collect-evals", "results-link"):
        assert not run_job(sweep, job, github, all_needs), job
    assert run_job(sweep, "publish", github, needs) is publish


def test_publish_runs_only_on_pushes(sweep):
    pr = github_context(Case("pull_request", "synchronize", frozenset({"full-sweep-enabled"}), None,
                             False, False, "none", False, True))
    assert not run_job(sweep, "publish", pr, _push_needs(RUN, "true"))


def test_push_resolver_step_gets_the_previous_tip_and_publish_gets_the_run_ids(sweep):
    plan = sweep["jobs"]["plan"]
    step = next(s for s in plan["steps"] if s.get("id") == "reuse")
    assert step["env"]["PUSH_BEFORE"] == "${{ github.event.before }}"
    assert '--before-sha "$PUSH_BEFORE"' in step["run"]
    assert plan["outputs"]["reuse-source-run-ids"] == "${{ steps.reuse.outputs.reuse-source-run-ids }}"
    publish = sweep["jobs"]["publish"]
    assert publish["permissions"] == {"contents": "write"}
    assert "infx reuse publish" in publish["steps"][-1]["run"]
