"""End-to-end verifications through the fake GitHub server (signoff.md §6 scenarios and gates)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from infx import yamlio
from infx.signoff import pipeline as publish
from infx.signoff import render
from infx.signoff.model import Status
from infx.signoff.table import load_table
from infx.signoff.trigger.gating import SignoffRef, Trigger

MINE = ("codeowner", "sweep", "evals", "reuse", "template", "pareto")
CONTEXT = "codeowner-signoff-verify"
NOW = datetime(2026, 9, 24, 12, tzinfo=timezone.utc)


def core_table():
    """The table restricted to this module's checks, so overall verdicts do not depend on others."""
    table = load_table()
    return replace(table, checks=tuple(c for c in table.checks if c.id in MINE))


@pytest.fixture(scope="module")
def seed000(request):
    path = request.config.rootpath / "tests/data/worlds/signoff_seed000.yaml"
    return yamlio.load_file(path)


@pytest.fixture(scope="module")
def seed003(request):
    return yamlio.load_file(request.config.rootpath / "tests/data/worlds/signoff_seed003.yaml")


def run(fake, pr, comment_id, *, table=None, kind="issue_comment", actor=None, dispatched=False,
        post=True):
    """Verify one sign-off the way the replay CLI does (review date = the world's `now`);
    `post=False` computes the verdict without publishing (as `preview`)."""
    world = fake.state.world
    now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
    trigger = Trigger(True, "test", pr, SignoffRef(kind, comment_id), actor=actor, dispatched=dispatched)
    return publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now, post=post), table)


def rows(result) -> dict[str, Status]:
    return {row.spec.id: row.status for row in result.verdict.rows}


def statuses(fake, sha):
    return [s["state"] for s in fake.state.world["statuses"].get(sha, []) if s["context"] == CONTEXT]


def verdicts(fake, number):
    pull = next(p for p in fake.state.world["pulls"] if p["number"] == number)
    return [c for c in pull["comments"] if c["body"].startswith("<!-- " + CONTEXT)]


def pull(world, number=None):
    return world["pulls"][0] if number is None else next(p for p in world["pulls"] if p["number"] == number)


def shown(body: str) -> str:
    """The comment's text as a reader sees it: markdown escapes and zero-width spaces gone."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", body).replace("\u200b", "")


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


HEAD000 = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"


# --- the seeds ------------------------------------------------------------------------------


def test_seed_000_checks_pass_through_the_full_table(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    result = run(fake, 3412, 5003)
    assert {k: v for k, v in rows(result).items() if k in MINE} == {k: Status.PASS for k in MINE}
    assert result.posted and len(verdicts(fake, 3412)) == 1
    assert statuses(fake, HEAD000)[0] == "pending" and len(statuses(fake, HEAD000)) == 2
    assert result.body.endswith(f"Assessed commit: `{HEAD000}`.\n")
    # the workflows name the bot (INFX_BOT_LOGIN), so in them the client never reads GET /user;
    # the one read after `success` is the sign-off again (a change during the run resets it)
    assert fake.count("GET", r"^/repos/[^/]+/[^/]+/issues/comments/5003$") == 2
    # the check run beside the status costs two: listing the head's of its name, and the POST
    assert fake.count("GET", r"/commits/[0-9a-f]{40}/check-runs$") >= 1
    assert fake.count("POST", r"/check-runs$") == 1
    assert len([r for r in fake.requests if r["path"] != "/user"]) <= 32


def with_current_policy(world: dict, root) -> dict:
    """The world with today's trusted policy data on its default branch (the world file holds
    a snapshot; the diff-policy checks must be judged against the policy they now expect)."""
    world = copy.deepcopy(world)
    base = next(sha for sha, commit in world["commits"].items() if not commit.get("parents"))
    for pattern in ("configs/policy/*.yaml", "configs/golden_al_distribution/*.yaml"):
        for path in sorted(root.glob(pattern)):
            world["commits"][base]["files"][str(path.relative_to(root))] = path.read_text()
    return world


def test_seed_000_full_verdict_is_pass(fake_github, seed000, repo_root) -> None:
    """With every check (including the diff-policy ones) the seed's PASS is reproduced."""
    fake = fake_github(with_current_policy(seed000, repo_root))
    result = run(fake, 3412, 5003)
    assert result.verdict.overall.value == "PASS", result.body
    assert statuses(fake, HEAD000) == ["pending", "success"]


def test_seed_000_is_a_pass_and_posts_once(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    first = run(fake, 3412, 5003, table=core_table())
    second = run(fake, 3412, 5003, table=core_table())
    assert first.verdict.overall.value == "PASS" and first.status == "success"
    assert first.body.split("\n")[1] == "## ✅✅✅ **Verdict: PASS** ✅✅✅"
    assert first.posted and not second.posted and second.body == first.body
    assert len(verdicts(fake, 3412)) == 1
    assert statuses(fake, HEAD000) == ["pending", "success", "pending", "success"]
    assert fake.count("POST", "/issues/3412/comments$") == 1


def test_same_evidence_gives_byte_identical_comments(fake_github, seed000) -> None:
    bodies = [run(fake_github(seed000), 3412, 5003).body for _ in range(2)]
    assert bodies[0] == bodies[1]


def test_seed_003_rejected_then_pass(fake_github, seed003) -> None:
    world = copy.deepcopy(seed003)
    later = pull(world)["comments"].pop()  # 2004 was posted after 2003's verdict
    fake = fake_github(world)
    head = pull(seed003)["head"]["sha"]
    first = run(fake, 1902, 2003, table=core_table())
    pull(fake.world)["comments"].append(later | {"id": 2014})  # 2004 went to the verdict
    assert rows(first) == {"codeowner": Status.PASS, "sweep": Status.PASS, "evals": Status.PASS,
                           "reuse": Status.PASS, "template": Status.FAIL, "pareto": Status.PASS}
    assert first.body.split("\n")[3].startswith("@billishyahao — blocking: Check 5 (Latest checklist template)")
    second = run(fake, 1902, 2014, table=core_table())
    assert second.verdict.overall.value == "PASS" and second.posted
    assert "Supersedes the earlier REJECTED verdict for this commit." in second.body
    assert len(verdicts(fake, 1902)) == 2
    assert statuses(fake, head) == ["pending", "failure", "pending", "success"]
    third = run(fake, 1902, 2014, table=core_table())
    assert not third.posted and len(verdicts(fake, 1902)) == 2
    # re-verifying the older sign-off now never overwrites the newer one's status
    fourth = run(fake, 1902, 2003, table=core_table())
    assert fourth.kind == "skipped" and "a newer sign-off by @billishyahao" in fourth.reason
    assert statuses(fake, head)[-1] == "success"


def test_seed_003_full_table_fails_only_check_5_on_the_stale_copy(fake_github, seed003, repo_root) -> None:
    fake = fake_github(with_current_policy(seed003, repo_root))
    first = run(fake, 1902, 2003, post=False)
    assert [r.spec.id for r in first.verdict.rows if r.status is Status.FAIL] == ["template"]
    assert all(rows(first)[c] is Status.PASS for c in MINE if c != "template")
    second = run(fake, 1902, 2004)
    assert second.verdict.overall.value == "PASS", second.body


# --- scenarios of signoff.md §6 ---------------------------------------------------------------


def test_scenario_1_clean_pr_passes(fake_github, seed000) -> None:
    result = run(fake_github(seed000), 3412, 5003, table=core_table())
    assert set(rows(result).values()) == {Status.PASS}


def test_scenario_2_green_run_force_pushed_away(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pr = pull(world)
    pr["commits"] = [HEAD000]
    skipped = [{"id": 81000 + i, "name": name, "status": "completed", "conclusion": "skipped",
                "details_url": f"https://github.com/x/y/actions/runs/36100000000/job/{i}"}
               for i, name in enumerate(["agentic / minimaxm3 tp4 c1", "agentic eval / minimaxm3 tp4 c48"])]
    skipped.append({"id": 81010, "name": "collect-evals", "status": "completed", "conclusion": "success",
                    "details_url": "https://github.com/x/y/actions/runs/36100000000/job/9"})
    world["check_runs"][HEAD000] = skipped
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert rows(result)["sweep"] is Status.FAIL and rows(result)["evals"] is Status.FAIL
    assert rows(result)["pareto"] is Status.WARN
    assert result.verdict.overall.value == "REJECTED" and result.status == "failure"
    assert "❌ Check 1 (Passing sweep on in-PR commit): FAIL — No passing sweep/eval was found" in result.body
    assert "@chunfangamd — blocking:" in result.body
    assert "run 35873197630 succeeded on 7bbb0ec7, which is no longer a commit of this PR" in result.body
    assert "Pareto coverage needs a maintainer" in result.body


def test_scenario_3_amd_owner_signs_an_nvidia_change(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pr = pull(world)
    base = pr["base"]["sha"]
    head = sha("scenario3-head")
    changelog = world["commits"][world["commits"][base]["files_from"]]["files"]["perf-changelog.yaml"]
    nvidia = ("dsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.20\n  model: deepseek-ai/DeepSeek-R1\n"
              "  model-prefix: dsr1\n  runner: b200\n  precision: fp4\n  framework: sglang\n"
              "  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n"
              "      search-space:\n      - {tp: 8, conc-list: [4, 8, 16, 32, 64]}\n")
    world["commits"][head] = {"parents": [base], "message": "B200 SGLang 8k1k", "files_from": base,
                              "files": {"configs/nvidia-master.yaml": nvidia,
                                        "perf-changelog.yaml": changelog + "\n- config-keys: [dsr1-fp4-b200-sglang]\n"
                                        "  description: [B200 SGLang 8k1k]\n  pr-link: XXX\n"}}
    pr["head"]["sha"], pr["commits"] = head, [head]
    run_id = 40000001
    world["check_runs"] = {head: [
        {"id": 1, "name": "single-node 8k1k / dsr1 fp4 b200 sglang c4", "status": "completed",
         "conclusion": "success", "details_url": f"https://github.com/x/y/actions/runs/{run_id}/job/1"},
        {"id": 2, "name": "eval / dsr1 fp4 b200 sglang c64", "status": "completed",
         "conclusion": "success", "details_url": f"https://github.com/x/y/actions/runs/{run_id}/job/2"}]}
    evals = [{"model_prefix": "dsr1", "hw": "B200", "framework": "sglang", "precision": "fp4",
              "task": "gsm8k", "score": 0.95, "score_name": "em_strict", "n_eff": 1319,
              "infrastructure_success": True, "integration_error": None}]
    points = [{"hw": "b200", "infmax_model_prefix": "dsr1", "framework": "sglang", "precision": "fp4",
               "isl": 8192, "osl": 1024, "spec_decoding": "none", "tput_per_gpu": 100.0 * k,
               "median_e2el": 1.0 * k} for k in range(1, 7)]
    world["workflow_runs"] = [{"id": run_id, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
                               "event": "pull_request", "status": "completed", "conclusion": "success",
                               "head_sha": head, "head_branch": pr["head"]["ref"],
                               "created_at": "2026-09-23T13:00:00Z", "artifacts": [
                                   {"name": "eval_results_all", "files": {"agg_eval_all.json": evals}},
                                   {"name": "results_bmk", "files": {"agg_bmk.json": points}}]}]
    fake = fake_github(world)
    preview = run(fake, 3412, 5003, table=core_table(), post=False)
    assert rows(preview) == {"codeowner": Status.FAIL, "sweep": Status.PASS, "evals": Status.PASS,
                             "reuse": Status.PASS, "template": Status.PASS, "pareto": Status.PASS}
    # posted: the sign-off is not an owner's, so it is answered and the status is left alone
    result = run(fake, 3412, 5003, table=core_table())
    assert result.kind == "not-owner" and result.posted and statuses(fake, head) == []
    assert ("configs/nvidia-master.yaml is owned by @ankur-singh @kedarpotdar-nv @SemiAnalysisAI/core; "
            "chunfangamd is not") in shown(result.body)


def test_a_partial_owner_gets_a_verdict_naming_the_paths_left_to_other_owners(fake_github, seed000) -> None:
    """PRODUCT §4.8 Scope: a signer owning some of the PR's specific paths gets a verdict (not the
    non-owner answer); Check `codeowner` names the paths left to other owners."""
    world = copy.deepcopy(seed000)
    head = world["commits"][HEAD000]
    head["files"]["configs/nvidia-master.yaml"] = "# an NVIDIA owner's file\n"
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert result.kind != "not-owner" and result.verdict is not None
    assert result.verdict.overall.value == "REJECTED" and statuses(fake, HEAD000)[-1] == "failure"
    reason = next(r.outcome.reason for r in result.verdict.rows if r.spec.id == "codeowner")
    assert reason == ("@chunfangamd owns configs/amd-master.yaml; left to other owners: "
                      "configs/nvidia-master.yaml.")
    assert ("configs/nvidia-master.yaml is owned by @ankur-singh @kedarpotdar-nv @SemiAnalysisAI/core; "
            "chunfangamd is not") in shown(result.body)


def test_scenario_4_stale_template_with_placeholder_detail(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    comment = pull(world)["comments"][2]
    lines = [line for line in comment["body"].split("\n")
             if "draft model" not in line and "Pareto frontier" not in line]
    body = "\n".join(lines).replace("- [x] Confirmed that every vLLM/SGLang serving recipe",
                                    "- [ ] Confirmed that every vLLM/SGLang serving recipe")
    detail_start = body.index("### Additional detail section:")
    comment["body"] = (body[:detail_start] + "### Additional detail section:\n"
                       "- insert any additional info here\n\nSigned: @chunfangamd\n")
    result = run(fake_github(world), 3412, 5003, table=core_table())
    assert rows(result)["template"] is Status.FAIL
    assert result.verdict.overall.value == "REJECTED"
    reason = next(r.outcome.reason for r in result.verdict.rows if r.spec.id == "template")
    assert "draft served as shipped" in reason and "Pareto counts" in reason
    assert "upstream recipe documented" in reason


def test_scenario_10_eval_below_the_per_model_floor(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    artifact = world["workflow_runs"][0]["artifacts"][0]
    row = artifact["files"]["agg_eval_all.json"][0]
    artifact["files"]["agg_eval_all.json"] = [
        row | {"model_prefix": "qwen3.5", "task": "gsm8k", "score": 0.932, "em_strict": 0.932},
        row | {"model_prefix": "qwen3.5", "task": "gsm8k", "conc": 32, "infrastructure_success": False,
               "integration_error": {"type": "InvalidEffectiveSampleCount", "message": "n_eff=0"}}]
    result = run(fake_github(world), 3412, 5003, table=core_table())
    assert rows(result)["evals"] is Status.FAIL
    line = next(li for li in result.body.split("\n") if li.startswith("❌ Check 2"))
    assert "gsm8k" in line and "0.932" in line and "0.94" in line and "models.qwen3.5" in line
    assert "InvalidEffectiveSampleCount" in line


def test_scenario_12_unauthorised_reuse_and_thin_pareto_warn(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pr = pull(world)
    pr["comments"][1] = pr["comments"][1] | {"user": "stranger", "author_association": "CONTRIBUTOR",
                                             "body": "/use 123"}
    pr["review_comments"] = [{"id": 9001, "user": "maint", "body": "please /use 456",
                              "path": "configs/amd-master.yaml", "line": 3,
                              "created_at": "2026-09-24T08:30:00Z"}]
    artifact = world["workflow_runs"][0]["artifacts"][1]
    points = artifact["files"]["agg_bmk.json"][:3] + [
        p | {"tput_per_gpu": 1.0, "p90_e2el": 500.0 + i} for i, p in enumerate(artifact["files"]["agg_bmk.json"][3:9])]
    artifact["files"]["agg_bmk.json"] = points
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert rows(result)["reuse"] is Status.WARN and rows(result)["pareto"] is Status.WARN
    assert result.verdict.overall.value == "WARN" and result.status == "success"
    assert "9 measured, 0 invalid, 3/5" in result.body
    assert "Pareto coverage needs a maintainer" in result.body and "blocking" not in result.body
    # the escalation mentions come from CODEOWNERS (its catch-all owners), not from a hard-coded list
    assert "⚠️ @SemiAnalysisAI/core: Pareto coverage needs a maintainer" in result.body
    assert "admin bypass: none recorded for 296a93ad" in result.body


def _thin_pareto(world):
    artifact = world["workflow_runs"][0]["artifacts"][1]
    artifact["files"]["agg_bmk.json"] = artifact["files"]["agg_bmk.json"][:3]


@pytest.mark.parametrize("user,expected", [
    ("functionstackx", "admin bypass: recorded by @functionstackx (repository admin) for 296a93ad"),
    ("yhl-amd", "@yhl-amd's bypass does not count: not a repository admin"),
])
def test_a_recorded_admin_bypass_is_linked_but_still_warns(fake_github, seed000, user, expected) -> None:
    world = copy.deepcopy(seed000)
    _thin_pareto(world)
    pull(world)["comments"].append({"id": 5100, "user": user, "author_association": "MEMBER",
                                    "body": f"Thin curve accepted for this commit.\n/pareto-bypass {HEAD000}",
                                    "created_at": "2026-09-24T09:30:00Z"})
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert rows(result)["pareto"] is Status.WARN and expected in shown(result.body)
    assert fake.count("GET", f"/collaborators/{user}/permission") == 1


# --- gating ---------------------------------------------------------------------------------


def test_g1_catch_all_only_changes_are_not_applicable(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pr = pull(world)
    base = pr["base"]["sha"]
    head = sha("g1-head")
    world["commits"][head] = {"parents": [base], "files_from": base,
                              "files": {"utils/foo.py": "x = 1\n", "README.md": "# docs\n"}}
    pr["head"]["sha"], pr["commits"] = head, [head]
    fake = fake_github(world)
    result = run(fake, 3412, 5003)
    assert result.kind == "not-applicable" and result.status == "success"
    assert statuses(fake, head) == ["success"] and not verdicts(fake, 3412)
    assert fake.state.world["statuses"][head][-1]["description"].startswith("No sign-off needed")


@pytest.mark.parametrize("change,dispatched,expected", [
    ({"draft": True}, False, "skipped"),
    ({"state": "closed"}, False, "skipped"),
    ({"draft": True}, True, "verdict"),
])
def test_g2_draft_and_closed_prs(fake_github, seed000, change, dispatched, expected) -> None:
    world = copy.deepcopy(seed000)
    pull(world).update(change)
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table(), dispatched=dispatched)
    assert result.kind == expected
    if expected == "skipped":
        assert not fake.count("POST")


@pytest.mark.parametrize("permission", ["triage", "read"])
def test_g4_commenter_without_write_access(fake_github, seed000, permission) -> None:
    world = copy.deepcopy(seed000)
    world["collaborators"]["chunfangamd"] = {"permission": "read", "role_name": permission}
    fake = fake_github(world)
    result = run(fake, 3412, 5003)
    assert result.kind == "skipped" and "needs write access" in result.reason
    assert not fake.count("POST")


def test_g4_bot_authored_signoff_is_ignored(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pull(world)["comments"][2]["user"] = "helper[bot]"
    fake = fake_github(world)
    assert run(fake, 3412, 5003).kind == "skipped" and not fake.count("POST")


class MovingHead:
    """A client wrapper that pushes a new head when the PR is read for the n-th time."""

    def __init__(self, fake, new_sha, on_read):
        self.inner, self.fake, self.new_sha, self.on_read, self.reads = fake.client(), fake, new_sha, on_read, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def get_pull(self, repo, number, **kw):
        if number == 3412:
            self.reads += 1
            if self.reads == self.on_read:
                pull(self.fake.state.world)["head"]["sha"] = self.new_sha
        return self.inner.get_pull(repo, number, **kw)


def moving_world(seed000):
    world = copy.deepcopy(seed000)
    newer = sha("g5-newer")
    world["commits"][newer] = {"parents": [HEAD000], "files_from": HEAD000, "files": {"x.txt": "1\n"}}
    return world, newer


def test_g5_head_moves_while_scope_is_determined(fake_github, seed000) -> None:
    world, newer = moving_world(seed000)
    fake = fake_github(world)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(MovingHead(fake, newer, on_read=2), world["repo"], trigger,
                            publish.Options(now=NOW), core_table())
    assert result.kind == "error" and "head changed while determining scope; retry" in result.reason
    assert statuses(fake, HEAD000) == ["error"] and not verdicts(fake, 3412)


def test_g5_head_moves_during_verification(fake_github, seed000) -> None:
    world, newer = moving_world(seed000)
    fake = fake_github(world)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(MovingHead(fake, newer, on_read=3), world["repo"], trigger,
                            publish.Options(now=NOW), core_table())
    assert f"Assessed commit: `{HEAD000}`." in result.body
    assert f"The PR head moved to `{newer}` during verification; that newer commit was not assessed." in result.body
    assert statuses(fake, HEAD000)[-1] == "success" and newer not in fake.state.world["statuses"]


def test_g6_a_human_copy_of_the_marker_is_not_a_verdict(fake_github, seed000) -> None:
    body = run(fake_github(seed000), 3412, 5003, table=core_table()).body
    world = copy.deepcopy(seed000)
    pull(world)["comments"].append({"id": 5009, "user": "mallory", "author_association": "NONE",
                                    "body": body, "created_at": "2026-09-24T10:00:00Z",
                                    "updated_at": "2026-09-24T10:00:00Z"})
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert result.posted
    assert [c["user"] for c in verdicts(fake, 3412)] == ["mallory", "github-actions[bot]"]


def test_g7_an_invalid_verdict_is_replaced_by_a_retry_rejection(fake_github, seed000, monkeypatch) -> None:
    original = render.render

    def broken(verdict, context):
        text = original(verdict, context)
        return text.replace("✅ Check 0", "✅ Check 0 (CODEOWNER): PASS — twice\n\n✅ Check 0", 1)

    monkeypatch.setattr(render, "render", broken)
    fake = fake_github(seed000)
    result = run(fake, 3412, 5003, table=core_table())
    assert result.kind == "error" and result.status == "error"
    assert result.body.split("\n")[1] == "## ❌❌❌ **REJECTED** ❌❌❌"
    assert "could not be validated (Check 0 appears more than once); retry verification." in result.body
    assert statuses(fake, HEAD000)[-1] == "error" and len(verdicts(fake, 3412)) == 1


# --- faults: never PASS on missing evidence, always a final status ------------------------------


@pytest.mark.parametrize("fault,check", [
    ({"method": "GET", "path": "/check-runs", "status": 502}, "sweep"),
    ({"method": "GET", "path": "/actions/runs/35873197630/artifacts", "status": 502}, "evals"),
    ({"method": "GET", "path": "/actions/artifacts/.*/zip", "status": 502}, "evals"),
    ({"method": "GET", "path": "/check-runs", "status": 403, "headers": {"Retry-After": "1"},
      "message": "You have exceeded a secondary rate limit."}, "sweep"),
])
def test_unreadable_evidence_is_an_error_not_a_finding(fake_github, seed000, fault, check) -> None:
    """PRODUCT §4.8: evidence GitHub did not return gives `error` and a comment naming what
    could not be read: no verdict rows, no @-mentions, no advice to re-run sweeps."""
    world = copy.deepcopy(seed000)
    world["faults"] = [fault]
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert result.kind == "error" and result.verdict is None and result.evidence.unreadable
    assert result.status == "error" and statuses(fake, HEAD000)[-1] == "error"
    posted = verdicts(fake, 3412)
    assert len(posted) == 1 and posted[0]["body"] == result.body
    assert "could not be read" in result.body and "@" not in result.body.split("\n", 1)[1]
    assert "sweep" not in shown(result.body).lower().replace(fault["path"], "")
    assert run(fake, 3412, 5003, table=core_table()).posted is False  # no duplicate


def test_rate_limit_that_never_clears_ends_in_error(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["faults"] = [{"method": "GET", "path": "/pulls/3412/files", "status": 403,
                        "headers": {"Retry-After": "1"},
                        "message": "You have exceeded a secondary rate limit."}]
    fake = fake_github(world)
    result = run(fake, 3412, 5003)
    assert result.kind == "error" and "Could not determine sign-off scope" in result.reason
    assert statuses(fake, HEAD000) == ["error"] and not verdicts(fake, 3412)


def test_transient_502_is_retried_and_still_passes(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["faults"] = [{"method": "GET", "path": "/commits/.*/check-runs", "status": 502, "times": 1}]
    result = run(fake_github(world), 3412, 5003, table=core_table())
    assert rows(result)["sweep"] is Status.PASS


def test_404_team_membership_never_passes(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    tree = world["commits"][pull(world)["base"]["sha"]]
    base_sha = pull(world)["base"]["sha"]
    owners = "* @SemiAnalysisAI/core\nconfigs/amd-master.yaml @SemiAnalysisAI/amd-owners\n"
    world["commits"][base_sha] = tree | {"files": {"CODEOWNERS": owners}}
    world["teams"] = {"SemiAnalysisAI/core": ["functionstackx"]}  # amd-owners answers 404
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    # the team itself answers 404 too: this token cannot see it, so nothing is proven either
    # way and the run is an `error` telling admins what to configure (PRODUCT §4.8 Identity)
    assert result.kind == "error" and result.status == "error" and result.verdict is None
    assert "cannot be read with this token" in result.body and "GitHub App" in result.body
    assert fake.count("GET", "/teams/amd-owners/memberships/chunfangamd") >= 1


@pytest.mark.parametrize("mutate,text", [
    (lambda run_: run_["artifacts"].pop(0), "no eval_results_all artifact"),
    (lambda run_: run_["artifacts"][0].update(expired=True), "has expired"),
])
def test_missing_or_expired_artifact_rejects(fake_github, seed000, mutate, text) -> None:
    world = copy.deepcopy(seed000)
    mutate(world["workflow_runs"][0])
    result = run(fake_github(world), 3412, 5003, table=core_table())
    assert rows(result)["evals"] is Status.FAIL and text in result.body
    assert result.status == "failure"


def test_codeowners_errors_fail_scope_closed(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["codeowners_errors"] = [{"line": 1, "column": 3, "kind": "Unknown owner",
                                   "message": "Unknown owner on line 1"}]
    fake = fake_github(world)
    result = run(fake, 3412, 5003)
    assert result.kind == "error" and statuses(fake, HEAD000) == ["error"]


def test_truncated_file_listing_fails_scope_closed(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    extra = {f"docs/page{i}.md": f"page {i}\n" for i in range(120)}
    sweep_sha = pull(world)["commits"][0]
    world["commits"][sweep_sha]["files"].update(extra)
    world["faults"] = [{"method": "GET", "path": "/pulls/3412/files", "truncate": True}]
    fake = fake_github(world)
    result = run(fake, 3412, 5003)
    assert result.kind == "error" and "incomplete" in result.reason


def test_evidence_dump_round_trips_as_json(fake_github, seed000) -> None:
    from infx.signoff.evidence import to_json

    result = run(fake_github(seed000), 3412, 5003, table=core_table())
    data = json.loads(json.dumps(to_json(result.evidence)))
    assert data["pr"]["head_sha"] == HEAD000 and data["signoff"]["user"] == "chunfangamd"
    assert "base64" in json.dumps(data["artifacts"])


def test_a_crash_still_leaves_an_error_status(fake_github, seed000, monkeypatch) -> None:
    from infx.signoff import evidence as ev

    def crash(*args, **kwargs):
        raise KeyError("surprise")

    monkeypatch.setattr(ev.Context, "provide", crash)
    fake = fake_github(seed000)
    result = run(fake, 3412, 5003)
    assert result.kind == "error" and "KeyError" in result.reason
    assert statuses(fake, HEAD000) == ["error"] and not verdicts(fake, 3412)
    monkeypatch.undo()
    monkeypatch.setattr(publish, "decide", crash)  # after `pending`: still a final `error`
    result = run(fake, 3412, 5003)
    assert result.kind == "error" and "KeyError" in result.reason
    assert statuses(fake, HEAD000) == ["error", "pending", "error"] and not verdicts(fake, 3412)


def test_a_review_signoff_is_verified(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pr = pull(world)
    pr["reviews"] = [{"id": 201, "user": "chunfangamd", "state": "APPROVED", "body": pr["comments"][2]["body"],
                      "commit_id": HEAD000, "submitted_at": "2026-09-24T10:00:00Z"}]
    pr["comments"].pop(2)
    result = run(fake_github(world), 3412, 201, kind="review", table=core_table())
    assert result.verdict.overall.value == "PASS" and result.evidence.signoff.kind == "review"
    assert result.evidence.reviews is not None


def test_dispatch_of_a_comment_that_is_not_a_signoff_is_an_error(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    result = run(fake, 3412, 5002, dispatched=True)
    assert result.kind == "error" and "not a sign-off" in result.reason


def test_a_plain_comment_from_an_event_is_skipped(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    assert run(fake, 3412, 5002).kind == "skipped" and not fake.count("POST")


def test_an_inline_signoff_is_verified(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pr = pull(world)
    pr["review_comments"] = [{"id": 301, "user": "chunfangamd", "body": pr["comments"][2]["body"],
                              "path": "configs/amd-master.yaml", "line": 3,
                              "created_at": "2026-09-24T10:00:00Z"}]
    pr["comments"].pop(2)
    result = run(fake_github(world), 3412, 301, kind="review_comment", table=core_table())
    assert result.verdict.overall.value == "PASS" and result.evidence.signoff.kind == "review_comment"


def test_unreadable_head_tree_never_passes_evals_or_pareto(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["faults"] = [{"method": "GET", "path": f"/tarball/{HEAD000}", "status": 502}]
    result = run(fake_github(world), 3412, 5003, table=core_table())
    assert result.kind == "error" and "head tree" in result.evidence.unreadable
    assert "head tree" in result.body and result.status == "error"


def _eval_job(world, meta_extra=None, concs=None):
    """Replace eval_results_all of the seed's run with one per-job eval_* artifact."""
    run_ = world["workflow_runs"][0]
    run_["artifacts"] = [a for a in run_["artifacts"] if a["name"] != "eval_results_all"]
    meta = {"infmax_model_prefix": "minimaxm3", "hw": "mi355x-amds_0", "framework": "atom",
            "precision": "fp4", "conc": 48} | (meta_extra or {})
    result = {"results": {"minimax_m3_full": {"exact_match,strict-match": 0.97}},
              "n-samples": {"minimax_m3_full": {"original": 102, "effective": 102}}}
    names = [f"results_2026-09-23T16-20-00_conc{c}.json" for c in concs] if concs else \
        ["results_2026-09-23T16-20-00.json"]
    files = {"meta_env.json": meta} | {name: result for name in names}
    run_["artifacts"].append({"name": "eval_minimaxm3_tp4_c48", "expired": False, "files": files})


def test_per_job_eval_artifacts_replace_a_missing_aggregate(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    _eval_job(world)
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert rows(result)["evals"] is Status.PASS and result.status == "success"
    # HTTP requests, as served (an artifact download is two: the API's redirect, the storage host)
    assert "per-job eval artifact" in result.body
    assert result.api_calls == len(fake.requests) <= 40


def test_a_failed_batched_eval_conc_rejects_through_the_server(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    _eval_job(world, {"eval_concs": [24, 48], "completed_eval_concs": [24],
                      "failed_eval_concs": [48]}, concs=[24])
    result = run(fake_github(world), 3412, 5003, table=core_table())
    assert rows(result)["evals"] is Status.FAIL and "[48] failed" in shown(result.body)
    assert result.status == "failure"


def test_every_status_set_is_reported_to_the_recorder(fake_github, seed000) -> None:
    seen = []
    world = seed000
    fake = fake_github(copy.deepcopy(world))
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    options = publish.Options(now=NOW, on_status=lambda state, sha_: seen.append((state, sha_)))
    result = publish.verify(fake.client(), world["repo"], trigger, options, core_table())
    assert result.status == "success" and seen == [("pending", HEAD000), ("success", HEAD000)]


def test_when_even_the_error_status_fails_the_record_stays_pending_for_the_guard(
        fake_github, seed000, monkeypatch) -> None:

    def crash(*args, **kwargs):
        raise KeyError("surprise")

    monkeypatch.setattr(publish, "decide", crash)  # after the `pending` status
    seen = []
    fake = fake_github(copy.deepcopy(seed000))
    client = fake.client()
    real = client.create_status

    def no_error_status(repo, sha_, state, *args, **kwargs):
        if state == "error":
            raise RuntimeError("statuses API down")
        return real(repo, sha_, state, *args, **kwargs)

    monkeypatch.setattr(client, "create_status", no_error_status)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    options = publish.Options(now=NOW, on_status=lambda state, sha_: seen.append(state))
    result = publish.verify(client, seed000["repo"], trigger, options)
    assert result.kind == "error" and "could not be set" in result.reason
    assert seen == ["pending"]  # the workflow's always() step turns this into `error`


@pytest.mark.parametrize("cap", [5, 8, 12, 16])
def test_an_exhausted_read_budget_never_passes_and_never_leaves_pending(fake_github, seed000, cap) -> None:
    table = load_table()
    table = replace(table, settings=replace(table.settings, max_api_calls=cap))
    fake = fake_github(copy.deepcopy(seed000))
    result = run(fake, 3412, 5003, table=table)
    assert result.status in ("failure", "error")
    assert statuses(fake, HEAD000)[-1] in ("failure", "error")
    if result.verdict is not None:
        assert result.verdict.overall.value == "REJECTED" and "budget" in result.body


def test_a_pr_into_another_branch_is_never_verified(fake_github, seed000) -> None:
    """PRODUCT §4.8 scope (issue 12 case 3): a side branch whose CODEOWNERS names the author
    must not put a status on a head commit that a PR into main shares."""
    world = copy.deepcopy(seed000)
    main = world["branches"]["main"]
    release = sha("release-tip")
    owners = "* @chunfangamd\n"
    world["commits"][release] = {"parents": [main], "message": "release branch", "files_from": main,
                                 "files": {"CODEOWNERS": owners}}
    world["branches"]["release"] = release
    pull(world)["base"] = {"ref": "release", "sha": main}
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert result.kind == "skipped" and "only PRs into the default branch" in result.reason
    assert statuses(fake, HEAD000) == [] and not verdicts(fake, 3412)
    assert fake.count("GET", "/branches/release") == 0


def test_a_verdict_post_that_fails_after_being_applied_is_not_duplicated(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["faults"] = [{"method": "POST", "path": "/issues/3412/comments$", "status": 502,
                        "apply": True, "times": 1}]
    fake = fake_github(world)
    result = run(fake, 3412, 5003, table=core_table())
    assert result.status == "success" and len(verdicts(fake, 3412)) == 1
    assert statuses(fake, HEAD000) == ["pending", "success"]


def test_a_verdict_on_hundreds_of_keys_is_posted_whole(fake_github, seed000) -> None:
    """The rendered comment goes through the real client and fake: every row and the closing line
    arrive, none cut off by GitHub's comment limit (rows show what fits, render.ROW_CHARS)."""
    world = copy.deepcopy(seed000)
    files = world["commits"][pull(world)["commits"][0]]["files"]
    key = "minimaxm3-fp4-mi355x-atom-agentic-mtp"  # the entry seed 000's PR changes
    master = files["configs/amd-master.yaml"]
    block = master[master.index(f"{key}:"):].rstrip("\n")
    grown = [f"{key}-g{i:03d}" for i in range(300)]
    files["configs/amd-master.yaml"] = master.rstrip("\n") + "\n" + "".join(
        "\n" + block.replace(f"{key}:", f"{name}:", 1) + "\n" for name in grown)
    files["perf-changelog.yaml"] = files["perf-changelog.yaml"].replace(
        f"    - {key}\n", f"    - {key}\n" + "".join(f"    - {name}\n" for name in grown))
    fake = fake_github(world)
    result = run(fake, 3412, 5003)
    assert result.verdict.overall.value == "PASS", result.body
    assert any(len(row.outcome.reason) > render.ROW_CHARS for row in result.verdict.rows)
    [posted] = verdicts(fake, 3412)
    assert posted["body"] == result.body and len(posted["body"]) <= 65_536
    assert render.validate(posted["body"], load_table(), CONTEXT) == []
    assert posted["body"].endswith(f"Assessed commit: `{HEAD000}`.\n")
