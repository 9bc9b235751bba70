"""Posting the welcome and results-link comments through the shared GitHub client (upserts)."""

from __future__ import annotations

from infx.github.client import GitHubClient, Upsert
from infx.github.markers import make_marker, parse_markers
from infx.workflow.comments import (
    RESULTS_MARKER_NAME,
    WELCOME_MARKER_NAME,
    results_link_body,
    should_update_results_link,
    welcome_body,
)


def post_welcome(client: GitHubClient, repo: str, pr_number: int, default_branch: str = "main") -> Upsert:
    return client.upsert_comment(repo, pr_number, make_marker(WELCOME_MARKER_NAME),
                                 welcome_body(repo, default_branch))


def post_results_link(client: GitHubClient, repo: str, pr_number: int, run_id: int) -> str:
    """`created`, `updated`, `unchanged`, or `kept-newer` (the comment links a newer run)."""
    existing = client.find_comment(repo, pr_number, make_marker(RESULTS_MARKER_NAME))
    marker = make_marker(RESULTS_MARKER_NAME, run=run_id)
    body = f"{marker.text}\n{results_link_body(run_id)}"
    if existing is None:
        return client.upsert_comment(repo, pr_number, marker, body).action
    if not should_update_results_link(_linked_run(existing.body), run_id):
        return "kept-newer"
    if existing.body == body:
        return "unchanged"
    client.edit_comment(repo, existing.id, body)
    return "updated"


def _linked_run(body: str) -> int | None:
    for marker in parse_markers(body):
        if marker.name == RESULTS_MARKER_NAME and marker.fields.get("run", "").isdigit():
            return int(marker.fields["run"])
    return None
