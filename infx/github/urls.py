"""GitHub's API URLs read back from its answers (which issue or PR an `issue_url` names)."""

from __future__ import annotations

import re

_ISSUE_OR_PULL = re.compile(r"/repos/([^/]+/[^/]+)/(?:issues|pulls)/(\d+)$")


def issue_of(url: str) -> tuple[str, int] | None:
    """The repository ("owner/name") and number an API `issue_url` / `pull_request_url`
    ends in, or None for any other URL."""
    match = _ISSUE_OR_PULL.search(url)
    return (match[1], int(match[2])) if match else None
