"""Logging and progress for the CLI: text or one JSON object per line, progress bars on terminals."""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone


def now_iso(created: float | None = None) -> str:
    """A JSON line's ``ts``: UTC, to the millisecond (``created``: a time.time() value; now if None)."""
    moment = datetime.now(timezone.utc) if created is None else datetime.fromtimestamp(created, timezone.utc)
    return moment.isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {"ts": now_iso(record.created),
                 "level": record.levelname.lower(), "event": getattr(record, "event", "log"),
                 "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class StreamHandler(logging.StreamHandler):
    """The CLI's handler. logging answers an exception raised while a record is written by printing
    its traceback and going on; SIGTERM's ``Aborted``, which the signal handler raises wherever the
    main thread is (``stop.signals_stop``), leaves the log call instead, as it leaves any other line."""

    def handleError(self, record: logging.LogRecord) -> None:
        from .errors import Aborted

        if isinstance(sys.exc_info()[1], Aborted):
            raise  # the exception being handled: this is called from emit's except clause
        super().handleError(record)


_FORMAT = {"value": "text"}


def is_json() -> bool:
    return _FORMAT["value"] == "json"


def setup(log_format: str, verbosity: int) -> None:
    _FORMAT["value"] = log_format
    # -q (verbosity -1): errors only; default: warnings too; -v: progress of each step; -vv: debug
    level = (logging.ERROR if verbosity < 0 else logging.WARNING if verbosity == 0
             else logging.INFO if verbosity == 1 else logging.DEBUG)
    handler = StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("casefile: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("urllib3", "requests"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))


class Progress:
    """A tqdm bar per step, shown only on an interactive terminal (silent under cron and in CI)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._bars: dict = {}

    def __call__(self, label: str, unit: str = " req", total: int | None = None) -> None:
        """One more unit done in the step ``label`` (of ``total``, when it is known)."""
        if not self.enabled:
            return
        from tqdm import tqdm

        bar = self._bars.get(label)
        if bar is None:
            bar = self._bars[label] = tqdm(desc=label, unit=unit, total=total, leave=False, file=sys.stderr)
        bar.update(1)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


def wants_progress(log_format: str, verbosity: int) -> bool:
    return log_format == "text" and verbosity >= 0 and sys.stderr.isatty()
