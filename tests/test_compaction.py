"""When a sync's close may compact the warehouse (pipeline/load/warehouse.py defer_compaction).

What DuckDB's vacuum does to row groups is DuckDB's; here, the rule that decides when it runs,
on a copy of the bundled sample's warehouse (one run loaded).
"""

import duckdb
import pytest

from pipeline.config import from_env
from pipeline.errors import ConfigError
from pipeline.load.warehouse import defer_compaction, open_writer
from support.warehouse_state import query, warehouse_of

COMPACT_EVERY = from_env({}).compact_every  # the default, 7


def vacuum_tasks(con) -> int:
    return int(con.execute("SELECT current_setting('max_vacuum_tasks')").fetchone()[0])


@pytest.fixture
def writer(warehouse_copy):
    con = open_writer(warehouse_of(warehouse_copy()))
    yield con
    con.close()


def query_count(con) -> int:
    return con.execute("SELECT count(*) FROM sync_run").fetchone()[0]


def add_runs(con, n: int) -> None:
    """``n`` more sync_run rows, copies of the loaded one under other run ids (test-only rows)."""
    con.execute("INSERT INTO sync_run SELECT s.* REPLACE (s.run_id || '-copy-' || CAST(r.i AS VARCHAR) AS run_id) "
                "FROM (SELECT * FROM sync_run LIMIT 1) AS s, range($n) AS r(i)", {"n": n})


def test_a_close_after_deltas_only_leaves_the_row_groups_as_they_are(writer):
    default = vacuum_tasks(writer)
    assert default > 0
    assert query_count(writer) % COMPACT_EVERY != 0
    assert defer_compaction(writer, ["delta", "delta"], COMPACT_EVERY) and vacuum_tasks(writer) == 0


@pytest.mark.parametrize("builds", [[], ["full"], ["delta", "full"], ["python"]])
def test_a_writer_that_did_anything_but_deltas_compacts(writer, builds):
    default = vacuum_tasks(writer)
    assert not defer_compaction(writer, builds, COMPACT_EVERY) and vacuum_tasks(writer) == default


def test_one_sync_in_compact_every_compacts_after_deltas(writer):
    default = vacuum_tasks(writer)
    add_runs(writer, COMPACT_EVERY - query_count(writer) % COMPACT_EVERY)
    assert query_count(writer) % COMPACT_EVERY == 0
    assert not defer_compaction(writer, ["delta"], COMPACT_EVERY) and vacuum_tasks(writer) == default
    add_runs(writer, 1)
    assert defer_compaction(writer, ["delta"], COMPACT_EVERY) and vacuum_tasks(writer) == 0


def test_the_setting_lasts_only_as_long_as_the_writer(warehouse_copy):
    path = warehouse_of(warehouse_copy())
    con = open_writer(path)
    default = vacuum_tasks(con)
    assert defer_compaction(con, ["delta"], COMPACT_EVERY)
    con.close()
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert vacuum_tasks(con) == default
    finally:
        con.close()
    assert query(path, "SELECT count(*) FROM sync_run") == [(1,)]


def test_every_sync_compacts_when_told_to(writer):
    assert not defer_compaction(writer, ["delta"], 1) and vacuum_tasks(writer) > 0
    assert from_env({"CASEFILE_COMPACT_EVERY": "1"}).compact_every == 1
    assert from_env({}).compact_every == 7
    with pytest.raises(ConfigError, match="CASEFILE_COMPACT_EVERY must be at least 1"):
        from_env({"CASEFILE_COMPACT_EVERY": "0"})
