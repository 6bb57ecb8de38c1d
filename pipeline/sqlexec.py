"""SQL run from Python: the scripts of ``sql/`` with their bound parameters, and rows in bulk.

Shared by the build (normalize/) and the load (load/); neither opens a connection here.
"""

from __future__ import annotations

import duckdb


def run_script(con: duckdb.DuckDBPyConnection, text: str, params: dict | None = None):
    """Each statement of ``text`` with the parameters it names; returns the last one's result.
    Each runs as the statement DuckDB parsed once here, not as its text parsed again."""
    params = params or {}
    result = None
    for statement in con.extract_statements(text):
        names = statement.named_parameters
        result = con.execute(statement, {k: params[k] for k in names} if names else None)
    return result


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> None:
    """Append ``rows`` (dicts with the same keys, the table's column names) to ``table``;
    columns the rows do not name are NULL. ``table`` is a name chosen by code.

    One statement: each column travels as one list parameter, the lists unnested side by side
    and cast to the table's types by name. DuckDB's ``executemany`` runs one INSERT per row,
    about a millisecond each (35,000 rulings lists of an API sync: half a minute).
    """
    if not rows:
        return
    names = list(rows[0])
    select = ", ".join(f'unnest($c{i}) AS "{name}"' for i, name in enumerate(names))
    con.execute(f"INSERT INTO {table} BY NAME SELECT {select}",
                {f"c{i}": [row[name] for row in rows] for i, name in enumerate(names)})
