"""The one HTTP client: identification headers, pacing, timeouts, retries, size cap, redirects.

``pipeline/sync.py`` (syncs, rules ingests), ``extract/plan.py`` and ``extract/probe.py`` make one,
and every HTTP request casefile sends goes through it: ``HttpClient.get`` returns a body in
memory, ``HttpClient.download`` streams one to a sink (the bulk files). Both pace by the rules the
caller names (per endpoint, per host), retry what is worth retrying and keep the body bytes as
delivered (Content-Encoding undone), or raise one of the project's errors with a message for the
user.
"""

from __future__ import annotations

import email.utils
import logging
import time
import zlib
from dataclasses import dataclass
from datetime import timezone
from typing import Callable, Iterable
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from .. import stop
from ..clock import utc_now_iso
from ..config import Settings, redact_url
from ..errors import CasefileError, RateLimited, SourceDataError, SourceUnavailable, TryAgainLater
from ..wire import GZIP_MAGIC, HTML_ACCEPT, JSON_ACCEPT, BodyProblem, Response, Traffic, json_body_check  # noqa: F401

log = logging.getLogger(__name__)

# Response headers worth keeping in the manifest: they say what the body is and how fresh.
KEPT_HEADERS = ("content-type", "content-length", "etag", "last-modified", "date", "retry-after",
                "cache-control", "x-robots-tag")
MAX_REDIRECTS = 5
# Each interval starts when the previous request's answer arrived (its headers), not when the
# request was sent: the server answered after it received the request, so it sees the next one
# at least the interval later even when a request left late (a process descheduled between the
# pacer's stamp and the send made the server see 392 ms between two searches, for 505 ms kept by
# the client). 5 ms on top of every interval absorbs clock granularity, at a cost of 1-5 %.
PACING_MARGIN_S = 0.005
# A bulk file must come at this rate on average, once the read timeout's worth of seconds is spent:
# the read timeout bounds each wait for bytes, and this the whole download, so that a server that
# trickles a file cannot hold a sync, and its lock, for days (a 500 MB file may take 2 hours).
MIN_DOWNLOAD_RATE = 64 * 1024  # bytes per second


def transient(status: int) -> bool:
    """An answer worth another try: a server error, or 408 (Request Timeout) and 425 (Too Early),
    which say the same request may succeed later (RFC 9110, 15.5.9; RFC 8470, 5.2)."""
    return status >= 500 or status in (408, 425)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date (RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


class Pacer:
    """Keeps a minimum interval between requests that share a key ("api", "api:search", "host:x")."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = stop.sleep):
        self._clock = clock
        self._sleep = sleep
        self._last: dict[str, float] = {}

    def wait(self, rules: Iterable[tuple[str, float]]) -> float:
        rules = list(rules)
        now = self._clock()
        due = max((self._last[key] + interval + PACING_MARGIN_S for key, interval in rules if key in self._last),
                  default=now)
        slept = 0.0
        if due > now:
            slept = due - now
            self._sleep(slept)
        self.mark(rules)
        return slept

    def mark(self, rules: Iterable[tuple[str, float]]) -> None:
        """Start the intervals of ``rules``' keys now (a request was sent, or its answer came)."""
        stamp = self._clock()
        for key, _ in rules:
            self._last[key] = stamp


class HttpClient:
    def __init__(self, settings: Settings, *, session: requests.Session | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = stop.sleep,
                 on_rate_limited: Callable[[str, float], None] | None = None):
        self.settings = settings
        self.session = session or requests.Session()
        self.session.headers.update({"User-Agent": settings.user_agent})
        self.pacer = Pacer(clock, sleep)
        self.traffic = Traffic()
        self._sleep = sleep
        self._clock = clock
        self._on_rate_limited = on_rate_limited

    def close(self) -> None:
        self.session.close()

    # -- the entry points: get, and download for bulk files -----------------------------
    def get(self, url: str, *, pacing: Iterable[tuple[str, float]], accept: str = JSON_ACCEPT,
            check_body: Callable[[dict[str, str], bytes], None] | None = None,
            allowed_hosts: Iterable[str] = (), check_redirect: Callable[[str], None] | None = None) -> Response:
        """GET ``url`` politely. Non-2xx answers other than 429 and the ``transient`` ones are
        returned, not raised.

        ``check_body`` validates a 200's body (raise BodyProblem to have it retried).
        ``allowed_hosts`` lists hosts other than the URL's own that redirects may lead to.
        ``check_redirect(target)`` is called before each redirect is followed; it raises to refuse
        it (a rulings page's robots.txt rules, which apply to the page a redirect leads to).
        """
        pacing = list(pacing)
        refuse_credentials(url)
        hosts = {urlsplit(url).hostname} | set(allowed_hosts)
        attempts = 0
        failure = _Failure("")
        while attempts < self.settings.max_attempts:
            attempts += 1
            try:
                response = self._exchange(url, pacing, accept, hosts, check_redirect)
            except (requests.ConnectionError, requests.Timeout, urllib3.exceptions.HTTPError) as exc:
                failure = _Failure(f"connection failed: {_short(exc)}")
            except _IncompleteBody as exc:
                failure = _Failure(str(exc), exc.response, transient=True)
            else:
                status = response.status
                if status == 429:
                    self._wait_rate_limited(url, response.headers, attempts < self.settings.max_attempts)
                    failure = _Failure("HTTP 429 (rate limited)")
                    continue
                if transient(status):
                    failure = _Failure(f"HTTP {status}")
                    # a Retry-After longer than the backoff is waited; a shorter one (0, a date
                    # past) does not make the retries come at the pacing's speed
                    hint = parse_retry_after(response.headers.get("retry-after"))
                    if hint is not None and self._backoff(attempts) < hint <= self.settings.retry_after_max_s \
                            and attempts < self.settings.max_attempts:
                        self.traffic.retries += 1
                        self._sleep_for(f"Retry-After of an HTTP {status}", hint)
                        continue
                elif status == 200 and check_body is not None:
                    try:
                        check_body(response.headers, response.body)
                    except BodyProblem as exc:
                        failure = _Failure(str(exc), response, transient=exc.transient)
                    else:
                        return _with_attempts(response, attempts)
                else:
                    return _with_attempts(response, attempts)
            if attempts < self.settings.max_attempts:
                self.traffic.retries += 1
                self._sleep_for(f"backoff after {failure.reason}", self._backoff(attempts))
        raise failure.error(f"{url}: {_gave_up(attempts)}; last problem: {failure.reason}")

    def download(self, url: str, sink, *, pacing: Iterable[tuple[str, float]], accept: str = JSON_ACCEPT,
                 validators: dict[str, str] | None = None, check_file: Callable[[object], None] | None = None,
                 max_bytes: int | None = None) -> Response:
        """GET ``url`` into ``sink`` (a rawstore.BodyFile) as it arrives; never whole in memory.

        ``validators`` ({"etag", "last-modified"} of the copy held) make it a conditional GET:
        a 304 is returned with an empty sink. A Content-Encoding of gzip is undone on the way
        (requests does it); a body that is itself gzip (its first bytes say so, whatever the URL's
        name) is checked by unpacking it as it streams. ``check_file(sink)`` validates the whole
        body (raise BodyProblem to retry).
        The cap is ``max_bytes`` (default: settings.max_bulk_bytes), not the one of ``get``.
        Retries, pacing and redirects as in ``get``; the returned Response has an empty body.
        When the body of the last attempt was the problem, the error given up with carries that
        answer as ``bad_response`` (its body is what ``sink`` holds) and ``bad_reason``.
        """
        pacing = list(pacing)
        refuse_credentials(url)
        cap = max_bytes if max_bytes is not None else self.settings.max_bulk_bytes
        headers = {"Accept": accept}
        if validators:
            if validators.get("etag"):
                headers["If-None-Match"] = validators["etag"]
            if validators.get("last-modified"):
                headers["If-Modified-Since"] = validators["last-modified"]
        hosts = {urlsplit(url).hostname}
        attempts, last_problem = 0, ""
        while attempts < self.settings.max_attempts:
            attempts += 1
            sink.reset()
            bad = None  # the answer whose body (in the sink) was the problem
            try:
                response = self._stream_to(url, pacing, headers, hosts, sink, cap)
            except (requests.ConnectionError, requests.Timeout, urllib3.exceptions.HTTPError) as exc:
                last_problem = f"connection failed: {_short(exc)}"
            except (_IncompleteBody, BodyProblem) as exc:
                last_problem, bad = str(exc), getattr(exc, "response", None)
            else:
                if response.status == 429:
                    self._wait_rate_limited(url, response.headers, attempts < self.settings.max_attempts)
                    last_problem = "HTTP 429 (rate limited)"
                    continue
                if transient(response.status):
                    last_problem = f"HTTP {response.status}"
                else:
                    if response.status == 200 and check_file is not None:
                        try:
                            check_file(sink)
                        except BodyProblem as exc:
                            last_problem, bad = str(exc), response
                            response = None
                    if response is not None:
                        return _with_attempts(response, attempts)
            if attempts < self.settings.max_attempts:
                self.traffic.retries += 1
                self._sleep_for(f"backoff after {last_problem}", self._backoff(attempts))
        error = TryAgainLater(f"{url}: {_gave_up(attempts)}; last problem: {last_problem}")
        error.bad_response, error.bad_reason = bad, last_problem
        raise error

    def _stream_to(self, url: str, pacing, headers: dict, hosts: set, sink, cap: int) -> Response:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            self.pacer.wait(pacing)
            fetched_at = utc_now_iso()
            self.traffic.requests += 1
            with self.session.get(current, headers=headers, stream=True, allow_redirects=False,
                                  timeout=(self.settings.connect_timeout_s, self.settings.read_timeout_s)) as r:
                self.pacer.mark(pacing)  # the answer's headers are here: the server has had the request
                kept = {k.lower(): v for k, v in r.headers.items() if k.lower() in KEPT_HEADERS}
                if r.is_redirect or (300 <= r.status_code < 400 and r.status_code != 304 and "location" in r.headers):
                    current = _redirect_target(url, current, r.headers["location"], hosts)
                    continue
                if r.status_code != 200:
                    body = self._read_capped(r, current)  # an error object or nothing (304)
                    self.traffic.bytes += len(body)
                    return Response(url=url, final_url=current, status=r.status_code, headers=kept, body=body,
                                    fetched_at=fetched_at)
                declared = r.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > cap:
                    raise SourceDataError(f"{url}: response of {int(declared):,} bytes refused (cap {cap:,} bytes)")
                answer = Response(url=url, final_url=current, status=200, headers=kept, body=b"",
                                  fetched_at=fetched_at)
                # gzip or not is told by the body's first bytes (as they come, Content-Encoding
                # undone), not by the URL's name: a .gz file may arrive unpacked, and gzip may
                # sit at a URL without .gz
                gz, head = None, b""
                started, grace = self._clock(), self.settings.read_timeout_s
                try:
                    try:
                        # read1: what has come, up to 1 MiB, so that a trickle is seen as it comes
                        while chunk := r.raw.read1(1 << 20, decode_content=True):
                            if sink.size + len(chunk) > cap:
                                raise SourceDataError(f"{url}: response larger than the cap of {cap:,} bytes refused")
                            sink.write(chunk)
                            if gz is not None:
                                gz.feed(chunk)
                            elif len(head) < len(GZIP_MAGIC):
                                head += chunk
                                if head.startswith(GZIP_MAGIC):
                                    gz = GzipCheck(url, cap)
                                    gz.feed(head)
                            elapsed = self._clock() - started
                            if elapsed > grace + sink.size / MIN_DOWNLOAD_RATE:
                                raise _IncompleteBody(
                                    f"body too slow: {sink.size:,} bytes in {elapsed:.0f} s, under "
                                    f"{MIN_DOWNLOAD_RATE // 1024} KiB/s once the read timeout of {grace:g} s is spent",
                                    b"")
                    except (urllib3.exceptions.HTTPError, requests.RequestException) as exc:  # not the sink's OSError
                        raise _IncompleteBody(f"truncated body: {_short(exc)}", b"") from None
                    self.traffic.bytes += sink.size
                    encoded = r.headers.get("content-encoding", "identity") not in ("", "identity")
                    if declared and declared.isdigit() and not encoded and sink.size != int(declared):
                        raise _IncompleteBody(f"truncated body: {sink.size} of {declared} bytes", b"")
                    if gz is not None:
                        gz.close()
                except (_IncompleteBody, BodyProblem) as exc:
                    exc.response = answer  # what was answered; the body, as far as it came, is in the sink
                    raise
                return answer
        raise SourceUnavailable(f"{url}: more than {MAX_REDIRECTS} redirects")

    # -- pieces ---------------------------------------------------------------------------
    def _exchange(self, url: str, pacing, accept: str, hosts: set,
                  check_redirect: Callable[[str], None] | None = None) -> Response:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            self.pacer.wait(pacing)
            fetched_at = utc_now_iso()
            self.traffic.requests += 1
            with self.session.get(current, headers={"Accept": accept}, stream=True, allow_redirects=False,
                                  timeout=(self.settings.connect_timeout_s, self.settings.read_timeout_s)) as r:
                self.pacer.mark(pacing)  # the answer's headers are here: the server has had the request
                headers = {k.lower(): v for k, v in r.headers.items() if k.lower() in KEPT_HEADERS}
                if r.is_redirect or (300 <= r.status_code < 400 and "location" in r.headers):
                    current = _redirect_target(url, current, r.headers["location"], hosts)
                    if check_redirect is not None:
                        check_redirect(current)
                    continue
                try:
                    body = self._read_capped(r, current)
                except _IncompleteBody as exc:
                    exc.response = Response(url=url, final_url=current, status=r.status_code, headers=headers,
                                            body=exc.partial, fetched_at=fetched_at)
                    self.traffic.bytes += len(exc.partial)
                    raise
                self.traffic.bytes += len(body)
                return Response(url=url, final_url=current, status=r.status_code, headers=headers,
                                body=body, fetched_at=fetched_at)
        raise SourceUnavailable(f"{url}: more than {MAX_REDIRECTS} redirects")

    def _read_capped(self, r: requests.Response, url: str) -> bytes:
        """The body, refused over the size cap, and given up on when it does not come whole in time.

        ``read_timeout_s`` bounds each wait for bytes (requests does that) and the whole body too:
        a server that trickles a byte at a time cannot hold a run forever.
        """
        cap = self.settings.max_bytes
        declared = r.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise SourceDataError(f"{url}: response of {int(declared):,} bytes refused (cap {cap:,} bytes)")
        deadline = self._clock() + self.settings.read_timeout_s
        chunks, size = [], 0
        try:
            while chunk := r.raw.read1(64 * 1024, decode_content=True):
                size += len(chunk)
                if size > cap:
                    raise SourceDataError(f"{url}: response larger than the cap of {cap:,} bytes refused")
                chunks.append(chunk)
                if self._clock() > deadline:
                    raise _IncompleteBody(f"body not complete within the read timeout of "
                                          f"{self.settings.read_timeout_s:g} s ({size:,} bytes came)", b"".join(chunks))
        except (urllib3.exceptions.HTTPError, requests.RequestException, OSError) as exc:
            raise _IncompleteBody(f"truncated body: {_short(exc)}", b"".join(chunks)) from None
        body = b"".join(chunks)
        encoded = r.headers.get("content-encoding", "identity") not in ("", "identity")
        if declared and declared.isdigit() and not encoded and len(body) != int(declared):
            raise _IncompleteBody(f"truncated body: {len(body)} of {declared} bytes", body)
        return body

    def _wait_rate_limited(self, url: str, headers: dict[str, str], again: bool) -> None:
        """A 429: wait what it asks (at least the minimum), unless no attempt is ``again`` to come."""
        s = self.settings
        asked = parse_retry_after(headers.get("retry-after"))
        wait = max(asked if asked is not None else s.retry_after_min_s, s.retry_after_min_s)
        if self._on_rate_limited is not None:
            self._on_rate_limited(url, wait)
        if wait > s.retry_after_max_s:
            raise RateLimited(f"{url}: {urlsplit(url).hostname} answered 429 and asks for {wait:.0f} s, more "
                              f"than the {s.retry_after_max_s:.0f} s casefile waits; try again later")
        if again:
            self._sleep_for("429 Retry-After", wait)

    def _backoff(self, attempt: int) -> float:
        # the power kept small: 2 ** 1025 is no float (CASEFILE_MAX_ATTEMPTS has no upper bound)
        return min(self.settings.backoff_max_s, self.settings.backoff_base_s * 2 ** min(attempt - 1, 60))

    def _sleep_for(self, reason: str, seconds: float) -> None:
        if seconds <= 0:
            return
        log.info("waiting %.1f s (%s)", seconds, reason)
        self.traffic.waits.append((reason, seconds))
        self._sleep(seconds)


class _IncompleteBody(Exception):
    """A body cut short (the connection closed) or too slow; ``partial`` is what came."""

    def __init__(self, reason: str, partial: bytes):
        super().__init__(reason)
        self.partial = partial
        self.response: Response | None = None


@dataclass(frozen=True)
class _Failure:
    """Why the last attempt failed, and the response to quarantine if its body was the problem."""

    reason: str
    bad_response: Response | None = None
    transient: bool = False

    def error(self, message: str) -> CasefileError:
        """The error to stop on: bad data is 65 (SourceDataError), anything passing is 75."""
        err = SourceDataError(message) if self.bad_response is not None and not self.transient \
            else TryAgainLater(message)
        err.bad_response = self.bad_response
        err.bad_reason = self.reason
        return err


def _redirect_target(url: str, current: str, location: str, hosts: set) -> str:
    """Where a redirect from ``current`` leads; refused (69) when the target carries credentials
    or leaves ``hosts``. Messages name ``url``, the URL asked for, and never print credentials."""
    target = urljoin(current, location)
    parts = urlsplit(target)
    if parts.username is not None or parts.password is not None:
        raise SourceUnavailable(f"{url}: refused a redirect to a URL carrying credentials ({redact_url(target)})")
    if parts.scheme not in ("http", "https") or parts.hostname not in hosts:
        raise SourceUnavailable(f"{url}: refused a redirect to another host ({target}); "
                                "casefile only follows redirects within the host it asked")
    return target


def refuse_credentials(url: str) -> None:
    """casefile sends no credentials: a URL with user:password@ is refused, and never printed whole."""
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise SourceDataError(f"refused a URL carrying credentials: {redact_url(url)}")


class GzipCheck:
    """Decompresses a gzip body as it streams, to prove it whole and to cap what it unpacks to.

    A gzip file may hold several members one after the other (RFC 1952, 2.2), which both readers
    of the kept file take (Python's gzip module and DuckDB's). Anything else after a member (an
    error page appended, a second member cut short, zero bytes, which DuckDB refuses) is refused
    here, where a retry can still fetch a good copy, and not found later by the build. Each call
    to zlib unpacks at most ``STEP`` bytes, so a small body that unpacks to a huge one is refused
    at the cap without being unpacked whole in memory.
    """

    STEP = 1 << 20

    def __init__(self, url: str, cap: int):
        self.url = url
        self.cap = cap
        self.size = 0
        self.members = 0  # members unpacked to their end
        self._z: zlib._Decompress | None = None  # the member being unpacked, None between members
        self._between = b""  # bytes after a member's end too few to tell what follows

    def feed(self, chunk: bytes) -> None:
        data, self._between = self._between + chunk, b""
        try:
            while data:
                if self._z is None:
                    if len(data) < len(GZIP_MAGIC) and GZIP_MAGIC.startswith(data):
                        self._between = data  # the next member's magic may be split across chunks
                        return
                    if not data.startswith(GZIP_MAGIC):
                        raise BodyProblem("data after the end of the gzip stream")
                    self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                self._count(self._z.decompress(data, self.STEP))
                while self._z.unconsumed_tail:
                    self._count(self._z.decompress(self._z.unconsumed_tail, self.STEP))
                if not self._z.eof:
                    return
                data, self._z = self._z.unused_data, None
                self.members += 1
        except zlib.error as exc:
            raise BodyProblem(f"broken gzip data ({exc})") from None

    def _count(self, out: bytes) -> None:
        self.size += len(out)
        if self.size > self.cap:
            raise SourceDataError(f"{self.url}: gzip body unpacks to more than the cap of {self.cap:,} bytes")

    def close(self) -> None:
        if self._z is not None or self._between or not self.members:
            raise BodyProblem("gzip data cut short")


def _gave_up(attempts: int) -> str:
    """The words of a give-up: "gave up after 5 attempts", or "after 1 attempt" (doctor's probe)."""
    return f"gave up after {attempts} attempt{'' if attempts == 1 else 's'}"


def _with_attempts(response: Response, attempts: int) -> Response:
    if attempts == 1:
        return response
    return Response(**{**response.__dict__, "attempts": attempts})


def _short(exc: BaseException) -> str:
    """What went wrong, short: for requests' connection errors, the innermost cause urllib3 gives
    ("Failed to resolve 'api.scryfall.com' ([Errno -2] Name or service not known)"), which the
    outer message names only after its URL and pool and a cut would lose."""
    cause = exc
    for _ in range(6):
        inner = getattr(cause, "reason", None)
        if not isinstance(inner, BaseException):
            inner = cause.args[0] if cause.args and isinstance(cause.args[0], BaseException) else None
        if inner is None or inner is cause:
            break
        cause = inner
    text = str(exc) or exc.__class__.__name__
    if cause is not exc:  # "HTTPSConnection(host=..., port=443): Failed to resolve ...": the pool's name goes
        text = f"{cause.__class__.__name__}: {str(cause).split('): ', 1)[-1]}"
    return text if len(text) < 200 else text[:197] + "..."
