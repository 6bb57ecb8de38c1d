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

import signal
import threading

from . import stop
from .errors import Aborted


def run() -> int:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, stop.on_ctrl_c)
        signal.signal(signal.SIGTERM, stop.on_sigterm)
    try:
        from .cli import main

        return main()
    except KeyboardInterrupt:  # in an instant outside main's own handling: just before it, or as it returns
        from .cli import exit_interrupted

        return exit_interrupted()
    except Aborted:  # SIGTERM in such an instant
        from .cli import exit_stopped

        return exit_stopped()
