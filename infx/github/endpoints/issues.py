"""Endpoints of an issue's or PR's conversation: comments (upserted by marker), timeline, labels, reactions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from infx.github.failures import GitHubError
from infx.github.markers import Marker, as_marker, has_marker, with_marker
from infx.github.models import Comment
from infx.github.transport import Transport, full_name, parsed
from infx.trust import our_comment

MAX_COMMENT_CHARS = 65_536
MAX_COMMENT_BYTES = 262_144
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


@dataclass(frozen=True)
class Upsert:
    """What `upsert_comment` did: `created`, `updated` or `unchanged`."""

    action: str
    comment: Comment


def truncate_body(body: str, pointer: str = "") -> str:
    """Fit a comment into GitHub's limits (65,536 chars and 262,144 UTF-8 bytes)."""
    note = "\n\n… (truncated: the full text did not fit in a GitHub comment"
    note += f"; see {pointer})" if pointer else ")"
    if len(body) <= MAX_COMMENT_CHARS and len(body.encode()) <= MAX_COMMENT_BYTES:
        return body
    keep = MAX_COMMENT_CHARS - len(note)
    text = body[:keep]
    while len((text + note).encode()) > MAX_COMMENT_BYTES:
        text = text[: len(text) - max(1, (len((text + note).encode()) - MAX_COMMENT_BYTES) // 4)]
    return text + note


class IssueEndpoints(Transport):
    """The conversation of an issue or pull request, and the bot's own comments in it."""

    def issue_comments(self, repo: Any, issue_number: int, *, expected: int | None = None,
                       action: str | None = None, permission: str | None = None) -> list[dict]:
        """The conversation comments of an issue / pull request, oldest first (GitHub's JSON)."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/issues/{issue_number}/comments",
                             action=action or f"listing comments on {name}#{issue_number}",
                             permission=permission or "pull-requests: read (or issues: read)", expected=expected)

    def list_comments(self, repo: Any, issue_number: int, *, expected: int | None = None
                      ) -> list[Comment]:
        name = full_name(repo)
        items = self.issue_comments(name, issue_number, expected=expected)
        return [parsed(Comment.from_json, c, f"listing comments on {name}#{issue_number}")
                for c in items]

    def issue_comment(self, repo: Any, comment_id: int, *, action: str | None = None,
                      permission: str | None = None) -> dict:
        """One conversation comment (GitHub's JSON: its `issue_url` names the PR it is on)."""
        name = full_name(repo)
        return self.get(f"/repos/{name}/issues/comments/{comment_id}",
                        action=action or f"reading comment {comment_id} in {name}",
                        permission=permission or "pull-requests: read (or issues: read)")

    def get_comment(self, repo: Any, comment_id: int) -> Comment:
        name = full_name(repo)
        data = self.issue_comment(name, comment_id)
        return parsed(Comment.from_json, data, f"reading comment {comment_id} in {name}")

    def comment_count(self, repo: Any, issue_number: int) -> int | None:
        """How many comments the issue / pull request conversation has (GitHub's own count)."""
        name = full_name(repo)
        data = self.get(f"/repos/{name}/issues/{issue_number}",
                        action=f"reading {name}#{issue_number}", permission="pull-requests: read (or issues: read)")
        count = data.get("comments") if isinstance(data, dict) else None
        return count if isinstance(count, int) else None

    def find_comment(self, repo: Any, issue_number: int, marker: Marker | str, *,
                     expected: int | None = None,
                     listed: Sequence[Comment] | None = None) -> Comment | None:
        """The newest comment by this token's user carrying the marker, or None.

        The listing is checked against `expected` (read from the issue when not given): a
        listing that ended early could hide the comment and lead to a duplicate. `listed`:
        the conversation's comments as the caller already read them whole (checked against
        the issue's count the same way), searched instead of listing them again.
        """
        identity = self.identity
        if listed is None:
            if expected is None:
                expected = self.comment_count(repo, issue_number)
            listed = self.list_comments(repo, issue_number, expected=expected)
        matches = [c for c in listed if our_comment(identity, c) and has_marker(c.body, marker)]
        return matches[-1] if matches else None

    def upsert_comment(self, repo: Any, issue_number: int, marker: Marker | str, body: str,
                       *, pointer: str = "", expected: int | None = None,
                       listed: Sequence[Comment] | None = None) -> Upsert:
        """Edit the bot's comment carrying `marker`, else create it — never a duplicate.

        The body gets the marker as its first line and is truncated to GitHub's limit
        (with `pointer`, e.g. a run URL, saying where the full text is). `expected` is a
        lower bound on the conversation's comment count when the caller knows it; `listed`
        the whole conversation when the caller has just read it (see `find_comment`). A
        POST whose outcome is unknown always lists the comments afresh.
        """
        name = full_name(repo)
        mark = as_marker(marker)
        text = truncate_body(with_marker(body, mark), pointer)
        if listed is None and expected is None:
            expected = self.comment_count(name, issue_number)
        existing = self.find_comment(name, issue_number, mark, expected=expected, listed=listed)
        if existing is not None:
            if existing.body == text:
                return Upsert("unchanged", existing)
            return Upsert("updated", self.edit_comment(name, existing.id, text))

        def create() -> Upsert:
            data = self._json("POST", f"/repos/{name}/issues/{issue_number}/comments",
                              body={"body": text})[1]
            return Upsert("created", parsed(Comment.from_json, data, f"commenting on {name}"))

        def already_posted() -> Upsert | None:
            found = self.find_comment(name, issue_number, mark, expected=expected)
            return Upsert("created", found) if found is not None else None

        return self.call(create, action=f"commenting on {name}#{issue_number}",
                         permission="pull-requests: write (or issues: write)",
                         already_done=already_posted, post=True)

    def edit_comment(self, repo: Any, comment_id: int, body: str) -> Comment:
        name = full_name(repo)
        data = self.call(lambda: self._json("PATCH", f"/repos/{name}/issues/comments/{comment_id}",
                                            body={"body": truncate_body(body)})[1],
                         action=f"editing comment {comment_id} in {name}",
                         permission="pull-requests: write (or issues: write)")
        return parsed(Comment.from_json, data, f"editing comment {comment_id} in {name}")

    def timeline(self, repo: Any, number: int, *, action: str | None = None,
                 permission: str | None = None) -> list[dict]:
        """An issue / pull request's timeline events (committed, head_ref_force_pushed, …)."""
        name = full_name(repo)
        return self.paginate(f"/repos/{name}/issues/{number}/timeline",
                             action=action or f"listing the timeline of {name}#{number}",
                             permission=permission or "pull-requests: read (or issues: read)")

    def remove_label(self, repo: Any, issue_number: int, label: str) -> bool:
        """Take a label off an issue or PR; False when it was not on it (404)."""
        name = full_name(repo)
        try:
            self.call(lambda: self._json("DELETE", f"/repos/{name}/issues/{int(issue_number)}/labels/"
                                                   f"{quote(label, safe='')}"),
                      action=f"removing the label {label} from #{issue_number}",
                      permission="pull-requests: write (or issues: write)")
        except GitHubError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def add_reaction(self, repo: Any, comment_id: int, content: str) -> dict:
        """React to an issue comment as the bot (GitHub answers 200 if it already exists)."""
        if content not in REACTIONS:
            raise ValueError(f"reaction must be one of {REACTIONS}, not {content!r}")
        name = full_name(repo)
        return self.call(
            lambda: self._json("POST", f"/repos/{name}/issues/comments/{comment_id}/reactions",
                               body={"content": content})[1],
            action=f"reacting {content} to comment {comment_id}",
            permission="pull-requests: write (or issues: write)", post=True)

    def remove_reaction(self, repo: Any, comment_id: int, content: str) -> int:
        """Delete the bot's own reactions of one kind; returns how many were removed."""
        name = full_name(repo)
        base = f"/repos/{name}/issues/comments/{comment_id}/reactions"
        mine = [r for r in self.paginate(base, params={"content": content},
                                         action=f"listing reactions on comment {comment_id}",
                                         permission="pull-requests: read (or issues: read)")
                if (r.get("user") or {}).get("login") == self.login and r.get("content") == content]
        for reaction in mine:
            try:
                self.call(lambda rid=reaction["id"]: self._json("DELETE", f"{base}/{rid}"),
                          action=f"removing reaction {content} from comment {comment_id}",
                          permission="pull-requests: write (or issues: write)")
            except GitHubError as exc:
                if exc.status != 404:  # 404: a retried DELETE that had already succeeded
                    raise
        return len(mine)
