"""Plain facts the reuse logic decides on, and the failure type that carries its messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from infx.errors import InfxError, Problem
from infx.github.models import WorkflowRun


class ReuseError(InfxError):
    """Reuse was requested but cannot be honoured: fail closed with this message."""

    def __init__(self, message: str, fix: str | None = None) -> None:
        super().__init__(Problem(message, key="reuse", fix=fix))
        self.message = message


@dataclass(frozen=True)
class ReuseResult:
    """What the resolver decided; `outputs()` are the step outputs the workflows read."""

    enabled: bool = False
    skip_pr_sweep: bool = False
    reason: str = ""
    source: WorkflowRun | None = None
    pr_number: int | None = None
    extra: dict[str, str] = field(default_factory=dict)
    # every run whose rows the reuse takes (the source first); () = the source alone
    sources: tuple[int, ...] = ()

    def outputs(self) -> dict[str, str]:
        source = self.source
        return {
            "reuse-enabled": "true" if self.enabled else "false",
            "skip-pr-sweep": "true" if self.skip_pr_sweep else "false",
            "reuse-source-run-id": str(source.id) if source else "",
            "reuse-source-run-ids": ",".join(map(str, self.sources or ((source.id,) if source else ()))),
            "reuse-source-run-attempt": str(source.run_attempt) if source else "",
            "reuse-source-run-url": source.html_url if source else "",
            "reuse-source-pr-number": str(self.pr_number) if self.pr_number is not None else "",
            "reuse-source-head-sha": source.head_sha if source else "",
            "reuse-reason": self.reason,
        }


# the repository_dispatch event a GPU-free merge sends (README: "Publishing a merge")
PUBLISH_EVENT = "infx-sweep-results"


def publish_payload(run_ids: str, pr_number: int | None, sha: str, repo: str) -> dict[str, Any]:
    """The dispatch's client_payload: the runs whose results the merge publishes."""
    ids = [part.strip() for part in run_ids.split(",") if part.strip()]
    if not ids or not all(part.isdigit() for part in ids):
        raise ReuseError(f"--run-ids must list workflow run ids separated by commas, not {run_ids!r}",
                         fix="pass the plan job's reuse-source-run-ids output")
    if len(sha) != 40 or any(c not in "0123456789abcdef" for c in sha):
        raise ReuseError(f"--commit-sha must be a full commit id, not {sha!r}")
    return {"repository": repo, "sha": sha, "pr_number": pr_number,
            "run_ids": [int(part) for part in dict.fromkeys(ids)]}
