"""infx.github.failures: a final failure's message says what was tried and what is missing."""

import pytest
from lib.rate_limits import SECONDARY

from infx.github.failures import explain


@pytest.mark.parametrize("status,data,needle", [
    (401, {"message": "Bad credentials"}, "GITHUB_TOKEN"),
    (403, {"message": "Resource not accessible by integration"}, "statuses: write"),
    (404, {"message": "Not Found"}, "statuses: write"),
    (403, {"message": SECONDARY}, "rate limit"),
    (410, {"message": "Artifact has expired"}, "gone"),
    (422, {"message": "Validation Failed", "errors": [{"message": "body is too long"}]},
     "body is too long"),
    (502, {"message": "Server Error"}, "gave up after 3 attempt(s)"),
    (None, "connection refused", "no answer"),
])
def test_explain_says_what_is_missing(status, data, needle):
    error = explain(status, data, "setting a status", "statuses: write", attempts=3, waited=1)
    assert needle in str(error)
    assert error.status == status


def test_fork_token_hint():
    error = explain(403, {"message": "Resource not accessible by integration"}, "commenting",
                    "pull-requests: write")
    assert "fork" in str(error)
