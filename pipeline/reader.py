"""Read-only access to the warehouse for ``sql``, ``status`` and the other readers.

No reader writes the warehouse: every connection is read-only. ``open_reader``'s also has
external access (other files, ATTACH, COPY, httpfs) switched off and the configuration locked, so
a query cannot undo that. ``export.py`` and ``api.py`` take ``connect_read_only`` instead, which
leaves external access on and the configuration unlocked: the export's COPY ... TO writes the
dataset files, and the API runs casefile's SQL only. While a sync holds the file, a reader waits
briefly, then gives up (TryAgainLater, exit 75).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterator

import duckdb

from .errors import (CasefileError, ConfigError, NoWarehouse, TryAgainLater, UsageError, damaged_warehouse,
                     unopenable_warehouse)
from .resources import read_sql

# Every table of the README's "Tables", in its order.
TABLES = ("sync_run", "raw_document", "card_set", "card", "printing", "ruling", "card_ruling", "ruling_card_names",
          "query_card", "query_wiki_page", "ruling_sighting", "ruling_translation", "ruling_translation_key",
          "change_event", "cr_edition", "cr_rule", "cr_glossary", "ruling_rule", "card_rule", "retired_ruling")
# Those sql/schema/ added after the first casefile that synced (4182d63): a warehouse an older
# casefile made may lack them until its next writer's schema adds them. The others it always has.
LATER_TABLES = ("ruling_card_names", "query_card", "query_wiki_page", "ruling_translation_key", "change_event",
                "cr_edition", "cr_rule", "cr_glossary", "ruling_rule", "card_rule", "retired_ruling")


def open_reader(path: Path, wait_s: float = 5.0) -> duckdb.DuckDBPyConnection:
    """A read-only connection that cannot reach other files or the network, configuration locked."""
    con = connect_read_only(path, wait_s)
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def connect_read_only(path: Path, wait_s: float = 5.0) -> duckdb.DuckDBPyConnection:
    """A plain read-only connection, waiting up to ``wait_s`` for a sync to release the file.

    Use ``open_reader``; only ``export.py`` takes this one, because DuckDB's ``COPY ... TO`` needs
    external access to write the dataset files, and ``api.py``, which runs no SQL but casefile's
    and must not change the settings of a database a notebook's own connection shares.
    """
    path = Path(path)
    if not path.exists():
        raise NoWarehouse(f"no warehouse at {path} yet: run `casefile sync` (or `casefile rebuild`) first")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            con = duckdb.connect(str(path), read_only=True)
            break
        except duckdb.Error as exc:
            if isinstance(exc, duckdb.ConnectionException) and "different configuration" in str(exc):
                raise ConfigError(f"the warehouse {path} is open in this process with another configuration "
                                  "(a connection of your own opened it with a config): close that connection, "
                                  "or open it with none") from None
            if not isinstance(exc, duckdb.IOException) and damaged_warehouse(exc) is None:
                raise
            text = str(exc).lower()
            if not isinstance(exc, duckdb.IOException) or "lock" not in text:
                raise unopenable_warehouse(path, exc, writer=False) from None
            if time.monotonic() >= deadline:
                raise TryAgainLater(f"the warehouse {path} is busy (a sync is writing it); try again in a moment") from None
            time.sleep(0.1)
    # DuckDB's own bar would print into the command's output while a long listing streams out. A
    # notebook's connection that locked the configuration of the database it shares keeps its own.
    try:
        con.execute("SET enable_progress_bar = false")
    except duckdb.InvalidInputException:
        pass
    # A DuckDB file without casefile's tables (`duckdb FILE` run before the first sync makes one)
    # is no warehouse yet, as no file is: not a failing query of the command that reads it.
    if not con.execute(read_sql("read/has_table.sql"), {"name": "sync_run"}).fetchone()[0]:  # every load writes it
        con.close()
        raise NoWarehouse(f"no warehouse at {path} yet: the file holds none of casefile's tables; "
                          "run `casefile sync` (or `casefile rebuild`) first")
    return con


def query(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> tuple[list[str], list[tuple]]:
    """Run one statement; a SQL error becomes a usage error with DuckDB's message."""
    columns, batches = query_batches(con, sql, params)
    return columns, [row for batch in batches for row in batch]


def query_batches(con: duckdb.DuckDBPyConnection, sql: str, params=None,
                  size: int = 10_000) -> tuple[list[str], Iterator[list[tuple]]]:
    """Run one statement; its columns, and its rows in batches of ``size`` as DuckDB streams them
    (the connection must stay open, and run nothing else, until they are read). A SQL error, at
    the start or while the rows are read, becomes a usage error with DuckDB's message."""
    try:
        cursor = con.execute(sql, params) if params is not None else con.execute(sql)
    except duckdb.Error as exc:
        raise _failed(exc) from None
    except OverflowError as exc:  # a value Python cannot hold, met as DuckDB hands a first row over
        raise _unfit(exc) from None
    if cursor is None:  # nothing but blanks or comments
        raise UsageError("give a SQL statement")
    columns = [d[0] for d in cursor.description] if cursor.description else []

    def batches() -> Iterator[list[tuple]]:
        while True:
            try:
                batch = cursor.fetchmany(size)
            except duckdb.Error as exc:
                raise _failed(exc) from None
            except OverflowError as exc:
                raise _unfit(exc) from None
            if not batch:
                return
            yield batch

    return columns, batches()


def run_all_but_last(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, str] | None = None,
                     empty: str = "give a SQL statement") -> tuple[str, dict[str, str] | None]:
    """Run every statement of ``sql`` but the last, once, and return the last one's text and the
    parameters it names, for ``query_batches`` (which a table may run twice, for its widths:
    ``CREATE TEMP TABLE t AS …; SELECT … FROM t`` must not make ``t`` twice).

    ``params``: the values of named parameters (``$name``, any case, as DuckDB matches them). DuckDB
    binds parameters in the last statement of a string only, so each statement is run alone with
    those it names. A parameter the SQL names that ``params`` lacks, or one of ``params`` no
    statement names, is a usage error, found before any statement runs; so is SQL of no statement
    (``empty`` says so). A SQL error becomes a usage error."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise _failed(exc) from None
    if not statements:
        raise UsageError(empty)
    bound = bind_params(statements, params or {})
    try:
        for statement, values in zip(statements[:-1], bound):
            con.execute(statement, values) if values else con.execute(statement)
    except duckdb.Error as exc:
        raise _failed(exc) from None
    return statements[-1].query, bound[-1] or None


def bind_params(statements: list, params: dict[str, str]) -> list[dict[str, str]]:
    """For each statement (of ``extract_statements``), the values of the parameters it names, keyed
    as it spells them; UsageError naming those no value is given for, else those no statement names."""
    given = {name.lower(): name for name in params}
    named: dict[str, str] = {}  # every name the statements use, lower case: as the SQL first spells it
    for statement in statements:
        for name in sorted(statement.named_parameters):
            named.setdefault(name.lower(), name)
    missing = [spelled for key, spelled in named.items() if key not in given]
    if missing:
        raise UsageError(_missing(missing))
    unused = [name for key, name in given.items() if key not in named]
    if unused:
        raise UsageError(f"--param {', '.join(unused)} is given, but the SQL names no "
                         f"{', '.join('$' + name for name in unused)}")
    return [{name: params[given[name.lower()]] for name in statement.named_parameters} for statement in statements]


def _missing(names: list[str]) -> str:
    """What a usage error says of the parameters the SQL uses that no --param gives: a named one
    (``$card``) by its name; a positional one (``?``, ``$1``, which DuckDB names by its number) as
    such, with how to give it a value."""
    named = [name for name in names if not name.isdigit()]
    numbers = sorted((name for name in names if name.isdigit()), key=int)
    said = []
    if named:
        said.append(f"the SQL names {', '.join('$' + name for name in named)}, which no --param gives: "
                    f"add --param {named[0]}=VALUE")
    if numbers:
        one = len(numbers) == 1
        said.append(("it has" if named else "the SQL has")
                    + (" a positional parameter" if one else " positional parameters")
                    + f" (? or {', '.join('$' + n for n in numbers)}) with no value: give "
                    + ("it" if one else "them") + " with "
                    + ", ".join(f"--param {n}=VALUE" for n in numbers)
                    + " (each ? is numbered by its place in its statement), or name "
                    + ("it" if one else "them") + " $NAME and give --param NAME=VALUE")
    return "; and ".join(said)


def older_warehouse(exc: BaseException) -> ConfigError | None:
    """The error for a query of one of casefile's tables that a warehouse made by an older version
    lacks (``LATER_TABLES``): 78, naming the commands that add it. None for any other error, a
    table that is none of casefile's (a typo in `casefile sql`) or one every version made too."""
    found = isinstance(exc, duckdb.CatalogException) and re.match(r"Catalog Error: Table with name (\w+) does not exist",
                                                                   str(exc))
    if not found or found.group(1).lower() not in LATER_TABLES:
        return None
    return ConfigError(f"the warehouse was made by an older casefile and has no {found.group(1).lower()} table "
                       "yet: the next `casefile sync` or `casefile rules ingest` adds it (or `casefile rebuild`, "
                       "which makes the warehouse again from data/raw/)")


def _failed(exc: duckdb.Error) -> CasefileError:
    """A usage error with DuckDB's message; a configuration error when the file is damaged or
    was made by an older casefile that lacks a table the query reads."""
    damaged = damaged_warehouse(exc) or older_warehouse(exc)
    if damaged is not None:
        return damaged
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
    return UsageError(f"the query failed: {first}")


def _unfit(exc: OverflowError) -> UsageError:
    """A value DuckDB holds that Python's types cannot (an INTERVAL of over 999,999,999 days)."""
    return UsageError(f"the query failed: a value does not fit Python's types ({exc}); "
                      "select it CAST(… AS VARCHAR)")


def loaded_runs(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The ids of the runs the warehouse has loaded (``sync_run``)."""
    return {row[0] for row in con.execute(read_sql("read/loaded_runs.sql")).fetchall()}
