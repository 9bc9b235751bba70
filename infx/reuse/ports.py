"""The narrow GitHub interface the reuse command reads and reacts through (GitHubClient satisfies it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: importing the client would load PyGithub
    from infx.github.client import Artifact, Comment, Job, Permission


class ReuseClient(Protocol):
    """Every call `infx.reuse` makes on GitHub; nothing else of the client is used."""

    def get(self, path: str, *, action: str, permission: str, params: dict | None = None) -> Any: ...

    def get_or_none(self, path: str, *, action: str, permission: str,
                    params: dict | None = None) -> Any: ...

    def paginate(self, path: str, *, action: str, permission: str, params: dict | None = None,
                 list_key: str | None = None, expected: int | None = None) -> list[dict]: ...

    def list_comments(self, repo: str, issue_number: int, *, expected: int | None = None
                      ) -> list[Comment]: ...

    def get_comment(self, repo: str, comment_id: int) -> Comment: ...

    def add_reaction(self, repo: str, comment_id: int, content: str) -> dict: ...

    def remove_reaction(self, repo: str, comment_id: int, content: str) -> int: ...

    def collaborator_permission(self, repo: str, user: str) -> Permission: ...

    def run_jobs(self, repo: str, run_id: int, *, attempt: int | None = None,
                 latest: bool = True) -> list[Job]: ...

    def repository_dispatch(self, repo: str, event_type: str, payload: dict) -> None: ...

    def run_artifacts(self, repo: str, run_id: int) -> list[Artifact]: ...

    def rerun_failed_jobs(self, repo: str, run_id: int) -> None: ...

    def tree_at(self, repo: str, ref: str, *,
                wanted: Callable[[str], bool] | None = None) -> dict[str, str]: ...
