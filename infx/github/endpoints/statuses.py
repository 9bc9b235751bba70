"""Endpoints of commit statuses: a commit's list, and setting one."""

from __future__ import annotations

from typing import Any

from infx.github.transport import Transport, full_name
from infx.inert import clip

MAX_STATUS_DESCRIPTION = 140
STATUS_STATES = ("error", "failure", "pending", "success")


class StatusEndpoints(Transport):
    """Commit statuses, read and written."""

    def statuses(self, repo: Any, sha: str, *, action: str | None = None,
                 permission: str | None = None) -> list[dict]:
        """Commit statuses, newest first."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/commits/{sha}/statuses",
                             action=action or f"listing statuses of {sha[:12]}",
                             permission=permission or "statuses: read")

    def create_status(self, repo: Any, sha: str, state: str, context: str,
                      description: str = "", target_url: str | None = None) -> dict:
        """Set a commit status; the description is cut to GitHub's 140 characters."""
        if state not in STATUS_STATES:
            raise ValueError(f"status state must be one of {STATUS_STATES}, not {state!r}")
        name = full_name(repo)
        description = clip(description, MAX_STATUS_DESCRIPTION)
        body = {"state": state, "context": context, "description": description}
        if target_url:
            body["target_url"] = target_url
        return self.call(lambda: self._json("POST", f"/repos/{name}/statuses/{sha}", body=body)[1],
                         action=f"setting status {context}={state} on {sha[:12]}",
                         permission="statuses: write", post=True)
