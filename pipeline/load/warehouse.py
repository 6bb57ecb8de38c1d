"""The warehouse writer: schema, and one transaction per run.

Only this module opens ``casefile.duckdb`` for writing. ``load_run`` stages the tables a run
produced, merges them into the live tables (insert, update, delete), records the run's documents
and its ``sync_run`` row, and commits once: a reader sees the state before the run or after it.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import duckdb
import pandas as pd

from ..errors import LockBusy, SourceDataError
from ..resources import read_sql, sql_files

log = logging.getLogger(__name__)

# Tables rewritten from the current runs at every load, in dependency order.
STATE_TABLES = ("card_set", "card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation")


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text or "being used" in text)


def open_writer(path: Path, wait_s: float = 0.0, memory_limit_mb: int | None = None) -> duckdb.DuckDBPyConnection:
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            con = duckdb.connect(str(path))
            break
        except duckdb.IOException as exc:
            if not _is_lock_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise LockBusy(f"the warehouse {path} is in use by another process; try again later") from None
            time.sleep(0.2)
    if memory_limit_mb:
        con.execute(f"SET memory_limit = '{int(memory_limit_mb)}MB'")
        con.execute("SET temp_directory = ?", [str(path.parent / ".tmp")])
    apply_schema(con)
    return con


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    for path in sql_files("schema"):
        con.execute(path.read_text("utf-8"))


def _stage(con: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame | str) -> None:
    """Fill TEMP table stage_<table> from a DataFrame, or from a TEMP table the SQL build made."""
    stage = f"stage_{table}"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {stage} AS SELECT * FROM {table} LIMIT 0")
    if isinstance(frame, str):
        columns = ", ".join(f'"{d[0]}"' for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description)
        con.execute(f"INSERT INTO {stage} BY NAME SELECT {columns} FROM {frame}")
    elif len(frame):
        con.register("incoming", frame)
        try:
            con.execute(f"INSERT INTO {stage} BY NAME SELECT * FROM incoming")
        finally:
            con.unregister("incoming")


def load_run(con: duckdb.DuckDBPyConnection, run_row: dict, tables: dict[str, pd.DataFrame | str],
             documents: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Merge one run's state into the warehouse in a single transaction; return per-table counts."""
    counts: dict[str, dict[str, int]] = {}
    con.execute("BEGIN TRANSACTION")
    try:
        for table in STATE_TABLES:
            _stage(con, table, tables[table])
            actions = con.execute(read_sql(f"load/merge_{table}.sql")).fetchall()
            tally = {"INSERT": 0, "UPDATE": 0, "DELETE": 0}
            for (action,) in actions:
                tally[action] = tally.get(action, 0) + 1
            counts[table] = {"inserted": tally["INSERT"], "updated": tally["UPDATE"], "removed": tally["DELETE"]}
        _stage(con, "raw_document", documents)
        con.execute(read_sql("load/insert_raw_document.sql"))
        totals = {k: sum(c[k] for c in counts.values()) for k in ("inserted", "updated", "removed")}
        row = {**run_row, **totals}
        if row.get("status") is None:
            row["status"] = "ok" if any(totals.values()) else "no_changes"
        con.execute(read_sql("load/insert_sync_run.sql"), row)
        failures = run_checks(con)
        if failures:
            raise SourceDataError("the run's data fails the warehouse checks, nothing was loaded: "
                                  + "; ".join(f"{name} ({n} rows)" for name, n in failures))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    counts["_run"] = {"status": row["status"], **totals}
    return counts


def run_checks(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Run sql/checks/*.sql; each returns the rows that break a rule. Returns (check, rows) failing."""
    failures = []
    for path in sql_files("checks"):
        rows = con.execute(path.read_text("utf-8")).fetchall()
        if rows:
            failures.append((path.stem, len(rows)))
    return failures


def replace_file(built: Path, target: Path) -> None:
    """Put a freshly built warehouse in place in one rename (used by ``rebuild``)."""
    wal = Path(str(built) + ".wal")
    if wal.exists():
        raise RuntimeError(f"{built} was not checkpointed")
    stale_wal = Path(str(target) + ".wal")
    if stale_wal.exists():
        stale_wal.unlink()
    os.replace(built, target)
