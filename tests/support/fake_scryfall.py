"""A loopback HTTP server that speaks Scryfall's documented API, with fault injection, for tests.

Integration and reliability tests point the client at ``FakeScryfall.url`` to exercise pacing,
paging, retries and failure handling over real sockets. The same server also serves plain pages
(``add_page``) so it can stand in for the wiki and card sites the pipeline reads.

Standard library only, and no imports from the project: it is a test double, not project code.
It answers in Scryfall's documented formats (https://scryfall.com/docs/api); what it does and does
not reproduce is listed in README.md beside this file.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

JSON_TYPE = "application/json; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"

# Scryfall's /cards/search pages hold 175 cards (docs, "Search Cards", as of 2026-04).
DEFAULT_PAGE_SIZE = 175

# How often the accept loop checks for shutdown: stop() waits up to this long, once per test.
POLL_INTERVAL_S = 0.01

# Error texts copied from Scryfall's answers; the ones marked "ours" are this double's wording.
NO_MATCH = (
    "Your query didn’t match any cards. Adjust your search terms or refer to the syntax guide "
    "at https://scryfall.com/docs/syntax"
)
ALL_TERMS_IGNORED = "All of your terms were ignored."
NO_CARD = "No card found with the given ID or set code and collector number."
NO_SET = "No set found with the given code."  # ours
NO_ROUTE = "The requested endpoint does not exist."  # ours
PAST_LAST_PAGE = "The requested page is beyond the last page of results."  # ours
RATE_LIMITED = "Too many requests. Slow down and retry after the time given in Retry-After."  # ours

MAINTENANCE_PAGE = b"""<!DOCTYPE html>
<html><head><title>Scryfall is down for maintenance</title></head>
<body><h1>Down for maintenance</h1><p>We'll be back shortly.</p></body></html>
"""

# Every fault kind with the parameters it accepts and their defaults.
FAULT_KINDS: dict[str, dict] = {
    "429": {"retry_after": 1},  # seconds, or any string (an HTTP date); None omits the header
    "500": {"html": False, "retry_after": None},
    "503": {"html": False, "retry_after": None},
    "truncated": {},
    "invalid_json": {},
    "maintenance_html": {},
    "slow": {"delay": 1.0},
    "oversized": {"size": 1 << 20},  # bytes
    "redirect": {"location": "http://example.invalid/moved", "status": 302},
    "reset": {},
    "hang": {"delay": 30.0},  # stop() ends the wait early
    "trickle": {"interval": 0.2, "chunk": 1},  # seconds between pieces, bytes per piece
    "status": {"status": 500, "body": b"", "content_type": None, "headers": None},
}

# The padded card that makes an "oversized" body; the padding goes between the two halves.
_OVERSIZED_HEAD = (
    b'{"object":"list","total_cards":1,"has_more":false,'
    b'"data":[{"object":"card","name":"Oversized","oracle_text":"'
)
_OVERSIZED_TAIL = b'"}]}'


@dataclass(frozen=True)
class Request:
    """One request as the server saw it. ``t`` is ``time.monotonic()`` on arrival."""

    t: float
    method: str
    path: str  # percent-decoded, without the query string
    query: dict[str, str]  # last value wins when a name repeats
    headers: dict[str, str]  # names as the client spelt them
    fault: str | None = None  # the fault kind served instead of the normal answer
    client: tuple[str, int] = ("", 0)  # the client's address: one port per connection


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str | None = JSON_TYPE
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Fault:
    prefix: str
    kind: str
    remaining: int | None  # None: forever
    params: dict


def json_response(status: int, obj) -> Response:
    # Compact UTF-8, non-ASCII unescaped (Scryfall's texts use “ ” and ’).
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return Response(status, text.encode("utf-8"))


def error_response(status: int, code: str, details: str, **extra) -> Response:
    """Scryfall's error object: object, code, status, details, and optional type or warnings."""
    return json_response(
        status, {"object": "error", "code": code, "status": status, "details": details, **extra}
    )


# --- the search query evaluator ----------------------------------------------------------

# A term: optional "-", optional keyword and operator, then a "quoted value" or a bare word.
_TERM = re.compile(r'(-?)(?:([A-Za-z_]+)([:=<>!]+))?(?:"([^"]*)"|(\S+))')
_TYPE_KEYS = {"type", "t"}
_SET_KEYS = {"set", "s", "e", "edition"}
_KEYWORDS = _TYPE_KEYS | _SET_KEYS | {"name"}


def _matcher(key: str | None, value: str, negate: bool = False):
    """A predicate on a card for one understood term."""
    needle = value.lower()

    def test(card: dict) -> bool:
        if key in _TYPE_KEYS:
            hit = needle in card.get("type_line", "").lower()
        elif key in _SET_KEYS:
            hit = card.get("set", "").lower() == needle
        else:  # name:"…" and bare words: a substring of the name; "*" alone matches every card
            hit = needle == "*" or needle in card.get("name", "").lower()
        return hit != negate

    return test


def parse_query(q: str):
    """Turn ``q`` into (predicates, warnings). Terms are ANDed; an empty query matches all.

    A warning is written, in Scryfall's words, for each term this evaluator does not understand.
    """
    predicates, warnings = [], []
    for m in _TERM.finditer(q):
        negate, key, op, quoted, bare = m.groups()
        key = key.lower() if key else None
        value = quoted if quoted is not None else bare
        ignored = f"Invalid expression “{m.group(0)}” was ignored."
        if key is not None and key not in _KEYWORDS:
            warnings.append(f"{ignored} Unknown keyword “{key}”.")
        elif op not in (None, ":", "="):
            warnings.append(f"{ignored} Unsupported operator “{op}”.")
        else:
            predicates.append(_matcher(key, value, negate=bool(negate)))
    return predicates, warnings


# Keys that collapse printings for each ``unique`` mode: one card per key, first one kept.
_UNIQUE_KEYS = {
    "prints": lambda c: c.get("id"),
    "cards": lambda c: c.get("oracle_id") or c.get("id"),
    "art": lambda c: (c.get("oracle_id"), c.get("illustration_id") or c.get("id")),
}


# --- the server ---------------------------------------------------------------------------


class FakeScryfall:
    """Scryfall's search, rulings and sets endpoints over 127.0.0.1, plus pages and faults.

    ``cards``, ``rulings`` (keyed by oracle_id) and ``sets`` (keyed by code) are read on every
    request, so a test may change them between requests to play an upstream change.
    """

    def __init__(
        self,
        cards: list[dict],
        rulings: dict[str, list[dict]],
        sets: dict[str, dict],
        page_size: int = DEFAULT_PAGE_SIZE,
    ):
        self.cards = cards
        self.rulings = rulings
        self.sets = sets
        self.page_size = page_size
        self._pages: dict[str, Response] = {}
        self._files: dict[str, tuple[bytes, str, str | None, str | None]] = {}
        self._faults: list[_Fault] = []
        self._log: list[Request] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> FakeScryfall:
        """Bind 127.0.0.1 on a free port and serve from a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL_S},
            name=f"fake-scryfall-{self._server.server_port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, end waiting faults, close open connections. Safe to call twice."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.close_open_connections()
        server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeScryfall:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The base URL, "http://127.0.0.1:PORT", without a trailing slash."""
        if self._server is None:
            raise RuntimeError("FakeScryfall is not started")
        return f"http://127.0.0.1:{self._server.server_port}"

    # pages and faults

    def add_page(
        self, path: str, body: bytes, content_type: str = HTML_TYPE, status: int = 200
    ) -> None:
        """Serve ``body`` at ``path`` (exact match, any query). Pages win over API routes."""
        with self._lock:
            self._pages[path] = Response(status, body, content_type)

    def add_file(self, path: str, body: bytes, content_type: str = JSON_TYPE, etag: str | None = None,
                 last_modified: str | None = None) -> None:
        """Serve a file (a bulk data file) at ``path`` with ETag / Last-Modified validators: a
        request whose If-None-Match or If-Modified-Since matches them gets 304 Not Modified, as
        Scryfall's file host answers. Bodies are sent gzip-encoded when the client accepts it."""
        with self._lock:
            self._files[path] = (body, content_type, etag, last_modified)

    def add_fault(self, path_prefix: str, kind: str, times: int | None = 1, **params) -> None:
        """Answer the next ``times`` requests under ``path_prefix`` with a fault (None: forever).

        Faults are used in the order they were added; see FAULT_KINDS for kinds and parameters.
        """
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; one of {sorted(FAULT_KINDS)}")
        unknown = set(params) - set(FAULT_KINDS[kind])
        if unknown:
            raise ValueError(f"fault {kind!r} takes no parameter {sorted(unknown)}")
        if times is not None and times < 1:
            raise ValueError("times must be a positive number, or None for forever")
        merged = {**FAULT_KINDS[kind], **params}
        if kind == "oversized" and merged["size"] < len(_OVERSIZED_HEAD) + len(_OVERSIZED_TAIL):
            raise ValueError("oversized: size is smaller than the smallest padded body")
        with self._lock:
            self._faults.append(_Fault(path_prefix, kind, times, merged))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _admit(self, request: Request) -> _Fault | None:
        """Log the request and take the fault it gets, if any, in one step."""
        with self._lock:
            fault = next((f for f in self._faults if request.path.startswith(f.prefix)), None)
            if fault is not None and fault.remaining is not None:
                fault.remaining -= 1
                if fault.remaining == 0:
                    self._faults.remove(fault)
            self._log.append(replace(request, fault=fault.kind if fault else None))
        return fault

    # the request log

    @property
    def requests(self) -> list[Request]:
        """A snapshot of the log, oldest first."""
        with self._lock:
            return list(self._log)

    def requests_to(self, prefix: str) -> list[Request]:
        return [r for r in self.requests if r.path.startswith(prefix)]

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    # routes: each returns a Response

    def route(self, path: str, query: dict[str, str]) -> Response:
        with self._lock:
            page = self._pages.get(path)
        if page is not None:
            return page
        if path == "/cards/search":
            return self._search(query)
        if m := re.fullmatch(r"/cards/([^/]+)/rulings", path):
            return self._rulings(m.group(1))
        if m := re.fullmatch(r"/sets/([^/]+)", path):
            return self._set(m.group(1))
        return error_response(404, "not_found", NO_ROUTE)

    def _search(self, query: dict[str, str]) -> Response:
        predicates, warnings = parse_query(query.get("q", ""))
        if warnings:
            # Stricter than Scryfall, which drops bad terms and searches with the rest.
            return error_response(400, "bad_request", ALL_TERMS_IGNORED, warnings=warnings)
        unique = query.get("unique", "cards")
        if unique not in _UNIQUE_KEYS:
            return error_response(400, "bad_request", f"Invalid unique mode “{unique}”.")
        try:
            page = int(query.get("page", "1"))
        except ValueError:
            page = 0
        if page < 1:
            return error_response(400, "bad_request", "The page must be a positive integer.")

        multilingual = query.get("include_multilingual", "").lower() == "true"
        found, seen = [], set()
        for card in self.cards:
            if not multilingual and card.get("lang", "en") != "en":
                continue
            if not all(p(card) for p in predicates):
                continue
            key = _UNIQUE_KEYS[unique](card)
            if key not in seen:
                seen.add(key)
                found.append(card)
        if not found:
            return error_response(404, "not_found", NO_MATCH)

        start = (page - 1) * self.page_size
        if start >= len(found):
            return error_response(404, "not_found", PAST_LAST_PAGE)
        has_more = start + self.page_size < len(found)
        body = {"object": "list", "total_cards": len(found), "has_more": has_more}
        if has_more:
            body["next_page"] = f"{self.url}/cards/search?{urlencode({**query, 'page': page + 1})}"
        body["data"] = [{"object": "card", **c} for c in found[start : start + self.page_size]]
        return json_response(200, body)

    def _rulings(self, card_or_oracle_id: str) -> Response:
        oracle_id = None
        for card in self.cards:
            if card_or_oracle_id in (card.get("id"), card.get("oracle_id")):
                oracle_id = card.get("oracle_id")
                break
        if oracle_id is None and card_or_oracle_id in self.rulings:
            oracle_id = card_or_oracle_id
        if oracle_id is None:
            return error_response(404, "not_found", NO_CARD)
        found = self.rulings.get(oracle_id, [])
        data = [{"object": "ruling", "oracle_id": oracle_id, **r} for r in found]
        return json_response(200, {"object": "list", "has_more": False, "data": data})

    def _set(self, code: str) -> Response:
        for key, found in self.sets.items():
            if key.lower() == code.lower():
                return json_response(200, {"object": "set", **found})
        return error_response(404, "not_found", NO_SET)


def fault_response(kind: str, params: dict) -> Response:
    """The answer for faults that are a plain HTTP response (not the socket-level ones)."""
    extra = {}
    if params.get("retry_after") is not None:
        extra["Retry-After"] = str(params["retry_after"])
    if kind == "429":
        resp = error_response(429, "rate_limited", RATE_LIMITED)
    elif kind in ("500", "503"):
        status = int(kind)
        if params["html"]:
            title = f"{status} {HTTPStatus(status).phrase}"
            page = f"<html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>"
            resp = Response(status, page.encode(), HTML_TYPE)
        else:
            code = "internal_server_error" if status == 500 else "service_unavailable"
            resp = error_response(status, code, "The server could not answer the request.")
    elif kind == "invalid_json":
        resp = Response(200, b"{not json")
    elif kind == "maintenance_html":
        resp = Response(200, MAINTENANCE_PAGE, HTML_TYPE)
    elif kind == "oversized":
        pad = params["size"] - len(_OVERSIZED_HEAD) - len(_OVERSIZED_TAIL)
        resp = Response(200, _OVERSIZED_HEAD + b"x" * pad + _OVERSIZED_TAIL)
    elif kind == "redirect":
        resp = Response(params["status"], b"", None, {"Location": params["location"]})
    elif kind == "status":
        body, content_type = params["body"], params["content_type"]
        if isinstance(body, (dict, list)):
            body, content_type = json.dumps(body).encode(), content_type or JSON_TYPE
        elif isinstance(body, str):
            body = body.encode("utf-8")
        resp = Response(params["status"], body, content_type, dict(params["headers"] or {}))
    else:
        raise AssertionError(f"{kind} is not a response fault")
    resp.headers.update(extra)
    return resp


class _Server(ThreadingHTTPServer):
    """Tracks open connections so stop() can close idle keep-alive ones."""

    daemon_threads = True
    # socketserver's listen backlog of 5 drops connections under a burst (a client then waits
    # a second to retry its SYN), which would show up as false pacing delays.
    request_queue_size = 128

    def __init__(self, fake: FakeScryfall):
        self.fake = fake
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request, client_address):
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_open_connections(self) -> None:
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address):
        # A client that goes away mid-answer is normal in fault tests; anything else is a bug
        # in this double, and its traceback goes to stderr (pytest shows it with the failure).
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; every answer carries a Content-Length
    # Headers and body go out in two writes; with Nagle's algorithm on, the second waits for the
    # client's delayed ACK (about 40 ms on Linux) on every reused connection, skewing pacing tests.
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        arrived = time.monotonic()
        fake = self.server.fake
        split = urlsplit(self.path)
        path = unquote(split.path)
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        request = Request(
            t=arrived,
            method=self.command,
            path=path,
            query=query,
            headers=dict(self.headers.items()),
            client=self.client_address[:2],
        )
        fault = fake._admit(request)
        try:
            with fake._lock:
                file = fake._files.get(path)
            if fault is None and file is not None:
                self._send(self._file(file))
            elif fault is None:
                self._send(fake.route(path, query))
            else:
                self._serve_fault(fault, lambda: fake.route(path, query))
        except ConnectionError:  # the client went away mid-answer
            self.close_connection = True

    def _serve_fault(self, fault: _Fault, normal) -> None:
        kind, params, stopping = fault.kind, fault.params, self.server.fake._stopping
        if kind == "slow":
            stopping.wait(params["delay"])
            self._send(normal())
        elif kind == "hang":
            stopping.wait(params["delay"])
            self.close_connection = True  # and no answer at all
        elif kind == "reset":
            # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif kind == "trickle":
            # The normal answer, its body a few bytes at a time: every read gets data before a
            # read timeout fires, so only a limit on the whole body stops it.
            full = normal()
            self._send(Response(full.status, b"", full.content_type, full.headers), content_length=len(full.body))
            for start in range(0, len(full.body), params["chunk"]):
                if stopping.wait(params["interval"]):
                    break
                self.wfile.write(full.body[start : start + params["chunk"]])
            self.close_connection = True
        elif kind == "truncated":
            full = normal()
            half = Response(200, full.body[: len(full.body) // 2], full.content_type)
            self._send(half, content_length=len(full.body))
            self.close_connection = True
        else:
            self._send(fault_response(kind, params))

    def _file(self, file) -> Response:
        body, content_type, etag, last_modified = file
        validators = {}
        if etag:
            validators["ETag"] = etag
        if last_modified:
            validators["Last-Modified"] = last_modified
        asked_etag = self.headers.get("If-None-Match")
        asked_date = self.headers.get("If-Modified-Since")
        if (etag and asked_etag == etag) or (not asked_etag and last_modified and asked_date == last_modified):
            return Response(304, b"", None, validators)
        if "gzip" in (self.headers.get("Accept-Encoding") or ""):
            import gzip

            return Response(200, gzip.compress(body, mtime=0), content_type, {**validators, "Content-Encoding": "gzip"})
        return Response(200, body, content_type, validators)

    def _send(self, resp: Response, content_length: int | None = None) -> None:
        self.send_response(resp.status)
        if resp.content_type:
            self.send_header("Content-Type", resp.content_type)
        length = len(resp.body) if content_length is None else content_length
        self.send_header("Content-Length", str(length))
        for name, value in resp.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(resp.body)

    def log_message(self, format, *args) -> None:
        pass  # the request log is fake.requests, not stderr
