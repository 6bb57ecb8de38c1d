"""What ``casefile status`` reports: paths, runs of the raw store, and the warehouse's row counts.

Reads only: the raw store's markers and a read-only warehouse connection.
"""

from __future__ import annotations

from .config import Settings
from .errors import NoWarehouse
from .lock import holder_pid
from .rawstore import RawStore, inode_usage, store_problem, who_cannot
from .reader import TABLES, loaded_runs, open_reader, query
from .resources import read_sql


def collect_status(settings: Settings, recent: int = 5) -> dict:
    runs = RawStore(settings.raw_dir).runs()
    problem = store_problem(settings.raw_dir)  # `casefile doctor` fails on it, with what to do
    by_status: dict[str, int] = {}
    for run in runs:
        by_status[run.status] = by_status.get(run.status, 0) + 1
    info = {
        "paths": {"data_dir": str(settings.data_dir), "raw_dir": str(settings.raw_dir),
                  "warehouse": str(settings.warehouse_path), "lock": str(settings.lock_path),
                  "cache": str(settings.cache_dir)},
        "sync_running_pid": holder_pid(settings.lock_path),
        "runs": {"total": len(runs), "complete": by_status.get("complete", 0),
                 "failed": sum(v for k, v in by_status.items() if k not in ("complete", "incomplete")),
                 "incomplete": by_status.get("incomplete", 0),
                 "bytes": sum(size for _, _, size in inode_usage([run.path for run in runs]).values()),
                 "problem": None if problem is None else f"it {problem[0]}: {who_cannot(problem[0])} can keep a run there"},
        "warehouse": {"exists": settings.warehouse_path.exists()},
        "recent_runs": [],
    }
    loaded: set[str] = set()
    con = None
    if settings.warehouse_path.exists():
        try:
            con = open_reader(settings.warehouse_path, settings.reader_wait_s)
        except NoWarehouse:  # a DuckDB file without casefile's tables: not built yet
            info["warehouse"]["exists"] = False
    if con is not None:
        try:
            # a table a writer of an older version did not make (the next sync adds it) is left out
            info["warehouse"]["tables"] = {t: query(con, f"SELECT count(*) FROM {t}")[1][0][0] for t in TABLES
                                           if query(con, read_sql("read/has_table.sql"), {"name": t})[1][0][0]}
            cols, rows = query(con, "SELECT run_id, mode, status, query FROM sync_run ORDER BY run_id DESC LIMIT 1")
            if rows:
                info["warehouse"]["last_run"] = dict(zip(cols, rows[0]))
            loaded = loaded_runs(con)
        finally:
            con.close()
    for run in runs[-recent:][::-1]:
        info["recent_runs"].append({"run_id": run.run_id, "mode": run.meta.get("mode"), "status": run.status,
                                    "loaded": run.run_id in loaded, "query": run.meta.get("query"),
                                    "reason": (run.failure or {}).get("reason")})
    return info
