"""Give a copy of a benchmark warehouse a year of SYNTHETIC history.

    python -m bench.history DATA_DIR [--days 365] [--cards 350] [--rulings 700]

The bench's warehouses hold two or three runs; a warehouse synced every day holds the change
events of every day and every ruling that went away. The bench's 1 % day at 1x changes the text
of 348 cards and rewords 700 rulings: 1,048 events, and 700 retired wordings. This appends
``--days`` such days to the warehouse of DATA_DIR, made from its own cards and rulings: each day
under a run id of its own (days of 1999, before any run of the bench), the same sample of cards
changed and of rulings reworded again from the day before's wording, with card and ruling ids
of their own (from the md5 of the id and the day, in the warehouse's formats) so that no
synthetic row names a card or a ruling the warehouse serves. sync_run is left as it is: the
days are history only. What it is for: timing a sync whose statements read the history
(`sql/load/retire_rulings.sql`, `casefile doctor`'s whole-table checks, `casefile changes`) on a
warehouse of a realistic age, with ``bench.turns`` or ``bench.statements``.

Writes DATA_DIR's warehouse in place: run it on a copy. Not part of the tests' figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

FIRST_DAY = "1999-01-01"  # the synthetic days come before any run id the bench's syncs make


def add_history(warehouse: Path, days: int, cards: int, rulings: int) -> dict[str, int]:
    """Append the history; return the rows of change_event and retired_ruling after it."""
    con = duckdb.connect(str(warehouse))
    try:
        # ids of their own in the warehouse's formats (a ruling's: r and 15 hex digits; a card's: a
        # uuid), so that DuckDB's row group statistics see them as they would see real ones
        con.execute("CREATE TEMP MACRO cf_other_ruling(id, d) AS 'r' || left(md5(id || d), 15)")
        con.execute("CREATE TEMP MACRO cf_other_card(id, d) AS CAST(CAST(md5(id || d) AS UUID) AS VARCHAR)")
        con.execute("BEGIN TRANSACTION")
        con.execute("CREATE TEMP TABLE day AS SELECT d, strftime(DATE '" + FIRST_DAY + "' + CAST(d AS INTEGER), "
                    "'%Y%m%dT000000.000000Z') AS run_id FROM range($days) AS t(d)", {"days": days})
        # DuckDB takes a sample's size as a constant only
        con.execute(f"CREATE TEMP TABLE some_card AS SELECT * FROM card USING SAMPLE {int(cards)} ROWS (reservoir, 7)")
        con.execute("CREATE TEMP TABLE some_ruling AS SELECT * FROM (SELECT r.*, list(cr.oracle_id ORDER BY cr.oracle_id) "
                    "AS cards FROM ruling AS r JOIN card_ruling AS cr USING (ruling_id) GROUP BY ALL) "
                    f"USING SAMPLE {int(rulings)} ROWS (reservoir, 7)")
        # a day: its cards' text changed, its rulings reworded from the wording of the day before
        # (which goes to retired_ruling), as the bench's 1 % day changes them
        con.execute("""
            INSERT INTO change_event
            WITH events AS (
                SELECT day.d, day.run_id, 'card_changed' AS kind, cf_other_card(c.oracle_id, day.d) AS oracle_id,
                       NULL AS ruling_id, NULL AS previous_ruling_id, 'oracle_text' AS field,
                       c.oracle_text AS before, c.oracle_text || ' (Changed.)' AS after, c.name, NULL AS cards
                FROM day CROSS JOIN some_card AS c
                UNION ALL
                SELECT day.d, day.run_id, 'ruling_reworded', NULL, cf_other_ruling(r.ruling_id, day.d),
                       cf_other_ruling(r.ruling_id, day.d - 1), 'text', r.text, r.text || ' (Reworded.)', NULL,
                       list_transform(r.cards, lambda c: cf_other_card(c, day.d))
                FROM day CROSS JOIN some_ruling AS r
            )
            SELECT run_id, row_number() OVER (PARTITION BY d ORDER BY kind, oracle_id, ruling_id), kind, oracle_id,
                   ruling_id, previous_ruling_id, field, before, after, name, cards
            FROM events""")
        con.execute("""
            INSERT INTO retired_ruling
            SELECT cf_other_ruling(r.ruling_id, day.d - 1), r.source, r.published_at, r.text, r.match_key,
                   list_transform(r.cards, lambda c: cf_other_card(c, day.d - 1)),
                   strftime(DATE '""" + FIRST_DAY + """' + CAST(day.d - 1 AS INTEGER), '%Y%m%dT000000.000000Z'),
                   strftime(DATE '""" + FIRST_DAY + """' + CAST(day.d - 1 AS INTEGER), '%Y%m%dT000000.000000Z'),
                   day.run_id
            FROM day CROSS JOIN some_ruling AS r""")
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
        return {table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("change_event", "retired_ruling")}
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.history", description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="a data folder whose warehouse gets the history (a copy)")
    parser.add_argument("--days", type=int, default=365, help="days of history to add (default 365)")
    parser.add_argument("--cards", type=int, default=350, help="cards whose text changes a day (default 350)")
    parser.add_argument("--rulings", type=int, default=700, help="rulings reworded a day (default 700)")
    args = parser.parse_args(argv)
    warehouse = args.data_dir / "warehouse" / "casefile.duckdb"
    if not warehouse.is_file():
        parser.error(f"no warehouse at {warehouse}")
    if min(args.days, args.cards, args.rulings) < 0:
        parser.error("--days, --cards and --rulings take counts of 0 or more")
    counts = add_history(warehouse, args.days, args.cards, args.rulings)
    print(f"{warehouse}: SYNTHETIC history of {args.days} days; now {counts['change_event']:,} change events, "
          f"{counts['retired_ruling']:,} retired rulings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
