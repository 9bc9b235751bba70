"""PyGithub wiring: bounded retries, permission-aware errors, and the helpers every bot shares.

Every REST call goes through PyGithub's `Requester` (auth, base URL, JSON, redirects).
Retries happen at two levels, both bounded by one wait budget per call and one
injectable sleep function:

* inside urllib3 (`BoundedRetry`, installed as PyGithub's `retry=`): idempotent methods
  on 5xx, 429 and 403 + Retry-After, page by page;
* around whole operations (`GitHubClient.call`): rate limits recognised only from the
  body (secondary limit messages, `x-ratelimit-remaining: 0`), and POSTs. POST is never
  retried blindly: a lost response may still have created the comment, so the caller's
  `already_done` check (re-list, look for the marker) runs before every repeat.
"""

from __future__ import annotations

import base64
import email.utils
import http.client
import io
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any, TypeVar
from urllib.parse import quote, urljoin

import urllib3.exceptions
from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

from infx.errors import InfxError, Problem
from infx.github.archives import (
    ArchiveLimitError,
    ArchiveLimits,
    Wanted,
    default_limits,
    read_tarball,
    read_zip,
)
from infx.github.budget import RequestBudget
from infx.github.checks import (
    CHECK_CONCLUSIONS,
    MAX_ANNOTATIONS_PER_REQUEST,
    Annotation,
    CheckOutput,
    fit,
)
from infx.github.markers import Marker, as_marker, has_marker, with_marker
from infx.github.models import Artifact, CheckRun, Comment, Job
from infx.inert import clip
from infx.trust import Identity, our_comment

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_BOT_LOGIN = "github-actions[bot]"
ENV_MAX_WAIT = "INFX_GITHUB_MAX_WAIT"
ENV_BOT_LOGIN = "INFX_BOT_LOGIN"
ENV_APP_ID = "INFX_APP_ID"
ENV_APP_KEY = "INFX_APP_PRIVATE_KEY"
ENV_APP_INSTALLATION = "INFX_APP_INSTALLATION_ID"
MAX_COMMENT_CHARS = 65_536
MAX_COMMENT_BYTES = 262_144
MAX_STATUS_DESCRIPTION = 140
PER_PAGE = 100
STATUS_STATES = ("error", "failure", "pending", "success")
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
SPOOL_IN_MEMORY = 4 * 1024 * 1024  # downloads beyond this are spooled to a temporary file
MAX_ERROR_BODY = 64 * 1024
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"})
# GitHub's documented listing caps: a pull request's commits and files (its `commits` and
# `changed_files` count them all), and the 1,000 results of the check runs of a ref and of
# workflow runs searched by a filter (their `total_count` counts them all)
PULL_COMMITS_CAP = 250
PULL_FILES_CAP = 3000
LISTING_CAP = 1000
T = TypeVar("T")


# --- retry policy (pure) -------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """How long and how often to retry; `sleep` and `clock` are injectable for tests."""

    retries: int = 4
    max_wait: float = 120.0
    backoff: float = 1.0
    secondary_wait: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    clock: Callable[[], float] = field(default=time.time, compare=False)

    @classmethod
    def from_env(cls, **overrides: Any) -> RetryPolicy:
        raw = os.environ.get(ENV_MAX_WAIT)
        if raw is not None and "max_wait" not in overrides:
            try:
                overrides["max_wait"] = float(raw)
            except ValueError:
                raise InfxError(Problem(f"{ENV_MAX_WAIT}={raw!r} is not a number of seconds",
                                        key=ENV_MAX_WAIT, fix="set it to e.g. 30")) from None
        return cls(**overrides)


def _header(headers: dict | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def _seconds_until(value: str, now: float) -> float | None:
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(email.utils.parsedate_to_datetime(value).timestamp() - now, 0.0)
    except (TypeError, ValueError):
        return None


def is_rate_limit_message(message: str | None) -> bool:
    text = (message or "").lower()
    return ("rate limit" in text or text.endswith("please retry your request again later.")
            or text.endswith("please wait a few minutes before you try again."))


def retry_wait(status: int | None, headers: dict | None, message: str | None, attempt: int,
               policy: RetryPolicy) -> float | None:
    """Seconds to wait before retry number `attempt` (0-based), or None if not retryable.

    Follows GitHub's guidance: honour Retry-After; when the primary limit is used up
    wait until X-RateLimit-Reset; a secondary limit without headers waits at least
    `secondary_wait`; server errors back off exponentially.
    """
    exponential = policy.backoff * (2 ** attempt)
    retry_after = _header(headers, "retry-after")
    if status is None or status >= 500:
        after = _seconds_until(retry_after, policy.clock()) if retry_after else None
        return after if after is not None else exponential
    if status not in (403, 429):
        return None
    if retry_after is not None:
        after = _seconds_until(retry_after, policy.clock())
        if after is not None:
            return after
    reset = _header(headers, "x-ratelimit-reset")
    if _header(headers, "x-ratelimit-remaining") == "0" and reset:
        until = _seconds_until(reset, 0.0)
        if until is not None:
            return max(until - policy.clock(), 0.0) + 1.0
    if is_rate_limit_message(message):
        return max(policy.secondary_wait, exponential)
    if status == 429:
        return exponential
    return None


@dataclass
class RetryTally:
    """Retries and seconds waited during the current client call (shared by both levels)."""

    retries: int = 0
    waited: float = 0.0


class BoundedRetry(Retry):
    """urllib3 retry for idempotent requests, sleeping through the policy within its budget."""

    def __init__(self, policy: RetryPolicy | None = None, tally: RetryTally | None = None,
                 next_wait: float = 0.0, **kwargs: Any) -> None:
        self.policy = policy or RetryPolicy()
        self.tally = tally if tally is not None else RetryTally()
        self.next_wait = next_wait
        kwargs.setdefault("total", self.policy.retries)
        kwargs.setdefault("allowed_methods", IDEMPOTENT_METHODS)
        kwargs.setdefault("raise_on_status", False)
        kwargs.setdefault("respect_retry_after_header", True)
        super().__init__(**kwargs)

    def new(self, **kwargs: Any) -> BoundedRetry:
        kwargs.setdefault("policy", self.policy)
        kwargs.setdefault("tally", self.tally)
        kwargs.setdefault("next_wait", self.next_wait)
        return super().new(**kwargs)  # type: ignore[return-value]

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if not self._is_method_retryable(method):
            return False
        return status_code >= 500 or status_code == 429 or (status_code == 403 and has_retry_after)

    def increment(self, method=None, url=None, response=None, error=None, _pool=None,
                  _stacktrace=None):
        attempt = len(self.history)
        status = response.status if response is not None else None
        headers = dict(response.headers) if response is not None else None
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        wait = retry_wait(status, headers, None, attempt, self.policy)
        if wait is None or self.tally.waited + wait > self.policy.max_wait:
            raise MaxRetryError(_pool, url, ResponseError(f"retry budget exhausted ({status})"))
        self.tally.retries += 1
        self.tally.waited += wait
        retry.next_wait = wait
        return retry

    def sleep(self, response=None) -> None:
        if self.next_wait > 0:
            self.policy.sleep(self.next_wait)


# --- errors --------------------------------------------------------------------------------


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


def _message_of(data: Any) -> str:
    if isinstance(data, dict):
        text = str(data.get("message") or "")
        details = [e.get("message") or f"{e.get('field')} {e.get('code')}"
                   for e in data.get("errors") or [] if isinstance(e, dict)]
        return "; ".join([text, *[d for d in details if d]]) if details else text
    return str(data or "")


def is_rate_limited(status: int | None, data: Any, headers: dict | None) -> bool:
    """403/429 that GitHub means as "slow down" rather than "not allowed"."""
    return status == 429 or status == 403 and (
        is_rate_limit_message(_message_of(data)) or _header(headers, "retry-after") is not None
        or _header(headers, "x-ratelimit-remaining") == "0")


def explain(status: int | None, data: Any, action: str, permission: str,
            attempts: int = 1, waited: float = 0.0, headers: dict | None = None) -> GitHubError:
    """Turn a final failure into a message that says what was tried and what is missing."""
    message = _message_of(data)
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
            accepted = _header(headers, "x-accepted-github-permissions")
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


# --- plain results -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Upsert:
    """What `upsert_comment` did: `created`, `updated` or `unchanged`."""

    action: str
    comment: Comment


@dataclass(frozen=True)
class Permission:
    permission: str  # admin | maintain | write | triage | read | none
    role_name: str


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


# --- the client ------------------------------------------------------------------------------


def _repo_name(repo: Any) -> str:
    return repo if isinstance(repo, str) else repo.full_name


def app_installation_auth(app_id: str, private_key: str, base_url: str,
                          installation_id: str | None, repo: str | None) -> Any:
    """PyGithub's installation auth for a GitHub App (a JWT signed with the App's key, traded
    for an hour-long installation token, renewed by PyGithub as needed). The installation is
    INFX_APP_INSTALLATION_ID, else the App's installation on `repo` (one API call)."""
    from github import Auth, GithubException, GithubIntegration
    from requests.exceptions import RequestException

    if not str(app_id).strip().isdigit():
        raise InfxError(Problem(f"{ENV_APP_ID}={app_id!r} is not a GitHub App id", key=ENV_APP_ID,
                                fix="set it to the App's numeric id (its settings page, 'App ID')"))
    if installation_id and not str(installation_id).strip().isdigit():
        raise InfxError(Problem(f"{ENV_APP_INSTALLATION}={installation_id!r} is not an installation id",
                                key=ENV_APP_INSTALLATION,
                                fix="set it to the number at the end of the installation's settings URL, or unset it"))
    app = Auth.AppAuth(int(str(app_id).strip()), private_key)
    try:
        app.token  # noqa: B018 - signs a JWT now: a bad key is an error here, not mid-command
    except Exception as exc:  # noqa: BLE001 - PyJWT and cryptography raise several kinds
        raise InfxError(Problem(f"{ENV_APP_KEY} cannot sign a GitHub App token "
                                f"({type(exc).__name__}: {exc})", key=ENV_APP_KEY,
                                fix="set it to the App's private key, the whole PEM text from "
                                    "-----BEGIN RSA PRIVATE KEY----- to the END line")) from None
    if not installation_id:
        if not repo or "/" not in repo:
            raise InfxError(Problem("the GitHub App's installation is unknown", key=ENV_APP_INSTALLATION,
                                    fix=f"set {ENV_APP_INSTALLATION}, or pass --repo / set GITHUB_REPOSITORY"))
        owner, name = repo.split("/", 1)
        try:
            installation_id = str(GithubIntegration(auth=app, base_url=base_url)
                                  .get_repo_installation(owner, name).id)
        except GithubException as exc:
            raise InfxError(Problem(f"the GitHub App {app_id} is not installed on {repo} "
                                    f"(GitHub answered {exc.status})", key=ENV_APP_ID,
                                    fix="install the App on the repository (README: Sign-off GitHub App)")) from None
        except RequestException as exc:
            raise network_problem(exc, base_url) from None
    return app.get_installation_auth(int(installation_id))


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


def _is_loopback(url: str) -> bool:
    return url.startswith(("http://127.0.0.1", "http://localhost", "http://[::1]"))


class GitHubClient:
    """One authenticated PyGithub connection plus the helpers; repos are "owner/name" strings
    (PyGithub Repository objects are accepted too)."""

    def __init__(self, token: str | None = None, base_url: str | None = None,
                 policy: RetryPolicy | None = None, timeout: int = 30,
                 limits: ArchiveLimits | None = None, auth: Any = None,
                 bot_login: str | None = None, app: bool | None = None) -> None:
        from github import Auth, Github

        self.base_url = (base_url or DEFAULT_API_URL).rstrip("/")
        self.policy = policy or RetryPolicy()
        self.timeout = timeout
        self.limits = limits or default_limits()
        self._tally = RetryTally()
        self._storage = None
        self._depth = 0
        self._shared_budget = False
        self.budget: RequestBudget | None = None  # counts (and caps) every HTTP request
        self._action = ""
        throttle = None if _is_loopback(self.base_url) else 0.25
        self.gh = Github(
            base_url=self.base_url, auth=auth or (Auth.Token(token) if token else None), timeout=timeout,
            per_page=PER_PAGE, retry=BoundedRetry(self.policy, self._tally), lazy=True,
            seconds_between_requests=throttle,
            seconds_between_writes=None if throttle is None else 1.0,
        )
        # the login the workflows name (INFX_BOT_LOGIN); an App without it has no fallback
        self._login: str | None = bot_login or os.environ.get(ENV_BOT_LOGIN) or None
        # a GitHub App's token (`auth`), or `app=True` for a token that stands for one (tests)
        self._app = auth is not None if app is None else app
        self.server_date: str | None = None

    @classmethod
    def from_env(cls, policy: RetryPolicy | None = None, env: dict | None = None,
                 repo: str | None = None) -> GitHubClient:
        """API from GITHUB_API_URL; as the sign-off GitHub App when INFX_APP_ID and
        INFX_APP_PRIVATE_KEY (PEM text) are set (its installation on `repo`, or on
        INFX_APP_INSTALLATION_ID), else with the token from GITHUB_TOKEN / GH_TOKEN."""
        env = os.environ if env is None else env
        base_url = env.get("GITHUB_API_URL") or DEFAULT_API_URL
        policy = policy or RetryPolicy.from_env()
        app_id, key = env.get(ENV_APP_ID), env.get(ENV_APP_KEY)
        login = env.get(ENV_BOT_LOGIN) or None
        if app_id and key:
            return cls(base_url=base_url, policy=policy, bot_login=login,
                       auth=app_installation_auth(app_id, key, base_url,
                                                  env.get(ENV_APP_INSTALLATION),
                                                  repo or env.get("GITHUB_REPOSITORY")))
        token = env.get("GITHUB_TOKEN") or env.get("GH_TOKEN")
        return cls(token=token, base_url=base_url, policy=policy, bot_login=login)

    @property
    def storage(self):
        """The plain HTTP session for storage hosts: no credentials, same retry policy."""
        if self._storage is None:
            import requests
            from requests.adapters import HTTPAdapter

            session = requests.Session()
            session.max_redirects = 3
            adapter = HTTPAdapter(max_retries=BoundedRetry(self.policy, self._tally))
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            self._storage = session
        return self._storage

    def use_budget(self, budget: RequestBudget | None) -> None:
        """Count every HTTP request from now on against `budget` (every page, redirect,
        download and retry; None: stop counting). One budget is shared by all the readers of
        one piece of work: the request past its cap is refused with BudgetExceeded."""
        self.budget = budget

    def _charge(self) -> None:
        if self.budget is not None:
            self.budget.charge(self._action or "a GitHub request")

    def repo(self, full_name: str):
        """A lazy PyGithub Repository (no request until used), for calls without a helper."""
        return self.gh.get_repo(full_name)

    # --- plumbing -------------------------------------------------------------------------

    def call(self, fn: Callable[[], T], *, action: str, permission: str,
             already_done: Callable[[], T | None] | None = None, post: bool = False,
             retry_failures: bool = False) -> T:
        """Run one operation; retry rate limits (and POSTs, guarded by `already_done`).

        One wait budget (`policy.max_wait`) covers the whole call, urllib3 retries included.
        """
        saved = None
        outer_action = self._action
        if self._depth == 0:
            self._action = action
            # a write always gets its own budget (a run's final status must still be set);
            # reads share the run's budget once `share_wait_budget()` was called
            if post or not self._shared_budget:
                saved = (self._tally.retries, self._tally.waited)
                self._tally.retries, self._tally.waited = 0, 0.0
        self._depth += 1
        try:
            return self._call(fn, action, permission, already_done, post or retry_failures)
        finally:
            self._depth -= 1
            self._action = outer_action
            if saved is not None and self._shared_budget:
                self._tally.retries, self._tally.waited = saved

    def share_wait_budget(self) -> None:
        """From now on all reads share ONE wait budget (`policy.max_wait`) instead of one per
        call: a verification that meets several slow or rate-limited calls gives up in bounded
        time. Writes keep a budget of their own."""
        self._shared_budget = True
        self._tally.retries, self._tally.waited = 0, 0.0

    def _call(self, fn: Callable[[], T], action: str, permission: str,
              already_done: Callable[[], T | None] | None, post: bool) -> T:
        from github.GithubException import GithubException
        from requests.exceptions import HTTPError, RequestException

        tally = self._tally
        for attempt in range(self.policy.retries + 1):
            if attempt and already_done is not None:
                done = already_done()
                if done is not None:
                    return done
            sent_retries = tally.retries
            try:
                return fn()
            except GithubException as exc:
                status, data, headers = exc.status, exc.data, exc.headers
            except _HttpFailure as exc:
                status, data, headers = exc.status, exc.data, exc.headers
            except HTTPError as exc:
                response = exc.response
                status = response.status_code if response is not None else None
                data = _json_or_text(response)
                headers = dict(response.headers) if response is not None else {}
            except InfxError:
                raise
            except (RequestException, urllib3.exceptions.HTTPError, http.client.HTTPException,
                    OSError) as exc:  # no answer, or an answer cut off
                status, data, headers = None, f"{type(exc).__name__}: {exc}", {}
            except (AssertionError, ValueError, TypeError, KeyError, AttributeError,
                    RuntimeError) as exc:
                # PyGithub's own checks (redirect hosts, JSON it cannot parse, ...)
                raise GitHubError(f"unusable answer from GitHub while {action}: "
                                  f"{type(exc).__name__}: {exc}", status=None, action=action,
                                  fix="retry later; report it if it persists") from None
            finally:
                self._count_retries(sent_retries)
            wait = self._retry_decision(status, data, headers, attempt, post)
            if (wait is None or tally.waited + wait > self.policy.max_wait
                    or attempt == self.policy.retries):
                raise explain(status, data, action, permission, 1 + tally.retries, tally.waited,
                              headers)
            tally.retries += 1
            tally.waited += wait
            if wait > 0:
                self.policy.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _count_retries(self, since: int) -> None:
        """Requests urllib3 re-sent inside one attempt (its retries) count as sent."""
        if self.budget is not None:
            self.budget.sent(self._tally.retries - since)

    def _retry_decision(self, status: int | None, data: Any, headers: dict, attempt: int,
                        post: bool) -> float | None:
        if is_rate_limited(status, data, headers) or (post and (status is None or status >= 500)):
            return retry_wait(status, headers, _message_of(data), attempt, self.policy)
        return None

    def _json(self, verb: str, path: str, *, params: dict | None = None, body: Any = None,
              headers: dict | None = None) -> tuple[dict, Any]:
        self._charge()
        answer_headers, data = self.gh.requester.requestJsonAndCheck(
            verb, path, parameters=params, headers=headers, input=body)
        self.server_date = _header(answer_headers, "date") or self.server_date
        if (isinstance(data, dict) and isinstance(data.get("data"), str)
                and set(data) <= {"data", "url"}):
            # PyGithub's wrapping of a body that is not JSON (an HTML error page, ...)
            raise ValueError(f"the answer is not JSON: {data['data'][:80]!r}")
        return answer_headers, data

    def server_time(self) -> datetime | None:
        """GitHub's clock: the `Date` header of the latest JSON answer (None before any, or
        when the server sent none). Date-dependent rules use it, never the host's clock."""
        try:
            return email.utils.parsedate_to_datetime(self.server_date) if self.server_date else None
        except (TypeError, ValueError):
            return None

    def get(self, path: str, *, action: str, permission: str, params: dict | None = None) -> Any:
        """GET one JSON document."""
        return self.call(lambda: self._json("GET", path, params=params)[1], action=action,
                         permission=permission)

    def get_or_none(self, path: str, *, action: str, permission: str,
                    params: dict | None = None) -> Any:
        """GET one JSON document, or None when GitHub answers 404 (absent, or hidden from us)."""
        try:
            return self.get(path, action=action, permission=permission, params=params)
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise

    def paginate(self, path: str, *, action: str, permission: str, params: dict | None = None,
                 list_key: str | None = None, expected: int | None = None) -> list[dict]:
        """Every item of a paginated list (following Link headers, 100 per page), complete or
        an error: never a part taken for the whole.

        A wrapped list (`list_key`) is complete only when it holds `total_count` distinct
        items on every page's count; one cut at GitHub's 1,000-result cap raises
        ListingCapped (callers with a narrower query use that instead). With `expected`
        (e.g. the PR's `changed_files`), a shorter plain list is an error too.
        """
        totals: list[int] = []

        def fetch() -> list[dict]:
            totals.clear()
            return list(self._pages(path, params or {}, list_key, totals))

        items = self.call(fetch, action=action, permission=permission)
        if totals:
            items = _distinct(items)
            total = totals[-1]
            if len(set(totals)) == 1 and len(items) == total:
                return items
            if len(set(totals)) > 1:
                raise GitHubError(f"incomplete listing while {action}: the list changed while "
                                  f"it was read (GitHub counted {totals[0]} items, then "
                                  f"{total})", status=None, action=action,
                                  fix="retry the command; the list will be read whole again")
            if LISTING_CAP <= len(items) < total:
                raise ListingCapped(action, LISTING_CAP, total)
            raise GitHubError(f"incomplete listing while {action}: got {len(items)} of "
                              f"{total} items (GitHub ended the pages early)", status=None,
                              action=action,
                              fix="retry the command; the list will be read whole again")
        if expected is not None and len(items) < expected:
            raise GitHubError(f"incomplete listing while {action}: got {len(items)} of {expected} "
                              "items (GitHub ended the pages early)", status=None, action=action,
                              fix="retry the command; the list will be read whole again")
        return items

    def _pages(self, path: str, params: dict, list_key: str | None,
               totals: list[int]) -> Iterator[dict]:
        url: str | None = path
        query: dict | None = {"per_page": PER_PAGE} | params
        while url:
            headers, data = self._json("GET", url, params=query)
            if list_key and isinstance(data, dict) and isinstance(data.get("total_count"), int):
                totals.append(data["total_count"])
            items = (data.get(list_key) if isinstance(data, dict) else None) if list_key \
                else data
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise ValueError(f"expected a list of objects{f' under {list_key!r}' if list_key else ''}, "
                                 f"got {type(data).__name__}")
            yield from items
            url, query = _next_link(headers.get("link", "")), None

    def download(self, path: str, *, action: str, permission: str,
                 limits: ArchiveLimits | None = None, declared: int | None = None) -> IO[bytes]:
        """GET binary content: the API answers a redirect to a storage host (signed blob
        storage, codeload), which is fetched with a plain HTTP client and no Authorization
        header, under the same retry budget and error mapping. The body is spooled (to disk
        past a few MB) and capped at `limits.download_bytes`; a `declared` size over the cap
        fails before anything is fetched. Returns a seekable file positioned at 0."""
        limits = limits or self.limits
        if declared is not None and declared > limits.download_bytes:
            raise ArchiveLimitError(action, "download_bytes", limits.download_bytes,
                                    f"the declared size ({declared:,} bytes)")

        def fetch() -> IO[bytes]:
            location = self._storage_location(path, action)
            return self._fetch_storage(location, action, limits)

        return self.call(fetch, action=action, permission=permission, retry_failures=True)

    def _storage_location(self, path: str, action: str) -> str:
        self._charge()
        status, headers, output = self.gh.requester.requestJson("GET", path)
        if status >= 400:
            raise self.gh.requester.createException(status, headers, _structured(output))
        location = _header(headers, "location")
        if status not in (301, 302, 303, 307, 308) or not location:
            raise GitHubError(f"GitHub answered {status} without a download location while "
                              f"{action}", status=status, action=action,
                              fix="report this: the API should redirect to its storage host")
        return urljoin(self.base_url + "/", location)

    def _fetch_storage(self, location: str, action: str, limits: ArchiveLimits) -> IO[bytes]:
        if not location.startswith(("https://", "http://")):
            raise GitHubError(f"refusing a download location that is not HTTP(S) while {action}",
                              status=None, action=action)
        self._charge()
        with self.storage.get(location, stream=True, timeout=self.timeout,
                              allow_redirects=True) as response:
            if response.status_code >= 400:
                raise _HttpFailure(response.status_code, _small_body(response),
                                   dict(response.headers))
            length = response.headers.get("content-length")
            if length and length.isdigit() and int(length) > limits.download_bytes:
                raise ArchiveLimitError(action, "download_bytes", limits.download_bytes,
                                        f"the served size ({int(length):,} bytes)")
            # in memory, moved to a temporary file past SPOOL_IN_MEMORY: both are complete io
            # objects (tempfile.SpooledTemporaryFile has no seekable(), which zipfile calls,
            # before Python 3.11)
            spool: IO[bytes] = io.BytesIO()
            size = 0
            try:
                for chunk in response.iter_content(65536):
                    size += len(chunk)
                    if size > limits.download_bytes:
                        raise ArchiveLimitError(action, "download_bytes", limits.download_bytes,
                                                f"the download (more than {size:,} bytes)")
                    spool.write(chunk)
                    if size > SPOOL_IN_MEMORY and isinstance(spool, io.BytesIO):
                        disk = tempfile.TemporaryFile()  # noqa: SIM115 - returned to the caller
                        disk.write(spool.getbuffer())
                        spool.close()
                        spool = disk
            except BaseException:
                spool.close()
                raise
            spool.seek(0)
            return spool

    # --- identity ---------------------------------------------------------------------------

    @property
    def login(self) -> str:
        """The token's login: INFX_BOT_LOGIN when the environment names it (the workflows do:
        their Actions or App installation tokens cannot call GET /user, so asking would only
        cost a request), else GET /user, whose 403 falls back to github-actions[bot] — except
        for a GitHub App, whose comments github-actions[bot] would never match."""
        if self._login is None:
            try:
                data = self.get("/user", action="reading the token's user",
                                permission="a user or installation token")
                login = data.get("login") if isinstance(data, dict) else None
                if not isinstance(login, str) or not login:
                    raise GitHubError("unusable answer from GitHub while reading the token's "
                                      "user: no login", status=None, action="reading /user")
                self._login = login
            except GitHubError as exc:
                if exc.status not in (403, 404):
                    raise
                if self._app:
                    raise InfxError(Problem(
                        "the GitHub App's login is unknown (its token cannot read GET /user)",
                        fix=f"set {ENV_BOT_LOGIN} to the App's '<app-slug>[bot]', as the sign-off "
                            "workflows do")) from exc
                self._login = DEFAULT_BOT_LOGIN
        return self._login

    @property
    def identity(self) -> Identity:
        """Who this client writes as (its login, and whether it is a GitHub App's token):
        what `infx.trust` recognises the bot's own comments and statuses by."""
        return Identity(self.login, app=self._app)

    # --- comments ------------------------------------------------------------------------------

    def issue_comments(self, repo: Any, issue_number: int, *, expected: int | None = None,
                       action: str | None = None, permission: str | None = None) -> list[dict]:
        """The conversation comments of an issue / pull request, oldest first (GitHub's JSON)."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/issues/{issue_number}/comments",
                             action=action or f"listing comments on {name}#{issue_number}",
                             permission=permission or "pull-requests: read (or issues: read)", expected=expected)

    def list_comments(self, repo: Any, issue_number: int, *, expected: int | None = None
                      ) -> list[Comment]:
        name = _repo_name(repo)
        items = self.issue_comments(name, issue_number, expected=expected)
        return [parsed(Comment.from_json, c, f"listing comments on {name}#{issue_number}")
                for c in items]

    def issue_comment(self, repo: Any, comment_id: int, *, action: str | None = None,
                      permission: str | None = None) -> dict:
        """One conversation comment (GitHub's JSON: its `issue_url` names the PR it is on)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/issues/comments/{comment_id}",
                        action=action or f"reading comment {comment_id} in {name}",
                        permission=permission or "pull-requests: read (or issues: read)")

    def get_comment(self, repo: Any, comment_id: int) -> Comment:
        name = _repo_name(repo)
        data = self.issue_comment(name, comment_id)
        return parsed(Comment.from_json, data, f"reading comment {comment_id} in {name}")

    def comment_count(self, repo: Any, issue_number: int) -> int | None:
        """How many comments the issue / pull request conversation has (GitHub's own count)."""
        name = _repo_name(repo)
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
        name = _repo_name(repo)
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
        name = _repo_name(repo)
        data = self.call(lambda: self._json("PATCH", f"/repos/{name}/issues/comments/{comment_id}",
                                            body={"body": truncate_body(body)})[1],
                         action=f"editing comment {comment_id} in {name}",
                         permission="pull-requests: write (or issues: write)")
        return parsed(Comment.from_json, data, f"editing comment {comment_id} in {name}")

    # --- pull requests, checks, runs (raw GitHub JSON) --------------------------------------

    # Each endpoint says what it does and which permission it needs; a caller with its own
    # wording for the error messages (the sign-off's "read access") passes `action` /
    # `permission`, which change nothing else of the request.

    def get_pull(self, repo: Any, number: int, *, action: str | None = None,
                 permission: str | None = None) -> dict:
        """The pull request JSON (its `changed_files`, `commits`, `comments` counts let the
        listings below detect truncated pagination)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/pulls/{number}", action=action or f"reading {name}#{number}",
                        permission=permission or "pull-requests: read")

    def list_pulls(self, repo: Any, *, action: str | None = None, permission: str | None = None,
                   **filters: str) -> list[dict]:
        """The repository's pull requests; filters as GitHub's (state, head, base)."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/pulls", params=filters,
                             action=action or f"listing pull requests of {name}",
                             permission=permission or "pull-requests: read")

    def pull_files(self, repo: Any, number: int, *, expected: int | None = None,
                   action: str | None = None, permission: str | None = None) -> list[dict]:
        """The PR's changed files; `expected` (its `changed_files`) past GitHub's 3,000 is an
        error naming the cap, before anything is listed."""
        name = _repo_name(repo)
        capped = pull_cap_error("files", number, expected)
        if capped is not None:
            raise capped
        return self.paginate(f"/repos/{name}/pulls/{number}/files", expected=expected,
                             action=action or f"listing files of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_commits(self, repo: Any, number: int, *, expected: int | None = None,
                     action: str | None = None, permission: str | None = None) -> list[dict]:
        """The PR's commits, oldest first; `expected` (its `commits`) past GitHub's 250 is an
        error naming the cap, before anything is listed."""
        name = _repo_name(repo)
        capped = pull_cap_error("commits", number, expected)
        if capped is not None:
            raise capped
        return self.paginate(f"/repos/{name}/pulls/{number}/commits", expected=expected,
                             action=action or f"listing commits of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_reviews(self, repo: Any, number: int, *, action: str | None = None,
                     permission: str | None = None) -> list[dict]:
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/pulls/{number}/reviews",
                             action=action or f"listing reviews of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_review(self, repo: Any, number: int, review_id: int, *, action: str | None = None,
                    permission: str | None = None) -> dict:
        """One review of a PR (its `commit_id`, `state`, `submitted_at`, `pull_request_url`)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/pulls/{number}/reviews/{review_id}",
                        action=action or f"reading review {review_id} of {name}#{number}",
                        permission=permission or "pull-requests: read")

    def pull_review_comments(self, repo: Any, number: int, *, action: str | None = None,
                             permission: str | None = None) -> list[dict]:
        """The PR's inline review comments."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/pulls/{number}/comments",
                             action=action or f"listing review comments of {name}#{number}",
                             permission=permission or "pull-requests: read")

    def pull_review_comment(self, repo: Any, comment_id: int, *, action: str | None = None,
                            permission: str | None = None) -> dict:
        """One inline review comment (its `pull_request_url` names the PR it is on)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/pulls/comments/{comment_id}",
                        action=action or f"reading review comment {comment_id} in {name}",
                        permission=permission or "pull-requests: read")

    def timeline(self, repo: Any, number: int, *, action: str | None = None,
                 permission: str | None = None) -> list[dict]:
        """An issue / pull request's timeline events (committed, head_ref_force_pushed, …)."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/issues/{number}/timeline",
                             action=action or f"listing the timeline of {name}#{number}",
                             permission=permission or "pull-requests: read (or issues: read)")

    def compare(self, repo: Any, base: str, head: str, *, action: str | None = None,
                permission: str | None = None) -> Any:
        """GitHub's three-dot compare of `head` with its merge base with `base` (its JSON)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/compare/{base}...{head}",
                        action=action or f"comparing {head[:12]} with {base}",
                        permission=permission or "contents: read")

    def get_branch(self, repo: Any, branch: str, *, action: str | None = None,
                   permission: str | None = None) -> dict:
        """A branch (its `commit.sha` is the tip)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/branches/{branch}",
                        action=action or f"reading branch {branch} of {name}",
                        permission=permission or "contents: read")

    def get_commit(self, repo: Any, sha: str, *, action: str | None = None,
                   permission: str | None = None) -> Any:
        """A commit (its `parents`, files and stats)."""
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/commits/{sha}", action=action or f"reading commit {sha[:12]}",
                        permission=permission or "contents: read")

    def commit_pulls(self, repo: Any, sha: str, *, action: str | None = None,
                     permission: str | None = None) -> list[dict]:
        """The pull requests a commit belongs to (GitHub's own association)."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/commits/{sha}/pulls",
                             action=action or f"listing the pull requests of commit {sha[:12]}",
                             permission=permission or "pull-requests: read")

    def check_runs(self, repo: Any, sha: str, *, latest: bool = True, action: str | None = None,
                   permission: str | None = None) -> list[dict]:
        """Check runs on a commit (`latest`: the newest run per name, GitHub's default)."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/commits/{sha}/check-runs", list_key="check_runs",
                             params={"filter": "latest" if latest else "all"},
                             action=action or f"listing check runs of {sha[:12]}",
                             permission=permission or "checks: read")

    def suite_check_runs(self, repo: Any, suite_id: int, *, latest: bool = True,
                         action: str | None = None, permission: str | None = None) -> list[dict]:
        """Check runs of one check suite (a workflow run's): narrower than a commit's listing."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/check-suites/{suite_id}/check-runs",
                             list_key="check_runs",
                             params={"filter": "latest" if latest else "all"},
                             action=action or f"listing check runs of check suite {suite_id}",
                             permission=permission or "checks: read")

    def named_check_runs(self, repo: Any, sha: str, name: str) -> list[CheckRun]:
        """The check runs of one name on a commit, every app's (GitHub's `check_name` filter)."""
        repo_name = _repo_name(repo)
        what = f"listing the {name} check runs of {sha[:12]}"
        items = self.paginate(f"/repos/{repo_name}/commits/{sha}/check-runs", list_key="check_runs",
                              params={"check_name": name, "filter": "all"}, action=what,
                              permission="checks: read")
        return [parsed(CheckRun.from_json, item, what) for item in items]

    def check_run_annotations(self, repo: Any, check_run_id: int) -> list[Annotation]:
        """The annotations a check run holds, in the order they were added."""
        repo_name = _repo_name(repo)
        what = f"listing the annotations of check run {check_run_id}"
        items = self.paginate(f"/repos/{repo_name}/check-runs/{check_run_id}/annotations",
                              action=what, permission="checks: read")
        return [parsed(_annotation, item, what) for item in items]

    def create_check_run(self, repo: Any, sha: str, name: str, output: CheckOutput, *,
                         conclusion: str, details_url: str | None = None,
                         external_id: str = "") -> CheckRun:
        """Create a completed check run of this token's app with `output`'s first 50
        annotations (the rest are appended by `update_check_run`). A retried POST never makes
        a second one: a check run of this name and `external_id` already there is it."""
        repo_name = _repo_name(repo)
        body = {"name": name, "head_sha": sha, "status": "completed",
                "conclusion": _conclusion(conclusion),
                "output": _output_json(output, output.annotations[:MAX_ANNOTATIONS_PER_REQUEST])}
        if details_url:
            body["details_url"] = details_url
        if external_id:
            body["external_id"] = external_id
        what = f"creating the {name} check run on {sha[:12]}"

        def already_done() -> CheckRun | None:
            if not external_id:
                return None
            return next((run for run in self.named_check_runs(repo, sha, name)
                         if run.external_id == external_id), None)

        data = self.call(lambda: self._json("POST", f"/repos/{repo_name}/check-runs", body=body)[1],
                         action=what, permission="checks: write", post=True,
                         already_done=already_done)
        return data if isinstance(data, CheckRun) else parsed(CheckRun.from_json, data, what)

    def update_check_run(self, repo: Any, check_run_id: int, output: CheckOutput,
                         annotations: tuple[Annotation, ...] | None = None, *,
                         conclusion: str | None = None, details_url: str | None = None,
                         external_id: str | None = None) -> CheckRun:
        """Update a check run in place (only its own app may): the output's title, summary and
        text, and `annotations` (at most 50; GitHub appends them to the run's earlier ones;
        None: the output's first 50)."""
        repo_name = _repo_name(repo)
        batch = output.annotations[:MAX_ANNOTATIONS_PER_REQUEST] if annotations is None else annotations
        if len(batch) > MAX_ANNOTATIONS_PER_REQUEST:
            raise ValueError(f"at most {MAX_ANNOTATIONS_PER_REQUEST} annotations per request")
        body: dict[str, Any] = {"output": _output_json(output, batch)}
        if conclusion is not None:
            body |= {"status": "completed", "conclusion": _conclusion(conclusion)}
        if details_url:
            body["details_url"] = details_url
        if external_id is not None:
            body["external_id"] = external_id
        what = f"updating check run {check_run_id}"
        data = self.call(lambda: self._json("PATCH", f"/repos/{repo_name}/check-runs/{check_run_id}",
                                            body=body)[1],
                         action=what, permission="checks: write", post=True)
        return parsed(CheckRun.from_json, data, what)

    def statuses(self, repo: Any, sha: str, *, action: str | None = None,
                 permission: str | None = None) -> list[dict]:
        """Commit statuses, newest first."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/commits/{sha}/statuses",
                             action=action or f"listing statuses of {sha[:12]}",
                             permission=permission or "statuses: read")

    def workflow_runs(self, repo: Any, *, action: str | None = None, permission: str | None = None,
                      **filters: str) -> list[dict]:
        """Workflow runs, newest first; filters as GitHub's (head_sha, event, status, branch)."""
        name = _repo_name(repo)
        return self.paginate(f"/repos/{name}/actions/runs", list_key="workflow_runs",
                             params=filters, action=action or f"listing workflow runs of {name}",
                             permission=permission or "actions: read")

    def get_run(self, repo: Any, run_id: int, *, action: str | None = None,
                permission: str | None = None) -> dict:
        name = _repo_name(repo)
        return self.get(f"/repos/{name}/actions/runs/{run_id}",
                        action=action or f"reading workflow run {run_id}",
                        permission=permission or "actions: read")

    def run_jobs(self, repo: Any, run_id: int, *, attempt: int | None = None,
                 latest: bool = True) -> list[Job]:
        """The jobs of a workflow run. Default: each job's result in the run's latest attempt
        (`filter=latest`; jobs not re-run keep their earlier result); `latest=False`: every
        attempt's jobs; `attempt=n`: the jobs recorded for attempt n only."""
        name = _repo_name(repo)
        if attempt is not None:
            path = f"/repos/{name}/actions/runs/{run_id}/attempts/{int(attempt)}/jobs"
            params: dict = {}
            what = f"listing jobs of run {run_id} attempt {attempt}"
        else:
            path = f"/repos/{name}/actions/runs/{run_id}/jobs"
            params = {"filter": "latest" if latest else "all"}
            what = f"listing jobs of run {run_id}"
        items = self.paginate(path, list_key="jobs", params=params, action=what,
                              permission="actions: read")
        return [parsed(Job.from_json, item, what) for item in items]

    def rerun_failed_jobs(self, repo: Any, run_id: int) -> None:
        """Ask GitHub to re-run a finished run's failed (and cancelled) jobs and the jobs that
        depend on them, as a new attempt of the same run."""
        name = _repo_name(repo)
        self.call(lambda: self._json("POST", f"/repos/{name}/actions/runs/{int(run_id)}/rerun-failed-jobs",
                                     body={})[1],
                  action=f"re-running the failed jobs of run {run_id}", permission="actions: write",
                  post=True)

    def codeowners_errors(self, repo: Any, ref: str | None = None, *, action: str | None = None,
                          permission: str | None = None) -> list[dict]:
        """GitHub's own CODEOWNERS syntax errors at a ref."""
        name = _repo_name(repo)
        data = self.get(f"/repos/{name}/codeowners/errors", params={"ref": ref} if ref else None,
                        action=action or f"reading CODEOWNERS errors of {name}",
                        permission=permission or "contents: read")
        if not isinstance(data, dict) or not isinstance(data.get("errors", []), list):
            raise GitHubError(f"unusable answer from GitHub while reading CODEOWNERS errors of "
                              f"{name}", status=None, action="reading CODEOWNERS errors")
        return list(data.get("errors", []))

    # --- statuses and reactions ----------------------------------------------------------------

    def create_status(self, repo: Any, sha: str, state: str, context: str,
                      description: str = "", target_url: str | None = None) -> dict:
        """Set a commit status; the description is cut to GitHub's 140 characters."""
        if state not in STATUS_STATES:
            raise ValueError(f"status state must be one of {STATUS_STATES}, not {state!r}")
        name = _repo_name(repo)
        description = clip(description, MAX_STATUS_DESCRIPTION)
        body = {"state": state, "context": context, "description": description}
        if target_url:
            body["target_url"] = target_url
        return self.call(lambda: self._json("POST", f"/repos/{name}/statuses/{sha}", body=body)[1],
                         action=f"setting status {context}={state} on {sha[:12]}",
                         permission="statuses: write", post=True)

    def repository_dispatch(self, repo: Any, event_type: str, payload: dict) -> None:
        """Send a `repository_dispatch` event (workflows and apps subscribed to it receive it)."""
        name = _repo_name(repo)
        self.call(lambda: self._json("POST", f"/repos/{name}/dispatches",
                                     body={"event_type": event_type, "client_payload": payload}),
                  action=f"sending the {event_type} repository_dispatch to {name}",
                  permission="contents: write", post=True)

    def workflow_dispatch(self, repo: Any, workflow: str, ref: str, inputs: dict[str, str]) -> None:
        """Start a run of `workflow` (its file name) on the branch `ref` with `inputs`
        (`workflow_dispatch`; GitHub answers 204 and names no run)."""
        name = _repo_name(repo)
        self.call(lambda: self._json("POST", f"/repos/{name}/actions/workflows/{quote(workflow)}/dispatches",
                                     body={"ref": ref, "inputs": dict(inputs)}),
                  action=f"dispatching {workflow} on {ref}", permission="actions: write", post=True)

    def remove_label(self, repo: Any, issue_number: int, label: str) -> bool:
        """Take a label off an issue or PR; False when it was not on it (404)."""
        name = _repo_name(repo)
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
        name = _repo_name(repo)
        return self.call(
            lambda: self._json("POST", f"/repos/{name}/issues/comments/{comment_id}/reactions",
                               body={"content": content})[1],
            action=f"reacting {content} to comment {comment_id}",
            permission="pull-requests: write (or issues: write)", post=True)

    def remove_reaction(self, repo: Any, comment_id: int, content: str) -> int:
        """Delete the bot's own reactions of one kind; returns how many were removed."""
        name = _repo_name(repo)
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

    # --- people ------------------------------------------------------------------------------

    def collaborator_permission(self, repo: Any, user: str) -> Permission:
        """A user's repository permission; someone without access is `none` (404)."""
        name = _repo_name(repo)
        data = self.get_or_none(f"/repos/{name}/collaborators/{quote(user)}/permission",
                                action=f"reading {user}'s permission on {name}",
                                permission="metadata: read (push access to list collaborators)")
        if data is None:
            return Permission("none", "none")
        if not isinstance(data, dict) or not isinstance(data.get("permission"), str):
            raise GitHubError(f"unusable answer from GitHub while reading {user}'s permission",
                              status=None, action=f"reading {user}'s permission on {name}")
        return Permission(data["permission"], str(data.get("role_name") or data["permission"]))

    def team_membership(self, org: str, team_slug: str, user: str) -> str | None:
        """`active` / `pending`, or None on 404 — which means "not a member" OR "this token may
        not read the team" (GITHUB_TOKEN never can): callers must not treat None as proof."""
        data = self.get_or_none(f"/orgs/{org}/teams/{team_slug}/memberships/{quote(user)}",
                                action=f"reading {user}'s membership of @{org}/{team_slug}",
                                permission="members: read (org) — a GitHub App or PAT with read:org")
        return data.get("state") if isinstance(data, dict) else None

    def team_visible(self, org: str, team_slug: str) -> bool:
        """Whether this token can see the team at all (a 404 on a membership is only a "no"
        when it can): Actions' GITHUB_TOKEN cannot; an App with Members: read can."""
        data = self.get_or_none(f"/orgs/{org}/teams/{team_slug}",
                                action=f"reading team @{org}/{team_slug}",
                                permission="members: read (org) — a GitHub App or PAT with read:org")
        return isinstance(data, dict)

    # --- files and trees -------------------------------------------------------------------------

    def file_at(self, repo: Any, path: str, ref: str) -> str | None:
        """A file's text at a commit or branch, or None when it does not exist there."""
        name = _repo_name(repo)
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

    def _raw(self, path: str, params: dict) -> bytes:
        self._charge()
        status, headers, output = self.gh.requester.requestJson(
            "GET", path, parameters=params, headers={"Accept": "application/vnd.github.raw+json"})
        if status >= 400:
            raise self.gh.requester.createException(status, headers, _structured(output))
        return output.encode("utf-8") if isinstance(output, str) else bytes(output)

    def tree_at(self, repo: Any, ref: str, *, wanted: Wanted | None = None) -> dict[str, str]:
        """The text files of the repository at `ref` (one tarball download, streamed under
        the archive caps); `wanted(path)` picks the paths kept (default: all)."""
        name = _repo_name(repo)
        action = f"downloading {name} at {ref[:12]}"
        with self.download(f"/repos/{name}/tarball/{quote(ref, safe='')}", action=action,
                           permission="contents: read") as blob:
            return read_tarball(blob, f"the tarball of {name} at {ref[:12]}", self.limits, wanted)

    # --- actions ----------------------------------------------------------------------------

    def run_artifacts(self, repo: Any, run_id: int) -> list[Artifact]:
        name = _repo_name(repo)
        items = self.paginate(f"/repos/{name}/actions/runs/{run_id}/artifacts",
                              action=f"listing artifacts of run {run_id}",
                              permission="actions: read", list_key="artifacts")
        return [parsed(Artifact.from_json, a, f"listing artifacts of run {run_id}") for a in items]

    def download_artifact(self, repo: Any, artifact_id: int, *, name: str | None = None,
                          size_in_bytes: int | None = None,
                          wanted: Wanted | None = None) -> dict[str, bytes]:
        """An artifact's members (name -> bytes), read under the archive caps; a listed
        `size_in_bytes` over the download cap fails before downloading. Expired artifacts
        raise a 410 GitHubError; an archive over a cap raises ArchiveLimitError."""
        repo_name = _repo_name(repo)
        label = f"artifact {name} ({artifact_id})" if name else f"artifact {artifact_id}"
        with self.download(f"/repos/{repo_name}/actions/artifacts/{artifact_id}/zip",
                           action=f"downloading {label}", permission="actions: read",
                           declared=size_in_bytes) as blob:
            return read_zip(blob, label, self.limits, wanted)


def _annotation(data: dict) -> Annotation:
    return Annotation(path=data["path"], start_line=int(data["start_line"]),
                      end_line=int(data["end_line"]), level=data["annotation_level"],
                      message=data.get("message") or "", title=data.get("title") or "")


def _conclusion(value: str) -> str:
    if value not in CHECK_CONCLUSIONS:
        raise ValueError(f"check run conclusion must be one of {CHECK_CONCLUSIONS}, not {value!r}")
    return value


def _output_json(output: CheckOutput, annotations: tuple[Annotation, ...]) -> dict:
    # the text is always sent: an update without one would leave the previous verdict's
    out: dict[str, Any] = {"title": output.title, "summary": fit(output.summary),
                           "text": fit(output.text)}
    if annotations:
        out["annotations"] = [a.to_json() for a in annotations]
    return out


def _distinct(items: list[dict]) -> list[dict]:
    """Items in listing order, each id once (a page boundary that moved repeats one)."""
    seen: set = set()
    out = []
    for item in items:
        key = item.get("id", id(item))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _json_or_text(response: Any) -> Any:
    if response is None:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def _next_link(link_header: str) -> str | None:
    for part in link_header.split(","):
        section = part.split(";")
        if len(section) >= 2 and section[1].strip() == 'rel="next"':
            return section[0].strip().strip("<>")
    return None


def parsed(kind: Callable[[Any], T], data: Any, action: str) -> T:
    """A plain result from GitHub JSON; a body missing what it must have is a GitHubError."""
    try:
        return kind(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise GitHubError(f"unusable answer from GitHub while {action}: missing or wrong "
                          f"{exc}", status=None, action=action) from None


def _structured(output: Any) -> Any:
    if not output:
        return None
    try:
        return json.loads(output)
    except ValueError:
        return {"message": str(output)[:200]}


def _small_body(response: Any) -> Any:
    """An error answer's body, read only up to MAX_ERROR_BODY bytes."""
    try:
        raw = response.raw.read(MAX_ERROR_BODY, decode_content=True) if response.raw else b""
    except Exception:  # noqa: BLE001 - the status alone still explains the failure
        return ""
    return _structured(raw.decode("utf-8", "replace"))


class _HttpFailure(Exception):
    """An error status from a storage host (mapped like any GitHub error)."""

    def __init__(self, status: int, data: Any, headers: dict) -> None:
        super().__init__(status)
        self.status, self.data, self.headers = status, data, headers
