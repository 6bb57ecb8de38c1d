"""The `casefile` command's entry point (the console script, and ``python -m pipeline``).

Ctrl-C is taken over before the command's modules are imported. Python's own handler raises
KeyboardInterrupt inside whatever is being imported at that moment: DuckDB's extension, stopped
half made, then aborts the process or fails its import, and some start-up code drops the
exception without a word, so that the command would go on as if no Ctrl-C had come. casefile's
handler notes a Ctrl-C that comes during an import, and the command stops at its next check
(``stop``, ``cli.main``). What runs before this module is Python's own start-up.
"""

from __future__ import annotations

import signal
import threading

from . import stop


def run() -> int:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, stop.on_ctrl_c)
    try:
        from .cli import main

        return main()
    except KeyboardInterrupt:  # in an instant outside main's own handling: just before it, or as it returns
        from .cli import exit_interrupted

        return exit_interrupted()
