"""One sync at a time: an advisory lock on ``data/sync.lock``, which a rebuild, a prune and a
rules ingest take too.

The lock is an open file description lock (Linux ``F_OFD_SETLK``) on the whole file. Like
``flock``, it belongs to the open file, so the kernel releases it when the holder dies, even by
kill -9: a stale lock file never blocks the next run. Unlike ``flock``, whether it is held can be
asked without taking it (``F_OFD_GETLK``): ``status`` and ``doctor`` only look, so a sync starting
at that moment is never turned away, and a user who may not write the file can still ask. The
file holds the holder's pid for the message the second process prints.
"""

from __future__ import annotations

import errno
import fcntl
import os
import struct
from pathlib import Path

from .errors import ConfigError, LockBusy

# The commands that take the lock, for the messages that say one holds it.
HOLDERS = "sync, rebuild, prune or rules ingest"

# struct flock: l_type, l_whence, l_start, l_len (0: the whole file), l_pid (0, as OFD locks require)
_FLOCK = "hhqqi"


def _whole_file(lock_type: int) -> bytes:
    return struct.pack(_FLOCK, lock_type, os.SEEK_SET, 0, 0, 0)


# Where there are no OFD locks, flock: the same lock, except that asking whether it is held means
# taking it for a moment. Python lacks the constant on macOS and the BSDs; a Linux kernel older
# than 3.15, and some sandboxes (WSL 1, older gVisor), answer EINVAL: the first such answer
# switches this process to flock (every process on that kernel gets the same answer).
_OFD = hasattr(fcntl, "F_OFD_SETLK")


def _ofd(fd: int, command: int, lock_type: int) -> bytes | None:
    """An OFD lock call, or None when the kernel turns OFD locks down (then flock from now on)."""
    global _OFD
    try:
        return fcntl.fcntl(fd, command, _whole_file(lock_type))
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
        _OFD = False
        return None


def _take(fd: int) -> None:
    """Lock the whole file or raise BlockingIOError (PermissionError: EACCES, the same answer)."""
    if _OFD and _ofd(fd, fcntl.F_OFD_SETLK, fcntl.F_WRLCK) is not None:
        return
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _release(fd: int) -> None:
    if _OFD:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _whole_file(fcntl.F_UNLCK))
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _held(fh) -> bool:
    if _OFD:
        answer = _ofd(fh.fileno(), fcntl.F_OFD_GETLK, fcntl.F_WRLCK)
        if answer is not None:
            return struct.unpack(_FLOCK, answer)[0] != fcntl.F_UNLCK
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    return False


def _unlockable(path: Path, exc: OSError) -> ConfigError:
    """The error for a lock call the file system refuses (ENOLCK: an NFS mount without its lock
    service): one sync at a time cannot be kept there."""
    return ConfigError(f"cannot lock {path} ({exc.strerror or exc}): the data folder must be on a file system "
                       "that supports file locks (for NFS, its lock service), so that one sync runs at a time")


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
            _take(fh.fileno())
        except OSError as exc:
            if not isinstance(exc, (BlockingIOError, PermissionError)):
                fh.close()
                raise _unlockable(self.path, exc) from None
            # EAGAIN or EACCES: another process holds it
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            fh.close()
            raise LockBusy(f"another casefile {HOLDERS} holds the lock (pid {holder}, lock {self.path}); "
                           "this one stops without doing anything. Try again later.") from None
        # The pid only names the holder to a second process: a full disk (where a prune is what
        # frees space) keeps the lock without it. Written to the descriptor, unbuffered, so that
        # nothing is left in a buffer to fail again at the close.
        try:
            os.ftruncate(fh.fileno(), 0)
            os.pwrite(fh.fileno(), f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        self._fh = fh
        return self

    def __exit__(self, *exc) -> None:
        if self._fh is not None:
            try:
                os.ftruncate(self._fh.fileno(), 0)
            except OSError:  # a full disk, or a file that cannot be truncated: the lock goes all the same
                pass
            finally:
                _release(self._fh.fileno())
                self._fh.close()
                self._fh = None


def holder_pid(path: Path) -> int | None:
    """The pid of the running sync (-1 when it has not written it yet), or None if no sync holds
    the lock. Opens the file read-only and, where there are OFD locks, takes no lock. ConfigError
    (78) when the file cannot be opened for reading."""
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:  # a lock file this user may not read, or a folder in its place
        raise ConfigError(f"cannot read the sync lock {path} ({exc.strerror or exc}), so whether a sync runs "
                          "is unknown: the lock file must be a file that the users running casefile can read "
                          "(a sync makes it again if it is removed while none runs)") from None
    with fh:
        try:
            held = _held(fh)
        except OSError as exc:
            raise _unlockable(path, exc) from None
        if not held:
            return None
        text = fh.read().decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else -1
