"""A stop asked of this process by SIGTERM or Ctrl-C (SIGINT).

The handlers raise ``Aborted`` (SIGTERM, exit 75) or ``KeyboardInterrupt`` (Ctrl-C, exit 130)
wherever the main thread is. That exception can be lost: code that catches every ``Exception``
(a library's fallback, a logging handler) may be running at that moment and carry on, and a
signal that lands inside a DuckDB query interrupts the query, which then fails with DuckDB's own
"Query interrupted" error or, when the query ends first, not at all. So the handlers also set a
flag, and the steps that make a run permanent look at it first (``check``): a stop asked before
the commit never lets the commit happen, whether or not its exception got through. The waits
between requests look at it too (``sleep``), so a fetch does not go on for minutes first.

Outside such a block, from the command's start (``entry.run``, ``cli.main``), SIGTERM raises
``Aborted(STOPPED_MESSAGE)`` as Ctrl-C raises ``KeyboardInterrupt``: a read-only command, or a
writer before its block, stops with exit 75 instead of dying with the signal.

A signal that lands while a module is being imported only sets the flag: an exception raised
inside an import can leave a C extension half made (DuckDB's aborts the process, or fails the
import), and some start-up code drops it without a word. The stop then comes at the next check:
the entry to a ``signals_stop`` block, the steps before a commit, or the command's end (cli.main).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import Aborted, CasefileError, Interrupted

ABORTED_MESSAGE = "stopped by SIGTERM; the run is recorded as aborted and nothing was loaded"
STOPPED_MESSAGE = "stopped by SIGTERM"  # outside a block: a read, or the steps between the start and a block
NOT_STARTED_MESSAGE = "stopped by SIGTERM before its work began; nothing was changed"

_REQUESTED = threading.Event()    # a stop was asked, by either signal
_INTERRUPTED = threading.Event()  # ... by Ctrl-C


def request(interrupt: bool = False) -> None:
    """Note that a stop was asked (called by the signal handlers); ``interrupt``: by Ctrl-C."""
    if interrupt:
        _INTERRUPTED.set()
    _REQUESTED.set()


def clear() -> None:
    _REQUESTED.clear()
    _INTERRUPTED.clear()


def requested() -> bool:
    return _REQUESTED.is_set()


def interrupted() -> bool:
    """Whether Ctrl-C asked the stop."""
    return _INTERRUPTED.is_set()


def stopped(message: str = ABORTED_MESSAGE) -> BaseException:
    """What a stop that was asked leaves as: ``KeyboardInterrupt`` after Ctrl-C, else
    ``Aborted(message)``."""
    return KeyboardInterrupt() if _INTERRUPTED.is_set() else Aborted(message)


def by_ctrl_c(exc: BaseException | None = None) -> bool:
    """Whether Ctrl-C asked the stop that ``exc`` (if given) comes from: the flag, or ``exc`` what
    Ctrl-C raises (``KeyboardInterrupt``, or ``Interrupted`` once the block that set the flag and
    cleared it is left)."""
    return _INTERRUPTED.is_set() or isinstance(exc, (KeyboardInterrupt, Interrupted))


def kept(message: str, exc: BaseException | None = None) -> Aborted:
    """What a stop that came after a run was made permanent leaves as (``message`` says what was
    kept): ``Interrupted`` (exit 130) after Ctrl-C (``by_ctrl_c``), else ``Aborted`` (exit 75)."""
    return Interrupted(message) if by_ctrl_c(exc) else Aborted(message)


def check() -> None:
    """Raise ``stopped()`` if a stop was asked."""
    if _REQUESTED.is_set():
        raise stopped()


def importing(frame) -> bool:
    """Whether ``frame`` (a signal handler's) is inside an import: a frame of importlib below it."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def on_ctrl_c(signum, frame) -> None:
    """The SIGINT handler: Python's own ``KeyboardInterrupt``, with the flag set; during an
    import, the flag alone."""
    request(interrupt=True)
    if not importing(frame):
        raise KeyboardInterrupt


def sigterm_handler(message: str):
    """A SIGTERM handler: ``Aborted(message)`` with the flag set; during an import, the flag alone."""
    def on_sigterm(signum, frame) -> None:
        request()
        if not importing(frame):
            raise Aborted(message)
    return on_sigterm


on_sigterm = sigterm_handler(STOPPED_MESSAGE)  # outside a ``signals_stop`` block


def pause(seconds: float) -> None:
    """Wait ``seconds``, or less: a stop asked before or during the wait ends it."""
    _REQUESTED.wait(seconds)


def sleep(seconds: float) -> None:
    """``time.sleep`` for the waits between requests: a stop asked before or during the wait
    ends it with ``Aborted``, so a fetch stops at its next request, not at the commit."""
    pause(seconds)
    check()


@contextmanager
def signals_stop(message: str = ABORTED_MESSAGE) -> Iterator[None]:
    """While the block runs, SIGTERM raises ``Aborted(message)`` and Ctrl-C ``KeyboardInterrupt``
    wherever the main thread is, so the block's own clean-up runs (a load rolls back, a temp
    folder goes). A signal during a DuckDB query interrupts the query, which then fails with
    DuckDB's own error: the flag tells it apart and it leaves as the signal's exception too. A stop
    asked before the block (a signal during an import) ends it before it starts. Off the main
    thread, where Python takes no signal, nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    previous = signal.signal(signal.SIGTERM, sigterm_handler(message)), signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        if requested():  # asked before the block, during an import: the block does not start
            raise stopped(NOT_STARTED_MESSAGE)
        yield
    except Exception as exc:
        if requested() and not isinstance(exc, CasefileError):
            raise stopped(message) from exc
        raise
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])
        clear()
