"""One sync at a time: an advisory lock on ``data/sync.lock``.

The lock is ``flock`` on an open file, so the kernel releases it when the holder dies, even by
kill -9: a stale lock file never blocks the next run. The file holds the holder's pid for the
message the second process prints.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .errors import ConfigError, LockBusy


class SyncLock:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._fh = None

    def __enter__(self) -> "SyncLock":
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fh = open(self.path, "a+")
        except OSError as exc:  # a data folder that cannot be made or written: a setting to fix
            folder = self.path.parent
            why = "it is not a folder" if folder.exists() and not folder.is_dir() else \
                f"{exc.strerror or exc} ({exc.filename or self.path})"
            raise ConfigError(f"cannot use the data folder {folder}: {why}") from None
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            fh.close()
            raise LockBusy(f"another casefile sync is running (pid {holder}, lock {self.path}); "
                           "this one stops without doing anything. Try again later.") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc) -> None:
        if self._fh is not None:
            try:
                self._fh.seek(0)
                self._fh.truncate()
            finally:
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
                self._fh.close()
                self._fh = None


def holder_pid(path: Path) -> int | None:
    """The pid of the running sync, or None if no sync holds the lock."""
    if not Path(path).exists():
        return None
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            text = fh.read().strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        return None
