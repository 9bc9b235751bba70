"""The narrow GitHub interface the sign-off bot reads and writes through (GitHubClient satisfies it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: importing the client would load PyGithub
    from collections.abc import Callable

    from infx.github.budget import RequestBudget
    from infx.github.client import Artifact, Comment, Job, Permission, Upsert
    from infx.github.markers import Marker
    from infx.trust import Identity


class SignoffClient(Protocol):
    """Every call `infx.signoff` makes on GitHub; nothing else of the client is used."""

    @property
    def identity(self) -> Identity: ...

    def use_budget(self, budget: RequestBudget | None) -> None: ...

    def get(self, path: str, *, action: str, permission: str, params: dict | None = None) -> Any: ...

    def paginate(self, path: str, *, action: str, permission: str, params: dict | None = None,
                 list_key: str | None = None, expected: int | None = None) -> list[dict]: ...

    def collaborator_permission(self, repo: str, user: str) -> Permission: ...

    def team_membership(self, org: str, team_slug: str, user: str) -> str | None: ...

    def team_visible(self, org: str, team_slug: str) -> bool: ...

    def tree_at(self, repo: str, ref: str, *, wanted: Callable[[str], bool] | None = None
                ) -> dict[str, str]: ...

    def file_at(self, repo: str, path: str, ref: str) -> str | None: ...

    def run_artifacts(self, repo: str, run_id: int) -> list[Artifact]: ...

    def run_jobs(self, repo: str, run_id: int, *, attempt: int | None = None,
                 latest: bool = True) -> list[Job]: ...

    def download_artifact(self, repo: str, artifact_id: int, *, name: str | None = None,
                          size_in_bytes: int | None = None,
                          wanted: Callable[[str], bool] | None = None) -> dict[str, bytes]: ...

    def create_status(self, repo: str, sha: str, state: str, context: str,
                      description: str = "", target_url: str | None = None) -> dict: ...

    def upsert_comment(self, repo: str, issue_number: int, marker: Marker | str, body: str,
                       *, pointer: str = "", expected: int | None = None) -> Upsert: ...

    def find_comment(self, repo: str, issue_number: int, marker: Marker | str, *,
                     expected: int | None = None) -> Comment | None: ...

    def edit_comment(self, repo: str, comment_id: int, body: str) -> Comment: ...
