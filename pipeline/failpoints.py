"""Named points where the reliability tests stop a sync on purpose (kill -9, or a pause).

``CASEFILE_FAILPOINT=name:action[,name:action]`` with action ``kill`` (SIGKILL to this process at
the first pass), ``kill@N`` (at the Nth pass) or ``sleep=<seconds>``. Unset, a failpoint costs one
dictionary lookup. Points: ``during_extract`` (after each saved response), ``during_load`` (inside
the load transaction, after the merges), ``before_commit``, ``after_commit``, ``before_replace``
(``rebuild``, before the new warehouse is renamed over the old one).
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter

_ENV = "CASEFILE_FAILPOINT"
_passes: Counter = Counter()


def failpoint(name: str) -> None:
    spec = os.environ.get(_ENV)
    if not spec:
        return
    _passes[name] += 1
    for item in spec.split(","):
        point, _, action = item.partition(":")
        if point != name:
            continue
        if action == "kill" or (action.startswith("kill@") and _passes[name] == int(action[5:])):
            os.kill(os.getpid(), signal.SIGKILL)
        elif action.startswith("sleep="):
            time.sleep(float(action.split("=", 1)[1]))
