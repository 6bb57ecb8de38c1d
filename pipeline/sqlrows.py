"""Rows from Python into a DuckDB table, in one statement.

DuckDB's ``executemany`` runs one INSERT per row, about a millisecond each: 35,000 rulings
lists of an API sync would take half a minute to register. Here each column travels as one list
parameter and the lists are unnested side by side, cast to the table's types by name.
"""

from __future__ import annotations

import duckdb


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> None:
    """Append ``rows`` (dicts with the same keys, the table's column names) to ``table``;
    columns the rows do not name are NULL. ``table`` is a name chosen by code."""
    if not rows:
        return
    names = list(rows[0])
    select = ", ".join(f'unnest($c{i}) AS "{name}"' for i, name in enumerate(names))
    con.execute(f"INSERT INTO {table} BY NAME SELECT {select}",
                {f"c{i}": [row[name] for row in rows] for i, name in enumerate(names)})
