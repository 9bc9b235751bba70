"""Endpoints of GitHub Actions: dispatches, workflow runs, their jobs and re-runs, artifacts."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from infx.github.archives import Wanted, read_zip
from infx.github.models import Artifact, Job
from infx.github.transport import Transport, full_name, parsed


class RunEndpoints(Transport):
    """Workflow runs, their jobs and artifacts, and the events that start runs."""

    def repository_dispatch(self, repo: Any, event_type: str, payload: dict) -> None:
        """Send a `repository_dispatch` event (workflows and apps subscribed to it receive it)."""
        name = full_name(repo)
        self.call(lambda: self._json("POST", f"/repos/{name}/dispatches",
                                     body={"event_type": event_type, "client_payload": payload}),
                  action=f"sending the {event_type} repository_dispatch to {name}",
                  permission="contents: write", post=True)

    def workflow_dispatch(self, repo: Any, workflow: str, ref: str, inputs: dict[str, str]) -> None:
        """Start a run of `workflow` (its file name) on the branch `ref` with `inputs`
        (`workflow_dispatch`; GitHub answers 204 and names no run)."""
        name = full_name(repo)
        self.call(lambda: self._json("POST", f"/repos/{name}/actions/workflows/{quote(workflow)}/dispatches",
                                     body={"ref": ref, "inputs": dict(inputs)}),
                  action=f"dispatching {workflow} on {ref}", permission="actions: write", post=True)

    def workflow_runs(self, repo: Any, *, action: str | None = None, permission: str | None = None,
                      **filters: str) -> list[dict]:
        """Workflow runs, newest first; filters as GitHub's (head_sha, event, status, branch)."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/actions/runs", list_key="workflow_runs",
                             params=filters, action=action or f"listing workflow runs of {name}",
                             permission=permission or "actions: read")

    def get_run(self, repo: Any, run_id: int, *, action: str | None = None,
                permission: str | None = None) -> dict:
        name = full_name(repo)
        return self.get(f"/repos/{name}/actions/runs/{run_id}",
                        action=action or f"reading workflow run {run_id}",
                        permission=permission or "actions: read")

    def run_jobs(self, repo: Any, run_id: int, *, attempt: int | None = None,
                 latest: bool = True) -> list[Job]:
        """The jobs of a workflow run. Default: each job's result in the run's latest attempt
        (`filter=latest`; jobs not re-run keep their earlier result); `latest=False`: every
        attempt's jobs; `attempt=n`: the jobs recorded for attempt n only."""
        name = full_name(repo)
        if attempt is not None:
            path = f"/repos/{name}/actions/runs/{run_id}/attempts/{int(attempt)}/jobs"
            params: dict = {}
            what = f"listing jobs of run {run_id} attempt {attempt}"
        else:
            path = f"/repos/{name}/actions/runs/{run_id}/jobs"
            params = {"filter": "latest" if latest else "all"}
            what = f"listing jobs of run {run_id}"
        items = self.paginate(path, list_key="jobs", params=params, action=what,
                              permission="actions: read")
        return [parsed(Job.from_json, item, what) for item in items]

    def rerun_failed_jobs(self, repo: Any, run_id: int) -> None:
        """Ask GitHub to re-run a finished run's failed (and cancelled) jobs and the jobs that
        depend on them, as a new attempt of the same run."""
        name = full_name(repo)
        self.call(lambda: self._json("POST", f"/repos/{name}/actions/runs/{int(run_id)}/rerun-failed-jobs",
                                     body={})[1],
                  action=f"re-running the failed jobs of run {run_id}", permission="actions: write",
                  post=True)

    def run_artifacts(self, repo: Any, run_id: int) -> list[Artifact]:
        name = full_name(repo)
        items = self.paginate(f"/repos/{name}/actions/runs/{run_id}/artifacts",
                              action=f"listing artifacts of run {run_id}",
                              permission="actions: read", list_key="artifacts")
        return [parsed(Artifact.from_json, a, f"listing artifacts of run {run_id}") for a in items]

    def download_artifact(self, repo: Any, artifact_id: int, *, name: str | None = None,
                          size_in_bytes: int | None = None,
                          wanted: Wanted | None = None) -> dict[str, bytes]:
        """An artifact's members (name -> bytes), read under the archive caps; a listed
        `size_in_bytes` over the download cap fails before downloading. Expired artifacts
        raise a 410 GitHubError; an archive over a cap raises ArchiveLimitError."""
        repo_name = full_name(repo)
        label = f"artifact {name} ({artifact_id})" if name else f"artifact {artifact_id}"
        with self.download(f"/repos/{repo_name}/actions/artifacts/{artifact_id}/zip",
                           action=f"downloading {label}", permission="actions: read",
                           declared=size_in_bytes) as blob:
            return read_zip(blob, label, self.limits, wanted)
