"""ruling_card_names: the cards column of `casefile search`, derived by every load from the links.

Its upkeep through delta loads is checked with every other table where deltas are compared with
full builds (test_delta.py, test_delta_random.py: renamed cards among the edits); here, what it
holds after a sync of the bundled sample, and a warehouse made before the table existed.
"""

import duckdb

from pipeline.load.warehouse import open_writer
from pipeline.lookup import search
from pipeline.resources import read_sql
from support.warehouse_state import query, warehouse_of

FROM_LINKS = ("SELECT cr.ruling_id, string_agg(c.name, '; ' ORDER BY c.name) FROM card_ruling cr "
              "JOIN card c USING (oracle_id) GROUP BY cr.ruling_id ORDER BY 1")


def test_every_linked_ruling_has_the_names_of_its_cards_once(sample_warehouse):
    names = query(sample_warehouse, "SELECT ruling_id, cards FROM ruling_card_names ORDER BY 1")
    assert names == query(sample_warehouse, FROM_LINKS)
    assert len(names) == query(sample_warehouse, "SELECT count(DISTINCT ruling_id) FROM card_ruling")[0][0] > 0
    # the ruling WotC gave every Case: all of their names, in order
    widest = max(names, key=lambda row: row[1].count("; "))[1].split("; ")
    assert len(widest) >= 13 and widest == sorted(widest) and all(n.startswith("Case of") for n in widest)


def test_a_warehouse_made_before_the_table_is_searched_by_its_links_then_filled(warehouse_copy):
    data = warehouse_copy("DROP TABLE ruling_card_names",
                          "CREATE INDEX card_ruling_by_ruling ON card_ruling (ruling_id)")
    path = warehouse_of(data)
    con = duckdb.connect(str(path), read_only=True)
    try:
        columns, rows = search(con, "solve")
    finally:
        con.close()
    shown = {row[-1]: row[columns.index("cards")] for row in rows}
    assert shown and all(shown.values())  # read from the links
    linked = dict(query(data, FROM_LINKS))
    assert shown == {ruling_id: linked[ruling_id] for ruling_id in shown}

    open_writer(path).close()  # the next writer, whatever it does: the table made and filled, the index gone
    assert dict(query(data, "SELECT ruling_id, cards FROM ruling_card_names")) == linked
    assert query(data, "SELECT count(*) FROM duckdb_indexes()") == [(0,)]
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute(read_sql("read/cards_of_rulings.sql"), {"ruling_ids": list(shown)}).fetchall() \
            and search(con, "solve") == (columns, rows)
    finally:
        con.close()
