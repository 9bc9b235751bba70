"""Adoption by reference: the reusable workflows and their callers, the composite action, the App manifest."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lib import tools

from infx.adopt import app, reusable, starter
from infx.yamlio import load_file, load_text

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
ACTION = REPO / ".github" / "actions" / "install-infx" / "action.yml"
# the steps a reusable job has in place of our trusted install (guard, infx checkout, action)
INSTALL_STEPS = 3


def test_the_generated_files_are_up_to_date():
    stale = [str(path) for path, text in reusable.generated(REPO).items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    assert stale == [], "run: python -m infx.adopt.reusable --write"


CALLED = [b for b in reusable.BOTS if b != reusable.SWEEP]  # the bots whose reusable workflow is the source
SHA = "0123456789abcdef0123456789abcdef01234567"


def _texts(bot: reusable.Bot) -> tuple[str, str]:
    return ((REPO / bot.ours).read_text(encoding="utf-8"), (REPO / bot.reusable).read_text(encoding="utf-8"))


def _triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))


@pytest.mark.parametrize("bot", CALLED, ids=lambda b: b.stem)
def test_our_workflow_calls_its_reusable_workflow_as_the_adopter_does(bot):
    """Ours is one job calling the reusable workflow locally with our default branch; the adopter's,
    as `infx init` writes it, is the same file with the call and the inputs pinned to a commit."""
    ours_text, called_text = _texts(bot)
    assert reusable.caller_problems(bot, ours_text, called_text) == []
    ours = load_file(REPO / bot.ours)
    theirs = load_text(starter.files("acme/infx", SHA, "x")[f".github/workflows/{bot.caller.name}"], bot.caller.name)
    assert set(_triggers(load_file(REPO / bot.reusable))) == {"workflow_call"}
    (job,), (their_job,) = ours["jobs"].values(), theirs["jobs"].values()
    assert job.pop("uses") == f"./{bot.reusable.as_posix()}"
    assert their_job.pop("uses") == f"acme/infx/{bot.reusable.as_posix()}@{SHA}"
    assert job.pop("with") == {"infx-repository": "${{ github.repository }}",
                               "infx-ref": "${{ github.event.repository.default_branch }}"}
    assert their_job.pop("with") == {"infx-repository": "acme/infx", "infx-ref": SHA}
    assert theirs == ours


@pytest.mark.parametrize(("change", "problem"), [
    ("      statuses: write  #", "the called jobs need exactly"),  # one scope fewer than they need
    ("      infx-ref: ${{ github.event.repository.default_branch }}\n", "must pass infx-repository"),
    ("    uses: ./.github/workflows/infx-signoff-verify.yml\n", "does not call"),
])
def test_the_generator_refuses_a_caller_that_is_not_the_plain_call(change, problem):
    bot = next(b for b in CALLED if b.stem == "signoff-verify")
    ours, called = _texts(bot)
    lines = ours.splitlines(keepends=True)
    broken = "".join(line for line in lines if not line.startswith(change))
    assert broken != ours
    assert any(problem in p for p in reusable.caller_problems(bot, broken, called))


def test_a_caller_may_grant_no_more_than_its_called_jobs_need():
    bot = next(b for b in CALLED if b.stem == "reuse-command")
    ours, called = _texts(bot)
    wider = ours.replace("      issues: write  #", "      checks: write  # more than asked\n      issues: write  #")
    assert wider != ours
    assert any("the called jobs need exactly" in p for p in reusable.caller_problems(bot, wider, called))


def _guard(bot: reusable.Bot) -> list[dict]:
    """The first three steps of every reusable job that runs infx (guard, infx checkout, action)."""
    found = []
    for job_id, job in load_file(REPO / bot.reusable)["jobs"].items():
        steps = job.get("steps") or []
        if any("infx " in str(s.get("run", "")) for s in steps):
            found.append((job_id, steps))
    assert found, bot.stem
    return found


@pytest.mark.parametrize("bot", CALLED, ids=lambda b: b.stem)
def test_every_reusable_job_that_runs_infx_installs_it_from_the_named_infx_only(bot):
    for job_id, steps in _guard(bot):
        guard, checkout, action = steps[:INSTALL_STEPS]
        assert guard["name"] == "Refuse an infx version that is not a full commit SHA", job_id
        assert guard["env"] == {"INFX_REPOSITORY": "${{ inputs.infx-repository }}",
                                "INFX_REF": "${{ inputs.infx-ref }}",
                                "DEFAULT_BRANCH": "${{ github.event.repository.default_branch }}"}, job_id
        assert re.fullmatch(r"actions/checkout@[0-9a-f]{40}", checkout["uses"])
        assert checkout["with"] == {"repository": "${{ inputs.infx-repository }}", "ref": "${{ inputs.infx-ref }}",
                                    "path": ".infx", "persist-credentials": False}, job_id
        assert action["uses"] == "./.infx/.github/actions/install-infx", job_id
        # nothing else is checked out: the job reads the PR through the API only
        assert [s for s in steps[INSTALL_STEPS:] if str(s.get("uses", "")).startswith("actions/checkout@")] == []


@pytest.mark.parametrize(("repository", "ref", "allowed"), [
    ("acme/infx", SHA, True),  # an adopter's pin
    ("ours/infx", "main", True),  # this repository calling its own reusable workflow, its default branch
    ("acme/infx", "main", False),  # another repository's branch can move
    ("ours/infx", "feature", False),  # our own repository, but not its default branch
    ("acme/infx", "v1", False),  # a tag can move
    ("acme/infx", SHA[:12], False),  # an abbreviated SHA
    ("acme/infx", f"{SHA}\nmain", False),
])
def test_the_install_guard_takes_a_full_sha_or_only_our_own_default_branch(repository, ref, allowed):
    """The guard's own script, run by bash with the values GitHub gives it (the workflow runs as
    ours/infx, whose default branch is main)."""
    bash = shutil.which("bash")
    assert bash is not None
    for bot in CALLED:
        for job_id, steps in _guard(bot):
            env = {"PATH": "/usr/bin:/bin", "GITHUB_REPOSITORY": "ours/infx", "INFX_REPOSITORY": repository,
                   "INFX_REF": ref, "DEFAULT_BRANCH": "main"}
            done = subprocess.run([bash, "-e", "-c", steps[0]["run"]], env=env, capture_output=True, text=True,
                                  check=False, timeout=30)
            assert (done.returncode == 0) is allowed, (bot.stem, job_id, done.stdout)
            if not allowed:
                assert "::error::infx-ref must be the full commit SHA" in done.stdout


def _pinned_install(steps: list[dict]) -> list[dict]:
    """A job's steps with our trusted install (default branch to `trusted`, setup-python, pip
    install there) replaced by what the reusable jobs do instead."""
    (at,) = [i for i, s in enumerate(steps) if (s.get("with") or {}).get("path") == "trusted"]
    assert steps[at]["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert steps[at + 2]["working-directory"] == "trusted"
    guard = {"name": "Refuse an infx version that is not a full commit SHA",
             "env": {"INFX_REPOSITORY": "${{ inputs.infx-repository }}", "INFX_REF": "${{ inputs.infx-ref }}",
                     "DEFAULT_BRANCH": "${{ github.event.repository.default_branch }}"}}
    checkout = {"name": "Check out infx at the caller's pinned commit", "uses": steps[at]["uses"],
                "with": {"repository": "${{ inputs.infx-repository }}", "ref": "${{ inputs.infx-ref }}",
                         "path": ".infx", "persist-credentials": False}}
    action = {"uses": "./.infx/.github/actions/install-infx",
              "with": {"python-version": steps[at + 1]["with"]["python-version"]}}
    return [*steps[:at], guard, checkout, action, *steps[at + 3:]]


def test_the_reusable_sweep_is_ours_with_the_template_inlined_into_each_shard_job():
    """Every job of run-sweep.yml, the shard and canary jobs carrying the template's job (named
    `<shard caller> / <row>`, as GitHub names the nested call), each install from the pinned infx."""
    ours, theirs = load_file(REPO / reusable.SWEEP.ours), load_file(REPO / reusable.SWEEP.reusable)
    template = load_file(REPO / reusable.TEMPLATE)["jobs"]["benchmark"]
    assert set(_triggers(theirs)) == {"workflow_call"}
    assert set(_triggers(theirs)["workflow_call"]["secrets"]) == set(_triggers(load_file(
        REPO / reusable.TEMPLATE))["workflow_call"]["secrets"]) == {"HF_TOKEN"}
    assert theirs["permissions"] == {} and theirs["env"] == ours["env"] and "concurrency" not in theirs
    assert list(theirs["jobs"]) == list(ours["jobs"])
    inlined = 0
    for job_id, job in ours["jobs"].items():
        mine = dict(theirs["jobs"][job_id])
        expected = dict(job)
        if job.get("uses") == "./.github/workflows/benchmark-tmpl.yml":
            inlined += 1
            assert (expected.pop("with"), expected.pop("secrets")) == (
                {"config": "${{ toJSON(matrix.config) }}"}, {"HF_TOKEN": "${{ secrets.HF_TOKEN }}"})
            del expected["uses"]
            body = json.loads(json.dumps(template).replace("fromJSON(inputs.config)", "matrix.config")
                              .replace("inputs.config", "toJSON(matrix.config)"))
            assert body.pop("permissions") == expected["permissions"]
            body.pop("name")
            expected |= body | {"name": f"{job['name']} / ${{{{ matrix.config.job-name }}}}"}
        assert "uses" not in mine, job_id
        steps, my_steps = expected.pop("steps"), mine.pop("steps")
        assert mine == expected, job_id
        wanted = _pinned_install(steps)
        guard = next(i for i, step in enumerate(wanted) if step.get("name", "").startswith("Refuse an infx"))
        refusal = my_steps[guard].pop("run")
        assert '=~ ^[0-9a-f]{40}$ ]]' in refusal and "exit 1" in refusal, job_id
        assert my_steps == wanted, job_id
    assert inlined == 1 + sum(1 for j in ours["jobs"] if j.startswith("sweep-"))


def test_the_composite_action_installs_infx_from_its_own_repository_hash_locked():
    action = load_file(ACTION)
    assert action["runs"]["using"] == "composite"
    (setup, install) = action["runs"]["steps"]
    assert re.fullmatch(r"actions/setup-python@[0-9a-f]{40}", setup["uses"])
    run = install["run"]
    assert '"$GITHUB_ACTION_PATH/../../.."' in run and "${{" not in run
    assert '--require-hashes -r "$source_dir/.github/requirements-workflows.txt"' in run
    assert '--no-deps --no-build-isolation "$source_dir"' in run
    # three levels up from the action is this repository's root
    root = (ACTION.parent / ".." / ".." / "..").resolve()
    assert root == REPO and (root / ".github/requirements-workflows.txt").is_file()


@pytest.mark.parametrize("persona", ["regular", "auditor"])
def test_zizmor_reports_nothing_on_the_composite_action(persona):
    exe = tools.need(tools.zizmor)
    done = subprocess.run([exe, "--offline", "--color", "never", "--persona", persona, str(ACTION.parent)],
                          cwd=REPO, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


# --- the sign-off App -----------------------------------------------------------------------------

def _token_steps():
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job_id, job in (load_file(path).get("jobs") or {}).items():
            for step in job.get("steps") or []:
                if str(step.get("uses", "")).startswith("actions/create-github-app-token@"):
                    yield path, job_id, job, step


def _asked(step: dict) -> dict[str, str]:
    return {k.removeprefix("permission-"): v for k, v in (step.get("with") or {}).items()
            if k.startswith("permission-")}


def test_the_manifest_asks_for_exactly_what_the_bot_jobs_mint():
    union: dict[str, str] = {}
    steps = list(_token_steps())
    assert {p.name for p, *_ in steps} >= {"infx-signoff-verify.yml", "infx-signoff-head-status.yml"}
    for _path, _job_id, _job, step in steps:
        for scope, level in _asked(step).items():
            if union.get(scope) != "write":
                union[scope] = level
    wanted = {app.token_input(k).removeprefix("permission-"): v for k, v in app.PERMISSIONS.items()
              if k != "metadata"}  # metadata: every App has it; a token cannot ask for it
    assert union == wanted
    manifest = app.manifest("x", "https://github.com/o/r")
    assert manifest["default_permissions"] == app.PERMISSIONS
    assert manifest["default_events"] == [] and manifest["hook_attributes"]["active"] is False


def test_each_app_token_is_no_wider_than_its_job_token():
    # the App token stands in for the job's GITHUB_TOKEN: same scopes, plus the organization
    # read the workflow token cannot have (members)
    for path, job_id, job, step in _token_steps():
        asked = _asked(step)
        assert asked.pop("members") == "read", f"{path.name}:{job_id}"
        assert asked == job["permissions"], f"{path.name}:{job_id}"


def test_the_readme_table_is_the_manifest():
    section = (REPO / "README.md").read_text(encoding="utf-8").split("## Sign-off GitHub App", 1)[1]
    rows = re.findall(r"^\| (Repository|Organization) › ([\w ]+?) \| (read|write) \|", section, re.MULTILINE)
    names = {"Actions": "actions", "Checks": "checks", "Contents": "contents", "Issues": "issues",
             "Pull requests": "pull_requests", "Commit statuses": "statuses", "Metadata": "metadata",
             "Members": "members"}
    assert {names[name]: level for _, name, level in rows} == app.PERMISSIONS
