"""Dataset exports: the rulings dataset and its card–ruling links as csv, jsonl or parquet files.

Reads the warehouse read-only and writes only in a temp folder beside ``--out``, renamed into place
whole (the hidden folders a killed export left there are cleared first: ``clear_leftovers``); never
writes the warehouse or opens the network, and puts no time of "now" in the files.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

from . import __version__, stop
from .config import duckdb_path_problem, expand_home, path_text
from .errors import Aborted, CasefileError, TryAgainLater, UsageError, printable
from .failpoints import failpoint
from .formats import EXPORT_FORMATS
from .rawstore import fsync_dir
from .reader import connect_read_only, older_warehouse, query
from .report import ATTRIBUTION
from .resources import read_sql

GENERATOR = "casefile export"  # manifest.json says so: the only kind of folder an export replaces

# COPY's options are syntax, not values, so they cannot be bound; each format's clause is fixed here.
# jsonl is DuckDB's default JSON output: one object per line.
COPY_OPTIONS = {"csv": "FORMAT csv, HEADER true", "jsonl": "FORMAT json", "parquet": "FORMAT parquet"}
# The views (from sql/export/) behind each file, per format: CSV gets list columns as JSON text.
FILES = {
    "rulings": {"csv": "export_rulings_csv", "jsonl": "export_rulings", "parquet": "export_rulings"},
    "card_rulings": {"csv": "export_card_rulings", "jsonl": "export_card_rulings",
                     "parquet": "export_card_rulings"},
}
VIEW_SQL = ("export/rulings.sql", "export/card_rulings.sql", "export/rulings_csv.sql")

COLUMNS = {
    "rulings": [
        ("ruling_id", "text", "the ruling's id in the warehouse, derived from (source, published_at, match key of the text)"),
        ("source", "text", "who issued it, as its copies show it: `wotc` (Wizards of the Coast) or `scryfall`; "
                           "`mtgwiki` for the MTG wiki's own rulings; for a page's copy that matches no dated "
                           "ruling and shows no source, the page's origin (`scryfall-page`, `listeblanche`)"),
        ("published_at", "date", "the date the ruling carries; null when undated (in CSV an empty field)"),
        ("text", "text", "the best copy of the ruling's text (Scryfall's API first)"),
        ("card_count", "integer", "how many Oracle cards the ruling applies to"),
        ("oracle_ids", "list of text", "Scryfall Oracle ids of those cards, ordered by card name"),
        ("card_names", "list of text", "the cards' names, in the order of `oracle_ids`"),
        ("translations", "list of {lang, origin, text, machine_translated}",
         "translated texts of the ruling (from `ruling_translation`); an empty list when none"),
        ("origins", "list of text", "the origins the ruling was seen on (`scryfall-api`, `mtgwiki`, …), sorted"),
        ("sightings", "integer", "how many times it was seen, over every card, page and language"),
    ],
    "card_rulings": [
        ("oracle_id", "text", "the card's Scryfall Oracle id"),
        ("card_name", "text", "the card's name"),
        ("ruling_id", "text", "the ruling, as in `rulings`"),
        ("position", "integer", "the ruling's place on the card's list of rulings, from 0: each of a card's "
                                "rulings has its own (Scryfall's order when known; `casefile card` numbers "
                                "them from 1)"),
    ],
}
ROW_MEANING = {"rulings": "distinct ruling", "card_rulings": "link of a card to a ruling"}
# What each origin of a sighting or translation is, for the datasheet's sources.
ORIGIN_SITES = {
    "scryfall-api": "Scryfall's API (https://scryfall.com/docs/api): the rulings with their dates and sources",
    "scryfall-page": "scryfall.com card pages (https://scryfall.com): copies of the rulings",
    "listeblanche": "listeblanche.fr (https://listeblanche.fr): copies of the rulings, and French translations "
                    "the site makes with AI (`machine_translated`)",
    "mtgwiki": "the MTG wiki (https://mtg.wiki): copies of the rulings; the rulings with source `mtgwiki` are "
               "the wiki's own text, neither Wizards of the Coast's nor Scryfall's",
}


@dataclass
class ExportResult:
    out: Path
    fmt: str
    run_id: str
    rows: dict[str, int]  # file stem -> rows

    def summary(self) -> dict:
        return {"event": "export", "dataset": "rulings", "format": self.fmt, "out": str(self.out),
                "run_id": self.run_id, "rows": self.rows}


def _open(warehouse: Path, wait_s: float) -> duckdb.DuckDBPyConnection:
    # Unlike open_reader's, this connection keeps external access (so does api.py's): DuckDB's
    # COPY ... TO writes the dataset files itself (parquet above all), and COPY is external access.
    # It is still read-only, it runs only the project's own SQL from sql/export/, and it writes
    # only into the temp folder this module made. One thread: rows and files come out in one order.
    con = connect_read_only(warehouse, wait_s)
    con.execute("SET threads = 1")
    return con


def refuse_a_file_on_the_way(out: Path) -> None:
    """UsageError when the nearest folder of ``out`` that exists is a file, where no folder can be
    made for ``out`` (an export's folder, a report's file)."""
    for folder in out.parents:
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"--out {out}: {folder} is a file, not a folder")
            break


def check_target(out: Path) -> None:
    """``--out`` may be new, an empty folder, or a previous export; anything else is refused."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is a file, not a folder")
    refuse_a_file_on_the_way(out)
    try:
        ours = not out.is_dir() or not any(out.iterdir()) or is_export(out, strict=True)
    except OSError as exc:  # a manifest.json that may not be read: not known to be an export
        raise UsageError(f"--out {out}: cannot read {exc.filename or out} ({exc.strerror or exc}), "
                         "so it is not known to hold a casefile export") from None
    if not ours:
        raise UsageError(f"--out {out}: the folder holds files that are not a casefile export; "
                         "choose a new folder (an export replaces the whole folder)")


def is_export(folder: Path, strict: bool = False) -> bool:
    """Whether ``folder`` holds a casefile export and nothing else: a manifest.json of ours and the
    files it names. A file added to an export (a LICENSE, notes) would be lost with the folder.
    With ``strict``, a folder or manifest that exists but cannot be read raises its OSError
    instead of counting as no export."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
        if not isinstance(manifest, dict) or manifest.get("generator") != GENERATOR:
            return False
        names = {entry["name"] for entry in manifest["files"]} | {"manifest.json"}
        return all(path.name in names for path in folder.iterdir())
    except (FileNotFoundError, NotADirectoryError, ValueError, KeyError, TypeError):
        return False
    except OSError:
        if strict:
            raise
        return False


STOPPED = "stopped by SIGTERM; the previous export, if any, is unchanged"


def export_rulings(warehouse: Path, out: Path, fmt: str, wait_s: float = 5.0) -> ExportResult:
    """Write the rulings dataset to folder ``out`` in ``fmt``; the folder appears whole or not at all.
    SIGTERM stops it with ``Aborted`` (exit 75), its temp folder removed."""
    with stop.signals_stop(STOPPED):
        return _export_rulings(warehouse, out, fmt, wait_s)


def _export_rulings(warehouse: Path, out: Path, fmt: str, wait_s: float) -> ExportResult:
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    try:
        out = expand_home(out).resolve()  # the real folder: "new/.." is the folder new/ would be in
    except (RuntimeError, OSError) as exc:  # symbolic links in a loop (RuntimeError before Python 3.13)
        raise UsageError(f"--out {printable(str(out))}: cannot follow it to a folder ({exc})") from None
    if not out.name:
        raise UsageError(f"--out {out}: the root folder cannot be replaced; choose a folder in it")
    problem = duckdb_path_problem(out)
    if problem:  # DuckDB writes the dataset files, to paths it takes as UTF-8
        raise UsageError(f"--out {path_text(out)}: DuckDB cannot write there: {problem}")
    with _turn(out.parent, wait_s):
        try:
            clear_leftovers(out)
            check_target(out)
        except OSError as exc:  # a folder on the way that may not be listed
            raise UsageError(f"--out {out}: cannot read the folder {exc.filename or out.parent} "
                             f"({exc.strerror or exc})") from None
    hold = None  # this export's lock on its temp folder: the folder is in use while it is held
    try:
        con = _open(warehouse, wait_s)
        try:
            run = _latest_run(con)
            views = current_views(con)
            tmp = _sibling(out, "tmp")
            made = first_missing(out.parent)  # the folders this export makes, removed if it fails
            made_tmp = False
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
                with _turn(out.parent, wait_s):  # made and locked at once: never seen unlocked by another export
                    tmp.mkdir()
                    made_tmp = True
                    hold = _hold(tmp)
            except BaseException as exc:  # an OSError, or the wait for the turn (75), or SIGTERM
                if made_tmp:
                    remove_tree(tmp)
                remove_empty(made)
                if isinstance(exc, OSError):
                    raise UsageError(f"--out {out}: cannot make a folder there ({exc.strerror or exc})") from None
                raise
            try:
                rows = write_dataset(con, tmp, fmt)
                failpoint("during_export")
                write_datasheet(con, tmp, fmt, run, views, rows)
                write_manifest(tmp, fmt, run, views, rows)
                _sync_to_disk(tmp)
            except BaseException as exc:
                remove_tree(tmp)
                remove_empty(made)
                refused = _write_refused(exc, tmp, out) or older_warehouse(exc)
                if refused is not None:
                    raise refused from exc
                raise
        finally:
            con.close()
        try:
            with _turn(out.parent, wait_s):  # one swap at a time beside ``out``
                check_target(out)  # again: files put there while this export wrote are not swept away
                swap_into_place(tmp, out)
        except BaseException as exc:
            remove_tree(tmp)  # not renamed: a rename failed, or the wait for the turn
            refused = _write_refused(exc, tmp, out)
            if refused is not None:
                raise refused from exc
            raise
    finally:
        if hold is not None:
            os.close(hold)
    return ExportResult(out, fmt, run["run_id"], rows)


def _sync_to_disk(folder: Path) -> None:
    """Write the files of ``folder``, then the folder itself, to disk before it is renamed into
    place: after a power cut the export in place holds whole files, not empty ones."""
    for path in sorted(folder.iterdir()):
        _fsync(path)
    fsync_dir(folder)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _turn(folder: Path, wait_s: float):
    """Hold an exclusive lock on ``folder`` (the parent of ``--out``) for the block: exports into one
    folder clear leftovers, make their temp folders and swap one at a time. Waits ``wait_s`` for
    another export, then exits 75. A folder that does not exist yet, or a file system without
    locks, runs the block unlocked."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        fd = None
    try:
        deadline = time.monotonic() + wait_s
        while fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TryAgainLater(f"another export is replacing a folder in {folder}; "
                                        "try again in a moment") from None
                time.sleep(0.05)
            except OSError:  # no locks here
                break
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def _hold(folder: Path) -> int | None:
    """Lock ``folder`` (this export's temp folder) until the returned descriptor is closed; the
    kernel releases it when the process dies, even by kill -9. None where locks are not to be had."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _in_use(folder: Path, pid: int) -> bool:
    """Whether the export that made ``folder`` still runs: it holds its lock. Where locks are not
    to be had, whether a process of its pid is alive."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return _alive(pid)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return _alive(pid)
    finally:
        os.close(fd)
    return False


def _write_refused(exc: BaseException, tmp: Path, out: Path) -> CasefileError | None:
    """The error for a write of the export that the system refused: a full disk (or quota) is
    worth a try later (75); anything else (a file too large, no permission, a read-only file
    system, ``--out`` a mount point) is where ``--out`` points (2). None for any other failure.
    DuckDB's write errors are IOExceptions whose message names the file (its quotes and backslashes
    escaped, as in a JSON string) and carries the errno."""
    if isinstance(exc, OSError) and exc.errno is not None:
        code, reason = exc.errno, exc.strerror or str(exc)
    elif isinstance(exc, duckdb.IOException) and any(
            named in str(exc) for named in (str(tmp), json.dumps(str(tmp), ensure_ascii=False)[1:-1])):
        found = re.search(r'"errno":"(\d+)"', str(exc))
        code = int(found.group(1)) if found else None
        reason = os.strerror(code) if code else str(exc).splitlines()[0]
    else:
        return None
    if code in (errno.ENOSPC, errno.EDQUOT):
        return TryAgainLater(f"cannot write the export beside {out}: {reason}; free some space and run "
                             "again (the previous export, if any, is unchanged)")
    hint = "; a mount point cannot be replaced: choose a folder inside it" if code == errno.EBUSY else ""
    return UsageError(f"--out {out}: cannot write the export there ({reason}{hint}); the previous export, "
                      "if any, is unchanged")


def first_missing(folder: Path) -> Path | None:
    """The outermost folder on the way to ``folder`` that does not exist yet, or None."""
    missing = None
    while not folder.exists() and folder != folder.parent:
        missing, folder = folder, folder.parent
    return missing


def remove_empty(top: Path | None) -> None:
    """Remove ``top`` and the folders in it, if they hold no file: what a failed export (or report
    --out) made."""
    if top is None or not top.is_dir():
        return
    for folder in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()
    with contextlib.suppress(OSError):  # not empty: something else wrote there
        top.rmdir()


# What a sibling's name adds to the name of ``out``: ".", "." + a pid (7 digits at most on Linux),
# "-" + 8 hex digits, "." + tmp or old; a file name holds 255 bytes.
_SIBLING_ROOM = 255 - 22


def sibling_stem(name: str) -> str:
    """``name``, or for a name too long to take a sibling's additions, "~" and a hash of it: the
    siblings of the same ``out`` always share their stem."""
    if len(os.fsencode(name)) <= _SIBLING_ROOM:
        return name
    return "~" + hashlib.sha256(os.fsencode(name)).hexdigest()[:32]


def keep_access(new: Path, before: os.stat_result) -> None:
    """Give ``new``, about to replace a file or folder whose stat was ``before``, its permissions
    and its group (a shared, group-writable folder stays writable by the group). The group is kept
    where the user may give it (a group the user is in), the mode always."""
    with contextlib.suppress(OSError):
        if before.st_gid != os.stat(new).st_gid:
            os.chown(new, -1, before.st_gid)
    with contextlib.suppress(OSError):
        os.chmod(new, stat.S_IMODE(before.st_mode))


def remove_tree(path: Path) -> None:
    """Remove a folder this process or an earlier export wrote, whatever it was made read-only
    (`chmod 555` on a published export): its folders are made writable on the way."""
    def writable_again(func, failed, _exc_info):
        for folder in {os.path.dirname(failed), failed}:
            with contextlib.suppress(OSError):
                if os.path.isdir(folder) and not os.path.islink(folder):
                    os.chmod(folder, stat.S_IMODE(os.lstat(folder).st_mode) | stat.S_IRWXU)
        with contextlib.suppress(OSError):
            func(failed)

    with contextlib.suppress(OSError):
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=writable_again)
        else:
            shutil.rmtree(path, onerror=writable_again)


def _sibling(out: Path, kind: str) -> Path:
    """A hidden folder beside ``out`` ("tmp": being written; "old": the export it replaces),
    named with this process's pid so that a later export can tell one left by a killed export."""
    return out.with_name(f".{sibling_stem(out.name)}.{os.getpid()}-{secrets.token_hex(4)}.{kind}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def clear_leftovers(out: Path) -> list[Path]:
    """The folders a killed export left beside ``out``: removed, except that the previous export,
    moved aside just before the kill, is put back when ``out`` is missing. Folders of exports
    still running (they hold their lock) are left alone; a pid is no proof, since pids are reused
    (a container may run every export as the same pid). Returns what was removed or put back."""
    if not out.parent.is_dir():
        return []
    pattern = re.compile(rf"^\.{re.escape(sibling_stem(out.name))}\.(\d+)-[0-9a-f]{{8}}\.(tmp|old)$")
    found = []
    for path in sorted(out.parent.iterdir()):
        match = pattern.match(path.name)
        if not match or not path.is_dir() or _in_use(path, int(match.group(1))):
            continue
        if match.group(2) == "old" and not out.exists() and is_export(path):
            os.rename(path, out)
        else:
            remove_tree(path)
        found.append(path)
    return found


def _latest_run(con) -> dict:
    # through reader.query: a DuckDB file without the warehouse's tables is a usage error, as for every reader
    columns, rows = query(con, read_sql("export/sync_run.sql"))
    if not rows:
        raise UsageError("the warehouse holds no sync run yet: run `casefile sync` first")
    return dict(zip(columns, rows[0]))


def current_views(con) -> list[dict]:
    """For each sync query and source, the newest run loaded that fetched it: what the rows come from."""
    columns, rows = query(con, read_sql("export/views.sql"))
    return [{k: _iso(v) if k.endswith("_at") and v is not None else v for k, v in zip(columns, row)}
            for row in rows]


def write_dataset(con, folder: Path, fmt: str) -> dict[str, int]:
    for name in VIEW_SQL:  # a warehouse lacking a table they read is a usage error, as in _latest_run
        query(con, read_sql(name))
    rows = {}
    for stem, views in FILES.items():
        view = views[fmt]
        target = folder / f"{stem}.{fmt}"
        con.execute(f"COPY (SELECT * FROM {view}) TO $path ({COPY_OPTIONS[fmt]})", {"path": str(target)})
        rows[stem] = con.execute(f"SELECT count(*) FROM {view}").fetchone()[0]
    return rows


def write_datasheet(con, folder: Path, fmt: str, run: dict, views: list[dict], rows: dict[str, int]) -> None:
    counts = con.execute(read_sql("export/table_counts.sql")).fetchall()
    queries = sorted(row[0] or "" for row in con.execute(read_sql("reports/scope.sql")).fetchall())
    lines = ["# Rulings dataset", "",
             f"Magic: The Gathering card rulings from casefile's warehouse, as {fmt} files. One row per "
             "distinct ruling in `rulings`, one row per card–ruling link in `card_rulings`.", "",
             "| file | rows | one row per |", "| --- | --- | --- |"]
    lines += [f"| `{stem}.{fmt}` | {rows[stem]} | {ROW_MEANING[stem]} |" for stem in FILES]
    lines += ["", "## Where it comes from", "",
              f"The warehouse as it stood after sync run `{run['run_id']}` (the latest loaded): mode {run['mode']}, "
              f"sources {_code(run['sources'] or '')}, started {_iso(run['started_at'])}, finished {_iso(run['finished_at'])}.",
              "",
              "Scryfall queries synced into the warehouse: " + ", ".join(_code(q) for q in queries) + ".", "",
              "Its rows come from, for each query and source, the newest sync run that fetched it:", "",
              "| query | source | sync run | mode | finished |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {_code(view['query'] or '')} | `{view['source']}` | `{view['run_id']}` | {view['mode']} | "
              f"{view['finished_at'] or ''} |" for view in views]
    lines += ["",
              "Rows of the warehouse tables it was made from:", "",
              "| table | rows |", "| --- | --- |"]
    lines += [f"| `{table}` | {n} |" for table, n in counts]
    for stem, columns in COLUMNS.items():
        lines += ["", f"## `{stem}.{fmt}`", "", "| column | type | meaning |", "| --- | --- | --- |"]
        lines += [f"| `{name}` | {kind} | {meaning} |" for name, kind, meaning in columns]
    lines += ["", "## Notes", "",
              "- A ruling is identified by its source, its date and its text with quotes, dashes, "
              "whitespace and case folded: a ruling Scryfall serves for 13 cards is one row with 13 cards.",
              "- Cards are Oracle cards (Scryfall `oracle_id`); translated printings are not cards.",
              "- Rows are ordered by `ruling_id` (`rulings`) and by card name, then position (`card_rulings`)."]
    if fmt == "csv":
        lines.append("- CSV has no lists: `oracle_ids`, `card_names`, `translations` and `origins` hold JSON "
                     "arrays as text; an empty list is `[]`.")
        lines.append('- In CSV an empty field is NULL (the `published_at` of an undated ruling) and `""` an empty '
                     "text, as DuckDB's `COPY` writes them. DuckDB's `read_csv` keeps the two apart when given "
                     "`allow_quoted_nulls = false` (by default it reads `\"\"` as NULL too); pandas and Python's "
                     "`csv` module read both as empty. The jsonl and parquet exports keep them apart.")
    lines += ["- `manifest.json` lists every file with its rows, bytes and sha256.",
              "", "## Sources and attribution", ""]
    origins = con.execute(read_sql("export/origins.sql")).fetchall()
    if origins:
        lines += ["The rulings were read from:", ""]
        lines += [f"- `{origin}` ({n} rulings): {ORIGIN_SITES.get(origin, origin)}" for origin, n in origins]
        lines.append("")
    lines += [ATTRIBUTION, ""]
    (folder / "datasheet.md").write_text("\n".join(lines), encoding="utf-8")


def _code(text: str) -> str:
    """``text`` as a Markdown code span that shows it as it is (CommonMark): fenced by one backtick
    more than its longest run of them, with a space inside each fence when it starts or ends with a
    backtick or a space. A line break, which would end the paragraph, shows as a space."""
    text = " ".join(text.splitlines()) if ("\n" in text or "\r" in text) else text
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _iso(value) -> str:
    """A time of the run as ISO 8601. The warehouse keeps run times in UTC without a zone (run.json
    records them with "Z"): a time without one gets "Z" back, so no reader takes it for local time."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            return value.isoformat() + "Z"
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def write_manifest(folder: Path, fmt: str, run: dict, views: list[dict], rows: dict[str, int]) -> None:
    files = []
    for name, count in [(f"{stem}.{fmt}", rows[stem]) for stem in FILES] + [("datasheet.md", None)]:
        with open(folder / name, "rb") as fh:  # streamed: the dataset files grow with the warehouse
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        files.append({"name": name, "rows": count, "bytes": (folder / name).stat().st_size, "sha256": digest})
    manifest = {"generator": GENERATOR, "casefile_version": __version__, "dataset": "rulings", "format": fmt,
                "sync_run": {k: _iso(v) if v is not None else None for k, v in run.items()}, "views": views,
                "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n",
                                          encoding="utf-8")


def swap_into_place(tmp: Path, out: Path) -> None:
    """Rename the finished folder to ``out``; a previous export is moved aside first, then removed."""
    if not out.exists():
        os.rename(tmp, out)
        _tidy_after_swap(out, None)
        return
    old = _sibling(out, "old")
    with contextlib.suppress(OSError):  # the folder replaced keeps who may read it, and its group
        keep_access(tmp, os.stat(out))
    os.rename(out, old)
    try:  # whatever stops it here (SIGTERM, Ctrl-C, a failed rename) puts the previous export back
        failpoint("export_swap")  # the previous export aside, the new one not yet in place
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        remove_tree(tmp)
        raise
    _tidy_after_swap(out, old)


def _tidy_after_swap(out: Path, old: Path | None) -> None:
    """The renames to disk, and the previous export removed. The new export is in place: a SIGTERM
    or a Ctrl-C now stops the tidying only (the export is done), and the next export removes what
    is left."""
    with contextlib.suppress(Aborted, KeyboardInterrupt):
        failpoint("export_tidy")
        fsync_dir(out.parent)
        if old is not None:
            remove_tree(old)
