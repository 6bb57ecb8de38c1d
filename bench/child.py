"""One measured step of the benchmark, in a process of its own (so its peak RSS is its own).

    python -m bench.child RESULT.json casefile ARGS...   # casefile's CLI, in this process
    python -m bench.child RESULT.json floor RUN_DIR DB   # DuckDB's read_json of a run's files

Writes {"seconds": …, "cpu_s": …, "exit": …} to RESULT.json: the time of the step itself, from
after the imports to its end, and the CPU time (user + system, every thread) the process spent in
that span (the parent also records the process's wall time and peak RSS).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def floor(run_dir: Path, db: Path) -> int:
    """The floor: DuckDB's own read_json of every body of a run into plain tables, no normalization."""
    import duckdb

    for stale in (db, Path(str(db) + ".wal")):
        if stale.exists():
            stale.unlink()
    con = duckdb.connect(str(db))
    for i, line in enumerate((run_dir / "manifest.jsonl").read_text("utf-8").splitlines()):
        entry = json.loads(line)
        con.execute(f"CREATE TABLE doc_{i} AS SELECT * FROM read_json(?)", [str(run_dir / entry["path"])])
    con.execute("CHECKPOINT")
    con.close()
    return 0


def main() -> None:
    result, mode, args = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    if mode == "casefile":
        from pipeline.cli import main as casefile

        started, cpu = time.perf_counter(), time.process_time()
        code = casefile(args)
    elif mode == "floor":
        started, cpu = time.perf_counter(), time.process_time()
        code = floor(Path(args[0]), Path(args[1]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    result.write_text(json.dumps({"seconds": time.perf_counter() - started, "cpu_s": time.process_time() - cpu,
                                  "exit": code}))
    sys.exit(code)


if __name__ == "__main__":
    main()
