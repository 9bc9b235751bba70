"""infx.reuse.resolver against the fake GitHub server (real PyGithub HTTP): workflows.md §3.3, §3.9, §7."""

from __future__ import annotations

import pytest
from lib.reuse_world import C1, C2, C9, M1, add_comment, base_world, merged, pr, start

from infx.github.failures import GitHubError
from infx.reuse.facts import ReuseError
from infx.reuse.resolver import ResolveRequest, resolve

SYNC = ResolveRequest(event_name="pull_request", event_action="synchronize", pr_number=12,
                      commit_sha=C2)
PUSH = ResolveRequest(event_name="push", ref="refs/heads/main", commit_sha=M1)
# a push to main without a (binding) command: the PR's runs cover the merge commit's plan
MERGE_COVERED = "cover every row of the merge commit's plan with identical fingerprints: no sweep on main"
T1, T2, T3, T4 = ("2026-09-29T18:00:00Z", "2026-09-29T19:00:00Z", "2026-09-29T20:00:00Z",
                  "2026-09-29T21:00:00Z")


def _run(fake_github, world, request):
    fake, gateway = start(fake_github, world)
    return fake, resolve(gateway, request)


# ---- modes that never look at comments --------------------------------------------------

@pytest.mark.parametrize("action", ["labeled", "unlabeled", "ready_for_review"])
def test_pr_label_events_never_fetch_comments(fake_github, action):
    world = base_world()
    add_comment(world, "alice", "MEMBER", "/reuse-sweep-run", T1)
    request = ResolveRequest(event_name="pull_request", event_action=action, pr_number=12)
    fake, result = _run(fake_github, world, request)
    assert result.outputs()["skip-pr-sweep"] == "false"
    assert result.reason == f"pull_request action {action} is not synchronize"
    assert fake.count("GET", "/comments") == 0


@pytest.mark.parametrize(("event", "ref"), [("workflow_dispatch", "refs/heads/main"),
                                            ("push", "refs/heads/feature")])
def test_not_a_push_to_main(fake_github, event, ref):
    _, result = _run(fake_github, base_world(), ResolveRequest(event_name=event, ref=ref))
    outputs = result.outputs()
    assert result.reason == "not a push to main"
    assert outputs["reuse-enabled"] == "false" and outputs["reuse-source-run-id"] == ""


# ---- PR synchronize (the gate) ------------------------------------------------------------

def test_sync_without_command_sweeps(fake_github):
    _, result = _run(fake_github, base_world(), SYNC)
    assert result.outputs()["skip-pr-sweep"] == "false"
    assert result.reason == "PR #12 has no /reuse-sweep-run authorization"


def test_scenario_6_bare_authorization_skips_the_pr_sweep_and_merge_reuses_r1(fake_github):
    world = base_world()
    add_comment(world, "alice", "MEMBER", "Looks good.\n/reuse-sweep-run\n", T1)
    _, result = _run(fake_github, world, SYNC)
    assert result.outputs()["skip-pr-sweep"] == "true"
    assert result.outputs()["reuse-enabled"] == "false"
    assert result.source.id == 101  # validated before skipping
    fake, merge = _run(fake_github, merged(world), PUSH)
    out = merge.outputs()
    assert out["reuse-enabled"] == "true" and out["reuse-source-run-id"] == "101"
    assert out["reuse-source-run-attempt"] == "2" and out["reuse-source-pr-number"] == "12"
    assert out["reuse-source-head-sha"] == C1
    assert out["reuse-source-run-url"].endswith("/actions/runs/101")
    assert merge.reason == "approved sweep reuse from run 101"
    branch_queries = fake.matching("GET", r"/actions/runs$")
    assert branch_queries and all(r["query"].get("branch") == "carol/bump" for r in branch_queries)


def test_sync_with_authorized_but_invalid_source_fails_the_gate(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/use 103", T1)  # orphaned commit
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match="not in PR #12's commit list"):
        resolve(gateway, SYNC)


def test_scenario_5_unauthorized_command_is_ignored(fake_github):
    world = base_world()
    add_comment(world, "carol", "CONTRIBUTOR", "/reuse-sweep-run 101", T1)
    _, sync = _run(fake_github, world, SYNC)
    assert sync.outputs()["skip-pr-sweep"] == "false"
    _, merge = _run(fake_github, merged(world), PUSH)
    assert merge.outputs()["reuse-source-pr-number"] == "12"
    assert MERGE_COVERED in merge.reason  # not the command's reuse: the runs cover the merge


def test_allowed_association_without_write_permission_is_not_authorized(fake_github):
    world = base_world()
    add_comment(world, "bob", "COLLABORATOR", "/use 101", T1)  # read-only collaborator
    add_comment(world, "eve", "MEMBER", "/use 101", T2)  # no repository permission at all (404)
    _, result = _run(fake_github, world, SYNC)
    assert result.outputs()["skip-pr-sweep"] == "false"


# ---- push to main -------------------------------------------------------------------------

def test_push_with_no_associated_pr_is_never_swept(fake_github):
    request = ResolveRequest(event_name="push", ref="refs/heads/main", commit_sha="0" * 40)
    fake, gateway = start(fake_github, base_world())
    with pytest.raises(ReuseError, match="has no pull request: pushes to main are never swept"):
        resolve(gateway, request)


def test_scenario_7_pinned_failed_or_cancelled_run_is_reused(fake_github):
    for run_id in (102, 109):
        world = base_world()
        add_comment(world, "root", "OWNER", f"/reuse-sweep-run {run_id}", T1)
        _, result = _run(fake_github, merged(world), PUSH)
        assert result.outputs()["reuse-source-run-id"] == str(run_id)


def test_scenario_7_bare_command_prefers_the_older_green_run(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    _, result = _run(fake_github, merged(world), PUSH)
    assert result.source.id == 101  # newer failed/orphaned/empty/expired runs are skipped


def test_bare_command_without_any_green_run_fails_with_a_hint(fake_github):
    world = base_world()
    # 103 too: green on a removed commit with the head's content, it would stand in for the PR's
    world["workflow_runs"] = [r for r in world["workflow_runs"] if r["id"] not in (101, 103)]
    world["check_runs"][C1] = [c for c in world["check_runs"][C1] if c["run_id"] != 101]
    world["check_runs"].pop(C9)
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    fake, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError) as info:
        resolve(gateway, PUSH)
    assert "no successful run-sweep.yml run with reusable artifacts on a commit of PR #12" in str(info.value)
    assert "/use <run_id>" in str(info.value)


@pytest.mark.parametrize(("run_id", "message"), [
    (103, "is not in PR #12's commit list"),  # scenario 8: force-pushed away
    (105, "no benchmark, eval, or agentic result artifact"),  # scenario 8: expired
    (104, "no benchmark, eval, or agentic result artifact"),
    (106, "triggered by push, expected pull_request"),
    (107, "is not our sweep: it is a run of .github/workflows/ci.yml, not .github/workflows/run-sweep.yml"),
    (108, "is in_progress, expected completed"),
    (999, "run 999 does not exist"),
])
def test_pinned_run_must_validate_and_is_never_substituted(fake_github, run_id, message):
    world = base_world()
    add_comment(world, "dave", "COLLABORATOR", f"/use {run_id}", T1)
    fake, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError, match=message):
        resolve(gateway, PUSH)


def test_unmerged_pr_is_an_error(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/use 101", T1)
    fake, gateway = start(fake_github, world)  # the PR is still open
    with pytest.raises(ReuseError, match=r"PR #12 is not marked as merged\."):
        resolve(gateway, PUSH)


def _evals_only(world: dict, run_id: int) -> None:
    """The run swept only the eval rows (as under `evals-only`): its benchmark jobs are gone."""
    from infx.signoff.rules.sweeps import is_eval_name

    for sha, jobs in world["check_runs"].items():
        world["check_runs"][sha] = [j for j in jobs if f"/runs/{run_id}/" not in j["details_url"]
                                    or is_eval_name(j["name"].split(" / ", 1)[-1])]


def test_scenario_9_merge_reuse_is_decided_by_coverage_not_by_the_prs_labels(fake_github):
    """PRODUCT §4.4: at a merge the label the PR had decides nothing; the runs' coverage of the
    merge commit's plan (as a push to main plans it) does."""
    world = base_world()
    pr(world)["labels"] = ["full-sweep-enabled", "evals-only"]
    add_comment(world, "root", "OWNER", "/use 101", T1)
    _, covered = _run(fake_github, merged(world), PUSH)
    assert covered.enabled and covered.sources == (101,)
    _evals_only(world, 101)  # what an evals-only sweep leaves: the benchmark rows are not covered
    fake, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError) as info:
        resolve(gateway, PUSH)
    assert "7 row(s) without a green job" in str(info.value) and "incompatible" not in str(info.value)


def test_scenario_9_an_incompatible_label_still_refuses_reuse_on_the_pr(fake_github):
    world = base_world()
    pr(world)["labels"] = ["full-sweep-enabled", "evals-only"]
    add_comment(world, "root", "OWNER", "/use 101", T1)
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match="reuse-incompatible label\\(s\\): evals-only"):
        resolve(gateway, SYNC)


@pytest.mark.parametrize("labels", [[], ["documentation"], ["sweep-enabled"], ["full-sweep-enabled"]])
def test_no_sweep_label_is_required(fake_github, labels):
    world = base_world()
    pr(world)["labels"] = labels
    add_comment(world, "root", "OWNER", "/use 101", T1)
    _, result = _run(fake_github, merged(world), PUSH)
    assert result.enabled


def _second_pr(world: dict, authorized: bool) -> None:
    second = {"number": 13, "title": "Other", "user": "frank", "state": "closed", "merged": True,
              "merged_at": "2026-09-30T11:00:00Z", "base": {"ref": "main", "sha": pr(world)["base"]["sha"]},
              "head": {"ref": "frank/other", "sha": C1, "repo": "acme/inferencex"},
              "labels": [], "commits": [C1], "merge_commit_sha": M1, "comments": []}
    world["pulls"].append(second)
    if authorized:
        add_comment(world, "root", "OWNER", "/use 101", T1, number=13)


def test_scenario_10a_merge_commit_mapping_to_two_prs(fake_github):
    world = merged(base_world())
    _second_pr(world, authorized=True)
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match=r"maps to multiple PRs \(#12, #13\); refusing to reuse artifacts"):
        resolve(gateway, PUSH)
    world = merged(base_world())
    _second_pr(world, authorized=False)
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError, match=r"maps to multiple PRs \(#12, #13\)"):
        resolve(gateway, PUSH)


def test_scenario_10b_newest_authorized_request_wins(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/reuse-sweep-run 102", T1)
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T2)
    add_comment(world, "carol", "CONTRIBUTOR", "/reuse-sweep-run 109", T3)
    _, result = _run(fake_github, merged(world), PUSH)
    assert result.source.id == 101  # the bare command: automatic selection, neither pin used
    add_comment(world, "dave", "COLLABORATOR", "/use 109", T4)
    _, result = _run(fake_github, merged(world), PUSH)
    assert result.source.id == 109


def test_github_api_failure_fails_closed(fake_github):
    world = merged(base_world())
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    world["faults"] = [{"method": "GET", "path": "/pulls/12/commits", "status": 500, "times": 50}]
    fake, gateway = start(fake_github, world)
    with pytest.raises(GitHubError) as info:
        resolve(gateway, PUSH)
    assert info.value.status == 500
    # §3.9: the failure names the call, the HTTP status and GitHub's message, after bounded retries
    assert "GitHub failed while listing the commits of PR #12: 500 Server Error" in str(info.value)
    assert "gave up after 5 attempt(s)" in str(info.value)
    assert fake.count("GET", "/pulls/12/commits") == 5 and fake.count("POST") == 0


# ---- PRODUCT §4.6: rendered text, bots, maintain/admin for non-success pins ------------------

@pytest.mark.parametrize("body", [
    "Sweep looks fine.\n<!--\n/reuse-sweep-run\n-->",  # invisible when rendered
    "```\n/reuse-sweep-run\n```",
    "    /reuse-sweep-run",
    "> /reuse-sweep-run",
    "`/reuse-sweep-run`",
])
def test_command_in_a_comment_code_or_quote_is_ignored(fake_github, body):
    world = base_world()
    add_comment(world, "root", "OWNER", body, T1)
    _, sync = _run(fake_github, world, SYNC)
    assert sync.outputs()["skip-pr-sweep"] == "false"
    _, merge = _run(fake_github, merged(world), PUSH)
    assert MERGE_COVERED in merge.reason


def test_a_bot_with_admin_permission_never_authorizes(fake_github):
    world = base_world()
    world["collaborators"]["release-helper[bot]"] = {"permission": "admin", "role_name": "admin"}
    add_comment(world, "release-helper[bot]", "MEMBER", "/reuse-sweep-run", T1)
    fake, sync = _run(fake_github, world, SYNC)
    assert sync.outputs()["skip-pr-sweep"] == "false"
    assert fake.count("GET", "/collaborators/") == 0  # rejected before any permission read
    _, merge = _run(fake_github, merged(world), PUSH)
    assert MERGE_COVERED in merge.reason


@pytest.mark.parametrize("run_id", [102, 109])  # failure, cancelled
def test_a_failed_run_pinned_by_a_write_user_is_rejected(fake_github, run_id):
    world = base_world()
    add_comment(world, "alice", "MEMBER", f"/use {run_id}", T1)  # write
    fake, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError, match="needs a request from a maintain or admin user"):
        resolve(gateway, PUSH)


@pytest.mark.parametrize("run_id", [102, 109])
def test_a_failed_run_pinned_by_a_maintain_user_is_accepted(fake_github, run_id):
    world = base_world()  # dave: permission write, role_name maintain (GitHub's shape)
    add_comment(world, "dave", "MEMBER", f"/use {run_id}", T1)
    _, result = _run(fake_github, merged(world), PUSH)
    assert result.enabled and result.source.id == run_id


def test_a_write_user_may_still_pin_a_green_run(fake_github):
    world = base_world()
    add_comment(world, "alice", "MEMBER", "/use 101", T1)
    _, result = _run(fake_github, merged(world), PUSH)
    assert result.enabled and result.source.id == 101


# ---- an authorization covers the PR as it was when the command was posted -------------------

C3 = "c3" + "3" * 38
ENTRY = "- config-keys: [dsr1-fp8-mi355x-sglang]\n  description: [first]\n  pr-link: https://github.com/acme/inferencex/pull/1\n"


def _push(world: dict, files: dict, when: str, sha: str = C3) -> dict:
    """The PR author pushes `sha` (on top of C2) at `when`; GitHub queues the sweep run for it."""
    world["commits"][sha] = {"parents": [C2], "message": "later push", "files_from": C2, "files": files}
    pull = pr(world)
    pull["commits"].append(sha)
    pull["head"]["sha"] = sha
    world["workflow_runs"].append({"id": 110, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
                                   "event": "pull_request", "status": "in_progress", "conclusion": None,
                                   "head_sha": sha, "head_branch": "carol/bump", "created_at": when,
                                   "artifacts": []})
    return world


SWAPPED = {"perf-changelog.yaml": ENTRY + "\n- config-keys: [dsr1-fp4-mi355x-atom]\n  description: [other]\n  pr-link: XXX\n"}
NEUTRAL = {"README.md": "typo fixed\n",
           "perf-changelog.yaml": ENTRY + "\n- config-keys: [dsr1-fp8-mi355x-sglang]\n  description: [bump]\n"
                                  "  pr-link: https://github.com/acme/inferencex/pull/12\n"}
SYNC3 = ResolveRequest(event_name="pull_request", event_action="synchronize", pr_number=12, commit_sha=C3)


def test_a_push_that_swaps_the_plan_needs_a_new_command(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)  # the head was C2 then
    _push(world, SWAPPED, T2)
    _, sync = _run(fake_github, world, SYNC3)
    assert sync.outputs()["skip-pr-sweep"] == "false"  # this push is swept
    assert "was posted when the PR head was c22222222222" in sync.reason
    assert "perf-changelog.yaml (this PR's entries)" in sync.reason and "post a new" in sync.reason
    world = merged(world)
    world["commits"][M1]["files_from"] = C3  # the merge commit holds the swapped plan
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError) as info:  # run 101 is not reused, and main is never swept
        resolve(gateway, PUSH)
    text = str(info.value)
    assert "no longer covers head c33333333333" in text
    assert "PR #12 was merged without a green result for every row of its plan" in text
    assert "10 row(s) without a green job: `dsr1 fp4 mi355x atom 8k1k TP4 c4 #" in text


def test_a_new_command_after_the_swap_never_reuses_a_run_of_the_old_plan(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    _push(world, SWAPPED, T2)
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T3)  # authorizes the new plan
    fake, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError) as info:
        resolve(gateway, PUSH)  # the only green runs swept the old plan
    assert "passed over run 101 on c11111111111 (perf-changelog.yaml (this PR's entries) differ)" in str(info.value)
    world = base_world()
    add_comment(world, "root", "OWNER", "/use 101", T1)
    _push(world, SWAPPED, T2)
    add_comment(world, "root", "OWNER", "/use 101", T3)
    fake, gateway = start(fake_github, merged(world))
    with pytest.raises(ReuseError) as info:  # a stale source: its missing rows are named
        resolve(gateway, PUSH)
    assert ("run 101 does not cover the plan of head c33333333333 (10 rows): 10 row(s) without a "
            "green job: `dsr1 fp4 mi355x atom 8k1k TP4 c4 #") in str(info.value)


def test_a_benchmark_neutral_push_keeps_the_authorization(fake_github):
    world = base_world()
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    _push(world, NEUTRAL, T2)  # a README fix and the pr-link canonicalised
    _, sync = _run(fake_github, world, SYNC3)
    assert sync.outputs()["skip-pr-sweep"] == "true" and sync.source.id == 101
    _, merge = _run(fake_github, merged(world), PUSH)
    assert merge.enabled and merge.source.id == 101


def test_a_command_with_no_run_before_it_cannot_be_bound(fake_github):
    world = base_world()
    for run in world["workflow_runs"]:
        run["created_at"] = "2026-09-30T10:00:00Z"  # every run after the command
    add_comment(world, "root", "OWNER", "/reuse-sweep-run", T1)
    _, merge = _run(fake_github, merged(world), PUSH)
    assert "cannot be tied to a PR head" in merge.reason and MERGE_COVERED in merge.reason


def test_covered_reuse_names_the_rows_a_source_lacks(fake_github):
    """all-evals asks for eval rows at every concurrency; run 101 swept the default subset."""
    world = base_world()
    pr(world)["labels"] = ["full-sweep-enabled", "all-evals"]
    add_comment(world, "root", "OWNER", "/use 101", T1)
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError) as info:
        resolve(gateway, SYNC)
    text = str(info.value)
    assert "run 101 does not cover the plan of head c22222222222" in text
    assert "row(s) without a green job: `dsr1 fp8 mi355x sglang 8k1k TP8 c4 eval #" in text


def test_a_source_green_on_other_content_is_stale(fake_github):
    """The PR's runs swept c1; a later push changes the launcher: every row is stale."""
    world = base_world()
    add_comment(world, "root", "OWNER", "/use 101", T1)
    _push(world, {"runners/launch_mi355x-amds.sh": "#!/bin/sh\necho changed\n"}, T2)
    add_comment(world, "root", "OWNER", "/use 101", T3)
    world = merged(world)
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError) as info:
        resolve(gateway, SYNC3)
    text = str(info.value)
    assert "run 101 does not cover the plan of head c33333333333" in text
    assert "green only on other benchmark content (stale): `dsr1 fp8 mi355x sglang" in text and "(run 101)" in text


def test_a_merge_whose_content_moved_names_the_command_to_post(fake_github):
    """Main bumped the launcher after the sweep: the merge differs from what the runs swept,
    yet they cover the PR head, so the exact command that accepts them is named."""
    world = merged(base_world())
    world["commits"][M1]["files"] = {"runners/launch_mi355x-amds.sh": "#!/bin/sh\necho newer\n"}
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError) as info:
        resolve(gateway, PUSH)
    text = str(info.value)
    assert "green only on other benchmark content (stale)" in text
    assert "posts `/reuse-sweep-run` on PR #12 and re-runs this workflow" in text


def test_a_merge_that_only_corrects_a_pr_link_plans_nothing_and_publishes_nothing(fake_github):
    """infx plan plans nothing for a pr-link correction; the merge's resolver agrees instead of
    failing the push to main ('appends no entry')."""
    from lib.reuse_world import C0

    world = base_world()
    base_log = world["commits"][C0]["files"]["perf-changelog.yaml"]
    world["commits"][C1]["files"]["perf-changelog.yaml"] = base_log.replace("/pull/1\n", "/pull/12\n")
    _, result = _run(fake_github, merged(world), PUSH)
    assert not result.enabled and result.sources == () and "plans no rows" in result.reason


# ---- runs that ran another base's workflow files (infx.trust.base_problem) ------------------

def _side_pr(world, opened, closed, base="scratch"):
    """PR #13 from the same branch into another base: its pull_request runs of carol/bump ran
    that base's run-sweep.yml (GitHub runs the merge of the head into the PR's base)."""
    side = {**pr(world), "number": 13, "comments": [], "base": {"ref": base, "sha": pr(world)["base"]["sha"]},
            "state": "closed", "created_at": opened, "closed_at": closed, "merge_commit_sha": None}
    world["pulls"].append(side)
    return world


def test_a_run_made_while_a_pr_from_the_same_branch_into_another_base_was_open_is_not_reused(fake_github):
    world = _side_pr(base_world(), "2026-09-28T09:00:00Z", "2026-09-28T12:00:00Z")  # 101 at 10:00
    add_comment(world, "root", "OWNER", "/use 101", T1)
    fake, gateway = start(fake_github, world)
    with pytest.raises(ReuseError) as info:
        resolve(gateway, SYNC)
    assert "while PR #13 from the same branch into scratch was open" in str(info.value)


def test_a_pr_from_the_same_branch_into_another_base_leaves_the_runs_after_it_alone(fake_github):
    world = _side_pr(base_world(), "2026-09-27T09:00:00Z", "2026-09-27T12:00:00Z")  # closed before 101
    add_comment(world, "root", "OWNER", "/use 101", T1)
    _, result = _run(fake_github, world, SYNC)
    assert result.source.id == 101
