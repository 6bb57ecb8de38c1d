"""One request, kept: ask the transport, save the answer to the raw store, quarantine what failed.

A body the HTTP client gave up on (its error carries it) goes to the run's ``quarantine/`` with its
reason before the error stops the run, so the evidence is never lost.
"""

from __future__ import annotations

from ..errors import CasefileError
from ..wire import Response
from ..rawstore import DocEntry, RunWriter


def fetch_and_save(transport, writer: RunWriter, url: str, *, origin: str, kind: str, key: str | None,
                   **get_options) -> tuple[Response, DocEntry]:
    """GET ``url`` through ``transport`` and save the answer; on give-up, quarantine the bad body."""
    try:
        response = transport.get(url, **get_options)
    except CasefileError as exc:
        quarantine(writer, exc, origin, kind, key)
        raise
    return response, writer.save(response, origin, kind, key=key)


def quarantine(writer: RunWriter, exc: CasefileError, origin: str, kind: str, key: str | None) -> None:
    bad = getattr(exc, "bad_response", None)
    if bad is not None:
        writer.save(bad, origin, kind, key=key, quarantined=getattr(exc, "bad_reason", None) or str(exc))
