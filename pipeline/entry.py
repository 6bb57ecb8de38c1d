"""The `casefile` command's entry point (the console script, and ``python -m pipeline``).

Ctrl-C and SIGTERM are taken over before the command's modules are imported. Python's own
handler raises KeyboardInterrupt inside whatever is being imported at that moment: DuckDB's
extension, stopped half made, then aborts the process or fails its import, and some start-up
code drops the exception without a word, so that the command would go on as if no Ctrl-C had
come. casefile's handler notes a Ctrl-C that comes during an import, and the command stops at
its next check (``stop``, ``cli.main``). SIGTERM is taken the same way, so that a scheduler's stop in the
command's first few tenths of a second ends it with exit 75, as later, and not by the signal.
What runs before this module is Python's own start-up.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from . import stop
from .errors import Aborted


def run() -> int:
    on_main_thread = threading.current_thread() is threading.main_thread()
    if on_main_thread:
        signal.signal(signal.SIGINT, stop.on_ctrl_c)
        signal.signal(signal.SIGTERM, stop.on_sigterm)
    try:
        from .cli import main

        code = main()
    except KeyboardInterrupt:  # in an instant outside main's own handling: just before it, or as it returns
        from .cli import exit_interrupted

        code = exit_interrupted()
    except Aborted:  # SIGTERM in such an instant
        from .cli import exit_stopped

        code = exit_stopped()
    if on_main_thread:
        _ignore_stops()
    return code


def _ignore_stops() -> None:
    """The command has its exit code: a Ctrl-C or SIGTERM from now on changes nothing. Python's
    finalization puts back the default action of every signal it handled (SIGTERM's ends the process,
    143 in a shell, with the command's output already written), but leaves an ignored one ignored.
    What the output still buffers is written first, while a stop can still end a write that blocks;
    what cannot be written (a full disk, a reader gone) is dropped, so that Python's own last flush
    does not fail too and turn the exit code into 120."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except OSError:
            _drop_output(stream)
        except (ValueError, KeyboardInterrupt, Aborted):  # a closed stream, or a stop during the write
            return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _drop_output(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null: what it still buffers goes nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
