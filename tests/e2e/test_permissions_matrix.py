"""Permission matrix (issue 20 point 6): every bot step of every workflow, run as its `run:` line
says against a shipped world on the fake server, with exactly the permissions its token holds
there (the job's `permissions:` block, or its App token's `permission-*` inputs): it succeeds.
With any one of those permissions removed it fails (exit 1, nothing claimed) with a message
naming the missing permission. A permission the job holds only for another of its steps (the
checkout's `contents: read`) is listed as such, never silently skipped."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from lib.reuse_world import (
    C0,
    C1,
    C2,
    FORK,
    M1,
    REPO,
    add_comment,
    add_fork_pr,
    base_world,
    merged,
    pr,
)
from lib.workflow_jobs import jobs_as_run, local_calls, token_grant

from infx import yamlio

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
WORLDS = ROOT / "tests" / "data" / "worlds"
WEBHOOKS = ROOT / "tests" / "data" / "github" / "webhooks"
T1 = "2026-09-29T18:00:00Z"
SIGNOFF_HEAD = "296a93ad6c8fa017e83fb5f404f09f2efc16e1c4"
MERGED = "c0ffee0000000000000000000000000000000005"  # trust_head_moves: main merged into PR 3412
MAIN2 = "c0ffee0000000000000000000000000000000004"
CONTEXT = "codeowner-signoff-verify"


# --- what a workflow gives a step -------------------------------------------------------------


def job_of(workflow: str, job: str) -> dict:
    """The job as it runs (a bot's call of its reusable workflow followed: tests/lib/workflow_jobs.py)."""
    return jobs_as_run(WORKFLOWS / workflow)[job]


def step_of(workflow: str, job: str, name: str) -> dict:
    return next(s for s in job_of(workflow, job)["steps"] if s.get("name") == name)


def installation_name(name: str) -> str:
    """A workflow permission name (`pull-requests`) as the installation API spells it."""
    return name.replace("-", "_")


def token_permissions(workflow: str, job: str, name: str) -> dict[str, str]:
    """What the step's token holds: its App token's `permission-*` inputs when the step uses
    that token, the job's `permissions:` block otherwise."""
    step = step_of(workflow, job, name)
    token = (step.get("env") or {}).get("GITHUB_TOKEN", "")
    if "steps.app-token.outputs.token" in token:
        minted = next(s for s in job_of(workflow, job)["steps"] if s.get("id") == "app-token")
        return {installation_name(k.removeprefix("permission-")): v
                for k, v in minted["with"].items() if k.startswith("permission-")}
    assert "github.token" in token, f"{workflow} {job} / {name}: which token is {token!r}?"
    return {installation_name(k): v for k, v in token_grant(WORKFLOWS / workflow, job).items()}


def held_for_other_steps(workflow: str, job: str, name: str) -> dict[str, str]:
    """Permissions of the job's token its other steps need (the checkout reads contents)."""
    if "steps.app-token.outputs.token" in str(step_of(workflow, job, name).get("env")):
        return {}
    steps = job_of(workflow, job)["steps"]
    checkout = any(str(s.get("uses", "")).startswith("actions/checkout@") for s in steps)
    return {"contents": "checks out the repository with the job's token"} if checkout else {}


def command_line(run: str, env: dict[str, str]) -> list[str]:
    """The step's one command with its `$VARS` from `env` (a variable it does not set fails)."""
    lines = [line for line in run.strip().splitlines() if line.strip()]
    assert len(lines) == 1, f"not a one-line step: {run!r}"

    def value(found: re.Match) -> str:
        text = env[found.group(1) or found.group(2)]
        assert re.fullmatch(r"[\w./:,\[\]-]*", text), text  # nothing a double quote changes
        return text

    text = re.sub(r"\$(?:\{(\w+)\}|(\w+))", value, lines[0])
    assert "$" not in text, text
    return shlex.split(text)


def invoke(argv: list[str]) -> int:
    if argv[:1] == ["infx"]:
        from infx.cli import main

        return main(argv[1:])
    assert argv[:3] == ["python", "-m", "infx.workflow"], argv
    from infx.cli.workflow import main as workflow_main

    return workflow_main(argv[3:])


# --- the steps --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotStep:
    """One bot step: where it is, the world it runs against, the variables its `run:` line
    reads, and what success looks like on the world afterwards."""

    id: str
    workflow: str
    job: str
    step: str
    world: Callable[[], dict]
    env: Callable[[Path], dict[str, str]]
    succeeded: Callable[[dict], bool] | None = None  # what the world shows after a success
    printed: str = ""  # what a success prints (steps whose result is their output)
    bot: str = "github-actions[bot]"
    # permissions of the job's token another step of the job needs: {permission: that step}
    others: dict[str, str] = field(default_factory=dict)
    prepare: Callable[[Path], None] | None = None  # files the step reads in its working directory
    degrades: str = ""  # why a refused read is shown, not failed (the step still exits 0)


def _event(tmp: Path, payload: dict) -> str:
    path = tmp / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def _signoff_world() -> dict:
    """PR 3412 signed by @chunfangamd, a CODEOWNER through a team (so membership is read)."""
    return yamlio.load_file(WORLDS / "trust_catch_all_team.yaml")


def _signoff_comment_event(tmp: Path) -> dict[str, str]:
    world = _signoff_world()
    comment = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5003)
    payload = {"action": "created", "issue": {"number": 3412, "pull_request": {"url": "u"}},
               "comment": {"id": 5003, "body": comment["body"], "user": {"login": comment["user"]},
                           "created_at": comment["created_at"], "updated_at": comment["updated_at"]},
               "repository": {"full_name": world["repo"], "default_branch": "main"},
               "sender": {"login": comment["user"]}}
    return {"GITHUB_REPOSITORY": world["repo"], "GITHUB_EVENT_PATH": _event(tmp, payload),
            "GITHUB_EVENT_NAME": "issue_comment", "RUNNER_TEMP": str(tmp)}


def _last_status(world: dict, sha: str) -> str | None:
    mine = [s["state"] for s in world["statuses"].get(sha, []) if s["context"] == CONTEXT]
    return mine[-1] if mine else None


def _comment_event(world: dict, comment_id: int, number: int = 12) -> dict:
    comment = next(c for c in pr(world, number)["comments"] if c["id"] == comment_id)
    return {"action": "created", "issue": {"number": number, "pull_request": {"url": "u"}},
            "comment": {"id": comment_id, "body": comment["body"], "updated_at": comment["updated_at"],
                        "created_at": comment["created_at"], "user": {"login": comment["user"]},
                        "author_association": comment["author_association"]},
            "repository": {"full_name": REPO, "default_branch": "main"},
            "sender": {"login": comment["user"]}}


def _with_comment(user: str, association: str, body: str) -> Callable[[], dict]:
    def build() -> dict:
        world = base_world()
        add_comment(world, user, association, body, T1, comment_id=901)
        return world
    return build


def _comment_env(build: Callable[[], dict]) -> Callable[[Path], dict[str, str]]:
    def env(tmp: Path) -> dict[str, str]:
        return {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": _event(tmp, _comment_event(build(), 901))}
    return env


def _reacted(content: str) -> Callable[[dict], bool]:
    def check(world: dict) -> bool:
        comment = next(c for c in pr(world)["comments"] if c["id"] == 901)
        return [r["content"] for r in comment.get("reactions", [])] == [content]
    return check


def _bot_comment(marker: str, number: int = 12) -> Callable[[dict], bool]:
    def check(world: dict) -> bool:
        return any(c["body"].startswith(marker) for c in pr(world, number)["comments"])
    return check


def _retest_world() -> dict:
    world = _with_comment("tina", "MEMBER", "Node 3 was flaky.\n\n/retest-failed")()
    world["collaborators"]["tina"] = {"permission": "read", "role_name": "triage"}
    url = f"https://github.com/{REPO}/actions/runs/109/job/"
    world["check_runs"] = {C2: [
        {"id": 1, "name": "single-node 1k1k / dsr1 fp8 mi355x sglang 1k1k TP8 c8 #0b0b0b0b",
         "status": "completed", "conclusion": "failure", "details_url": url + "1", "run_id": 109}]}
    return world


def _rerun(world: dict) -> bool:
    """Re-run, and the command acknowledged with a 👍."""
    queued = next(r for r in world["workflow_runs"] if r["id"] == 109)["status"] == "queued"
    return queued and _reacted("+1")(world)


def _fork_run_event(tmp: Path) -> dict[str, str]:
    payload = json.loads((WEBHOOKS / "workflow_run" / "completed.with-pull-requests.payload.json").read_text())
    run = payload["workflow_run"]
    run.update(event="pull_request", name="PR welcome", head_sha=C2, head_branch="main", pull_requests=[])
    run["head_repository"] = copy.deepcopy(run["head_repository"]) | {"full_name": "vendor/inferencex"}
    payload["repository"] |= {"full_name": REPO, "default_branch": "main"}
    return {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": _event(tmp, payload)}


def _merge_world() -> dict:
    world = merged(base_world())
    add_comment(world, "root", "OWNER", "/use 101", T1)
    return world


def _gate_world() -> dict:
    world = base_world()
    add_comment(world, "alice", "MEMBER", "Green.\n/reuse-sweep-run 101\n", T1)
    return world


def _verified_then_owner_dropped() -> dict:
    """trust_head_moves verified (PASS and the bot's `success` check run on 296a93ad, still the
    head), then @chunfangamd left the team that owns the AMD config: the head's status is
    decided again (`pending`: no longer an owner, read through team membership) and the
    verdict's check run, which says success, is withdrawn."""
    world = copy.deepcopy(_verified_unmoved())
    world["teams"]["SemiAnalysisAI/amd-owners"] = ["someone-else"]
    return world


def _withdrawn(world: dict) -> bool:
    """The head `pending` and the verdict's check run on it no longer saying success."""
    runs = [r for r in world["check_runs"].get(SIGNOFF_HEAD, []) if r["name"] == CONTEXT and "app" in r]
    return _last_status(world, SIGNOFF_HEAD) == "pending" and [r["conclusion"] for r in runs] == ["action_required"]


@functools.cache
def _verified_world() -> dict:
    world = copy.deepcopy(_verified_unmoved())
    pull = world["pulls"][0]
    pull["head"]["sha"], pull["commits"], pull["base"]["sha"] = MERGED, [*pull["commits"], MERGED], MAIN2
    return world


@functools.cache
def _verified_unmoved() -> dict:
    from infx.github.fake import FakeGitHub
    from infx.signoff import pipeline
    from infx.signoff.trigger.gating import SignoffRef, Trigger

    world = yamlio.load_file(WORLDS / "trust_head_moves.yaml")
    for commit in world["commits"].values():  # the signer owns the AMD config through a team
        owners = (commit.get("files") or {}).get("CODEOWNERS")
        if owners:
            commit["files"]["CODEOWNERS"] = re.sub(r"(?m)^configs/amd-master\.yaml .*$",
                                                   "configs/amd-master.yaml @SemiAnalysisAI/amd-owners", owners)
    world["teams"]["SemiAnalysisAI/amd-owners"] = ["chunfangamd"]
    with FakeGitHub(world) as fake:
        trigger = Trigger(True, "test", 3412, SignoffRef("issue_comment", 5003))
        assert pipeline.verify(fake.client(), fake.world["repo"], trigger, pipeline.Options()).status == "success"
        return copy.deepcopy(fake.world)


def _run_event(tmp: Path, *, event: str, head_sha: str, branch: str, repo: str, created_at: str) -> str:
    payload = json.loads((WEBHOOKS / "workflow_run" / "completed.with-pull-requests.payload.json").read_text())
    run = payload["workflow_run"]
    run.update(event=event, name="CODEOWNER sign-off", head_sha=head_sha, head_branch=branch,
               pull_requests=[], conclusion="success", status="completed", created_at=created_at)
    run["head_repository"] = copy.deepcopy(run["head_repository"]) | {"full_name": repo}
    payload["repository"] |= {"full_name": repo, "default_branch": "main"}
    return _event(tmp, payload)


def _withdraw_env(tmp: Path) -> dict[str, str]:
    world = _verified_unmoved()
    pull = world["pulls"][0]
    return {"GITHUB_REPOSITORY": world["repo"],
            "GITHUB_EVENT_PATH": _run_event(tmp, event="pull_request", head_sha=SIGNOFF_HEAD,
                                            branch=pull["head"]["ref"], repo=world["repo"],
                                            created_at=world["now"])}


def _reset_env(tmp: Path) -> dict[str, str]:
    world = _verified_world()
    comment = next(c for c in world["pulls"][0]["comments"] if c["id"] == 5002)
    payload = {"action": "edited", "issue": {"number": 3412, "pull_request": {"url": "u"}},
               "comment": {"id": 5002, "body": comment["body"], "user": {"login": comment["user"]}},
               "changes": {"body": {"from": "As a PR reviewer and CODEOWNER"}},
               "repository": {"full_name": world["repo"], "default_branch": "main"},
               "sender": {"login": comment["user"]}}
    return {"GITHUB_REPOSITORY": world["repo"], "GITHUB_EVENT_PATH": _event(tmp, payload)}


def _review_world() -> dict:
    """The team-owned sign-off of PR 3412 posted as a review instead of a comment."""
    world = _signoff_world()
    pull = world["pulls"][0]
    signoff = next(c for c in pull["comments"] if c["id"] == 5003)
    pull["comments"] = [c for c in pull["comments"] if c["id"] != 5003]
    pull["reviews"] = [{"id": 7003, "user": signoff["user"], "state": "COMMENTED", "body": signoff["body"],
                        "commit_id": pull["head"]["sha"], "submitted_at": signoff["created_at"],
                        "author_association": signoff.get("author_association", "MEMBER")}]
    return world


def _relay_env(tmp: Path) -> dict[str, str]:
    world = _review_world()
    pull = world["pulls"][0]
    return {"GITHUB_REPOSITORY": world["repo"], "RUNNER_TEMP": str(tmp),
            "GITHUB_EVENT_PATH": _run_event(tmp, event="pull_request_review", head_sha=pull["head"]["sha"],
                                            branch=pull["head"]["ref"], repo=world["repo"],
                                            created_at=world["now"])}


def _report_world() -> dict:
    """The report's run; its CODEOWNERS names a person (the job's token cannot read teams)."""
    from lib.report_charts import BASE_SHA, world

    built = world()
    built["commits"][BASE_SHA]["files"]["CODEOWNERS"] = "* @root\n"
    return built


REPORT_INPUTS: dict[str, Path] = {}


@pytest.fixture(scope="module", autouse=True)
def _collected_results(tmp_path_factory):
    """agg_bmk.json and agg_eval_all.json of the report world's run, as `collect` writes them."""
    from lib.report_charts import run_the_jobs

    from infx.cli.workflow import main as workflow_main

    tmp = tmp_path_factory.mktemp("collected")
    (tmp / "downloaded").mkdir()
    run_the_jobs(tmp / "downloaded", tmp / "work")
    for kind, name in (("benchmark", "agg_bmk.json"), ("eval", "agg_eval_all.json")):
        assert workflow_main(["collect", "--kind", kind, "--input", str(tmp / "downloaded"),
                              "--output", str(tmp / name)]) == 0
        REPORT_INPUTS[name] = tmp / name
    yield


def _report_files(tmp: Path) -> None:
    """The artifacts the report job downloads into `collected/`."""
    for folder, name in (("results_bmk", "agg_bmk.json"), ("eval_results_all", "agg_eval_all.json")):
        (tmp / "collected" / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(REPORT_INPUTS[name], tmp / "collected" / folder / name)


def _report_env(tmp: Path) -> dict[str, str]:
    from lib.report_charts import HEAD_SHA, RUN

    return {"GITHUB_REPOSITORY": REPO, "PR_NUMBER": "12", "HEAD_SHA": HEAD_SHA, "GITHUB_RUN_ID": str(RUN)}


def _report_posted(world: dict) -> bool:
    """The report comment, with its jobs and checks read."""
    from infx.report.build import MARKER_NAME

    bodies = [c["body"] for c in world["pulls"][0]["comments"] if MARKER_NAME in c["body"].split("\n", 1)[0]]
    return len(bodies) == 1 and "could not be read" not in bodies[0] and "Not evaluated" not in bodies[0]



def _fork_world(approved: str = C2) -> Callable[[], dict]:
    """Fork PR #14 (head C2, a primary sweep label) with @dave's (maintain) `/approve-sweep` of
    `approved` as comment 901."""
    def build() -> dict:
        world = add_fork_pr(base_world())
        pr(world, 14)["draft"] = False
        add_comment(world, "dave", "MEMBER", f"Read it.\n\n/approve-sweep {approved}\n", T1,
                    number=14, comment_id=901)
        return world
    return build


def _fork_approve_env(tmp: Path) -> dict[str, str]:
    return {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": _event(tmp, _comment_event(_fork_world()(), 901, 14))}


def _fork_dispatched(world: dict) -> bool:
    """run-sweep.yml dispatched on main pinned to #14's head, and the approval acknowledged 👍."""
    comment = next(c for c in pr(world, 14)["comments"] if c["id"] == 901)
    sent = [d["inputs"] for d in world.get("workflow_dispatches", [])]
    return sent == [{"pr-number": "14", "head-sha": C2}] and [r["content"] for r in comment.get("reactions", [])] == ["+1"]


def _fork_push_env(tmp: Path) -> dict[str, str]:
    """The completed `Fork PR push` run of the fork's new head C2 (the approval was for C1)."""
    payload = {"action": "completed", "workflow_run": {
        "id": 5001, "name": "Fork PR push", "event": "pull_request", "status": "completed",
        "conclusion": "success", "head_sha": C2, "head_branch": "main", "path": ".github/workflows/fork-push.yml",
        "head_repository": {"full_name": FORK}}, "repository": {"full_name": REPO, "default_branch": "main"}}
    return {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": _event(tmp, payload)}


def _fork_dropped(world: dict) -> bool:
    """The primary label off #14 and the one note posted."""
    from infx.workflow.fork_sweep import NOTE_MARKER

    notes = [c for c in pr(world, 14)["comments"] if NOTE_MARKER in c["body"]]
    return "full-sweep-fail-fast" not in pr(world, 14)["labels"] and len(notes) == 1


STEPS = (
    BotStep("signoff-verify", "signoff-verify.yml", "verify", "Verify the sign-off", _signoff_world,
            _signoff_comment_event, lambda world: _last_status(world, SIGNOFF_HEAD) == "success"),
    BotStep("reuse-ack", "reuse-command.yml", "acknowledge", "Acknowledge",
            _with_comment("alice", "MEMBER", "/use 101"),
            _comment_env(_with_comment("alice", "MEMBER", "/use 101")), _reacted("+1")),
    BotStep("retest", "retest-command.yml", "retest", "Re-run the failed rows", _retest_world,
            _comment_env(_retest_world), _rerun),
    BotStep("answer-help", "slash-commands.yml", "answer", "Answer", _with_comment("alice", "MEMBER", "/help"),
            _comment_env(_with_comment("alice", "MEMBER", "/help")),
            lambda world: len(pr(world)["comments"]) > len(pr(_with_comment("a", "NONE", "x")())["comments"])),
    BotStep("welcome", "pr-welcome.yml", "welcome", "Upsert the welcome comment", base_world,
            lambda tmp: {"GITHUB_REPOSITORY": REPO, "PR_NUMBER": "12"}, _bot_comment("<!-- infx-welcome")),
    BotStep("welcome-fork", "pr-welcome-fork.yml", "welcome", "Upsert the welcome comment on the fork PR",
            lambda: add_fork_pr(base_world()), _fork_run_event, _bot_comment("<!-- infx-welcome", 14)),
    BotStep("results-link", "run-sweep.yml", "results-link", "Upsert the results-link comment", base_world,
            lambda tmp: {"GITHUB_REPOSITORY": REPO, "PR_NUMBER": "12", "GITHUB_RUN_ID": "5"},
            _bot_comment("<!-- infx-results-link")),
    BotStep("reuse-resolve-merge", "run-sweep.yml", "plan", "Resolve merge-time reuse", _merge_world,
            lambda tmp: {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main",
                         "GITHUB_SHA": M1, "PUSH_BEFORE": C0},
            printed='"reuse-enabled": "true"'),
    BotStep("reuse-resolve-gate", "run-sweep.yml", "reuse-gate", "Look for an authorized /reuse-sweep-run",
            _gate_world, lambda tmp: {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": "pull_request",
                                      "PR_NUMBER": "12", "HEAD_SHA": C1},
            printed='"skip-pr-sweep": "true"'),
    BotStep("reuse-publish", "run-sweep.yml", "publish", "Hand the source runs to ingestion (repository_dispatch)",
            lambda: merged(base_world()),
            lambda tmp: {"GITHUB_REPOSITORY": REPO, "RUN_IDS": "101", "PR_NUMBER": "12", "GITHUB_SHA": M1},
            lambda world: len(world.get("dispatches", [])) == 1),
    BotStep("head-status", "signoff-head-status.yml", "head-status", "Set the status on the new head",
            _verified_then_owner_dropped, _withdraw_env, _withdrawn),
    BotStep("signoff-reset", "signoff-verify.yml", "reset", "Decide the head's status again",
            _verified_then_owner_dropped, _reset_env, _withdrawn),
    BotStep("signoff-relay", "signoff-head-status.yml", "review-signoff", "Verify the review sign-off",
            _review_world, _relay_env, lambda world: _last_status(world, SIGNOFF_HEAD) == "success"),
    BotStep("report", "run-sweep.yml", "report", "Upsert the sweep report comment", _report_world, _report_env,
            _report_posted, prepare=_report_files,
            degrades="a failed report job would spoil the sweep run it reports on; the comment "
                     "shows what was not read"),
    BotStep("fork-approve", "fork-sweep.yml", "approve", "Decide the approval and dispatch the sweep",
            _fork_world(), _fork_approve_env, _fork_dispatched),
    BotStep("fork-drop", "fork-sweep-drop.yml", "drop", "Drop the approval of an earlier head",
            _fork_world(C1), _fork_push_env, _fork_dropped),
    BotStep("fork-gate", "run-sweep.yml", "validate", "Check the fork sweep's approval", _fork_world(),
            lambda tmp: {"GITHUB_REPOSITORY": REPO, "PR_NUMBER": "14", "HEAD_SHA": C2},
            printed=f'"head-sha": "{C2}"'),
)

# the reusable sweep (infx-run-sweep.yml, generated from run-sweep.yml: infx.adopt.reusable) has
# the same bot steps with the same permissions: each is in the matrix as itself
STEPS += tuple(dataclasses.replace(s, id=f"{s.id}-reusable", workflow="infx-run-sweep.yml")
               for s in STEPS if s.workflow == "run-sweep.yml")


# --- running one -----------------------------------------------------------------------------


@dataclass
class Ran:
    code: int
    output: str  # stderr, stdout and the step summary
    world: dict


def run_step(step: BotStep, grant: dict[str, str], tmp: Path, monkeypatch, capsys) -> Ran:
    from infx.github.fake import FakeGitHub

    world = step.world() | {"token_permissions": dict(grant)}
    env = step.env(tmp)
    monkeypatch.chdir(tmp)
    if step.prepare is not None:
        step.prepare(tmp)
    summary = tmp / "summary.md"
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with FakeGitHub(world) as fake:
        for name, value in (fake.env() | {"GITHUB_STEP_SUMMARY": str(summary),
                                          "INFX_BOT_LOGIN": step.bot, "INFX_GITHUB_MAX_WAIT": "0",
                                          "GITHUB_REPOSITORY": REPO} | env).items():
            monkeypatch.setenv(name, value)
        argv = command_line(step_of(step.workflow, step.job, step.step)["run"], env)
        code = invoke(argv)
        captured = capsys.readouterr()
        written = summary.read_text(encoding="utf-8") if summary.exists() else ""
        return Ran(code, "\n".join((captured.err, captured.out, written)), copy.deepcopy(fake.world))


def removals(step: BotStep) -> list[tuple[str, str]]:
    grant = token_permissions(step.workflow, step.job, step.step)
    return sorted(grant.items())


def _cases():
    for step in STEPS:
        yield pytest.param(step, None, id=f"{step.id}/full")
        others = held_for_other_steps(step.workflow, step.job, step.step) | step.others
        for name, level in removals(step):
            if name not in others:
                yield pytest.param(step, (name, level), id=f"{step.id}/without-{name}")
            elif level == "write":  # the other step needs only read: the write is this step's
                yield pytest.param(step, (name, level), id=f"{step.id}/{name}-read-only")


def names_permission(output: str, name: str, level: str) -> bool:
    """Whether a message names the permission (`pull-requests: read`, or `: write` when the
    write was removed: a write removed takes its read with it)."""
    levels = ("read", "write")[:("read", "write").index(level) + 1]
    return any(f"{name.replace('_', '-')}: {each}" in output for each in levels)


@pytest.mark.parametrize(("step", "removed"), list(_cases()))
def test_a_bot_step_needs_exactly_its_workflows_permissions(step, removed, tmp_path, monkeypatch, capsys):
    grant = token_permissions(step.workflow, step.job, step.step)
    if removed is not None and removed[0] in held_for_other_steps(step.workflow, step.job, step.step) | step.others:
        grant[removed[0]] = "read"  # what the other step needs stays
    elif removed is not None:
        del grant[removed[0]]
    ran = run_step(step, grant, tmp_path, monkeypatch, capsys)
    if removed is None:
        assert ran.code == 0, ran.output
        assert step.succeeded is None or step.succeeded(ran.world), ran.output
        assert step.printed in ran.output and "not read:" not in ran.output
        return
    if step.degrades:  # shown as not read, or (a write refused) failed
        assert (ran.code, "not read:" in ran.output) in ((0, True), (1, False)), ran.output
    else:
        assert ran.code == 1, f"succeeded without {removed}: {ran.output}"
    assert step.succeeded is None or not step.succeeded(ran.world), ran.output
    assert names_permission(ran.output, *removed), ran.output
    assert "Traceback" not in ran.output


# bot steps the matrix does not run, and why no permission of theirs can end them in `error`
NOT_RUN = {
    ("run-sweep.yml", "plan", "Annotate the rows (agentx-fast, queue priority)"):
        "reads only the triggering actor's collaborator permission (metadata: read, which every "
        "token holds), for the skip_queue label only; unread, the label is not honoured",
    ("run-sweep.yml", "plan", "Fingerprint the rows and reuse earlier green ones"):
        "an optimisation: when earlier runs cannot be read it sweeps every row and its summary "
        "names the failed read (it also needs git history of both refs)",
}


NOT_RUN |= {("infx-run-sweep.yml", job, step): why for (workflow, job, step), why in NOT_RUN.items()
            if workflow == "run-sweep.yml"}


def test_every_bot_step_of_every_workflow_is_in_the_matrix() -> None:
    """A step that calls GitHub with a token and runs infx is a bot step (the guard steps that
    only post an `error` status through `gh` are not infx)."""
    listed = {(s.workflow, s.job, s.step) for s in STEPS} | set(NOT_RUN)
    found = set()
    paths = sorted(WORKFLOWS.glob("*.yml"))
    # a bot's reusable workflow is in the matrix through our workflow that calls it
    called = {called for path in paths for called in local_calls(path).values()}
    for path in paths:
        if path in called:
            continue
        for job_id, job in jobs_as_run(path).items():
            for step in job.get("steps") or []:
                env = step.get("env") or {}
                if (env.get("GITHUB_TOKEN") or env.get("GH_TOKEN")) and "infx" in str(step.get("run")):
                    found.add((path.name, job_id, step.get("name")))
    assert found - listed == set()
    assert listed - found == set()
