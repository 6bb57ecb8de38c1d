"""Named points where the reliability tests stop a sync on purpose (kill -9, or a pause).

``CASEFILE_FAILPOINT=name:action`` with action ``kill`` (SIGKILL to this process) or
``sleep=<seconds>``. Unset, a failpoint costs one dictionary lookup. Points: ``during_extract``
(after each saved response), ``before_commit``, ``after_commit``.
"""

from __future__ import annotations

import os
import signal
import time

_ENV = "CASEFILE_FAILPOINT"


def failpoint(name: str) -> None:
    spec = os.environ.get(_ENV)
    if not spec:
        return
    for item in spec.split(","):
        point, _, action = item.partition(":")
        if point != name:
            continue
        if action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif action.startswith("sleep="):
            time.sleep(float(action.split("=", 1)[1]))
