"""infx.github.retry: the wait GitHub's answers ask for, and the policy's budget from the environment."""

from datetime import datetime, timezone

import pytest
from lib.rate_limits import SECONDARY

from infx.github.retry import RetryPolicy, retry_wait

POLICY = RetryPolicy(backoff=1.0, secondary_wait=60.0, clock=lambda: 1_000.0)


@pytest.mark.parametrize("status,headers,message,attempt,expected", [
    (502, {}, "", 0, 1.0),
    (502, {}, "", 2, 4.0),
    (None, {}, "", 1, 2.0),                                             # connection error
    (503, {"Retry-After": "7"}, "", 0, 7.0),
    (403, {"Retry-After": "3"}, "", 0, 3.0),
    (429, {"retry-after": "2"}, "", 3, 2.0),
    (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1030"}, "API rate limit exceeded", 0, 31.0),
    (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "900"}, "", 0, 1.0),
    (403, {}, SECONDARY, 0, 60.0),
    (429, {}, "", 1, 2.0),
    (403, {}, "Resource not accessible by integration", 0, None),      # a real permission error
    (404, {}, "Not Found", 0, None),
    (422, {}, "Validation Failed", 0, None),
])
def test_retry_wait(status, headers, message, attempt, expected):
    assert retry_wait(status, headers, message, attempt, POLICY) == expected


def test_retry_after_as_http_date():
    moment = datetime(2026, 1, 1, 0, 0, 10, tzinfo=timezone.utc)
    policy = RetryPolicy(clock=lambda: moment.timestamp() - 10)
    assert retry_wait(503, {"Retry-After": "Thu, 01 Jan 2026 00:00:10 GMT"}, "", 0, policy) == 10


def test_max_wait_from_environment(monkeypatch):
    monkeypatch.setenv("INFX_GITHUB_MAX_WAIT", "2.5")
    assert RetryPolicy.from_env().max_wait == 2.5
    monkeypatch.setenv("INFX_GITHUB_MAX_WAIT", "soon")
    with pytest.raises(Exception, match="INFX_GITHUB_MAX_WAIT"):
        RetryPolicy.from_env()
