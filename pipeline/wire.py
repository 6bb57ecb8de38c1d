"""What a transport hands the extractors, whichever it is: the live HTTP client (``http.py``) or
the replay of a recorded run (``extract/replay.py``). Nothing here needs an HTTP library, so an
offline sync never imports one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

JSON_ACCEPT = "application/json"
HTML_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of gzip data (RFC 1952)


@dataclass(frozen=True)
class Response:
    url: str  # the URL asked for (before any same-host redirect)
    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes
    fetched_at: str  # ISO 8601, UTC
    attempts: int = 1


@dataclass
class Traffic:
    """What a run cost the sources: counted per HTTP exchange, retries included."""

    requests: int = 0
    bytes: int = 0
    retries: int = 0
    waits: list[tuple[str, float]] = field(default_factory=list)  # (reason, seconds slept)


class BodyProblem(Exception):
    """A 200 whose body is not what was asked for; worth another try, then quarantine.

    ``transient``: the source is down for a while (a maintenance page), not sending bad data.
    """

    def __init__(self, reason: str, transient: bool = False):
        super().__init__(reason)
        self.transient = transient


def json_body_check(response_headers: dict[str, str], body: bytes) -> None:
    """Raise BodyProblem unless the body is a JSON document (Scryfall's API always sends one)."""
    ctype = response_headers.get("content-type", "")
    if "html" in ctype:
        raise BodyProblem(f"an HTML page ({ctype}) where JSON was expected: maintenance page?", transient=True)
    try:
        json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BodyProblem(f"invalid JSON ({exc.__class__.__name__}: {str(exc)[:80]})") from None
