"""Settings: where data lives, which API to call, how politely. Read once, passed down.

Every value has a default, an environment variable (CASEFILE_*) and, for the ones a user
changes per run, a CLI option. Nothing here touches the network or the warehouse.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from . import __version__
from .errors import ConfigError, UsageError

DEFAULT_API_URL = "https://api.scryfall.com"
DEFAULT_QUERY = 'type:"Case"'
# What ``--sources`` may name. Scryfall asks clients to prefer its API, so its card pages are
# fetched only when asked for.
ALL_SOURCES = ("api", "wiki", "listeblanche", "scryfall-page")
LIVE_DEFAULT_SOURCES = ("api", "wiki", "listeblanche")
# What ``sync --bulk`` may name.
BULK_MODES = ("auto", "always", "never")
# Rulings pages: the MTG wiki (formerly mtg.fandom.com), listeblanche.fr, scryfall.com card pages.
DEFAULT_WIKI_URL = "https://mtg.wiki"
DEFAULT_LISTEBLANCHE_URL = "https://listeblanche.fr"
DEFAULT_SCRYFALL_WEB_URL = "https://scryfall.com"

# Scryfall's published limits (https://scryfall.com/docs/api, "Rate Limits and Good Citizenship",
# as of 2026): 50-100 ms between requests on average, and at most 2 per second to /cards/search.
# These are floors: settings may raise them, never lower them.
SEARCH_INTERVAL_S = 0.5
API_INTERVAL_S = 0.1
# Web pages (wiki, listeblanche.fr, scryfall.com card pages): one request per host per second.
PAGE_INTERVAL_S = 1.0
# The longest Crawl-delay a robots.txt may ask and have its host's pages fetched: a host asking
# more is left alone for the run (a day between pages would stall a scheduled sync for days).
MAX_CRAWL_DELAY_S = 60.0
# How long `casefile prune` keeps every run, unless told (--keep-days).
DEFAULT_KEEP_DAYS = 30
# Below this DuckDB cannot load even the bundled sample (50 MB fails, 100 MB works).
MIN_MEMORY_LIMIT_MB = 100
# The largest memory limit and wait taken: beyond them a setting is a typo, and DuckDB cannot read
# such a limit nor Python sleep so long (1e15 MB, 1e12 s end in errors deep in a sync).
MAX_MEMORY_LIMIT_MB = 16 * 1024 * 1024  # 16 TiB
MAX_WAIT_S = 86_400.0  # a day


def _package_root() -> Path:
    return Path(__file__).resolve().parent.parent


def default_data_dir(env=None) -> Path:
    """``data/`` of a source checkout when run from one, else the user's data directory:
    ``$XDG_DATA_HOME/casefile``, or ``~/.local/share/casefile``. An ``XDG_DATA_HOME`` that is not
    an absolute path is ignored, as the XDG Base Directory specification asks (relative to the
    current folder, a cron job's data would depend on where it started). Without a home folder
    (no ``HOME``, and a user the system does not know, as in a container run under a bare uid)
    there is no default: a ConfigError asks for CASEFILE_DATA_DIR."""
    env = os.environ if env is None else env
    checkout = _package_root() / "data"
    if (checkout / "raw").is_dir() and (_package_root() / "pyproject.toml").is_file():
        return checkout
    xdg = env.get("XDG_DATA_HOME") or ""
    if os.path.isabs(xdg):
        return Path(xdg) / "casefile"
    home = _home(env)
    if home is None:
        raise ConfigError("no data folder: neither HOME nor XDG_DATA_HOME is set to an absolute path, and the "
                          "system knows no home folder for this user; set CASEFILE_DATA_DIR (or --data-dir)")
    return home / ".local" / "share" / "casefile"


def _home(env) -> Path | None:
    """The user's home folder: ``HOME`` when it is an absolute path, else the password database's;
    None when neither gives one."""
    home = env.get("HOME") or ""
    if os.path.isabs(home):
        return Path(home)
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, AttributeError, KeyError, OSError):  # no pwd (Windows), or a uid with no entry
        return None
    return Path(home) if os.path.isabs(home) else None


def expand_home(path: Path | str) -> Path:
    """``path`` with a leading ``~`` (or ``~user``) made that home folder; UsageError when there
    is none to put for it (Path.expanduser raised RuntimeError): for ``~``, no HOME and no home
    folder the system knows for this user; for ``~user``, a user the system does not know."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        raise UsageError(f"{str(path)!r}: {_no_home(path)}; write the path in full") from None


def duckdb_path_problem(path: Path) -> str | None:
    """Why DuckDB, which takes a path as UTF-8 text, would not open ``path`` where Python does, and
    what to do; None when it would. Python reads a path's bytes in the locale's encoding: bytes that
    are not UTF-8 are no path DuckDB can take, and a path that is not ASCII read in another encoding
    than UTF-8 (Latin-1, or ASCII under ``LC_ALL=C`` with ``PYTHONUTF8=0``) is another path to DuckDB."""
    data = os.fsencode(path)
    try:
        if str(path).encode("utf-8") == data:
            return None
    except UnicodeEncodeError:  # bytes the locale's encoding has no character for
        pass
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "its path is not UTF-8; rename it or choose another"
    return (f"its path is not ASCII and the locale's encoding ({sys.getfilesystemencoding()}) is not UTF-8, the "
            "encoding DuckDB reads paths in; run casefile under a UTF-8 locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1")


def path_text(path: Path) -> str:
    """``path`` as its bytes read as UTF-8 (``\ufffd`` for those that are not), whatever the
    locale's encoding: the name a UTF-8 terminal or file shows."""
    return os.fsencode(path).decode("utf-8", "replace")


def _no_home(path: Path | str) -> str:
    """Why the ``~`` that ``path`` starts with stands for no folder."""
    first = Path(path).parts[0] if Path(path).parts else ""
    user = first[1:]
    if user:
        return f"its ~{user} names a user the system does not know ({user!r})"
    return "there is no home folder for its ~ (HOME is not set, and the system knows none for this user)"


def check_sources(sources) -> None:
    """A sync (and its plan) needs the API among its sources."""
    if "api" not in sources:
        raise UsageError("--sources must include api: the web pages are matched to the cards it brings")


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    api_url: str = DEFAULT_API_URL
    wiki_url: str = DEFAULT_WIKI_URL
    listeblanche_url: str = DEFAULT_LISTEBLANCHE_URL
    scryfall_web_url: str = DEFAULT_SCRYFALL_WEB_URL
    wiki_page: str | None = None  # the wiki page for the query, when it is not /page/<Type>
    contact: str | None = None
    search_interval_s: float = SEARCH_INTERVAL_S
    api_interval_s: float = API_INTERVAL_S
    page_interval_s: float = PAGE_INTERVAL_S
    max_crawl_delay_s: float = MAX_CRAWL_DELAY_S
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0
    # Attempts per request on 5xx, connection errors, truncated or invalid bodies (1 try + retries).
    max_attempts: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    # A 429 waits Retry-After, but never less than this (Scryfall asks for a pause of at least
    # 30 s after a 429) and never more than the cap: beyond it the run stops with exit 75.
    retry_after_min_s: float = 30.0
    retry_after_max_s: float = 120.0
    # The largest body accepted. A /cards/search page of 175 cards is about 1 MiB.
    max_bytes: int = 32 * 1024 * 1024
    # The largest bulk file accepted (streamed to disk, never held in memory). Scryfall's
    # all_cards file is about 2.3 GB unpacked (2026); default_cards about 500 MB.
    max_bulk_bytes: int = 8 * 1024 ** 3
    # Readers wait this long for a running sync to release the warehouse before exiting 75.
    reader_wait_s: float = 5.0
    # DuckDB's memory for a load (its buffer pool; beyond it, temporary data spills to disk).
    # 600 MB keeps a load of all of Scryfall (4 times the cards of 2026) under 1 GiB of RSS.
    # 0: no limit of casefile's (DuckDB's default, 80 % of the machine's memory).
    memory_limit_mb: int = 600
    # A sync whose loads were all deltas lets DuckDB compact the warehouse's row groups at its
    # close only when the count of loaded runs is a multiple of this (load/warehouse.py
    # defer_compaction); 1: every sync compacts.
    compact_every: int = 7

    @property
    def raw_dir(self) -> Path:
        return self.data_dir / "raw"

    @property
    def warehouse_dir(self) -> Path:
        return self.data_dir / "warehouse"

    @property
    def warehouse_path(self) -> Path:
        return self.warehouse_dir / "casefile.duckdb"

    @property
    def rebuild_files(self) -> tuple[Path, Path]:
        """The new warehouse a rebuild writes before putting it in place, and its write-ahead log."""
        built = self.warehouse_path.with_name(self.warehouse_path.name + ".rebuild")
        return built, Path(str(built) + ".wal")

    @property
    def compact_files(self) -> tuple[Path, Path]:
        """The copy of the warehouse a prune writes before putting it in place (load/warehouse.py
        ``compact``), and its write-ahead log."""
        copy = self.warehouse_path.with_name(self.warehouse_path.name + ".compact")
        return copy, Path(str(copy) + ".wal")

    @property
    def cache_dir(self) -> Path:
        """Files derived from raw documents, kept to save work (deleting them is safe)."""
        return self.data_dir / "cache"

    @property
    def lock_path(self) -> Path:
        return self.data_dir / "sync.lock"

    @property
    def cooldown_path(self) -> Path:
        return self.data_dir / "cooldown.json"

    @property
    def user_agent(self) -> str:
        contact = self.contact or "contact not set: CASEFILE_CONTACT"
        return f"casefile/{__version__} (+{contact})"

    def with_overrides(self, **changes) -> "Settings":
        changes = {k: v for k, v in changes.items() if v is not None}
        return validate(replace(self, **changes))


def redact_url(url: str) -> str:
    """The URL with any user:password@ replaced by ``***@``, fit to print or log."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unreadable URL>"
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def url_problem(url: str) -> str | None:
    """Why ``url``, a URL casefile is handed to ask (a bulk file's from Scryfall's index, a rules
    file's from the command line), cannot be asked, or None: it does not parse (a port that is no
    number or out of range, a broken IPv6 address), is not http(s), carries credentials, or names
    no valid host. Said after the URL, as in "… names no host"."""
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # the port is parsed when asked for
    except ValueError as exc:
        return f"cannot be read ({exc})"
    if parts.scheme not in ("http", "https"):
        return "is not an HTTP URL"
    if parts.username is not None or parts.password is not None:
        return "carries user:password@, and casefile sends no credentials"
    if not host:
        return "names no host"
    problem = host_problem(host)
    return f"names a host casefile cannot ask ({problem})" if problem else None


# One label of a host name: letters, digits, hyphens (and underscores, which some hosts use),
# neither starting nor ending with a hyphen.
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")


def host_problem(host: str) -> str | None:
    """Why ``host`` (a URL's host, without port or brackets) cannot be asked, or None."""
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"{host!r} is not an IPv6 address"
        return None
    if not host.isascii():
        return f"write the host {host!r} in its ASCII form (xn--...)"
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(host) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in labels):
        return f"{host!r} is not a valid host name"
    return None


def _is_space_or_control(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) == "Cc"


def check_http_url(url: str, what: str, base: bool = False) -> str:
    """A well-formed http(s) URL without credentials (casefile sends none, and must not write them
    down): a valid host, and no space or control character anywhere (write %20). ``base``: a URL
    casefile appends paths to (the API's, a site's), which has no query or fragment for them to
    land in, and no port 0."""
    try:
        parts = urlsplit(url)
        has_credentials = parts.username is not None or parts.password is not None
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise ConfigError(f"{what} is not a URL: {redact_url(url)!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{what} must be an http(s) URL, got {redact_url(url)!r}")
    if has_credentials:
        raise ConfigError(f"{what} must not carry credentials (user:password@), got {redact_url(url)!r}; "
                          "casefile sends none and keeps every URL it asks in the raw store")
    if any(_is_space_or_control(c) for c in url):
        raise ConfigError(f"{what} is not a URL: {redact_url(url)!r} holds a space or a control character")
    problem = host_problem(parts.hostname)
    if problem:
        raise ConfigError(f"{what} is not a URL: {redact_url(url)!r} ({problem})")
    if base and (parts.query or parts.fragment or "?" in url or "#" in url or parts.port == 0):
        raise ConfigError(f"{what} must be a base URL, without a query, a fragment or port 0: casefile "
                          f"appends paths to it, got {redact_url(url)!r}")
    return url.rstrip("/")


def validate(settings: Settings) -> Settings:
    api_url = check_http_url(settings.api_url, "the API URL (CASEFILE_API_URL or --api-url)", base=True)
    sites = {name: check_http_url(getattr(settings, name), _named(name), base=True)
             for name in ("wiki_url", "listeblanche_url", "scryfall_web_url")}
    if settings.wiki_page:
        sites["wiki_page"] = check_http_url(settings.wiki_page, f"the wiki page ({_named('wiki_page')} or --wiki-page)")
    floors = {"search_interval_s": SEARCH_INTERVAL_S, "api_interval_s": API_INTERVAL_S,
              "page_interval_s": PAGE_INTERVAL_S}
    for name, floor in floors.items():
        if getattr(settings, name) < floor:
            raise ConfigError(f"{_named(name)} may not be below {floor} s (the sources' published limits)")
    if settings.max_attempts < 1:
        raise ConfigError(f"{_named('max_attempts')} must be at least 1, got {settings.max_attempts}")
    if settings.retry_after_min_s < 0 or settings.retry_after_max_s < settings.retry_after_min_s:
        raise ConfigError(f"{_named('retry_after_min_s')} may not be negative nor over {_named('retry_after_max_s')} "
                          f"(got {settings.retry_after_min_s:g} and {settings.retry_after_max_s:g})")
    for name in ("max_bytes", "max_bulk_bytes"):
        if getattr(settings, name) < 1024:
            raise ConfigError(f"{_named(name)} must be at least 1024, got {getattr(settings, name)}")
    for name in ("connect_timeout_s", "read_timeout_s", "backoff_base_s", "backoff_max_s", "reader_wait_s",
                 "max_crawl_delay_s"):
        if getattr(settings, name) < 0:
            raise ConfigError(f"{_named(name)} may not be negative")
    for name in ("connect_timeout_s", "read_timeout_s"):
        if getattr(settings, name) == 0:
            raise ConfigError(f"{_named(name)} must be more than 0 s")
    for name in ("search_interval_s", "api_interval_s", "page_interval_s", "connect_timeout_s", "read_timeout_s",
                 "backoff_base_s", "backoff_max_s", "retry_after_min_s", "retry_after_max_s", "reader_wait_s",
                 "max_crawl_delay_s"):
        if getattr(settings, name) > MAX_WAIT_S:
            raise ConfigError(f"{_named(name)} may not be over {MAX_WAIT_S:.0f} s (a day)")
    if settings.memory_limit_mb and settings.memory_limit_mb < MIN_MEMORY_LIMIT_MB:
        raise ConfigError(f"{_named('memory_limit_mb')} must be 0 (DuckDB's own default) or at least "
                          f"{MIN_MEMORY_LIMIT_MB}")
    if settings.memory_limit_mb > MAX_MEMORY_LIMIT_MB:
        raise ConfigError(f"{_named('memory_limit_mb')} may not be over {MAX_MEMORY_LIMIT_MB} (16 TiB)")
    if settings.compact_every < 1:
        raise ConfigError(f"{_named('compact_every')} must be at least 1 (1: every sync compacts)")
    try:
        data_dir = expand_home(settings.data_dir)
    except UsageError:
        raise ConfigError(f"cannot use the data folder {str(settings.data_dir)!r}: {_no_home(settings.data_dir)}; "
                          "write the path in full") from None
    problem = duckdb_path_problem(data_dir)  # DuckDB and the raw store's JSON take paths as UTF-8
    if problem:
        raise ConfigError(f"cannot use the data folder {path_text(data_dir)!r}: {problem}")
    try:
        existing = next((path for path in (data_dir, *data_dir.parents) if path.exists()), None)
    except OSError as exc:  # a folder on the way that this user may not look into
        raise ConfigError(f"cannot use the data folder {data_dir}: {exc.strerror or exc} "
                          f"({exc.filename or data_dir})") from None
    if existing is not None and not existing.is_dir():  # the folder, or one it would be made in
        raise ConfigError(f"cannot use the data folder {data_dir}: "
                          + ("it is not a folder" if existing == data_dir else f"{existing} is not a folder"))
    if settings.contact and any(unicodedata.category(c) == "Cc" for c in settings.contact):
        raise ConfigError("the contact (CASEFILE_CONTACT) may not hold control characters (it goes into a request "
                          "header)")
    beyond_latin_1 = [c for c in settings.contact or "" if ord(c) > 255]
    if beyond_latin_1:
        raise ConfigError(f"the contact (CASEFILE_CONTACT) goes into the User-Agent header, which carries "
                          f"Latin-1 characters only: {beyond_latin_1[0]!r} cannot be sent; write it without")
    return replace(settings, api_url=api_url, data_dir=data_dir, **sites)


def env_value(env, name: str) -> str | None:
    """The value of the variable ``name``, or None when it is unset, empty or blank (spaces only:
    an env file's ``CASEFILE_DATA_DIR= `` or a CI variable left blank sets nothing)."""
    value = env.get(name)
    return value if value and not value.isspace() else None


def _env_float(env, name: str) -> float | None:
    value = env_value(env, name)
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    return number


# The settings a user sets, by the environment variable that sets each (CASEFILE_API_URL, the
# data folder and the log format are read apart): validate's messages name the variable.
URL_VARS = {"wiki_url": "CASEFILE_WIKI_URL", "listeblanche_url": "CASEFILE_LISTEBLANCHE_URL",
            "scryfall_web_url": "CASEFILE_SCRYFALL_WEB_URL", "wiki_page": "CASEFILE_WIKI_PAGE"}
NUMBER_VARS = {"retry_after_min_s": "CASEFILE_RETRY_AFTER_MIN", "retry_after_max_s": "CASEFILE_RETRY_AFTER_MAX",
               "backoff_base_s": "CASEFILE_BACKOFF_BASE", "backoff_max_s": "CASEFILE_BACKOFF_MAX",
               "read_timeout_s": "CASEFILE_READ_TIMEOUT", "connect_timeout_s": "CASEFILE_CONNECT_TIMEOUT",
               "reader_wait_s": "CASEFILE_READER_WAIT", "max_crawl_delay_s": "CASEFILE_MAX_CRAWL_DELAY"}
COUNT_VARS = {"max_attempts": "CASEFILE_MAX_ATTEMPTS", "max_bytes": "CASEFILE_MAX_BYTES",
              "max_bulk_bytes": "CASEFILE_MAX_BULK_BYTES", "memory_limit_mb": "CASEFILE_MEMORY_LIMIT_MB",
              "compact_every": "CASEFILE_COMPACT_EVERY"}
_VARS = {**URL_VARS, **NUMBER_VARS, **COUNT_VARS}


def _named(field_name: str) -> str:
    """A setting as a message names it: its environment variable, or the field of ``Settings``
    for the ones no variable sets (the pacing intervals)."""
    return _VARS.get(field_name, field_name)


def from_env(env=None, data_dir: Path | None = None) -> Settings:
    """Settings from CASEFILE_* environment variables over the defaults; ``data_dir`` (the
    --data-dir option) over CASEFILE_DATA_DIR."""
    env = os.environ if env is None else env
    values: dict = {"data_dir": Path(data_dir or env_value(env, "CASEFILE_DATA_DIR") or default_data_dir(env))}
    for field_name, var in {"api_url": "CASEFILE_API_URL", **URL_VARS}.items():
        if env_value(env, var):
            values[field_name] = env[var]
    if env_value(env, "CASEFILE_CONTACT"):
        values["contact"] = env["CASEFILE_CONTACT"].strip()  # as a header's value is: " a " is "a"
    for field_name, var in NUMBER_VARS.items():
        number = _env_float(env, var)
        if number is not None:
            values[field_name] = number
    for field_name, var in COUNT_VARS.items():
        number = _env_float(env, var)
        if number is not None:
            if not number.is_integer():  # 2.7 attempts is a typo, not 2
                raise ConfigError(f"{var} must be a whole number, got {env[var]!r}")
            values[field_name] = int(number)
    return validate(Settings(**values))
