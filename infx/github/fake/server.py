"""A loopback HTTP server answering GitHub REST calls from a world, with faults and a request log."""

from __future__ import annotations

import copy
import email.utils
import hashlib
import json
import re
import selectors
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from infx.errors import InfxError, Problem
from infx.github.fake import permissions, routes
from infx.github.fake.http import HttpError, Request, Response
from infx.github.fake.world import load_world

MAX_PER_PAGE = 100
DEFAULT_PER_PAGE = 30
MAX_KEPT_LISTINGS = 8
FAKE_TOKEN = "fake-token"  # noqa: S105 - the fake server accepts any token


@dataclass
class Fault:
    """One `faults:` entry with its remaining count (None = every matching request) and how
    many matching requests it still lets pass before acting (`after`)."""

    method: str | None
    path: re.Pattern
    status: int | None
    headers: dict[str, str]
    message: str | None
    remaining: int | None
    apply: bool
    truncate: bool
    skip: int = 0
    delay: float = 0.0
    body: str | None = None
    reset_in: int | None = None

    @classmethod
    def from_world(cls, entry: dict) -> Fault:
        return cls(
            method=entry.get("method", "").upper() or None, path=re.compile(entry["path"]),
            status=entry.get("status"),
            headers={k: str(v) for k, v in (entry.get("headers") or {}).items()},
            message=entry.get("message"), remaining=entry.get("times"),
            apply=bool(entry.get("apply")), truncate=bool(entry.get("truncate")),
            skip=int(entry.get("after") or 0), delay=float(entry.get("delay") or 0.0),
            body=entry.get("body"), reset_in=entry.get("reset_in"),
        )

    @property
    def answers(self) -> bool:
        """Whether this fault replaces the answer (otherwise it only delays or truncates)."""
        return self.status is not None or self.body is not None or self.reset_in is not None

    def matches(self, method: str, path: str) -> bool:
        if self.remaining is not None and self.remaining <= 0:
            return False
        return (self.method in (None, method)) and bool(self.path.search(path))

    def error_body(self, status: int) -> dict:
        default = ("API rate limit exceeded for installation." if self.reset_in is not None
                   else _DEFAULT_MESSAGES.get(status, "Server Error"))
        message = self.message or default
        return {"message": message, "documentation_url": "https://docs.github.com/rest"}


_DEFAULT_MESSAGES = {
    401: "Bad credentials", 403: "Forbidden", 404: "Not Found", 410: "Gone",
    422: "Validation Failed", 429: "Too Many Requests", 500: "Server Error",
    502: "Server Error", 503: "Service Unavailable", 504: "Gateway Timeout",
}


_OBSERVERS: list[Callable[[dict[str, Any]], None]] = []


@contextmanager
def observe() -> Iterator[list[dict[str, Any]]]:
    """Collect every exchange any FakeGitHub in this process answers while the block runs:
    method, path, query, origin, status, route (the matched pattern, None when no route
    served it), response headers and body bytes (for conformance tests)."""
    seen: list[dict[str, Any]] = []
    _OBSERVERS.append(seen.append)
    try:
        yield seen
    finally:
        _OBSERVERS.remove(seen.append)


class _Server(ThreadingHTTPServer):
    """The HTTP server, quiet when a client goes away mid-answer (a client that stopped waiting,
    as GitHub's clients do): socketserver would print that as a traceback on stderr, into the
    output of whatever command is being served. Any other handler failure is still printed."""

    timeout = 0  # handle_request() accepts what the loop's select saw; it never waits for more

    def __init__(self, *args: Any) -> None:
        self._wake, self._waker = socket.socketpair()  # before binding: a failed bind closes both
        super().__init__(*args)

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)

    def serve_until_stopped(self) -> None:
        """Accept connections until `stop_serving`. The loop sleeps on the listening socket and
        a wake-up socket together, so a stop ends it at once (socketserver's own loop polls,
        and every stop waited out part of its interval: two servers, thousands per test run)."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake, selectors.EVENT_READ)
            while True:
                if any(key.fileobj is self._wake for key, _ in selector.select()):
                    return
                self.handle_request()  # the listening socket was readable; with timeout 0 it never blocks

    def stop_serving(self) -> None:
        self._waker.send(b"\0")

    def server_close(self) -> None:
        super().server_close()
        self._wake.close()
        self._waker.close()


class FakeGitHub:
    """A running fake server: `.url`, `.requests` (the log), `.world` (live state), `.github()`."""

    def __init__(self, world: dict | str | Path, port: int = 0, host: str = "127.0.0.1") -> None:
        self.state = routes.State(load_world(world))
        routes.assign_reaction_ids(self.state.world)
        self.faults = [Fault.from_world(f) for f in self.state.world["faults"]]
        self.requests: list[dict[str, Any]] = []
        # the listing each paginated GET derived on its first page, for its later pages: a
        # page then costs its own size (slice, shape, encode), not the whole list's; any
        # write, and every first page, derives afresh
        self._listings: dict[tuple, Response] = {}
        try:
            self._server = _Server((host, port), _handler_for(self, "api"))
        except OSError as exc:
            raise InfxError(Problem(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                                    key="port", fix="choose another --port, or 0 for any")) from None
        # downloads (artifacts, tarballs, logs) come from a second origin, like GitHub's
        # signed blob storage: another port, addressed by another host name
        self._storage = _Server((host, 0), _handler_for(self, "storage"))
        self._server.daemon_threads = self._storage.daemon_threads = True
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def storage_url(self) -> str:
        """The download host's base URL (`localhost` when the API is on 127.0.0.1)."""
        host, port = self._storage.server_address[:2]
        return f"http://{'localhost' if host == '127.0.0.1' else host}:{port}"

    @property
    def world(self) -> dict:
        return self.state.world

    def start(self) -> FakeGitHub:
        for server, name in ((self._server, "fake-github"), (self._storage, "fake-storage")):
            thread = threading.Thread(target=server.serve_until_stopped, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        threads, self._threads = self._threads, []
        for server in (self._server, self._storage):
            if threads:
                server.stop_serving()
        for thread in threads:
            thread.join(timeout=5)
        for server in (self._server, self._storage):
            server.server_close()

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def add_fault(self, **entry: Any) -> None:
        """Inject a fault at run time (same keys as a `faults:` entry)."""
        with self.state.lock:
            self.faults.append(Fault.from_world(entry))

    def github(self, **kwargs: Any):
        """A PyGithub client for this server (no throttling, no retries unless asked)."""
        from github import Auth, Github

        options = {"per_page": 100, "retry": None, "seconds_between_requests": None,
                   "seconds_between_writes": None, "timeout": 10} | kwargs
        return Github(base_url=self.url, auth=Auth.Token(FAKE_TOKEN), **options)

    def env(self) -> dict[str, str]:
        """Environment that points `GitHubClient.from_env` at this server."""
        return {"GITHUB_API_URL": self.url, "GITHUB_TOKEN": FAKE_TOKEN}

    def client(self, limits: Any = None, *, app_login: str | None = None, **policy: Any):
        """A `GitHubClient` for this server (optionally with other archive `limits`); by
        default retries never really sleep. With `app_login` the client is a GitHub App's
        of that `<app>[bot]` login (set the world's `token_login` to it, as GitHub would)."""
        from infx.github.client import GitHubClient
        from infx.github.retry import RetryPolicy

        policy.setdefault("sleep", lambda seconds: None)
        return GitHubClient(token=FAKE_TOKEN, base_url=self.url, policy=RetryPolicy(**policy),
                            limits=limits, bot_login=app_login, app=app_login is not None)

    def count(self, method: str | None = None, path: str = "") -> int:
        """How many recorded requests match a method and a path regex."""
        return len(self.matching(method, path))

    def matching(self, method: str | None = None, path: str = "") -> list[dict[str, Any]]:
        pattern = re.compile(path)
        return [r for r in self.requests
                if method in (None, r["method"]) and pattern.search(r["path"])]

    def dump(self, path: str | Path) -> None:
        """Write the current world (with every applied write) as YAML."""
        import yaml

        with self.state.lock:
            snapshot = copy.deepcopy(self.state.world)
        Path(path).write_text(yaml.safe_dump(snapshot, sort_keys=False, allow_unicode=True))

    # --- request handling ---------------------------------------------------------------

    def handle(self, req: Request) -> tuple[int, dict[str, str], bytes]:
        with self.state.lock:
            fault = self._fault_for(req)
        if fault is not None and fault.delay > 0:
            time.sleep(fault.delay)  # a slow answer (outside the lock: others go on)
        with self.state.lock:
            if fault is not None and fault.answers and not fault.apply:
                status, headers, body = self._fault_answer(fault)
            else:
                status, headers, body = self._answer(req, truncate=bool(fault and fault.truncate))
                if fault is not None and fault.answers:
                    status, headers, body = self._fault_answer(fault)
            self.requests.append({"method": req.method, "path": req.path, "query": req.query,
                                  "status": status, "body": req.body, "origin": req.origin,
                                  "authorization": bool(req.headers.get("authorization")),
                                  "faulted": bool(fault is not None and fault.answers)})
            if _OBSERVERS:
                found = routes.match(req.method, req.path, req.origin)
                exchange = {"method": req.method, "path": req.path, "query": dict(req.query),
                            "origin": req.origin, "status": status, "headers": dict(headers),
                            "body": body, "request_body": req.body, "faulted": fault is not None,
                            "route": found[0].__name__ if found else None}
                for observer in list(_OBSERVERS):
                    observer(exchange)
        return status, headers, body

    def _fault_for(self, req: Request) -> Fault | None:
        """The first live matching fault, counting the request against it. Every entry still
        letting requests pass sees this one, even when an earlier entry answers it, so
        `after: N` always means "the (N+1)-th matching request and later"."""
        chosen = None
        for fault in self.faults:
            if not fault.matches(req.method, req.path):
                continue
            if fault.skip > 0:
                fault.skip -= 1
            elif chosen is None:
                chosen = fault
        if chosen is not None and chosen.remaining is not None:
            chosen.remaining -= 1
        return chosen

    def _fault_answer(self, fault: Fault) -> tuple[int, dict[str, str], bytes]:
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if fault.reset_in is not None:  # the primary rate limit, used up until a future reset
            headers |= {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
                        "X-RateLimit-Used": "5000", "X-RateLimit-Resource": "core",
                        "X-RateLimit-Reset": str(int(time.time()) + int(fault.reset_in))}
        headers |= fault.headers
        if fault.body is not None:  # a body that is not what its status and type claim
            return fault.status or 200, headers, fault.body.encode()
        status = fault.status or (403 if fault.reset_in is not None else 500)
        return status, headers, json.dumps(fault.error_body(status)).encode()

    def _answer(self, req: Request, truncate: bool) -> tuple[int, dict[str, str], bytes]:
        if req.method != "GET":
            self._listings.clear()
        key = _listing_key(req)
        found = routes.matched_route(req.method, req.path, req.origin)
        try:
            if isinstance(req.body, str):
                raise HttpError(400, "Problems parsing JSON")
            if found is None:
                raise HttpError(404, "Not Found")
            pattern, handler, params = found
            refused = self._refusal(req, pattern)
            if refused is not None:
                return refused
            params = {k: unquote(v) if v is not None else None for k, v in params.items()}
            response = self._listings.get(key) if key is not None and _page(req) > 1 else None
            if response is None:
                response = handler(self.state, req, **params)
                if key is not None and response.items is not None:
                    if len(self._listings) >= MAX_KEPT_LISTINGS:
                        self._listings.pop(next(iter(self._listings)))
                    self._listings[key] = response
        except HttpError as exc:
            return _error(exc)
        except Exception as exc:  # noqa: BLE001 - a bug in a route must still answer
            return _error(HttpError(500, f"fake server error in {req.method} {req.path}: "
                                         f"{type(exc).__name__}: {exc}"))
        if response.items is not None:
            response = paginate(req, response, truncate)
        return encode(response)


    def _refusal(self, req: Request, pattern: str) -> tuple[int, dict[str, str], bytes] | None:
        """GitHub's 403 when the token lacks the permission the route needs (storage links
        are signed and carry no token; a world without `token_permissions` grants all)."""
        if req.origin != "api":
            return None
        header = req.headers.get("authorization", "")
        token = header.split(" ", 1)[1].strip() if " " in header else header
        held = self.state.tokens.get(token, self.state.world.get("token_permissions"))
        if held is None:
            return None
        need = permissions.need_of(req.method, pattern, routes.REPO)
        if need is not None and permissions.allows(permissions.grant(held), need):
            return None  # a route the table does not list is refused (fail closed)
        status, headers, body = _error(HttpError(403, permissions.DENIED))
        if need:
            headers["X-Accepted-GitHub-Permissions"] = permissions.accepted_header(need)
        return status, headers, body


def _listing_key(req: Request) -> tuple | None:
    """What identifies one listing across its pages (None: not a GET)."""
    if req.method != "GET":
        return None
    query = tuple(sorted((k, v) for k, v in req.query.items() if k not in ("page", "per_page")))
    return req.origin, req.path, query, req.headers.get("accept", "")


def _page(req: Request) -> int:
    try:
        return int(req.query.get("page", 1))
    except ValueError:
        return 1


def _error(exc: HttpError) -> tuple[int, dict[str, str], bytes]:
    return exc.status, {"Content-Type": "application/json; charset=utf-8"}, \
        json.dumps(exc.body()).encode()


def paginate(req: Request, response: Response, truncate: bool) -> Response:
    """Slice `items` by per_page/page, shape only that page, and add GitHub's Link header.

    A list with a `cap` is served like GitHub's capped listings: the results past the cap are
    never served (no page links to them), while `total_count` still counts every one."""
    try:
        per_page = min(max(int(req.query.get("per_page", DEFAULT_PER_PAGE)), 1), MAX_PER_PAGE)
        page = max(int(req.query.get("page", 1)), 1)
    except ValueError:
        per_page, page = DEFAULT_PER_PAGE, 1
    items = response.items or []
    served = len(items) if response.cap is None else min(len(items), response.cap)
    last = max((served + per_page - 1) // per_page, 1)
    start = min((page - 1) * per_page, served)
    chunk = items[start:min(page * per_page, served)]
    if response.shape is not None:
        chunk = [response.shape(item) for item in chunk]
    links = []

    def link(number: int, rel: str) -> str:
        query = dict(req.query) | {"per_page": str(per_page), "page": str(number)}
        return f'<{req.api}{req.path}?{urlencode(query)}>; rel="{rel}"'

    if page > 1:
        links.append(link(page - 1, "prev"))
    if page < last and not truncate:
        links += [link(page + 1, "next"), link(last, "last")]
    if page > 1:
        links.append(link(1, "first"))
    headers = dict(response.headers)
    if links:
        headers["Link"] = ", ".join(links)
    body: Any = chunk if response.list_key is None else {"total_count": len(items),
                                                          response.list_key: chunk}
    return Response(status=response.status, body=body, headers=headers,
                    content_type=response.content_type)


def encode(response: Response) -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": response.content_type} | response.headers
    if response.status == 204:
        return 204, headers, b""
    if isinstance(response.body, bytes):
        return response.status, headers, response.body
    return response.status, headers, json.dumps(response.body).encode()


def _handler_for(fake: FakeGitHub, origin: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes
        server_version = "infx-fake-github"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass  # the request log is fake.requests

        def date_time_string(self, timestamp: float | None = None) -> str:
            # the `Date` header is the world's clock, as GitHub's is the evidence's clock
            now = datetime.fromisoformat(str(fake.state.world["now"]).replace("Z", "+00:00"))
            return email.utils.formatdate(now.timestamp(), usegmt=True)

        def _serve(self) -> None:
            split = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            host = self.headers.get("Host") or "{}:{}".format(*self.server.server_address[:2])
            req = Request(
                method=self.command, path=split.path or "/",
                query=dict(parse_qsl(split.query, keep_blank_values=True)),
                headers={k.lower(): v for k, v in self.headers.items()}, body=body,
                api=f"http://{host}" if origin == "api" else fake.url,
                storage=fake.storage_url, origin=origin,
            )
            status, headers, payload = fake.handle(req)
            self.send_response(status)
            headers = headers | {"Content-Length": str(len(payload)),
                                 "X-GitHub-Api-Version-Selected": "2022-11-28"}
            present = {key.lower() for key in headers}
            if origin == "api" and "x-ratelimit-remaining" not in present:
                used = min(len(fake.requests), 5000)
                headers |= {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": str(5000 - used),
                            "X-RateLimit-Used": str(used), "X-RateLimit-Resource": "core",
                            "X-RateLimit-Reset": str(int(time.time()) + 3600)}
            if self.command == "GET" and status == 200 and "etag" not in present:
                headers["ETag"] = 'W/"' + hashlib.sha256(payload).hexdigest()[:40] + '"'
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve

    return Handler
