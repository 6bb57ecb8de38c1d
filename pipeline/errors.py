"""The project's exceptions, each carrying the process exit code the CLI maps it to.

Exit codes follow BSD sysexits where one fits, so cron wrappers and CI can tell a bad
source (65) from an unreachable one (69) from "try again later" (75).
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_BUG = 1
EXIT_USAGE = 2
EXIT_DATAERR = 65  # a source sent data we cannot use
EXIT_UNAVAILABLE = 69  # a source could not be reached or refused us
EXIT_TEMPFAIL = 75  # lock busy, rate limited, retries spent: try again later
EXIT_CONFIG = 78  # the configuration is wrong
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT), as a shell reports a command the signal ended


class CasefileError(Exception):
    """Base class: an expected failure with a message meant for the user."""

    exit_code = EXIT_BUG


class UsageError(CasefileError):
    """The command was asked for something it cannot do (bad query, bad option value)."""

    exit_code = EXIT_USAGE


class QueryMatchesNothing(UsageError):
    """A bulk view whose query keeps no card of the bulk file: the run is rejected (the API path
    hears the same from Scryfall's search before anything is fetched)."""


class SourceDataError(CasefileError):
    """A source answered, but with data we cannot use."""

    exit_code = EXIT_DATAERR


class ChecksFailed(SourceDataError):
    """The rows of a load break a rule of sql/checks/: the load was rolled back."""


class ParseError(SourceDataError):
    """A document could not be turned into records. Always names the document."""

    def __init__(self, document: str, reason: str):
        self.document = document
        self.reason = reason
        super().__init__(f"cannot parse {document}: {reason}")


class UnrecognizedPage(ParseError):
    """A rulings page that is not the page asked for: it shows no rulings and lacks what that site's
    page of the card (or type) has, such as the heading that names it. A maintenance, error or login
    page served with 200 reads like this; it says nothing about the card's rulings. The page
    extract (``extract/pages.py``) treats it as a failed answer: retried, then quarantined."""


class SourceUnavailable(CasefileError):
    """A source could not be reached, or refused the request for good."""

    exit_code = EXIT_UNAVAILABLE


class TryAgainLater(CasefileError):
    """Nothing is wrong with the request, but it cannot be done now."""

    exit_code = EXIT_TEMPFAIL


class LockBusy(TryAgainLater):
    """Another sync, rebuild, prune or rules ingest holds the lock."""


class Aborted(TryAgainLater):
    """The run was stopped by a signal (SIGTERM); nothing was loaded, unless the message says what was."""


class Interrupted(Aborted):
    """A stop by Ctrl-C that came after a run was made permanent: the message says what was kept."""

    exit_code = EXIT_INTERRUPTED


class RateLimited(TryAgainLater):
    """Scryfall asked us to slow down (HTTP 429) and the wait is longer than we may sleep."""


class ConfigError(CasefileError):
    """A setting (option, environment variable, path) is invalid."""

    exit_code = EXIT_CONFIG


class NoWarehouse(ConfigError):
    """No warehouse to read yet: no file, or a DuckDB file no sync has made casefile's tables in."""


class ScryfallError(CasefileError):
    """Scryfall's own error object, with every field it sent reaching the user.

    https://scryfall.com/docs/api/errors : status, code, details, optional type and warnings.
    """

    def __init__(self, url: str, status: int, code: str | None, details: str | None,
                 warnings: list[str] | None = None, exit_code: int = EXIT_UNAVAILABLE):
        self.url = url
        self.status = status
        self.code = code
        self.details = details
        self.warnings = list(warnings or [])
        self.exit_code = exit_code
        msg = f"Scryfall answered {status}"
        if code:
            msg += f" ({code})"
        msg += f" for {url}"
        if details:
            msg += f": {details}"
        for w in self.warnings:
            msg += f"\n  warning: {w}"
        super().__init__(msg)


def cut(text: str, most: int = 80) -> str:
    """``text`` cut at ``most`` characters, "…" marking the cut: an argument a message repeats
    may be a pasted text of any length."""
    return text if len(text) <= most else text[:most] + "…"


def shown(text: str, most: int = 80) -> str:
    """``text`` quoted for a message, cut at ``most`` characters."""
    return repr(cut(text, most))


def printable(text: str) -> str:
    """``text`` as it can be printed and stored as UTF-8: the bytes of a file name that are not
    UTF-8 (kept by Python as surrogate escapes) become U+FFFD, and so does any other lone surrogate
    (a server's error text may hold one)."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def unopenable_warehouse(path, exc: Exception, writer: bool = True) -> ConfigError:
    """The error for a warehouse file DuckDB cannot open (not because a sync holds it), with
    what to do: the raw store holds everything the warehouse is made of. ``writer``: whether the
    open was a writer's (a sync, a rebuild) or a reader's (sql, search, export)."""
    first = str(exc).strip().splitlines()[0].rstrip(".!") if str(exc).strip() else exc.__class__.__name__
    if Path(path).is_dir():  # nothing a rebuild could mend: it would have to replace the folder
        return warehouse_is_a_folder(path)
    if any(words in first for words in _OPEN_REFUSED):  # not damage: a rebuild could not write either
        if not writer:
            return ConfigError(f"cannot open the warehouse {path}: {first}. Make the file readable by this user "
                               "(the permissions of the file and its folder).")
        return ConfigError(f"cannot open the warehouse {path}: {first}. Make the file and its folder writable "
                           "(a read-only mount, the permissions); the runs fetched meanwhile are loaded then.")
    return ConfigError(f"cannot open the warehouse {path}: {first}. "
                       "If the file is damaged, `casefile rebuild` makes it again from data/raw/.")


def warehouse_is_a_folder(path) -> ConfigError:
    return ConfigError(f"the warehouse {path} is a folder, not a DuckDB file: move it away (or set "
                       "--data-dir to the data folder that holds the warehouse); the next sync or rebuild makes "
                       "the file there")


# What the system says (strerror, in DuckDB's message) of a file it does not let a writer open.
_OPEN_REFUSED = ("Read-only file system", "Permission denied")


# What DuckDB says of a warehouse file that is damaged where it reads it (on opening it, or in a
# later query): cut short, or a block whose checksum fails.
_DAMAGED = ("Corrupt database file", "Could not read enough bytes from file")


def damaged_warehouse(exc: Exception) -> ConfigError | None:
    """The error for DuckDB's ``exc`` when it says the warehouse file is damaged, else None."""
    text = str(exc).strip()
    if not any(words in text for words in _DAMAGED):
        return None
    return ConfigError("the warehouse file is damaged: `casefile rebuild` makes it again from data/raw/ "
                       f"({text.splitlines()[0].rstrip('.!')})")


# What the system says (strerror, in DuckDB's message) of a write it refused: a full disk or quota
# is worth a try later; the others are the data folder's set-up.
_FULL = ("No space left on device", "Disk quota exceeded")
_KEPT = "the warehouse is as it was before the failed write, and the runs it has not loaded stay in data/raw/ " \
        "for the next sync"
_REFUSED = ("Permission denied", "Read-only file system", "File too large", "Operation not permitted")


def unwritable_warehouse(exc: Exception) -> CasefileError | None:
    """The error for DuckDB's ``exc`` when it says a write of the warehouse (its file, its WAL, a
    rebuild's new file) was refused by the system, else None. Nothing of the failed transaction
    is kept, and the raw store keeps every run: the next sync loads what is not loaded yet."""
    text = str(exc).strip()
    first = text.splitlines()[0].rstrip(".!") if text else exc.__class__.__name__
    if any(words in text for words in _FULL):
        return TryAgainLater(f"cannot write the warehouse ({first}); free some space and run again: {_KEPT}")
    if any(words in text for words in _REFUSED):
        return ConfigError(f"cannot write the warehouse ({first}); casefile must be able to write the warehouse "
                           f"file and its folder: {_KEPT}")
    return None
