"""What the reliability tests compare: per-table fingerprints of a warehouse, its checks, raw runs.

A fingerprint is (rows, md5 of the sorted rows) per table. Run ids are renamed to placeholders
first, so that a warehouse loaded by a killed process compares equal to a reference loaded by
another process from the same data. Columns that hold the wall clock of the load are left out.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb

from pipeline.load.warehouse import run_checks
from pipeline.rawstore import RUN_ID_RE, read_manifest, read_run

DATA_TABLES = ("card_set", "card", "printing", "ruling", "card_ruling", "ruling_card_names", "ruling_sighting",
               "ruling_translation", "ruling_translation_key")
BOOKKEEPING_TABLES = ("sync_run", "raw_document", "change_event", "retired_ruling")
ALL_TABLES = DATA_TABLES + BOOKKEEPING_TABLES
# sync_run: started_at and finished_at are the run's own (from its run.json and _SUCCESS, checked
# apart); loaded_at and duration_s are the wall clock of the load. Any two loads of one run differ there.
PER_PROCESS_COLUMNS = {"sync_run": ("started_at", "finished_at", "loaded_at", "duration_s")}


def warehouse_of(data_dir: Path) -> Path:
    return Path(data_dir) / "warehouse" / "casefile.duckdb"


def connect(data_dir: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse_of(data_dir)), read_only=True)


def query(target: Path, sql: str, params=None) -> list[tuple]:
    """Rows of one query on a read-only connection. ``target``: a data folder or the warehouse file."""
    target = Path(target)
    con = duckdb.connect(str(warehouse_of(target) if target.is_dir() else target), read_only=True)
    try:
        return con.execute(sql, params).fetchall() if params else con.execute(sql).fetchall()
    finally:
        con.close()


def fingerprints(data_dir: Path, renames: dict[str, str] | None = None,
                 tables: tuple[str, ...] = ALL_TABLES, leave_out: dict[str, tuple[str, ...]] | None = None
                 ) -> dict[str, tuple[int, str]]:
    """(rows, md5) per table, with every run id in ``renames`` replaced by its placeholder;
    ``leave_out``: more columns to leave out, by table."""
    renames = renames or {}
    con = connect(data_dir)
    try:
        return {t: _table_print(con, t, renames, (leave_out or {}).get(t, ())) for t in tables}
    finally:
        con.close()


def _table_print(con, table: str, renames: dict[str, str], more: tuple[str, ...] = ()) -> tuple[int, str]:
    left_out = PER_PROCESS_COLUMNS.get(table, ()) + more
    select = f"SELECT * EXCLUDE ({', '.join(left_out)}) FROM {table}" if left_out else f"SELECT * FROM {table}"
    rows = sorted(repr(_renamed(row, renames)) for row in con.execute(select).fetchall())
    return len(rows), hashlib.md5("\n".join(rows).encode("utf-8")).hexdigest()


def _renamed(value, renames: dict[str, str]):
    if isinstance(value, str):
        for old, new in renames.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_renamed(v, renames) for v in value)
    return value


def failing_checks(data_dir: Path) -> list[tuple[str, int]]:
    """sql/checks/*.sql on a read-only connection: the checks that return rows."""
    con = connect(data_dir)
    try:
        return run_checks(con)
    finally:
        con.close()


def loaded_runs(data_dir: Path) -> list[tuple]:
    """(run_id, started_at, finished_at) of every row of sync_run, oldest first."""
    con = connect(data_dir)
    try:
        return con.execute("SELECT run_id, started_at, finished_at FROM sync_run ORDER BY run_id").fetchall()
    finally:
        con.close()


def run_dirs(data_dir: Path) -> list[Path]:
    raw = Path(data_dir) / "raw"
    return sorted(p for p in raw.iterdir() if p.is_dir() and RUN_ID_RE.match(p.name)) if raw.is_dir() else []


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def raw_run_problems(run_path: Path, known_bodies: set[str]) -> list[str]:
    """What is wrong with a raw run folder, however it ended (complete, failed, or killed).

    Every manifest entry's file matches its sha256 and size; a body file not (yet) in the
    manifest is a whole body (its sha256 is one of ``known_bodies``); a complete run's
    ``_SUCCESS`` counts exactly the manifest's documents. Temporary files (``.name.tmp-…``)
    are the only partial files allowed.
    """
    problems = []
    if not (run_path / "run.json").exists():  # killed while creating the folder: nothing may be in it yet
        return [f"{p.name}: written before run.json" for p in run_path.iterdir() if not p.name.startswith(".")]
    run = read_run(run_path)
    entries = read_manifest(run, include_quarantined=True)
    listed = {e.path for e in entries}
    for entry in entries:
        path = run_path / entry.path
        if not path.is_file():
            problems.append(f"{entry.path}: in the manifest, missing on disk")
        elif sha256_of(path) != entry.sha256 or path.stat().st_size != entry.bytes:
            problems.append(f"{entry.path}: does not match its sha256 in the manifest")
    for folder in ("docs", "quarantine"):
        for path in sorted((run_path / folder).rglob("*")) if (run_path / folder).is_dir() else []:
            rel = path.relative_to(run_path).as_posix()
            if path.is_file() and not path.name.startswith(".") and rel not in listed \
                    and sha256_of(path) not in known_bodies:
                problems.append(f"{rel}: a partial body under its final name")
    if run.success is not None:
        kept = [e for e in entries if not e.quarantined]
        if run.success.get("documents") != len(kept):
            problems.append(f"_SUCCESS counts {run.success.get('documents')} documents, the manifest {len(kept)}")
    return problems


def run_status(run_path: Path) -> str:
    """complete, failed, aborted, rejected, incomplete; "unborn" for a folder killed before its run.json."""
    return read_run(run_path).status if (run_path / "run.json").exists() else "unborn"


def bodies_of(run_path: Path) -> set[str]:
    """The sha256 of every body a (complete) run recorded."""
    return {json.loads(line)["sha256"] for line in (Path(run_path) / "manifest.jsonl").read_text("utf-8").splitlines()
            if line.strip()}
