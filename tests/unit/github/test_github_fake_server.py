"""The fake GitHub server through unmodified PyGithub over real HTTP."""

import copy
import gzip
import io
import tarfile
import time
import zipfile

import pytest
import requests
from github import GithubException, UnknownObjectException
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.github.fake import FakeGitHub
from infx.github.fake.http import Request, Response
from infx.github.fake.server import paginate
from infx.github.fake.world import load_world

REPO = "acme/inferencex"
BASE = "c0ffee0000000000000000000000000000000000"
HEAD = "beef010000000000000000000000000000000000"
RUN = 35873197630


@pytest.fixture
def world(test_data):
    return load_world(test_data / "github" / "worlds" / "basic.yaml")


@pytest.fixture
def fake(fake_github, world):
    return fake_github(world)


@pytest.fixture
def repo(fake):
    return fake.github().get_repo(REPO)


def test_user_and_repository(fake, repo, fake_github, world):
    with pytest.raises(GithubException) as forbidden:  # an installation token, as in Actions
        fake.github().get_user().login  # noqa: B018 - the request is the test
    assert forbidden.value.status == 403
    as_user = fake_github(copy.deepcopy(world) | {"token_kind": "user"})
    assert as_user.github().get_user().login == "github-actions[bot]"
    assert (repo.full_name, repo.default_branch) == (REPO, "main")
    assert repo.get_branch("main").commit.sha == BASE


def test_pull_request_fields_and_counts(repo):
    pr = repo.get_pull(12)
    assert (pr.title, pr.user.login, pr.state, pr.draft, pr.merged) == (
        "Bump MI355X ATOM image", "carol", "open", False, False)
    assert (pr.head.sha, pr.base.sha, pr.head.ref) == (HEAD, BASE, "carol/bump")
    assert (pr.changed_files, pr.commits, pr.comments, pr.review_comments) == (4, 2, 1, 1)
    assert (pr.additions, pr.deletions) == (3, 2)
    assert [label.name for label in pr.labels] == ["full-sweep-fail-fast"]
    assert [p.number for p in repo.get_pulls(state="open")] == [12]
    assert list(repo.get_pulls(state="closed")) == []


def test_pull_files_renames_and_patches(repo):
    files = {f.filename: f for f in repo.get_pull(12).get_files()}
    assert {name: f.status for name, f in files.items()} == {
        "configs/amd-master.yaml": "modified", "docs/new-name.md": "renamed",
        "perf-changelog.yaml": "added", "scripts/remove-me.sh": "removed"}
    assert files["docs/new-name.md"].previous_filename == "docs/old-name.md"
    assert "+  image: rocm/sgl:v2" in files["configs/amd-master.yaml"].patch


def test_pull_diff_media_type(fake):
    diff = requests.get(f"{fake.url}/repos/{REPO}/pulls/12", timeout=5,
                        headers={"Accept": "application/vnd.github.diff"}).text
    assert diff.startswith("diff --git a/configs/amd-master.yaml b/configs/amd-master.yaml")
    assert "rename from docs/old-name.md" in diff


def test_commits_reviews_review_comments(repo):
    pr = repo.get_pull(12)
    commits = list(pr.get_commits())
    assert [c.sha for c in commits] == ["beef000000000000000000000000000000000000", HEAD]
    assert commits[1].commit.message == "rename doc, add changelog, drop script"
    assert commits[1].parents[0].sha == "beef000000000000000000000000000000000000"
    assert [(r.user.login, r.state, r.commit_id) for r in pr.get_reviews()] == [
        ("bob", "APPROVED", HEAD)]
    assert [(c.user.login, c.path, c.body) for c in pr.get_review_comments()] == [
        ("bob", "configs/amd-master.yaml", "nit")]


def test_single_commit_lists_its_files(repo):
    commit = repo.get_commit("beef000000000000000000000000000000000000")
    assert [f.filename for f in commit.files] == ["configs/amd-master.yaml"]


def test_issue_comments_create_edit_delete(fake, repo):
    issue = repo.get_issue(12)
    assert issue.pull_request is not None
    created = issue.create_comment("hello")
    assert (created.id, created.user.login) == (302, "github-actions[bot]")
    stored = fake.world["pulls"][0]["comments"][-1]
    assert (stored["author_association"], stored["created_at"]) == ("NONE", "2026-09-30T12:00:00Z")
    created.edit("hello again")
    assert repo.get_issue(12).get_comment(302).body == "hello again"
    created.delete()
    assert [c.id for c in issue.get_comments()] == [101]


def test_reactions_through_pygithub(fake, repo):
    comment = repo.get_issue(12).get_comment(101)
    reaction = comment.create_reaction("rocket")
    assert [(r.user.login, r.content) for r in comment.get_reactions()] == [
        ("bob", "+1"), ("github-actions[bot]", "rocket")]
    assert comment.delete_reaction(reaction.id)
    assert len(fake.world["pulls"][0]["comments"][0]["reactions"]) == 1


def test_labels_add_and_remove(fake, repo):
    issue = repo.get_issue(12)
    issue.add_to_labels("all-evals")
    issue.remove_from_labels("full-sweep-fail-fast")
    assert fake.world["pulls"][0]["labels"] == ["all-evals"]
    assert [label.name for label in repo.get_labels()] == ["all-evals"]


def test_statuses_and_combined_state(fake, repo):
    commit = repo.get_commit(HEAD)
    assert commit.get_combined_status().state == "pending"  # nothing reported yet
    commit.create_status("pending", context="codeowner-signoff-verify", description="Verifying")
    commit.create_status("success", context="codeowner-signoff-verify", description="ok")
    commit.create_status("success", context="other")
    combined = commit.get_combined_status()
    assert (combined.state, combined.total_count) == ("success", 2)
    assert [s.state for s in commit.get_statuses()] == ["success", "success", "pending"]
    commit.create_status("failure", context="Other")  # contexts are case-insensitive
    assert commit.get_combined_status().state == "failure"
    assert len(fake.world["statuses"][HEAD]) == 4


def test_status_validation(fake):
    url = f"{fake.url}/repos/{REPO}/statuses/{HEAD}"
    auth = {"Authorization": "token x"}
    assert requests.post(url, json={"state": "done"}, headers=auth, timeout=5).status_code == 422
    long = requests.post(url, json={"state": "success", "description": "d" * 141}, headers=auth,
                         timeout=5)
    assert long.status_code == 422
    assert requests.post(f"{fake.url}/repos/{REPO}/statuses/{'a' * 40}", json={"state": "success"},
                         headers=auth, timeout=5).status_code == 422


def test_check_runs_latest_and_all(fake, repo):
    latest = list(repo.get_commit(HEAD).get_check_runs())
    assert [(r.id, r.conclusion) for r in latest] == [(9002, "success")]
    everything = list(repo.get_commit(HEAD).get_check_runs(filter="all"))
    assert [r.id for r in everything] == [9001, 9002]
    assert everything[0].details_url.endswith("/job/1")
    assert list(repo.get_commit(BASE).get_check_runs()) == []


def test_workflow_runs_filters_and_artifacts(repo):
    runs = repo.get_workflow_runs(head_sha=HEAD, event="pull_request", status="success")
    assert [r.id for r in runs] == [RUN]
    assert list(repo.get_workflow_runs(event="push")) == []
    run = repo.get_workflow_run(RUN)
    assert (run.name, run.run_attempt, run.head_branch) == ("Run Sweep", 2, "carol/bump")
    artifacts = list(run.get_artifacts())
    assert [(a.name, a.expired) for a in artifacts] == [("eval_results_all", False),
                                                        ("old_results", True)]
    assert [a.name for a in repo.get_artifacts(name="old_results")] == ["old_results"]
    assert repo.get_artifact(1).workflow_run.id == RUN


def test_artifact_zip_redirect_and_expiry(fake):
    auth = {"Authorization": "token x"}
    link = requests.get(f"{fake.url}/repos/{REPO}/actions/artifacts/1/zip", headers=auth,
                        allow_redirects=False, timeout=5)
    location = link.headers["Location"]
    assert link.status_code == 302 and location.startswith(fake.storage_url + "/")
    assert "/1.zip?sig=" in location and fake.storage_url.startswith("http://localhost:")
    # the storage host serves the signed URL, without credentials only; the API host does not
    assert requests.get(location, timeout=5).content.startswith(b"PK")
    assert requests.get(location, headers=auth, timeout=5).status_code == 400
    assert requests.get(location.split("?")[0], timeout=5).status_code == 403
    assert requests.get(fake.url + location[len(fake.storage_url):], timeout=5).status_code == 404
    expired = requests.get(f"{fake.url}/repos/{REPO}/actions/artifacts/2/zip", headers=auth,
                           timeout=5)
    assert expired.status_code == 410 and expired.json()["message"] == "Artifact has expired"


def test_contents_are_base64_like_github(repo):
    content = repo.get_contents("configs/amd-master.yaml", ref=HEAD)
    assert content.encoding == "base64" and content.type == "file"
    assert b"rocm/sgl:v2" in content.decoded_content
    listing = repo.get_contents("configs", ref="main")
    assert [c.path for c in listing] == ["configs/amd-master.yaml"]
    with pytest.raises(UnknownObjectException):
        repo.get_contents("nope.md", ref="main")


def test_tarball_redirect_and_layout(fake, repo):
    link = repo.get_archive_link("tarball", HEAD)
    assert link.startswith(f"{fake.storage_url}/_fake/tarball/{REPO}/{HEAD}?sig=")
    blob = requests.get(link, timeout=5).content
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as archive:
        names = archive.getnames()
    assert names[0] == f"acme-inferencex-{HEAD[:7]}/CODEOWNERS"


def test_collaborators_teams_codeowners(fake, repo):
    assert repo.get_collaborator_permission("alice") == "write"
    with pytest.raises(UnknownObjectException):
        repo.get_collaborator_permission("nobody")
    team = fake.github().get_organization("acme").get_team_by_slug("core")
    assert team.get_team_membership("root").state == "active"
    with pytest.raises(UnknownObjectException):
        team.get_team_membership("alice")
    with pytest.raises(UnknownObjectException):
        fake.github().get_organization("acme").get_team_by_slug("ghosts")
    assert requests.get(f"{fake.url}/repos/{REPO}/codeowners/errors",
                        timeout=5).json() == {"errors": []}


def test_external_repository_pulls(fake):
    ext = fake.github().get_repo("vllm-project/recipes")
    pr = ext.get_pull(123)
    assert (pr.state, pr.merged) == ("closed", True)
    files = list(pr.get_files())
    assert [(f.filename, f.additions, f.deletions) for f in files] == [("DeepSeek/R1.md", 1, 1)]
    with pytest.raises(UnknownObjectException):
        ext.get_pull(124)


def test_external_repository_files_by_ref(fake_github, world):
    world = copy.deepcopy(world)
    world["external"]["vllm-project/recipes"]["files"] = {"main": {"models/o/m.yaml": "guide: |\n  vllm serve o/m\n"}}
    fake = fake_github(world)
    client = fake.client()
    assert client.file_at("vllm-project/recipes", "models/o/m.yaml", "main") == "guide: |\n  vllm serve o/m\n"
    assert client.file_at("vllm-project/recipes", "models/o/m.yaml", "other") is None  # unknown ref
    assert client.file_at("vllm-project/recipes", "models/o/x.yaml", "main") is None
    assert client.file_at("vllm-project/recipes", "models/o", "main") is None  # no directory listings
    ext = fake.github().get_repo("vllm-project/recipes")
    assert ext.get_contents("models/o/m.yaml", ref="main").decoded_content == b"guide: |\n  vllm serve o/m\n"


def test_fork_pull_request(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["head"]["repo"] = "carol/inferencex"
    pr = fake_github(world).github().get_repo(REPO).get_pull(12)
    assert pr.head.repo.full_name == "carol/inferencex"
    assert pr.base.repo.full_name == REPO


def test_writes_need_a_token(fake):
    answer = requests.post(f"{fake.url}/repos/{REPO}/issues/12/comments", json={"body": "x"},
                           timeout=5)
    assert answer.status_code == 401
    assert answer.json()["message"] == "Requires authentication"


def test_unknown_paths_and_objects_are_404_with_github_body(fake, repo):
    answer = requests.get(f"{fake.url}/repos/{REPO}/nothing-here", timeout=5)
    assert answer.status_code == 404
    assert set(answer.json()) >= {"message", "documentation_url"}
    with pytest.raises(UnknownObjectException):
        repo.get_pull(99)
    with pytest.raises(UnknownObjectException):
        fake.github().get_repo("other/repo").get_pull(1)


def test_request_log(fake, repo):
    repo.get_pull(12)
    repo.get_issue(12).create_comment("x")
    assert fake.count("GET", "^/repos/acme/inferencex/pulls/12$") == 1
    post = fake.matching("POST")[0]
    assert (post["path"], post["status"], post["body"]) == (
        "/repos/acme/inferencex/issues/12/comments", 201, {"body": "x"})


def test_faults_apply_in_order_and_count_down(fake_github, world):
    world = copy.deepcopy(world)
    world["faults"] = [
        {"method": "GET", "path": "^/repos/.*/check-runs", "status": 502, "times": 2},
        {"method": "GET", "path": "^/repos/.*/check-runs", "status": 500, "times": 1},
        {"method": "GET", "path": "^/orgs/", "status": 404},
    ]
    fake = fake_github(world)
    url = f"{fake.url}/repos/{REPO}/commits/{HEAD}/check-runs"
    assert [requests.get(url, timeout=5).status_code for _ in range(4)] == [502, 502, 500, 200]
    assert all(requests.get(f"{fake.url}/orgs/acme", timeout=5).status_code == 404
               for _ in range(3))


def test_after_lets_the_first_matching_requests_through(fake_github, world):
    world = copy.deepcopy(world)
    world["faults"] = [{"method": "GET", "path": r"/pulls/\d+$", "status": 502, "after": 2}]
    fake = fake_github(world)
    url = f"{fake.url}/repos/{REPO}/pulls/12"
    other = requests.get(f"{fake.url}/repos/{REPO}/pulls/12/files", timeout=5)
    assert other.status_code == 200, "a request the entry does not match never counts"
    assert [requests.get(url, timeout=5).status_code for _ in range(4)] == [200, 200, 502, 502]


def test_after_with_times_faults_one_later_call_only(fake_github, world):
    world = copy.deepcopy(world)
    world["faults"] = [{"method": "POST", "path": "/statuses/", "status": 500, "after": 1,
                        "times": 1}]
    fake = fake_github(world)
    url = f"{fake.url}/repos/{REPO}/statuses/{HEAD}"
    codes = [requests.post(url, json={"state": state, "context": "c"}, timeout=5,
                           headers={"Authorization": "token x"}).status_code
             for state in ("pending", "success", "success")]
    assert codes == [201, 500, 201]
    assert [s["state"] for s in fake.world["statuses"][HEAD]] == ["pending", "success"]


def test_after_counts_requests_an_earlier_entry_answered(fake_github, world):
    world = copy.deepcopy(world) | {"token_kind": "user"}
    world["faults"] = [
        {"method": "GET", "path": "^/user$", "status": 503, "times": 1},
        {"method": "GET", "path": "^/user$", "status": 404, "after": 2, "times": 1},
    ]
    fake = fake_github(world)
    codes = [requests.get(f"{fake.url}/user", headers={"Authorization": "token x"},
                          timeout=5).status_code for _ in range(4)]
    assert codes == [503, 200, 404, 200]
    assert [r["status"] for r in fake.matching("GET", "^/user$")] == codes


def test_after_applies_to_truncation_and_run_time_faults(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["comments"] = [{"id": 1000 + i, "user": "bob", "body": str(i)}
                                     for i in range(150)]
    fake = fake_github(world)
    # a listing is two requests (pages 1 and 2): the second listing's first page is cut
    fake.add_fault(method="GET", path="/comments$", truncate=True, after=2, times=1)
    issue = fake.github().get_repo(REPO).get_issue(12)
    assert [len(list(issue.get_comments())) for _ in range(3)] == [150, 100, 150]


def test_fault_headers_and_message(fake_github, world):
    world = copy.deepcopy(world)
    world["faults"] = [{"path": "/permission$", "status": 403, "headers": {"Retry-After": 1},
                        "message": "slow down", "times": 1}]
    fake = fake_github(world)
    answer = requests.get(f"{fake.url}/repos/{REPO}/collaborators/alice/permission", timeout=5)
    assert (answer.status_code, answer.headers["Retry-After"], answer.json()["message"]) == (
        403, "1", "slow down")


def test_apply_fault_performs_the_write(fake_github, world):
    world = copy.deepcopy(world)
    world["faults"] = [{"method": "POST", "path": "/comments$", "status": 502, "apply": True,
                        "times": 1}]
    fake = fake_github(world)
    with pytest.raises(GithubException) as info:
        fake.github().get_repo(REPO).get_issue(12).create_comment("lost answer")
    assert info.value.status == 502
    assert fake.world["pulls"][0]["comments"][-1]["body"] == "lost answer"


def test_truncate_fault_drops_the_next_link(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0]["comments"] = [{"id": 1000 + i, "user": "bob", "body": str(i)}
                                     for i in range(250)]
    world["faults"] = [{"method": "GET", "path": "/comments$", "truncate": True, "times": 1}]
    fake = fake_github(world)
    issue = fake.github().get_repo(REPO).get_issue(12)
    assert len(list(issue.get_comments())) == 100
    assert len(list(issue.get_comments())) == 250


def test_add_fault_at_run_time(fake_github, world):
    fake = fake_github(copy.deepcopy(world) | {"token_kind": "user"})
    fake.add_fault(method="GET", path="^/user$", status=503, times=1)
    with pytest.raises(GithubException):
        fake.github().get_user().login  # noqa: B018 - attribute access performs the request
    assert fake.github().get_user().login == "github-actions[bot]"


def test_dump_round_trips_through_the_loader(fake, repo, tmp_path):
    repo.get_issue(12).create_comment("persisted")
    repo.get_commit(HEAD).create_status("success", context="ctx")
    path = tmp_path / "after.yaml"
    fake.dump(path)
    again = load_world(path)
    assert again["pulls"][0]["comments"][-1]["body"] == "persisted"
    assert again["statuses"][HEAD][0]["context"] == "ctx"


def test_time_comes_from_the_world(fake_github, world):
    world = copy.deepcopy(world)
    world["now"] = "2030-01-02T03:04:05Z"
    fake = fake_github(world)
    comment = fake.github().get_repo(REPO).get_issue(12).create_comment("x")
    assert comment.created_at.isoformat() == "2030-01-02T03:04:05+00:00"


def test_context_manager_and_env(world):
    with FakeGitHub(world) as fake:
        env = fake.env()
        assert env["GITHUB_API_URL"] == fake.url
        assert requests.get(f"{fake.url}/rate_limit", timeout=5).status_code == 200


def test_single_review_review_comment_and_commit_pulls(fake, repo):
    pr = repo.get_pull(12)
    assert pr.get_review(201).state == "APPROVED"
    assert pr.get_comment(301).body == "nit"
    with pytest.raises(UnknownObjectException):
        pr.get_review(999)
    assert [p.number for p in repo.get_commit("beef000000000000000000000000000000000000")
            .get_pulls()] == [12]
    assert list(repo.get_commit(BASE).get_pulls()) == []


def test_merged_pull_is_found_from_its_merge_commit(fake_github, world):
    world = copy.deepcopy(world)
    world["pulls"][0].update(state="closed", merged=True, merged_at="2026-09-30T11:00:00Z",
                             merge_commit_sha=BASE)
    repo = fake_github(world).github().get_repo(REPO)
    assert [p.number for p in repo.get_commit(BASE).get_pulls()] == [12]


def test_malformed_json_and_route_bugs_still_answer(fake, monkeypatch):
    auth = {"Authorization": "token x", "Content-Type": "application/json"}
    bad = requests.post(f"{fake.url}/repos/{REPO}/issues/12/comments", data="{nope", headers=auth,
                        timeout=5)
    assert (bad.status_code, bad.json()["message"]) == (400, "Problems parsing JSON")

    from infx.github.fake import routes

    def broken(state, req, **params):
        raise KeyError("boom")

    monkeypatch.setattr(routes, "matched_route",
                        lambda method, path, origin="api": ("^/anything$", broken, {}))
    answer = requests.get(f"{fake.url}/anything", timeout=5)
    assert answer.status_code == 500 and "KeyError" in answer.json()["message"]


def test_pull_head_branch_resolves_as_a_ref(repo):
    assert b"rocm/sgl:v2" in repo.get_contents("configs/amd-master.yaml",
                                               ref="carol/bump").decoded_content


def test_pull_commits_stop_at_250_like_github(fake_github, world):
    world = copy.deepcopy(world)
    shas = [f"{i:040x}" for i in range(1, 261)]
    world["commits"].update({sha: {"parents": [], "message": sha[-3:]} for sha in shas})
    world["pulls"][0]["commits"] = shas
    pr = fake_github(world).github().get_repo(REPO).get_pull(12)
    assert pr.commits == 260
    assert len(list(pr.get_commits())) == 250


def _many_check_runs(world, count, run_id=RUN):
    world = copy.deepcopy(world)
    world["check_runs"][HEAD] = [
        {"id": 100_000 + i, "name": f"job {i}", "status": "completed", "conclusion": "success",
         "completed_at": "2026-09-29T08:00:00Z", "run_id": run_id} for i in range(count)]
    return world


def _listing(fake, path, params=None):
    """Every page of a listing, followed by its next links, and the first page's total."""
    session, url, params = requests.Session(), fake.url + path, {"per_page": 100} | (params or {})
    items, total = [], None
    while url:
        answer = session.get(url, params=params, timeout=10)
        body = answer.json()
        total = body.get("total_count") if total is None and isinstance(body, dict) else total
        items += body[next(k for k in body if k != "total_count")] if isinstance(body, dict) else body
        url, params = answer.links.get("next", {}).get("url"), None
    return items, total


def test_check_runs_of_a_ref_stop_at_1000_results_and_a_suite_lists_them_all(fake_github, world):
    fake = fake_github(_many_check_runs(world, 1_234))
    cut, total = _listing(fake, f"/repos/{REPO}/commits/{HEAD}/check-runs")
    assert (len(cut), total) == (1000, 1_234)  # GitHub's documented cap; the count is all
    suite = fake.github().get_repo(REPO).get_workflow_run(RUN).raw_data["check_suite_id"]
    whole, total = _listing(fake, f"/repos/{REPO}/check-suites/{suite}/check-runs")
    assert (len(whole), total) == (1_234, 1_234)
    assert {r["id"] for r in whole} == {100_000 + i for i in range(1_234)}
    assert _listing(fake, f"/repos/{REPO}/check-suites/{suite}/check-runs",
                    {"check_name": "job 7"})[1] == 1


def test_workflow_runs_searched_by_a_filter_stop_at_1000_results(fake_github, world):
    world = copy.deepcopy(world)
    template = world["workflow_runs"][0]
    world["workflow_runs"] = [template | {"id": 1_000_000 + i, "artifacts": []} for i in range(1_050)]
    fake = fake_github(world)
    cut, total = _listing(fake, f"/repos/{REPO}/actions/runs", {"branch": "carol/bump"})
    assert (len(cut), total) == (1000, 1_050)
    whole, total = _listing(fake, f"/repos/{REPO}/actions/runs")
    assert (len(whole), total) == (1_050, 1_050)  # no search filter: no cap


def test_the_pages_of_one_listing_come_from_one_derivation(fake_github, world):
    fake = fake_github(_many_check_runs(world, 150))
    suite = fake.github().get_repo(REPO).get_workflow_run(RUN).raw_data["check_suite_id"]
    path = f"{fake.url}/repos/{REPO}/check-suites/{suite}/check-runs"
    first = requests.get(path, params={"per_page": 100}, timeout=10).json()
    fake.world["check_runs"][HEAD].pop(0)  # the world changes between two pages
    second = requests.get(path, params={"per_page": 100, "page": 2}, timeout=10).json()
    ids = [r["id"] for r in first["check_runs"] + second["check_runs"]]
    assert ids == [100_000 + i for i in range(150)] and second["total_count"] == 150
    again = requests.get(path, params={"per_page": 100}, timeout=10).json()
    assert again["total_count"] == 149  # a first page derives the listing afresh
    requests.post(f"{fake.url}/repos/{REPO}/issues/12/comments", json={"body": "x"},
                  headers={"Authorization": "token x"}, timeout=10)
    fake.world["check_runs"][HEAD].pop(0)
    after_write = requests.get(path, params={"per_page": 100, "page": 2}, timeout=10).json()
    assert after_write["total_count"] == 148  # a write makes every listing derive afresh



def _walk(items, per_page, list_key):
    """Follow rel="next" links from page 1 and collect what every page served."""
    seen, query = [], {"per_page": str(per_page)}
    for _ in range(len(items) + 2):
        req = Request("GET", "/x", query, {}, None, "http://h")
        page = paginate(req, Response(items=items, list_key=list_key), truncate=False)
        chunk = page.body if list_key is None else page.body[list_key]
        seen += chunk
        link = page.headers.get("Link", "")
        nexts = [part for part in link.split(", ") if part.endswith('rel="next"')]
        if not nexts:
            return seen
        query = dict(p.split("=") for p in nexts[0].split("?", 1)[1].split(">")[0].split("&"))
    raise AssertionError("pagination did not end")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 260), st.integers(1, 150), st.sampled_from([None, "check_runs"]))
def test_following_next_links_yields_every_item_once(count, per_page, list_key):
    items = list(range(count))
    assert _walk(items, per_page, list_key) == items


# --- Actions jobs, check suites, fork runs ------------------------------------------------------

SWEEP2 = 35873199999


def two_sweeps(world):
    """A green sweep (re-run once) and then a failed second sweep on the same commit."""
    world = copy.deepcopy(world)
    world["workflow_runs"].append({
        "id": SWEEP2, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
        "event": "pull_request", "status": "completed", "conclusion": "failure",
        "head_sha": HEAD, "head_branch": "carol/bump", "created_at": "2026-09-29T11:00:00Z",
        "head_repository": "carol/inferencex"})
    world["check_runs"][HEAD] += [
        {"id": 9101, "name": "single-node 8k1k", "status": "completed", "conclusion": "failure",
         "started_at": "2026-09-29T11:00:00Z", "completed_at": "2026-09-29T11:30:00Z",
         "run_id": SWEEP2, "labels": ["mi355x"], "runner_name": "mi355x-07"},
        {"id": 9102, "name": "eval / gsm8k", "status": "in_progress", "run_id": SWEEP2,
         "started_at": "2026-09-29T11:05:00Z"},
        {"id": 9003, "name": "lint", "status": "completed", "conclusion": "success",
         "completed_at": "2026-09-29T07:00:00Z"},
    ]
    return world


def test_runs_listing_filters_by_created_in_githubs_search_syntax(fake_github, world):
    """`created` as "List workflow runs for a repository" takes it: a bound, a range or a
    day (whole UTC days for bare dates), combined with the other filters."""
    world = two_sweeps(world)  # SWEEP2 at 2026-09-29T11:00:00Z
    next(r for r in world["workflow_runs"] if r["id"] == RUN)["created_at"] = "2026-09-28T08:00:00Z"
    fake = fake_github(world)

    def listed(created: str, **more: str) -> list[int] | int:
        answer = requests.get(f"{fake.url}/repos/{REPO}/actions/runs",
                              params={"created": created, **more}, timeout=5)
        return [r["id"] for r in answer.json()["workflow_runs"]] if answer.ok else answer.status_code

    assert listed(">=2026-09-29") == listed("2026-09-29") == listed("2026-09-29..*") == [SWEEP2]
    assert listed(">2026-09-28") == listed(">=2026-09-29T10:59:59Z") == [SWEEP2]
    assert listed(">2026-09-29") == listed(">2026-09-29T11:00:00Z") == []
    assert listed(">=2026-09-29T13:00:00+02:00") == [SWEEP2]  # the same instant, another zone
    assert listed(">=2026-09-29T13:00:01+02:00") == []
    assert listed("<2026-09-29") == listed("*..2026-09-28") == listed("2026-09-28") == [RUN]
    assert listed("<=2026-09-29") == listed("2026-09-28..2026-09-29") == [SWEEP2, RUN]
    assert listed("2026-09-28T08:00:00Z..2026-09-29T10:59:59Z") == [RUN]
    assert listed(">=2026-09-29", event="push") == []
    assert listed("yesterday") == listed(">=29/09/2026") == 422


def test_check_runs_latest_is_per_check_suite(fake_github, world):
    fake = fake_github(two_sweeps(world))
    runs = fake.github().get_repo(REPO).get_commit(HEAD).get_check_runs()
    # GitHub keeps the newest same-named run *within* each suite: 9001 (attempt 1 of the
    # first sweep) is hidden by 9002, but the second sweep's 9101 does not hide 9002
    assert sorted(r.id for r in runs) == [9002, 9003, 9101, 9102]
    suites = {r.id: r.raw_data["check_suite"]["id"] for r in runs}
    first = fake.github().get_repo(REPO).get_workflow_run(RUN)
    second = fake.github().get_repo(REPO).get_workflow_run(SWEEP2)
    assert suites[9002] == first.raw_data["check_suite_id"]
    assert suites[9101] == suites[9102] == second.raw_data["check_suite_id"]
    assert suites[9003] not in (suites[9002], suites[9101])  # another app's suite


def test_run_jobs_latest_all_and_attempts(fake_github, world):
    fake = fake_github(two_sweeps(world))
    base = f"{fake.url}/repos/{REPO}/actions/runs/{RUN}"
    latest = requests.get(f"{base}/jobs", timeout=5).json()
    assert latest["total_count"] == 1
    job = latest["jobs"][0]
    assert (job["id"], job["run_attempt"], job["run_id"], job["conclusion"]) == (9002, 2, RUN, "success")
    assert job["workflow_name"] == "Run Sweep" and job["head_sha"] == HEAD
    assert job["html_url"].endswith(f"/actions/runs/{RUN}/job/2")
    everything = requests.get(f"{base}/jobs", params={"filter": "all"}, timeout=5).json()["jobs"]
    assert [(j["id"], j["run_attempt"]) for j in everything] == [(9001, 1), (9002, 2)]
    first = requests.get(f"{base}/attempts/1/jobs", timeout=5).json()["jobs"]
    assert [j["id"] for j in first] == [9001]
    assert requests.get(f"{base}/attempts/3/jobs", timeout=5).status_code == 404
    assert requests.get(f"{base}/attempts/1", timeout=5).json()["run_attempt"] == 1
    assert requests.get(f"{base}/jobs", params={"filter": "x"}, timeout=5).status_code == 422
    other = requests.get(f"{fake.url}/repos/{REPO}/actions/runs/{SWEEP2}/jobs", timeout=5).json()
    assert {j["id"]: (j["status"], j["runner_name"]) for j in other["jobs"]} == {
        9101: ("completed", "mi355x-07"), 9102: ("in_progress", None)}
    single = requests.get(f"{fake.url}/repos/{REPO}/actions/jobs/9101", timeout=5).json()
    assert single["labels"] == ["mi355x"] and single["run_id"] == SWEEP2
    assert requests.get(f"{fake.url}/repos/{REPO}/actions/jobs/9003", timeout=5).status_code == 404


def test_jobs_through_pygithub(fake_github, world):
    run = fake_github(two_sweeps(world)).github().get_repo(REPO).get_workflow_run(RUN)
    assert [(j.id, j.conclusion) for j in run.jobs()] == [(9002, "success")]
    assert [j.id for j in run.jobs("all")] == [9001, 9002]


def test_fork_head_repository_is_served(fake_github, world):
    repo = fake_github(two_sweeps(world)).github().get_repo(REPO)
    fork = repo.get_workflow_run(SWEEP2)
    assert fork.head_repository.full_name == "carol/inferencex" and fork.head_repository.fork
    own = repo.get_workflow_run(RUN)
    assert own.head_repository.full_name == REPO and not own.head_repository.fork
    assert own.path == ".github/workflows/run-sweep.yml"


def test_logs_come_from_the_storage_host(fake_github, world):
    world = two_sweeps(world)
    world["check_runs"][HEAD][-3]["log"] = "step 1\nboom\n"
    fake = fake_github(world)
    job = requests.get(f"{fake.url}/repos/{REPO}/actions/jobs/9101/logs", timeout=5)
    assert job.text == "step 1\nboom\n" and job.history[0].status_code == 302
    logs = requests.get(f"{fake.url}/repos/{REPO}/actions/runs/{RUN}/logs", timeout=5)
    with zipfile.ZipFile(io.BytesIO(logs.content)) as archive:
        assert archive.namelist() == ["0_single-node 8k1k.txt"]
    assert {r["origin"] for r in fake.requests} == {"api", "storage"}


# --- list shapes, headers, size rules, more fault kinds -------------------------------------------


def test_list_endpoints_serve_simple_pulls(fake):
    full = requests.get(f"{fake.url}/repos/{REPO}/pulls/12", timeout=5).json()
    listed = requests.get(f"{fake.url}/repos/{REPO}/pulls", timeout=5).json()[0]
    by_commit = requests.get(f"{fake.url}/repos/{REPO}/commits/{HEAD}/pulls", timeout=5).json()[0]
    for simple in (listed, by_commit):
        assert simple["number"] == 12 and simple["head"]["sha"] == HEAD
        for key in ("merged", "mergeable", "comments", "commits", "changed_files", "merged_by"):
            assert key in full and key not in simple


def test_headers_rate_limit_etag_and_location(fake):
    auth = {"Authorization": "token x"}
    answer = requests.get(f"{fake.url}/repos/{REPO}/pulls/12", timeout=5)
    for header in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used",
                   "X-RateLimit-Reset", "X-RateLimit-Resource"):
        assert header in answer.headers
    assert int(answer.headers["X-RateLimit-Reset"]) > time.time()
    assert answer.headers["ETag"].startswith('W/"')
    again = requests.get(f"{fake.url}/repos/{REPO}/pulls/12", timeout=5)
    assert again.headers["ETag"] == answer.headers["ETag"]
    assert int(again.headers["X-RateLimit-Remaining"]) < int(answer.headers["X-RateLimit-Remaining"])
    status = requests.post(f"{fake.url}/repos/{REPO}/statuses/{HEAD}", headers=auth, timeout=5,
                           json={"state": "success", "context": "c"})
    assert status.status_code == 201 and status.headers["Location"].endswith(f"/statuses/{HEAD}")
    comment = requests.post(f"{fake.url}/repos/{REPO}/issues/12/comments", headers=auth,
                            timeout=5, json={"body": "x"})
    assert comment.headers["Location"] == comment.json()["url"]


def test_codeowners_errors_404_without_a_codeowners_file(fake_github, world):
    world = copy.deepcopy(world)
    fake = fake_github(world)
    assert requests.get(f"{fake.url}/repos/{REPO}/codeowners/errors", timeout=5).json() == {
        "errors": []}
    world["commits"][BASE]["files"].pop("CODEOWNERS")
    bare = fake_github(world)
    assert requests.get(f"{bare.url}/repos/{REPO}/codeowners/errors", params={"ref": BASE},
                        timeout=5).status_code == 404


def test_contents_over_1mb_need_the_raw_media_type(fake_github, world):
    world = copy.deepcopy(world)
    big = "x" * (1024 * 1024 + 1)
    world["commits"][BASE]["files"]["big.txt"] = big
    fake = fake_github(world)
    url = f"{fake.url}/repos/{REPO}/contents/big.txt"
    answer = requests.get(url, params={"ref": BASE}, timeout=5).json()
    assert (answer["encoding"], answer["content"], answer["size"]) == ("none", "", len(big))
    raw = requests.get(url, params={"ref": BASE}, timeout=5,
                       headers={"Accept": "application/vnd.github.raw+json"})
    assert raw.text == big
    assert fake.client().file_at(REPO, "big.txt", BASE) == big  # the client asks for raw


def test_new_fault_kinds(fake_github, world):
    world = copy.deepcopy(world)
    world["faults"] = [
        {"method": "GET", "path": "/pulls/12$", "delay": 0.2, "times": 1},
        {"method": "GET", "path": "/issues/12$", "body": "<html>Unicorn!</html>"},
        {"method": "GET", "path": "/branches/", "reset_in": 30},
        {"method": "GET", "path": "/labels$", "status": 429, "headers": {"Retry-After": "1"}},
    ]
    fake = fake_github(world)
    start = time.perf_counter()
    assert requests.get(f"{fake.url}/repos/{REPO}/pulls/12", timeout=5).json()["number"] == 12
    assert time.perf_counter() - start >= 0.2
    lying = requests.get(f"{fake.url}/repos/{REPO}/issues/12", timeout=5)
    assert lying.status_code == 200 and lying.headers["Content-Type"].startswith("application/json")
    assert lying.text == "<html>Unicorn!</html>"
    limited = requests.get(f"{fake.url}/repos/{REPO}/branches/main", timeout=5)
    assert limited.status_code == 403 and limited.headers["X-RateLimit-Remaining"] == "0"
    assert int(limited.headers["X-RateLimit-Reset"]) >= time.time() + 25
    assert "rate limit" in limited.json()["message"]
    assert requests.get(f"{fake.url}/repos/{REPO}/labels", timeout=5).status_code == 429


def test_a_stopped_fake_refuses_connections_and_stopping_again_or_unstarted_is_harmless(world):
    """stop() ends both serving loops (API and storage) and closes their sockets; a second
    stop, or a stop of a fake never started, does nothing more."""
    fake = FakeGitHub(copy.deepcopy(world)).start()
    url, storage = fake.url, fake.storage_url
    assert requests.get(f"{url}/repos/{world['repo']}", timeout=5).status_code == 200
    loops = list(fake._threads)
    assert {thread.name for thread in loops} == {"fake-github", "fake-storage"}
    fake.stop()
    assert not any(thread.is_alive() for thread in loops)
    for base in (url, storage):
        with pytest.raises(requests.ConnectionError):
            requests.get(f"{base}/", timeout=5)
    fake.stop()
    FakeGitHub(copy.deepcopy(world)).stop()

