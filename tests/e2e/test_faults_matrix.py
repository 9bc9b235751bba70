"""Fault matrix: every GitHub endpoint the bots call, failing every way the fake server can.

The sign-off bot (seed000: PR 3412, sign-off comment 5003, a PASS when nothing fails) and the
reuse acknowledgement (reuse_base: `/use 101`, a 👍 when nothing fails) are first run without
faults; the endpoints they request are reduced to templates and must be exactly the ones
listed here, so a new call cannot slip past the matrix. Each read endpoint is then failed
persistently (500, 502, 404, 403 + Retry-After: 0, 429, 401, 410, the primary rate limit used up
until a future reset, a 200 whose "JSON" body is an HTML page and, for listings, truncated pagination),
and each write endpoint with `apply: true` faults (the write lands, the answer is an error)
and without (the write never lands). Endpoints a bot calls more than once are also faulted
from their 2nd / 3rd call on (`after:`), and a few runs carry several faults at once: a flaky
fault on every endpoint (retries must reach the fault-free result) or a persistent read fault
plus a flaky write. Every sign-off write is also refused for good or answered oddly (401, 410,
429, the primary rate limit, a body that is not JSON; landing or not; once or always), and a
read answers later than the client waits (a `delay` past its timeout).

Invariants: no PASS / `success` / 👍 on missing evidence (or, where an endpoint cannot change
the verdict, exactly the fault-free result — the case id says why; an unreadable live head
keeps the verdict for the assessed commit and says so); a final commit status that is never
`pending` unless the status endpoint itself never succeeds; at most one verdict comment and never the same comment twice; at
most one bot reaction; a failure that says what failed. Retries never really sleep (the fake's
client injects a no-op sleep) and truncation uses one-item pages so every listing can be cut.
"""

from __future__ import annotations

import copy
import random
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

import pytest
from lib.reuse_world import REPO as REUSE_REPO
from lib.reuse_world import add_comment, base_world

from infx import yamlio
from infx.errors import InfxError
from infx.github import transport
from infx.reuse.ack import AckOutcome, CommentEvent, acknowledge
from infx.reuse.gateway import GitHubGateway
from infx.signoff import pipeline as publish
from infx.signoff import render
from infx.signoff.trigger.gating import SignoffRef, Trigger

PR, SIGNOFF_ID = 3412, 5003
HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
CONTEXT = "codeowner-signoff-verify"
BOT = "github-actions[bot]"
T1, T2 = "2026-09-29T18:00:00Z", "2026-09-29T19:00:00Z"

# --- endpoint templates -----------------------------------------------------------------------

_TEMPLATE_RULES = (
    (r"^/orgs/[^/]+/teams/[^/]+/memberships/[^/]+$", "/orgs/{org}/teams/{team}/memberships/{user}"),
    (r"^/_fake/(tarball|artifacts)/[^/]+/[^/]+/", r"/_fake/\1/{owner}/{repo}/"),
    (r"^/repos/[^/]+/[^/]+", "/repos/{owner}/{repo}"),
    (r"/contents/.+$", "/contents/{path}"),
    (r"/collaborators/[^/]+/", "/collaborators/{user}/"),
    (r"/branches/[^/]+$", "/branches/{branch}"),
    (r"/compare/[^/]+\.\.\.[^/]+$", "/compare/{base}...{head}"),
    (r"/[0-9a-f]{40}(?=/|$)", "/{sha}"),
    (r"/\d+(?=/|\.zip$|$)", "/{n}"),
)
_PLACEHOLDER = {"{path}": ".+", "{owner}": "[^/]+", "{repo}": "[^/]+", "{user}": "[^/]+",
                "{org}": "[^/]+", "{team}": "[^/]+",
                "{branch}": "[^/]+", "{base}": "[^/.]+", "{head}": "[^/.]+", "{sha}": "[0-9a-f]{40}", "{n}": r"\d+"}


def template(path: str) -> str:
    """A request path with its variable parts named (`/repos/{owner}/{repo}/pulls/{n}`)."""
    for pattern, replacement in _TEMPLATE_RULES:
        path = re.sub(pattern, replacement, path)
    return path


def fault_path(endpoint: str) -> str:
    """An anchored regex matching exactly the paths of one template (for a `faults:` entry)."""
    pieces = re.split(r"(\{[a-z]+\})", endpoint)
    return "^" + "".join(_PLACEHOLDER.get(p, re.escape(p)) for p in pieces) + "$"


def requested(fake) -> set[tuple[str, str]]:
    return {(r["method"], template(r["path"])) for r in fake.requests}


def repeated(fake) -> dict[tuple[str, str], int]:
    """Endpoints called more than once, with their number of calls."""
    calls = Counter((r["method"], template(r["path"])) for r in fake.requests)
    return {endpoint: n for endpoint, n in calls.items() if n > 1}


READ_FAULTS = {
    "500": {"status": 500},
    "502": {"status": 502},
    "404": {"status": 404},
    "403-retry-after-0": {"status": 403, "headers": {"Retry-After": "0"}},
    "429": {"status": 429},
    "401": {"status": 401},
    "410": {"status": 410},
    "rate-limit-reset": {"reset_in": 2},  # remaining 0, reset in the future (403)
    "not-json": {"body": "<html><body>Unicorn!</body></html>"},  # 200 + JSON type, HTML body
}
WRITE_FAULTS = {
    "500": {"status": 500, "apply": True},
    "502": {"status": 502, "apply": True},
    "403-retry-after-0": {"status": 403, "headers": {"Retry-After": "0"}, "apply": True},
}
WRITE_TIMES = {"once": 1, "always": None}


@dataclass(frozen=True)
class Case:
    method: str
    endpoint: str
    kind: str  # a READ_FAULTS / WRITE_FAULTS key, or "truncated"
    same: str = ""  # why this fault cannot change the result ("" = it must fail closed)
    times: int | None = None
    after: int = 0  # earlier calls to the endpoint that pass untouched
    lands: bool = True  # writes: the write happens before the error (False: it never lands)

    @property
    def fault(self) -> dict:
        entry = {"method": self.method, "path": fault_path(self.endpoint)}
        if self.after:
            entry["after"] = self.after
        if self.kind == "truncated":
            return entry | {"truncate": True}
        faults = READ_FAULTS if self.method == "GET" else WRITE_FAULTS
        entry |= copy.deepcopy(faults[self.kind])
        if not self.lands:
            del entry["apply"]
        return entry if self.times is None else entry | {"times": self.times}

    @property
    def id(self) -> str:
        when = "" if self.method == "GET" else ("-once" if self.times else "-always")
        lost = "" if self.lands else " never-lands"
        later = f" from-call-{self.after + 1}" if self.after else ""
        why = f" [same: {self.same}]" if self.same else ""
        return f"{self.method} {self.endpoint}{later} {self.kind}{when}{lost}{why}"


def read_cases(reads: dict[str, bool], same: dict[tuple[str, str], str]) -> list[Case]:
    """Every read endpoint x every fault (truncation for listings only)."""
    cases = []
    for endpoint, is_list in reads.items():
        kinds = [*READ_FAULTS, *(["truncated"] if is_list else [])]
        cases += [Case("GET", endpoint, kind, same.get((endpoint, kind), "")) for kind in kinds]
    return cases


def write_cases(writes: list[tuple[str, str]]) -> list[Case]:
    return [Case(method, endpoint, kind, times=times)
            for method, endpoint in writes for kind in WRITE_FAULTS for times in WRITE_TIMES.values()]


def lost_write_cases(writes: list[tuple[str, str]]) -> list[Case]:
    """Every write endpoint x every fault, the write never landing."""
    return [Case(method, endpoint, kind, times=times, lands=False)
            for method, endpoint in writes for kind in WRITE_FAULTS for times in WRITE_TIMES.values()]


# --- the sign-off bot -------------------------------------------------------------------------

# what the bot reads on seed000; True marks a paginated listing
SIGNOFF_READS = {
    "/repos/{owner}/{repo}/pulls/{n}": False,
    "/repos/{owner}/{repo}/issues/comments/{n}": False,
    "/repos/{owner}/{repo}/collaborators/{user}/permission": False,
    "/repos/{owner}/{repo}/branches/{branch}": False,
    "/repos/{owner}/{repo}/tarball/{sha}": False,
    "/_fake/tarball/{owner}/{repo}/{sha}": False,
    "/repos/{owner}/{repo}/codeowners/errors": False,
    # the swept commit's changes since its merge base with main (drift: the PR's own changes)
    "/repos/{owner}/{repo}/compare/{base}...{head}": False,
    "/repos/{owner}/{repo}/pulls/{n}/files": True,
    "/repos/{owner}/{repo}/pulls/{n}/commits": True,
    "/repos/{owner}/{repo}/issues/{n}/comments": True,
    "/repos/{owner}/{repo}/actions/runs": True,
    "/repos/{owner}/{repo}/issues/{n}/timeline": True,  # pushes no run records (binding)
    # the PRs the head branch heads: which base its pull_request runs ran (infx.trust.base_problem)
    "/repos/{owner}/{repo}/pulls": True,
    "/repos/{owner}/{repo}/commits/{sha}/check-runs": True,
    "/repos/{owner}/{repo}/actions/runs/{n}/jobs": True,
    "/repos/{owner}/{repo}/actions/runs/{n}/artifacts": True,
    "/repos/{owner}/{repo}/actions/artifacts/{n}/zip": False,
    "/_fake/artifacts/{owner}/{repo}/{n}.zip": False,
    "/user": False,
}
SIGNOFF_WRITES = [
    ("POST", "/repos/{owner}/{repo}/statuses/{sha}"),
    ("POST", "/repos/{owner}/{repo}/issues/{n}/comments"),
]
# the verdict's check run is an extra beside the required status (ed3f787): writing it never
# changes the verdict, comment or status (a first verdict on a head writes it without looking
# for an earlier one: none can exist before the bot's first verdict comment on that head)
CHECK_RUN_EXTRAS = [("POST", "/repos/{owner}/{repo}/check-runs", 0)]
# the edit path only runs when a stale verdict for the same evidence exists (see stale_world)
SIGNOFF_EDIT = ("PATCH", "/repos/{owner}/{repo}/issues/comments/{n}")

_RUNS = "/repos/{owner}/{repo}/actions/runs"
_IDENTITY = "the token login falls back to github-actions[bot], which it is"
SIGNOFF_SAME = {
    ("/user", "404"): _IDENTITY,
    ("/user", "403-retry-after-0"): _IDENTITY,
    ("/user", "rate-limit-reset"): _IDENTITY,
    # seed000's head branch heads one PR, the verified one: every page of the listing is whole
    # (a listing without that PR is refused as cut short)
    ("/repos/{owner}/{repo}/pulls", "truncated"): "the PRs of the head branch fit one page",
    # the branch's runs also bind the sign-off to the head it was posted on: no longer only
    # an ordering hint, so every fault on the listing fails closed
}


@pytest.fixture(scope="module")
def seed000(request) -> dict:
    return yamlio.load_file(request.config.rootpath / "tests/data/worlds/signoff_seed000.yaml")


def verify(fake) -> publish.Result:
    world = fake.world
    now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
    trigger = Trigger(True, "fault matrix", PR, SignoffRef("issue_comment", SIGNOFF_ID))
    return publish.verify(fake.client(), world["repo"], trigger, publish.Options(now=now))


def attempt(fake) -> publish.Result | InfxError:
    """A verification; an InfxError before the head is known (nothing to set a status on)
    is returned for the invariants to inspect."""
    try:
        return verify(fake)
    except InfxError as exc:
        return exc


def statuses(fake) -> list[str]:
    return [s["state"] for s in fake.world["statuses"].get(HEAD, []) if s["context"] == CONTEXT]


def bot_comments(fake) -> list[dict]:
    pull = next(p for p in fake.world["pulls"] if p["number"] == PR)
    return [c for c in pull["comments"] if c["user"] == BOT]


def verdicts(fake) -> list[dict]:
    return [c for c in bot_comments(fake) if c["body"].startswith("<!-- " + CONTEXT)]


def summary(result: publish.Result) -> tuple:
    """What a verdict means, minus the marker line (whose digest covers read errors too)."""
    rows = tuple((r.spec.id, r.status) for r in result.verdict.rows) if result.verdict else ()
    return result.kind, result.status, rows, (result.body or "").split("\n", 1)[-1]


@pytest.fixture(scope="module")
def signoff_baseline(seed000):
    """The fault-free run (its own server, so module-scoped) and what it requested."""
    from infx.github.fake import FakeGitHub

    with FakeGitHub(copy.deepcopy(seed000)) as fake:
        result = verify(fake)
        return result, requested(fake), statuses(fake), len(verdicts(fake)), repeated(fake)


def test_signoff_baseline_passes_and_the_matrix_covers_every_endpoint(signoff_baseline) -> None:
    result, endpoints, states, posted, _ = signoff_baseline
    assert result.verdict.overall.value == "PASS" and result.status == "success"
    assert states == ["pending", "success"] and posted == 1
    assert endpoints == {("GET", e) for e in SIGNOFF_READS} | set(SIGNOFF_WRITES) \
        | {(m, e) for m, e, _ in CHECK_RUN_EXTRAS}


@pytest.mark.parametrize("kind", sorted({*READ_FAULTS, *WRITE_FAULTS}))
@pytest.mark.parametrize(("method", "endpoint", "after"), CHECK_RUN_EXTRAS, ids=lambda v: str(v))
def test_a_fault_on_the_check_run_changes_nothing_else(fake_github, seed000, signoff_baseline,
                                                        method, endpoint, after, kind) -> None:
    faults = READ_FAULTS if method == "GET" else WRITE_FAULTS
    if kind not in faults:
        pytest.skip(f"{kind} is not a {method} fault")
    fault = {"method": method, "path": fault_path(endpoint)} | copy.deepcopy(faults[kind])
    fault |= {"after": after} if after else {}
    fake = fake_github(copy.deepcopy(seed000) | {"faults": [fault]})
    result = attempt(fake)
    baseline = signoff_baseline[0]
    assert isinstance(result, publish.Result) and summary(result) == summary(baseline)
    assert statuses(fake) == ["pending", "success"] and len(verdicts(fake)) == 1


def assert_signoff_invariants(fake, same: str, result, baseline: publish.Result) -> None:
    states = statuses(fake)
    bodies = [c["body"] for c in bot_comments(fake)]
    assert len(verdicts(fake)) <= 1, "more than one verdict comment"
    assert len(bodies) == len(set(bodies)), "a comment was posted twice"
    created = [r for r in fake.matching("POST", r"/issues/\d+/comments$") if r["status"] == 201]
    assert len(created) <= 1, "the verdict was created twice"
    if states:
        assert states[-1] != "pending", f"left a pending status: {states}"
    if same:
        assert isinstance(result, publish.Result), result
        assert summary(result) == summary(baseline)
        assert states == ["pending", "success"]
        return
    if isinstance(result, InfxError):  # the PR itself could not be read: no head, no status
        assert states == [] and not verdicts(fake) and str(result)
        return
    assert result.status != "success", f"{result.kind}: {result.reason}"
    assert result.verdict is None or result.verdict.overall.value == "REJECTED"
    assert result.reason
    if states:
        assert states[-1] == result.status
    if result.kind == "verdict":  # fail-closed rows, published once
        assert result.posted and len(verdicts(fake)) == 1
        assert verdicts(fake)[0]["body"] == result.body


@pytest.mark.parametrize("case", read_cases(SIGNOFF_READS, SIGNOFF_SAME), ids=lambda c: c.id)
def test_signoff_read_fault(fake_github, seed000, signoff_baseline, monkeypatch, case) -> None:
    if case.kind == "truncated":
        monkeypatch.setattr(transport, "PER_PAGE", 1)  # every listing spans pages
    world = copy.deepcopy(seed000) | {"faults": [case.fault]}
    fake = fake_github(world)
    result = attempt(fake)
    assert fake.count("GET", case.fault["path"]) > 0, "the faulted endpoint was never called"
    assert_signoff_invariants(fake, case.same, result, signoff_baseline[0])


# seed000 never needs a team; this variant owns the changed master config by a team the
# signer belongs to, so the verdict depends on the membership API (404 = "not provable")
TEAM_READS = {"/orgs/{org}/teams/{team}/memberships/{user}": False}
OWNERS_LINE = "configs/amd-master.yaml @billishyahao @chunfangamd @seungrokj @yctseng0211 @1am9trash"


@pytest.fixture(scope="module")
def team_world(seed000) -> dict:
    world = copy.deepcopy(seed000)
    root = next(sha for sha, commit in world["commits"].items() if not commit.get("parents"))
    files = world["commits"][root]["files"]
    assert OWNERS_LINE in files["CODEOWNERS"]
    files["CODEOWNERS"] = files["CODEOWNERS"].replace(
        OWNERS_LINE, "configs/amd-master.yaml @SemiAnalysisAI/amd-owners")
    world["teams"]["SemiAnalysisAI/amd-owners"] = ["chunfangamd"]
    return world


@pytest.fixture(scope="module")
def team_baseline(team_world):
    from infx.github.fake import FakeGitHub

    with FakeGitHub(copy.deepcopy(team_world)) as fake:
        return verify(fake), requested(fake)


def test_team_baseline_passes_through_the_membership_api(team_baseline) -> None:
    result, endpoints = team_baseline
    assert result.verdict.overall.value == "PASS" and result.status == "success"
    assert endpoints == ({("GET", e) for e in {**SIGNOFF_READS, **TEAM_READS}}
                         | set(SIGNOFF_WRITES) | {(m, e) for m, e, _ in CHECK_RUN_EXTRAS})


@pytest.mark.parametrize("case", read_cases(TEAM_READS, {}), ids=lambda c: c.id)
def test_team_membership_fault(fake_github, team_world, team_baseline, case) -> None:
    fake = fake_github(copy.deepcopy(team_world) | {"faults": [case.fault]})
    result = attempt(fake)
    assert fake.count("GET", case.fault["path"]) > 0
    assert_signoff_invariants(fake, case.same, result, team_baseline[0])
    if case.fault.get("status") in (404, 410):
        # "not a member" or "this token may not see the team": the team itself is readable
        # here, so it is a definite "not a member" (one more read): the sign-off is not an
        # owner's, so it is answered and the status is left alone (PRODUCT §4.8 Scope)
        assert result.kind == "not-owner" and result.status is None and statuses(fake) == []
        assert "not among them" in result.body
        assert fake.count("GET", "/teams/amd-owners") == 2
        return
    # unreadable membership is unreadable evidence (PRODUCT §4.8): `error`, naming the read
    assert result.kind == "error" and result.status == "error" and result.verdict is None
    assert "membership" in result.body and "could not be read" in result.body


@pytest.mark.parametrize("status", [403, 404])
def test_a_token_that_cannot_see_teams_is_an_error_telling_admins_what_to_configure(
        fake_github, team_world, status) -> None:
    # Actions' GITHUB_TOKEN: 403 "Resource not accessible by integration", or a 404 on the
    # membership AND on the team itself
    fake = fake_github(copy.deepcopy(team_world) | {"faults": [
        {"method": "GET", "path": "^/orgs/[^/]+/teams/", "status": status,
         "message": "Resource not accessible by integration" if status == 403 else "Not Found"}]})
    result = attempt(fake)
    assert result.kind == "error" and result.status == "error" and result.verdict is None
    assert "semianalysisai/amd-owners cannot be read with this token" in result.body
    assert "GitHub App" in result.body and "members: read" in result.body and "@chunfangamd" not in result.body


@pytest.mark.parametrize("case", write_cases(SIGNOFF_WRITES), ids=lambda c: c.id)
def test_signoff_write_fault(fake_github, seed000, signoff_baseline, case) -> None:
    fake = fake_github(copy.deepcopy(seed000) | {"faults": [case.fault]})
    result = attempt(fake)
    assert_write_outcome(fake, case, result, signoff_baseline[0])


def assert_write_outcome(fake, case: Case, result, baseline: publish.Result) -> None:
    states = statuses(fake)
    assert isinstance(result, publish.Result)
    assert len(verdicts(fake)) <= 1
    bodies = [c["body"] for c in bot_comments(fake)]
    assert len(bodies) == len(set(bodies)), "a comment was posted twice"
    assert states and states[-1] != "pending", states
    if result.kind == "verdict":  # recovered: the write landed, once
        assert summary(result) == summary(baseline)
        assert [c["body"] for c in verdicts(fake)] == [result.body]
        assert states[-1] == "success"
    else:  # gave up: say which write failed, and leave `error` (the write itself landed)
        assert result.kind == "error" and result.status == "error"
        assert case.kind.split("-")[0] in result.reason and states[-1] == "error"
        assert case.times is None, "a single lost answer must be recovered from"


@pytest.fixture(scope="module")
def stale_world(seed000) -> dict:
    """seed000 plus the bot's verdict for the same evidence in an older rendering, so the
    bot edits (PATCH) instead of creating."""
    from infx.github.fake import FakeGitHub

    with FakeGitHub(copy.deepcopy(seed000)) as fake:
        verify(fake)
        posted = verdicts(fake)[0]
    world = copy.deepcopy(seed000)
    pull = next(p for p in world["pulls"] if p["number"] == PR)
    pull["comments"].append(posted | {"id": 5100, "body": posted["body"] + "\n(older rendering)"})
    return world


def test_signoff_edit_baseline_patches_the_stale_verdict(fake_github, stale_world,
                                                         signoff_baseline) -> None:
    fake = fake_github(copy.deepcopy(stale_world))
    result = verify(fake)
    assert SIGNOFF_EDIT in requested(fake)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0
    assert summary(result) == summary(signoff_baseline[0])
    assert [c["body"] for c in verdicts(fake)] == [result.body]


@pytest.mark.parametrize("case", write_cases([SIGNOFF_EDIT]), ids=lambda c: c.id)
def test_signoff_edit_fault(fake_github, stale_world, signoff_baseline, case) -> None:
    fake = fake_github(copy.deepcopy(stale_world) | {"faults": [case.fault]})
    result = attempt(fake)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0  # an edit never becomes a new post
    assert_write_outcome(fake, case, result, signoff_baseline[0])


def test_signoff_twice_on_the_same_world_posts_once(fake_github, seed000) -> None:
    fake = fake_github(copy.deepcopy(seed000))
    first, second = verify(fake), verify(fake)
    assert first.posted and not second.posted and first.body == second.body
    assert len(verdicts(fake)) == 1 and fake.count("POST", r"/issues/\d+/comments$") == 1
    assert statuses(fake) == ["pending", "success", "pending", "success"]


def test_truncated_conversation_after_a_verdict_never_posts_a_second_one(
        fake_github, seed000, monkeypatch) -> None:
    """The re-run cannot see its earlier verdict: it must stop with `error`, not post again."""
    fake = fake_github(copy.deepcopy(seed000))
    verify(fake)
    monkeypatch.setattr(transport, "PER_PAGE", 1)
    fake.add_fault(method="GET", path=r"/issues/\d+/comments$", truncate=True)
    again = verify(fake)
    assert again.kind == "error" and "incomplete listing" in again.reason
    assert len(verdicts(fake)) == 1 and statuses(fake)[-1] == "error"


# --- the reuse acknowledgement ----------------------------------------------------------------

REUSE_READS = {
    "/repos/{owner}/{repo}/issues/comments/{n}": False,
    "/repos/{owner}/{repo}/issues/comments/{n}/reactions": True,
    "/repos/{owner}/{repo}/pulls/{n}": False,
    "/repos/{owner}/{repo}/issues/{n}/comments": True,
    "/repos/{owner}/{repo}/collaborators/{user}/permission": False,
    "/repos/{owner}/{repo}/pulls/{n}/commits": True,
    "/repos/{owner}/{repo}/actions/runs/{n}": False,
    "/repos/{owner}/{repo}/actions/runs/{n}/artifacts": True,
    "/repos/{owner}/{repo}/actions/runs/{n}/jobs": True,  # the rows a source run covers
    "/repos/{owner}/{repo}/actions/runs": True,  # the PR's heads over time (authorization binding)
    "/repos/{owner}/{repo}/issues/{n}/timeline": True,  # pushes no run records (binding)
    # the PRs the run's branch heads: a run for a PR into another base is not ours (trust.base_problem)
    "/repos/{owner}/{repo}/pulls": True,
    "/repos/{owner}/{repo}/tarball/{sha}": False,  # the commits' files (binding, drift)
    # the PR's own changes at the run's commit and at the head (drift: a merge of main is neutral)
    "/repos/{owner}/{repo}/compare/{base}...{head}": False,
    # the default branch's tree: the source run's sweep files must equal it (infx.trust.our_run)
    "/repos/{owner}/{repo}/tarball/main": False,
    "/_fake/tarball/{owner}/{repo}/{sha}": False,
}
# a compare's 404 (no shared history) leaves the PR's own changes unknown: every executed file
# is compared, and the run's commit and the head have the same ones
_NO_HISTORY = "without the PR's own changes every executed file is compared, and none differs"
REUSE_WRITES = [("POST", "/repos/{owner}/{repo}/issues/comments/{n}/reactions")]
REUSE_SAME = {("/repos/{owner}/{repo}/issues/comments/{n}/reactions", "truncated"):
              "the comment has no reactions yet: nothing to cut",
              ("/repos/{owner}/{repo}/pulls", "truncated"): "the PRs of the head branch fit one page",
              ("/repos/{owner}/{repo}/compare/{base}...{head}", "404"): _NO_HISTORY}


def reuse_world() -> tuple[dict, int]:
    """reuse_base with an older `/use 102` by root and the newest `/use 101` by alice."""
    world = base_world()
    add_comment(world, "root", "OWNER", "/use 102", T1)
    return world, add_comment(world, "alice", "MEMBER", "/use 101", T2)


def ack(fake, comment_id: int) -> AckOutcome | InfxError:
    comment = next(c for p in fake.world["pulls"] for c in p["comments"] if c["id"] == comment_id)
    event = CommentEvent.of("created", 12, True, comment_id, comment["body"], comment["updated_at"])
    try:
        return acknowledge(GitHubGateway(fake.client(), REUSE_REPO), event)
    except InfxError as exc:
        return exc


def reactions(fake, comment_id: int) -> list[str]:
    comment = next(c for p in fake.world["pulls"] for c in p["comments"] if c["id"] == comment_id)
    return [r["content"] for r in comment.get("reactions", []) if r["user"] == BOT]


@pytest.fixture(scope="module")
def reuse_baseline():
    from infx.github.fake import FakeGitHub

    world, cid = reuse_world()
    with FakeGitHub(world) as fake:
        outcome = ack(fake, cid)
        return outcome, requested(fake), reactions(fake, cid), repeated(fake)


def test_reuse_baseline_accepts_and_the_matrix_covers_every_endpoint(reuse_baseline) -> None:
    outcome, endpoints, thumbs, _ = reuse_baseline
    assert outcome.reaction == "+1" and thumbs == ["+1"]
    assert endpoints == {("GET", e) for e in REUSE_READS} | set(REUSE_WRITES)


def assert_reuse_invariants(fake, cid: int, same: str, outcome, baseline: AckOutcome) -> None:
    thumbs = reactions(fake, cid)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0, "the ack never replies"
    assert len(thumbs) <= 1, f"two reactions: {thumbs}"
    if same:
        assert outcome == baseline and thumbs == ["+1"]
        return
    if isinstance(outcome, InfxError):
        assert thumbs == [] and str(outcome)
        return
    assert outcome.reaction != "+1" and "+1" not in thumbs, outcome.summary
    assert thumbs == ([outcome.reaction] if outcome.reaction else [])


@pytest.mark.parametrize("case", read_cases(REUSE_READS, REUSE_SAME), ids=lambda c: c.id)
def test_reuse_read_fault(fake_github, reuse_baseline, monkeypatch, case) -> None:
    if case.kind == "truncated":
        monkeypatch.setattr(transport, "PER_PAGE", 1)
    world, cid = reuse_world()
    fake = fake_github(world | {"faults": [case.fault]})
    outcome = ack(fake, cid)
    assert fake.count("GET", case.fault["path"]) > 0, "the faulted endpoint was never called"
    assert_reuse_invariants(fake, cid, case.same, outcome, reuse_baseline[0])


@pytest.mark.parametrize("case", write_cases(REUSE_WRITES), ids=lambda c: c.id)
def test_reuse_write_fault(fake_github, reuse_baseline, case) -> None:
    world, cid = reuse_world()
    fake = fake_github(world | {"faults": [case.fault]})
    outcome = ack(fake, cid)
    thumbs = reactions(fake, cid)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0
    assert thumbs == ["+1"], "the reaction landed exactly once"
    if isinstance(outcome, InfxError):  # the answer never came back: a clear failure
        assert case.times is None and "reacting +1" in str(outcome)
    else:
        assert outcome == reuse_baseline[0]


def test_reuse_twice_reacts_once(fake_github) -> None:
    world, cid = reuse_world()
    fake = fake_github(world)
    assert ack(fake, cid).reaction == "+1" and ack(fake, cid).reaction == "+1"
    assert reactions(fake, cid) == ["+1"]


def test_truncated_conversation_never_accepts_a_superseded_command(fake_github,
                                                                   monkeypatch) -> None:
    """The older command sits on page 1 and the newer on page 2: cut after page 1, the
    older one would look newest and win a 👍."""
    world = base_world()
    next(p for p in world["pulls"] if p["number"] == 12)["comments"].clear()
    old = add_comment(world, "root", "OWNER", "/use 101", T1)
    add_comment(world, "alice", "MEMBER", "/use 102", T2)
    monkeypatch.setattr(transport, "PER_PAGE", 1)
    fake = fake_github(world | {"faults": [{"method": "GET", "path": r"/issues/12/comments$",
                                            "truncate": True}]})
    outcome = ack(fake, old)
    assert isinstance(outcome, InfxError) and "incomplete listing" in str(outcome)
    assert reactions(fake, old) == []


# a re-acknowledgement: the bot's 👎 from an earlier run is removed before the 👍 (DELETE)
REUSE_UNREACT = ("DELETE", "/repos/{owner}/{repo}/issues/comments/{n}/reactions/{n}")


def reack_world() -> tuple[dict, int]:
    world, cid = reuse_world()
    comment = next(c for p in world["pulls"] for c in p["comments"] if c["id"] == cid)
    comment["reactions"] = [{"user": BOT, "content": "-1"}, {"user": "bob", "content": "-1"}]
    return world, cid


def test_reack_baseline_replaces_the_old_reaction(fake_github, reuse_baseline) -> None:
    world, cid = reack_world()
    fake = fake_github(world)
    assert ack(fake, cid) == reuse_baseline[0] and reactions(fake, cid) == ["+1"]
    assert REUSE_UNREACT in requested(fake)


@pytest.mark.parametrize("case", [*write_cases([REUSE_UNREACT]), *lost_write_cases([REUSE_UNREACT])],
                         ids=lambda c: c.id)
def test_reack_unreact_fault(fake_github, reuse_baseline, case) -> None:
    world, cid = reack_world()
    fake = fake_github(world | {"faults": [case.fault]})
    outcome = ack(fake, cid)
    thumbs = reactions(fake, cid)
    assert fired(fake, case.fault)
    assert len(thumbs) <= 1, f"two reactions: {thumbs}"
    if case.times is not None:  # a retried DELETE (404 once it had landed) recovers
        assert outcome == reuse_baseline[0] and thumbs == ["+1"]
    else:  # the old reaction may or may not be gone, the new one is never added
        assert isinstance(outcome, InfxError) and "removing reaction -1" in str(outcome)
        assert thumbs == ([] if case.lands else ["-1"])


# --- the shared upsert (welcome / results comments) -------------------------------------------


def test_truncated_conversation_never_duplicates_an_upserted_comment(fake_github,
                                                                     monkeypatch) -> None:
    """The bot's welcome sits on page 2: a listing cut after page 1 must not lead to a second
    welcome; the upsert fails instead, naming the incomplete listing."""
    from infx.workflow.posting import post_welcome

    world = base_world()
    welcome = "<!-- infx-welcome -->\nThanks for the contribution!"
    next(p for p in world["pulls"] if p["number"] == 12)["comments"].append(
        {"id": 700, "user": BOT, "author_association": "NONE", "body": welcome,
         "created_at": T1, "updated_at": T1})
    monkeypatch.setattr(transport, "PER_PAGE", 1)
    fake = fake_github(world | {"faults": [{"method": "GET", "path": r"/issues/12/comments$",
                                            "truncate": True}]})
    with pytest.raises(InfxError, match="incomplete listing"):
        post_welcome(fake.client(), REUSE_REPO, 12)
    assert fake.count("POST") == 0
    fake.faults.clear()
    assert post_welcome(fake.client(), REUSE_REPO, 12).action in ("unchanged", "updated")
    assert fake.count("POST") == 0


# --- later calls: faults that let the first N calls of an endpoint through ----------------------

# endpoints each bot calls more than once on its baseline world, with the number of calls
_PULL = "/repos/{owner}/{repo}/pulls/{n}"
_CONVERSATION = "/repos/{owner}/{repo}/issues/{n}/comments"
_STATUS = ("POST", "/repos/{owner}/{repo}/statuses/{sha}")
SIGNOFF_REPEATED = {
    ("GET", _PULL): 3,  # the PR, the scope re-check, the live-head re-check before publishing
    # head, base, and the head the reuse command was posted on (Check `reuse`'s binding)
    ("GET", "/repos/{owner}/{repo}/tarball/{sha}"): 3,
    ("GET", "/_fake/tarball/{owner}/{repo}/{sha}"): 3,
    # the conversation is listed once: the verdict is upserted against the evidence's listing
    # the sign-off, then read again once `success` is set (a change meanwhile resets it)
    ("GET", "/repos/{owner}/{repo}/issues/comments/{n}"): 2,
    ("GET", "/repos/{owner}/{repo}/actions/artifacts/{n}/zip"): 2,
    ("GET", "/_fake/artifacts/{owner}/{repo}/{n}.zip"): 2,
    _STATUS: 2,  # pending, then the final state
}
REUSE_REPEATED = {
    ("GET", "/repos/{owner}/{repo}/issues/comments/{n}"): 2,
    ("GET", "/repos/{owner}/{repo}/issues/comments/{n}/reactions"): 2,
    ("GET", _PULL): 2,
    ("GET", _CONVERSATION): 2,
    # three different commits, each read once: the source run's, the head's and the base's
    # (is the run's benchmark-affecting content the head's?); the default branch, read by name
    # (tarball/main, above), is the fourth fake tarball (are the run's sweep files ours?)
    ("GET", "/repos/{owner}/{repo}/tarball/{sha}"): 3,
    ("GET", "/_fake/tarball/{owner}/{repo}/{sha}"): 4,
    # the PR's timeline: for the binding, then for the base changes of the PRs its branch heads
    ("GET", "/repos/{owner}/{repo}/issues/{n}/timeline"): 2,
    # the run's commit's and the head's compares with main (drift: the PR's own changes)
    ("GET", "/repos/{owner}/{repo}/compare/{base}...{head}"): 2,
}
SIGNOFF_LATER_SAME: dict[tuple[str, int, str], str] = {}
LIVE_HEAD_RECHECK = (_PULL, 2)  # the third PR read: see assert_unconfirmed_head
# the sign-off read again once `success` is set: a 404/410 there is the sign-off deleted after
# the verdict was posted, so the status is taken back (see assert_withdrawn_after_success)
SIGNOFF_RECHECK = ("/repos/{owner}/{repo}/issues/comments/{n}", 1)
REUSE_LATER_SAME = {("/repos/{owner}/{repo}/issues/comments/{n}/reactions", 1, "truncated"):
                    "the comment has no reactions yet: nothing to cut",
                    ("/repos/{owner}/{repo}/compare/{base}...{head}", 1, "404"): _NO_HISTORY}


def later_read_cases(repeats: dict[tuple[str, str], int], reads: dict[str, bool],
                     same: dict[tuple[str, int, str], str]) -> list[Case]:
    """Every later call of every repeated read endpoint x every fault."""
    cases = []
    for (method, endpoint), calls in repeats.items():
        if method != "GET":
            continue
        kinds = [*READ_FAULTS, *(["truncated"] if reads[endpoint] else [])]
        cases += [Case("GET", endpoint, kind, same.get((endpoint, after, kind), ""), after=after)
                  for after in range(1, calls) for kind in kinds]
    return cases


def later_write_cases(repeats: dict[tuple[str, str], int]) -> list[Case]:
    """Every later call of every repeated write, landing or not, once or always."""
    return [Case(method, endpoint, kind, times=times, after=after, lands=lands)
            for (method, endpoint), calls in repeats.items() if method != "GET"
            for after in range(1, calls) for kind in WRITE_FAULTS
            for times in WRITE_TIMES.values() for lands in (True, False)]


def assert_fired(fake, case: Case) -> None:
    """The first `after` calls went through and the next one met the fault."""
    hits = fake.matching(case.method, case.fault["path"])
    assert len(hits) > case.after, f"only {len(hits)} call(s): the faulted one never happened"
    assert all(h["status"] < 400 for h in hits[:case.after]), "an earlier call was faulted"
    if case.kind != "truncated":
        assert hits[case.after]["status"] == fault_status(case.fault)


def fault_status(fault: dict) -> int:
    """The status a fault answers with (a used-up rate limit is a 403, a lying body a 200)."""
    return fault.get("status") or (403 if "reset_in" in fault else 200)


def test_signoff_repeated_calls_are_the_listed_ones(signoff_baseline) -> None:
    assert signoff_baseline[4] == SIGNOFF_REPEATED


def test_reuse_repeated_calls_are_the_listed_ones(reuse_baseline) -> None:
    assert reuse_baseline[3] == REUSE_REPEATED


@pytest.mark.parametrize("case", later_read_cases(SIGNOFF_REPEATED, SIGNOFF_READS,
                                                  SIGNOFF_LATER_SAME), ids=lambda c: c.id)
def test_signoff_later_read_fault(fake_github, seed000, signoff_baseline, monkeypatch,
                                  case) -> None:
    if case.kind == "truncated":
        monkeypatch.setattr(transport, "PER_PAGE", 1)
    fake = fake_github(copy.deepcopy(seed000) | {"faults": [case.fault]})
    result = attempt(fake)
    assert_fired(fake, case)
    assert isinstance(result, publish.Result), "the head was known: a status must say why"
    if (case.endpoint, case.after) == LIVE_HEAD_RECHECK:
        assert_unconfirmed_head(fake, result, signoff_baseline[0])
    elif (case.endpoint, case.after) == SIGNOFF_RECHECK and case.kind in ("404", "410"):
        assert_withdrawn_after_success(fake, result, signoff_baseline[0])
    else:
        assert_signoff_invariants(fake, case.same, result, signoff_baseline[0])


def assert_withdrawn_after_success(fake, result: publish.Result, baseline: publish.Result) -> None:
    """The verdict judged the sign-off as it was and stays posted once; the sign-off is gone
    by the time `success` is set, so the run takes the status back to `error`, saying so."""
    assert statuses(fake) == ["pending", "success", "error"] and result.status == "error"
    assert "was deleted after this verification began" in result.reason, result.reason
    assert len(verdicts(fake)) == 1 and result.body == baseline.body


def assert_unconfirmed_head(fake, result: publish.Result, baseline: publish.Result) -> None:
    """The verdict and status cover only the assessed commit, so an unreadable live head cannot
    change them; the comment must say that a newer commit may exist and was not assessed."""
    assert (result.kind, result.status) == (baseline.kind, baseline.status)
    assert [(r.spec.id, r.status) for r in result.verdict.rows] == \
        [(r.spec.id, r.status) for r in baseline.verdict.rows]
    assert render.UNCONFIRMED_HEAD in result.body.split("\n")
    assert render.UNCONFIRMED_HEAD not in baseline.body
    assert [c["body"] for c in verdicts(fake)] == [result.body]
    assert statuses(fake) == ["pending", "success"]


@pytest.mark.parametrize("case", later_write_cases(SIGNOFF_REPEATED), ids=lambda c: c.id)
def test_signoff_later_write_fault(fake_github, seed000, signoff_baseline, case) -> None:
    fake = fake_github(copy.deepcopy(seed000) | {"faults": [case.fault]})
    result = attempt(fake)
    assert_fired(fake, case)
    if case.lands:
        assert_write_outcome(fake, case, result, signoff_baseline[0])
    else:
        assert_lost_write_outcome(fake, case, result, signoff_baseline[0])


@pytest.mark.parametrize("case", later_read_cases(REUSE_REPEATED, REUSE_READS, REUSE_LATER_SAME),
                         ids=lambda c: c.id)
def test_reuse_later_read_fault(fake_github, reuse_baseline, monkeypatch, case) -> None:
    if case.kind == "truncated":
        monkeypatch.setattr(transport, "PER_PAGE", 1)
    world, cid = reuse_world()
    fake = fake_github(world | {"faults": [case.fault]})
    outcome = ack(fake, cid)
    assert_fired(fake, case)
    assert_reuse_invariants(fake, cid, case.same, outcome, reuse_baseline[0])


# --- writes that never land: the error comes back and nothing was written ------------------------


def assert_lost_write_outcome(fake, case: Case, result, baseline: publish.Result) -> None:
    """Once: retried into the fault-free result. Always: a clear error, and no write landed."""
    states = statuses(fake)
    assert isinstance(result, publish.Result)
    bodies = [c["body"] for c in bot_comments(fake)]
    assert len(verdicts(fake)) <= 1 and len(bodies) == len(set(bodies)), bodies
    created = [r for r in fake.matching("POST", r"/issues/\d+/comments$") if r["status"] == 201]
    assert len(created) <= 1, "the verdict was created twice"
    if case.times is not None:
        assert summary(result) == summary(baseline)
        assert [c["body"] for c in verdicts(fake)] == [result.body]
        assert states == ["pending", "success"]
        return
    assert result.kind == "error" and result.status == "error"
    assert case.kind.split("-")[0] in result.reason, result.reason
    if (case.method, case.endpoint) == _STATUS:  # no status can be set: none lands, none lies
        assert states == ["pending"] * case.after
        assert "could not be set" in result.reason
        return
    assert states[-1] == "error", states
    if case.method == "POST":
        assert verdicts(fake) == []
    else:  # the stale verdict stays as it was
        assert [c["body"].endswith("(older rendering)") for c in verdicts(fake)] == [True]


@pytest.mark.parametrize("case", lost_write_cases(SIGNOFF_WRITES), ids=lambda c: c.id)
def test_signoff_lost_write(fake_github, seed000, signoff_baseline, case) -> None:
    fake = fake_github(copy.deepcopy(seed000) | {"faults": [case.fault]})
    result = attempt(fake)
    assert_lost_write_outcome(fake, case, result, signoff_baseline[0])


@pytest.mark.parametrize("case", lost_write_cases([SIGNOFF_EDIT]), ids=lambda c: c.id)
def test_signoff_lost_edit(fake_github, stale_world, signoff_baseline, case) -> None:
    fake = fake_github(copy.deepcopy(stale_world) | {"faults": [case.fault]})
    result = attempt(fake)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0  # an edit never becomes a new post
    assert_lost_write_outcome(fake, case, result, signoff_baseline[0])


@pytest.mark.parametrize("case", lost_write_cases(REUSE_WRITES), ids=lambda c: c.id)
def test_reuse_lost_reaction(fake_github, reuse_baseline, case) -> None:
    world, cid = reuse_world()
    fake = fake_github(world | {"faults": [case.fault]})
    outcome = ack(fake, cid)
    thumbs = reactions(fake, cid)
    assert fake.count("POST", r"/issues/\d+/comments$") == 0
    if case.times is not None:
        assert outcome == reuse_baseline[0] and thumbs == ["+1"]
    else:
        assert isinstance(outcome, InfxError) and "reacting +1" in str(outcome)
        assert case.kind.split("-")[0] in str(outcome) and thumbs == []


# --- two or more faults at once ---------------------------------------------------------------


def everywhere(endpoints: list[tuple[str, str]], fault: dict, *,
               repeats: dict[tuple[str, str], int] | None = None) -> list[dict]:
    """The same fault on every endpoint (with `repeats`, on each endpoint's last call only)."""
    entries = []
    for method, endpoint in endpoints:
        after = (repeats or {}).get((method, endpoint), 1) - 1 if repeats is not None else 0
        entry = {"method": method, "path": fault_path(endpoint)} | copy.deepcopy(fault)
        if method == "GET":
            entry.pop("apply", None)
        entries.append(entry | ({"after": after} if after else {}))
    return entries


_SIGNOFF_ALL = [("GET", e) for e in SIGNOFF_READS] + SIGNOFF_WRITES
_REUSE_ALL = [("GET", e) for e in REUSE_READS] + REUSE_WRITES
FLAKY = {
    "502 once everywhere": ({"status": 502, "times": 1}, False),
    "502 once everywhere, writes land": ({"status": 502, "times": 1, "apply": True}, False),
    "403 Retry-After once everywhere": ({"status": 403, "headers": {"Retry-After": "0"},
                                         "times": 1}, False),
    "502 once on every endpoint's last call": ({"status": 502, "times": 1}, True),
}


def collapse(states: list[str]) -> list[str]:
    """Statuses without immediate repeats (a landed write retried after its lost answer)."""
    return [s for i, s in enumerate(states) if i == 0 or states[i - 1] != s]


@pytest.mark.parametrize("name", FLAKY)
def test_signoff_recovers_from_flaky_faults_everywhere(fake_github, seed000, signoff_baseline,
                                                       name) -> None:
    fault, last = FLAKY[name]
    faults = everywhere(_SIGNOFF_ALL, fault, repeats=SIGNOFF_REPEATED if last else None)
    fake = fake_github(copy.deepcopy(seed000) | {"faults": faults})
    result = verify(fake)
    assert sum(r["faulted"] for r in fake.requests) == len(faults)
    assert summary(result) == summary(signoff_baseline[0])
    assert [c["body"] for c in verdicts(fake)] == [result.body]
    assert collapse(statuses(fake)) == ["pending", "success"]


@pytest.mark.parametrize("name", FLAKY)
def test_reuse_recovers_from_flaky_faults_everywhere(fake_github, reuse_baseline, name) -> None:
    fault, last = FLAKY[name]
    world, cid = reuse_world()
    faults = everywhere(_REUSE_ALL, fault, repeats=REUSE_REPEATED if last else None)
    fake = fake_github(world | {"faults": faults})
    outcome = ack(fake, cid)
    assert sum(r["faulted"] for r in fake.requests) == len(faults)
    assert outcome == reuse_baseline[0] and reactions(fake, cid) == ["+1"]


def fired(fake, entry: dict) -> bool:
    """Did a `faults:` entry act on at least one request?"""
    hits = fake.matching(entry["method"], entry["path"])[entry.get("after", 0):]
    return bool(hits) if entry.get("truncate") else any(h["status"] == entry["status"]
                                                          for h in hits)


def _entry(method: str, endpoint: str, **fault) -> dict:
    return {"method": method, "path": fault_path(endpoint)} | fault


_CHECKS = "/repos/{owner}/{repo}/commits/{sha}/check-runs"
_COMMENT_POST = ("POST", _CONVERSATION)
PERSISTENT_PLUS_FLAKY = {
    "check-runs 502 always + comment POST 502 once (lost)":
        [_entry("GET", _CHECKS, status=502), _entry(*_COMMENT_POST, status=502, times=1)],
    "check-runs 502 always + comment POST 502 once (landed)":
        [_entry("GET", _CHECKS, status=502),
         _entry(*_COMMENT_POST, status=502, times=1, apply=True)],
    "live-head re-check 404 + final status 500 once (lost)":
        [_entry("GET", _PULL, status=404, after=2), _entry(*_STATUS, status=500, after=1, times=1)],
    # one comment a page: the evidence's listing ends after its first page, every time
    "conversation cut + error status 502 once (lost)":
        [_entry("GET", _CONVERSATION, truncate=True, after=1),
         _entry(*_STATUS, status=502, times=1)],
    "run listing 500 always + status 502 once":
        [_entry("GET", _RUNS, status=500), _entry(*_STATUS, status=502, times=1)],
}
# the run listing binds the sign-off to a head (see SIGNOFF_SAME): every combination fails closed
PERSISTENT_PLUS_FLAKY_SAME: dict[str, str] = {}
UNCONFIRMED_HEAD_COMBOS = {"live-head re-check 404 + final status 500 once (lost)"}
# each flaky write is recovered from, so the statuses are the persistent fault's alone
COMBO_STATES = {
    "check-runs 502 always + comment POST 502 once (lost)": ["error"],
    "check-runs 502 always + comment POST 502 once (landed)": ["error"],
    "conversation cut + error status 502 once (lost)": ["error"],
    # evidence that cannot be read ends the run before `pending` (no status until the
    # sign-off is known to be an owner's and bound to the head): the final `error` only
    "run listing 500 always + status 502 once": ["error"],
}


@pytest.mark.parametrize("name", PERSISTENT_PLUS_FLAKY)
def test_signoff_persistent_plus_flaky_fault(fake_github, seed000, signoff_baseline, monkeypatch,
                                             name) -> None:
    faults = PERSISTENT_PLUS_FLAKY[name]
    if any(f.get("truncate") for f in faults):
        monkeypatch.setattr(transport, "PER_PAGE", 1)
    fake = fake_github(copy.deepcopy(seed000) | {"faults": copy.deepcopy(faults)})
    result = attempt(fake)
    assert isinstance(result, publish.Result)
    assert all(fired(fake, entry) for entry in faults), "a fault never fired"
    if name in UNCONFIRMED_HEAD_COMBOS:
        assert_unconfirmed_head(fake, result, signoff_baseline[0])
        return
    same = PERSISTENT_PLUS_FLAKY_SAME.get(name, "")
    assert_signoff_invariants(fake, same, result, signoff_baseline[0])
    if not same:
        assert statuses(fake) == COMBO_STATES[name]
        assert len(verdicts(fake)) == (result.body is not None)


@pytest.mark.parametrize("lands", [False, True], ids=["lost", "landed"])
def test_reuse_persistent_read_plus_flaky_reaction(fake_github, reuse_baseline, lands) -> None:
    """The run reads as absent (404: a 👎) and the first 👎 POST fails: one 👎 in the end."""
    world, cid = reuse_world()
    faults = [_entry("GET", "/repos/{owner}/{repo}/actions/runs/{n}", status=404),
              _entry(*REUSE_WRITES[0], status=502, times=1, apply=lands)]
    fake = fake_github(world | {"faults": copy.deepcopy(faults)})
    outcome = ack(fake, cid)
    assert all(fired(fake, entry) for entry in faults), "a fault never fired"
    assert_reuse_invariants(fake, cid, "", outcome, reuse_baseline[0])
    assert outcome.reaction == "-1" and "does not exist" in outcome.summary
    assert reactions(fake, cid) == ["-1"]


WELCOME_POST = ("POST", _CONVERSATION)


@pytest.mark.parametrize("case", [*write_cases([WELCOME_POST]), *lost_write_cases([WELCOME_POST])],
                         ids=lambda c: c.id)
def test_welcome_post_fault(fake_github, case) -> None:
    """Landed or not, once or always: one welcome at most, and a clear error when none landed."""
    from infx.workflow.posting import post_welcome

    fake = fake_github(base_world() | {"faults": [case.fault]})
    try:
        outcome = post_welcome(fake.client(), REUSE_REPO, 12)
    except InfxError as exc:
        outcome = exc
    assert fired(fake, case.fault)
    pull = next(p for p in fake.world["pulls"] if p["number"] == 12)
    welcomes = [c for c in pull["comments"] if c["user"] == BOT]
    if case.lands or case.times is not None:
        assert outcome.action == "created" and len(welcomes) == 1
        assert outcome.comment.id == welcomes[0]["id"]
    else:
        assert isinstance(outcome, InfxError) and welcomes == []
        assert "commenting on" in str(outcome) and case.kind.split("-")[0] in str(outcome)


# --- archives over a cap: `error`, naming the artifact and the cap --------------------------------


@pytest.mark.parametrize("limit", ["member_bytes", "download_bytes"])
def test_artifact_over_a_cap_ends_in_error(fake_github, seed000, limit) -> None:
    from infx.github.archives import ArchiveLimits, default_limits

    world = copy.deepcopy(seed000)
    artifact = next(a for run in world["workflow_runs"] for a in run.get("artifacts", [])
                    if a["name"] == "eval_results_all")
    # 3 MB that deflates to about 1.5 MB (hex digits), far beyond the 11 KB tarballs
    artifact["files"]["padding.json"] = random.Random(7).randbytes(3 * 1024 * 1024 // 2).hex()
    small = {limit: 1024 * 1024}
    limits = ArchiveLimits(**{**default_limits().__dict__, **small})
    fake = fake_github(world)
    now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
    trigger = Trigger(True, "cap", PR, SignoffRef("issue_comment", SIGNOFF_ID))
    result = publish.verify(fake.client(limits=limits), world["repo"], trigger,
                            publish.Options(now=now))
    assert (result.kind, result.status) == ("error", "error")
    assert "eval_results_all" in result.reason and limit in result.reason
    assert statuses(fake) == ["error"] and not verdicts(fake)


# --- slow answers, rate limits once, and writes GitHub rejects (422) ------------------------------


@pytest.mark.parametrize("fault", [
    {"delay": 0.01},  # every endpoint answers slowly but normally
    {"reset_in": 1, "times": 1},  # the primary rate limit runs out once, then resets
    {"status": 429, "times": 1},
], ids=["delay-everywhere", "rate-limit-reset-once-everywhere", "429-once-everywhere"])
def test_signoff_rides_out_slow_and_rate_limited_answers(fake_github, seed000, signoff_baseline,
                                                         fault) -> None:
    fake = fake_github(copy.deepcopy(seed000) | {"faults": everywhere(_SIGNOFF_ALL, fault)})
    result = verify(fake)
    assert summary(result) == summary(signoff_baseline[0])
    assert statuses(fake) == ["pending", "success"] and len(verdicts(fake)) == 1


@pytest.mark.parametrize("times", [1, None], ids=["once", "always"])
@pytest.mark.parametrize("write", SIGNOFF_WRITES, ids=lambda w: w[1])
def test_signoff_write_rejected_with_422(fake_github, seed000, write, times) -> None:
    """GitHub refuses the write (validation): it is never retried, never duplicated, and the
    run ends with a final status saying so (unless the status write itself is refused)."""
    method, endpoint = write
    fault = {"method": method, "path": fault_path(endpoint), "status": 422,
             "message": "Validation Failed"} | ({"times": times} if times else {})
    fake = fake_github(copy.deepcopy(seed000) | {"faults": [fault]})
    result = attempt(fake)
    assert isinstance(result, publish.Result)
    assert result.kind == "error" and result.status == "error" and "422" in result.reason
    bodies = [c["body"] for c in bot_comments(fake)]
    assert len(verdicts(fake)) <= 1 and len(bodies) == len(set(bodies))
    assert fake.count("POST", fault["path"]) >= 1
    states = statuses(fake)
    if (method, endpoint) == _STATUS and times is None:
        assert states == [] and "could not be set" in result.reason
    elif (method, endpoint) == _STATUS:  # `pending` refused: the final `error` still lands
        assert states == ["error"]
    else:
        assert states == ["pending", "error"] and not verdicts(fake)


# --- writes refused for good or answered oddly, and reads slower than the client waits --------

WRITE_REFUSALS = {
    "401": {"status": 401, "message": "Bad credentials"},
    "410": {"status": 410, "message": "Gone"},
    "429": {"status": 429},
    "429-landed": {"status": 429, "apply": True},
    "rate-limit-reset": {"reset_in": 1},
    "rate-limit-reset-landed": {"reset_in": 1, "apply": True},
    "not-json-landed": {"body": "<html><body>Unicorn!</body></html>", "apply": True},
}


@pytest.mark.parametrize("times", [1, None], ids=["once", "always"])
@pytest.mark.parametrize("kind", WRITE_REFUSALS)
@pytest.mark.parametrize("write", [*SIGNOFF_WRITES, SIGNOFF_EDIT], ids=lambda w: f"{w[0]} {w[1]}")
def test_signoff_write_refusals_never_duplicate_and_always_end(fake_github, seed000, stale_world,
                                                               signoff_baseline, write, kind,
                                                               times) -> None:
    """401/410/429, an exhausted rate limit or a body that is not JSON on each write, once or
    for good (the write landing or not): at most one verdict comment, never one posted twice,
    a final status that is not `pending` (unless the status write itself is refused for
    good), `success` only with the fault-free verdict, and an error that names the refusal."""
    method, endpoint = write
    fault = {"method": method, "path": fault_path(endpoint)} | copy.deepcopy(WRITE_REFUSALS[kind])
    fault |= {"times": times} if times else {}
    world = stale_world if write == SIGNOFF_EDIT else seed000
    fake = fake_github(copy.deepcopy(world) | {"faults": [fault]})
    result = attempt(fake)
    assert isinstance(result, publish.Result), result
    assert fake.count(method, fault["path"]) >= 1, "the faulted write was never made"
    bodies = [c["body"] for c in bot_comments(fake)]
    assert len(verdicts(fake)) <= 1 and len(bodies) == len(set(bodies)), bodies
    created = [r for r in fake.matching("POST", r"/issues/\d+/comments$") if r["status"] == 201]
    assert len(created) <= 1, "the verdict was created twice"
    if write == SIGNOFF_EDIT:
        assert fake.count("POST", r"/issues/\d+/comments$") == 0  # an edit never becomes a post
    states = statuses(fake)
    if result.status == "success":
        assert summary(result) == summary(signoff_baseline[0]) and states[-1] == "success"
        assert [c["body"] for c in verdicts(fake)] == [result.body]
        return
    assert result.kind == "error" and result.status == "error" and result.reason
    if write == _STATUS and times is None:  # no status write is accepted: the reason says so
        assert "pending" not in states[-1:] or "could not be set" in result.reason
    else:
        assert states and states[-1] == "error", states


def test_a_read_slower_than_the_client_waits_is_unreadable_evidence(seed000) -> None:
    """Check runs answered after the client's timeout: never a PASS, a final `error` status
    naming what could not be read, one verdict comment at most."""
    from infx.github.client import GitHubClient
    from infx.github.fake import FakeGitHub
    from infx.github.retry import RetryPolicy

    world = copy.deepcopy(seed000) | {"faults": [{"method": "GET", "path": fault_path(_CHECKS),
                                                  "delay": 2.5}]}
    with FakeGitHub(world) as fake:
        client = GitHubClient(token="fake-token", base_url=fake.url, timeout=1,
                              policy=RetryPolicy(sleep=lambda seconds: None))
        trigger = Trigger(True, "fault matrix", PR, SignoffRef("issue_comment", SIGNOFF_ID))
        result = publish.verify(client, world["repo"], trigger, publish.Options())
        assert result.status == "error" and result.verdict is None, result.reason
        # no status before the sign-off is known to be bound to the head: the final `error` only
        assert statuses(fake) == ["error"] and len(verdicts(fake)) <= 1
        assert "check-runs" in result.body and "@" not in result.body.split("\n", 1)[1]
