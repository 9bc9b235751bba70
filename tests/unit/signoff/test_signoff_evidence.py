"""Evidence gathering: the API budget, fail-closed reads, the evidence fingerprint."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import datetime, timezone

import pytest
from lib.signoff_policy_support import SWEEP_TEXT, bare_evidence

from infx import yamlio
from infx.signoff import evidence as ev
from infx.signoff.model import Comment, Evidence
from infx.signoff.rules.provenance import SWEEP_WORKFLOW
from infx.signoff.table import load_table
from infx.signoff.trigger.gating import SignoffRef
from infx.trust import Identity

MARKER = "codeowner-signoff-verify"
BOTS = Identity("github-actions[bot]")
APP = Identity("infx-signoff[bot]", app=True)


@pytest.fixture(scope="module")
def seed000(request):
    return yamlio.load_file(request.config.rootpath / "tests/data/worlds/signoff_seed000.yaml")


def minimal(comments=None, now=datetime(2026, 9, 30, 8, tzinfo=timezone.utc)) -> Evidence:
    return bare_evidence(body="body", now=now, comments=comments)


def verdict_comment(user: str) -> Comment:
    body = f"<!-- {MARKER} sha={'d' * 40} evidence=abc -->\n## x"
    return Comment(99, user, body, "NONE", "2026-09-30T09:00:00Z")


def test_budget_is_a_hard_cap(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    reader = ev.Reader(fake.client(), seed000["repo"], cap=2)
    reader.pull(3412)
    reader.commits(3412)
    with pytest.raises(ev.BudgetExceeded, match="budget of 2"):
        reader.comments(3412)
    assert len(fake.requests) == 2


def test_the_budget_counts_the_http_requests_of_every_reader(fake_github, seed000) -> None:
    """Pages, tarball redirects and downloads, the bot's own lookups and its writes: the
    count a verification reports is what GitHub served (issue 21: 22 "calls" were 126)."""
    from infx.signoff import pipeline as publish
    from infx.signoff.trigger.gating import Trigger

    fake = fake_github(copy.deepcopy(seed000))
    now = datetime.fromisoformat(seed000["now"].replace("Z", "+00:00"))
    trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
    result = publish.verify(fake.client(), seed000["repo"], trigger, publish.Options(now=now))
    assert result.verdict.overall.value == "PASS"
    assert result.api_calls == len(fake.requests)
    assert fake.count("GET", "^/repos/.*/tarball/") == fake.count("GET", "^/_fake/tarball/") >= 2


def test_a_client_that_cannot_count_requests_is_charged_one_per_read(fake_github, seed000) -> None:
    client = fake_github(seed000).client()
    reader = ev.Reader(client, seed000["repo"], cap=3)
    client.use_budget(None)  # as a client without `use_budget` would leave it
    reader._metered = False
    reader.pull(3412)
    reader.commits(3412)
    with reader.writing():
        pass
    assert reader.calls == 3
    with pytest.raises(ev.BudgetExceeded, match="budget of 3 HTTP requests reached before listing"):
        reader.comments(3412)


def test_past_githubs_3000_files_scope_names_the_cap_and_a_remedy_that_works(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    reader = ev.Reader(fake.client(), seed000["repo"], cap=30)
    with pytest.raises(ev.ListingCapped, match="has 3,001 files .* at most 3,000 files") as cut:
        reader.files(3412, 3_001)
    assert "split the PR" in str(cut.value) and "re-run" not in str(cut.value)
    assert fake.count("GET", "/files$") == 0


def test_a_branch_past_githubs_1000_searched_runs_names_the_cap_and_a_remedy(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    template = world["workflow_runs"][1]  # the sign-off's own runs, one per push
    world["workflow_runs"] += [template | {"id": 40_000_000 + i} for i in range(1_000)]
    reader = ev.Reader(fake_github(world).client(), world["repo"], cap=30)
    with pytest.raises(ev.ListingCapped, match="at most 1,000 results .* there are 1,002") as cut:
        reader.branch_runs("yhl-amd/minimaxm3-flydsl")
    assert "new branch" in str(cut.value) and "re-run" not in str(cut.value)


def test_optional_reads_record_failures(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["faults"] = [{"method": "GET", "path": "/pulls/3412/commits", "status": 500}]
    fake = fake_github(world)
    reader = ev.Reader(fake.client(), world["repo"], cap=30)
    evidence = minimal()
    assert ev.optional(evidence, "commits", lambda: reader.commits(3412)) is None
    assert "500" in evidence.read_errors["commits"]


def test_signoff_kinds_are_read_from_their_own_endpoints(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    body = world["pulls"][0]["comments"][2]["body"]
    world["pulls"][0]["reviews"] = [{"id": 201, "user": "chunfangamd", "state": "APPROVED",
                                     "body": body, "commit_id": world["pulls"][0]["head"]["sha"],
                                     "submitted_at": "2026-09-24T10:00:00Z"}]
    fake = fake_github(world)
    reader = ev.Reader(fake.client(), world["repo"], cap=30)
    review = reader.signoff(SignoffRef("review", 201), 3412)
    assert review.user == "chunfangamd" and review.kind == "review" and review.body == body
    assert (review.issue_repo, review.issue_number) == (world["repo"], 3412)
    comment = reader.signoff(SignoffRef("issue_comment", 5003), 3412)
    assert comment.html_url and comment.id == 5003
    assert (comment.issue_repo, comment.issue_number) == (world["repo"], 3412)


def test_fork_sweeps_are_listed_from_the_day_before_the_pr_was_opened(fake_github, seed000) -> None:
    """The dispatched runs read are the PR's lifetime's (GitHub's `created` filter), with a
    day's margin; a PR whose opening is unknown lists them all, as before."""
    world = copy.deepcopy(seed000)
    world["pulls"][0]["created_at"] = "2026-09-20T00:30:00Z"
    model = next(r for r in world["workflow_runs"])
    for run_id, created in ((801, "2026-09-18T23:59:59Z"), (802, "2026-09-19T00:00:00Z"),
                            (803, "2026-09-21T10:00:00Z")):
        world["workflow_runs"].append({**copy.deepcopy(model), "id": run_id, "created_at": created,
                                       "event": "workflow_dispatch", "head_branch": "main"})
    fake = fake_github(world)
    reader = ev.Reader(fake.client(), world["repo"], cap=30)
    assert [r.id for r in reader.dispatched_runs("main", 3412)] == [801, 802, 803][::-1]  # not read yet
    reader.pull(3412)
    assert [r.id for r in reader.dispatched_runs("main", 3412)] == [803, 802]
    queries = [q["query"] for q in fake.matching("GET", r"/actions/runs$")]
    assert "created" not in queries[0] and queries[1]["created"] == ">=2026-09-19", queries
    assert ev.dispatched_since("2026-09-20T23:30:00-02:00") == "2026-09-20"  # 01:30Z on the 21st
    assert ev.dispatched_since(None) is None and ev.dispatched_since("soon") is None


def test_pull_info_and_files(fake_github, seed000) -> None:
    fake = fake_github(seed000)
    reader = ev.Reader(fake.client(), seed000["repo"], cap=30)
    pr, raw = reader.pull(3412)
    assert pr.head_sha == "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4" and pr.labels == ("full-sweep-fail-fast",)
    files = reader.files(3412, pr.changed_files)
    assert {f.filename for f in files} >= {"configs/amd-master.yaml", "perf-changelog.yaml"}
    with pytest.raises(Exception, match="listing returned|incomplete"):
        reader.files(3412, pr.changed_files + 1)


def test_digest_ignores_the_bots_own_verdicts_and_the_time_of_day() -> None:
    plain = minimal([Comment(1, "alice", "hi", "MEMBER", "2026-09-30T07:00:00Z")])
    with_verdict = minimal(plain.comments + [verdict_comment("github-actions[bot]")],
                           now=datetime(2026, 9, 30, 23, 59, tzinfo=timezone.utc))
    assert ev.digest(plain, MARKER, BOTS) == ev.digest(with_verdict, MARKER, BOTS)
    forged = minimal(plain.comments + [verdict_comment("mallory")])
    assert ev.digest(plain, MARKER, BOTS) != ev.digest(forged, MARKER, BOTS)
    next_day = replace(plain, now=datetime(2026, 10, 1, tzinfo=timezone.utc))
    assert ev.digest(plain, MARKER, BOTS) != ev.digest(next_day, MARKER, BOTS)


def test_the_digest_reads_where_the_signoff_is_as_binding_does() -> None:
    """Where the sign-off is on reaches the digest only as binding reads it (a PR of this
    repository, or none), and where a listed comment is on not at all (the PR's listings)."""
    listed = Comment(1, "alice", "hi", "MEMBER", "2026-09-30T07:00:00Z", issue_repo="o/r", issue_number=1)
    plain = minimal([listed])
    signed = replace(plain, signoff=replace(plain.signoff, issue_repo="o/r", issue_number=1))
    assert ev.digest(replace(plain, comments=[replace(listed, issue_repo="", issue_number=None)]),
                     MARKER, BOTS) == ev.digest(plain, MARKER, BOTS)
    assert ev.digest(replace(signed, signoff=replace(signed.signoff, issue_repo="O/R")), MARKER, BOTS) \
        == ev.digest(signed, MARKER, BOTS) != ev.digest(plain, MARKER, BOTS)
    elsewhere = replace(signed, signoff=replace(signed.signoff, issue_repo="fork/r"))
    assert ev.digest(elsewhere, MARKER, BOTS) == ev.digest(plain, MARKER, BOTS)  # on no PR of o/r
    moved = replace(signed, signoff=replace(signed.signoff, issue_number=2))
    assert ev.digest(moved, MARKER, BOTS) != ev.digest(signed, MARKER, BOTS)


def test_a_check_runs_output_never_reaches_the_digest(fake_github, seed000) -> None:
    """The one check-run model carries what its writer says (output, app, page); the digest
    keeps only what it concluded, so another app rewriting a check run's text, or the
    verdict's own output read back, never makes the same evidence look new. What a check
    run concluded still does."""
    from infx.signoff import pipeline as publish
    from infx.signoff.render import read_marker
    from infx.signoff.trigger.gating import Trigger

    def verdict(world: dict) -> publish.Result:
        fake = fake_github(world)
        trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
        return publish.verify(fake.client(), world["repo"], trigger, publish.Options())

    marker = load_table().settings.marker
    first = verdict(copy.deepcopy(seed000))
    assert first.kind == "verdict"
    runs = [run for listed in first.evidence.check_runs.values() for run in listed or []]
    assert runs and all(run.app_slug for run in runs)  # the listing's fields are in the model
    rewritten = copy.deepcopy(seed000)
    for listed in rewritten["check_runs"].values():
        for run in listed:
            run["output"] = {"title": f"rewritten {run['id']}", "summary": "new words", "text": "more"}
            run["external_id"] = f"other-{run['id']}"
    again = verdict(rewritten)
    assert {run.summary for listed in again.evidence.check_runs.values() for run in listed or []} == {"new words"}
    assert read_marker(again.body, marker) == read_marker(first.body, marker) and again.body == first.body
    concluded = copy.deepcopy(seed000)
    sha, listed = next((sha, listed) for sha, listed in concluded["check_runs"].items() if listed)
    listed[0]["completed_at"] = "2026-09-23T23:59:59Z"
    assert read_marker(verdict(concluded).body, marker)[1] != read_marker(first.body, marker)[1]
    assert set(ev.CHECK_RUN_NOT_DIGESTED) < {f for f in vars(runs[0])}


def test_is_verdict_needs_bot_author_and_leading_marker() -> None:
    assert ev.is_verdict(verdict_comment("github-actions[bot]"), MARKER, BOTS)
    assert not ev.is_verdict(verdict_comment("mallory"), MARKER, BOTS)
    quoted = replace(verdict_comment("github-actions[bot]"), body="> " + verdict_comment("x").body)
    assert not ev.is_verdict(quoted, MARKER, BOTS)


def test_as_an_app_a_github_actions_verdict_is_not_the_bots_own() -> None:
    # any workflow can post as github-actions[bot]; the App's own comments are its <app>[bot]'s
    assert not ev.is_verdict(verdict_comment("github-actions[bot]"), MARKER, APP)
    assert ev.is_verdict(verdict_comment("infx-signoff[bot]"), MARKER, APP)


def test_to_json_encodes_bytes() -> None:
    from infx.signoff.model import Artifact, ArtifactMembers

    evidence = minimal()
    evidence.artifacts[1] = [ArtifactMembers(Artifact(0, "eval_results_all", False), {"a.json": b"[1]"})]
    data = ev.to_json(evidence)
    assert data["artifacts"]["1"][0]["files"]["a.json"] == {"base64": "WzFd"}
    assert data["now"].startswith("2026-09-30")


def test_linked_upstream_pulls_are_read_with_their_files(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    world["external"] = {"vllm-project/recipes": {"pulls": [
        {"number": 123, "state": "closed", "merged_at": "2026-09-20T00:00:00Z",
         "files": [{"filename": "MiniMax/M3.md", "patch": "@@ -0,0 +1 @@\n+vllm serve x --tp 4"}]}]}}
    fake = fake_github(world)
    reader = ev.Reader(fake.client(), world["repo"], cap=30)
    evidence = minimal()
    evidence.signoff = replace(evidence.signoff, body="- [x] a\n### Additional detail section:\n"
                               "- recipe: https://github.com/vllm-project/recipes/pull/123\nSigned: a")
    ev._external_evidence(reader, evidence)
    pulled = evidence.external_pulls["vllm-project/recipes#123"]
    assert pulled.merged_at and pulled.files[0].filename == "MiniMax/M3.md"
    assert "+vllm serve" in pulled.files[0].patch


def _gather_sweep(fake, world) -> Evidence:
    reader = ev.Reader(fake.client(), world["repo"], cap=60)
    pull = world["pulls"][0]
    from infx.github.fake.world import tree_at

    evidence = bare_evidence(head_sha=pull["head"]["sha"], commits=list(pull["commits"]),
                             default_branch_files=dict(tree_at(world, world["branches"]["main"])))
    evidence = replace(evidence, repo=world["repo"], pr=replace(evidence.pr, number=pull["number"],
                                                                head_ref=pull["head"]["ref"]))
    held = ("commits", "head tree", "base tree")  # as bare_evidence holds them
    ev.Context(reader, evidence, load_table().settings, held=held).need("sweep runs")
    return evidence


def test_the_sweep_is_judged_from_the_runs_own_jobs(fake_github, seed000) -> None:
    from infx.signoff.checks import sweep

    fake = fake_github(copy.deepcopy(seed000))
    evidence = _gather_sweep(fake, seed000)
    assert sweep.find_green_run(evidence).run_id == 35873197630
    assert fake.count("GET", r"/actions/runs/35873197630/jobs$") == 1
    listed = [c for c in seed000["check_runs"]["7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"]
              if "/runs/35873197630/" in (c.get("details_url") or "")]
    assert {j.id for j in evidence.run_jobs[35873197630]} == {c["id"] for c in listed}


def test_a_failed_job_cannot_hide_behind_a_same_named_success(fake_github, seed000) -> None:
    """Two jobs of one attempt with one name (rows the old job name could not tell apart): the
    check-runs listing keeps one per name, the jobs API lists both, and the failure counts."""
    from infx.signoff.checks import sweep
    from infx.signoff.table import load_table

    world = copy.deepcopy(seed000)
    sha = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"
    runs = world["check_runs"][sha]
    twin = runs[0] | {"id": 70999, "conclusion": "failure", "completed_at": "2026-09-23T15:00:00Z",
                      "details_url": runs[0]["details_url"].rsplit("/", 1)[0] + "/90999"}
    for job in runs:
        if "/runs/35873197630/" in (job.get("details_url") or ""):
            job |= {"run_id": 35873197630, "run_attempt": 1}
    runs.append(twin | {"run_id": 35873197630, "run_attempt": 1})
    fake = fake_github(world)
    listed = ev.Reader(fake.client(), world["repo"], cap=5).check_runs(sha)
    assert 70999 not in {c.id for c in listed}  # hidden from the check-runs listing
    evidence = _gather_sweep(fake, world)
    assert sweep.find_green_run(evidence) is None
    outcome = sweep.run(evidence, load_table().settings)
    assert any("(failure)" in d and runs[0]["name"] in d for d in outcome.details)


MASTER = "k1:\n  image: i:1\n  model-prefix: m\n  runner: mi355x\nk2:\n  image: i:2\n  model-prefix: m\n  runner: mi355x\n"
OLD_LOG = ("- config-keys:\n    - k1\n  description:\n    - first\n"
           "  pr-link: https://github.com/o/r/pull/1\n")
NEW_LOG = OLD_LOG + ("- config-keys:\n    - k2\n  description:\n    - recipe tweak\n"
                     "  pr-link: https://github.com/o/r/pull/2\n")


def _recipe_only_pr(**changes) -> Evidence:
    from infx.signoff.model import ChangedFile

    files = [ChangedFile("benchmarks/single_node/fixed_seq_len/m_fp4_mi355x_sglang.sh", "modified"),
             ChangedFile("perf-changelog.yaml", "modified")]
    fields = {"files": files, "head_files": {"configs/other-master.yaml": "x:\n  image: j\n",
                                             "configs/amd-master.yaml": MASTER, "perf-changelog.yaml": NEW_LOG},
              "base_files": {"configs/amd-master.yaml": MASTER, "perf-changelog.yaml": OLD_LOG}}
    return bare_evidence(**(fields | changes))


def test_a_commits_tree_is_read_once_and_kept_for_provenance_drift_and_reuse() -> None:
    """The swept commit's tree (one tarball) serves the sweep workflow comparison, Check `sweep`'s
    drift and Check `evals`'s images; the reuse binding finds it there instead of reading it again."""
    evidence = _recipe_only_pr()

    class Trees:
        def __init__(self, fail: bool = False) -> None:
            self.read: list[str] = []
            self.fail = fail

        def tree(self, sha: str, wanted=None) -> dict[str, str]:  # wanted: the PR-tree filter
            self.read.append(sha)
            self.wanted = wanted
            if self.fail:
                raise ev.InfxError("GitHub answered 502 while downloading the tarball")
            return {"configs/amd-master.yaml": MASTER}

    reader = Trees()
    evidence.default_branch_files = {SWEEP_WORKFLOW: SWEEP_TEXT}
    assert ev.commit_tree(reader, evidence, "a" * 40) == {"configs/amd-master.yaml": MASTER}
    # read whole: what a sweep job executes may lie anywhere (benchmark_content.executed_paths)
    assert reader.wanted is None
    assert ev.commit_tree(reader, evidence, "a" * 40) is evidence.commit_files["a" * 40]
    assert ev.commit_tree(reader, evidence, evidence.pr.head_sha) is evidence.head_files
    assert reader.read == ["a" * 40]
    broken = Trees(fail=True)
    assert ev.commit_tree(broken, evidence, "e" * 40) is None
    assert "502" in evidence.unreadable[f"tree:{'e' * 40}"] and "e" * 40 not in evidence.commit_files


def test_run_records_missing_from_the_branch_listing_are_read_at_most_three_per_commit(
        fake_github, seed000) -> None:
    """Runs on another branch name (not in the PR branch's listing) cost a record read each;
    at most MAX_RUNS_PER_COMMIT are read per commit, newest first, and ours still counts."""
    world = copy.deepcopy(seed000)
    sha = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"
    ours = world["workflow_runs"][0]
    for k in range(1, 6):
        run_id = ours["id"] + k
        world["workflow_runs"].append({"id": run_id, "name": "pwn", "path": ".github/workflows/pwn.yml",
                                       "event": "pull_request", "status": "completed",
                                       "conclusion": "success", "head_sha": sha, "head_branch": "other",
                                       "created_at": ours["created_at"]})
        world["check_runs"][sha].append({"id": 990000 + k, "name": "agentic / x", "status": "completed",
                                         "conclusion": "success", "run_id": run_id,
                                         "completed_at": "2026-09-23T18:00:00Z",
                                         "details_url": f"https://github.com/x/actions/runs/{run_id}/job/1"})
    fake = fake_github(world)
    evidence = _gather_sweep(fake, world)
    assert fake.count("GET", r"/actions/runs/\d+$") == ev.MAX_RUNS_PER_COMMIT
    seeded = [run["id"] for run in seed000["workflow_runs"]]  # on the PR branch: listed, no extra read
    assert sorted(evidence.workflow_runs) == sorted([*seeded, *range(ours["id"] + 3, ours["id"] + 6)])
    from infx.signoff.checks import sweep

    assert sweep.find_green_run(evidence).run_id == ours["id"]


def test_a_fork_sweep_joins_the_union_by_the_commit_it_swept_not_the_default_branchs() -> None:
    """A fork sweep runs on the default branch's commit but sweeps the PR commit its title
    pins (infx.trust.swept_commit, as sweeps.union_candidates reads it): the union reads its
    jobs and that commit's tree."""
    from infx import trust
    from infx.github.models import WorkflowRun

    evidence = _recipe_only_pr()
    evidence.default_branch_files = {SWEEP_WORKFLOW: SWEEP_TEXT}
    pinned, main_sha = "a" * 40, "f" * 40
    run = WorkflowRun(id=41, path=SWEEP_WORKFLOW, event=trust.FORK_SWEEP_EVENT, head_sha=main_sha,
                      head_branch=evidence.default_branch, head_repo=evidence.repo,
                      display_title=trust.fork_sweep_title(evidence.pr.number, pinned))
    evidence.workflow_runs[run.id] = run

    class Reader:
        def __init__(self) -> None:
            self.trees: list[str] = []
            self.jobs: list[int] = []

        def run_jobs(self, run_id: int) -> list:
            self.jobs.append(run_id)
            return []

        def tree(self, sha: str, wanted=None) -> dict[str, str]:
            self.trees.append(sha)
            return {"configs/amd-master.yaml": MASTER}

    reader = Reader()
    ev._union_evidence(reader, evidence, [pinned])
    assert reader.jobs == [41] and reader.trees == [pinned]
