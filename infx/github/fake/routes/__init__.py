"""The fake server's route table, composed from one module per REST resource, and its lookup."""

from __future__ import annotations

from infx.github.fake.routes import (
    auth,
    check_runs,
    issues,
    people,
    pulls,
    repos,
    runs,
    statuses,
)
from infx.github.fake.routes.common import REPO, Handler, Route, State
from infx.github.fake.routes.issues import assign_reaction_ids

__all__ = ["REPO", "ROUTES", "State", "assign_reaction_ids", "match", "matched_route",
           "route_templates", "sample_value"]

# the first route whose method, origin and pattern fit serves a request; no two routes of
# one method and origin match the same path, so the order of the resources does not matter
ROUTES: list[Route] = [*auth.ROUTES, *repos.ROUTES, *people.ROUTES, *pulls.ROUTES,
                       *issues.ROUTES, *statuses.ROUTES, *check_runs.ROUTES,
                       *runs.ROUTES]


def match(method: str, path: str, origin: str = "api") -> tuple[Handler, dict[str, str]] | None:
    found = matched_route(method, path, origin)
    return None if found is None else (found[1], found[2])


def matched_route(method: str, path: str,
                  origin: str = "api") -> tuple[str, Handler, dict[str, str]] | None:
    """The first route serving a request: its registered regex, handler and path parameters."""
    for verb, pattern, handler, where in ROUTES:
        found = pattern.match(path)
        if found and verb == method and where == origin:
            return pattern.pattern, handler, found.groupdict()
    return None


def route_templates(origin: str = "api") -> list[tuple[str, str]]:
    """(method, regex) of every route an origin serves (for coverage tests)."""
    return [(verb, pattern.pattern) for verb, pattern, _, where in ROUTES if where == origin]


def sample_value(parameter: str) -> str:
    """A value of the right shape for an OpenAPI path parameter (to match routes against
    GitHub's path templates)."""
    if parameter in ("sha", "ref", "commit_sha"):
        return "0" * 40
    if parameter == "archive_format":
        return "zip"
    if parameter == "path":
        return "dir/file.txt"
    if parameter.endswith(("_id", "_number")) or parameter in ("number", "id"):
        return "1"
    return {"owner": "o", "repo": "r", "branch": "main", "format": "zip"}.get(parameter, "x")

