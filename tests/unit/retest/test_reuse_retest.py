"""infx.retest.failed: `/retest-failed` parsed by the reuse command's rendered-text rules, triage or
above, and a re-run of only the failed rows of the PR's latest sweep (through the fake GitHub)."""

from __future__ import annotations

import pytest
from lib.reuse_world import C0, C2, add_comment, add_fork_pr, base_world, pr

from infx import trust
from infx.github.models import WorkflowRun
from infx.retest.failed import decide, failed_rows, has_command, rejection, retest
from infx.reuse.ack import CommentEvent

REPO = "acme/inferencex"
WHEN = "2026-09-30T10:00:00Z"


@pytest.mark.parametrize(("body", "counts"), [
    ("/retest-failed", True),
    ("  /retest-failed \r", True),
    ("Flaky node.\n\n/retest-failed", True),
    ("/retest-failed please", False),
    ("please /retest-failed", False),
    ("`/retest-failed`", False),
    ("```\n/retest-failed\n```", False),
    ("    /retest-failed", False),  # an indented code block
    ("> /retest-failed", False),
    ("<!--\n/retest-failed\n-->", False),
    ("<details>\n/retest-failed\n</details>", False),
    ("- /retest-failed", False),
    ("**/retest-failed**", False),
    ("&#47;retest-failed", False),  # a character reference shows the command but is not typed
    ("/retest-failedx", False),
    # Prow's spelling is the same command, by the same rules; its near-misses are not it
    ("/retest", True),
    ("  /retest \r", True),
    ("Node 3 again.\n\n/retest", True),
    ("/retest please", False),
    ("> /retest", False),
    ("`/retest`", False),
    ("/retest-all", False),
    ("/retests", False),
    ("/RETEST", False),
])
def test_the_command_counts_only_as_a_rendered_line_of_its_own(body, counts):
    assert has_command(body) is counts


@pytest.mark.parametrize(("login", "kind", "record", "allowed"), [
    ("tina", "User", {"permission": "read", "role_name": "triage"}, True),
    ("wes", "User", {"permission": "write", "role_name": "write"}, True),
    ("mona", "User", {"permission": "write", "role_name": "maintain"}, True),
    ("ada", "User", {"permission": "admin", "role_name": "admin"}, True),
    ("rita", "User", {"permission": "read", "role_name": "read"}, False),
    ("nobody", "User", None, False),
    ("custom", "User", {"permission": "read", "role_name": "release-reviewer"}, False),  # fail closed
    ("lead", "User", {"permission": "write", "role_name": "release-lead"}, True),  # a custom role on write
    ("ci[bot]", "Bot", {"permission": "write", "role_name": "write"}, False),
])
def test_triage_or_above_by_role_name_never_a_bot(login, kind, record, allowed):
    assert (rejection(login, kind, record) is None) is allowed


def _run(run_id=9, status="completed", conclusion="failure", head="h" * 40, created="2026-09-29T10:00:00Z"):
    return WorkflowRun(run_id, "Run Sweep", ".github/workflows/run-sweep.yml", "pull_request", status,
                       conclusion, head, "b", 1, created)


# The decision's truth table (the `/retest-failed` rows of the gating table).
@pytest.mark.parametrize(("run", "rerun", "why"), [
    (None, False, "no sweep run"),
    (_run(status="in_progress", conclusion=None), False, "has not finished"),
    (_run(head="o" * 40), False, "not on the PR head"),
    (_run(conclusion="success"), False, "nothing failed"),
    (_run(conclusion="skipped"), False, "nothing failed"),
    (_run(conclusion="failure"), True, "re-running 1 failed or cancelled row(s) of sweep run 9"),
    (_run(conclusion="cancelled"), True, "of sweep run 9"),
    (_run(conclusion="timed_out"), True, "of sweep run 9"),
])
def test_decision(run, rerun, why):
    decision = decide(run, "h" * 40, ("single-node 8k1k / x #00000000",))
    assert (decision.run_id is not None) is rerun
    assert why in decision.reason


def test_failed_rows_are_failed_or_cancelled_sweep_jobs_only():
    from dataclasses import dataclass

    @dataclass
    class Job:
        name: str
        conclusion: str

    jobs = [Job("canary / a c4 #1", "failure"), Job("single-node 8k1k / b c8 #2", "cancelled"),
            Job("eval / c #3", "success"), Job("collect-results", "failure"), Job("agentic / d #4", "skipped")]
    assert failed_rows(jobs) == ("canary / a c4 #1", "single-node 8k1k / b c8 #2")


# ---- end to end through the fake server ------------------------------------------------------------


def _event(world, comment_id: int) -> CommentEvent:
    comment = next(c for c in pr(world)["comments"] if c["id"] == comment_id)
    return CommentEvent.of("created", 12, True, comment_id, comment["body"], comment["updated_at"])


def _with_failed_jobs(world: dict) -> dict:
    """Run 109 (the newest sweep of PR #12, on its head, cancelled) with one failed row."""
    url = f"https://github.com/{REPO}/actions/runs/109/job/"
    world["check_runs"] = {C2: [
        {"id": 1, "name": "canary / dsr1 fp8 mi355x sglang 1k1k TP8 c4 #0a0a0a0a", "status": "completed",
         "conclusion": "success", "details_url": url + "1", "run_id": 109},
        {"id": 2, "name": "single-node 1k1k / dsr1 fp8 mi355x sglang 1k1k TP8 c8 #0b0b0b0b", "status": "completed",
         "conclusion": "failure", "details_url": url + "2", "run_id": 109},
        {"id": 3, "name": "single-node 1k1k / dsr1 fp8 mi355x sglang 1k1k TP8 c16 #0c0c0c0c", "status": "completed",
         "conclusion": "cancelled", "details_url": url + "3", "run_id": 109}]}
    return world


def _reactions(fake, comment_id: int) -> list[str]:
    return [r["content"] for p in fake.world["pulls"] for c in p["comments"] if c["id"] == comment_id
            for r in c.get("reactions", [])]


@pytest.mark.parametrize("spelling", ["/retest-failed", "/retest"])
def test_a_triager_reruns_only_the_failed_rows_of_the_latest_sweep(fake_github, spelling):
    world = _with_failed_jobs(base_world())
    world["collaborators"]["tina"] = {"permission": "read", "role_name": "triage"}
    comment = add_comment(world, "tina", "MEMBER", f"Node 3 was flaky.\n\n{spelling}", WHEN)
    fake = fake_github(world)
    outcome = retest(fake.client(), REPO, _event(world, comment))
    assert outcome.reaction == "+1" and outcome.run_id == 109
    assert "2 failed or cancelled row(s)" in outcome.summary and "TP8 c8" in outcome.summary
    assert fake.count("POST", r"/actions/runs/109/rerun-failed-jobs$") == 1
    run = next(r for r in fake.world["workflow_runs"] if r["id"] == 109)
    assert (run["run_attempt"], run["status"]) == (2, "queued")
    assert _reactions(fake, comment) == ["+1"]
    assert fake.count("POST", r"/issues/\d+/comments$") == 0  # a reaction, never a reply


@pytest.mark.parametrize(("user", "body", "why"), [
    ("bob", "/retest-failed", "needs the triage, write, maintain or admin role"),
    ("bob", "/retest", "needs the triage, write, maintain or admin role"),
    ("alice", "> /retest-failed", None),  # quoted: not a command, nothing happens
    ("alice", "/retest-all", None),  # a near-miss: slash-commands.yml answers it, nothing re-runs
])
def test_refusals(fake_github, user, body, why):
    world = _with_failed_jobs(base_world())
    comment = add_comment(world, user, "MEMBER", body, WHEN)
    fake = fake_github(world)
    outcome = retest(fake.client(), REPO, _event(world, comment))
    assert fake.count("POST", r"/rerun-failed-jobs$") == 0
    if why is None:
        assert outcome.reaction is None and _reactions(fake, comment) == []
    else:
        assert outcome.reaction == "-1" and why in outcome.summary and outcome.failed


def test_a_sweep_still_running_is_not_retested(fake_github):
    world = base_world()
    world["workflow_runs"] = [r for r in world["workflow_runs"] if r["id"] != 109]  # 108 is newest, running
    world["check_runs"] = {sha: [c for c in runs if c.get("run_id") != 109]
                           for sha, runs in world.get("check_runs", {}).items()}
    comment = add_comment(world, "alice", "MEMBER", "/retest-failed", WHEN)
    fake = fake_github(world)
    outcome = retest(fake.client(), REPO, _event(world, comment))
    assert outcome.reaction == "-1" and "108 has not finished" in outcome.summary
    assert fake.count("POST", r"/rerun-failed-jobs$") == 0


def test_failed_job_names_are_shown_inert_in_the_summary(fake_github):
    """Job names come from the PR's matrix: a name that tries to close its code span and
    mention a team stays one literal code span in the step summary."""
    world = _with_failed_jobs(base_world())
    hostile = "single-node 1k1k / x` @org/core <img src=x> `y"
    for job in world["check_runs"][C2]:
        if job["conclusion"] == "failure":
            job["name"] = hostile
    world["collaborators"]["tina"] = {"permission": "read", "role_name": "triage"}
    comment = add_comment(world, "tina", "MEMBER", "/retest-failed", WHEN)
    outcome = retest(fake_github(world).client(), REPO, _event(world, comment))
    assert outcome.reaction == "+1"
    assert ", ``single-node 1k1k / x` @org/core <img src=x> `y``." in outcome.summary


def test_a_newer_run_whose_rows_were_all_skipped_does_not_block_the_retest(fake_github):
    """A label change starts a sweep whose gate skips every row (it concludes success): the
    retest still goes to the newest run that swept rows (run 109), named in the summary."""
    world = _with_failed_jobs(base_world())
    newer = next(r for r in world["workflow_runs"] if r["id"] == 109) | {
        "id": 111, "conclusion": "success", "created_at": "2026-09-29T23:00:00Z", "artifacts": []}
    world["workflow_runs"].append(newer)
    url = f"https://github.com/{REPO}/actions/runs/111/job/"
    world["check_runs"][C2] += [
        {"id": 11, "name": "canary / dsr1 fp8 mi355x sglang 1k1k TP8 c4 #0a0a0a0a", "status": "completed",
         "conclusion": "skipped", "details_url": url + "11", "run_id": 111},
        {"id": 12, "name": "single-node 1k1k / dsr1 fp8 mi355x sglang 1k1k TP8 c8 #0b0b0b0b",
         "status": "completed", "conclusion": "skipped", "details_url": url + "12", "run_id": 111}]
    comment = add_comment(world, "alice", "MEMBER", "/retest-failed", WHEN)
    fake = fake_github(world)
    outcome = retest(fake.client(), REPO, _event(world, comment))
    assert outcome.reaction == "+1" and outcome.run_id == 109, outcome.summary
    assert fake.count("POST", r"/actions/runs/109/rerun-failed-jobs$") == 1


def test_a_run_made_with_an_edited_sweep_workflow_is_never_retested(fake_github):
    """The PR's head edits run-sweep.yml: its failed run is the PR's workflow, not ours, so
    no re-run is asked for (with the privileges of whoever started it), and the reason says so."""
    world = _with_failed_jobs(base_world())
    world["commits"][C2]["files"] = {".github/workflows/run-sweep.yml": "on: pull_request\njobs: {}\n"}
    comment = add_comment(world, "alice", "MEMBER", "/retest-failed", WHEN)
    fake = fake_github(world)
    outcome = retest(fake.client(), REPO, _event(world, comment))
    assert outcome.reaction == "-1" and fake.count("POST", r"/rerun-failed-jobs$") == 0
    assert "run 109 is not our sweep: its commit c2222222 has sweep workflow files that differ" \
        in outcome.summary, outcome.summary


def _fork_sweep_world(title: str) -> dict:
    """Fork PR #14 (head C2) and run 301: run-sweep.yml dispatched on main at C0 with `title`,
    finished with one failed row (its jobs' check runs on C0, the commit it ran)."""
    world = add_fork_pr(base_world())
    world["workflow_runs"].append({
        "id": 301, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml", "event": trust.FORK_SWEEP_EVENT,
        "status": "completed", "conclusion": "failure", "head_sha": C0, "head_branch": "main",
        "display_title": title, "created_at": "2026-09-30T09:00:00Z", "artifacts": []})
    url = f"https://github.com/{REPO}/actions/runs/301/job/"
    world["check_runs"] = {C0: [
        {"id": 31, "name": "single-node 1k1k / dsr1 fp8 mi355x sglang 1k1k TP8 c8 #0b0b0b0b", "status": "completed",
         "conclusion": "failure", "details_url": url + "31", "run_id": 301}]}
    world["collaborators"]["tina"] = {"permission": "read", "role_name": "triage"}
    add_comment(world, "tina", "MEMBER", "/retest-failed", WHEN, number=14, comment_id=950)
    return world


@pytest.mark.parametrize(("title", "rerun"), [
    (trust.fork_sweep_title(14, C2), True),  # the PR's fork sweep of its head
    (trust.fork_sweep_title(13, C2), False),  # another PR's
    (trust.fork_sweep_title(14, C0), False),  # pinned to a commit that is not the PR's head
])
def test_a_fork_prs_retest_reruns_its_fork_sweep_of_the_head(fake_github, title, rerun):
    world = _fork_sweep_world(title)
    fake = fake_github(world)
    event = CommentEvent.of("created", 14, True, 950, "/retest-failed", WHEN)
    outcome = retest(fake.client(), REPO, event)
    assert fake.count("POST", r"/actions/runs/301/rerun-failed-jobs$") == int(rerun)
    if rerun:
        assert outcome.reaction == "+1" and outcome.run_id == 301 and "TP8 c8" in outcome.summary
    else:
        assert outcome.reaction == "-1" and "no sweep run to retest" in outcome.summary
