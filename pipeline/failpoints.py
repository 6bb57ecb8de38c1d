"""Named points where the reliability tests stop a sync on purpose: kill -9, or a pause.

``CASEFILE_FAILPOINT=name:action[,…]``, action ``kill`` (first pass), ``kill@N`` (Nth) or ``sleep=S``
(a pause that SIGTERM ends, as it ends a query).
Points: during_extract, during_build, during_load, before_commit, after_commit, before_replace and
after_replace (rebuild: the new file not yet renamed over the old one, and just renamed),
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
