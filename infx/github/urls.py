"""GitHub's API URLs: the default API root, and what a URL in its answers names (an `issue_url`'s PR)."""

from __future__ import annotations

import re

DEFAULT_API_URL = "https://api.github.com"
_ISSUE_OR_PULL = re.compile(r"/repos/([^/]+/[^/]+)/(?:issues|pulls)/(\d+)$")


def issue_of(url: str) -> tuple[str, int] | None:
    """The repository ("owner/name") and number an API `issue_url` / `pull_request_url`
    ends in, or None for any other URL."""
    match = _ISSUE_OR_PULL.search(url)
    return (match[1], int(match[2])) if match else None
