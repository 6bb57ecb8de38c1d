"""pipeline/sqlexec.py insert_rows: Python rows into a DuckDB table in one statement, typed by the table."""

import duckdb

from pipeline.sqlexec import insert_rows


def _table():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, name VARCHAR, flags VARCHAR[], seen DATE, extra VARCHAR)")
    return con


def test_rows_keep_their_values_and_pairing_and_take_the_table_types():
    con = _table()
    rows = [{"id": i, "name": None if i % 3 == 0 else f"n{i}", "flags": ["x"] if i == 2999 else [],
             "seen": "2024-02-09"} for i in range(3000)]
    insert_rows(con, "t", rows)
    assert con.execute("SELECT count(*), count(name), count(extra) FROM t").fetchone() == (3000, 2000, 0)
    assert con.execute("SELECT id, name, flags FROM t WHERE len(flags) > 0").fetchall() == [(2999, "n2999", ["x"])]
    assert con.execute("SELECT bool_and(name = 'n' || id) FROM t WHERE name IS NOT NULL").fetchone()[0]
    assert con.execute("SELECT DISTINCT typeof(seen) FROM t").fetchall() == [("DATE",)]


def test_columns_that_are_null_or_empty_in_every_row_and_no_rows_at_all():
    con = _table()
    insert_rows(con, "t", [])
    insert_rows(con, "t", [{"id": 1, "name": None, "flags": []}, {"id": 2, "name": None, "flags": []}])
    assert con.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, None, [], None, None),
                                                                    (2, None, [], None, None)]
