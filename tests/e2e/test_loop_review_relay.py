"""Review sign-offs and retargeted PRs through the real workflow files (issue 20 point 3).

One real sweep of PR 41 (tests/lib/loop_scenarios.py), then the sign-off workflows on the local
runner with GitHub's deployment rule of the `signoff-app` environment (the default branch only)
as data of the runner: a CODEOWNER's review sign-off is recorded by `signoff-verify.yml`'s
unprivileged `record-review` job on the PR's merge ref, and the `workflow_run` event GitHub makes
of that finished run starts `signoff-head-status.yml` on the default branch, whose
`review-signoff` job verifies it. A privileged job on the review's own ref is refused by the
environment rule before any step; a conversation sign-off runs `verify` on the default
branch, where the environment deploys. A retarget (`pull_request` edited, base changed) is recorded
by `record-head`, and its relay withdraws the bot's `success` and the verdict's check run."""

from __future__ import annotations

import copy
import dataclasses
import shutil
from pathlib import Path

import pytest
from lib.loop_scenarios import (
    FIRST_SWEEP,
    SIGNED_AT,
    SINGLE_NODE_DETAILS,
    authorize_reuse,
    failed_jobs,
    single_node_pr,
    sweep,
)
from lib.sweep_loop import (
    SIGNER,
    SIGNOFF_ENVIRONMENTS,
    SweepRepo,
    add_comment,
    checklist_body,
    comment_event,
    git,
    pull_request_event,
    record_run,
    review_comment_event,
    review_event,
    run_comment_workflow,
    workflow_run_event,
)

from infx.yamlio import load_file

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

VERIFY = ".github/workflows/signoff-verify.yml"
HEAD_STATUS = ".github/workflows/signoff-head-status.yml"
CONTEXT = "codeowner-signoff-verify"
REVIEW_ID = 8801
REFUSED = 'Branch "refs/pull/41/merge" is not allowed to deploy to signoff-app due to environment protection rules.'
RECORDED_AT = "2026-09-30T09:05:00Z"  # the record run starts after the review was submitted
RELAYED_AT = "2026-09-30T09:10:00Z"


def _check_name(workflow: str, job_name: str) -> str:
    """The check run of a job of the reusable workflow `workflow` calls, as GitHub names a called
    job: `<caller job> / <job name>` (our bots are one job calling infx-*.yml)."""
    (caller,) = load_file(Path(__file__).resolve().parents[2] / workflow)["jobs"]
    return f"{caller} / {job_name}"


def verify_job(job_name: str) -> str:
    """A job of signoff-verify.yml as its check run is named."""
    return _check_name(VERIFY, job_name)


def head_job(job_name: str) -> str:
    """A job of signoff-head-status.yml as its check run is named."""
    return _check_name(HEAD_STATUS, job_name)


@dataclasses.dataclass
class Swept:
    repo: SweepRepo
    pr: object
    world: dict
    merge: str


@pytest.fixture(scope="module")
def swept(base_repo, tmp_path_factory) -> Swept:
    """PR 41 swept green by the real run-sweep.yml, the run pinned by a maintainer, and the
    owner's checklist posted as a review of the swept head."""
    work = tmp_path_factory.mktemp("relay")
    repo = SweepRepo(base_repo, work / "repo")
    pr = single_node_pr(repo)
    record, world = sweep(repo, pr, work, FIRST_SWEEP)
    assert record.conclusion == "success", failed_jobs(record)
    authorize_reuse(world, record.run_id)
    world["pulls"][0]["reviews"].append({
        "id": REVIEW_ID, "user": SIGNER, "state": "COMMENTED", "author_association": "MEMBER",
        "body": checklist_body(SIGNER, SINGLE_NODE_DETAILS), "commit_id": pr.head_sha, "submitted_at": SIGNED_AT})
    return Swept(repo, pr, world, repo.sha(f"refs/pull/{pr.number}/merge"))


def statuses(world: dict, sha: str) -> list[dict]:
    return [s for s in world["statuses"].get(sha, []) if s["context"] == CONTEXT]


def check_runs(world: dict, sha: str) -> list[dict]:
    """The verdict's check runs on a commit (those an app wrote, not the jobs of a run)."""
    return [r for r in world["check_runs"].get(sha, []) if r["name"] == CONTEXT and "app" in r]


def verdicts(world: dict) -> list[dict]:
    return [c for c in world["pulls"][0]["comments"] if c["body"].startswith(f"<!-- {CONTEXT}")]


def relay(swept: Swept, world: dict, trigger, run_id: int, work, start: str, relayed_at: str):
    """`signoff-verify.yml` for `trigger` on the PR's ref, then `signoff-head-status.yml` for the
    workflow_run event of that finished run on the default branch; both runs and the world."""
    record, world = run_comment_workflow(world, swept.repo, trigger, VERIFY, run_id, work / f"run{run_id}",
                                         environments=SIGNOFF_ENVIRONMENTS, start=start)
    record_run(world, record)  # GitHub lists the finished run (and its jobs as check runs)
    followed = workflow_run_event(record, trigger, swept.repo.sha("main"))
    relayed, world = run_comment_workflow(world, swept.repo, followed, HEAD_STATUS, run_id + 1,
                                          work / f"run{run_id + 1}", environments=SIGNOFF_ENVIRONMENTS,
                                          start=relayed_at)
    return record, relayed, world


@pytest.fixture(scope="module")
def relayed(swept, tmp_path_factory):
    trigger = review_event(swept.world, swept.pr, REVIEW_ID, swept.merge)
    work = tmp_path_factory.mktemp("relayed")
    return (trigger, *relay(swept, copy.deepcopy(swept.world), trigger, 9410, work, RECORDED_AT, RELAYED_AT))


def test_a_review_signoff_is_recorded_on_the_pr_ref_and_verified_from_the_default_branch(swept, relayed):
    trigger, record, followed, world = relayed
    # the review event runs on the PR's merge ref: only the job without privileges runs there
    assert trigger.ref == "refs/pull/41/merge"
    assert record.conclusion == "success", failed_jobs(record)
    assert {j.name: j.conclusion for j in record.jobs} == {
        verify_job("record the PR head"): "skipped", verify_job("record a review sign-off event"): "success",
        verify_job("verify CODEOWNER sign-off"): "skipped", verify_job("re-decide the head after a sign-off changed"): "skipped"}
    # the relay runs on the default branch, where the environment deploys, and reads the run
    # GitHub reports (its event, conclusion, head and creation time), never the review's text
    run = followed.jobs
    assert followed.conclusion == "success", failed_jobs(followed)
    assert {j.name: j.conclusion for j in run} == {head_job("status of the new head"): "skipped",
                                                     head_job("verify or re-decide a review sign-off"): "success"}
    job = followed.job(head_job("verify or re-decide a review sign-off"))
    assert job.annotations == [] and [s.outcome for s in job.steps if s.name == "Verify the review sign-off"] \
        == ["success"]
    assert "signoff: relay #41: verdict: success" in job.log
    # the verdict names the review it judged and the status on the swept head is the bot's success
    (verdict,) = verdicts(world)
    assert f"signoff=review:{REVIEW_ID}:" in verdict["body"].split("\n", 1)[0]
    assert "PASS" in verdict["body"]
    final = statuses(world, swept.pr.head_sha)[-1]
    assert (final["state"], final["creator"]) == ("success", world["token_login"])
    assert final["target_url"].endswith(f"#issuecomment-{verdict['id']}")
    assert [r["conclusion"] for r in check_runs(world, swept.pr.head_sha)] == ["success"]


def test_a_privileged_job_on_the_review_ref_is_refused_by_the_environment(swept, tmp_path):
    """The design the relay replaced: `verify` (environment `signoff-app`) started by the review
    event itself. GitHub refuses the deployment on the PR's merge ref: the job fails with no
    step run, nothing is posted. Without the rule the same run would verify."""
    called = ".github/workflows/infx-signoff-verify.yml"  # the jobs signoff-verify.yml calls
    text = swept.repo.read("main", called)
    gate = "      github.event_name == 'workflow_dispatch'\n"
    assert text.count(gate) == 1
    direct = text.replace(gate, "      github.event_name == 'workflow_dispatch' "
                                "|| github.event_name == 'pull_request_review'\n")
    variant = swept.repo.commit("direct-review-verify", swept.merge, {called: direct},
                                "ci: verify review sign-offs where they are posted")
    git(swept.repo.path, "checkout", "--quiet", "main")  # the repository's HEAD stays the default branch
    trigger = dataclasses.replace(review_event(swept.world, swept.pr, REVIEW_ID, swept.merge), sha=variant)
    for environments, refused in ((SIGNOFF_ENVIRONMENTS, True), (None, False)):
        record, world = run_comment_workflow(copy.deepcopy(swept.world), swept.repo, trigger, VERIFY, 9420,
                                             tmp_path / f"run-{refused}", environments=environments,
                                             start=RECORDED_AT)
        job = record.job(verify_job("verify CODEOWNER sign-off"))
        assert record.job(verify_job("record a review sign-off event")).conclusion == "success"
        if refused:
            assert (job.conclusion, job.steps, job.annotations) == ("failure", [], [REFUSED])
            assert record.conclusion == "failure"
            assert statuses(world, swept.pr.head_sha) == [] and verdicts(world) == []
        else:  # the rule is what stops it: the job's steps run (default-branch infx installed)
            assert job.annotations == [] and job.steps and job.steps[0].outcome == "success", job.log
            assert any(i for i in job.installs), job.log


def test_a_pr_retargeted_after_its_review_signoff_loses_the_bots_success(swept, relayed, tmp_path):
    """`pull_request` edited with a base change is recorded by `record-head`; its relay
    (`head-status`, on the default branch) withdraws the success the bot left on the head, and
    the verdict's check run on it (issue 23: the check run never says more than the status)."""
    _, _, _, world = relayed
    assert statuses(world, swept.pr.head_sha)[-1]["state"] == "success"
    world = copy.deepcopy(world)
    world["branches"]["release"] = swept.repo.sha("main")
    world["pulls"][0]["base"]["ref"] = "release"
    trigger = pull_request_event(swept.pr, "edited", swept.merge)
    trigger.payload["pull_request"]["base"]["ref"] = "release"
    trigger.payload["changes"] = {"base": {"ref": {"from": "main"}, "sha": {"from": swept.pr.base_sha}}}
    trigger = dataclasses.replace(trigger, base_ref="release")
    record, followed, world = relay(swept, world, trigger, 9430, tmp_path, "2026-09-30T10:00:00Z",
                                    "2026-09-30T10:05:00Z")
    assert {j.name: j.conclusion for j in record.jobs}[verify_job("record the PR head")] == "success"
    assert record.conclusion == "success", failed_jobs(record)
    assert {j.name: j.conclusion for j in followed.jobs} == {head_job("status of the new head"): "success",
                                                              head_job("verify or re-decide a review sign-off"): "skipped"}
    final = statuses(world, swept.pr.head_sha)[-1]
    assert (final["state"], final["creator"]) == ("pending", world["token_login"])
    log = followed.job(head_job("status of the new head")).log
    assert "targets release, not the default branch main" in log, log
    assert final["description"].startswith("Not verified"), final
    assert len(verdicts(world)) == 1  # nothing verified again
    # the verdict's check run on the head no longer says success either
    assert [r["conclusion"] for r in check_runs(world, swept.pr.head_sha)] == ["action_required"]
    assert "check run: withdrawn" in log, log


def test_an_inline_signoff_reaches_its_verdict_through_the_same_relay(swept, tmp_path):
    """The checklist posted as an inline comment on the diff: `record-review` records its
    `pull_request_review_comment` event, and the relay verifies it."""
    world = copy.deepcopy(swept.world)
    pull = world["pulls"][0]
    review = pull["reviews"].pop()
    pull["review_comments"].append({"id": REVIEW_ID + 1, "user": SIGNER, "body": review["body"],
                                    "path": "perf-changelog.yaml", "line": 1, "commit_id": swept.pr.head_sha,
                                    "created_at": SIGNED_AT, "updated_at": SIGNED_AT,
                                    "author_association": "MEMBER"})
    trigger = review_comment_event(world, swept.pr, REVIEW_ID + 1, swept.merge)
    record, followed, world = relay(swept, world, trigger, 9440, tmp_path, RECORDED_AT, RELAYED_AT)
    assert record.job(verify_job("record a review sign-off event")).conclusion == "success", failed_jobs(record)
    assert followed.job(head_job("verify or re-decide a review sign-off")).conclusion == "success", failed_jobs(followed)
    (verdict,) = verdicts(world)
    assert f"signoff=review_comment:{REVIEW_ID + 1}:" in verdict["body"].split("\n", 1)[0]
    assert statuses(world, swept.pr.head_sha)[-1]["state"] == "success"


def test_a_dismissed_review_signoff_sets_its_head_pending_through_the_relay(swept, relayed, tmp_path):
    """The verified review dismissed: its `dismissed` event is recorded, and the relay, finding
    nothing new to verify, decides the head again: `pending`, the check run withdrawn."""
    trigger, _, _, world = relayed
    world = copy.deepcopy(world)
    review = next(r for r in world["pulls"][0]["reviews"] if r["id"] == REVIEW_ID)
    review["state"] = "DISMISSED"
    dismissed = review_event(world, swept.pr, REVIEW_ID, swept.merge, action="dismissed")
    record, followed, world = relay(swept, world, dismissed, 9450, tmp_path, "2026-09-30T11:00:00Z",
                                    "2026-09-30T11:05:00Z")
    assert record.job(verify_job("record a review sign-off event")).conclusion == "success", failed_jobs(record)
    job = followed.job(head_job("verify or re-decide a review sign-off"))
    assert job.conclusion == "success", job.log
    assert "signoff: relay #41: head-status: pending" in job.log, job.log
    # the guard reads the relay's record: a head decided `pending`, not a verification that died
    assert "The verifier finished with status decided." in job.log, job.log
    final = statuses(world, swept.pr.head_sha)[-1]
    assert (final["state"], final["creator"]) == ("pending", world["token_login"])
    assert [r["conclusion"] for r in check_runs(world, swept.pr.head_sha)] == ["action_required"]
    assert len(verdicts(world)) == 1


def test_a_conversation_signoff_is_verified_where_it_is_posted_the_environment_allowing_main(swept, tmp_path):
    """The checklist as a PR comment: `issue_comment` runs on the default branch, so the `verify`
    job deploys to `signoff-app` and verifies it directly (no relay)."""
    world = copy.deepcopy(swept.world)
    world["pulls"][0]["reviews"] = []
    signed = add_comment(world, SIGNER, "MEMBER", checklist_body(SIGNER, SINGLE_NODE_DETAILS), SIGNED_AT)
    trigger = comment_event(world, signed, swept.repo.sha("main"))
    assert trigger.ref == "refs/heads/main"
    record, world = run_comment_workflow(world, swept.repo, trigger, VERIFY, 9460, tmp_path / "run",
                                         environments=SIGNOFF_ENVIRONMENTS, start=RECORDED_AT)
    job = record.job(verify_job("verify CODEOWNER sign-off"))
    assert job.conclusion == "success" and job.annotations == [], job.log
    assert record.job(verify_job("record a review sign-off event")).conclusion == "skipped"
    (verdict,) = verdicts(world)
    assert f"signoff=issue_comment:{signed}:" in verdict["body"].split("\n", 1)[0]
    assert statuses(world, swept.pr.head_sha)[-1]["state"] == "success"
