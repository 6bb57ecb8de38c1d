"""Search on a warehouse whose rulings all have a translation: the keys a load keeps, against
the translations folded by each search.

    python -m bench.translations --data DATA_DIR [--searches 51]

The bulk plan brings no translated rulings (Scryfall's bulk rulings are English), so `make
bench` searches warehouses without any; a sync of listeblanche.fr pages gives each WotC ruling
on them a French copy. This copies the warehouse of DATA_DIR (a 1x day of `make bench`, say) to
a temporary folder, times the search there, then adds one SYNTHETIC French copy per ruling
(ruling_translation: the English text behind a "Synthétique :" prefix, a few words swapped for
French ones), lets a writer derive ruling_translation_key as it does for a warehouse made before
that table, and times the search again: with the keys, and with the table dropped, where the
search folds every translation itself (what it did before the table). Also timed: the merge of
ruling_translation that every load runs (sql/load/merge_ruling_translation.sql, which returns
the rulings whose keys the load derives again), against an unchanged stage. Each search figure is the median of N
searches (bench/run.py's words) on one connection that has searched before, and of each word
searched first in a process of its own (bench/child.py first-search). Figures are printed,
never asserted; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import SEARCH_WORDS, child, searches  # noqa: E402

# The synthetic French copy of a ruling's text, made in SQL: a prefix with an accent, and a few
# frequent English words swapped for French ones, so that about one word in ten differs.
TRANSLATE = """
INSERT INTO ruling_translation
SELECT ruling_id, 'fr', 'listeblanche',
       'Synthétique : ' || replace(replace(replace(replace(text, ' the ', ' le '), ' of ', ' de '),
                                          ' a ', ' une '), ' creature', ' créature'),
       true
FROM ruling
"""


def search_figures(db: Path, n: int) -> dict:
    """The median of ``n`` searches on a connection that has searched before, and of each of the
    bench's words searched first in a process of its own."""
    warm = searches(db, n)
    first = [child("first search", ["first-search", str(db), word], keep_stdout=False)["query_s"] * 1000
             for word in SEARCH_WORDS]
    return {"warm_ms_p50": round(statistics.median(warm), 2), "first_ms_p50": round(statistics.median(first), 2)}


def translate(db: Path) -> float:
    """Give every ruling of the warehouse ``db`` (which has no translation) one SYNTHETIC French
    copy, then let a writer fill ruling_translation_key as it does for a warehouse made before
    that table; returns the fill's seconds."""
    import duckdb

    from pipeline.load.warehouse import open_writer

    con = duckdb.connect(str(db))
    try:
        if con.execute("SELECT count(*) FROM ruling_translation").fetchone()[0]:
            raise SystemExit("bench: the warehouse has translations already; give one of `make bench`'s days")
        con.execute(TRANSLATE)
        con.execute("DROP TABLE IF EXISTS ruling_translation_key")  # made again, empty, by the writer's schema
        con.execute("CHECKPOINT")
    finally:
        con.close()
    started = time.perf_counter()
    open_writer(db).close()
    return time.perf_counter() - started


def _measure(db: Path, n: int, label: str) -> dict:
    figures = search_figures(db, n)
    print(f"{label:34s} warm search {figures['warm_ms_p50']:8.1f} ms   first search of a process "
          f"{figures['first_ms_p50']:8.1f} ms", flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.translations", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a data folder whose warehouse is copied")
    parser.add_argument("--searches", type=int, default=51, metavar="N",
                        help="searches of the warm median (default 51)")
    args = parser.parse_args(argv)
    source = args.data / "warehouse" / "casefile.duckdb"
    if not source.is_file():
        parser.error(f"no warehouse at {source}")

    import duckdb

    from pipeline.normalize.text import FOLD_PARAMS
    from pipeline.resources import read_sql

    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="casefile-bench-") as tmp:
        db = Path(tmp) / "casefile.duckdb"
        shutil.copyfile(source, db)
        con = duckdb.connect(str(db))
        rulings = con.execute("SELECT count(*) FROM ruling").fetchone()[0]
        con.close()
        print(f"{rulings:,} rulings, no translation", flush=True)
        result["none"] = _measure(db, args.searches, "no translation")
        result["derive_whole_s"] = round(translate(db), 3)
        con = duckdb.connect(str(db))
        keys = con.execute("SELECT count(*) FROM ruling_translation_key").fetchone()[0]
        con.execute("CREATE TEMP VIEW stage_ruling_translation AS SELECT * FROM ruling_translation")
        merges = []
        for _ in range(5):
            started = time.perf_counter()
            unchanged = len(con.execute(read_sql("load/merge_ruling_translation.sql")).fetchall())
            merges.append(time.perf_counter() - started)
        folded = con.execute("SELECT count(*) FROM " + read_sql("read/translation_keys_folded.sql")
                             + " AS f JOIN ruling_translation_key AS k USING (ruling_id) WHERE f.key = k.key",
                             FOLD_PARAMS).fetchone()[0]
        con.close()
        result["merge_unchanged_ms_p50"] = round(statistics.median(merges) * 1000, 2)
        print(f"{rulings:,} SYNTHETIC translations; the writer's open derived {keys:,} keys in "
              f"{result['derive_whole_s']:.3f} s ({folded:,} equal to the search's own fold); "
              f"the merge of an unchanged stage {result['merge_unchanged_ms_p50']:.1f} ms "
              f"({unchanged} rows returned)", flush=True)
        result["keys"] = _measure(db, args.searches, "translations, keys of the load")

        con = duckdb.connect(str(db))
        con.execute("DROP TABLE ruling_translation_key")
        con.execute("CHECKPOINT")
        con.close()
        result["folded"] = _measure(db, args.searches, "translations, folded by the search")
    result.update({"rulings": rulings, "translations": rulings})
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
