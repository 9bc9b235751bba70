"""runners/hooks/job_started.sh: the runner-side gate refuses fork jobs and unlisted workflows.

The hook runs as the runner runs it (the shell wrapper, a clean environment, the event file
GitHub writes), on real webhook payloads (octokit/webhooks examples) made into the cases.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "runners" / "hooks" / "job_started.sh"
WEBHOOKS = REPO / "tests" / "data" / "github" / "webhooks"
REPOSITORY = "Codertocat/Hello-World"  # the repository of the recorded payloads
SWEEP = ".github/workflows/run-sweep.yml"


def _payload(event: str, name: str) -> dict:
    return json.loads((WEBHOOKS / event / name).read_text(encoding="utf-8"))


def run_hook(tmp_path: Path, event_name: str, event: dict | None, *, workflow: str = SWEEP,
             ref: str = "refs/pull/2/merge", repository: str = REPOSITORY,
             runner: dict | None = None) -> subprocess.CompletedProcess:
    path = tmp_path / "event.json"
    if event is not None:
        path.write_text(json.dumps(event), encoding="utf-8")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "GITHUB_REPOSITORY": repository,
           "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(path),
           "GITHUB_WORKFLOW_REF": f"{repository}/{workflow}@{ref}",
           "INFX_RUNNER_REPOSITORY": REPOSITORY, "INFX_RUNNER_WORKFLOWS": SWEEP,
           "INFX_RUNNER_DEFAULT_BRANCH": "main"}
    env.update(runner or {})
    env = {k: v for k, v in env.items() if v is not None}
    return subprocess.run(["bash", str(HOOK)], env=env, capture_output=True, text=True,
                          check=False, timeout=60)


def _fork(event: dict, owner: str = "forker") -> dict:
    event = copy.deepcopy(event)
    head = event["pull_request"]["head"]
    head["repo"] = dict(head["repo"], full_name=f"{owner}/Hello-World", fork=True)
    return event


PR_PAYLOADS = ["synchronize.payload.json", "labeled.payload.json", "unlabeled.payload.json",
               "opened.payload.json", "ready_for_review.payload.json"]


@pytest.mark.parametrize("name", PR_PAYLOADS)
def test_same_repository_pull_request_jobs_run(tmp_path, name):
    done = run_hook(tmp_path, "pull_request", _payload("pull_request", name))
    assert done.returncode == 0, done.stderr
    assert "accepted .github/workflows/run-sweep.yml" in done.stdout


@pytest.mark.parametrize("name", PR_PAYLOADS)
def test_fork_pull_request_jobs_are_refused(tmp_path, name):
    done = run_hook(tmp_path, "pull_request", _fork(_payload("pull_request", name)))
    assert done.returncode == 1
    assert "fork forker/Hello-World" in done.stderr and "::error::" in done.stderr


def test_a_fork_that_only_claims_fork_false_is_still_refused_by_name(tmp_path):
    event = _fork(_payload("pull_request", "synchronize.payload.json"))
    event["pull_request"]["head"]["repo"]["fork"] = False
    assert run_hook(tmp_path, "pull_request", event).returncode == 1


def test_a_same_named_fork_flag_is_refused(tmp_path):
    # a head repository of the same name but flagged as a fork is not this repository
    event = _payload("pull_request", "synchronize.payload.json")
    event["pull_request"]["head"]["repo"]["fork"] = True
    assert run_hook(tmp_path, "pull_request", event).returncode == 1


def test_a_deleted_fork_is_refused(tmp_path):
    event = _payload("pull_request", "synchronize.payload.json")
    event["pull_request"]["head"]["repo"] = None
    done = run_hook(tmp_path, "pull_request", event)
    assert done.returncode == 1 and "head repository is unknown" in done.stderr


@pytest.mark.parametrize("workflow", [".github/workflows/ci.yml", ".github/workflows/evil.yml",
                                      ".github/workflows/run-sweep.yml.bak",
                                      ".github/workflows/benchmark-tmpl.yml"])
def test_workflows_off_the_allow_list_are_refused(tmp_path, workflow):
    done = run_hook(tmp_path, "pull_request", _payload("pull_request", "synchronize.payload.json"),
                    workflow=workflow)
    assert done.returncode == 1 and "not on this runner's allow-list" in done.stderr


def test_a_workflow_of_another_repository_is_refused(tmp_path):
    event = _payload("pull_request", "synchronize.payload.json")
    done = run_hook(tmp_path, "pull_request", event, repository="forker/Hello-World")
    assert done.returncode == 1 and "not Codertocat/Hello-World" in done.stderr


def test_push_runs_only_from_the_default_branch(tmp_path):
    event = _payload("push", "payload.json")
    assert run_hook(tmp_path, "push", event, ref="refs/heads/main").returncode == 0
    for ref in ("refs/tags/simple-tag", "refs/heads/feature", "refs/heads/main-x"):
        done = run_hook(tmp_path, "push", event, ref=ref)
        assert done.returncode == 1 and "only from main" in done.stderr


def test_dispatches_run_only_from_the_default_branch(tmp_path):
    """A fork sweep is run-sweep.yml dispatched on the default branch (its first job decides the
    approval again); dispatched from any other ref the workflow file is someone's branch."""
    event = _payload("workflow_dispatch", "payload.json")
    event.setdefault("repository", {})["full_name"] = REPOSITORY
    done = run_hook(tmp_path, "workflow_dispatch", event, ref="refs/heads/main")
    assert done.returncode == 0, done.stderr
    for ref in ("refs/heads/feature", "refs/tags/v1", "refs/pull/2/merge"):
        done = run_hook(tmp_path, "workflow_dispatch", event, ref=ref)
        assert done.returncode == 1 and "run only from main" in done.stderr
    done = run_hook(tmp_path, "workflow_dispatch", event, ref="refs/heads/main",
                    workflow=".github/workflows/pwn.yml")
    assert done.returncode == 1 and "not on this runner's allow-list" in done.stderr


@pytest.mark.parametrize(("event_name", "event", "name"), [
    ("issue_comment", "issue_comment", "created.payload.json"),
    ("workflow_run", "workflow_run", "completed.with-pull-requests.payload.json"),
    ("pull_request_target", "pull_request", "synchronize.payload.json"),
    ("pull_request_review", "pull_request_review", "submitted.payload.json"),
])
def test_other_events_are_refused(tmp_path, event_name, event, name):
    payload = _payload(event, name)
    payload.setdefault("repository", {})["full_name"] = REPOSITORY  # only the event differs
    done = run_hook(tmp_path, event_name, payload)
    assert done.returncode == 1 and "never runs on these runners" in done.stderr


@pytest.mark.parametrize("missing", ["INFX_RUNNER_REPOSITORY", "INFX_RUNNER_WORKFLOWS",
                                     "INFX_RUNNER_DEFAULT_BRANCH", "GITHUB_WORKFLOW_REF",
                                     "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"])
def test_missing_configuration_refuses(tmp_path, missing):
    done = run_hook(tmp_path, "pull_request", _payload("pull_request", "synchronize.payload.json"),
                    runner={missing: None})
    assert done.returncode == 1 and missing in done.stderr


def test_unreadable_or_mismatched_event_files_refuse(tmp_path):
    assert run_hook(tmp_path, "pull_request", None).returncode == 1  # no event file
    (tmp_path / "event.json").write_text("[]", encoding="utf-8")
    event = _payload("pull_request", "synchronize.payload.json")
    event["repository"]["full_name"] = "someone/else"
    done = run_hook(tmp_path, "pull_request", event)
    assert done.returncode == 1 and "someone/else" in done.stderr


def test_the_sweep_workflow_is_the_one_the_readme_allow_lists():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "INFX_RUNNER_WORKFLOWS=.github/workflows/run-sweep.yml" in readme
    assert "ACTIONS_RUNNER_HOOK_JOB_STARTED" in readme
