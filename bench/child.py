"""One measured step of the benchmark, in a process of its own (so its peak RSS is its own).

    python -m bench.child RESULT.json casefile ARGS...   # casefile's CLI, in this process
    python -m bench.child RESULT.json floor RUN_DIR DB   # DuckDB's read_json of a run's files
    python -m bench.child RESULT.json floor-columns RUN_DIR DB   # the same, of the fields casefile reads
    python -m bench.child RESULT.json raw-write RUN_DIR FOLDER   # a run's bulk files written as a live sync does
    python -m bench.child RESULT.json incremental-floor RUN_DIR DB   # what any incremental sync does
    python -m bench.child RESULT.json first-search DB WORDS   # a process's first search, its parts

Writes {"seconds": …, "cpu_s": …, "exit": …} to RESULT.json: the time of the step itself, from
after the imports to its end, and the CPU time (user + system, every thread) the process spent in
that span (the parent also records the process's wall time and peak RSS). first-search adds
"open_s" and "query_s", the two parts of its time.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path


def floor(run_dir: Path, db: Path, narrow: bool = False) -> int:
    """The floor: DuckDB's own read_json of every body of a run into plain tables, no normalization.
    ``narrow``: the card and rulings files read with the columns and types of
    ``pipeline/normalize/duck.py`` (the fields casefile reads, no detection of the others), the
    other bodies as before: the floor of what casefile reads."""
    import duckdb

    from pipeline.normalize.duck import CARD_COLUMNS, RULING_COLUMNS

    columns = {"bulk-cards": CARD_COLUMNS, "bulk-rulings": RULING_COLUMNS} if narrow else {}
    for stale in (db, Path(str(db) + ".wal")):
        if stale.exists():
            stale.unlink()
    con = duckdb.connect(str(db))
    for i, line in enumerate((run_dir / "manifest.jsonl").read_text("utf-8").splitlines()):
        entry = json.loads(line)
        path = str(run_dir / entry["path"])
        if entry["kind"] in columns:
            con.execute(f"CREATE TABLE doc_{i} AS SELECT * FROM read_json(?, columns = ?)",
                        [path, columns[entry["kind"]]])
        else:
            con.execute(f"CREATE TABLE doc_{i} AS SELECT * FROM read_json(?)", [path])
    con.execute("CHECKPOINT")
    con.close()
    return 0


def raw_write(run_dir: Path, folder: Path) -> int:
    """What a live sync does with a run's bulk files that an offline replay, which links them into
    its run (``pipeline/extract/replay.py``), does not: each body written to the raw store as it
    arrives, hashed on the way (its sha256 and its document id), flushed to disk and renamed into
    place (``pipeline/rawstore.py`` BodyFile), here from files in the page cache in 1 MiB
    chunks. A download over the network overlaps most of this; the last fsync it cannot."""
    from pipeline.rawstore import BodyFile

    for line in (run_dir / "manifest.jsonl").read_text("utf-8").splitlines():
        entry = json.loads(line)
        if entry["kind"] not in ("bulk-cards", "bulk-rulings"):
            continue
        body = BodyFile(folder, Path(entry["path"]).name, entry["url"])
        with open(run_dir / entry["path"], "rb") as source:
            while chunk := source.read(1 << 20):
                body.write(chunk)
        if body.sha256 != entry["sha256"]:
            raise SystemExit(f"raw-write: {entry['path']} hashed to {body.sha256}, not {entry['sha256']}")
        body.commit()
    return 0


def incremental_floor(run_dir: Path, db: Path) -> int:
    """The least work of an incremental sync of a bulk run, as casefile does it: open the
    warehouse ``db`` for writing, scan the lines of the run's card and rulings files to learn
    which changed (both at once, the price and rank fields cut out of the card lines, each scan
    saved to a cache folder: ``pipeline/normalize/lines.py``), close. No build, no load, no
    checks: a delta of any design must at least read the day's files whole, since every card
    line changes every day (its prices)."""
    from pipeline.load.warehouse import open_writer
    from pipeline.normalize.delta import VOLATILE_CARD
    from pipeline.normalize.lines import LineScans

    entries = [json.loads(line) for line in (run_dir / "manifest.jsonl").read_text("utf-8").splitlines()]
    by_kind = {entry["kind"]: entry for entry in entries}
    files = [(run_dir / by_kind[kind]["path"], by_kind[kind]["sha256"], ignore)
             for kind, ignore in (("bulk-cards", VOLATILE_CARD), ("bulk-rulings", None))]
    con = open_writer(db)
    with tempfile.TemporaryDirectory(prefix="casefile-bench-cache-") as cache:
        scans = LineScans(con, files, Path(cache))
        ok = scans.wait()
        scans.finish()  # the scans' writes to the cache
    con.close()
    return 0 if ok else 1


def first_search(db: Path, text: str) -> dict:
    """The first search of a process, as ``casefile search`` makes it once per run: the read-only
    connection opened, then the query (``pipeline/lookup.py``) on data no query of this process
    has read yet. Returns both times; the bench's ``searches`` measures the queries of a
    connection that has searched before."""
    from pipeline.lookup import search
    from pipeline.reader import open_reader

    started = time.perf_counter()
    con = open_reader(db)
    opened = time.perf_counter()
    try:
        search(con, text)
    finally:
        searched = time.perf_counter()
        con.close()
    return {"open_s": opened - started, "query_s": searched - opened}


def main() -> None:
    result, mode, args = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    parts: dict = {}
    if mode == "casefile":
        from pipeline.cli import main as casefile

        started, cpu = time.perf_counter(), time.process_time()
        code = casefile(args)
    elif mode == "floor":
        started, cpu = time.perf_counter(), time.process_time()
        code = floor(Path(args[0]), Path(args[1]))
    elif mode == "floor-columns":
        started, cpu = time.perf_counter(), time.process_time()
        code = floor(Path(args[0]), Path(args[1]), narrow=True)
    elif mode == "raw-write":
        import pipeline.rawstore  # noqa: F401  (imported before the clock starts, as the CLI is)

        started, cpu = time.perf_counter(), time.process_time()
        code = raw_write(Path(args[0]), Path(args[1]))
    elif mode == "incremental-floor":
        import pipeline.load.warehouse  # noqa: F401  (imported before the clock starts, as the CLI is)
        import pipeline.normalize.delta  # noqa: F401

        started, cpu = time.perf_counter(), time.process_time()
        code = incremental_floor(Path(args[0]), Path(args[1]))
    elif mode == "first-search":
        import pipeline.lookup  # noqa: F401  (imported before the clock: the figures are the open and the query)
        import pipeline.reader  # noqa: F401

        started, cpu = time.perf_counter(), time.process_time()
        parts = first_search(Path(args[0]), args[1])
        code = 0
    else:
        raise SystemExit(f"unknown mode {mode}")
    result.write_text(json.dumps({"seconds": time.perf_counter() - started, "cpu_s": time.process_time() - cpu,
                                  "exit": code, **parts}))
    sys.exit(code)


if __name__ == "__main__":
    main()
