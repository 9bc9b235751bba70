"""The real `if:` and concurrency expressions of run-sweep.yml against an independent truth table.

The truth table below is plain Python describing what should happen; the simulation evaluates
the expressions parsed from the workflow file (with lib.expressions) and the label
step's real Python logic, and both must agree for every combination of event, action, labels,
acted-on label, draft, fork, reuse authorization, [skip-sweep] and changelog validity."""

from __future__ import annotations

import itertools
import json

import pytest
from lib.expressions import Context, evaluate_if, interpolate
from lib.workflow_gating import (
    CANARY_PLANS,
    CANARY_PRIMARIES,
    FAIL,
    HEAD_ACTIONS,
    LABEL_POOL,
    MODIFIER_POOL,
    OPT_OUT_POOL,
    PLANS,
    REPO,
    RUN,
    SKIP,
    WORKFLOWS,
    Case,
    _bucket_rows,
    _canary_cases,
    _comment_ctx,
    _needs_of,
    _plan_needs,
    _push_needs,
    all_pr_cases,
    concurrency_group,
    expected,
    github_context,
    pr_case,
    push_cases,
    run_job,
    simulate,
    simulate_canary,
    triggers,
)
from lib.workflow_jobs import jobs_as_run

from infx.plan.labels import PRIMARY_LABELS, sweep_flags
from infx.plan.sweep_plan import Plan
from infx.workflow.shard import all_shard_ids, shard_outputs
from infx.yamlio import load_file

PRIMARY_SET = frozenset(PRIMARY_LABELS)


@pytest.mark.parametrize(("pool", "least"), [(LABEL_POOL, 20_000), (OPT_OUT_POOL, 4_000),
                                             (MODIFIER_POOL, 20_000)])
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
          "valid", False, True), (RUN, SKIP, SKIP)),  # forks are validated, never swept here
    (Case("pull_request", "opened", frozenset({"full-sweep-enabled"}), None, False, False,
          "none", False, True), (RUN, SKIP, SKIP)),  # opening validates; the label event sweeps
    (Case("pull_request", "reopened", frozenset({"full-sweep-enabled"}), None, True, True,
          "none", False, False), (FAIL, SKIP, SKIP)),
    (Case("pull_request", "synchronize", frozenset({"full-sweep-enabled", "agentx-fast"}), None,
          False, False, "valid", False, True), (RUN, SKIP, RUN)),  # agentx-fast never reuses
    (Case("pull_request", "labeled", frozenset({"full-sweep-enabled", "skip_queue"}), "skip_queue",
          False, False, "none", False, True), (RUN, SKIP, RUN)),  # skip_queue restarts the sweep
    (Case("pull_request", "labeled", frozenset({"full-sweep-enabled", "ci-patchwork"}), "ci-patchwork",
          False, False, "none", False, True), (SKIP, SKIP, SKIP)),  # other labels never restart
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
    assert set(on) == {"pull_request", "push", "workflow_dispatch"}  # dispatch: a fork sweep
    assert set(on["pull_request"]["types"]) == {"opened", "reopened", "synchronize", "labeled", "unlabeled",
                                                "ready_for_review"}
    assert on["pull_request"]["paths"] == ["perf-changelog.yaml"]
    assert on["push"] == {"branches": ["main"], "paths": ["perf-changelog.yaml"]}


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


@pytest.mark.parametrize("plan_name", sorted(PLANS))
@pytest.mark.parametrize("reuse", ["", "false", "true"])
def test_sweep_jobs_start_only_for_non_empty_shards(sweep, plan_name, reuse):
    plan = PLANS[plan_name]
    needs = _plan_needs(plan, reuse)
    github = github_context(next(push_cases()))
    non_empty = set(shard_outputs(Plan.from_json(plan))["shards"])
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
    from infx.signoff.rules.sweeps import family
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
    from infx.signoff.rules.sweeps import family

    assert family("canary / dsr1 fp4 mi355x atom 8k1k TP4 c4 #0123abcd") == "benchmark"


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
    job = jobs_as_run(WORKFLOWS / "reuse-command.yml")["acknowledge"]  # its reusable workflow's job
    assert evaluate_if(job["if"], _comment_ctx(body, previous, on_pr)) is runs


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
    assert job["concurrency"] == {"group": "sweep-report-${{ github.event.pull_request.number || github.event.inputs.pr-number }}",
                                  "cancel-in-progress": False}
    checkout = job["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.event.repository.default_branch }}"  # never PR code


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



# --- PRODUCT §4.4 gating decisions, one test each, over every simulated case --------------------

def _all_cases():
    return itertools.chain(all_pr_cases(LABEL_POOL), all_pr_cases(MODIFIER_POOL), push_cases())


def test_decision_every_head_of_every_pr_is_validated_drafts_and_forks_included(sweep):
    """The changelog is validated on every head of every PR (opened, reopened, synchronize)."""
    seen = set()
    for case in _all_cases():
        if case.event == "pull_request" and case.action in HEAD_ACTIONS:
            validate, _, _ = simulate(sweep, case)
            assert validate == (RUN if case.valid and len(case.labels & PRIMARY_SET) <= 1 else FAIL), case
            seen.add((case.action, case.draft, case.fork))
    assert seen == set(itertools.product(HEAD_ACTIONS, (False, True), (False, True)))


def test_decision_drafts_never_sweep(sweep):
    drafts = [c for c in _all_cases() if c.event == "pull_request" and c.draft]
    assert drafts and all(simulate(sweep, c)[2] == SKIP for c in drafts)


def test_decision_forks_never_run_gpu_jobs_from_their_own_run(sweep):
    """No plan job, so no shard job (each needs plan success) and no canary."""
    forks = [c for c in _all_cases() if c.event == "pull_request" and c.fork]
    assert forks and all(simulate(sweep, c)[1:] == (SKIP, SKIP) for c in forks)
    for job_id in ["canary", *(f"sweep-{s}" for s in all_shard_ids())]:
        assert "plan" in _needs_of(sweep["jobs"][job_id])
        assert "needs.plan" in str(sweep["jobs"][job_id]["if"])


@pytest.mark.parametrize("primary", sorted(PRIMARY_SET))
def test_decision_an_authorized_covering_reuse_skips_the_sweep_whatever_the_primary(sweep, primary):
    for modifiers in (set(), {"all-evals"}, {"skip_queue"}, {"documentation"}):
        case = pr_case("synchronize", {primary} | modifiers, auth="valid")
        assert simulate(sweep, case) == (RUN, RUN, SKIP), case
        assert simulate(sweep, pr_case("synchronize", {primary} | modifiers)) == (RUN, RUN, RUN)


@pytest.mark.parametrize("modifier", ["evals-only", "agentx-fast"])
def test_reuse_incompatible_modifiers_always_sweep_fresh(sweep, modifier):
    from infx.plan.labels import REUSE_INCOMPATIBLE_LABELS

    assert modifier in REUSE_INCOMPATIBLE_LABELS
    case = pr_case("synchronize", {"full-sweep-enabled", modifier}, auth="valid")
    assert simulate(sweep, case) == (RUN, SKIP, RUN)


def test_decision_a_push_to_the_default_branch_never_runs_gpu_jobs(sweep):
    """A push's plan job either reuses (the resolver's push path returns enabled or raises:
    tests/unit/reuse) or fails naming the command; in neither case does a GPU job start."""
    github = github_context(next(push_cases()))
    for plan_result, reuse in ((RUN, "true"), (FAIL, ""), ("cancelled", "")):
        needs = _push_needs(plan_result, reuse)
        assert not run_job(sweep, "canary", github, needs)
        for shard in all_shard_ids():
            assert not run_job(sweep, f"sweep-{shard}", github, needs), (shard, plan_result, reuse)


def test_decision_merge_time_reuse_reads_no_labels(sweep):
    """On a push the plan job's resolver gets no label input: what it reuses is decided by the
    merged PR's runs covering the merge commit's plan (infx reuse resolve, push mode)."""
    step = next(s for s in sweep["jobs"]["plan"]["steps"] if s.get("id") == "reuse")
    assert step["if"] == "github.event_name == 'push'"
    assert "label" not in json.dumps(step).lower()
    for case in push_cases():
        assert simulate(sweep, case) == (SKIP, SKIP, RUN)


# --- agentx-fast and skip_queue ---------------------------------------------------------------

@pytest.mark.parametrize(("case", "want", "fast"), [
    (pr_case("synchronize", {"agentx-fast"}), (RUN, SKIP, SKIP), "true"),  # a modifier alone
    (pr_case("synchronize", {"full-sweep-fail-fast", "agentx-fast"}), (RUN, SKIP, RUN), "true"),
    (pr_case("synchronize", {"full-sweep-fail-fast", "agentx-fast"}, auth="valid"), (RUN, SKIP, RUN), "true"),
    (pr_case("synchronize", {"full-sweep-fail-fast", "agentx-fast", "evals-only"}, auth="valid"),
     (RUN, SKIP, RUN), "true"),
    (pr_case("labeled", {"full-sweep-fail-fast", "agentx-fast"}, "agentx-fast"), (RUN, SKIP, RUN), "true"),
    (pr_case("unlabeled", {"full-sweep-fail-fast"}, "agentx-fast"), (RUN, SKIP, RUN), "false"),
    (pr_case("labeled", {"agentx-fast"}, "agentx-fast"), (RUN, SKIP, SKIP), "true"),
    (pr_case("synchronize", {"full-sweep-fail-fast", "agentx-fast"}, draft=True), (RUN, SKIP, SKIP), "true"),
    (pr_case("synchronize", {"full-sweep-fail-fast", "agentx-fast"}, fork=True), (RUN, SKIP, SKIP), "true"),
    (pr_case("synchronize", {"full-sweep-fail-fast"}, auth="valid"), (RUN, RUN, SKIP), "false"),
])
def test_agentx_fast_truth_table(sweep, case, want, fast):
    """research/workflows.md §1.2, §6: a modifier (alone it sweeps nothing), adding or removing it
    restarts the sweep (same concurrency group as a push), never reuse-eligible; the plan job's
    annotate step gets the flag from the label step."""
    assert expected(case) == want
    assert simulate(sweep, case) == want
    assert sweep_flags(case.labels).outputs()["agentx-fast"] == fast
    assert concurrency_group(sweep, case) == "sweep-12-active"
    step = next(s for s in sweep["jobs"]["plan"]["steps"] if s.get("name", "").startswith("Annotate"))
    validate = {"outputs": sweep_flags(case.labels).outputs()}
    ctx = Context({"github": github_context(case), "needs": {"validate": validate}})
    assert interpolate(step["env"]["AGENTX_FAST"], ctx) == fast


def test_the_annotate_step_runs_between_planning_and_fingerprinting(sweep):
    names = [s.get("name") for s in sweep["jobs"]["plan"]["steps"]]
    at = names.index("Annotate the rows (agentx-fast, queue priority)")
    assert names[at - 1] == "Plan the sweep" and names[at + 1].startswith("Fingerprint the rows")
    step = sweep["jobs"]["plan"]["steps"][at]
    assert step["run"] == "python -m infx.workflow annotate --plan plan.json"
    pr = Context({"github": github_context(pr_case("synchronize", {"full-sweep-enabled"}))})
    push = Context({"github": github_context(next(push_cases()))})
    assert interpolate(step["env"]["POLICY_REF"], pr) == "origin/main"  # the base's policy, never the PR's
    assert interpolate(step["env"]["POLICY_REF"], push) == "c" * 40
    assert step["env"]["ACTOR"] == "${{ github.triggering_actor }}"


@pytest.mark.parametrize("scheduler", ["true", "false", None])
@pytest.mark.parametrize("skip_queue_pr", [12, None])
def test_benchmark_runner_labels(scheduler, skip_queue_pr):
    """research/matrix.md §4: [runner], or with the priority scheduler on self-hosted, the runner,
    ci-job-<priority>-<queue-token>, ci-attempt-<run attempt>(, ci-skip-queue-pr-<n>)."""
    from lib.expressions import evaluate_text, strip_braces

    template = load_file(WORKFLOWS / "benchmark-tmpl.yml")
    row = {"runner": "cluster:mi355x-amds", "framework": "vllm", "priority": "4.750",
           "queue-token": "0123456789abcdef" * 2}
    if skip_queue_pr is not None:
        row["skip-queue-pr"] = skip_queue_pr
    variables = {} if scheduler is None else {"PRIORITY_SCHEDULER_ENABLED": scheduler}
    ctx = Context({"inputs": {"config": json.dumps(row)}, "vars": variables, "github": {"run_attempt": "2"}})
    got = evaluate_text(strip_braces(template["jobs"]["benchmark"]["runs-on"]), ctx)
    if scheduler != "true":
        assert got == "cluster:mi355x-amds"
        return
    want = ["self-hosted", "cluster:mi355x-amds", "ci-job-4.750-" + "0123456789abcdef" * 2, "ci-attempt-2"]
    assert got == want + ([f"ci-skip-queue-pr-{skip_queue_pr}"] if skip_queue_pr else [])
