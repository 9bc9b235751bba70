"""The trust model of the verdict (PRODUCT §4.8): each trust_*.yaml world replayed on the
fake server, through the live code path (GitHub's clock, PyGithub on loopback)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from lib.scripts import load_script

from infx import yamlio
from infx.signoff import pipeline as publish
from infx.signoff.model import Status
from infx.signoff.trigger.gating import SignoffRef, Trigger

CONTEXT = "codeowner-signoff-verify"
SEED_HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
WORLDS_DIR = Path(__file__).resolve().parents[1] / "data/worlds"
# every world the generator writes (so adding one there is enough to have it checked)
WORLDS = tuple(sorted(p.name for p in WORLDS_DIR.glob("trust_*.yaml")))
SEED_SWEEP = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"  # seed 000's swept commit
RUN_ID = 35873197630


def load(request, name: str) -> dict:
    return yamlio.load_file(request.config.rootpath / "tests/data/worlds" / name)


def verify(fake, pr: int = 3412, comment_id: int = 5003, *, kind: str = "issue_comment",
           actor: str | None = None, dispatched: bool = False) -> publish.Result:
    """Verify as the workflow does against GitHub: no replay clock is passed in."""
    trigger = Trigger(True, "test", pr, SignoffRef(kind, comment_id), actor=actor, dispatched=dispatched)
    return publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options())


def rows(result: publish.Result) -> dict[str, Status]:
    return {row.spec.id: row.status for row in result.verdict.rows}


def reason(result: publish.Result, check: str) -> str:
    return next(row.outcome.reason for row in result.verdict.rows if row.spec.id == check)


def statuses(fake, sha: str = SEED_HEAD) -> list[str]:
    return [s["state"] for s in fake.world["statuses"].get(sha, []) if s["context"] == CONTEXT]


@pytest.fixture(scope="module")
def generated(request, tmp_path_factory) -> Path:
    """The folder make_trust_worlds.py writes every world into (run once for all the worlds)."""
    module = load_script(request.config.rootpath / "tests/data/worlds/make_trust_worlds.py", "make_trust_worlds")
    folder = tmp_path_factory.mktemp("trust-worlds")
    assert module.main([str(folder)]) == 0
    return folder


def test_the_generator_writes_exactly_the_committed_worlds(generated) -> None:
    assert tuple(sorted(p.name for p in generated.glob("trust_*.yaml"))) == WORLDS


@pytest.mark.parametrize("name", WORLDS)
def test_committed_world_matches_the_generator(request, generated, name) -> None:
    assert yamlio.load_file(generated / name) == load(request, name)


# --- case 12: the evidence's clock ------------------------------------------------------------


def test_check_7_judges_on_the_worlds_date_not_the_hosts(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_clock.yaml"))
    result = verify(fake)
    assert rows(result)["deprecated"] == Status.PASS
    assert "active on 2026-09-24" in reason(result, "deprecated")
    assert result.verdict.overall.value == "PASS" and statuses(fake) == ["pending", "success"]


def test_the_same_world_a_day_after_the_deprecation_fails_check_7(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_clock.yaml"))
    world["now"] = "2026-11-01T09:00:00Z"
    result = verify(fake_github(world))
    assert rows(result)["deprecated"] == Status.FAIL
    assert "deprecated after 2026-10-31" in reason(result, "deprecated")
    assert "review date 2026-11-01" in reason(result, "deprecated")


def test_no_server_clock_is_an_error_not_the_hosts_clock(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_clock.yaml"))
    client = fake.client()
    client.server_time = lambda: None  # a server that sends no Date header
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(client, fake.world["repo"], trigger, publish.Options())
    assert result.kind == "error" and "clock" in result.reason
    assert statuses(fake)[-1] == "error"


# --- case 8: untrusted text is rendered inert -------------------------------------------------


def test_an_injected_script_line_renders_as_plain_text(request, fake_github) -> None:
    from lib.comment_html import BOT_TAGS, MENTION, rendered

    fake = fake_github(load(request, "trust_injection.yaml"))
    result = verify(fake)
    assert result.verdict.overall.value == "REJECTED" and rows(result)["golden"] == Status.FAIL
    posted = next(c["body"] for c in fake.world["pulls"][0]["comments"] if c["body"] == result.body)
    html = rendered(posted)
    assert set(html.tags) <= BOT_TAGS | {"!--"} and html.tags.count("h2") == 1
    shown = "".join(html.text)
    assert "</details><h1>" in shown.replace("\u200b", "")  # quoted as text, visibly
    assert set(MENTION.findall(shown)) == {"@chunfangamd"}  # the signer's blocking line only
    assert "✅ PASS" not in shown and "&#x2705;" in shown.replace("\u200b", "")


# --- case 7: unreadable evidence is an error, not a finding -----------------------------------


@pytest.mark.parametrize("name", ["trust_outage.yaml", "trust_rate_limit.yaml"])
def test_unreadable_check_runs_give_error_without_mentions_or_sweep_advice(request, fake_github,
                                                                           name) -> None:
    fake = fake_github(load(request, name))
    result = verify(fake)
    assert result.kind == "error" and result.verdict is None and result.status == "error"
    assert statuses(fake) == ["error"]  # no `pending` first: the evidence was already unreadable
    posted = [c["body"] for c in fake.world["pulls"][0]["comments"] if c["user"] == "github-actions[bot]"
              and c["body"].startswith("<!-- " + CONTEXT)]
    assert posted == [result.body]
    text = result.body.split("\n", 1)[1]
    assert "could not be read" in text and "check-runs" in text
    assert "@" not in text and "sweep" not in text.lower() and "/use" not in text
    assert verify(fake).posted is False and statuses(fake)[-1] == "error"  # no duplicate


def test_the_rate_limit_wait_is_bounded_and_shared_by_the_run(request, fake_github) -> None:
    """Reset in 2100: the client gives up at once instead of sleeping (one budget per run)."""
    fake = fake_github(load(request, "trust_rate_limit.yaml"))
    slept: list[float] = []
    client = fake.client(sleep=slept.append, max_wait=30)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(client, fake.world["repo"], trigger, publish.Options())
    assert result.status == "error" and sum(slept) <= 30


# --- Check `codeowner` on catch-all-only paths; case 11 (no GitHub App); case 3 (side branch) -------------


def test_catch_all_only_pr_passes_for_an_active_member_of_a_listed_team(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_catch_all_team.yaml"))
    result = verify(fake)
    assert rows(result)["codeowner"] == Status.PASS
    assert "@chunfangamd is a recognised CODEOWNER" in reason(result, "codeowner")
    assert result.verdict.overall.value == "PASS" and statuses(fake) == ["pending", "success"]
    # the core team first (a 404, not proven: another team may still make it a yes), then
    # amd-owners, where the lookups stop
    assert fake.count("GET", "/teams/core/memberships/chunfangamd") == 1
    assert fake.count("GET", "/teams/amd-owners/memberships/chunfangamd") == 1
    assert fake.count("GET", "/orgs/semianalysisai/teams/core") == 1  # the membership only


def test_catch_all_only_pr_rejects_a_signer_in_no_listed_team(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_catch_all_team.yaml"))
    world["teams"]["SemiAnalysisAI/amd-owners"] = ["yhl-amd"]
    fake = fake_github(world)
    result = verify(fake)
    # answered (why), but a non-owner's sign-off never sets the status (case 4)
    assert result.kind == "not-owner" and result.posted and statuses(fake) == []
    assert "nor an active member of a team it lists" in result.body


def test_a_non_owners_signoff_never_replaces_the_owners_success(request, fake_github) -> None:
    """Case 4: the CODEOWNER's sign-off sets `success`; a write user who owns nothing then
    posts the sign-off phrase on the same head and gets the not-owner answer, while the
    head's status stays the owner's `success`."""
    fake = fake_github(load(request, "trust_non_owner_overwrite.yaml"))
    owner = verify(fake)
    assert owner.verdict.overall.value == "PASS" and statuses(fake) == ["pending", "success"]
    before = copy.deepcopy(fake.world["statuses"][SEED_HEAD])
    other = verify(fake, comment_id=5004)
    assert other.kind == "not-owner" and other.posted and other.status is None
    assert "rocm-perf-dev is not" in other.body.replace("\u200b", "")
    assert fake.world["statuses"][SEED_HEAD] == before  # nothing new: still the owner's success
    # a dispatched re-verification of the non-owner's comment (by an admin) changes nothing either
    again = verify(fake, comment_id=5004, actor="functionstackx", dispatched=True)
    assert again.status is None and fake.world["statuses"][SEED_HEAD] == before
    # and the owner's verdict comment is still the newest verdict of ours for the head
    bot = [c for c in fake.world["pulls"][0]["comments"] if c["user"] == "github-actions[bot]"
           and c["body"].startswith("<!-- " + CONTEXT)]
    assert owner.body in [c["body"] for c in bot]


def test_without_the_app_unreadable_team_membership_is_an_error_for_admins(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_no_app.yaml"))
    result = verify(fake)
    assert result.kind == "error" and result.verdict is None and statuses(fake)[-1] == "error"
    assert "cannot be read with this token" in result.body
    assert "organization permission members: read: an admin must install the sign-off GitHub App" in result.body
    assert "run a full sweep" not in result.body and "@chunfangamd" not in result.body


def test_a_pr_into_a_side_branch_never_gets_a_status(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_side_branch.yaml"))
    result = verify(fake, pr=3413, comment_id=5103)
    assert result.kind == "skipped" and "not the default branch main" in result.reason
    assert statuses(fake) == [] and fake.count("POST") == 0
    # the same head's PR into main is still judged by main's CODEOWNERS
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake) == ["pending", "success"]


# --- case 6: strict changelog validation is part of the verdict -------------------------------


def test_a_tbd_pr_link_is_rejected_with_the_changelog_line(request, fake_github) -> None:
    world = load(request, "trust_changelog_tbd.yaml")
    fake = fake_github(world)
    result = verify(fake)
    assert result.verdict.overall.value == "REJECTED" and statuses(fake) == ["pending", "failure"]
    assert {check for check, status in rows(result).items() if status == Status.FAIL} == {"append"}
    text = world["commits"][SEED_SWEEP]["files"]["perf-changelog.yaml"]
    line = text.split("\n").index("  pr-link: TBD") + 1
    why = reason(result, "append")
    assert why.startswith(f"strict changelog validation failed: perf-changelog.yaml:{line}: ")
    assert "'TBD' is not a placeholder" in why and "Fix: write 'pr-link: " in why
    assert f"perf-changelog.yaml:{line}: new PR entry" in result.body.replace("\u200b", "")


# --- case 1: provenance -----------------------------------------------------------------------


def _plain(text: str) -> str:
    from infx.inert import unwrap

    return unwrap(text).replace("\u200b", "")


def test_a_fork_prs_forged_sweep_never_counts(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_fork_forged.yaml"))
    result = verify(fake)
    assert result.verdict is not None, (result.kind, result.reason)
    assert result.verdict.overall.value == "REJECTED" and statuses(fake) == ["pending", "failure"]
    assert rows(result)["sweep"] == Status.FAIL and rows(result)["evals"] == Status.FAIL
    row = next(r for r in result.verdict.rows if r.spec.id == "sweep")
    aside = [d for d in row.outcome.details if d.startswith(f"set aside: run {RUN_ID} — ")]
    assert aside and "mallory/InferenceX, not SemiAnalysisAI/InferenceX (a fork's runs never count)" in aside[0]
    assert f"set aside: run {RUN_ID}" in _plain(result.body)
    # nothing of the forged run is read beyond GitHub's record of it
    assert fake.count("GET", rf"/actions/runs/{RUN_ID}/(jobs|artifacts)$") == 0


@pytest.mark.parametrize("name, why", [
    ("trust_side_base_run.yaml", "it was created while PR #3415 from the same branch into scratch was open"),
    ("trust_retargeted_run.yaml", "the PR's base was changed at 2026-09-23T14:00:00Z, after it was created"),
])
def test_a_run_for_a_pr_into_another_base_is_set_aside(request, fake_github, name, why) -> None:
    """GitHub runs a pull_request workflow from the head merged into the PR's base: with the head
    branch also heading a PR into a branch whose run-sweep.yml is the author's (or the PR
    retargeted there while its sweep ran), the run's commit has our sweep files, yet what ran
    was that branch's file. Its green jobs are no sweep of ours."""
    fake = fake_github(load(request, name))
    result = verify(fake)
    assert result.verdict.overall.value == "REJECTED" and statuses(fake) == ["pending", "failure"]
    assert rows(result)["sweep"] == Status.FAIL
    row = next(r for r in result.verdict.rows if r.spec.id == "sweep")
    assert any(d.startswith(f"set aside: run {RUN_ID} — {why}") for d in row.outcome.details)


@pytest.mark.parametrize("change, why", [
    ("same-repo", "has sweep workflow files that differ from the default branch's "
                  "(.github/workflows/run-sweep.yml)"),
    ("other-workflow", "it is a run of .github/workflows/pwn.yml, not .github/workflows/run-sweep.yml"),
    # a dispatch on the PR's branch: not a fork sweep (that runs on the default branch, infx.trust)
    ("dispatch", "it was dispatched on yhl-amd/minimaxm3-flydsl, not on main"),
    ("push-branch", "started by a push to yhl-amd/minimaxm3-flydsl, not the merge-time push to main"),
    ("template", "(.github/workflows/benchmark-tmpl.yml)"),
])
def test_runs_of_other_or_modified_workflows_are_set_aside(request, fake_github, change, why) -> None:
    world = copy.deepcopy(load(request, "trust_fork_forged.yaml"))
    run = next(r for r in world["workflow_runs"] if r["id"] == RUN_ID)
    world["pulls"][0]["head"]["repo"] = world["repo"]  # not a fork
    for each in world["workflow_runs"]:
        if each.get("head_repository") is not None:
            each["head_repository"] = world["repo"]
    files = world["commits"][SEED_SWEEP]["files"]
    if change != "same-repo":
        del files[".github/workflows/run-sweep.yml"]  # the default branch's own file again
    if change == "other-workflow":
        run["path"] = ".github/workflows/pwn.yml"
    elif change == "dispatch":
        run["event"] = "workflow_dispatch"
    elif change == "push-branch":
        run["event"] = "push"
    elif change == "template":
        files[".github/workflows/benchmark-tmpl.yml"] = "name: Benchmark\non: workflow_call\njobs: {}\n"
    fake = fake_github(world)
    result = verify(fake)
    assert rows(result)["sweep"] == Status.FAIL and statuses(fake)[-1] == "failure"
    row = next(r for r in result.verdict.rows if r.spec.id == "sweep")
    assert any(d.startswith(f"set aside: run {RUN_ID} — ") and why in d for d in row.outcome.details), \
        row.outcome.details


def test_the_seed_run_of_our_unmodified_workflow_still_counts(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_fork_forged.yaml"))
    world["pulls"][0]["head"]["repo"] = world["repo"]
    for each in world["workflow_runs"]:
        if each.get("head_repository") is not None:
            each["head_repository"] = world["repo"]
    del world["commits"][SEED_SWEEP]["files"][".github/workflows/run-sweep.yml"]
    result = verify(fake_github(world))
    assert rows(result)["sweep"] == Status.PASS and result.verdict.overall.value == "PASS"


def test_newer_runs_of_another_workflow_never_hide_ours(request, fake_github) -> None:
    """Four newer green runs of an added workflow on the swept commit, jobs named like ours:
    set aside by their records (which the branch listing already holds), they do not use up
    the per-commit cap, so our run is still judged and counts."""
    world = copy.deepcopy(load(request, "trust_clock.yaml"))
    ours = next(r for r in world["workflow_runs"] if r["id"] == RUN_ID)
    jobs = world["check_runs"][SEED_SWEEP]
    for k in range(1, 5):
        run_id = RUN_ID + k
        world["workflow_runs"].append({key: ours[key] for key in ("name", "event", "status", "conclusion",
                                                                "head_sha", "head_branch", "created_at")}
                                      | {"id": run_id, "path": ".github/workflows/pwn.yml"})
        for i, name in enumerate(("agentic / x", "eval / x")):
            jobs.append({"id": 990000 + 10 * k + i, "name": name, "status": "completed",
                         "conclusion": "success", "completed_at": "2026-09-23T18:00:00Z",
                         "run_id": run_id,
                         "details_url": f"https://github.com/{world['repo']}/actions/runs/{run_id}/job/{i}"})
    fake = fake_github(world)
    result = verify(fake)
    assert rows(result)["sweep"] == Status.PASS and result.verdict.overall.value == "PASS"
    why = _plain(reason(result, "sweep"))
    for k in range(1, 5):
        assert f"set aside: run {RUN_ID + k} — it is a run of .github/workflows/pwn.yml" in why
    assert fake.count("GET", r"/actions/runs/\d+$") == 0  # the listing held every record
    assert fake.count("GET", rf"/actions/runs/{RUN_ID + 1}/jobs$") == 0


# --- case 5: drift between the swept commit and the head --------------------------------------


def test_a_recipe_changed_after_the_sweep_fails_check_1_naming_the_file(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_drift.yaml"))
    result = verify(fake)
    assert result.verdict.overall.value == "REJECTED" and statuses(fake) == ["pending", "failure"]
    assert rows(result)["sweep"] == Status.FAIL
    why = _plain(reason(result, "sweep"))
    assert why.startswith("benchmark-affecting content changed after the sweep: the head 296a93ad "
                          "differs from the swept commit 7bbb0ec7 in "
                          "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh. Fix: ")


def test_a_benchmark_neutral_head_passes_saying_what_differs(request, fake_github) -> None:
    """Seed 000's head only merges main (utils/telemetry.py) after the sweep: the PR changes the
    file at neither commit (their compares with main), so it is the default branch's change,
    named as neutral."""
    fake = fake_github(load(request, "trust_clock.yaml"))
    result = verify(fake)
    assert rows(result)["sweep"] == Status.PASS
    why = _plain(reason(result, "sweep"))
    assert why.endswith("the head 296a93ad differs from it only in utils/telemetry.py (benchmark-neutral: no "
                        "sweep job runs them, or the default branch changed them and a merge brought them in).")


def test_a_config_change_after_the_sweep_names_the_config_key(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_clock.yaml"))
    files = world["commits"][SEED_HEAD]["files"]
    master = world["commits"][SEED_SWEEP]["files"]["configs/amd-master.yaml"]
    files["configs/amd-master.yaml"] = master.replace("nightly_202609231248", "nightly_202609240101")
    result = verify(fake_github(world))
    assert rows(result)["sweep"] == Status.FAIL
    assert "configs/amd-master.yaml [minimaxm3-fp4-mi355x-atom-agentic-mtp]" in _plain(reason(result, "sweep"))
# --- case 2: binding (the sign-off is this PR's, and covers the head it was posted on) ----------

PUSHED = "c0ffee0000000000000000000000000000000002"
OTHER = "c0ffee0000000000000000000000000000000003"
MERGED = "c0ffee0000000000000000000000000000000005"


@pytest.mark.parametrize("actor", ["yhl-amd", "functionstackx"])  # the author; an admin
def test_a_signoff_of_another_pr_never_gives_a_status(request, fake_github, actor) -> None:
    fake = fake_github(load(request, "trust_replay_other_pr.yaml"))
    result = verify(fake, pr=3414, actor=actor, dispatched=True)
    assert result.kind == "skipped" and result.status is None
    assert "is on PR #3412, not on PR #3414" in result.reason
    assert statuses(fake, OTHER) == [] and fake.count("POST") == 0


@pytest.mark.parametrize("actor", ["yhl-amd", "chunfangamd", "functionstackx", None])
def test_a_push_after_the_signoff_needs_a_new_signoff(request, fake_github, actor) -> None:
    # the author (write) may not dispatch; the signer, an admin, or the comment event itself
    # are refused because the head's own changes differ from what was signed
    fake = fake_github(load(request, "trust_push_after_signoff.yaml"))
    result = verify(fake, actor=actor, dispatched=actor is not None)
    assert result.kind == "skipped" and statuses(fake, PUSHED) == [] and fake.count("POST") == 0
    if actor == "yhl-amd":
        assert "is not the signer (@chunfangamd)" in result.reason and "maintainer or admin" in result.reason
    else:
        assert "posted when the PR head was 296a93ad6c8f" in result.reason
        assert f"differ in {'benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh'}" in result.reason


def test_a_plain_merge_of_main_inherits_the_signoff(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_merge_after_signoff.yaml"))
    result = verify(fake, actor="chunfangamd", dispatched=True)
    assert result.verdict.overall.value == "PASS" and statuses(fake, MERGED) == ["pending", "success"]
    final = fake.world["statuses"][MERGED][-1]
    assert "carried from 296a93ad6c8f" in final["description"] and len(final["description"]) <= 140
    assert fake.count("GET", "/compare/main...296a93ad6c8fa017e83fb5f404f09f2efc16e1c4") == 1


MOVED = "c0ffee0000000000000000000000000000000010"
MERGED4 = "c0ffee0000000000000000000000000000000012"
SIGNED_COMPARE = "/compare/main...296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"


def test_the_same_change_moved_to_a_repeated_block_needs_a_new_signoff(request, fake_github) -> None:
    """The PR's diff keeps its text (hunk and context lines) but sits at other lines of a file
    main did not change: the signed change was for the other block, so nothing is carried."""
    fake = fake_github(load(request, "trust_moved_change_after_signoff.yaml"))
    result = verify(fake, actor="chunfangamd", dispatched=True)
    assert result.kind == "skipped" and statuses(fake, MOVED) == [] and fake.count("POST") == 0
    assert ("the PR's change to docs/notes.md is the same text at other lines of the file, where the "
            "default branch's change of the file since does not move it: the change itself moved") in result.reason
    # the signed head's compare, the head's (its merge base), main's change between the two
    # bases, and the swept commit's (drift: the PR's own changes there)
    assert fake.count("GET", SIGNED_COMPARE) == 1 and fake.count("GET", "/compare/") == 4
    # nor is a verdict on the signed head carried to it as the new head's required status
    pull = fake.world["pulls"][0]
    commits = pull["commits"]
    pull["head"]["sha"], pull["commits"] = SEED_HEAD, commits[:commits.index(SEED_HEAD) + 1]
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    pull["head"]["sha"], pull["commits"] = MOVED, commits
    head = publish.head_status(fake.client(), fake.world["repo"], 3412)
    assert head.status == "pending" and statuses(fake, MOVED) == ["pending"]
    assert "the change itself moved" in head.reason


def test_a_merge_of_main_that_moves_the_lines_around_the_change_inherits(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_shifting_merge_after_signoff.yaml"))
    result = verify(fake, actor="chunfangamd", dispatched=True)
    assert result.verdict.overall.value == "PASS" and statuses(fake, MERGED4) == ["pending", "success"]
    assert "carried from 296a93ad6c8f" in fake.world["statuses"][MERGED4][-1]["description"]
    assert fake.count("GET", SIGNED_COMPARE) == 1 and fake.count("GET", "/compare/") == 4  # and the swept commit's


# --- case 10: the status on every new head ----------------------------------------------------

AFTER_MERGE = "c0ffee0000000000000000000000000000000006"
DOCS_PR = "c0ffee0000000000000000000000000000000007"


MAIN2 = "c0ffee0000000000000000000000000000000004"


def move_head(fake, sha: str, pr: int = 3412) -> None:
    """A push: the new head, and the base GitHub diffs it against (main, merged in)."""
    pull = next(p for p in fake.world["pulls"] if p["number"] == pr)
    pull["head"]["sha"], pull["commits"] = sha, [*pull["commits"], sha]
    pull["base"]["sha"] = MAIN2


def test_every_new_head_gets_the_required_status(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_head_moves.yaml"))
    client, repo = fake.client(), fake.world["repo"]
    # before any sign-off: pending "not verified"
    first = publish.head_status(client, repo, 3412)
    assert first.status == "pending" and statuses(fake) == ["pending"]
    assert fake.world["statuses"][SEED_HEAD][-1]["description"].startswith("Not verified")
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    # a plain merge of main: carried forward, naming the verified head
    move_head(fake, MERGED)
    carried = publish.head_status(client, repo, 3412)
    assert carried.status == "success" and statuses(fake, MERGED) == ["success"]
    assert fake.world["statuses"][MERGED][-1]["description"] == (
        "CODEOWNER sign-off carried from 296a93ad6c8f (same PR changes).")
    # the author's own change on top: pending until a new sign-off
    move_head(fake, AFTER_MERGE)
    changed = publish.head_status(client, repo, 3412)
    assert changed.status == "pending" and statuses(fake, AFTER_MERGE) == ["pending"]
    assert "differ in benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh" in changed.reason
    # a PR that touches only core-owned files: success, no sign-off needed
    docs = publish.head_status(client, repo, 3415)
    assert docs.status == "success" and statuses(fake, DOCS_PR) == ["success"]
    assert fake.world["statuses"][DOCS_PR][-1]["description"].startswith("No sign-off needed")


def test_a_rejected_newest_verdict_is_never_carried(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_head_moves.yaml"))
    fake = fake_github(world)
    assert verify(fake).verdict.overall.value == "PASS"
    # a later verdict on the same head rejects (the signer's corrected sign-off failed)
    pull = fake.world["pulls"][0]
    bad = next(c for c in pull["comments"] if c["id"] == 5003) | {
        "id": 5009, "created_at": "2026-09-24T11:00:00Z", "updated_at": "2026-09-24T11:00:00Z"}
    bad["body"] = bad["body"].replace("- [x]", "- [ ]", 1)
    pull["comments"].append(bad)
    rejected = verify(fake, comment_id=5009)
    assert rejected.verdict is not None and rejected.verdict.overall.value == "REJECTED", rejected.reason
    move_head(fake, MERGED)
    assert publish.head_status(fake.client(), fake.world["repo"], 3412).status == "pending"


@pytest.mark.parametrize("payload", [
    {"action": "synchronize", "number": 3415},
    # a changed sign-off (workflow job `reset`): the PR comes from the issue or the pull request
    {"action": "deleted", "issue": {"number": 3415, "pull_request": {"url": "u"}},
     "comment": {"id": 1, "body": "As a PR reviewer and CODEOWNER", "user": {"login": "a"}}},
    {"action": "edited", "pull_request": {"number": 3415}, "review": {"id": 2, "body": ""}},
], ids=["pull_request", "issue_comment", "pull_request_review"])
def test_head_status_from_the_cli_with_a_pull_request_event(request, tmp_path, payload) -> None:
    import json

    from infx.cli import main

    world = tmp_path / "world.yaml"
    world.write_text((WORLDS_DIR / "trust_head_moves.yaml").read_text(), encoding="utf-8")
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    state = tmp_path / "state"
    assert main(["signoff", "head-status", "--world", str(world), "--event", str(event),
                 "--state-file", str(state)]) == 0
    assert state.read_text() == f"success {DOCS_PR}\n"


# --- case 14: a published recipe page, judged on its upstream source file ---------------------

PAGE = "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5"
PAGE_SOURCE = "/repos/sgl-project/sglang/contents/docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx"


def verify_page(fake) -> publish.Result:
    return verify(fake, pr=3601, comment_id=9601)


def _with_link(world: dict, link: str) -> dict:
    world = copy.deepcopy(world)
    comment = world["pulls"][0]["comments"][0]
    comment["body"] = comment["body"].replace(PAGE, link)
    return world


def test_a_published_cookbook_page_is_checked_on_its_source_file(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_recipe_page.yaml"))
    result = verify_page(fake)
    assert rows(result)["recipe"] == Status.PASS
    assert (f"{PAGE} (source sgl-project/sglang/docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx at main) "
            "is published and lists the production settings") in reason(result, "recipe")
    # the page itself is never fetched: one contents read of the mapped file at the mapped ref
    reads = [r for r in fake.requests if "/repos/sgl-project/" in r["path"]]
    assert [(r["method"], r["path"]) for r in reads] == [("GET", PAGE_SOURCE)]
    assert result.verdict.overall.value == "REJECTED"  # scenario 6's own findings (no sweep, AL)


def test_a_page_whose_settings_differ_fails_check_3(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_recipe_page.yaml"))
    files = world["external"]["sgl-project/sglang"]["files"]["main"]
    path = PAGE_SOURCE.split("/contents/", 1)[1]
    files[path] = files[path].replace("--tp 4", "--tp 8")
    result = verify_page(fake_github(world))
    assert rows(result)["recipe"] == Status.FAIL
    assert "lacks agg: --tensor-parallel-size 4" in reason(result, "recipe")


@pytest.mark.parametrize("link", [
    "https://rocm.blogs.amd.com/artificial-intelligence/qwen35-mi355x/README.html",
    "https://docs.sglang.io/cookbook/autoregressive/../../../.github/workflows/run-sweep",
    "https://docs.sglang.io@collector.example/cookbook/autoregressive/Qwen/Qwen3.5",
])
def test_unmapped_or_hostile_page_links_read_nothing_and_fail_closed(request, fake_github, link) -> None:
    fake = fake_github(_with_link(load(request, "trust_recipe_page.yaml"), link))
    result = verify_page(fake)
    assert rows(result)["recipe"] == Status.FAIL and result.status == "failure"
    assert "configs/policy/recipe-pages.yaml" in " ".join(
        next(row.outcome.details for row in result.verdict.rows if row.spec.id == "recipe"))
    assert not [r for r in fake.requests if "/repos/sgl-project/" in r["path"]]


def test_a_page_whose_source_is_gone_fails_and_an_unreadable_one_is_an_error(request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_recipe_page.yaml"))
    world["external"]["sgl-project/sglang"]["files"]["main"] = {}
    gone = verify_page(fake_github(world))
    assert rows(gone)["recipe"] == Status.FAIL and "which does not exist" in " ".join(
        next(row.outcome.details for row in gone.verdict.rows if row.spec.id == "recipe"))
    world = copy.deepcopy(load(request, "trust_recipe_page.yaml"))
    world["faults"] = [{"method": "GET", "path": "^/repos/sgl-project/sglang/contents/", "status": 502}]
    fake = fake_github(world)
    outage = verify_page(fake)
    assert outage.kind == "error" and outage.status == "error"
    assert "@" not in outage.body.split("\n", 1)[1]
    assert "page:sgl-project/sglang/docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx at main" in outage.body


# --- case 9: Check `reuse` decides as the reuse resolver does ---------------------------------------


def test_a_read_only_members_reuse_command_is_refused_by_check_4_and_the_resolver(request, fake_github) -> None:
    """Case 9: `author_association` says MEMBER, but the repository permission is read: the
    resolver does not authorize the command, and Check `reuse` does not pass it either (it names the
    permission); the sweep evidence of seed 000 still decides Check `sweep` on its own."""
    from infx.reuse.gateway import GitHubGateway
    from infx.reuse.resolver import find_request

    world = load(request, "trust_reuse_read_member.yaml")
    fake = fake_github(world)
    assert find_request(GitHubGateway(fake.client(), world["repo"]), 3412) is None
    result = verify(fake_github(copy.deepcopy(world)))
    checks = rows(result)
    assert checks["reuse"] is not Status.PASS and checks["sweep"] is Status.PASS
    why = reason(result, "reuse").replace("\u200b", "")
    assert "viewer" in why and "read" in why, why


# --- issue 19: statuses are decisions of the bot, never copies of comment text ---------------

APP_LOGIN = "infx-signoff[bot]"
MAIN3 = "c0ffee0000000000000000000000000000000008"
MERGED3 = "c0ffee0000000000000000000000000000000009"


def test_a_forged_actions_verdict_never_gives_success_to_an_app(request, fake_github) -> None:
    # the PR has no sign-off; its workflow posted a PASS verdict and a `success` status as
    # github-actions[bot], while the bot is the App infx-signoff[bot]
    fake = fake_github(load(request, "trust_forged_verdict.yaml"))
    result = publish.head_status(fake.client(app_login=APP_LOGIN), fake.world["repo"], 3412)
    assert result.status == "pending" and statuses(fake)[-1] == "pending"
    assert "no verified CODEOWNER sign-off yet" in result.reason
    assert fake.world["statuses"][SEED_HEAD][-1]["creator"] == APP_LOGIN
    # a plain merge of main changes nothing: still nothing to carry
    move_head(fake, MERGED)
    carried = publish.head_status(fake.client(app_login=APP_LOGIN), fake.world["repo"], 3412)
    assert carried.status == "pending" and statuses(fake, MERGED) == ["pending"]


def test_a_forged_verdict_is_not_carried_even_under_the_shared_actions_login(request, fake_github) -> None:
    # with the workflow token the bot IS github-actions[bot]: the forged comment and status
    # pass as its own, but the verdict records no sign-off that could be re-decided
    world = copy.deepcopy(load(request, "trust_forged_verdict.yaml"))
    world["token_login"] = "github-actions[bot]"
    fake = fake_github(world)
    move_head(fake, MERGED)
    result = publish.head_status(fake.client(), fake.world["repo"], 3412)
    assert result.status == "pending" and statuses(fake, MERGED) == ["pending"]
    assert "does not record which sign-off it judged" in result.reason


def test_a_status_the_bot_did_not_create_is_never_carried(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_head_moves.yaml"))
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    # someone else's `success` on the verified head, newer than the bot's
    fake.world["statuses"][SEED_HEAD].append({**fake.world["statuses"][SEED_HEAD][-1],
                                              "id": 9999, "creator": "mallory"})
    move_head(fake, MERGED)
    result = publish.head_status(fake.client(), fake.world["repo"], 3412)
    assert result.status == "pending" and "was not set by the bot itself" in result.reason


def test_a_signoff_deleted_after_its_pass_is_not_carried_to_a_merge_of_main(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_head_moves.yaml"))
    client, repo = fake.client(), fake.world["repo"]
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    fake.github().get_repo(repo).get_issue(3412).get_comment(5003).delete()
    # the deletion event re-decides the head: pending
    reset = publish.head_status(client, repo, 3412)
    assert reset.status == "pending" and statuses(fake)[-1] == "pending"
    assert "issue_comment 5003" in reset.reason and "was deleted" in reset.reason
    move_head(fake, MERGED)
    merged = publish.head_status(client, repo, 3412)
    assert merged.status == "pending" and statuses(fake, MERGED) == ["pending"]


def test_a_signoff_edited_after_its_pass_resets_its_head(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_head_moves.yaml"))
    client, repo = fake.client(), fake.world["repo"]
    assert verify(fake).verdict.overall.value == "PASS"
    comment = fake.github().get_repo(repo).get_issue(3412).get_comment(5003)
    comment.edit(comment.body.replace("- [x]", "- [ ]", 1))
    result = publish.head_status(client, repo, 3412)
    assert result.status == "pending" and statuses(fake)[-1] == "pending"
    assert "was edited after its verdict" in result.reason
    # the unchanged sign-off, verified again, passes again, and then carries
    comment.edit(comment.body.replace("- [ ]", "- [x]", 1))
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    move_head(fake, MERGED)
    assert publish.head_status(client, repo, 3412).status == "success"


def _as_review(world: dict, rid: int = 7002) -> dict:
    """The world's sign-off comment 5003 posted as a review of the head instead."""
    pull = world["pulls"][0]
    signoff = next(c for c in pull["comments"] if c["id"] == 5003)
    pull["comments"].remove(signoff)
    pull["reviews"] = [{"id": rid, "user": signoff["user"], "state": "COMMENTED", "body": signoff["body"],
                        "commit_id": pull["head"]["sha"], "submitted_at": signoff["created_at"]}]
    return world


def test_a_review_signoff_dismissed_after_its_pass_resets_its_head_and_is_not_verified_again(
        request, fake_github) -> None:
    fake = fake_github(_as_review(load(request, "trust_head_moves.yaml")))
    client, repo = fake.client(), fake.world["repo"]
    assert verify(fake, comment_id=7002, kind="review").verdict.overall.value == "PASS"
    assert statuses(fake)[-1] == "success"
    fake.world["pulls"][0]["reviews"][0]["state"] = "DISMISSED"  # a maintainer dismissed it
    result = publish.head_status(client, repo, 3412)
    assert result.status == "pending" and statuses(fake)[-1] == "pending"
    assert "the sign-off review 7002 was dismissed after its verdict" in result.reason, result.reason
    again = verify(fake, comment_id=7002, kind="review", dispatched=True, actor="chunfangamd")
    assert again.kind == "skipped" and "was dismissed" in again.reason
    assert statuses(fake)[-1] == "pending"
    move_head(fake, MERGED)
    assert publish.head_status(client, repo, 3412).status == "pending"


@pytest.mark.parametrize("state", ["COMMENTED", "DISMISSED"])
def test_only_a_standing_later_review_outranks_an_earlier_signoff(request, fake_github, state) -> None:
    """The newest owner sign-off decides the status; a later review by the owner that was
    dismissed is withdrawn, so the earlier review's verification still sets it."""
    from datetime import datetime, timedelta

    world = _as_review(load(request, "trust_head_moves.yaml"))
    pull = world["pulls"][0]
    signoff = pull["reviews"][0]
    posted = datetime.fromisoformat(signoff["submitted_at"].replace("Z", "+00:00"))
    later = (posted + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    pull["reviews"].append({**signoff, "id": 7003, "state": state, "submitted_at": later})
    fake = fake_github(world)
    result = verify(fake, comment_id=7002, kind="review")
    assert (result.kind == "skipped") is (state == "COMMENTED"), result.reason
    assert (statuses(fake)[-1:] == ["success"]) is (state == "DISMISSED"), (state, statuses(fake))


@pytest.mark.parametrize("change", ["edit", "delete"])
def test_a_signoff_changed_while_it_is_verified_ends_pending_whoever_finishes_last(
        request, fake_github, change) -> None:
    """The reset run for an edit made during the verification may finish before the verify
    run sets `success`; the verify run reads the sign-off again after setting it and takes
    the status back (to `error`: a verify run never ends `pending`, which its guard reads as
    a run that died)."""
    fake = fake_github(load(request, "trust_head_moves.yaml"))
    pull = fake.world["pulls"][0]

    def meanwhile(state: str, sha: str) -> None:
        if state != "success":
            return
        signoff = next(c for c in pull["comments"] if c["id"] == 5003)
        if change == "edit":
            signoff["body"] = signoff["body"].replace("- [x]", "- [ ]", 1)
        else:
            pull["comments"].remove(signoff)

    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options(on_status=meanwhile))
    assert result.verdict.overall.value == "PASS" and statuses(fake)[-2:] == ["success", "error"]
    assert result.status == "error" and "after this verification began" in result.reason, result.reason
    # nothing changed during a verification: one success, and no further status
    plain = fake_github(load(request, "trust_head_moves.yaml"))
    assert verify(plain).status == "success" and statuses(plain)[-1] == "success"


def _review_run_event(world: dict, event: str, created_at: str) -> dict:
    """The workflow_run payload of a finished signoff-verify run recorded for a review event."""
    pull = world["pulls"][0]
    return {"action": "completed", "repository": {"full_name": world["repo"], "default_branch": "main"},
            "sender": {"login": "someone"},
            "workflow_run": {"id": 4242, "name": "codeowner-signoff-verify",
                             "path": ".github/workflows/signoff-verify.yml", "event": event,
                             "status": "completed", "conclusion": "success", "run_attempt": 1,
                             "head_sha": pull["head"]["sha"], "head_branch": pull["head"]["ref"],
                             "head_repository": {"full_name": pull["head"]["repo"]},
                             "created_at": created_at, "pull_requests": []}}


def test_a_review_signoff_is_verified_through_the_relay_and_its_dismissal_resets_the_head(
        request, fake_github, tmp_path, monkeypatch) -> None:
    """Review events only get a run without privileges; its completion relays to default-branch
    code that finds the review through the API (never the event's text) and verifies it."""
    import json

    from infx.cli import main

    world = _as_review(load(request, "trust_head_moves.yaml"))
    submitted = world["pulls"][0]["reviews"][0]["submitted_at"]
    fake = fake_github(world)
    client, repo = fake.client(), fake.world["repo"]
    first = publish.relay(client, repo, 3412, submitted)
    assert first.verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    # the same run relayed again (a re-run): the review was judged, the head is decided again
    again = publish.relay(client, repo, 3412, submitted)
    assert again.kind == "head-status" and again.status == "success" and again.verdict is None
    # dismissed: the relay of the dismissal event decides the head again: pending
    fake.world["pulls"][0]["reviews"][0]["state"] = "DISMISSED"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_review_run_event(fake.world, "pull_request_review", submitted)))
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    state = tmp_path / "signoff-status"
    assert main(["signoff", "relay", "--repo", repo, "--event", str(event), "--state-file", str(state)]) == 0
    assert statuses(fake)[-1] == "pending"
    # a head decided `pending` is an answer: the job's guard must not take it for a run that died
    assert state.read_text().split() == ["decided", SEED_HEAD]


def test_the_relay_ignores_runs_for_other_events(tmp_path, capsys) -> None:
    import json

    from infx.cli import main

    world = {"repo": "o/r", "pulls": [{"head": {"sha": "a" * 40, "ref": "b", "repo": "o/r"}}]}
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_review_run_event(world, "pull_request", "2026-09-24T10:00:00Z")))
    assert main(["signoff", "relay", "--repo", "o/r", "--event", str(event)]) == 0
    assert "not a review or inline comment" in capsys.readouterr().err


def test_a_pr_retargeted_away_from_the_default_branch_withdraws_its_success(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_head_moves.yaml"))
    client, repo = fake.client(), fake.world["repo"]
    assert verify(fake).status == "success"
    fake.world["pulls"][0]["base"]["ref"] = "release"  # pull_request edited, changes.base
    result = publish.head_status(client, repo, 3412)
    assert result.status == "pending" and statuses(fake)[-1] == "pending"
    assert "targets release, not the default branch main" in result.reason
    # nothing of ours left to withdraw: no further status
    again = publish.head_status(client, repo, 3412)
    assert again.kind == "skipped" and statuses(fake)[-1] == "pending"


def _reverify(fake, login: str, comment_id: int = 6100) -> publish.Result:
    """A `/reverify` comment by `login`, through the real gating of its webhook payload."""
    from infx.signoff.trigger.gating import from_event

    pull = fake.world["pulls"][0]
    pull["comments"].append({"id": comment_id, "user": login, "author_association": "MEMBER",
                             "body": "Sweep re-run.\n\n/reverify", "created_at": fake.world["now"],
                             "updated_at": fake.world["now"]})
    payload = {"action": "created", "issue": {"number": pull["number"], "pull_request": {"url": "u"}},
               "comment": {"id": comment_id, "body": "Sweep re-run.\n\n/reverify", "user": {"login": login}},
               "sender": {"login": login}}
    trigger = from_event("issue_comment", payload)
    assert trigger.run and trigger.ref is None and trigger.reverify and not trigger.dispatched
    return publish.verify(fake.client(), fake.world["repo"], trigger, publish.Options())


@pytest.mark.parametrize(("who", "role", "verified"), [
    ("chunfangamd", None, True),  # the signer
    ("maint", "maintain", True), ("boss", "admin", True),
    ("writer", "write", False), ("reader", "read", False)])
def test_reverify_verifies_the_newest_signoff_again_for_its_signer_or_a_maintainer(
        request, fake_github, who, role, verified) -> None:
    world = load(request, "trust_head_moves.yaml")
    if role:
        world["collaborators"][who] = {"permission": {"read": "read", "admin": "admin"}.get(role, "write"),
                                       "role_name": role}
    fake = fake_github(world)
    result = _reverify(fake, who)
    if verified:
        assert result.verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
        assert "issue_comment:5003:" in fake.world["pulls"][0]["comments"][-1]["body"].split("\n")[0]
    else:
        assert result.kind == "skipped" and statuses(fake) == []
        assert ("is not the signer" if role == "write" else "needs write access") in result.reason


def test_reverify_never_verifies_a_draft_which_only_a_workflow_dispatch_may(request, fake_github) -> None:
    world = load(request, "trust_head_moves.yaml")
    world["pulls"][0]["draft"] = True
    fake = fake_github(world)
    result = _reverify(fake, "chunfangamd")
    assert result.kind == "skipped" and "draft" in result.reason and statuses(fake) == []


def test_reverify_without_a_standing_signoff_says_so(request, fake_github) -> None:
    world = load(request, "trust_head_moves.yaml")
    pull = world["pulls"][0]
    pull["comments"] = [c for c in pull["comments"] if c["id"] != 5003]
    fake = fake_github(world)
    result = _reverify(fake, "chunfangamd")
    assert result.kind == "skipped" and "no standing sign-off" in result.reason and statuses(fake) == []


def test_a_signer_dropped_from_codeowners_is_not_carried_to_the_next_head(request, fake_github) -> None:
    fake = fake_github(load(request, "trust_owner_removed.yaml"))
    client, repo = fake.client(), fake.world["repo"]
    assert verify(fake).verdict.overall.value == "PASS" and statuses(fake)[-1] == "success"
    fake.world["branches"]["main"] = MAIN3  # the CODEOWNERS change lands on main
    move_head(fake, MERGED3)
    fake.world["pulls"][0]["base"]["sha"] = MAIN3
    result = publish.head_status(client, repo, 3412)
    assert result.status == "pending" and statuses(fake, MERGED3) == ["pending"]
    assert "@chunfangamd is no longer a CODEOWNER of this PR on main" in result.reason
    assert "configs/amd-master.yaml is owned by @billishyahao" in result.reason


# --- issue 20: the head the signer saw, from records a push cannot suppress ----------------------

HIDDEN = "c0ffee0000000000000000000000000000000020"


def test_the_hidden_head_sequence_never_gets_success_for_the_signoff_or_reuse(request, fake_github) -> None:
    """Head 296a93 (a run at 09:00), force-pushed to a [skip ci] commit (no run), signed at
    09:30 and the reuse command posted at 09:35, then 296a93 force-pushed back: the runs alone
    bind both to 296a93, which the signer never saw; the timeline's force-pushes leave the head
    unknown (fail closed), for the sign-off and for the reuse resolver."""
    from infx.reuse.gateway import GitHubGateway
    from infx.reuse.resolver import find_request, unbound_reason

    world = load(request, "trust_hidden_head.yaml")
    fake = fake_github(copy.deepcopy(world))
    result = verify(fake)
    assert result.kind == "skipped" and "success" not in statuses(fake) and fake.count("POST") == 0
    assert "force-pushed at 2026-09-24T09:10:00Z" in result.reason, result.reason
    gateway = GitHubGateway(fake_github(copy.deepcopy(world)).client(), world["repo"])
    found = find_request(gateway, 3412)
    assert found is not None
    why = unbound_reason(gateway, 3412, found)
    assert why is not None and "cannot be tied to a PR head" in why and "force-pushed" in why, why
    # the same world without the timeline's force-pushes (what the runs alone show) passes:
    # the timeline is what decides
    for pull in world["pulls"]:
        pull.pop("timeline", None)
    plain = fake_github(copy.deepcopy(world))
    assert verify(plain).status == "success"
    gateway = GitHubGateway(fake_github(copy.deepcopy(world)).client(), world["repo"])
    assert unbound_reason(gateway, 3412, find_request(gateway, 3412)) is None


def test_a_review_is_bound_to_its_commit_id(request, fake_github) -> None:
    """A review names the head it was submitted on: signing the hidden head as a review binds
    it to that head, which 296a93 does not inherit (its own changes differ)."""
    world = load(request, "trust_hidden_head.yaml")
    signoff = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5003)
    world["pulls"][0]["reviews"] = [{"id": 7001, "user": signoff["user"], "state": "COMMENTED",
                                     "body": signoff["body"], "commit_id": HIDDEN,
                                     "submitted_at": signoff["created_at"]}]
    fake = fake_github(world)
    result = verify(fake, comment_id=7001, kind="review")
    assert result.kind == "skipped" and "success" not in statuses(fake)
    assert f"posted when the PR head was {HIDDEN[:12]}" in result.reason, result.reason


def test_an_unreadable_timeline_fails_closed(request, fake_github) -> None:
    from infx.reuse.gateway import GitHubGateway
    from infx.reuse.resolver import find_request, unbound_reason

    world = load(request, "trust_timeline_unreadable.yaml")
    fake = fake_github(copy.deepcopy(world))
    result = verify(fake)
    assert result.status == "error" and statuses(fake)[-1] == "error"
    assert "timeline" in result.reason or any("timeline" in (c["body"] or "") for c in
                                              fake.world["pulls"][0]["comments"]), result.reason
    gateway = GitHubGateway(fake_github(copy.deepcopy(world)).client(), world["repo"])
    why = unbound_reason(gateway, 3412, find_request(gateway, 3412))
    assert why is not None and "timeline" in why and "could not be read" in why, why


def test_a_maintainer_with_private_membership_is_authorized_by_check_4_and_the_resolver(request, fake_github) -> None:
    """Case 9b: GitHub says CONTRIBUTOR for a member whose organisation membership is private;
    the collaborator permission (write, role maintain) decides, for the resolver and Check `reuse`."""
    from infx.reuse.gateway import GitHubGateway
    from infx.reuse.resolver import find_request

    world = load(request, "trust_reuse_private_member.yaml")
    fake = fake_github(world)
    found = find_request(GitHubGateway(fake.client(), world["repo"]), 3412)
    assert found is not None and found.comment.user == "quietmaint" and found.authority.elevated
    result = verify(fake_github(copy.deepcopy(world)))
    assert rows(result)["reuse"] is Status.PASS, reason(result, "reuse")
    assert "quietmaint (CONTRIBUTOR)" in reason(result, "reuse")


# --- the verdict as a check run beside the required status (issue 23) -------------------------

INJECTED_SCRIPT = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh"


def our_check_runs(fake, sha: str = SEED_HEAD) -> list[dict]:
    return [r for r in fake.world["check_runs"].get(sha, []) if r["name"] == CONTEXT and "app" in r]


def as_app(world: dict) -> dict:
    world = copy.deepcopy(world)
    world["token_login"] = APP_LOGIN
    world["app"] = {"id": 77, "slug": APP_LOGIN[: -len("[bot]")], "installation_id": 5,
                    "permissions": {"checks": "write", "statuses": "write"}}
    return world


@pytest.mark.parametrize("name,located", [
    ("trust_injection.yaml", [("configs/amd-master.yaml", 15), (INJECTED_SCRIPT, 5)]),
    ("trust_changelog_tbd.yaml", [("perf-changelog.yaml", 11)]),
])
def test_a_verdicts_located_findings_are_annotations_of_its_check_run(request, fake_github, name,
                                                                      located) -> None:
    fake = fake_github(as_app(load(request, name)))
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(fake.client(app_login=APP_LOGIN), fake.world["repo"], trigger,
                            publish.Options())
    assert result.verdict.overall.value == "REJECTED" and result.check_run == "created"
    [run] = our_check_runs(fake)
    assert run["app"]["slug"] == "infx-signoff" and run["conclusion"] == "failure"
    assert run["details_url"] == result.comment_url
    output = run["output"]
    assert output["summary"].startswith("## ❌❌❌ **REJECTED** ❌❌❌") and result.comment_url in output["summary"]
    assert output["text"].startswith("| | Check | Status | Reason |")
    assert len(output["text"].splitlines()) == 2 + len(result.verdict.rows)
    where = [(a["path"], a["start_line"]) for a in output["annotations"]]
    assert where == located and {a["annotation_level"] for a in output["annotations"]} == {"failure"}
    assert all(a["start_line"] == a["end_line"] and "\ue000" not in a["message"]
               for a in output["annotations"])
    # the status stays the required context, and links to the verdict comment
    status = fake.world["statuses"][SEED_HEAD][-1]
    assert status["state"] == "failure" and status["target_url"] == result.comment_url


def test_re_verification_updates_the_check_run_in_place(request, fake_github) -> None:
    fake = fake_github(as_app(load(request, "trust_injection.yaml")))
    client = fake.client(app_login=APP_LOGIN)
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    first = publish.verify(client, fake.world["repo"], trigger, publish.Options())
    [created] = copy.deepcopy(our_check_runs(fake))
    # the same evidence again: nothing is written
    again = publish.verify(fake.client(app_login=APP_LOGIN), fake.world["repo"], trigger, publish.Options())
    assert again.check_run == "unchanged" and fake.count("PATCH", "/check-runs/") == 0
    # new evidence (another conversation comment): the same check run, updated
    pull = fake.world["pulls"][0]
    pull["comments"].append({"id": 5090, "user": "someone", "author_association": "NONE",
                             "body": "a question", "created_at": "2026-09-29T10:00:00Z",
                             "updated_at": "2026-09-29T10:00:00Z", "reactions": []})
    later = publish.verify(fake.client(app_login=APP_LOGIN), fake.world["repo"], trigger, publish.Options())
    assert later.check_run == "updated" and later.check_run_url == first.check_run_url
    [updated] = our_check_runs(fake)
    assert updated["id"] == created["id"] and updated["external_id"] != created["external_id"]
    # GitHub appends an update's annotations: the findings already there are not sent again
    assert len(updated["output"]["annotations"]) == len(created["output"]["annotations"]) == 2
    assert fake.count("POST", "/check-runs$") == 1 and fake.count("PATCH", "/check-runs/") == 1
    # a check run of that name another app wrote is never the one updated
    assert all(r["app"]["slug"] == "infx-signoff" for r in our_check_runs(fake))


# the verify job's token before `checks: write` was added: everything else the verdict needs
WITHOUT_CHECKS_WRITE = {"actions": "read", "checks": "read", "contents": "read", "issues": "write",
                        "members": "read", "pull_requests": "read", "statuses": "write"}


def test_a_token_that_cannot_write_check_runs_still_publishes_the_verdict_and_status(
        request, fake_github) -> None:
    world = copy.deepcopy(load(request, "trust_injection.yaml"))
    world["token_permissions"] = WITHOUT_CHECKS_WRITE
    fake = fake_github(world)
    result = verify(fake)
    assert result.kind == "verdict" and result.status == "failure" and result.posted
    assert result.check_run.startswith("not published:") and "checks: write" in result.check_run
    assert statuses(fake)[-1] == "failure" and our_check_runs(fake) == []
    assert fake.world["statuses"][SEED_HEAD][-1]["target_url"] == result.comment_url


SHIPPED_WORLDS = tuple(sorted(p.name for p in WORLDS_DIR.glob("*.yaml")))


@pytest.mark.parametrize("name", SHIPPED_WORLDS)
def test_every_status_the_product_creates_links_to_what_explains_it(request, fake_github, name) -> None:
    """PRODUCT §4.8: every status has a target_url — the verdict comment, the check run or the
    run (here, without a workflow run, the pull request). Each PR of the world gets its head
    status, then each sign-off comment and review is verified, then the head status again."""
    world = load(request, name)
    fake = fake_github(copy.deepcopy(world))
    repo = fake.world["repo"]
    for pull in world.get("pulls", []):
        number = pull["number"]
        publish.head_status(fake.client(), repo, number)
        for kind, items in (("issue_comment", pull.get("comments", [])), ("review", pull.get("reviews", []))):
            for item in items:
                if "As a PR reviewer and CODEOWNER" in (item.get("body") or ""):
                    trigger = Trigger(True, "test", number, SignoffRef(kind, item["id"]),
                                      actor=item["user"], dispatched=True)
                    publish.verify(fake.client(), repo, trigger, publish.Options())
        publish.head_status(fake.client(), repo, number)
    created = [s for sha, v in fake.world["statuses"].items()
               for s in v[len(world.get("statuses", {}).get(sha, [])):]]
    assert created or name.startswith(("policy_", "reuse_")), "the world set no status at all"
    missing = [(s["state"], s["description"]) for s in created if not s.get("target_url")]
    assert not missing
    for s in created:
        assert s["target_url"].startswith(f"https://github.com/{repo}/pull/"), s


# --- the check run never says more than the status (issue 23: head moves) ---------------------


def _verified_as_app(request, fake_github):
    """trust_head_moves verified as the App: PASS, a `success` check run of the App on the head."""
    fake = fake_github(as_app(load(request, "trust_head_moves.yaml")))
    result = publish.verify(fake.client(app_login=APP_LOGIN), fake.world["repo"],
                            Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003)), publish.Options())
    assert result.verdict.overall.value == "PASS" and result.check_run == "created"
    [run] = our_check_runs(fake)
    assert run["conclusion"] == "success"
    return fake, copy.deepcopy(run)


def _untick_the_signoff(fake) -> None:
    signoff = next(c for c in fake.world["pulls"][0]["comments"] if c["id"] == 5003)
    signoff["body"] = signoff["body"].replace("- [x]", "- [ ]", 1)


def test_a_head_status_that_withdraws_success_withdraws_the_verdicts_check_run(request, fake_github) -> None:
    """The sign-off edited after its verdict: the head goes `pending`, and the check run of that
    verdict on the same head (which said success) becomes `action_required`, saying why, its
    check table and annotations kept as the record; it links where the status does. Deciding
    again changes nothing more."""
    fake, before = _verified_as_app(request, fake_github)
    _untick_the_signoff(fake)
    result = publish.head_status(fake.client(app_login=APP_LOGIN), fake.world["repo"], 3412)
    assert (result.kind, result.status, result.check_run) == ("head-status", "pending", "withdrawn")
    [run] = our_check_runs(fake)
    assert run["id"] == before["id"] and run["conclusion"] == "action_required"
    output = run["output"]
    assert output["title"] == "Withdrawn: not verified now"
    assert output["summary"].startswith("## **Withdrawn: this head is not verified now**")
    assert "edited" in output["summary"] and before["output"]["summary"] in output["summary"]
    assert output["text"] == before["output"]["text"]
    assert output["annotations"] == before["output"]["annotations"]
    status = fake.world["statuses"][SEED_HEAD][-1]
    assert status["state"] == "pending" and run["details_url"] == status["target_url"] == result.target_url
    patches = fake.count("PATCH", "/check-runs/")
    again = publish.head_status(fake.client(app_login=APP_LOGIN), fake.world["repo"], 3412)
    assert again.status == "pending" and again.check_run is None
    assert fake.count("PATCH", "/check-runs/") == patches == 1


def test_a_retarget_withdraws_the_check_run_and_a_head_move_leaves_the_old_heads(request, fake_github) -> None:
    """A head move: the new head gets the (carried) status and no check run; the verified head
    keeps its check run, the record of what was verified on that commit (GitHub shows a PR's
    checks of its current head). Retargeted away from the default branch: the head's `success`
    is withdrawn, and so is the check run that would still say it."""
    fake, before = _verified_as_app(request, fake_github)
    client, repo = fake.client(app_login=APP_LOGIN), fake.world["repo"]
    move_head(fake, MERGED)
    carried = publish.head_status(client, repo, 3412)
    assert carried.status == "success" and carried.check_run is None
    assert our_check_runs(fake, MERGED) == [] and our_check_runs(fake) == [before]
    fake.world["pulls"][0]["head"]["sha"] = SEED_HEAD  # pushed back to the verified head
    fake.world["pulls"][0]["base"]["ref"] = "release"
    result = publish.head_status(client, repo, 3412)
    assert (result.status, result.check_run) == ("pending", "withdrawn")
    assert [r["conclusion"] for r in our_check_runs(fake)] == ["action_required"]
    assert "targets release" in our_check_runs(fake)[0]["output"]["summary"]


def test_a_check_run_that_cannot_be_withdrawn_fails_the_head_status(request, fake_github) -> None:
    """Without `checks` the status is still set `pending`, and the run ends in `error` naming the
    permission: a job that cannot take back a success it left must not end green."""
    fake, _ = _verified_as_app(request, fake_github)
    _untick_the_signoff(fake)
    fake.world["token_permissions"] = {"contents": "read", "members": "read", "pull_requests": "read",
                                       "statuses": "write"}
    result = publish.head_status(fake.client(app_login=APP_LOGIN), fake.world["repo"], 3412)
    assert result.kind == "error" and result.status == "pending" and statuses(fake)[-1] == "pending"
    assert "could not be withdrawn" in result.reason and "checks: read" in result.reason, result.reason
    assert [r["conclusion"] for r in our_check_runs(fake)] == ["success"]
