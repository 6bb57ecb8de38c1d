"""The line index of a bulk file: one row per object line, so that tomorrow's file can be
compared with today's line by line instead of being read whole.

Scryfall writes its bulk files one object per line (a JSON array with an element per line, or
JSON lines). ``sql/delta/scan_lines.sql`` hashes each line. The scan of a file depends on its
bytes alone, and its object index (what each line gave a full read, normalize/delta.py) on its
bytes and the view's query: both are kept in the cache folder (``data/cache/lines/``) under the
body's sha256 and computed once per file; after a load only those of the files just loaded stay
(``prune_cache``). Deleting the cache costs time, never data.
``copy_lines`` copies chosen lines to a file of their own, for DuckDB to read: by seeking in a
plain file, by one more scan in a gzipped one.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..resources import read_sql
from ..sqlexec import run_script

log = logging.getLogger(__name__)

# Part of every cache file's name: a new layout, or a DuckDB whose hash() may differ, starts afresh.
INDEX_VERSION = 1
# Part of the ruling keys' file names: the symbol-free key they hold (normalize/text.py). 2: a
# symbol leaves nothing in its place ('"{t}"' gives '""', not '" "'); 3: "ʼ" (U+02BC) is an
# apostrophe. Keys made before are not read, so the next sync after the change is a full build.
RULING_KEYS_VERSION = 3


@dataclass(frozen=True)
class Volatile:
    """What the hashes of a file's lines leave out: fields that change every day and that
    casefile does not read, which the file's writer puts together in a run near the end of each
    object (``sql/delta/scan_lines.sql``):

    - ``cut``: the key that opens the run (its first field);
    - ``flat``: the key and brace that open the run's last field, an object of plain values;
    - ``between``: the key of a field that may come between the two.

    Where a line holds ``cut`` exactly once, and after it ``flat`` exactly once, with nothing
    between them but the values of ``cut`` and ``between`` (no quote left once the ``between``
    keys are taken out: no other key), the text from ``cut`` to the first ``}`` after ``flat``
    is left out: all of it is in the run. Elsewhere the regular expression ``pattern`` takes
    the fields out (it must not be able to match inside a JSON string): from ``cut`` on where
    the line holds it once, the text before it kept as it is, else over the whole line. A field
    that comes before ``cut`` stays in the hash, and so does a line whose run is not in that
    shape on one day and is on the next: its line reads as changed, which costs a delta time,
    never correctness."""

    pattern: str
    cut: str
    flat: str
    between: str

    def tag(self) -> str:
        """Part of the names of the cache files hashed this way (another way matches no line)."""
        text = "\0".join((self.pattern, self.cut, self.flat, self.between))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def hash_params(ignore: Volatile | None) -> dict:
    """The parameters $ignore, $cut, $flat and $between of the SQL that hashes lines
    (scan_lines.sql, verify_lines.sql)."""
    if ignore is None:
        return {"ignore": None, "cut": None, "flat": None, "between": None}
    return {"ignore": ignore.pattern, "cut": ignore.cut, "flat": ignore.flat, "between": ignore.between}


def _cache_file(cache_dir: Path, sha256: str, ignore: Volatile | None) -> Path:
    tag = "-" + ignore.tag() if ignore else ""
    return cache_dir / "lines" / f"{sha256}{tag}-v{INDEX_VERSION}-duckdb{duckdb.__version__}.parquet"


def object_index_file(cache_dir: Path, sha256: str, kind: str, query: str, ignore: Volatile | None = None) -> Path:
    """Where the object index of a bulk file is kept: what each of its lines gave a full read
    (normalize/delta.py). A function of the file's bytes and, for the card file, of the view's
    query (which lines it keeps) and of ``ignore``, the fields its line hashes leave out (an index
    hashed another way matches no line), so any build that read the file may write it."""
    keyed = f"{query}\0{ignore.tag() if ignore else ''}".encode()
    tag = "cards-" + hashlib.sha256(keyed).hexdigest()[:16] if kind == "bulk-cards" else "rulings"
    return cache_dir / "lines" / f"{sha256}-{tag}-v{INDEX_VERSION}-duckdb{duckdb.__version__}.parquet"


def ruling_keys_file(cache_dir: Path, cards_sha256: str, rulings_sha256: str, query: str) -> Path:
    """Where the ruling keys of a bulk view are kept (normalize/delta.py): the rulings whose match
    key is not their partition's symbol-free key, with that key. A function of the view: of the
    rulings file's bytes, and of the card file's bytes and the query, which decide whose rulings
    are kept (the rulings of a card the card file does not give, or gives refused, are none of the
    view's). A run with the same rulings file and another card file, whose load is then rejected,
    leaves the keys of the warehouse's view in place. Named by both files (``prune_cache``)."""
    tag = "keys-" + cards_sha256 + "-" + hashlib.sha256(query.encode()).hexdigest()[:16]
    return cache_dir / "lines" / (f"{rulings_sha256}-{tag}-v{INDEX_VERSION}-k{RULING_KEYS_VERSION}"
                                  f"-duckdb{duckdb.__version__}.parquet")


def save_table(con: duckdb.DuckDBPyConnection, source: str, target: Path, params: dict | None = None) -> None:
    """Write a TEMP table, or the rows of a query (``source`` in parentheses), to a parquet file
    of the cache: whole, then renamed into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.tmp-{os.getpid()}-{secrets.token_hex(3)}")
    try:
        con.execute(f"COPY {source} TO $save_target (FORMAT parquet)", {**(params or {}), "save_target": str(partial)})
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def cached(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """Whether the cache holds ``path`` whole. A file DuckDB cannot read as parquet (cut short
    or emptied by a crash of the system: the cache is not synced to disk) is deleted and counts
    as none: it is made again, where it would fail every build that reads it."""
    if not path.is_file():
        return False
    try:
        con.execute("SELECT count(*) FROM read_parquet($file)", {"file": str(path)}).fetchone()
    except (duckdb.InvalidInputException, duckdb.IOException) as exc:
        _unreadable(path, exc)
        return False
    return True


def _unreadable(path: Path, exc: duckdb.Error) -> None:
    log.warning("the cache file %s cannot be read (%s): deleted, to be made again", path, str(exc).splitlines()[0])
    path.unlink(missing_ok=True)


def load_table(con: duckdb.DuckDBPyConnection, table: str, source: Path) -> bool:
    """TEMP TABLE ``table`` from a parquet file of the cache; False if there is none, or if DuckDB
    cannot read it (as ``cached``, which is not asked first: reading the file tells, for nothing)."""
    if not source.is_file():
        return False
    _clear(con, table)
    try:
        con.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM read_parquet($file)", {"file": str(source)})
    except (duckdb.InvalidInputException, duckdb.IOException) as exc:
        _unreadable(source, exc)
        return False
    return True


def _clear(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop the TEMP table or view ``name`` (a build may have made either of that name)."""
    for kind in ("TABLE", "VIEW"):
        try:
            con.execute(f"DROP {kind} IF EXISTS temp.main.{name}")
        except duckdb.CatalogException:  # the other kind
            pass


def prune_cache(cache_dir: Path, keep: set[str]) -> int:
    """Delete the cached line scans and object indexes of bodies other than ``keep`` (sha256s),
    and files a crash left half written: the cache holds what the next day's delta needs, no
    more (ruling keys: those of a view of two bodies of ``keep``). Returns how many files went."""
    removed = 0
    for path in sorted((cache_dir / "lines").glob("*")):
        parts = path.name.split("-")
        bodies = {parts[0], parts[2]} if len(parts) > 2 and parts[1] == "keys" else {parts[0]}
        if path.name.startswith(".") or not bodies <= keep:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


# The line scans made by this process, kept in memory for the build that waits for them (an
# in-memory database attached to the connection: its cursors, on which the scans run, share it).
SCANS = "casefile_scans"


class LineScans:
    """The scans of the files (path, sha256, ignore) that are not in the cache yet, each on a
    cursor of its own, running while the caller goes on: a full build reads the documents
    meanwhile, a delta build reads the previous files' index (DuckDB's JSON reader does not keep
    both cores of the benchmark machine busy: the scans take the core it leaves). Each scan is
    made in memory (``SCANS``), where the build reads it. ``wait`` returns whether every scan
    could be made, and starts writing them to the cache; ``finish`` waits for those writes: they
    run while the build goes on, which keeps one core busy most of the time, instead of while the
    scans still take both cores."""

    def __init__(self, con: duckdb.DuckDBPyConnection, files: list[tuple[Path, str, Volatile | None]],
                 cache_dir: Path):
        self._con = con
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self.kept: dict[Path, str] = {}  # cache file -> the in-memory table that holds the scan
        jobs = []
        for path, sha256, ignore in files:
            target = _cache_file(cache_dir, sha256, ignore)
            if not cached(con, target):
                if not jobs:
                    con.execute(f"ATTACH IF NOT EXISTS ':memory:' AS {SCANS}")
                self.kept[target] = f"{SCANS}.main.scan_{len(self.kept)}_{secrets.token_hex(4)}"
                jobs.append((self._cursor(), path, self.kept[target], ignore))
        self._pool = ThreadPoolExecutor(max(1, len(jobs)))
        self._futures = [self._pool.submit(_scan, *job) for job in jobs]
        self._saves: list = []

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        self._cursors.append(self._con.cursor())
        return self._cursors[-1]

    def wait(self, interrupt: bool = False) -> bool:
        """Wait for the scans (``interrupt``: stop them first, the caller is giving up). When
        every one was made, their writes to the cache start."""
        if interrupt:
            self._interrupt()
        # a scan that fails or is interrupted returns False (logged by _scan)
        made = all(future.result() for future in self._futures)
        if made and not interrupt and not self._saves:
            self._saves = [self._pool.submit(_save_scan, self._cursor(), table, cached)
                           for cached, table in self.kept.items()]
        return made

    def finish(self, interrupt: bool = False) -> None:
        """Wait for the scans and their writes to the cache (a write that fails is logged: the
        next build of the file scans it again); then the cursors are closed."""
        if interrupt:
            self._interrupt()
        try:
            for future in [*self._futures, *self._saves]:
                future.result()
        finally:
            self._pool.shutdown()
            for cursor in self._cursors:
                cursor.close()

    def _interrupt(self) -> None:
        for cursor in self._cursors:
            try:
                cursor.interrupt()
            except duckdb.Error:  # its work is over, the cursor closed
                pass


def stage_lines(con: duckdb.DuckDBPyConnection, files: list[tuple[str, Path, str | None, Volatile | None]],
                cache_dir: Path | None, materialize: bool = True, scans: LineScans | None = None) -> bool:
    """For each (table, path, sha256, ignore): TEMP TABLE ``table`` (ord, h, n, off, len, ok) of
    the file's object lines, hashed without the fields ``ignore`` names (``Volatile``), from
    the cache (``materialize`` false: a TEMP view over it), or a TEMP view over the scan just
    made. Files not in the cache are scanned into it first, at the same time (``LineScans``;
    ``scans``: those the caller started). Returns whether every file could be split in lines and
    is one whole object per line (its index usable)."""
    if cache_dir is None or not all(sha256 for _, _, sha256, _ in files):
        return all(_scan_to_temp(con, path, table, ignore) and _usable(con, table) for table, path, _, ignore in files)
    own = scans is None
    if own:
        scans = LineScans(con, [(path, sha256, ignore) for _, path, sha256, ignore in files], cache_dir)
    try:
        if not scans.wait():
            return False
        for table, _, sha256, ignore in files:
            cached = _cache_file(cache_dir, sha256, ignore)
            _clear(con, table)
            if cached in scans.kept:
                con.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM {scans.kept[cached]}")
            elif materialize:
                load_table(con, table, cached)
            else:  # read once or twice: a view over the file (a view's statement takes no parameters)
                con.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM read_parquet({_quoted(cached)})")
        return all(_usable(con, table) for table, _, _, _ in files)
    finally:
        if own:
            scans.finish()


def release_scans(con: duckdb.DuckDBPyConnection) -> None:
    """Free the scans kept in memory (``SCANS``), once the build is done with them."""
    con.execute(f"DETACH DATABASE IF EXISTS {SCANS}")


def _scan(con: duckdb.DuckDBPyConnection, path: Path, target: str, ignore: Volatile | None) -> bool:
    """Table ``target`` (a name chosen by code: a TEMP table's, or one of ``SCANS``) from a scan
    of the file; False if DuckDB cannot split it in lines."""
    kind = "TABLE" if target.startswith(f"{SCANS}.") else "TEMP TABLE"
    script = read_sql("delta/scan_lines.sql").replace("{scan_table}", f"{kind} {target}").replace("{scan}", target)
    try:
        run_script(con, script, {"file": str(path), **hash_params(ignore)})
    except duckdb.Error as exc:  # a line longer than the reader takes, a broken gzip stream...
        log.info("no line index for %s: %s", path.name, str(exc).splitlines()[0])
        return False
    return True


def _scan_to_temp(con: duckdb.DuckDBPyConnection, path: Path, table: str, ignore: Volatile | None) -> bool:
    """TEMP TABLE ``table`` from a scan of the file (no cache)."""
    _clear(con, table)
    return _scan(con, path, table, ignore)


def _save_scan(cursor: duckdb.DuckDBPyConnection, kept: str, cached: Path) -> None:
    """Write the scan held in ``kept`` to the cache (whole, then renamed)."""
    try:
        save_table(cursor, kept, cached)
    except (OSError, duckdb.Error) as exc:  # the cache cannot be written (a full disk)
        log.warning("cannot write %s: %s", cached, str(exc).splitlines()[0])


def _usable(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return bool(con.execute(f"SELECT coalesce(bool_and(ok), true) FROM {table}").fetchone()[0])


def is_plain(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) != b"\x1f\x8b"


def _read_gzipped_lines(con: duckdb.DuckDBPyConnection, path: Path) -> list[str]:
    """The text of the lines of line_place of a gzipped file, in ord order, as in the file (comma
    included): one more scan, since a line cannot be reached by seeking."""
    return [text for _, text in con.execute(read_sql("delta/read_lines.sql"), {"file": str(path)}).fetchall()]


def copy_lines(con: duckdb.DuckDBPyConnection, path: Path, target: Path) -> int:
    """Write the lines of ``path`` that TEMP table line_place lists (i, ord, off, len: i numbers
    them in ord order from 0) to ``target`` as JSON lines, line i of ``target`` being line_place's
    i, without the comma that separates array elements; return how many were written. A plain
    file is read by seeking, its bytes copied as they are; a gzipped one by one more scan. Only
    the offsets come to Python: the places stay in DuckDB (a list of thousands of numbers handed
    to DuckDB costs more than the read)."""
    written = 0
    with open(target, "wb") as out:
        if is_plain(path):
            with open(path, "rb") as fh:
                for off, length in con.execute("SELECT off, len FROM line_place ORDER BY i").fetchall():
                    fh.seek(off)
                    line = fh.read(length)
                    out.write((line[:-1] if line.endswith(b",") else line) + b"\n")
                    written += 1
            return written
        for text in _read_gzipped_lines(con, path):
            out.write((text[:-1] if text.endswith(",") else text).encode("utf-8") + b"\n")
            written += 1
        return written
