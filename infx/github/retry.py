"""How GitHub calls are retried: the policy and its wait budget, GitHub's wait rules, urllib3's retry.

Retries happen at two levels, both bounded by one wait budget per call and one
injectable sleep function:

* inside urllib3 (`BoundedRetry`, installed as PyGithub's `retry=`): idempotent methods
  on 5xx, 429 and 403 + Retry-After, page by page;
* around whole operations (`Transport.call` in `infx.github.transport`): rate limits
  recognised only from the body (secondary limit messages, `x-ratelimit-remaining: 0`),
  and POSTs. POST is never retried blindly: a lost response may still have created the
  comment, so the caller's `already_done` check (re-list, look for the marker) runs before
  every repeat.
"""

from __future__ import annotations

import email.utils
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

from infx.errors import InfxError, Problem

ENV_MAX_WAIT = "INFX_GITHUB_MAX_WAIT"
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"})


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


def header_value(headers: dict | None, name: str) -> str | None:
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
    retry_after = header_value(headers, "retry-after")
    if status is None or status >= 500:
        after = _seconds_until(retry_after, policy.clock()) if retry_after else None
        return after if after is not None else exponential
    if status not in (403, 429):
        return None
    if retry_after is not None:
        after = _seconds_until(retry_after, policy.clock())
        if after is not None:
            return after
    reset = header_value(headers, "x-ratelimit-reset")
    if header_value(headers, "x-ratelimit-remaining") == "0" and reset:
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
