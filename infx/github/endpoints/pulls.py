"""Endpoints of pull requests: one PR, the lists (a commit's too), its files, commits, reviews and review comments."""

from __future__ import annotations

from typing import Any

from infx.github.failures import pull_cap_error
from infx.github.transport import Transport, full_name


class PullEndpoints(Transport):
    """Pull requests as GitHub's JSON; the listings checked against the PR's own counts."""

    def get_pull(self, repo: Any, number: int, *, action: str | None = None,
                 permission: str | None = None) -> dict:
        """The pull request JSON (its `changed_files`, `commits`, `comments` counts let the
        listings below detect truncated pagination)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/pulls/{number}", action=action or f"reading {name}#{number}",
                        permission=permission or "pull-requests: read")

    def list_pulls(self, repo: Any, *, action: str | None = None, permission: str | None = None,
                   **filters: str) -> list[dict]:
        """The repository's pull requests; filters as GitHub's (state, head, base)."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/pulls", params=filters,
                             action=action or f"listing pull requests of {name}",
                             permission=permission or "pull-requests: read")

    def pull_files(self, repo: Any, number: int, *, expected: int | None = None,
                   action: str | None = None, permission: str | None = None) -> list[dict]:
        """The PR's changed files; `expected` (its `changed_files`) past GitHub's 3,000 is an
        error naming the cap, before anything is listed."""
        name = full_name(repo)
        capped = pull_cap_error("files", number, expected)
        if capped is not None:
            raise capped
        return self.paginate(f"/repos/{name}/pulls/{number}/files", expected=expected,
                             action=action or f"listing files of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_commits(self, repo: Any, number: int, *, expected: int | None = None,
                     action: str | None = None, permission: str | None = None) -> list[dict]:
        """The PR's commits, oldest first; `expected` (its `commits`) past GitHub's 250 is an
        error naming the cap, before anything is listed."""
        name = full_name(repo)
        capped = pull_cap_error("commits", number, expected)
        if capped is not None:
            raise capped
        return self.paginate(f"/repos/{name}/pulls/{number}/commits", expected=expected,
                             action=action or f"listing commits of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_reviews(self, repo: Any, number: int, *, action: str | None = None,
                     permission: str | None = None) -> list[dict]:
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/pulls/{number}/reviews",
                             action=action or f"listing reviews of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_review(self, repo: Any, number: int, review_id: int, *, action: str | None = None,
                    permission: str | None = None) -> dict:
        """One review of a PR (its `commit_id`, `state`, `submitted_at`, `pull_request_url`)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/pulls/{number}/reviews/{review_id}",
                        action=action or f"reading review {review_id} of {name}#{number}",
                        permission=permission or "pull-requests: read")

    def pull_review_comments(self, repo: Any, number: int, *, action: str | None = None,
                             permission: str | None = None) -> list[dict]:
        """The PR's inline review comments."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/pulls/{number}/comments",
                             action=action or f"listing review comments of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_review_comment(self, repo: Any, comment_id: int, *, action: str | None = None,
                            permission: str | None = None) -> dict:
        """One inline review comment (its `pull_request_url` names the PR it is on)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/pulls/comments/{comment_id}",
                        action=action or f"reading review comment {comment_id} in {name}",
                        permission=permission or "pull-requests: read")

    def commit_pulls(self, repo: Any, sha: str, *, action: str | None = None,
                     permission: str | None = None) -> list[dict]:
        """The pull requests a commit belongs to (GitHub's own association)."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/commits/{sha}/pulls",
                             action=action or f"listing the pull requests of commit {sha[:12]}",
                             permission=permission or "pull-requests: read")
