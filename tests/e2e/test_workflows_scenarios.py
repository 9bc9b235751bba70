"""workflows.md §7 acceptance scenarios 1-10, end to end: run-sweep.yml's real `if:` expressions
decide which jobs start, and every GitHub read the jobs make (the reuse gate on a PR push, the
merge-time resolver, the 👍/👎 acknowledgement) goes through real PyGithub to the fake server.

Scenario 1 checks the label -> sweep -> restart behaviour and per-family fail-fast here; its
canary (success, failure, skip, opt-out labels) is the canary truth table of
tests/e2e/test_workflows_gating.py. The plans below have no canary (as after an opt-out label).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field

import pytest
from lib.reuse_world import C1, C2, C9, M1, add_comment, base_world, merged, pr, start
from lib.workflow_gating import (
    FAIL,
    PLANS,
    RUN,
    SKIP,
    WORKFLOWS,
    Case,
    concurrency_group,
    github_context,
    pr_case,
    run_job,
)

from infx.errors import InfxError
from infx.plan.labels import has_skip_sweep, sweep_flags
from infx.plan.sweep_plan import Plan
from infx.reuse.ack import CommentEvent, acknowledge
from infx.reuse.facts import ReuseError
from infx.reuse.resolver import ResolveRequest, resolve
from infx.workflow.shard import all_shard_ids, shard_outputs
from infx.yamlio import load_file

T1, T2, T3, T4 = ("2026-09-29T18:00:00Z", "2026-09-29T19:00:00Z", "2026-09-29T20:00:00Z",
                  "2026-09-29T21:00:00Z")
PLAN = PLANS["throughput"]  # what `infx plan` produced for the PR's entry (non-empty buckets)


@pytest.fixture(scope="module")
def sweep() -> dict:
    return load_file(WORKFLOWS / "run-sweep.yml")


@dataclass
class Outcome:
    """Which run-sweep.yml jobs ran, and what the GitHub-reading steps decided."""

    validate: str
    gate: str
    plan: str
    sweep_jobs: list[str] = field(default_factory=list)
    reuse: dict = field(default_factory=dict)
    error: str = ""
    requests: int = 0


def _plan_outputs(reuse: dict) -> dict:
    shards = shard_outputs(Plan.from_json(PLAN))
    return {"matrix": json.dumps(shards["matrix"]), "shards": json.dumps(shards["shards"]),
            "has-throughput": "true", "has-evals": "false", "fail-fast": "false",
            "reuse-enabled": reuse.get("reuse-enabled", ""), "canary": "[]",
            "reuse-source-run-id": reuse.get("reuse-source-run-id", "")}


def _started_sweep_jobs(sweep: dict, github: dict, plan_need: dict) -> list[str]:
    needs = {"plan": plan_need, "canary": {"result": SKIP, "outputs": {}}}
    return [f"sweep-{s}" for s in all_shard_ids() if run_job(sweep, f"sweep-{s}", github, needs)]


def run_pr_event(sweep: dict, fake_github, world: dict, case: Case, message: str = "Bump") -> Outcome:
    """One pull_request event through the job graph; the gate's resolver talks to the fake server."""
    fake, gateway = start(fake_github, world)
    github = github_context(case)
    needs: dict = {}
    if run_job(sweep, "validate", github, needs):
        try:
            outputs = sweep_flags(case.labels).outputs() | {
                "skip-pr-sweep": "true" if has_skip_sweep(message) else "false"}
            needs["validate"] = {"result": RUN, "outputs": outputs}
        except InfxError:
            needs["validate"] = {"result": FAIL, "outputs": {}}
    else:
        needs["validate"] = {"result": SKIP, "outputs": {}}
    reuse, error = {}, ""
    if run_job(sweep, "reuse-gate", github, needs):
        request = ResolveRequest(event_name="pull_request", event_action=case.action or "",
                                 pr_number=12, commit_sha=C2)
        try:
            reuse = resolve(gateway, request).outputs()
            needs["reuse-gate"] = {"result": RUN, "outputs": reuse}
        except ReuseError as exc:
            error = exc.message
            needs["reuse-gate"] = {"result": FAIL, "outputs": {}}
    else:
        needs["reuse-gate"] = {"result": SKIP, "outputs": {}}
    plan_runs = run_job(sweep, "plan", github, needs)
    plan_need = {"result": RUN if plan_runs else SKIP, "outputs": _plan_outputs({}) if plan_runs else {}}
    return Outcome(needs["validate"]["result"], needs["reuse-gate"]["result"], plan_need["result"],
                   _started_sweep_jobs(sweep, github, plan_need), reuse, error, len(fake.requests))


def run_merge(sweep: dict, fake_github, world: dict) -> Outcome:
    """The push to main: the plan job resolves reuse first (a resolver error fails the job)."""
    fake, gateway = start(fake_github, world)
    github = github_context(Case("push", None, frozenset(), None, False, False, "none", False, True))
    github["sha"] = M1
    assert run_job(sweep, "plan", github, {"validate": {"result": SKIP, "outputs": {}},
                                            "reuse-gate": {"result": SKIP, "outputs": {}}})
    try:
        reuse = resolve(gateway, ResolveRequest(event_name="push", ref="refs/heads/main", commit_sha=M1)).outputs()
    except ReuseError as exc:
        plan_need = {"result": FAIL, "outputs": {}}
        return Outcome(SKIP, SKIP, FAIL, _started_sweep_jobs(sweep, github, plan_need), {}, exc.message,
                       len(fake.requests))
    plan_need = {"result": RUN, "outputs": _plan_outputs(reuse)}
    return Outcome(SKIP, SKIP, RUN, _started_sweep_jobs(sweep, github, plan_need), reuse, "", len(fake.requests))


def ack(fake_github, world: dict, comment_id: int):
    fake, gateway = start(fake_github, world)
    comment = next(c for c in pr(world)["comments"] if c["id"] == comment_id)
    outcome = acknowledge(gateway, CommentEvent.of("created", 12, True, comment_id, comment["body"],
                                                comment["updated_at"]))
    bot = [r["content"] for p in fake.world["pulls"] for c in p["comments"] if c["id"] == comment_id
           for r in c.get("reactions", []) if r["user"] == "github-actions[bot]"]
    assert fake.count("POST", r"/issues/\d+/comments$") == 0  # reactions only, never a reply
    return outcome, bot


def _merged(world: dict) -> dict:
    """The world after the squash merge (a copy: the open-PR world stays usable)."""
    return merged(copy.deepcopy(world))


EVERY_SHARD = [f"sweep-{s}" for s in shard_outputs(Plan.from_json(PLAN))["shards"]]


def test_scenario_1_label_starts_and_a_push_restarts(sweep, fake_github):
    labeled = pr_case("labeled", {"full-sweep-fail-fast"}, "full-sweep-fail-fast")
    out = run_pr_event(sweep, fake_github, base_world(), labeled)
    assert (out.validate, out.gate, out.plan) == (RUN, SKIP, RUN)
    assert out.sweep_jobs == EVERY_SHARD and out.requests == 0  # a label event never reads comments
    assert sweep_flags(labeled.labels).outputs()["fail-fast"] == "true"
    for job in EVERY_SHARD:  # fail-fast is set per family matrix, so one failure stays in its family
        assert sweep["jobs"][job]["strategy"]["fail-fast"] == "${{ needs.plan.outputs.fail-fast == 'true' }}"
    pushed = pr_case("synchronize", {"full-sweep-fail-fast"})
    out = run_pr_event(sweep, fake_github, base_world(), pushed)
    assert (out.validate, out.gate, out.plan) == (RUN, RUN, RUN)
    assert out.reuse["skip-pr-sweep"] == "false" and out.sweep_jobs == EVERY_SHARD
    assert concurrency_group(sweep, labeled) == concurrency_group(sweep, pushed) == "sweep-12-active"  # the push cancels it
    assert sweep["concurrency"]["cancel-in-progress"] is True


def test_scenario_2_noise_label_runs_nothing_and_cancels_nothing(sweep, fake_github):
    noise = pr_case("labeled", {"full-sweep-fail-fast", "documentation"}, "documentation")
    out = run_pr_event(sweep, fake_github, base_world(), noise)
    assert (out.validate, out.gate, out.plan, out.sweep_jobs, out.requests) == (SKIP, SKIP, SKIP, [], 0)
    assert concurrency_group(sweep, noise) == "sweep-12-777" != concurrency_group(sweep, pr_case("synchronize", {"full-sweep-fail-fast"}))


def test_scenario_3_conflicting_primaries_then_removing_one(sweep, fake_github):
    both = pr_case("synchronize", {"full-sweep-enabled", "full-sweep-fail-fast"})
    out = run_pr_event(sweep, fake_github, base_world(), both)
    assert (out.validate, out.gate, out.plan, out.sweep_jobs) == (FAIL, SKIP, SKIP, [])
    with pytest.raises(InfxError, match="Pick exactly one"):
        sweep_flags(both.labels)
    fixed = pr_case("unlabeled", {"full-sweep-fail-fast"}, "full-sweep-enabled")
    out = run_pr_event(sweep, fake_github, base_world(), fixed)
    assert (out.validate, out.gate, out.plan, out.sweep_jobs) == (RUN, SKIP, RUN, EVERY_SHARD)


def test_scenario_4_unlabelled_pr_validates_only(sweep, fake_github):
    case = pr_case("synchronize", set())
    out = run_pr_event(sweep, fake_github, base_world(), case)
    assert (out.validate, out.plan, out.sweep_jobs) == (RUN, SKIP, [])
    assert not run_job(sweep, "results-link", github_context(case), {"plan": {"result": SKIP, "outputs": {}}})


def test_scenario_5_unauthorized_command(sweep, fake_github):
    world = base_world()
    cid = add_comment(world, "carol", "CONTRIBUTOR", "/reuse-sweep-run 101", T1)
    out = run_pr_event(sweep, fake_github, world, pr_case("synchronize", {"full-sweep-fail-fast"}))
    assert (out.gate, out.plan) == (RUN, RUN) and out.sweep_jobs == EVERY_SHARD
    assert out.reuse["reuse-reason"] == "PR #12 has no /reuse-sweep-run authorization"
    outcome, bot = ack(fake_github, world, cid)
    assert bot == ["-1"] and "Reuse requires write, maintain or admin permission on the repository." in outcome.summary
    merge = run_merge(sweep, fake_github, _merged(world))  # main never sweeps (issue 14):
    assert merge.reuse["reuse-enabled"] == "true" and merge.sweep_jobs == []  # the PR's runs cover it
    assert "cover every row of the merge commit's plan with identical fingerprints" in merge.reuse["reuse-reason"]


def test_scenario_6_bare_authorization_then_push_then_merge(sweep, fake_github):
    world = base_world()
    cid = add_comment(world, "alice", "MEMBER", "Green on c1.\n/reuse-sweep-run\n", T1)
    outcome, bot = ack(fake_github, world, cid)
    assert bot == ["+1"] and "run 101 (success)" in outcome.summary
    out = run_pr_event(sweep, fake_github, world, pr_case("synchronize", {"full-sweep-fail-fast"}),
                       message="Merge main [skip-sweep]")
    assert (out.validate, out.gate, out.plan, out.sweep_jobs) == (RUN, RUN, SKIP, [])
    assert out.reuse["skip-pr-sweep"] == "true" and out.reuse["reuse-source-run-id"] == "101"
    merge = run_merge(sweep, fake_github, _merged(world))
    assert merge.reuse["reuse-enabled"] == "true" and merge.reuse["reuse-source-run-id"] == "101"
    assert merge.sweep_jobs == []  # every benchmark family on main is skipped


def test_scenario_7_pinned_failed_run_is_reused_but_not_when_bare(sweep, fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/reuse-sweep-run 102", T1)  # 102 concluded failure
    merge = run_merge(sweep, fake_github, _merged(world))
    assert merge.reuse["reuse-enabled"] == "true" and merge.reuse["reuse-source-run-id"] == "102"
    bare = base_world()
    add_comment(bare, "root", "OWNER", "/reuse-sweep-run", T1)
    assert run_merge(sweep, fake_github, _merged(bare)).reuse["reuse-source-run-id"] == "101"
    bare["workflow_runs"] = [r for r in bare["workflow_runs"] if r["id"] != 101]
    bare["check_runs"][C1] = [c for c in bare["check_runs"][C1] if c["run_id"] != 101]
    # Unlike the reference, the green run 103 on a commit a force-push removed still counts: it is
    # ours and its commit has the head's content for every planned row (infx.trust.counts_for_pr).
    assert run_merge(sweep, fake_github, _merged(bare)).reuse["reuse-source-run-id"] == "103"
    bare["workflow_runs"] = [r for r in bare["workflow_runs"] if r["id"] != 103]  # no green run left
    bare["check_runs"][C9] = [c for c in bare["check_runs"][C9] if c["run_id"] != 103]
    merge = run_merge(sweep, fake_github, _merged(bare))
    assert (merge.plan, merge.sweep_jobs) == (FAIL, []), merge.reuse  # fails closed: no sweep, no publish
    assert "no successful run-sweep.yml run with reusable artifacts" in merge.error


@pytest.mark.parametrize(("run_id", "message"), [
    (103, "is not in PR #12's commit list"), (105, "no benchmark, eval, or agentic result artifact")])
def test_scenario_8_orphaned_or_expired_source_fails_closed(sweep, fake_github, run_id, message):
    world = base_world()
    add_comment(world, "root", "OWNER", f"/reuse-sweep-run {run_id}", T1)
    merge = run_merge(sweep, fake_github, _merged(world))
    assert (merge.plan, merge.sweep_jobs) == (FAIL, []) and message in merge.error
    out = run_pr_event(sweep, fake_github, world, pr_case("synchronize", {"full-sweep-fail-fast"}))
    assert (out.gate, out.plan, out.sweep_jobs) == (FAIL, SKIP, []) and message in out.error


def test_scenario_9_incompatible_modifier(sweep, fake_github):
    world = base_world()
    pr(world)["labels"] = ["full-sweep-enabled", "evals-only"]
    cid = add_comment(world, "root", "OWNER", "/reuse-sweep-run 101", T1)
    out = run_pr_event(sweep, fake_github, world, pr_case("synchronize", {"full-sweep-enabled", "evals-only"}))
    assert (out.gate, out.plan) == (SKIP, RUN) and out.sweep_jobs == EVERY_SHARD  # a fresh sweep
    # at the merge the label decides nothing (PRODUCT §4.4): run 101 covers the merge commit's
    # plan row for row, so it is published and main runs no GPU job
    merge = run_merge(sweep, fake_github, _merged(world))
    assert merge.plan == RUN and merge.reuse["reuse-enabled"] == "true" and merge.sweep_jobs == []
    outcome, bot = ack(fake_github, world, cid)
    assert bot == ["-1"] and "reuse-incompatible label(s): evals-only" in outcome.summary


def _second_pr(world: dict, authorized: bool) -> None:
    other = {"number": 13, "title": "Other", "user": "frank", "state": "closed", "merged": True,
             "merged_at": "2026-09-30T11:00:00Z", "base": dict(pr(world)["base"]),
             "head": {"ref": "frank/other", "sha": C2, "repo": "acme/inferencex"},
             "labels": [], "commits": [C2], "merge_commit_sha": M1, "comments": []}
    world["pulls"].append(other)
    if authorized:
        add_comment(world, "root", "OWNER", "/use 101", T1, number=13)


def test_scenario_10a_merge_commit_of_two_prs(sweep, fake_github):
    world = _merged(base_world())
    _second_pr(world, authorized=True)
    merge = run_merge(sweep, fake_github, world)
    assert (merge.plan, merge.sweep_jobs) == (FAIL, [])
    assert "maps to multiple PRs (#12, #13); refusing to reuse artifacts" in merge.error
    world = _merged(base_world())
    _second_pr(world, authorized=False)
    merge = run_merge(sweep, fake_github, world)  # main never sweeps: it fails closed
    assert (merge.plan, merge.sweep_jobs) == (FAIL, [])
    assert "maps to multiple PRs (#12, #13)" in merge.error


def test_scenario_10b_newest_authorized_request_wins(sweep, fake_github):
    world = base_world()
    pinned = add_comment(world, "root", "OWNER", "/reuse-sweep-run 102", T1)
    bare = add_comment(world, "root", "OWNER", "/reuse-sweep-run", T2)
    add_comment(world, "carol", "CONTRIBUTOR", "/reuse-sweep-run 109", T3)
    assert run_merge(sweep, fake_github, _merged(world)).reuse["reuse-source-run-id"] == "101"
    outcome, bot = ack(fake_github, world, pinned)
    assert bot == ["-1"] and "A newer reuse request supersedes this comment." in outcome.summary
    assert ack(fake_github, world, bare)[1] == ["+1"]
    add_comment(world, "dave", "COLLABORATOR", "/use 109", T4)  # maintain permission
    assert run_merge(sweep, fake_github, _merged(world)).reuse["reuse-source-run-id"] == "109"
