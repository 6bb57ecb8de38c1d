"""Remembering Scryfall's 429 across runs: a run started inside the cool-down does not call the API.

The cool-down lives in ``data/cooldown.json`` (until when, and why). Written when Scryfall answers
429; read before a live sync asks anything.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone
from pathlib import Path

from .errors import RateLimited
from .rawstore import atomic_write

# The longest cool-down remembered: a Retry-After asking more (a year, or 10^12 s, which is no
# date at all) is taken as a day, so a bad header cannot stop every scheduled run for good.
MAX_WAIT_S = 86_400.0

log = logging.getLogger(__name__)


def remember(path: Path, url: str, wait_s: float, now: float | None = None) -> None:
    now = time.time() if now is None else now
    wait_s = min(wait_s, MAX_WAIT_S)
    until = now + wait_s
    current = read(path)
    if current and current["until_epoch"] >= until:
        return
    _write(path, url, wait_s, until)


def remember_if_possible(path: Path, url: str, wait_s: float) -> None:
    """``remember`` for a command that takes no lock and makes no folder (``sync --plan``,
    ``doctor --online``): where the data folder cannot be written, the 429 is still answered with
    75, only not remembered, and a warning says so."""
    try:
        remember(path, url, wait_s)
    except OSError as exc:
        log.warning("the cool-down of a 429 could not be kept in %s: %s", path, exc)


def _write(path: Path, url: str, wait_s: float, until: float) -> None:
    body = {"until_epoch": until, "until": datetime.fromtimestamp(until, timezone.utc).isoformat(timespec="seconds"),
            "url": url, "wait_s": wait_s}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(body, indent=1) + "\n").encode())


def read(path: Path) -> dict | None:
    """The cool-down kept in ``path``, or None: none kept, or a file that cannot be read or is not
    one (a warning says so: a pause it held is then not kept)."""
    body, problem = read_checked(path)
    if problem:
        log.warning("%s", problem)
    return body


def read_checked(path: Path) -> tuple[dict | None, str | None]:
    """``read`` without the warning: the cool-down or None, and what is wrong with the file, if
    anything (doctor reports it as a finding)."""
    try:
        body = json.loads(Path(path).read_text("utf-8"))
        float(body["until_epoch"])
        return body, None
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"not a cool-down: {exc!r}"
        return None, f"the cool-down file {path} cannot be read ({why}); a 429's pause it may hold is not kept"


def check(path: Path, now: float | None = None, reanchor: bool = True) -> None:
    """Raise RateLimited (exit 75) while a remembered cool-down lasts.

    A cool-down never lasts longer than the wait Scryfall asked for (at most MAX_WAIT_S): when
    more than that is left, the clock was set back since the 429, and (``reanchor``, the sync that
    holds the lock) the cool-down is written again to end that wait from now, instead of lasting
    until the clock catches up.
    """
    body = read(path)
    now = time.time() if now is None else now
    if body and body["until_epoch"] > now:
        left = body["until_epoch"] - now
        try:
            asked = min(float(body.get("wait_s")), MAX_WAIT_S)
        except (TypeError, ValueError):
            asked = None
        if asked is not None and left > asked + 1 and reanchor:
            _write(path, body.get("url"), asked, now + asked)
            body, left = read(path) or body, asked
        raise RateLimited(f"Scryfall rate-limited casefile (429 on {body.get('url')}); it asked for a pause until "
                          f"{body['until']} ({left:.0f} s from now). No request was made; try again after that.")
