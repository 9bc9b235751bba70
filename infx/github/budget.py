"""A cap on the HTTP requests one piece of work (a verification) sends to GitHub, shared by every reader."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from infx.errors import InfxError


class BudgetExceeded(InfxError):
    """The hard cap on HTTP requests for one piece of work was reached."""


@dataclass
class RequestBudget:
    """HTTP requests sent (every page, redirect, download and retry is one), against `cap`.

    Reads stop at the cap: the request that would pass it is not sent. Inside `uncapped()`
    requests are counted but never refused (a run out of reads must still publish its
    fail-closed verdict and a final status)."""

    cap: int | None
    used: int = 0
    _uncapped: int = 0

    def charge(self, action: str) -> None:
        """Count one request about to be sent; refuse it when the cap is reached."""
        if self._uncapped == 0 and self.cap is not None and self.used >= self.cap:
            raise BudgetExceeded(f"API request budget of {self.cap} HTTP requests reached before "
                                 f"{action}; evidence is incomplete")
        self.used += 1

    def sent(self, count: int) -> None:
        """Count requests already sent without asking (retries of a request under way)."""
        self.used += max(count, 0)

    @contextmanager
    def uncapped(self) -> Iterator[None]:
        self._uncapped += 1
        try:
            yield
        finally:
            self._uncapped -= 1
