"""Admin Pareto-coverage bypass comments: found by the gatherer, reported (never granted) by Check `pareto`."""

from __future__ import annotations

from infx.commands.grammar import bypass_shas
from infx.inert import code
from infx.signoff.model import Comment, Evidence


def bypass_requests(comments: list[Comment] | None, command: str) -> list[tuple[Comment, str]]:
    """(comment, commit sha) for every conversation comment holding a whole bypass line as
    GitHub shows it (the slash-command grammar: never in code, a quote or an HTML comment)."""
    found = []
    for comment in comments or []:
        if comment.kind != "issue_comment":
            continue
        for sha in bypass_shas(comment.body, command):
            found.append((comment, sha))
    return found


def is_admin(record: dict[str, str] | None) -> bool:
    return bool(record) and record.get("permission") == "admin" and record.get("role_name") == "admin"


def bypass_state(evidence: Evidence, command: str) -> str:
    """What the row says about an admin bypass for the assessed commit."""
    if evidence.comments is None:
        return "admin bypass: unverifiable (the PR conversation could not be read)"
    head = evidence.pr.head_sha
    requests = [(c, sha) for c, sha in bypass_requests(evidence.comments, command) if sha == head]
    if not requests:
        return f"admin bypass: none recorded for {head[:8]} ({code(command + ' <sha>')} by a repository admin)"
    notes = []
    for comment, _ in reversed(requests):
        login = comment.user.lower()
        where = f" ({comment.html_url})" if comment.html_url else ""
        if is_admin(evidence.collaborators.get(login)):
            return f"admin bypass: recorded by @{comment.user} (repository admin) for {head[:8]}{where}"
        unknown = login not in evidence.collaborators or f"permission:{login}" in evidence.read_errors
        notes.append(f"@{comment.user}'s bypass does not count: "
                     + ("admin access could not be verified" if unknown else "not a repository admin"))
    return "admin bypass: " + "; ".join(dict.fromkeys(notes))
