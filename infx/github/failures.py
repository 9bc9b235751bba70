"""How a GitHub call that failed for good is reported: the error types, GitHub's listing caps,
and messages that say what was tried and what is missing (a permission, the network)."""

from __future__ import annotations

from typing import Any

from infx.errors import InfxError, Problem
from infx.github.retry import ENV_MAX_WAIT, header_value, is_rate_limit_message
from infx.github.urls import DEFAULT_API_URL

# GitHub's documented listing caps: a pull request's commits and files (its `commits` and
# `changed_files` count them all), and the 1,000 results of the check runs of a ref and of
# workflow runs searched by a filter (their `total_count` counts them all)
PULL_COMMITS_CAP = 250
PULL_FILES_CAP = 3000
LISTING_CAP = 1000


class GitHubError(InfxError):
    """A GitHub call that failed for good; `status` is the HTTP status (None: no answer)."""

    def __init__(self, message: str, *, status: int | None, action: str, fix: str | None = None):
        super().__init__(Problem(message, key="github", fix=fix))
        self.status = status
        self.action = action


class ListingCapped(GitHubError):
    """A listing GitHub stops at a documented cap (`cap`) while it holds `total` items: the
    list read is not the whole. Callers with a narrower query (per check suite, per workflow
    run, filtered by name) use it instead; the others fail with this, which names the cap."""

    def __init__(self, action: str, cap: int, total: int, fix: str | None = None,
                 message: str | None = None) -> None:
        super().__init__(message or f"GitHub lists at most {cap:,} results while {action}, and "
                         f"there are {total:,}: the listing is cut at GitHub's cap", status=None,
                         action=action, fix=fix or "narrow the query (GitHub serves no more "
                         "of this listing; re-running cannot help)")
        self.cap = cap
        self.total = total


_PULL_CAPS = {
    "commits": (PULL_COMMITS_CAP, "the commits its sweeps ran on",
                f"squash the PR's branch to at most {PULL_COMMITS_CAP} commits; a sweep of the "
                "new head then counts"),
    "files": (PULL_FILES_CAP, "its changes",
              f"split the PR into PRs of at most {PULL_FILES_CAP:,} changed files each"),
}


def pull_cap_error(kind: str, number: int, count: int | None) -> ListingCapped | None:
    """The error for a pull request whose `count` commits or files (`kind`) pass what GitHub
    lists of a pull request (250 commits, 3,000 files), with a remedy that works; None
    within the cap. Known from the PR's own counts, before anything is listed."""
    cap, what, fix = _PULL_CAPS[kind]
    if count is None or count <= cap:
        return None
    return ListingCapped(f"listing the {kind} of PR #{number}", cap, count, fix=fix,
                         message=f"PR #{number} has {count:,} {kind} and GitHub lists at most "
                                 f"{cap:,} {kind} of a pull request, so {what} cannot be read whole")


def message_of(data: Any) -> str:
    if isinstance(data, dict):
        text = str(data.get("message") or "")
        details = [e.get("message") or f"{e.get('field')} {e.get('code')}"
                   for e in data.get("errors") or [] if isinstance(e, dict)]
        return "; ".join([text, *[d for d in details if d]]) if details else text
    return str(data or "")


def is_rate_limited(status: int | None, data: Any, headers: dict | None) -> bool:
    """403/429 that GitHub means as "slow down" rather than "not allowed"."""
    return status == 429 or status == 403 and (
        is_rate_limit_message(message_of(data)) or header_value(headers, "retry-after") is not None
        or header_value(headers, "x-ratelimit-remaining") == "0")


def explain(status: int | None, data: Any, action: str, permission: str,
            attempts: int = 1, waited: float = 0.0, headers: dict | None = None) -> GitHubError:
    """Turn a final failure into a message that says what was tried and what is missing."""
    message = message_of(data)
    if status == 401:
        return GitHubError(f"GitHub rejected the token while {action} (401 {message or 'Bad credentials'})",
                           status=status, action=action,
                           fix="set GITHUB_TOKEN (or GH_TOKEN) to a valid token")
    if is_rate_limited(status, data, headers):
        return GitHubError(f"GitHub rate limit while {action}: gave up after {attempts} attempt(s) "
                           f"and {waited:g}s of waiting ({status} {message})", status=status,
                           action=action, fix=f"retry later or raise {ENV_MAX_WAIT}")
    if status == 403:
        hint = ""
        if "not accessible by integration" in message.lower():
            accepted = header_value(headers, "x-accepted-github-permissions")
            hint = (f": the token lacks `{permission}`"
                    + (f" (GitHub accepts {accepted})" if accepted else "")
                    + " — a fork pull request's token is read-only")
        return GitHubError(f"GitHub refused {action} (403 {message}){hint}", status=status,
                           action=action, fix=f"grant the token `{permission}`")
    if status == 404:
        return GitHubError(f"{action}: not found (404) — it does not exist or the token cannot see it",
                           status=status, action=action,
                           fix=f"check the name, and that the token has `{permission}`")
    if status == 410:
        return GitHubError(f"{action}: gone (410 {message})", status=status, action=action,
                           fix="re-run the workflow that produced it")
    if status == 422:
        return GitHubError(f"GitHub rejected {action} (422 {message})", status=status,
                           action=action)
    if status is None:
        return GitHubError(f"no answer from GitHub while {action} after {attempts} attempt(s): "
                           f"{message}", status=None, action=action,
                           fix="check GITHUB_API_URL and the network")
    return GitHubError(f"GitHub failed while {action}: {status} {message} "
                       f"(gave up after {attempts} attempt(s) and {waited:g}s of waiting)",
                       status=status, action=action, fix="retry later")


def network_problem(exc: BaseException, base_url: str | None = None) -> InfxError:
    """The located error for a request that never got an answer (no network, DNS, TLS, timeout)."""
    url = getattr(getattr(exc, "request", None), "url", None) or base_url or DEFAULT_API_URL
    host = url.split("/")[2] if "://" in url else url
    return InfxError(Problem(f"cannot reach the GitHub API at {host} ({type(exc).__name__})",
                             key="GITHUB_API_URL",
                             fix="check the network and GITHUB_API_URL, or replay a world file with --world"))


def as_network_problem(exc: BaseException) -> InfxError | None:
    """``network_problem`` for a requests/urllib3 connection failure, else None."""
    from requests.exceptions import ConnectionError as RequestsConnectionError
    from requests.exceptions import Timeout

    if isinstance(exc, (RequestsConnectionError, Timeout)):
        return network_problem(exc)
    return None
