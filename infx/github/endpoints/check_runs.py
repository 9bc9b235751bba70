"""Endpoints of the Checks API: a commit's and a suite's check runs, their annotations, writing runs."""

from __future__ import annotations

from typing import Any

from infx.github.checks import (
    CHECK_CONCLUSIONS,
    MAX_ANNOTATIONS_PER_REQUEST,
    Annotation,
    CheckOutput,
    fit,
)
from infx.github.models import CheckRun
from infx.github.transport import Transport, full_name, parsed


class CheckRunEndpoints(Transport):
    """Check runs: listed as GitHub's JSON or as models, created and updated by this token's app."""

    def check_runs(self, repo: Any, sha: str, *, latest: bool = True, action: str | None = None,
                   permission: str | None = None) -> list[dict]:
        """Check runs on a commit (`latest`: the newest run per name, GitHub's default)."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/commits/{sha}/check-runs", list_key="check_runs",
                             params={"filter": "latest" if latest else "all"},
                             action=action or f"listing check runs of {sha[:12]}",
                             permission=permission or "checks: read")

    def suite_check_runs(self, repo: Any, suite_id: int, *, latest: bool = True,
                         action: str | None = None, permission: str | None = None) -> list[dict]:
        """Check runs of one check suite (a workflow run's): narrower than a commit's listing."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/check-suites/{suite_id}/check-runs",
                             list_key="check_runs",
                             params={"filter": "latest" if latest else "all"},
                             action=action or f"listing check runs of check suite {suite_id}",
                             permission=permission or "checks: read")

    def named_check_runs(self, repo: Any, sha: str, name: str) -> list[CheckRun]:
        """The check runs of one name on a commit, every app's (GitHub's `check_name` filter)."""
        repo_name = full_name(repo)
        what = f"listing the {name} check runs of {sha[:12]}"
        items = self.paginate(f"/repos/{repo_name}/commits/{sha}/check-runs", list_key="check_runs",
                              params={"check_name": name, "filter": "all"}, action=what,
                              permission="checks: read")
        return [parsed(CheckRun.from_json, item, what) for item in items]

    def check_run_annotations(self, repo: Any, check_run_id: int) -> list[Annotation]:
        """The annotations a check run holds, in the order they were added."""
        repo_name = full_name(repo)
        what = f"listing the annotations of check run {check_run_id}"
        items = self.paginate(f"/repos/{repo_name}/check-runs/{check_run_id}/annotations",
                              action=what, permission="checks: read")
        return [parsed(_annotation, item, what) for item in items]

    def create_check_run(self, repo: Any, sha: str, name: str, output: CheckOutput, *,
                         conclusion: str, details_url: str | None = None,
                         external_id: str = "") -> CheckRun:
        """Create a completed check run of this token's app with `output`'s first 50
        annotations (the rest are appended by `update_check_run`). A retried POST never makes
        a second one: a check run of this name and `external_id` already there is it."""
        repo_name = full_name(repo)
        body = {"name": name, "head_sha": sha, "status": "completed",
                "conclusion": _conclusion(conclusion),
                "output": _output_json(output, output.annotations[:MAX_ANNOTATIONS_PER_REQUEST])}
        if details_url:
            body["details_url"] = details_url
        if external_id:
            body["external_id"] = external_id
        what = f"creating the {name} check run on {sha[:12]}"

        def already_done() -> CheckRun | None:
            if not external_id:
                return None
            return next((run for run in self.named_check_runs(repo, sha, name)
                         if run.external_id == external_id), None)

        data = self.call(lambda: self._json("POST", f"/repos/{repo_name}/check-runs", body=body)[1],
                         action=what, permission="checks: write", post=True,
                         already_done=already_done)
        return data if isinstance(data, CheckRun) else parsed(CheckRun.from_json, data, what)

    def update_check_run(self, repo: Any, check_run_id: int, output: CheckOutput,
                         annotations: tuple[Annotation, ...] | None = None, *,
                         conclusion: str | None = None, details_url: str | None = None,
                         external_id: str | None = None) -> CheckRun:
        """Update a check run in place (only its own app may): the output's title, summary and
        text, and `annotations` (at most 50; GitHub appends them to the run's earlier ones;
        None: the output's first 50)."""
        repo_name = full_name(repo)
        batch = output.annotations[:MAX_ANNOTATIONS_PER_REQUEST] if annotations is None else annotations
        if len(batch) > MAX_ANNOTATIONS_PER_REQUEST:
            raise ValueError(f"at most {MAX_ANNOTATIONS_PER_REQUEST} annotations per request")
        body: dict[str, Any] = {"output": _output_json(output, batch)}
        if conclusion is not None:
            body |= {"status": "completed", "conclusion": _conclusion(conclusion)}
        if details_url:
            body["details_url"] = details_url
        if external_id is not None:
            body["external_id"] = external_id
        what = f"updating check run {check_run_id}"
        data = self.call(lambda: self._json("PATCH", f"/repos/{repo_name}/check-runs/{check_run_id}",
                                            body=body)[1],
                         action=what, permission="checks: write", post=True)
        return parsed(CheckRun.from_json, data, what)


def _annotation(data: dict) -> Annotation:
    return Annotation(path=data["path"], start_line=int(data["start_line"]),
                      end_line=int(data["end_line"]), level=data["annotation_level"],
                      message=data.get("message") or "", title=data.get("title") or "")


def _conclusion(value: str) -> str:
    if value not in CHECK_CONCLUSIONS:
        raise ValueError(f"check run conclusion must be one of {CHECK_CONCLUSIONS}, not {value!r}")
    return value


def _output_json(output: CheckOutput, annotations: tuple[Annotation, ...]) -> dict:
    # the text is always sent: an update without one would leave the previous verdict's
    out: dict[str, Any] = {"title": output.title, "summary": fit(output.summary),
                           "text": fit(output.text)}
    if annotations:
        out["annotations"] = [a.to_json() for a in annotations]
    return out
