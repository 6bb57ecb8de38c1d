"""Named points where the reliability tests stop a sync on purpose: kill -9, or a pause.

``CASEFILE_FAILPOINT=name:action[,…]``, action ``kill`` (first pass), ``kill@N`` (Nth), ``sleep=S``
(a pause that SIGTERM ends, as it ends a query) or ``until=PATH`` (the same pause, until a file is
at PATH; at most a minute).
Points: during_extract, during_build, during_load, before_commit, after_commit, before_replace and
after_replace (rebuild, and a prune's compaction: the new file not yet renamed over the old one,
and just renamed),
during_prune (a run folder renamed, not yet removed), during_export (files half written), export_swap
(the previous export moved aside, the new one not yet in place), export_tidy (the new export in
place, the previous one not yet removed).
"""

from __future__ import annotations

import os
import signal
from collections import Counter

from . import stop

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
        elif action.startswith("sleep="):  # a slow step: SIGTERM ends it, as it ends a query
            stop.pause(float(action.split("=", 1)[1]))
        elif action.startswith("until="):  # a step as slow as the test needs: until the file is there
            _wait_for(action.split("=", 1)[1])


def _wait_for(path: str, most_s: float = 60.0) -> None:
    waited = 0.0
    while not os.path.exists(path) and waited < most_s and not stop.requested():
        stop.pause(0.01)
        waited += 0.01
