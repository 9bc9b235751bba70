"""Endpoints of a repository's content: branches, commits, compare, files, the tarball tree, CODEOWNERS."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from infx.github.archives import Wanted, read_tarball
from infx.github.failures import GitHubError
from infx.github.transport import Transport, full_name


class RepoEndpoints(Transport):
    """A repository's refs, commits and files."""

    def compare(self, repo: Any, base: str, head: str, *, action: str | None = None,
                permission: str | None = None) -> Any:
        """GitHub's three-dot compare of `head` with its merge base with `base` (its JSON)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/compare/{base}...{head}",
                        action=action or f"comparing {head[:12]} with {base}",
                        permission=permission or "contents: read")

    def get_branch(self, repo: Any, branch: str, *, action: str | None = None,
                   permission: str | None = None) -> dict:
        """A branch (its `commit.sha` is the tip)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/branches/{branch}",
                        action=action or f"reading branch {branch} of {name}",
                        permission=permission or "contents: read")

    def get_commit(self, repo: Any, sha: str, *, action: str | None = None,
                   permission: str | None = None) -> Any:
        """A commit (its `parents`, files and stats)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/commits/{sha}", action=action or f"reading commit {sha[:12]}",
                        permission=permission or "contents: read")

    def file_at(self, repo: Any, path: str, ref: str) -> str | None:
        """A file's text at a commit or branch, or None when it does not exist there."""
        name = full_name(repo)
        data = self.get_or_none(f"/repos/{name}/contents/{quote(path)}",
                                action=f"reading {path} at {ref[:12]}", permission="contents: read",
                                params={"ref": ref})
        if not isinstance(data, dict) or data.get("type") != "file":
            return None
        if data.get("encoding") == "base64":
            try:
                return base64.b64decode(data.get("content") or "").decode("utf-8", "replace")
            except ValueError as exc:
                raise GitHubError(f"unusable answer from GitHub while reading {path}: {exc}",
                                  status=None, action=f"reading {path}") from None
        # over 1 MB GitHub leaves `content` empty (encoding "none"): ask for the raw bytes
        raw = self.call(lambda: self._raw(f"/repos/{name}/contents/{quote(path)}", {"ref": ref}),
                        action=f"reading {path} at {ref[:12]} (raw)", permission="contents: read")
        return raw.decode("utf-8", "replace")

    def tree_at(self, repo: Any, ref: str, *, wanted: Wanted | None = None) -> dict[str, str]:
        """The text files of the repository at `ref` (one tarball download, streamed under
        the archive caps); `wanted(path)` picks the paths kept (default: all)."""
        name = full_name(repo)
        action = f"downloading {name} at {ref[:12]}"
        with self.download(f"/repos/{name}/tarball/{quote(ref, safe='')}", action=action,
                           permission="contents: read") as blob:
            return read_tarball(blob, f"the tarball of {name} at {ref[:12]}", self.limits, wanted)

    def codeowners_errors(self, repo: Any, ref: str | None = None, *, action: str | None = None,
                          permission: str | None = None) -> list[dict]:
        """GitHub's own CODEOWNERS syntax errors at a ref."""
        name = full_name(repo)
        data = self.get(f"/repos/{name}/codeowners/errors", params={"ref": ref} if ref else None,
                        action=action or f"reading CODEOWNERS errors of {name}",
                        permission=permission or "contents: read")
        if not isinstance(data, dict) or not isinstance(data.get("errors", []), list):
            raise GitHubError(f"unusable answer from GitHub while reading CODEOWNERS errors of "
                              f"{name}", status=None, action="reading CODEOWNERS errors")
        return list(data.get("errors", []))
