"""The installation permission each fake route needs, and whether a token's grant allows it."""

from __future__ import annotations

# (method, route pattern exactly as a routes/ module registers it) -> the permissions that
# each allow the call (any one suffices), as GitHub's "Permissions required for GitHub Apps"
# lists them; () = no repository permission (public data, or the App's JWT). Names and levels
# are the installation API's (`pull_requests: read`); write includes read. A route missing
# here is refused whenever a world declares the token's permissions (a test keeps the table
# complete).
Need = tuple[tuple[str, str], ...]
_PR_OR_ISSUES_READ: Need = (("issues", "read"), ("pull_requests", "read"))
_PR_OR_ISSUES_WRITE: Need = (("issues", "write"), ("pull_requests", "write"))
_R = "{R}"
TABLE: dict[tuple[str, str], Need] = {
    ("GET", "/user"): (),
    ("GET", f"{_R}/installation"): (),
    ("POST", "/app/installations/(?P<iid>\\d+)/access_tokens"): (),
    ("GET", "/users/(?P<login>[^/]+)"): (),
    ("GET", "/rate_limit"): (),
    ("GET", _R): (("metadata", "read"),),
    ("GET", f"{_R}/branches/(?P<branch>(?!.*/protection(?:/|$)).+)"): (("metadata", "read"),),
    ("GET", f"{_R}/pulls"): (("pull_requests", "read"),),
    ("GET", f"{_R}/pulls/(?P<number>\\d+)"): (("pull_requests", "read"),),
    ("GET", f"{_R}/pulls/(?P<number>\\d+)/files"): (("pull_requests", "read"),),
    ("GET", f"{_R}/pulls/(?P<number>\\d+)/commits"): (("pull_requests", "read"),),
    ("GET", f"{_R}/pulls/(?P<number>\\d+)/reviews"): (("pull_requests", "read"),),
    ("GET", f"{_R}/issues/(?P<number>\\d+)/timeline"): _PR_OR_ISSUES_READ,
    ("GET", f"{_R}/pulls/(?P<number>\\d+)/comments"): (("pull_requests", "read"),),
    ("GET", f"{_R}/pulls/(?P<number>\\d+)/reviews/(?P<rid>\\d+)"): (("pull_requests", "read"),),
    ("GET", f"{_R}/pulls/comments/(?P<cid>\\d+)"): (("pull_requests", "read"),),
    ("GET", f"{_R}/commits/(?P<ref>[^/]+)/pulls"): (("pull_requests", "read"),),
    ("GET", f"{_R}/issues/(?P<number>\\d+)"): _PR_OR_ISSUES_READ,
    ("GET", f"{_R}/issues/(?P<number>\\d+)/comments"): _PR_OR_ISSUES_READ,
    ("POST", f"{_R}/issues/(?P<number>\\d+)/comments"): _PR_OR_ISSUES_WRITE,
    ("GET", f"{_R}/issues/comments/(?P<cid>\\d+)"): _PR_OR_ISSUES_READ,
    ("PATCH", f"{_R}/issues/comments/(?P<cid>\\d+)"): _PR_OR_ISSUES_WRITE,
    ("DELETE", f"{_R}/issues/comments/(?P<cid>\\d+)"): _PR_OR_ISSUES_WRITE,
    ("GET", f"{_R}/issues/comments/(?P<cid>\\d+)/reactions"): _PR_OR_ISSUES_READ,
    ("POST", f"{_R}/issues/comments/(?P<cid>\\d+)/reactions"): _PR_OR_ISSUES_WRITE,
    ("DELETE", f"{_R}/issues/comments/(?P<cid>\\d+)/reactions/(?P<rid>\\d+)"): _PR_OR_ISSUES_WRITE,
    ("GET", f"{_R}/issues/(?P<number>\\d+)/labels"): _PR_OR_ISSUES_READ,
    ("POST", f"{_R}/issues/(?P<number>\\d+)/labels"): _PR_OR_ISSUES_WRITE,
    ("DELETE", f"{_R}/issues/(?P<number>\\d+)/labels/(?P<label>.+)"): _PR_OR_ISSUES_WRITE,
    ("GET", f"{_R}/labels"): _PR_OR_ISSUES_READ,
    ("GET", f"{_R}/commits/(?P<ref>[^/]+)"): (("contents", "read"),),
    ("GET", f"{_R}/compare/(?P<base>[^/.]+)\\.\\.\\.(?P<head>[^/.]+)"): (("contents", "read"),),
    ("POST", f"{_R}/statuses/(?P<sha>[^/]+)"): (("statuses", "write"),),
    ("POST", f"{_R}/dispatches"): (("contents", "write"),),
    ("POST", f"{_R}/actions/workflows/(?P<workflow>[^/]+)/dispatches"): (("actions", "write"),),
    ("GET", f"{_R}/statuses/(?P<ref>[^/]+)"): (("statuses", "read"),),
    ("GET", f"{_R}/commits/(?P<ref>[^/]+)/statuses"): (("statuses", "read"),),
    ("GET", f"{_R}/commits/(?P<ref>[^/]+)/status"): (("statuses", "read"),),
    ("GET", f"{_R}/commits/(?P<ref>[^/]+)/check-runs"): (("checks", "read"),),
    ("GET", f"{_R}/check-suites/(?P<suite_id>\\d+)/check-runs"): (("checks", "read"),),
    ("GET", f"{_R}/check-runs/(?P<cid>\\d+)"): (("checks", "read"),),
    ("POST", f"{_R}/check-runs"): (("checks", "write"),),
    ("PATCH", f"{_R}/check-runs/(?P<cid>\\d+)"): (("checks", "write"),),
    ("GET", f"{_R}/check-runs/(?P<cid>\\d+)/annotations"): (("checks", "read"),),
    ("GET", f"{_R}/contents(?:/(?P<path>.*))?"): (("contents", "read"),),
    ("GET", f"{_R}/tarball(?:/(?P<ref>.+))?"): (("contents", "read"),),
    ("GET", f"{_R}/collaborators/(?P<user>[^/]+)/permission"): (("metadata", "read"),),
    ("GET", "/orgs/(?P<org>[^/]+)"): (),
    ("GET", "/orgs/(?P<org>[^/]+)/teams/(?P<slug>[^/]+)"): (("members", "read"),),
    ("GET", "/orgs/(?P<org>[^/]+)/teams/(?P<slug>[^/]+)/memberships/(?P<user>[^/]+)"):
        (("members", "read"),),
    ("GET", f"{_R}/codeowners/errors"): (("contents", "read"),),
    ("GET", f"{_R}/actions/runs"): (("actions", "read"),),
    ("GET", f"{_R}/actions/runs/(?P<run_id>\\d+)"): (("actions", "read"),),
    ("GET", f"{_R}/actions/runs/(?P<run_id>\\d+)/jobs"): (("actions", "read"),),
    ("POST", f"{_R}/actions/runs/(?P<run_id>\\d+)/rerun-failed-jobs"): (("actions", "write"),),
    ("GET", f"{_R}/actions/runs/(?P<run_id>\\d+)/attempts/(?P<attempt>\\d+)/jobs"):
        (("actions", "read"),),
    ("GET", f"{_R}/actions/runs/(?P<run_id>\\d+)/attempts/(?P<attempt>\\d+)"): (("actions", "read"),),
    ("GET", f"{_R}/actions/jobs/(?P<job_id>\\d+)"): (("actions", "read"),),
    ("GET", f"{_R}/actions/runs/(?P<run_id>\\d+)/artifacts"): (("actions", "read"),),
    ("GET", f"{_R}/actions/artifacts"): (("actions", "read"),),
    ("GET", f"{_R}/actions/artifacts/(?P<aid>\\d+)"): (("actions", "read"),),
    ("GET", f"{_R}/actions/artifacts/(?P<aid>\\d+)/(?P<fmt>zip)"): (("actions", "read"),),
    ("GET", f"{_R}/actions/jobs/(?P<job_id>\\d+)/logs"): (("actions", "read"),),
    ("GET", f"{_R}/actions/runs/(?P<run_id>\\d+)/logs"): (("actions", "read"),),
}
LEVELS = ("none", "read", "write")
# every installation token can read metadata (GitHub adds it to any repository permission)
ALWAYS: dict[str, str] = {"metadata": "read"}
DENIED = "Resource not accessible by integration"


def compiled_key(method: str, pattern: str, repo: str) -> tuple[str, str]:
    """A table key as the route table stores the pattern (`{R}` expanded, anchored)."""
    return method, pattern.replace("{R}", repo) + "$"


_COMPILED: dict[str, dict[tuple[str, str], Need]] = {}


def need_of(method: str, compiled_pattern: str, repo: str) -> Need | None:
    """What a route (by its registered regex) needs; None when the table does not list it."""
    table = _COMPILED.get(repo)
    if table is None:
        table = _COMPILED[repo] = {compiled_key(m, p, repo): n for (m, p), n in TABLE.items()}
    return table.get((method, compiled_pattern))


def grant(declared: dict[str, str] | None) -> dict[str, str] | None:
    """The permissions a token holds (None = every permission), with the implied metadata read."""
    if declared is None:
        return None
    return ALWAYS | dict(declared)


def allows(granted: dict[str, str] | None, need: Need) -> bool:
    """Whether a grant satisfies one of the alternatives (write includes read)."""
    if granted is None or not need:
        return True
    return any(LEVELS.index(granted.get(name, "none")) >= LEVELS.index(level)
               for name, level in need)


def accepted_header(need: Need) -> str:
    """GitHub's `X-Accepted-GitHub-Permissions` value: the alternatives that would be enough."""
    return "; ".join(f"{name}={level}" for name, level in need)


def narrowed(available: dict[str, str], requested: dict[str, str] | None) -> dict[str, str] | None:
    """The grant of an installation token asked for `requested` (None: all the installation
    has; PyGithub asks with `{}`); None when it asks for more than the installation has."""
    if not requested:
        return dict(available)
    for name, level in requested.items():
        if LEVELS.index(available.get(name, "none")) < LEVELS.index(level if level in LEVELS
                                                                     else "write"):
            return None
    return dict(requested)

