"""Check `reuse` (advisory): an authorised reuse command, decided by the reuse resolver's own authorization."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import datetime

import pytest
from lib.signoff_policy_support import bare_evidence

from infx import yamlio
from infx.reuse.gateway import GitHubGateway
from infx.reuse.resolver import find_request, unbound_reason
from infx.signoff import pipeline as publish
from infx.signoff.checks import reuse
from infx.signoff.model import Comment, Evidence, Status
from infx.signoff.table import load_table
from infx.signoff.trigger.gating import SignoffRef, Trigger

SETTINGS = load_table().settings
WRITE = {"permission": "write", "role_name": "write"}
READ = {"permission": "read", "role_name": "read"}
NO_ACCESS = {"permission": "none", "role_name": "none"}


def check(ev: Evidence):
    return reuse.run(ev, SETTINGS)


HEAD, SEEN, BASE = "d" * 40, "e" * 40, "c" * 40  # bare_evidence's head and base


def evidence(comments, collaborators=None, read_errors=None, **fields) -> Evidence:
    fields = {"reuse_seen_head": HEAD, "commits": [SEEN, HEAD]} | fields
    return bare_evidence(comments=comments, collaborators=dict(collaborators or {}),
                         read_errors=dict(read_errors or {}), **fields)


def comment(i, user, association, body, kind="issue_comment", user_type="User"):
    return Comment(i, user, body, association, f"2026-09-0{i}T00:00:00Z", kind=kind, user_type=user_type)


def test_authorised_command_passes() -> None:
    outcome = check(evidence([comment(1, "chunfangamd", "COLLABORATOR", "/reuse-sweep-run 35873197630")],
                                 {"chunfangamd": WRITE}))
    assert outcome.status is Status.PASS
    assert outcome.reason == "/reuse-sweep-run 35873197630 was posted by chunfangamd (COLLABORATOR)."


def test_newest_authorised_command_wins() -> None:
    outcome = check(evidence([comment(1, "a", "MEMBER", "/use 1"), comment(2, "b", "OWNER", "/use 2")],
                                 {"a": WRITE, "b": WRITE}))
    assert "/use 2 was posted by b" in outcome.reason


def test_scenario_12_contributor_and_inline_mentions_only_warn() -> None:
    comments = [comment(1, "stranger", "CONTRIBUTOR", "/use 123"),
                comment(2, "maint", "MEMBER", "please /use 456"),
                comment(3, "maint", "MEMBER", "/use 789", kind="review_comment")]
    outcome = check(evidence(comments, {"maint": WRITE, "stranger": NO_ACCESS}))
    assert outcome.status is Status.WARN
    assert "no authorised reuse command" in outcome.reason
    assert "stranger (CONTRIBUTOR, none permission)" in outcome.reason


def test_a_read_only_member_does_not_pass() -> None:
    outcome = check(evidence([comment(1, "reader", "MEMBER", "/use 5")], {"reader": READ}))
    assert outcome.status is Status.WARN
    assert "reader (MEMBER, read permission)" in outcome.reason


def test_a_read_only_members_newer_command_falls_back_to_an_older_authorised_one() -> None:
    comments = [comment(1, "w", "MEMBER", "/use 1"), comment(2, "reader", "MEMBER", "/use 2")]
    outcome = check(evidence(comments, {"w": WRITE, "reader": READ}))
    assert outcome.status is Status.PASS and outcome.reason.startswith("/use 1 was posted by w")


def test_a_bot_never_passes() -> None:
    for user, kind in (("helper[bot]", "Bot"), ("helper", "Bot")):
        outcome = check(evidence([comment(1, user, "MEMBER", "/use 5", user_type=kind)],
                                     {user.lower(): {"permission": "admin", "role_name": "admin"}}))
        assert outcome.status is Status.WARN and f"{user} (a bot)" in outcome.reason


def test_a_hidden_command_does_not_pass() -> None:
    outcome = check(evidence([comment(1, "w", "MEMBER", "<!--\n/use 5\n-->")], {"w": WRITE}))
    assert outcome.status is Status.WARN


def test_an_unread_permission_cannot_confirm() -> None:
    outcome = check(evidence([comment(1, "w", "MEMBER", "/use 5")]))  # never read
    assert outcome.status is Status.WARN and "w's repository permission could not be read" in outcome.reason
    outcome = check(evidence([comment(1, "w", "MEMBER", "/use 5")], {"w": None},
                                 {"permission:w": "GitHub failed: 502"}))
    assert outcome.status is Status.WARN and "could not be read" in outcome.reason


ENTRY = "- config-keys: [k]\n  description: [{}]\n  pr-link: XXX\n"


def test_a_command_older_than_a_plan_changing_push_warns_as_the_resolver_says() -> None:
    posted = [comment(1, "w", "MEMBER", "/reuse-sweep-run")]
    trees = {"head_files": {"perf-changelog.yaml": ENTRY.format("two")}, "base_files": {}}
    same = check(evidence(posted, {"w": WRITE}, reuse_seen_head=SEEN,
                          reuse_seen_files={"perf-changelog.yaml": ENTRY.format("two"), "README.md": "x"},
                          **trees))
    assert same.status is Status.PASS  # the push since was benchmark-neutral
    swapped = check(evidence(posted, {"w": WRITE}, reuse_seen_head=SEEN,
                             reuse_seen_files={"perf-changelog.yaml": ENTRY.format("one")}, **trees))
    assert swapped.status is Status.WARN
    assert swapped.reason.startswith("/reuse-sweep-run (comment 1 by w) was posted when the PR head was eeeeeeeeeeee")
    assert "perf-changelog.yaml (this PR's entries)" in swapped.reason and "post a new" in swapped.reason
    unknown = check(evidence(posted, {"w": WRITE}, reuse_seen_head=""))
    assert unknown.status is Status.WARN and "cannot be tied to a PR head" in unknown.reason
    unread = check(evidence(posted, {"w": WRITE}, reuse_seen_head=None))
    assert unread.status is Status.WARN and "was not read" in unread.reason


def test_nothing_posted_or_unreadable_warns() -> None:
    assert check(evidence([])).status is Status.WARN
    assert check(evidence(None)).status is Status.WARN


# ---- the verdict and the resolver agree, on the same world through the fake server ----------

COMMAND_ID = 5003 - 1  # seed 000's `/reuse-sweep-run 35873197630` by chunfangamd


@pytest.fixture(scope="module")
def seed000(request):
    return yamlio.load_file(request.config.rootpath / "tests/data/worlds/signoff_seed000.yaml")


def _with_command_author(world: dict, user: str, association: str, body: str | None = None) -> dict:
    world = copy.deepcopy(world)
    command = next(c for c in world["pulls"][0]["comments"] if c["id"] == COMMAND_ID)
    command.update(user=user, author_association=association)
    if body is not None:
        command["body"] = body
    return world


def _check_4(fake, world) -> tuple[Status, str, int]:
    now = datetime.fromisoformat(world["now"].replace("Z", "+00:00"))
    table = load_table()
    table = replace(table, checks=tuple(c for c in table.checks if c.id == "reuse"))
    trigger = Trigger(True, "test", world["pulls"][0]["number"], SignoffRef("issue_comment", 5003))
    result = publish.verify(fake.client(), world["repo"], trigger,
                            publish.Options(post=False, now=now), table)
    row = next(r for r in result.verdict.rows if r.spec.id == "reuse")
    return row.status, row.outcome.reason, result.api_calls


CASES = {
    "write collaborator": ("chunfangamd", "COLLABORATOR", None, {"permission": "write", "role_name": "write"}),
    "maintainer": ("keeper", "MEMBER", None, {"permission": "write", "role_name": "maintain"}),
    "read-only member": ("viewer", "MEMBER", None, {"permission": "read", "role_name": "read"}),
    "triage member": ("sorter", "MEMBER", None, {"permission": "read", "role_name": "triage"}),
    "member without access": ("outsider", "MEMBER", None, None),
    "bot with admin": ("merge-helper[bot]", "MEMBER", None, {"permission": "admin", "role_name": "admin"}),
    # GitHub's association for a member whose organisation membership is private
    "contributor with write": ("vendor", "CONTRIBUTOR", None, {"permission": "write", "role_name": "write"}),
    "command in an HTML comment": ("chunfangamd", "COLLABORATOR", "<!--\n/reuse-sweep-run 35873197630\n-->",
                                   {"permission": "write", "role_name": "write"}),
    "command in a quote": ("chunfangamd", "COLLABORATOR", "> /reuse-sweep-run 35873197630",
                           {"permission": "write", "role_name": "write"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_4_passes_exactly_when_the_resolver_authorizes(fake_github, seed000, case) -> None:
    user, association, body, permission = CASES[case]
    world = _with_command_author(seed000, user, association, body)
    if permission is not None:
        world["collaborators"][user] = permission
    status, reason, _ = _check_4(fake_github(world), world)
    fake = fake_github(world)
    request = find_request(GitHubGateway(fake.client(), world["repo"]), world["pulls"][0]["number"])
    assert (status is Status.PASS) == (request is not None), (case, reason)
    expected = case in ("write collaborator", "maintainer", "contributor with write")
    assert (request is not None) is expected, case
    if request is not None:
        assert reason.startswith(f"{request.command} was posted by {user}")


def test_check_4_and_the_resolver_agree_on_a_command_older_than_a_plan_swap(fake_github, seed000) -> None:
    world = copy.deepcopy(seed000)
    pull = world["pulls"][0]
    head = pull["head"]["sha"]
    swapped = "5a" * 20
    changelog = world["commits"][head]["files"].get("perf-changelog.yaml")
    if changelog is None:  # the head inherits it
        from infx.github.fake.world import tree_at
        changelog = tree_at(world, head)["perf-changelog.yaml"]
    world["commits"][swapped] = {"parents": [head], "message": "swap the benchmarked config",
                                 "files_from": head,
                                 "files": {"perf-changelog.yaml": changelog.rstrip("\n") + "\n\n- config-keys: [some-other-key]\n"
                                           "  description: [another plan]\n  pr-link: XXX\n"}}
    pull["commits"].append(swapped)
    pull["head"]["sha"] = swapped
    world["workflow_runs"].append({"id": 35873199999, "name": "Run Sweep", "path": ".github/workflows/run-sweep.yml",
                                   "event": "pull_request", "status": "in_progress", "conclusion": None,
                                   "head_sha": swapped, "head_branch": pull["head"]["ref"],
                                   "created_at": "2026-09-24T09:00:00Z", "artifacts": []})
    status, reason, _ = _check_4(fake_github(world), world)
    fake = fake_github(world)
    gateway = GitHubGateway(fake.client(), world["repo"])
    request = find_request(gateway, pull["number"])
    resolver_says = unbound_reason(gateway, pull["number"], request)
    assert resolver_says is not None and "perf-changelog.yaml (this PR's entries)" in resolver_says
    assert status is Status.WARN and reason == resolver_says


def test_logins_are_matched_case_insensitively_to_their_permissions() -> None:
    """GitHub prints a login as its owner spelled it; the gatherer keys permissions by the
    lower-case login."""
    outcome = check(evidence([comment(1, "ChunFangAMD", "COLLABORATOR", "/use 5")], {"chunfangamd": WRITE}))
    assert outcome.status is Status.PASS
    outcome = check(evidence([comment(1, "Reader", "MEMBER", "/use 5")], {"reader": READ}))
    assert outcome.reason.startswith("no authorised reuse command has been posted (only from Reader (MEMBER, "
                                     "read permission));")


def test_the_newest_three_turned_away_commands_are_named_oldest_first() -> None:
    comments = [comment(1, "s1", "CONTRIBUTOR", "/use 1"), comment(2, "s2", "NONE", "/use 2"),
                comment(3, "m", "MEMBER", "thanks, looks good"), comment(4, "m", "MEMBER", "please /use 4"),
                comment(5, "m", "MEMBER", "quoted:\n```\n/use 5\n```"),
                comment(6, "s3", "FIRST_TIMER", "/reuse-sweep-run 6"),
                comment(7, "s4", "CONTRIBUTOR", "/use 7")]
    read = {"m": WRITE, "s1": NO_ACCESS, "s2": NO_ACCESS, "s4": NO_ACCESS}  # s3's was not read
    outcome = check(evidence(comments, read))
    assert outcome.status is Status.WARN
    assert outcome.reason == ("no authorised reuse command has been posted (only from s2 (NONE, none "
                              "permission), s3 (FIRST_TIMER, permission not read), s4 (CONTRIBUTOR, none "
                              "permission)); " + reuse.ASK)
    two = check(evidence(comments[:3], read))
    assert two.reason.startswith("no authorised reuse command has been posted (only from s1 (CONTRIBUTOR, "
                                 "none permission), s2 (NONE, none permission)); ")


def test_a_contributors_unread_permission_is_not_guessed() -> None:
    """CONTRIBUTOR may be a member whose organisation membership is private: without their
    permission Check `reuse` cannot decide, and says so."""
    outcome = check(evidence([comment(1, "w", "MEMBER", "/use 1"), comment(2, "pat", "CONTRIBUTOR", "/use 2")],
                             {"w": WRITE}))
    assert outcome.status is Status.WARN and outcome.reason.startswith("pat's repository permission could not")


def test_a_conversation_without_any_command_says_only_that() -> None:
    comments = [comment(1, "m", "MEMBER", "thanks"), comment(2, "m", "MEMBER", "please /use 4"),
                comment(3, "m", "MEMBER", "/use abc"), comment(4, "m", "MEMBER", "```\n/use 4\n```")]
    assert check(evidence(comments, {"m": WRITE})).reason == \
        "no authorised reuse command has been posted; " + reuse.ASK


def test_a_plan_without_rows_asks_for_no_reuse_command() -> None:
    """A PR that leaves the changelog as it is (retiring configs) plans no row: no sweep to
    reuse, so no advice to post one; with an entry the advice stands."""
    from lib.project_trees import BASE as TREE
    from lib.project_trees import ENTRY

    ev = evidence([])
    ev.head_files, ev.base_files = dict(TREE), TREE
    outcome = check(ev)
    assert outcome.status is Status.NA and "no sweep to reuse" in outcome.reason
    ev.head_files = TREE | {"perf-changelog.yaml": TREE["perf-changelog.yaml"] + ENTRY}
    assert check(ev).status is Status.WARN
