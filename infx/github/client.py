"""The GitHub client, composed in this one place: the transport and every REST resource's endpoints."""

from __future__ import annotations

from infx.github.endpoints.check_runs import CheckRunEndpoints
from infx.github.endpoints.issues import IssueEndpoints
from infx.github.endpoints.people import PeopleEndpoints
from infx.github.endpoints.pulls import PullEndpoints
from infx.github.endpoints.repos import RepoEndpoints
from infx.github.endpoints.runs import RunEndpoints
from infx.github.endpoints.statuses import StatusEndpoints


class GitHubClient(IssueEndpoints, PullEndpoints, RepoEndpoints, CheckRunEndpoints,
                   StatusEndpoints, RunEndpoints, PeopleEndpoints):
    """One authenticated PyGithub connection plus the helpers; repos are "owner/name" strings
    (PyGithub Repository objects are accepted too)."""
