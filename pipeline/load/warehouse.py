"""The warehouse writer: schema, and one transaction per run.

Only this module opens ``casefile.duckdb`` for writing. ``load_run`` stages the tables a run
produced, merges them into the live tables (insert, update, delete), records the run's documents
and its ``sync_run`` row, and commits once: a reader sees the state before the run or after it.
"""

from __future__ import annotations

import logging
import os
import time
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from .. import stop, timing
from ..changes import choose_rewordings
from ..clock import utc_now_iso
from ..errors import ChecksFailed, ConfigError, LockBusy, QueryMatchesNothing, damaged_warehouse, unopenable_warehouse
from ..failpoints import failpoint
from ..resources import read_sql, sql_files
from ..normalize.delta import SCOPED_TABLES
from ..normalize.text import BEYOND_SQL_FOLD, FOLD_PARAMS, search_fold
from ..rules_tables import LINK_TABLES
from ..sqlexec import insert_rows, run_script

if TYPE_CHECKING:
    from ..build import Rows

log = logging.getLogger(__name__)

# Tables rewritten from the current runs at every load, in dependency order.
STATE_TABLES = ("card_set", "card", "query_card", "query_wiki_page", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation",
                "cr_edition", "cr_rule", "cr_glossary", "ruling_rule", "card_rule")


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text or "being used" in text)


# Rows per row group when writing. DuckDB's default (122,880) leaves every table under that size
# (cards, rulings, printings of a large sync) to be compressed and written at commit, one table
# after the other; at 30,720 the inserts write full row groups as they go, on every core. It is a
# property of the connection that writes, not of the file: readers need nothing.
ROW_GROUP_SIZE = 30_720


def open_writer(path: Path, wait_s: float = 0.0, memory_limit_mb: int | None = None) -> duckdb.DuckDBPyConnection:
    """The one writer connection: the warehouse file attached as the default database."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where the folder should be (a backup copied to `warehouse`), no permission
        why = "it is not a folder" if path.parent.exists() and not path.parent.is_dir() else exc.strerror or str(exc)
        raise ConfigError(f"cannot use the warehouse folder {path.parent}: {why}") from None
    deadline = time.monotonic() + wait_s
    while True:
        con = duckdb.connect()
        try:
            con.execute(f"ATTACH ? AS warehouse (ROW_GROUP_SIZE {ROW_GROUP_SIZE})", [str(path)])
            con.execute("USE warehouse")
            break
        except duckdb.Error as exc:
            con.close()
            if not isinstance(exc, duckdb.IOException) and damaged_warehouse(exc) is None:
                raise
            if not _is_lock_error(exc):
                raise unopenable_warehouse(path, exc) from None
            if time.monotonic() >= deadline:
                raise LockBusy(f"the warehouse {path} is in use by another process; try again later") from None
            time.sleep(0.2)
    con.execute("SET enable_progress_bar = false")  # casefile prints its own progress, on terminals only
    if memory_limit_mb:
        con.execute("SET memory_limit = ?", [f"{int(memory_limit_mb)}MB"])
        con.execute("SET temp_directory = ?", [str(path.parent / ".tmp")])
    apply_schema(con)
    _fill_derived_tables(con)
    _fill_query_wiki_pages(con)
    return con


# The checkpoint that closes a sync whose loads were all deltas leaves the row groups as they are.
# DuckDB's vacuum would merge each changed table's new rows with its last row group, rewriting
# some 30,000 rows a table whatever the day changed: at 2x most of a 1 % day's close (bench/
# FINDINGS.md, "Machine J, a fourth session"). One such sync in ``every`` (by the count of loaded
# runs; config.Settings.compact_every, 7 unless set), and every writer that does anything else,
# lets it run: the rows a week of days appended are then merged at once.
def defer_compaction(con: duckdb.DuckDBPyConnection, builds: list[str], every: int) -> bool:
    """Turn off the vacuum of the writer's next checkpoint (its close) when ``builds``, the
    builds of the runs it loaded, are all deltas and the warehouse's count of runs is not a
    multiple of ``every``. Returns whether it did."""
    if not builds or any(build != "delta" for build in builds):
        return False
    if con.execute("SELECT count(*) FROM sync_run").fetchone()[0] % every == 0:
        return False
    try:
        con.execute("SET max_vacuum_tasks = 0")
    except duckdb.CatalogException:  # a DuckDB without the setting: the close compacts as it always did
        log.debug("DuckDB has no max_vacuum_tasks; the checkpoint compacts")
        return False
    return True


def checkpoint(con: duckdb.DuckDBPyConnection) -> None:
    """Write the WAL into the file now (a rebuild does, before its file replaces the warehouse)."""
    con.execute("CHECKPOINT")


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction after a failure. A COMMIT that failed (a full disk, a
    folder that cannot be written) has ended the transaction already: its error is the one to
    report, not the ROLLBACK's "no transaction is active"."""
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException as exc:
        if "no transaction is active" not in str(exc):
            raise


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    for path in sql_files("schema"):
        con.execute(path.read_text("utf-8"))


# How ruling_translation_key's keys are folded, kept as the table's comment: a warehouse whose keys
# were folded another way (by a casefile before this one) gets every key again at its next load,
# where loads derive only the keys of the translations they change. 2: a translation with a
# character beyond SQL's fold is folded by Python's search_fold; "ʼ" is an apostrophe.
KEYS_FOLD = "casefile translation keys, fold 2"

# The count of runs loaded when the derived tables were last brought up to date, kept as
# ruling_card_names' comment by every load. A casefile before the mark (a rollback of an upgrade)
# loads runs and leaves the derived tables as they were: those it does not know of stale for good,
# since a load derives only the rows it changes. Its runs put the count past the mark.
DERIVED_MARK = "casefile derived tables, up to date with {runs} run(s)"


def _fill_derived_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Fill the tables every load derives where they hold nothing and the warehouse has what
    they come from: ruling_card_names (from the links), ruling_translation_key (from the
    translations). A warehouse made before such a table, which its schema has just added;
    ruling_translation_key again where its keys were folded otherwise (``KEYS_FOLD``); and both
    again, whole, where runs were loaded since the mark (``DERIVED_MARK``) by a casefile before it."""
    names, keys, fold, runs, mark = con.execute(read_sql("load/derived_tables_state.sql")).fetchone()
    refold = fold != KEYS_FOLD
    behind = runs > 0 and mark != DERIVED_MARK.format(runs=runs)
    if not (names or keys or refold or behind):
        return
    con.execute("BEGIN TRANSACTION")
    try:
        if names or behind:
            _derive_card_names(con, whole=True)
        if keys or refold or behind:
            _derive_translation_keys(con, None)
        if refold:
            con.execute(f"COMMENT ON TABLE ruling_translation_key IS '{KEYS_FOLD}'")
        _mark_derived(con)
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise


def _mark_derived(con: duckdb.DuckDBPyConnection) -> None:
    """Mark the derived tables up to date with the runs loaded (``DERIVED_MARK``)."""
    runs = con.execute(read_sql("load/run_count.sql")).fetchone()[0]
    con.execute(f"COMMENT ON TABLE ruling_card_names IS '{DERIVED_MARK.format(runs=int(runs))}'")


def _fill_query_wiki_pages(con: duckdb.DuckDBPyConnection) -> None:
    """Fill query_wiki_page where the warehouse has wiki sightings and the table no row: a
    warehouse made before the table, whose pages are then each the query of the first run that
    fetched them (what raw_document tells) until the next load writes every query's."""
    if not con.execute(read_sql("load/query_wiki_page_empty.sql")).fetchone()[0]:
        return
    con.execute(read_sql("load/fill_query_wiki_page.sql"))


def _derive_card_names(con: duckdb.DuckDBPyConnection, whole: bool) -> None:
    """Bring ruling_card_names up to date with card_ruling and card: every ruling (``whole``), or
    those a delta load can have changed (sql/load/names_touched.sql)."""
    if whole:
        con.execute("CREATE OR REPLACE TEMP TABLE names_touched (ruling_id VARCHAR)")
    else:
        con.execute(read_sql("load/names_touched.sql"))
    run_script(con, read_sql("load/ruling_card_names.sql"), {"whole": whole})


def _derive_translation_keys(con: duckdb.DuckDBPyConnection, touched: list[str] | None) -> None:
    """Bring ruling_translation_key up to date with ruling_translation: every translated ruling
    (``touched`` None), or the rulings ``touched`` names, whose translations the load's merge
    added, changed or removed (sql/load/merge_ruling_translation.sql returns them). Most loads
    change none, and run nothing here."""
    if touched == []:
        return
    script = read_sql("load/ruling_translation_key.sql").replace(
        "{translation_keys_folded}", read_sql("read/translation_keys_folded.sql").strip())
    run_script(con, script, {"whole": touched is None, "touched": touched or [], **FOLD_PARAMS})
    _refold_translation_keys(con, touched)


def _refold_translation_keys(con: duckdb.DuckDBPyConnection, touched: list[str] | None) -> None:
    """The keys of translations that SQL's fold (lower case, strip_accents) leaves apart from the
    search's words: a text with a compatibility character ("ﬁ", "1ᵉʳ", a full-width letter), which
    NFKC changes, or a letter casefold() changes beyond lower() ("ß" is "ss"). Those rulings' keys
    are folded again by Python's ``search_fold``, as the words are; other keys stay SQL's."""
    rows = con.execute(read_sql("load/translation_texts.sql"),
                       {"whole": touched is None, "touched": touched or [], "beyond": BEYOND_SQL_FOLD}).fetchall()
    refold = read_sql("load/refold_translation_key.sql")
    for ruling_id, texts in rows:
        if any(not unicodedata.is_normalized("NFKC", text) or text.casefold() != text.lower() for text in texts):
            con.execute(refold, {"ruling_id": ruling_id, "key": search_fold(" ".join(texts))})


def _table_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """(name, type) of every warehouse table's columns, in order, by table: one look in the
    catalog per load (each look costs a few milliseconds)."""
    columns: dict[str, list[tuple[str, str]]] = {}
    for table, name, kind in con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() "
            "AND schema_name = 'main' ORDER BY table_name, column_index").fetchall():
        columns.setdefault(table, []).append((name, kind))
    return columns


def _stage(con: duckdb.DuckDBPyConnection, table: str, frame: Rows,
           columns: dict[str, list[tuple[str, str]]] | None = None) -> None:
    """Make stage_<table> (a TEMP view) hold a run's rows for ``table``, in the table's column types.

    From a TEMP table the SQL build made: a view over it (no copy). From a DataFrame or a list of
    row dicts: a view over the TEMP table staged_<table> that holds them. The names are always a
    view and a table, so they are dropped without a look in the catalog (which costs a few
    milliseconds a call) and without a statement that fails, which would abort the transaction.
    ``columns``: ``_table_columns``, if the caller has it.
    """
    stage, rows = f"stage_{table}", f"staged_{table}"
    con.execute(f"DROP VIEW IF EXISTS temp.main.{stage}")
    con.execute(f"DROP TABLE IF EXISTS temp.main.{rows}")
    if isinstance(frame, str):
        columns = columns if columns is not None else _table_columns(con)
        select = ", ".join(f'CAST("{name}" AS {kind}) AS "{name}"' for name, kind in columns[table])
        con.execute(f"CREATE TEMP VIEW {stage} AS SELECT {select} FROM {frame}")
        return
    con.execute(f"CREATE TEMP TABLE {rows} AS SELECT * FROM {table} LIMIT 0")
    con.execute(f"CREATE TEMP VIEW {stage} AS SELECT * FROM {rows}")
    if isinstance(frame, list):
        insert_rows(con, rows, frame)
        return
    if len(frame):
        # DuckDB types a DataFrame's object columns from a sample of its rows (1,000 by default):
        # a column of lists that are empty in every sampled row reads as a list of NULL and fails
        # on the first non-empty one (ruling_sighting.flags, set on a few sightings of thousands).
        # Every row is looked at instead.
        con.execute("SET pandas_analyze_sample = ?", [len(frame)])
        con.register("incoming", frame)
        # No cleanup on failure: the transaction is then aborted, and any statement would raise
        # again and hide the error (out of memory, say); the connection is rolled back or closed.
        con.execute(f"INSERT INTO {rows} BY NAME SELECT * FROM incoming")
        con.unregister("incoming")
        con.execute("RESET pandas_analyze_sample")


def _record_changes(con: duckdb.DuckDBPyConnection) -> None:
    """What the staged state changes (n_change), and which removed + added rulings are one ruling
    re-worded (n_reword); see pipeline/changes.py."""
    con.execute(read_sql("load/changes.sql"))
    pairs = choose_rewordings(con.execute(read_sql("load/reword_candidates.sql")).fetchall())
    con.execute(read_sql("load/n_reword.sql"), {"old": [o for o, _ in pairs], "new": [n for _, n in pairs]})


# The key of each table a delta build may answer for by scope, and the columns that do not make a
# change (as in the table's sql/load/merge_<table>.sql).
KEYS = {"card": ("oracle_id",), "query_card": ("query", "oracle_id"), "printing": ("scryfall_id",),
        "ruling": ("ruling_id",), "card_ruling": ("oracle_id", "ruling_id"), "ruling_sighting": ("sighting_id",),
        "ruling_rule": ("ruling_id", "rule_number", "method"), "card_rule": ("oracle_id", "rule_number", "method")}
NOT_A_CHANGE = {"ruling_sighting": ("doc_id",)}


def _before_views(con: duckdb.DuckDBPyConnection, scope: tuple[str, ...]) -> None:
    """old_card, old_ruling and old_card_ruling: the warehouse rows the staged state answers
    for, as they are before the merge; the change events and the retired rulings are computed
    from them. After a full build, whole tables. After a delta build, the rows of the keys in
    scope_<table> and in stage_<table> (apply_before_<table>, made here for every table in
    ``scope``, sql/load/before_scoped.sql), which the build read and the apply compares with."""
    for table in scope:
        outside, count, rows_outside, no_rows_outside, before = con.extract_statements(
            read_sql("load/before_scoped.sql").format(table=table, keys=", ".join(KEYS[table])))
        con.execute(outside)
        con.execute(rows_outside if con.execute(count).fetchall()[0][0] else no_rows_outside)
        con.execute(before)
    for table in ("card", "ruling", "card_ruling"):
        source = f"apply_before_{table}" if table in scope else table
        con.execute(f"CREATE OR REPLACE TEMP VIEW old_{table} AS SELECT * FROM {source}")
    if scope:  # the sets the card_set merge will remove, for the checks of a delta load
        con.execute(read_sql("load/gone_card_set.sql"))


def _apply_scoped(con: duckdb.DuckDBPyConnection, table: str,
                  columns: dict[str, list[tuple[str, str]]]) -> dict[str, int]:
    """Bring the rows of ``table`` whose keys are in scope_<table> or stage_<table> to the staged
    state (a delta build), with the merge's counts: only those rows (apply_before_<table>) are
    compared, and only they are written."""
    keys = KEYS[table]
    compared = [name for name, _ in columns[table] if name not in keys and name not in NOT_A_CHANGE.get(table, ())]
    fill = {"table": table, "keys": ", ".join(keys),
            "coalesced": ", ".join(f"coalesce(b.{k}, s.{k}) AS {k}" for k in keys),
            "on": " AND ".join(f"b.{k} = s.{k}" for k in keys),
            "t_on_a": " AND ".join(f"t.{k} = a.{k}" for k in keys),
            "key0": keys[0],
            "b_cols": ", ".join(f'b."{c}"' for c in compared), "s_cols": ", ".join(f's."{c}"' for c in compared)}
    tally = {"INSERT": 0, "UPDATE": 0, "DELETE": 0}
    for statement in con.extract_statements(read_sql("load/apply_scoped.sql").format(**fill)):
        result = con.execute(statement)
    for action, n in result.fetchall():
        tally[action] = int(n)
    return {"inserted": tally["INSERT"], "updated": tally["UPDATE"], "removed": tally["DELETE"]}


def _merge(con: duckdb.DuckDBPyConnection, table: str) -> tuple[dict[str, int], list[tuple] | None]:
    """Bring ``table`` to the staged state; return the counts, and what the merge returned after
    each row's action (its key, where sql/load/merge_<table>.sql returns it), or None where the
    table was empty. An empty table takes the rows in one INSERT (a first sync, a rebuild):
    DuckDB writes a large insert straight to the file instead of the log."""
    if con.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {table})").fetchone()[0]:
        inserted = con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM stage_{table}").fetchone()[0]
        return {"inserted": int(inserted), "updated": 0, "removed": 0}, None
    tally = {"INSERT": 0, "UPDATE": 0, "DELETE": 0}
    returned = []
    for action, *rest in con.execute(read_sql(f"load/merge_{table}.sql")).fetchall():
        tally[action] = tally.get(action, 0) + 1
        returned.append(tuple(rest))
    return {"inserted": tally["INSERT"], "updated": tally["UPDATE"], "removed": tally["DELETE"]}, returned


def load_run(con: duckdb.DuckDBPyConnection, run_row: dict, tables: dict[str, Rows],
             documents: list[dict], scope: tuple[str, ...] = (), bulk_query: str | None = None,
             kept_runs: list[str] | None = None, copies: list[dict] = ()) -> dict[str, dict[str, int]]:
    """Merge one run's state into the warehouse in a single transaction; return per-table counts.

    Order inside the transaction: stage every table, compute the change events against the live
    tables, keep the rulings that go away (and release the ones that come back), merge, derive
    ruling_card_names and ruling_translation_key, write the change events, record the documents,
    record the run (and mark the derived tables up to date with it), check.
    ``scope``: the tables a delta build staged in part (the keys it answers for are in
    scope_<table>). ``run_row["timed"]`` false (a rebuild) leaves sync_run.duration_s NULL.
    ``bulk_query``: the query of the bulk view the run loads, which must keep a card
    (QueryMatchesNothing, exit 2, rolls the load back). ``kept_runs``: the complete runs of
    data/raw/; a raw_document row that names a file of another run folder (one deleted by hand)
    is pointed at the copy ``copies`` gives ({doc_id, path}: ``lost.lost_document_copies``).
    """
    counts: dict[str, dict[str, int]] = {}
    if kept_runs is not None and copies:
        _stage_moves(con, list(copies))
    con.execute("BEGIN TRANSACTION")
    try:
        columns = _table_columns(con)
        for table in STATE_TABLES:
            _stage(con, table, tables[table], columns)
        _before_views(con, scope)
        _record_changes(con)
        con.execute(read_sql("load/retire_rulings.sql"), {"run_id": run_row["run_id"]})
        con.execute(read_sql("load/unretire_rulings.sql"))
        returned: dict[str, list[tuple] | None] = {}
        for table in STATE_TABLES:
            if table in scope:
                counts[table] = _apply_scoped(con, table, columns)
            else:
                counts[table], returned[table] = _merge(con, table)
        if bulk_query is not None and not con.execute(read_sql("load/query_cards.sql"),
                                                       {"query": bulk_query}).fetchone()[0]:
            raise QueryMatchesNothing(f"the query {bulk_query!r} matches no card of the bulk file; nothing loaded")
        # a load that merged card or card_ruling whole has no rows before it to compare with
        _derive_card_names(con, whole=not {"card", "card_ruling"} <= set(scope))
        # the rulings whose translations the merge added, changed or removed; all of them where
        # the table was empty before and took the staged rows in one INSERT
        merged = returned["ruling_translation"]
        if merged is not None:
            _derive_translation_keys(con, sorted({ruling_id for ruling_id, in merged}))
        elif counts["ruling_translation"]["inserted"]:
            _derive_translation_keys(con, None)
        failpoint("during_load")
        n_changes = con.execute(read_sql("load/insert_change_events.sql"), {"run_id": run_row["run_id"]}).fetchone()[0]
        _stage(con, "raw_document", documents, columns)
        con.execute(read_sql("load/insert_raw_document.sql"))
        if kept_runs is not None and copies:
            con.execute(read_sql("load/repoint_lost_documents.sql"), {"kept_runs": kept_runs})
        totals = {k: sum(c[k] for c in counts.values()) for k in ("inserted", "updated", "removed")}
        row = {"timed": True, **run_row, **totals, "loaded_at": utc_now_iso()}  # the rows are written: only checks and commit remain
        if row.get("status") is None:
            row["status"] = "ok" if any(totals.values()) else "no_changes"
        con.execute(read_sql("load/insert_sync_run.sql"), row)
        _mark_derived(con)
        with timing.phase("load.checks"):
            failures = run_checks(con, scope, run_row["run_id"])
        if failures:
            raise ChecksFailed("the run's data fails the warehouse checks, nothing was loaded: "
                               + describe_failures(failures))
        failpoint("before_commit")
        stop.check()  # a SIGTERM whose exception some code swallowed still stops the commit
        with timing.phase("load.commit"):
            con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    log.debug("run %s committed", run_row["run_id"])
    failpoint("after_commit")
    counts["_run"] = {"status": row["status"], "changes": int(n_changes), **totals}
    return counts


def _stage_moves(con: duckdb.DuckDBPyConnection, moves: list[dict]) -> None:
    """stage_moves: the file ({doc_id, path}) each raw_document row that moves is to name."""
    run_script(con, read_sql("load/stage_moves.sql"))
    insert_rows(con, "stage_moves", moves)


def repoint_documents(con: duckdb.DuckDBPyConnection, moves: list[dict], deleted_runs: list[str],
                      sighting_moves: list[dict] = ()) -> tuple[int, int]:
    """Point the raw_document rows that name a file of ``deleted_runs`` at the copy ``moves``
    gives ({doc_id, path}), and the sightings that name a deleted bulk rulings file at the kept
    one ``sighting_moves`` gives ({doc_id, to_doc_id, place}: the sightings of the view of that
    place) (``prune``), in one transaction; returns
    how many document rows and sighting rows changed."""
    _stage_moves(con, moves)
    run_script(con, read_sql("load/stage_sighting_moves.sql"))
    insert_rows(con, "stage_sighting_moves", list(sighting_moves))
    con.execute("BEGIN TRANSACTION")
    try:
        changed = con.execute(read_sql("load/repoint_documents.sql"), {"deleted_runs": deleted_runs}).fetchone()[0]
        sightings = con.execute(read_sql("load/repoint_sightings.sql")).fetchone()[0]
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    return int(changed), int(sightings)


def run_checks(con: duckdb.DuckDBPyConnection, scope: tuple[str, ...] = (),
               run_id: str | None = None) -> list[tuple[str, int]]:
    """Run the checks; each returns the rows that break a rule. Returns (check, rows) failing.

    A load that merged every table whole (``scope`` empty) runs sql/checks/*.sql over the whole
    warehouse. A delta load (the tables of ``SCOPED_TABLES`` in ``scope``, run ``run_id``) runs
    sql/checks/delta/ instead, which look only where this load can have broken a rule: the rows
    it wrote, the rows that pointed at rows it deleted, and the tables it merged whole. Of
    change_event, which grows every day, they check this run's rows only; retired_ruling is
    scanned whole (delta/accepted_values.sql, delta/unique_keys.sql), but its rows are only the
    rulings that went away. Every other row passed the checks of the load that wrote it, inside
    the same transaction as its commit, and no other writer touches the warehouse.
    """
    if not set(SCOPED_TABLES) <= set(scope):
        return _failing(con, [(path.stem, path.read_text("utf-8")) for path in sql_files("checks")])
    checks = [("unique_keys_merged", "checks/unique_keys_merged.sql")]
    checks += [(name, f"checks/delta/{name}.sql")
               for name in ("accepted_values", "unique_keys", "references", "rulings_have_provenance")]
    # the rules links: by scope when the delta answers for them so, else whole
    checks.append(("links_scoped", "checks/delta/links_scoped.sql") if set(LINK_TABLES) <= set(scope)
                  else ("links", "checks/links.sql"))
    return _failing(con, [(name, read_sql(path)) for name, path in checks], {"run_id": run_id})


def describe_failures(failures: list[tuple[str, int]]) -> str:
    """``run_checks``' answer for a message: each failing check with its count of bad rows."""
    return "; ".join(f"{name} ({n} rows)" for name, n in failures)


def _failing(con: duckdb.DuckDBPyConnection, checks: list[tuple[str, str]],
             params: dict | None = None) -> list[tuple[str, int]]:
    failures = []
    for name, text in checks:
        rows = run_script(con, text, params).fetchall()
        if rows:
            failures.append((name, len(rows)))
    return failures


def replace_file(built: Path, target: Path, wait_s: float = 0.0) -> None:
    """Put a freshly built warehouse in place in one rename (used by ``rebuild``).

    A writer killed after its commit leaves that commit in the old file's WAL. The old file is
    checkpointed first, so that no committed state lives only in a WAL: deleting one would bring
    back an older state, and replaying it into the new file would corrupt it. A WAL that no
    checkpoint folds into the old file (a damaged file, a torn WAL) is moved aside, with a warning:
    the rebuild is how such a warehouse is mended.
    """
    if _wal(built).exists():
        raise RuntimeError(f"{built} was not checkpointed")
    if _wal(target).exists() and target.exists():
        try:
            con = open_writer(target, wait_s)
        except ConfigError as exc:  # a damaged file: its WAL cannot be folded into it (set aside below)
            log.warning("%s", exc)
        else:
            try:
                con.execute("CHECKPOINT")
            finally:
                con.close()
    if _wal(target).exists():
        # a WAL DuckDB could not fold into the old file (the file damaged or gone, the WAL torn or
        # not DuckDB's): it must not sit beside the new file, which DuckDB would replay it into.
        # Kept, not deleted, under a name no reader takes for a WAL.
        aside = Path(f"{_wal(target)}.stale-{utc_now_iso().replace(':', '')}")
        os.replace(_wal(target), aside)
        log.warning("%s had a write-ahead log that no checkpoint folds into it: moved aside to %s; the "
                    "rebuilt warehouse replaces the file", target, aside)
    failpoint("before_replace")
    os.replace(built, target)
    failpoint("after_replace")


def _wal(path: Path) -> Path:
    return Path(str(path) + ".wal")


# DuckDB reuses the blocks a checkpoint frees but gives back only those at the file's end. On
# SYNTHETIC daily syncs at 1x (bench/FINDINGS.md, "Months of daily syncs") the file reached 172 MB
# in seven weeks, where a copy of its rows took 80 MB: each weekly prune points most
# sightings at another rulings file, and a checkpoint writes the changed blocks before it frees
# the old ones. ``compact`` copies the tables into a new file when at least this share of the
# file, and this many bytes, are free blocks (a few free blocks are reused by the next days).
COMPACT_FREE_SHARE = 0.25
COMPACT_FREE_BYTES = 16 * 2**20


def compact(path: Path, scratch: Path, wait_s: float = 0.0) -> tuple[int, int] | None:
    """Copy the warehouse at ``path`` into a new file, ``scratch`` (``COPY FROM DATABASE``: the
    tables, their compression and comments, in the writer's row groups) and rename it over the old
    one, as a rebuild does, when enough of it is free blocks (above). Returns the file's bytes
    before and after, or None when it is left as it is. A copy that stops is deleted and the old
    file stays; a copy a crash left behind (doctor warns of it) is deleted first."""
    leftovers = (scratch, _wal(scratch))
    for stale in leftovers:
        stale.unlink(missing_ok=True)
    try:
        con = open_writer(path, wait_s)
        try:
            total, free, block = con.execute(read_sql("load/free_blocks.sql")).fetchone()
            if free < total * COMPACT_FREE_SHARE or free * block < COMPACT_FREE_BYTES:
                return None
            con.execute(f"ATTACH ? AS compacted (ROW_GROUP_SIZE {ROW_GROUP_SIZE})", [str(scratch)])
            con.execute("COPY FROM DATABASE warehouse TO compacted")
            con.execute("DETACH compacted")  # written whole: no log is left beside it
        finally:
            con.close()
        before = path.stat().st_size
        stop.check()  # a SIGTERM whose exception some code swallowed still keeps the old warehouse
        replace_file(scratch, path, wait_s)
    finally:
        for stale in leftovers:
            stale.unlink(missing_ok=True)
    return before, path.stat().st_size
