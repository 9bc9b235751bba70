"""Request/response values passed between the fake server's HTTP plumbing and its routes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DOCS = "https://docs.github.com/rest"


@dataclass
class Request:
    """One parsed HTTP request; `api` is the server's base URL as the client addressed it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    api: str
    storage: str = ""  # the download host's base URL (a second origin, like blob storage)
    origin: str = "api"  # which of the two listeners received it: "api" or "storage"


@dataclass
class Response:
    """A JSON body (or raw bytes), or a list to paginate (`items`, optionally under `list_key`).

    `items` are the world's records; `shape` turns one into its JSON, and is applied only to
    the page served (so a page costs its own size, not the list's). `cap`: GitHub serves at
    most this many results of the list (later pages are empty; `total_count` still counts all).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json; charset=utf-8"
    items: list | None = None
    list_key: str | None = None
    shape: Callable[[Any], Any] | None = None
    cap: int | None = None


class HttpError(Exception):
    """A GitHub-style error answer: status plus `{"message", "documentation_url"}`."""

    def __init__(self, status: int, message: str, errors: list | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors

    def body(self) -> dict:
        body: dict[str, Any] = {"message": self.message, "documentation_url": DOCS}
        if self.errors:
            body["errors"] = self.errors
        body["status"] = str(self.status)
        return body


def not_found() -> HttpError:
    return HttpError(404, "Not Found")
