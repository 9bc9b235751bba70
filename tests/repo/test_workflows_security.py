"""Security bars for every workflow in .github/workflows (PRODUCT §5): pins, permissions, injection."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lib.workflow_jobs import jobs_as_run, local_calls

from infx.yamlio import load_file

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml")) + sorted(WORKFLOWS.glob("*.yaml"))
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
USES_LINE = re.compile(r"^\s*(?:-\s*)?uses:\s*(\S+)\s*(#.*)?$")
READ_ONLY = {"read", "none"}


def _ids(paths):
    return [p.name for p in paths]


def _jobs(path: Path) -> dict:
    """The jobs as they run: a bot's call of its reusable workflow stands for the called jobs
    (the caller's own grant is the union of theirs: tests/repo/test_adopt_workflows.py)."""
    return jobs_as_run(path)


def _steps(path: Path):
    for job_id, job in _jobs(path).items():
        for step in job.get("steps", []) or []:
            yield job_id, step


def test_the_folder_has_our_workflows():
    names = {p.name for p in FILES}
    assert {"run-sweep.yml", "benchmark-tmpl.yml", "pr-welcome.yml", "pr-welcome-fork.yml",
            "reuse-command.yml", "ci.yml"} <= names


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_every_uses_is_pinned_to_a_commit_with_a_version_comment(path):
    for line in path.read_text(encoding="utf-8").splitlines():
        match = USES_LINE.match(line)
        if not match:
            continue
        target, comment = match.group(1), match.group(2) or ""
        if target.startswith("./.github/workflows/"):
            continue  # this repository's own reusable workflow, at the caller's commit
        if target.startswith("./.infx/.github/actions/"):
            assert path.name.startswith("infx-"), f"{path.name}: {line}"
            continue  # a reusable workflow's checkout of infx at the pinned SHA (audited below)
        assert PINNED.match(target), f"{path.name}: not pinned to a full SHA: {line}"
        assert re.search(r"#\s*v\d+(\.\d+){0,2}\b", comment), f"{path.name}: no version comment: {line}"


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_top_level_permissions_are_empty_or_read_only(path):
    workflow = load_file(path)
    assert "permissions" in workflow, f"{path.name} has no top-level permissions"
    perms = workflow["permissions"]
    if isinstance(perms, str):
        assert perms == "read-all"
    else:
        assert all(value in READ_ONLY for value in perms.values()), perms


# workflow_run follow-ups that write for a finished pull_request run: name -> the workflow they follow
PRIVILEGED_FOLLOW_UPS = {"pr-welcome-fork.yml": "pr-welcome.yml",
                         "signoff-head-status.yml": "signoff-verify.yml",
                         "fork-sweep-drop.yml": "fork-push.yml"}


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_no_pull_request_target_and_no_template_in_run(path):
    text = path.read_text(encoding="utf-8")
    workflow = load_file(path)
    triggers = workflow.get("on", workflow.get(True)) or {}
    assert "pull_request_target" not in triggers
    if path.name not in PRIVILEGED_FOLLOW_UPS:  # audited below
        assert "workflow_run" not in triggers
    for job_id, step in _steps(path):
        assert "${{" not in str(step.get("run", "")), f"{path.name}:{job_id}: expression inside run:"
    assert "secrets: inherit" not in text


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_every_checkout_drops_credentials(path):
    for job_id, step in _steps(path):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert (step.get("with") or {}).get("persist-credentials") is False, f"{path.name}:{job_id}"


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_jobs_declare_minimal_permissions(path):
    for job_id, job in _jobs(path).items():
        if "uses" in job and "steps" not in job:
            perms = job.get("permissions", {})
        else:
            assert "permissions" in job, f"{path.name}:{job_id} inherits the default token scope"
            perms = job["permissions"]
        writes = {k for k, v in perms.items() if v == "write"}
        allowed = {"pull-requests", "issues", "statuses"} | EXTRA_WRITES.get((path.name, job_id), set())
        assert writes <= allowed, f"{path.name}:{job_id}: {writes}"


# repository_dispatch needs `contents: write`: only the publish job of a push to main sends one;
# /retest-failed re-runs a sweep's failed jobs: that one job may write actions; the jobs that
# publish a verdict write its check run beside the status, and the jobs that decide a head's
# status again withdraw that check run when the status no longer says success (`checks: write`,
# nothing else)
EXTRA_WRITES = {("run-sweep.yml", "publish"): {"contents"}, ("infx-run-sweep.yml", "publish"): {"contents"},
                ("retest-command.yml", "retest"): {"actions"},
                # /approve-sweep dispatches the default branch's run-sweep.yml (workflow_dispatch)
                ("fork-sweep.yml", "approve"): {"actions"},
                **{(name, job): {"checks"} for prefix in ("", "infx-") for name, job in (
                    (f"{prefix}signoff-verify.yml", "verify"), (f"{prefix}signoff-verify.yml", "reset"),
                    (f"{prefix}signoff-head-status.yml", "review-signoff"),
                    (f"{prefix}signoff-head-status.yml", "head-status"))}}


def test_the_dispatching_job_runs_only_on_pushes_to_the_default_branch():
    job = _jobs(WORKFLOWS / "run-sweep.yml")["publish"]
    assert "github.event_name == 'push'" in job["if"]
    triggers = load_file(WORKFLOWS / "run-sweep.yml")
    triggers = triggers.get("on", triggers.get(True))
    assert triggers["push"]["branches"] == ["main"]


def test_only_comment_jobs_write_and_they_run_trusted_code():
    for path in FILES:
        for job_id, job in _jobs(path).items():
            writes = {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
            if not writes:
                continue
            steps = job.get("steps", [])
            checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@")]
            for step in checkouts:
                ref = (step.get("with") or {}).get("ref", "")
                if ref == INFX_REF:
                    _assert_infx_checkout(path, job_id, steps, steps.index(step))
                    continue
                assert ref in ("${{ github.event.repository.default_branch }}",
                               "${{ github.event.pull_request.base.sha }}"), f"{path.name}:{job_id} ref={ref!r}"


INFX_REF = "${{ inputs.infx-ref }}"


OWN_INFX = {"infx-repository": "${{ github.repository }}", "infx-ref": "${{ github.event.repository.default_branch }}"}


def _assert_infx_checkout(path: Path, job_id: str, steps: list[dict], index: int) -> None:
    """A reusable workflow (infx-*.yml) runs infx at the commit its caller pins: the step before
    refuses anything but a full SHA or, from this repository's own caller, its default branch;
    the checkout goes to .infx without credentials, and the next step installs infx from there.
    Our own callers of it (e.g. signoff-verify.yml) name our repository and default branch only."""
    where = f"{path.name}:{job_id}"
    if not path.name.startswith("infx-"):
        calls = {caller: called
                 for caller, called in local_calls(path).items() if called.name.startswith("infx-")}
        assert calls, where
        for caller in calls:
            assert load_file(path)["jobs"][caller]["with"] == OWN_INFX, f"{path.name}:{caller}"
    guard, checkout, install = steps[index - 1], steps[index], steps[index + 1]
    assert guard["env"] == {"INFX_REPOSITORY": "${{ inputs.infx-repository }}", "INFX_REF": INFX_REF,
                            "DEFAULT_BRANCH": "${{ github.event.repository.default_branch }}"}, where
    assert '=~ ^[0-9a-f]{40}$ ]]' in guard["run"] and "exit 1" in guard["run"], where
    assert checkout["with"] == {"repository": "${{ inputs.infx-repository }}", "ref": INFX_REF,
                                "path": ".infx", "persist-credentials": False}, where
    assert install["uses"] == "./.infx/.github/actions/install-infx", where


def test_comment_workflow_checks_out_the_default_branch_only():
    path = WORKFLOWS / "reuse-command.yml"
    steps = _jobs(path)["acknowledge"]["steps"]
    (at,) = [i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("actions/checkout@")]
    _assert_infx_checkout(path, "acknowledge", steps, at)


def test_welcome_workflow_shape():
    workflow = load_file(WORKFLOWS / "pr-welcome.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert set(triggers) == {"pull_request"}
    job = workflow["jobs"]["welcome"]
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    handoff = workflow["jobs"]["fork-handoff"]
    assert handoff["permissions"] == {}
    assert all("uses" not in step for step in handoff["steps"])  # checks out and runs nothing


def test_fork_welcome_poster_trusts_nothing_from_the_fork():
    workflow = load_file(WORKFLOWS / "pr-welcome-fork.yml")
    triggers = workflow.get("on", workflow.get(True))
    # only the completion of our own welcome workflow (matched by its name) starts it
    assert triggers == {"workflow_run": {"workflows": [load_file(WORKFLOWS / "pr-welcome.yml")["name"]],
                                         "types": ["completed"]}}
    assert workflow["permissions"] == {}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    uses = [str(step.get("uses", "")) for step in job["steps"]]
    assert not any(u.startswith(("actions/download-artifact@", "actions/cache@")) for u in uses)
    checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"] == {"ref": "${{ github.event.repository.default_branch }}",
                                "persist-credentials": False}
    text = (WORKFLOWS / "pr-welcome-fork.yml").read_text(encoding="utf-8")
    # the run's data reaches Python only through the event file, never through expressions
    steps_text = str(job["steps"])
    assert "workflow_run" not in steps_text
    assert "head_repository" in job["if"] and "zizmor: ignore[dangerous-triggers]" in text


def test_head_status_follow_up_trusts_nothing_from_the_pr():
    workflow = load_file(WORKFLOWS / "signoff-head-status.yml")
    triggers = workflow.get("on", workflow.get(True))
    assert triggers == {"workflow_run": {"workflows": [load_file(WORKFLOWS / "signoff-verify.yml")["name"]],
                                         "types": ["completed"]}}
    assert workflow["permissions"] == {}
    path = WORKFLOWS / "signoff-head-status.yml"
    jobs = _jobs(path)
    assert set(jobs) == {"head-status", "review-signoff"}
    assert jobs["head-status"]["if"] == "github.event.workflow_run.event == 'pull_request'"
    assert jobs["head-status"]["permissions"] == {"checks": "write", "contents": "read",
                                                  "pull-requests": "read", "statuses": "write"}
    assert "'pull_request_review'" in jobs["review-signoff"]["if"]
    assert "conclusion == 'success'" in jobs["review-signoff"]["if"]
    assert jobs["review-signoff"]["permissions"] == \
        _jobs(WORKFLOWS / "signoff-verify.yml")["verify"]["permissions"]
    for job_id, job in jobs.items():
        uses = [str(step.get("uses", "")) for step in job["steps"]]
        assert not any(u.startswith(("actions/download-artifact@", "actions/cache@")) for u in uses)
        (at,) = [i for i, s in enumerate(job["steps"]) if str(s.get("uses", "")).startswith("actions/checkout@")]
        _assert_infx_checkout(path, job_id, job["steps"], at)
        # the run's data reaches Python only through the event file, never through expressions
        assert "workflow_run" not in str(job["steps"])
