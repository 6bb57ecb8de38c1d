"""A stop asked of this process by SIGTERM while it writes (sync, rebuild, rules ingest).

The handler that ``sync`` installs raises ``Aborted`` wherever the main thread is. That
exception can be lost: code that catches every ``Exception`` (a library's fallback, a logging
handler) may be running at that moment and carry on. So the handler also sets a flag, and the
steps that make a run permanent look at it first (``check``): a SIGTERM received before the
commit never lets the commit happen, whether or not its exception got through. The waits
between requests look at it too (``sleep``), so a fetch does not go on for minutes first.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import Aborted, CasefileError

ABORTED_MESSAGE = "stopped by SIGTERM; the run is recorded as aborted and nothing was loaded"

_REQUESTED = threading.Event()


def request() -> None:
    """Note that a stop was asked (called by the signal handler)."""
    _REQUESTED.set()


def clear() -> None:
    _REQUESTED.clear()


def requested() -> bool:
    return _REQUESTED.is_set()


def check() -> None:
    """Raise ``Aborted`` if a stop was asked."""
    if _REQUESTED.is_set():
        raise Aborted(ABORTED_MESSAGE)


def pause(seconds: float) -> None:
    """Wait ``seconds``, or less: a stop asked before or during the wait ends it."""
    _REQUESTED.wait(seconds)


def sleep(seconds: float) -> None:
    """``time.sleep`` for the waits between requests: a stop asked before or during the wait
    ends it with ``Aborted``, so a fetch stops at its next request, not at the commit."""
    pause(seconds)
    check()


@contextmanager
def sigterm_raises(message: str = ABORTED_MESSAGE) -> Iterator[None]:
    """While the block runs, SIGTERM raises ``Aborted(message)`` wherever the main thread is, so
    the block's own clean-up runs (a load rolls back, a temp folder goes). A signal during a DuckDB
    query interrupts the query, which then fails with DuckDB's own error: the flag tells it apart
    and it leaves as ``Aborted`` too. Off the main thread, where Python takes no signal, nothing
    is installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        request()
        raise Aborted(message)

    clear()
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    except Exception as exc:
        if requested() and not isinstance(exc, CasefileError):
            raise Aborted(message) from exc
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        clear()
