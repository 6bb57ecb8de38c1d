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

from ..changes import Change, pair_rewordings
from ..errors import LockBusy, SourceDataError
from ..failpoints import failpoint
from ..resources import read_sql, sql_files

log = logging.getLogger(__name__)

# Tables rewritten from the current runs at every load, in dependency order.
STATE_TABLES = ("card_set", "card", "query_card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation",
                "cr_edition", "cr_rule", "cr_glossary", "ruling_rule", "card_rule")


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


def _changes(con: duckdb.DuckDBPyConnection) -> list[Change]:
    """What the staged state changes, re-worded rulings paired (see pipeline/changes.py)."""
    found = [Change(*row[:-1], tuple(row[-1]) if row[-1] is not None else None)
             for row in con.execute(read_sql("load/changes.sql")).fetchall()]
    ids = [c.ruling_id for c in found if c.kind in ("ruling_added", "ruling_removed")]
    meta = {}
    if ids:
        rows = con.execute("SELECT ruling_id, source, published_at FROM stage_ruling WHERE list_contains($ids, ruling_id) "
                           "UNION ALL SELECT ruling_id, source, published_at FROM ruling WHERE list_contains($ids, ruling_id)",
                           {"ids": ids}).fetchall()
        meta = {rid: (source, published) for rid, source, published in rows}
    return pair_rewordings(found, meta)


def load_run(con: duckdb.DuckDBPyConnection, run_row: dict, tables: dict[str, pd.DataFrame | str],
             documents: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Merge one run's state into the warehouse in a single transaction; return per-table counts.

    Order inside the transaction: stage every table, compute the change events against the live
    tables, keep the rulings that go away, merge, record documents, events and the run, check.
    """
    counts: dict[str, dict[str, int]] = {}
    con.execute("BEGIN TRANSACTION")
    try:
        for table in STATE_TABLES:
            _stage(con, table, tables[table])
        changes = _changes(con)
        previous = con.execute("SELECT max(run_id) FROM sync_run").fetchone()[0]
        con.execute(read_sql("load/retire_rulings.sql"), {"run_id": run_row["run_id"], "previous_run": previous})
        con.execute(read_sql("load/unretire_rulings.sql"))
        for table in STATE_TABLES:
            actions = con.execute(read_sql(f"load/merge_{table}.sql")).fetchall()
            tally = {"INSERT": 0, "UPDATE": 0, "DELETE": 0}
            for (action,) in actions:
                tally[action] = tally.get(action, 0) + 1
            counts[table] = {"inserted": tally["INSERT"], "updated": tally["UPDATE"], "removed": tally["DELETE"]}
        failpoint("during_load")
        events = pd.DataFrame([{"run_id": run_row["run_id"], "seq": i, **c.__dict__,
                                "cards": list(c.cards) if c.cards is not None else None}
                               for i, c in enumerate(changes, 1)])
        _stage(con, "change_event", events)
        con.execute(read_sql("load/insert_change_events.sql"))
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
        failpoint("before_commit")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    log.debug("run %s committed", run_row["run_id"])
    failpoint("after_commit")
    counts["_run"] = {"status": row["status"], "changes": len(changes), **totals}
    return counts


def run_checks(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Run sql/checks/*.sql; each returns the rows that break a rule. Returns (check, rows) failing."""
    failures = []
    for path in sql_files("checks"):
        rows = con.execute(path.read_text("utf-8")).fetchall()
        if rows:
            failures.append((path.stem, len(rows)))
    return failures


def replace_file(built: Path, target: Path, wait_s: float = 0.0) -> None:
    """Put a freshly built warehouse in place in one rename (used by ``rebuild``).

    A writer killed after its commit leaves that commit in the old file's WAL. The old file is
    checkpointed first, so that no committed state lives only in a WAL: deleting one would bring
    back an older state, and replaying it into the new file would corrupt it.
    """
    if _wal(built).exists():
        raise RuntimeError(f"{built} was not checkpointed")
    if _wal(target).exists() and target.exists():
        con = open_writer(target, wait_s)
        try:
            con.execute("CHECKPOINT")
        finally:
            con.close()
    if _wal(target).exists():
        raise RuntimeError(f"{target} still has a write-ahead log after a checkpoint; not replaced")
    failpoint("before_replace")
    os.replace(built, target)


def _wal(path: Path) -> Path:
    return Path(str(path) + ".wal")
