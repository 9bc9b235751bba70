"""The core of the GitHub client: the connection, the bounded call, JSON reads, whole listings, downloads."""

from __future__ import annotations

import email.utils
import http.client
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import IO, Any, TypeVar
from urllib.parse import urljoin

import urllib3.exceptions

from infx.errors import InfxError, Problem
from infx.github.app_auth import (
    ENV_APP_ID,
    ENV_APP_INSTALLATION,
    ENV_APP_KEY,
    app_installation_auth,
)
from infx.github.archives import ArchiveLimitError, ArchiveLimits, default_limits
from infx.github.budget import RequestBudget
from infx.github.failures import (
    LISTING_CAP,
    GitHubError,
    ListingCapped,
    explain,
    is_rate_limited,
    message_of,
)
from infx.github.retry import BoundedRetry, RetryPolicy, RetryTally, header_value, retry_wait
from infx.github.urls import DEFAULT_API_URL
from infx.trust import Identity

DEFAULT_BOT_LOGIN = "github-actions[bot]"
ENV_BOT_LOGIN = "INFX_BOT_LOGIN"
PER_PAGE = 100
SPOOL_IN_MEMORY = 4 * 1024 * 1024  # downloads beyond this are spooled to a temporary file
MAX_ERROR_BODY = 64 * 1024
T = TypeVar("T")
_Client = TypeVar("_Client", bound="Transport")


def full_name(repo: Any) -> str:
    """A repository as "owner/name" (given so, or as a PyGithub Repository)."""
    return repo if isinstance(repo, str) else repo.full_name


def _is_loopback(url: str) -> bool:
    return url.startswith(("http://127.0.0.1", "http://localhost", "http://[::1]"))


class Transport:
    """The connection every endpoint goes through: one authenticated PyGithub client, the
    bounded `call`, JSON reads (`get`, `get_or_none`), complete listings (`paginate`),
    downloads from storage hosts, the request budget and the token's identity. The
    endpoint mixins of `infx.github.endpoints` build on it; `infx.github.client` composes
    them into `GitHubClient`."""

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
    def from_env(cls: type[_Client], policy: RetryPolicy | None = None, env: dict | None = None,
                 repo: str | None = None) -> _Client:
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
            return retry_wait(status, headers, message_of(data), attempt, self.policy)
        return None

    def _json(self, verb: str, path: str, *, params: dict | None = None, body: Any = None,
              headers: dict | None = None) -> tuple[dict, Any]:
        self._charge()
        answer_headers, data = self.gh.requester.requestJsonAndCheck(
            verb, path, parameters=params, headers=headers, input=body)
        self.server_date = header_value(answer_headers, "date") or self.server_date
        if (isinstance(data, dict) and isinstance(data.get("data"), str)
                and set(data) <= {"data", "url"}):
            # PyGithub's wrapping of a body that is not JSON (an HTML error page, ...)
            raise ValueError(f"the answer is not JSON: {data['data'][:80]!r}")
        return answer_headers, data

    def _raw(self, path: str, params: dict) -> bytes:
        self._charge()
        status, headers, output = self.gh.requester.requestJson(
            "GET", path, parameters=params, headers={"Accept": "application/vnd.github.raw+json"})
        if status >= 400:
            raise self.gh.requester.createException(status, headers, _structured(output))
        return output.encode("utf-8") if isinstance(output, str) else bytes(output)

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
        location = header_value(headers, "location")
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
