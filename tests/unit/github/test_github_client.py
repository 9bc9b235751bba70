"""The composed GitHub client through PyGithub + the fake server: the transport and every endpoint."""

import copy
import json

import pytest
import requests
from lib.rate_limits import SECONDARY

from infx.errors import InfxError
from infx.github.budget import BudgetExceeded, RequestBudget
from infx.github.client import GitHubClient
from infx.github.endpoints.issues import MAX_COMMENT_CHARS, truncate_body
from infx.github.failures import GitHubError, ListingCapped
from infx.github.fake.world import load_world
from infx.github.markers import make_marker
from infx.github.retry import RetryPolicy

REPO = "acme/inferencex"
HEAD = "beef010000000000000000000000000000000000"


@pytest.fixture
def world(test_data):
    return load_world(test_data / "github" / "worlds" / "basic.yaml")


def with_faults(world, *faults):
    world = copy.deepcopy(world)
    world["faults"] = list(faults)
    return world


class Sleeps(list):
    """Records requested sleeps instead of sleeping."""

    def __call__(self, seconds):
        self.append(seconds)


@pytest.fixture
def sleeps():
    return Sleeps()


def test_truncate_body_keeps_short_bodies_and_cuts_long_ones():
    assert truncate_body("short") == "short"
    cut = truncate_body("x" * 70_000, pointer="https://example/run/1")
    assert len(cut) <= MAX_COMMENT_CHARS and cut.endswith("see https://example/run/1)")
    wide = truncate_body("é" * 60_000 + "€" * 60_000)
    assert len(wide) <= MAX_COMMENT_CHARS and len(wide.encode()) <= 262_144


def test_from_env_reads_token_and_url():
    client = GitHubClient.from_env(env={"GITHUB_API_URL": "http://127.0.0.1:9", "GH_TOKEN": "t"})
    assert client.base_url == "http://127.0.0.1:9"
    assert GitHubClient.from_env(env={}).base_url == "https://api.github.com"


# --- helpers through the fake server ----------------------------------------------------------------


def test_login_from_get_user(fake_github, world, monkeypatch):
    monkeypatch.delenv("INFX_BOT_LOGIN", raising=False)
    fake = fake_github(world)
    client = fake.client()
    assert client.login == "github-actions[bot]"
    assert client.login == "github-actions[bot]"
    assert fake.count("GET", "^/user$") == 1


def test_login_falls_back_when_installation_token_cannot_read_user(fake_github, world, monkeypatch):
    monkeypatch.delenv("INFX_BOT_LOGIN", raising=False)
    fake = fake_github(with_faults(world, {"path": "^/user$", "status": 403,
                                           "message": "Resource not accessible by integration"}))
    assert fake.client().login == "github-actions[bot]"
    assert fake.count("GET", "^/user$") == 1


def test_login_named_by_the_environment_is_used_without_asking(fake_github, world, monkeypatch):
    # the workflows name the login (their tokens cannot read /user): no request is spent on it
    monkeypatch.setenv("INFX_BOT_LOGIN", "infx-bot[bot]")
    fake = fake_github(world)
    assert fake.client().login == "infx-bot[bot]"
    assert fake.count("GET", "^/user$") == 0


def test_upsert_creates_then_edits_then_leaves_alone(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    first = client.upsert_comment(REPO, 12, "infx-welcome", "Welcome!")
    assert first.action == "created"
    assert first.comment.body == "<!-- infx-welcome -->\nWelcome!"
    assert first.comment.user == "github-actions[bot]"
    assert first.comment.author_association == "NONE"
    assert client.upsert_comment(REPO, 12, "infx-welcome", "Welcome!").action == "unchanged"
    second = client.upsert_comment(REPO, 12, "infx-welcome", "Welcome back!")
    assert (second.action, second.comment.id) == ("updated", first.comment.id)
    assert fake.count("POST") == 1 and fake.count("PATCH") == 1
    bodies = [c["body"] for c in fake.world["pulls"][0]["comments"]]
    assert bodies.count("<!-- infx-welcome -->\nWelcome back!") == 1


def test_upsert_searches_the_callers_whole_listing_instead_of_listing_again(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    first = client.upsert_comment(REPO, 12, "infx-welcome", "Welcome!")
    listed = client.list_comments(REPO, 12)
    reads = fake.count("GET")
    # the comment the caller's listing holds is edited; a marker it lacks is created
    second = client.upsert_comment(REPO, 12, "infx-welcome", "Welcome back!", listed=listed)
    assert (second.action, second.comment.id) == ("updated", first.comment.id)
    assert client.upsert_comment(REPO, 12, "infx-other", "Hello", listed=listed).action == "created"
    assert fake.count("GET") == reads  # neither the conversation nor its count was read again
    assert fake.count("PATCH") == 1 and fake.count("POST") == 2


def test_upsert_ignores_someone_elses_copy_of_the_marker(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["comments"].append({
        "id": 150, "user": "mallory", "body": "<!-- infx-welcome -->\nfake", "author_association": "NONE"})
    fake = fake_github(world)
    result = fake.client().upsert_comment(REPO, 12, "infx-welcome", "real")
    assert result.action == "created" and result.comment.id != 150
    assert fake.world["pulls"][0]["comments"][1]["body"] == "<!-- infx-welcome -->\nfake"


def test_upsert_marker_fields_select_the_comment(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    client.upsert_comment(REPO, 12, make_marker("verdict", sha="aaa"), "PASS")
    result = client.upsert_comment(REPO, 12, make_marker("verdict", sha="bbb"), "PASS")
    assert result.action == "created"
    assert fake.count("POST", "/comments$") == 2


def test_upsert_truncates_long_bodies(fake_github, world):
    fake = fake_github(world)
    result = fake.client().upsert_comment(REPO, 12, "big", "y" * 100_000, pointer="the run log")
    assert len(result.comment.body) <= MAX_COMMENT_CHARS
    assert result.comment.body.startswith("<!-- big -->")
    assert "see the run log" in result.comment.body


def test_ambiguous_post_failure_never_duplicates(fake_github, world, sleeps):
    # the server stores the comment but answers 502: the client must find it, not post again
    fake = fake_github(with_faults(world, {"method": "POST", "path": "/issues/12/comments$",
                                           "status": 502, "times": 3, "apply": True}))
    result = fake.client(sleep=sleeps).upsert_comment(REPO, 12, "m", "hello")
    assert result.action == "created"
    assert fake.count("POST") == 1
    mine = [c for c in fake.world["pulls"][0]["comments"] if c["body"] == "<!-- m -->\nhello"]
    assert len(mine) == 1 and result.comment.id == mine[0]["id"]


def test_failed_post_is_retried_after_checking(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "POST", "path": "/issues/12/comments$",
                                           "status": 502, "times": 2}))
    result = fake.client(sleep=sleeps).upsert_comment(REPO, 12, "m", "hello")
    assert result.action == "created"
    assert fake.count("POST") == 3 and sleeps == [1.0, 2.0]
    methods = [r["method"] for r in fake.requests if r["path"].endswith("/comments")]
    assert methods == ["GET", "POST", "GET", "POST", "GET", "POST"]
    assert sum(c["body"] == "<!-- m -->\nhello" for c in fake.world["pulls"][0]["comments"]) == 1


def test_post_that_keeps_failing_gives_up_clearly(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "POST", "path": "/comments$", "status": 502}))
    with pytest.raises(GitHubError) as info:
        fake.client(sleep=sleeps, retries=2).upsert_comment(REPO, 12, "m", "hello")
    assert info.value.status == 502
    assert "commenting on acme/inferencex#12" in str(info.value)
    assert "gave up after 3 attempt(s)" in str(info.value)
    assert fake.count("POST") == 3
    assert not any("hello" in c["body"] for c in fake.world["pulls"][0]["comments"])


def test_secondary_rate_limit_on_post_waits_then_posts_once(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "POST", "path": "/comments$", "status": 403,
                                           "message": SECONDARY, "times": 1}))
    fake.client(sleep=sleeps).upsert_comment(REPO, 12, "m", "hello")
    assert sleeps == [60.0] and fake.count("POST") == 2


def test_get_502s_are_retried_inside_pagination(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/issues/12/comments$",
                                           "status": 502, "times": 2}))
    comments = fake.client(sleep=sleeps).list_comments(REPO, 12)
    assert [c.id for c in comments] == [101]
    assert sleeps == [1.0, 2.0]
    assert [r["status"] for r in fake.requests if r["path"].endswith("/comments")] == [502, 502, 200]


def test_403_with_retry_after_is_honoured(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/memberships/",
                                           "status": 403, "headers": {"Retry-After": "4"},
                                           "times": 1}))
    assert fake.client(sleep=sleeps).team_membership("acme", "core", "root") == "active"
    assert sleeps == [4.0]


def test_secondary_rate_limit_without_headers(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/permission$", "status": 403,
                                           "message": SECONDARY, "times": 1}))
    client = fake.client(sleep=sleeps, secondary_wait=30)
    assert client.collaborator_permission(REPO, "alice").permission == "write"
    assert sleeps == [30.0]


def test_primary_rate_limit_waits_until_reset(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/permission$", "status": 403,
                                           "message": "API rate limit exceeded for installation.",
                                           "headers": {"X-RateLimit-Remaining": "0",
                                                       "X-RateLimit-Reset": "1010"},
                                           "times": 1}))
    client = fake.client(sleep=sleeps, clock=lambda: 1000.0)
    assert client.collaborator_permission(REPO, "root").permission == "admin"
    assert sleeps == [11.0]


def test_wait_budget_bounds_retries_and_reports(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/check-runs$", "status": 503,
                                           "headers": {"Retry-After": "10"}}))
    client = fake.client(sleep=sleeps, max_wait=25)
    with pytest.raises(GitHubError) as info:
        client.get(f"/repos/{REPO}/commits/{HEAD}/check-runs", action="listing check runs",
                   permission="checks: read")
    assert sleeps == [10.0, 10.0]
    assert info.value.status == 503
    assert "20s of waiting" in str(info.value) and "3 attempt(s)" in str(info.value)


def test_rate_limit_beyond_budget_gives_up_without_sleeping(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/permission$", "status": 403,
                                           "message": SECONDARY}))
    with pytest.raises(GitHubError, match="rate limit") as info:
        fake.client(sleep=sleeps, max_wait=5).collaborator_permission(REPO, "alice")
    assert sleeps == [] and info.value.status == 403


def test_permission_errors_are_not_retried(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "POST", "path": "/statuses/", "status": 403,
                                           "message": "Resource not accessible by integration"}))
    with pytest.raises(GitHubError, match="statuses: write"):
        fake.client(sleep=sleeps).create_status(REPO, HEAD, "success", "ctx", "ok")
    assert sleeps == [] and fake.count("POST") == 1


def test_many_comments_across_pages(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["comments"] = [
        {"id": 1000 + i, "user": "alice" if i % 2 else "bob", "body": f"comment {i}"}
        for i in range(250)]
    fake = fake_github(world)
    comments = fake.client().list_comments(REPO, 12, expected=250)
    assert [c.body for c in comments] == [f"comment {i}" for i in range(250)]
    pages = fake.matching("GET", "/issues/12/comments$")
    assert [r["query"].get("page", "1") for r in pages] == ["1", "2", "3"]
    assert all(r["query"]["per_page"] == "100" for r in pages)


def test_truncated_pagination_is_detected(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["comments"] = [{"id": 1000 + i, "user": "bob", "body": str(i)}
                                     for i in range(150)]
    world["faults"] = [{"method": "GET", "path": "/issues/12/comments$", "truncate": True}]
    fake = fake_github(world)
    client = fake.client()
    assert len(client.list_comments(REPO, 12)) == 100  # silently short without a count
    with pytest.raises(GitHubError, match="got 100 of 150"):
        client.list_comments(REPO, 12, expected=150)


def test_upsert_finds_its_comment_on_a_later_page(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["comments"] = [{"id": 1000 + i, "user": "bob", "body": str(i)}
                                     for i in range(230)]
    world["pulls"][0]["comments"].append({"id": 2000, "user": "github-actions[bot]",
                                          "body": "<!-- m -->\nold"})
    fake = fake_github(world)
    result = fake.client().upsert_comment(REPO, 12, "m", "new")
    assert (result.action, result.comment.id) == ("updated", 2000)
    assert fake.count("POST") == 0


def test_get_comment(fake_github, world):
    comment = fake_github(world).client().get_comment(REPO, 101)
    assert (comment.user, comment.author_association) == ("alice", "MEMBER")


def test_create_status_cuts_description(fake_github, world):
    fake = fake_github(world)
    status = fake.client().create_status(REPO, HEAD, "pending", "codeowner-signoff-verify",
                                         "d" * 300, "https://example/run")
    assert len(status["description"]) == 140
    stored = fake.world["statuses"][HEAD][-1]
    assert (stored["state"], stored["context"], stored["creator"]) == (
        "pending", "codeowner-signoff-verify", "github-actions[bot]")
    with pytest.raises(ValueError):
        fake.client().create_status(REPO, HEAD, "done", "ctx")


def test_reactions_add_and_remove_only_the_bots_own(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    client.add_reaction(REPO, 101, "+1")
    client.add_reaction(REPO, 101, "+1")  # idempotent on GitHub
    reactions = fake.world["pulls"][0]["comments"][0]["reactions"]
    assert [(r["user"], r["content"]) for r in reactions] == [
        ("bob", "+1"), ("github-actions[bot]", "+1")]
    assert client.remove_reaction(REPO, 101, "+1") == 1
    assert [(r["user"], r["content"]) for r in reactions] == [("bob", "+1")]
    assert client.remove_reaction(REPO, 101, "-1") == 0
    with pytest.raises(ValueError):
        client.add_reaction(REPO, 101, "thumbsup")


def test_collaborator_permission(fake_github, world):
    client = fake_github(world).client()
    assert client.collaborator_permission(REPO, "root").role_name == "admin"
    assert client.collaborator_permission(REPO, "stranger").permission == "none"


def test_team_membership(fake_github, world):
    client = fake_github(world).client()
    assert client.team_membership("acme", "core", "root") == "active"
    assert client.team_membership("acme", "core", "dave") == "pending"
    assert client.team_membership("acme", "core", "alice") is None
    assert client.team_membership("acme", "missing", "root") is None


def test_team_membership_permanent_404_fault(fake_github, world):
    fake = fake_github(with_faults(world, {"path": "/memberships/", "status": 404}))
    assert fake.client().team_membership("acme", "core", "root") is None


def test_file_at_and_tree_at(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    assert "rocm/sgl:v2" in client.file_at(REPO, "configs/amd-master.yaml", HEAD)
    assert "rocm/sgl:v1" in client.file_at(REPO, "configs/amd-master.yaml", "main")
    assert client.file_at(REPO, "missing.txt", HEAD) is None
    assert client.file_at(REPO, "configs", HEAD) is None  # a directory
    tree = client.tree_at(REPO, HEAD)
    assert sorted(tree) == ["CODEOWNERS", "configs/amd-master.yaml", "docs/new-name.md",
                            "perf-changelog.yaml"]
    assert tree["CODEOWNERS"].startswith("* @acme/core")
    before = len(fake.requests)
    client.tree_at(REPO, "main")
    assert len(fake.requests) - before == 2  # the API call and the redirected download


def test_tree_of_unknown_ref(fake_github, world):
    with pytest.raises(GitHubError) as info:
        fake_github(world).client().tree_at(REPO, "no-such-branch")
    assert info.value.status == 404


def test_artifacts_list_download_and_json(fake_github, world):
    client = fake_github(world).client()
    artifacts = client.run_artifacts(REPO, 35873197630)
    assert [(a.name, a.expired) for a in artifacts] == [("eval_results_all", False),
                                                        ("old_results", True)]
    members = client.download_artifact(REPO, artifacts[0].id)
    assert members["notes.txt"] == b"plain text\n"
    assert json.loads(members["agg_eval_all.json"]) == [{"task": "gsm8k", "em_strict": 0.95}]


def test_expired_artifact_is_a_410(fake_github, world):
    client = fake_github(world).client()
    with pytest.raises(GitHubError) as info:
        client.download_artifact(REPO, 2)
    assert info.value.status == 410


def test_missing_artifact_and_run(fake_github, world):
    client = fake_github(world).client()
    with pytest.raises(GitHubError) as info:
        client.download_artifact(REPO, 999)
    assert info.value.status == 404
    with pytest.raises(GitHubError, match="actions: read"):
        client.run_artifacts(REPO, 1)


def test_pygithub_repository_objects_are_accepted(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    repo = client.repo(REPO)
    assert client.collaborator_permission(repo, "alice").permission == "write"
    assert repo.get_pull(12).changed_files == 4


def test_bad_token_is_explained(fake_github, world):
    fake = fake_github(with_faults(world, {"path": "/comments$", "status": 401,
                                           "message": "Bad credentials"}))
    with pytest.raises(GitHubError, match="GITHUB_TOKEN"):
        fake.client().list_comments(REPO, 12)


def test_unreachable_server_is_explained(sleeps):
    client = GitHubClient(token="t", base_url="http://127.0.0.1:9",
                          policy=RetryPolicy(sleep=sleeps, retries=1))
    with pytest.raises(GitHubError, match="no answer") as info:
        client.get("/user", action="reading the user", permission="any")
    assert info.value.status is None


def test_pull_helpers_return_github_json(fake_github, world):
    client = fake_github(world).client()
    pull = client.get_pull(REPO, 12)
    files = client.pull_files(REPO, 12, expected=pull["changed_files"])
    assert [f["status"] for f in files] == ["modified", "renamed", "added", "removed"]
    commits = client.pull_commits(REPO, 12, expected=pull["commits"])
    assert [c["sha"] for c in commits][-1] == HEAD
    assert [r["state"] for r in client.pull_reviews(REPO, 12)] == ["APPROVED"]


def test_check_runs_statuses_runs_and_codeowners(fake_github, world):
    client = fake_github(world).client()
    assert [r["id"] for r in client.check_runs(REPO, HEAD)] == [9002]
    assert [r["id"] for r in client.check_runs(REPO, HEAD, latest=False)] == [9001, 9002]
    client.create_status(REPO, HEAD, "success", "ctx", "ok")
    assert [s["state"] for s in client.statuses(REPO, HEAD)] == ["success"]
    assert [r["id"] for r in client.workflow_runs(REPO, head_sha=HEAD)] == [35873197630]
    assert client.workflow_runs(REPO, event="push") == []
    assert client.get_run(REPO, 35873197630)["run_attempt"] == 2
    assert client.codeowners_errors(REPO, ref="main") == []


def test_truncated_wrapped_list_is_detected_from_total_count(fake_github, world):
    world = copy.deepcopy(world)
    world["check_runs"][HEAD] = [{"id": 100 + i, "name": f"job {i}", "status": "completed",
                                  "conclusion": "success"} for i in range(120)]
    world["faults"] = [{"method": "GET", "path": "/check-runs$", "truncate": True}]
    with pytest.raises(GitHubError, match="got 100 of 120"):
        fake_github(world).client().check_runs(REPO, HEAD)


def test_a_listing_cut_at_githubs_1000_results_is_never_taken_for_the_whole(fake_github, world):
    world = copy.deepcopy(world)
    world["check_runs"][HEAD] = [{"id": 100 + i, "name": f"job {i}", "status": "completed",
                                  "conclusion": "success"} for i in range(1_200)]
    with pytest.raises(ListingCapped, match="at most 1,000 results .* there are 1,200") as cut:
        fake_github(world).client().check_runs(REPO, HEAD)
    assert (cut.value.cap, cut.value.total) == (1000, 1_200)
    assert "re-running cannot help" in str(cut.value)


def test_a_wrapped_list_whose_count_moves_between_pages_is_incomplete(fake_github, world):
    world = copy.deepcopy(world)
    world["check_runs"][HEAD] = [{"id": 100 + i, "name": f"job {i}", "status": "completed",
                                  "conclusion": "success"} for i in range(150)]
    fake = fake_github(world)
    client = fake.client()
    real = client._json

    def growing(verb, path, **kwargs):  # a check run arrives while the pages are read
        answer = real(verb, path, **kwargs)
        if "page=2" not in path:
            fake.world["check_runs"][HEAD].append({"id": 999, "name": "late", "status": "queued"})
            requests.post(f"{fake.url}/repos/{REPO}/statuses/{HEAD}", json={"state": "pending"},
                          headers={"Authorization": "token x"}, timeout=10)  # page 2 derives afresh
        return answer

    client._json = growing
    with pytest.raises(GitHubError, match="the list changed while it was read .*150 items, then 151"):
        client.check_runs(REPO, HEAD)


def test_the_request_budget_counts_every_page_download_and_retry(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "/issues/12/comments$",
                                           "status": 502, "times": 2}))
    client = fake.client(sleep=sleeps)
    budget = RequestBudget(cap=None)
    client.use_budget(budget)
    client.list_comments(REPO, 12)  # two 502s retried by urllib3, then the page
    client.tree_at(REPO, HEAD)  # the API's redirect, then the storage host's tarball
    assert budget.used == len(fake.requests) == 5


def test_the_request_past_the_budget_is_never_sent_and_writes_may_pass_it(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    budget = RequestBudget(cap=1)
    client.use_budget(budget)
    client.get_pull(REPO, 12)
    with pytest.raises(BudgetExceeded, match="budget of 1 HTTP requests reached before listing"):
        client.pull_files(REPO, 12)
    assert len(fake.requests) == 1
    with budget.uncapped():
        client.create_status(REPO, HEAD, "error", "ctx", "budget spent")
    assert budget.used == len(fake.requests) == 2


def test_past_githubs_pull_request_caps_the_error_names_the_cap_before_listing(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    with pytest.raises(ListingCapped, match="has 260 commits .* at most 250 commits") as cut:
        client.pull_commits(REPO, 12, expected=260)
    assert "squash" in str(cut.value)
    with pytest.raises(ListingCapped, match="has 3,001 files .* at most 3,000 files .*split"):
        client.pull_files(REPO, 12, expected=3_001)
    assert fake.requests == []
    assert len(client.pull_commits(REPO, 12, expected=2)) == 2


def test_pr_files_truncation_against_changed_files(fake_github, world):
    world = copy.deepcopy(world)
    many = {f"configs/f{i:03}.yaml": f"v: {i}\n" for i in range(130)}
    world["commits"][HEAD]["files"].update(many)
    world["faults"] = [{"method": "GET", "path": "/pulls/12/files$", "truncate": True}]
    client = fake_github(world).client()
    pull = client.get_pull(REPO, 12)
    assert pull["changed_files"] == 134
    with pytest.raises(GitHubError, match="got 100 of 134"):
        client.pull_files(REPO, 12, expected=pull["changed_files"])


def test_retry_after_403_that_outlasts_the_budget_is_reported_as_a_rate_limit(
        fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"path": "/permission$", "status": 403,
                                           "headers": {"Retry-After": "50"}, "message": "slow"}))
    with pytest.raises(GitHubError, match="rate limit") as info:
        fake.client(sleep=sleeps, max_wait=60).collaborator_permission(REPO, "alice")
    assert sleeps == [50.0] and info.value.status == 403


def test_run_jobs_latest_all_and_one_attempt(fake_github, world):
    world = copy.deepcopy(world)
    world["check_runs"][HEAD].append({"id": 9005, "name": "eval / gsm8k", "status": "completed",
                                      "conclusion": "success", "run_id": 35873197630,
                                      "run_attempt": 1, "labels": ["mi355x"]})
    client = fake_github(world).client()
    latest = client.run_jobs(REPO, 35873197630)
    assert [(j.id, j.name, j.run_attempt, j.conclusion) for j in latest] == [
        (9002, "single-node 8k1k", 2, "success"), (9005, "eval / gsm8k", 1, "success")]
    assert latest[1].labels == ("mi355x",) and latest[0].head_sha == HEAD
    assert [j.id for j in client.run_jobs(REPO, 35873197630, latest=False)] == [9001, 9002, 9005]
    assert [j.id for j in client.run_jobs(REPO, 35873197630, attempt=1)] == [9001, 9005]
    with pytest.raises(GitHubError) as missing:
        client.run_jobs(REPO, 1)
    assert missing.value.status == 404


# --- downloads from the storage host -------------------------------------------------------------


def test_downloads_come_from_the_storage_host_without_credentials(fake_github, world):
    fake = fake_github(world)
    client = fake.client()
    assert client.download_artifact(REPO, 1)["notes.txt"] == b"plain text\n"
    assert "CODEOWNERS" in client.tree_at(REPO, HEAD)
    storage = [r for r in fake.requests if r["origin"] == "storage"]
    assert [r["path"].rsplit("/", 1)[-1] for r in storage] == ["1.zip", HEAD]
    assert not any(r["authorization"] for r in storage)
    assert all(r["authorization"] for r in fake.requests if r["origin"] == "api")


def test_downloads_are_plain_io_files_in_memory_and_on_disk(fake_github, world, monkeypatch):
    """Python 3.10's tempfile.SpooledTemporaryFile lacks seekable(), which zipfile calls: a
    download is a BytesIO, or past SPOOL_IN_MEMORY a real temporary file, and both read."""
    import io

    from infx.github import transport

    client = fake_github(world).client()
    path = f"/repos/{REPO}/actions/artifacts/1/zip"
    with client.download(path, action="a test download", permission="actions: read") as blob:
        assert type(blob) is io.BytesIO and blob.tell() == 0
    monkeypatch.setattr(transport, "SPOOL_IN_MEMORY", 16)
    with client.download(path, action="a test download", permission="actions: read") as blob:
        assert type(blob) is io.BufferedRandom and blob.tell() == 0 and blob.seekable()
    assert client.download_artifact(REPO, 1)["notes.txt"] == b"plain text\n"


def test_storage_errors_are_retried_and_mapped(fake_github, world, sleeps):
    fake = fake_github(with_faults(world, {"path": "^/_fake/artifacts/", "status": 503,
                                           "times": 2}))
    assert fake.client(sleep=sleeps).download_artifact(REPO, 1)["notes.txt"] == b"plain text\n"
    assert len(sleeps) == 2
    gone = fake_github(with_faults(world, {"path": "^/_fake/artifacts/", "status": 403}))
    with pytest.raises(GitHubError, match="refused downloading artifact 1") as refused:
        gone.client().download_artifact(REPO, 1)
    assert refused.value.status == 403


def test_declared_artifact_size_over_the_cap_is_refused_before_downloading(fake_github, world):
    from infx.github.archives import ArchiveLimitError, ArchiveLimits

    fake = fake_github(world)
    limits = ArchiveLimits(download_bytes=100, member_bytes=10, total_bytes=10,
                           expanded_bytes=10, members=5)
    with pytest.raises(ArchiveLimitError, match="artifact eval_results_all .1.*download_bytes"):
        fake.client(limits=limits).download_artifact(REPO, 1, name="eval_results_all",
                                                     size_in_bytes=101)
    assert fake.count("GET", "/zip$") == 0
    with pytest.raises(ArchiveLimitError, match="served size"):  # Content-Length checked too
        fake.client(limits=limits).download_artifact(REPO, 1)
    assert fake.count("GET", r"\.zip$") == 1


def _raiser(exc):
    def fail(*args, **kwargs):
        raise exc
    return fail


def _library_errors():
    import http.client

    import requests
    import urllib3
    from github import GithubException

    return [
        requests.exceptions.ConnectionError("refused"), requests.exceptions.Timeout("slow"),
        requests.exceptions.ChunkedEncodingError("cut"),
        requests.exceptions.ContentDecodingError("bad gzip"),
        requests.exceptions.TooManyRedirects("loop"), requests.exceptions.InvalidURL("x"),
        requests.exceptions.RetryError("budget"), urllib3.exceptions.ProtocolError("reset"),
        urllib3.exceptions.ReadTimeoutError(None, "/", "slow"),
        http.client.IncompleteRead(b"", 10), ConnectionResetError("reset"), OSError("disk"),
        AssertionError("redirect host not allowed"), ValueError("Expecting value"),
        KeyError("login"), TypeError("NoneType"), RuntimeError("redirected to another host"),
        GithubException(500, {"message": "boom"}, {}),
    ]


@pytest.mark.parametrize("error", _library_errors(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("stage", ["api", "storage"])
def test_no_library_exception_escapes_a_download(fake_github, world, monkeypatch, sleeps,
                                                 error, stage):
    client = fake_github(world).client(sleep=sleeps)
    if stage == "api":
        monkeypatch.setattr(client.gh.requester, "requestJson", _raiser(error))
    else:
        monkeypatch.setattr(client.storage, "get", _raiser(error))
    with pytest.raises(GitHubError) as failed:
        client.download_artifact(REPO, 1)
    assert "artifact 1" in str(failed.value)


@pytest.mark.parametrize("error", _library_errors(), ids=lambda e: type(e).__name__)
def test_no_library_exception_escapes_a_json_call(fake_github, world, monkeypatch, sleeps, error):
    client = fake_github(world).client(sleep=sleeps)
    monkeypatch.setattr(client.gh.requester, "requestJsonAndCheck", _raiser(error))
    with pytest.raises(GitHubError):
        client.get_pull(REPO, 12)


@pytest.mark.parametrize("entry,permission,role", [
    ({"role_name": "maintain"}, "write", "maintain"),
    ({"permission": "read", "role_name": "triage"}, "read", "triage"),
    ({"permission": "write", "role_name": "write"}, "write", "write"),
    ({"permission": "admin"}, "admin", "admin"),
])
def test_permission_and_role_name_as_github_serves_them(fake_github, world, entry, permission,
                                                         role):
    world = copy.deepcopy(world)
    world["collaborators"]["dave"] = entry
    fake = fake_github(world)
    record = fake.client().collaborator_permission(REPO, "dave")
    assert (record.permission, record.role_name) == (permission, role)
    assert fake.github().get_repo(REPO).get_collaborator_permission("dave") == permission


@pytest.mark.parametrize("body", ["<html>Unicorn!</html>", "[]", '{"unexpected": true}', "null"])
def test_bodies_that_are_not_what_they_claim_are_mapped(fake_github, world, body):
    fake = fake_github(with_faults(world, {"method": "GET", "path": "^/", "body": body}))
    client = fake.client()
    calls = [lambda: client.list_comments(REPO, 12), lambda: client.run_artifacts(REPO, 35873197630),
             lambda: client.run_jobs(REPO, 35873197630), lambda: client.get_comment(REPO, 101),
             lambda: client.collaborator_permission(REPO, "alice"),
             lambda: client.check_runs(REPO, HEAD), lambda: client.download_artifact(REPO, 1),
             lambda: client.tree_at(REPO, HEAD)]
    for call in calls:
        try:
            call()
        except InfxError:
            continue
        # an answer that parses into an empty, well-formed result is allowed; nothing else
        assert body in ("[]", "null", '{"unexpected": true}')
    with pytest.raises(InfxError):
        client.get_comment(REPO, 101)


def test_new_fault_kinds_reach_the_client_as_mapped_errors(fake_github, world, sleeps):
    limited = fake_github(with_faults(world, {"method": "GET", "path": "/pulls/12$", "reset_in": 5}))
    with pytest.raises(GitHubError, match="rate limit") as rate:
        limited.client(sleep=sleeps).get_pull(REPO, 12)
    assert rate.value.status == 403 and sleeps and all(4 <= s <= 7 for s in sleeps)
    for status, needle in ((401, "rejected the token"), (410, "gone"), (429, "rate limit")):
        fake = fake_github(with_faults(world, {"method": "GET", "path": "/pulls/12$",
                                               "status": status}))
        with pytest.raises(GitHubError, match=needle):
            fake.client(sleep=sleeps).get_pull(REPO, 12)
    slow = fake_github(with_faults(world, {"method": "GET", "path": "/pulls/12$", "delay": 0.05}))
    assert slow.client().get_pull(REPO, 12)["number"] == 12
    rejected = fake_github(with_faults(world, {"method": "POST", "path": "/statuses/",
                                               "status": 422}))
    with pytest.raises(GitHubError, match="rejected setting status") as invalid:
        rejected.client(sleep=sleeps).create_status(REPO, HEAD, "success", "ctx")
    assert invalid.value.status == 422 and rejected.count("POST") == 1  # never retried
def test_a_shared_wait_budget_spans_calls(fake_github) -> None:
    """share_wait_budget(): two reads that each need a 6 s wait fit a 10 s budget per call,
    but not one budget per run; a write still gets its own budget."""
    world = {"repo": "o/r", "branches": {"main": "a" * 40},
             "commits": {"a" * 40: {"parents": [], "files": {"README.md": "x\n"}}},
             "faults": [{"method": "GET", "path": "/branches/main$", "status": 502,
                         "headers": {"Retry-After": "6"}, "times": 1},
                        {"method": "GET", "path": "/repos/o/r$", "status": 502,
                         "headers": {"Retry-After": "6"}, "times": 1}]}
    per_call = fake_github(world).client(max_wait=10)
    per_call.get("/repos/o/r/branches/main", action="a", permission="p")
    per_call.get("/repos/o/r", action="b", permission="p")
    shared = fake_github(world).client(max_wait=10)
    shared.share_wait_budget()
    shared.get("/repos/o/r/branches/main", action="a", permission="p")
    with pytest.raises(GitHubError, match="gave up"):
        shared.get("/repos/o/r", action="b", permission="p")


# --- check runs (the Checks API writes) ------------------------------------------------------


def _notes(count: int, start: int = 1):
    from infx.github.checks import Annotation

    return tuple(Annotation("configs/a.yaml", i, i, "failure", f"finding {i}") for i in range(start, start + count))


def test_a_check_run_is_created_and_its_annotations_appended_in_batches_of_fifty(fake_github, world):
    from infx.github.checks import CheckOutput

    fake = fake_github(world)
    client = fake.client()
    notes = _notes(120)
    output = CheckOutput("Verdict: REJECTED", "summary", "| table |", notes)
    run = client.create_check_run(REPO, HEAD, "codeowner-signoff-verify", output, conclusion="failure",
                                  details_url="https://github.com/acme/inferencex/pull/12", external_id="e1")
    assert run.app_slug == "github-actions" and run.conclusion == "failure" and run.annotations_count == 50
    for batch in (notes[50:100], notes[100:]):
        run = client.update_check_run(REPO, run.id, output, batch)
    recorded = next(r for r in fake.world["check_runs"][HEAD] if r["id"] == run.id)
    assert [a["start_line"] for a in recorded["output"]["annotations"]] == list(range(1, 121))
    assert recorded["output"]["summary"] == "summary" and recorded["output"]["text"] == "| table |"
    assert run.annotations_count == 120 and run.html_url.endswith(f"/runs/{run.id}")
    assert [r.id for r in client.named_check_runs(REPO, HEAD, "codeowner-signoff-verify")] == [run.id]
    listed = client.paginate(f"/repos/{REPO}/check-runs/{run.id}/annotations", action="a", permission="p")
    assert len(listed) == 120 and listed[0]["path"] == "configs/a.yaml"
    assert fake.count("POST", "/check-runs$") == 1 and fake.count("PATCH", "/check-runs/") == 2
    with pytest.raises(ValueError):
        client.update_check_run(REPO, run.id, output, _notes(51))


def test_the_fake_checks_check_run_writes_like_github(fake_github, world):
    fake = fake_github(world)
    gh = fake.client()

    def post(body):
        return gh._json("POST", f"/repos/{REPO}/check-runs", body=body)

    base = {"name": "n", "head_sha": HEAD}
    for bad in ({"name": "n"}, base | {"head_sha": "f" * 40}, base | {"status": "completed"},
                base | {"conclusion": "great"}, base | {"output": {"summary": "no title"}},
                base | {"output": {"title": "t", "summary": "s",
                                   "annotations": [{"path": "a", "start_line": 1, "end_line": 1,
                                                    "annotation_level": "failure", "message": "m"}] * 51}},
                base | {"output": {"title": "t", "summary": "s",
                                   "annotations": [{"path": "a", "start_line": 3, "end_line": 2,
                                                    "annotation_level": "failure", "message": "m"}]}}):
        with pytest.raises(Exception) as caught:
            post(bad)
        assert getattr(caught.value, "status", None) == 422, bad
    _, created = post(base | {"conclusion": "success"})
    assert created["status"] == "completed" and created["app"]["slug"] == "github-actions"


def test_only_the_app_that_wrote_a_check_run_may_update_it_and_checks_write_is_needed(fake_github, world):
    from infx.github.checks import CheckOutput

    world = copy.deepcopy(world)
    world["app"] = {"id": 77, "slug": "infx-signoff", "installation_id": 5}
    world["check_runs"].setdefault(HEAD, []).append(
        {"id": 9100, "name": "codeowner-signoff-verify", "status": "completed", "conclusion": "success",
         "app": {"id": 77, "slug": "infx-signoff"}})
    fake = fake_github(world)
    output = CheckOutput("t", "s")
    with pytest.raises(GitHubError) as caught:  # a GITHUB_TOKEN writes as GitHub Actions
        fake.client().update_check_run(REPO, 9100, output, conclusion="failure")
    assert caught.value.status == 403
    fake.world["token_login"] = "infx-signoff[bot]"
    updated = fake.client(app_login="infx-signoff[bot]").update_check_run(REPO, 9100, output,
                                                                           conclusion="failure")
    assert updated.app_slug == "infx-signoff" and updated.conclusion == "failure"
    fake.world["token_permissions"] = {"checks": "read", "statuses": "write"}  # no checks: write
    with pytest.raises(GitHubError) as caught:
        fake.client(app_login="infx-signoff[bot]").create_check_run(REPO, HEAD, "x", output,
                                                                    conclusion="success")
    assert caught.value.status == 403
