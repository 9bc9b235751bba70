#!/usr/bin/env python3
"""Runner-side job-started hook: refuse jobs from forks and from workflows not on the allow-list.

Accepted: pull_request jobs of this repository's own branches, and push and workflow_dispatch (a
trusted fork sweep) jobs of the allow-listed workflows as the default branch has them.

Install it OUTSIDE any job workspace, owned by root and read-only for the runner user (e.g.
/opt/infx-runner/job_started.py), and point the runner at it in the runner's `.env` file:

    ACTIONS_RUNNER_HOOK_JOB_STARTED=/opt/infx-runner/job_started.sh   (a two-line wrapper that
                                                                       runs this file with python3)
    INFX_RUNNER_REPOSITORY=<owner>/<repo>
    INFX_RUNNER_WORKFLOWS=.github/workflows/run-sweep.yml
    INFX_RUNNER_DEFAULT_BRANCH=main

A pull request can change the workflow files it runs, but not this file or those variables.
The runner runs the hook before the job's first step; a non-zero exit fails the job before
any of its code runs. Standard library only: the runner host needs nothing but Python 3.
Everything is decided from the runner's own variables and the event file GitHub wrote; any
missing or unreadable fact refuses the job (fail closed).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

# the events whose jobs may run here (anything else is refused)
PULL_REQUEST_EVENTS = ("pull_request",)
PUSH_EVENTS = ("push",)
# a trusted fork sweep: run-sweep.yml dispatched on the default branch, whose first job decides
# again that a maintainer approved the pinned head (infx/workflow/fork_sweep.py); from any other
# ref the workflow file, and so that gate, would be someone's branch
DISPATCH_EVENTS = ("workflow_dispatch",)


class Refused(Exception):
    """The job must not run on this runner."""


def _require(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise Refused(f"{name} is not set in the runner's environment; configure it in the "
                      "runner's .env file")
    return value


def _read_event(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            event = json.load(handle)
    except (OSError, ValueError) as exc:
        raise Refused(f"cannot read the event file {path!r}: {exc}") from None
    if not isinstance(event, dict):
        raise Refused(f"the event file {path!r} does not hold a JSON object")
    return event


def _workflow_path(workflow_ref: str, repository: str) -> tuple[str, str]:
    """`owner/repo/.github/workflows/x.yml@refs/...` -> (path, ref), for this repository only."""
    prefix = repository.lower() + "/"
    if not workflow_ref.lower().startswith(prefix) or "@" not in workflow_ref:
        raise Refused(f"the workflow {workflow_ref!r} is not a workflow of {repository}")
    path, _, ref = workflow_ref[len(prefix):].partition("@")
    return path, ref


def _same_repo_pull_request(event: dict, repository: str) -> None:
    pull = event.get("pull_request")
    if not isinstance(pull, dict):
        raise Refused("the pull_request event carries no pull request")
    head = (pull.get("head") or {}).get("repo")
    if not isinstance(head, dict) or not isinstance(head.get("full_name"), str):
        raise Refused("the pull request's head repository is unknown (deleted fork?)")
    if head.get("fork") is True or head["full_name"].lower() != repository.lower():
        raise Refused(f"the pull request comes from the fork {head['full_name']}; "
                      "jobs from forks never run on these runners")


def check(env: Mapping[str, str]) -> str:
    """Return a one-line acceptance note, or raise Refused naming the reason."""
    repository = _require(env, "INFX_RUNNER_REPOSITORY")
    allowed = {p.strip() for p in _require(env, "INFX_RUNNER_WORKFLOWS").split(",") if p.strip()}
    default_branch = _require(env, "INFX_RUNNER_DEFAULT_BRANCH")
    job_repository = _require(env, "GITHUB_REPOSITORY")
    if job_repository.lower() != repository.lower():
        raise Refused(f"the job belongs to {job_repository}, not {repository}")
    path, ref = _workflow_path(_require(env, "GITHUB_WORKFLOW_REF"), repository)
    if path not in allowed:
        raise Refused(f"the workflow {path} is not on this runner's allow-list "
                      f"({', '.join(sorted(allowed))})")
    event_name = _require(env, "GITHUB_EVENT_NAME")
    event = _read_event(_require(env, "GITHUB_EVENT_PATH"))
    event_repo = (event.get("repository") or {}).get("full_name")
    if not isinstance(event_repo, str) or event_repo.lower() != repository.lower():
        raise Refused(f"the event names the repository {event_repo!r}, not {repository}")
    if event_name in PULL_REQUEST_EVENTS:
        _same_repo_pull_request(event, repository)
    elif event_name in PUSH_EVENTS:
        if ref != f"refs/heads/{default_branch}":
            raise Refused(f"push jobs run only from {default_branch}, not {ref}")
    elif event_name in DISPATCH_EVENTS:
        if ref != f"refs/heads/{default_branch}":
            raise Refused(f"dispatched jobs (fork sweeps) run only from {default_branch}, not {ref}")
    else:
        raise Refused(f"the event {event_name!r} never runs on these runners (only pull_request "
                      "from this repository, push to and dispatches on the default branch)")
    return f"job-started hook: accepted {path} for {event_name} in {repository}"


def main(env: Mapping[str, str] | None = None) -> int:
    try:
        note = check(os.environ if env is None else env)
    except Refused as exc:
        print(f"::error::job refused by the runner's job-started hook: {exc}", file=sys.stderr)
        return 1
    print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
