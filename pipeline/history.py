"""Reading the change history: which runs changed what (``casefile changes``).

Read-only: a reader connection and the SQL of sql/read/.
"""

from __future__ import annotations

import logging
import re
from datetime import date
from typing import Iterator

from .errors import UsageError, shown
from .reader import query, query_batches
from .rawstore import RUN_ID_RE
from .resources import read_sql

log = logging.getLogger(__name__)


def runs_for(con, since: str | None) -> list[str]:
    """The runs to report: after a run id, since a date (YYYY-MM-DD), or the latest sync (not a
    rules ingest, which changes no card or ruling)."""
    if since is None:
        _, rows = query(con, read_sql("read/latest_sync.sql"))
        return [rows[0][0]] if rows and rows[0][0] else []
    params = {"since_run": None, "since_date": None}
    if RUN_ID_RE.match(since):
        params["since_run"] = since
    elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", since):
        try:
            date.fromisoformat(since)
        except ValueError:
            raise UsageError(f"--since: {shown(since)} is not a valid date") from None
        params["since_date"] = since
    else:
        raise UsageError(f"--since takes a run id (like 20261130T162008.568924Z) or a date (YYYY-MM-DD), not {shown(since)}")
    _, rows = query(con, read_sql("read/runs_since.sql"), params)
    if params["since_run"] and not query(con, read_sql("read/run_loaded.sql"), {"run_id": since})[1][0][0]:
        # a run that was fetched but never loaded (rejected, failed) still marks a point in time;
        # a mistyped id would silently list the wrong runs, so say it
        log.warning("note: the warehouse holds no run %s (never loaded, or mistyped); "
                    "listing the %d loaded run(s) after it", since, len(rows))
    return [r[0] for r in rows]


def runs_that_changed_rows(con, runs: list[str]) -> int:
    """How many of ``runs`` changed rows (a sync's status ``ok``): with no change event, they
    changed what the events do not tell (printings, sets, sightings, the order of a card's rulings)."""
    if not runs:
        return 0
    return int(query(con, read_sql("read/runs_changed.sql"), {"runs": runs})[1][0][0])


def change_batches(con, runs: list[str], size: int = 10_000) -> tuple[list[str], Iterator[list[tuple]]]:
    """The columns and the change events of ``runs`` in batches of ``size`` rows, as DuckDB
    gives them (a first bulk sync records every card and ruling: hundreds of thousands of rows).
    The connection must stay open until the batches are read."""
    return query_batches(con, read_sql("read/changes.sql"), {"runs": runs}, size)
