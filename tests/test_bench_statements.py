"""bench/statements.py, the statement profiler of one casefile command, on the bundled sample."""

import json

import duckdb

from bench import statements


def test_a_sync_of_the_sample_is_recorded_statement_by_statement(data_dir):
    original = duckdb.connect
    code = statements.main(["--over", "0", "--json", str(data_dir / "statements.json"), "--",
                            "--data-dir", str(data_dir), "-q", "sync", "--offline", "--sources", "api"])
    assert code == 0
    assert duckdb.connect is original  # put back after the command
    saved = json.loads((data_dir / "statements.json").read_text("utf-8"))
    assert saved["exit"] == 0 and saved["statements"]
    rows = saved["statements"]
    # the load's transaction ends in a COMMIT run by the load, and the writer's close is timed
    assert any(r["sql"] == "COMMIT" and r["site"].startswith("warehouse:") for r in rows)
    assert any(r["sql"].startswith("(close") for r in rows)
    # run_script is looked through: its statements are credited to the function that ran it
    assert not any(r["site"].startswith("sqlexec:") for r in rows)
    assert sum(r["seconds"] for r in rows if r["thread"] == "main") <= saved["seconds"]
    # each says when it ended: on the main thread one after the other, each after its own time
    main_thread = [r for r in rows if r["thread"] == "main"]
    assert all(r["ended"] >= r["seconds"] for r in rows)
    assert all(b["ended"] - b["seconds"] >= a["ended"] - 1e-6 for a, b in zip(main_thread, main_thread[1:]))
    assert main_thread[-1]["ended"] <= saved["seconds"] + 0.05


def test_the_summary_names_the_costliest_call_site_first():
    rows = [statements.Statement(0.004, "a:f", "main", "SELECT 1"),
            statements.Statement(0.030, "b:g", "main", "CREATE TABLE t AS"),
            statements.Statement(0.002, "a:f", "main", "SELECT 2"),
            statements.Statement(0.500, "lines:_scan", "worker-1", "CREATE TEMP TABLE line_hashed AS")]
    assert statements.by_site(rows[:3]) == [("b:g", 0.030, 1), ("a:f", 0.006, 2)]
    text = statements.report(rows, total=0.1, over_ms=10, n_sites=5)
    assert "statements on the main thread 3, 0.036 s (36%)" in text
    assert "statements under 10 ms: 2, 0.006 s" in text
    assert "on other threads: 1 statements, 0.500 s" in text
    listed = text.split("in order:")[1]
    assert "CREATE TABLE t AS" in listed and "[worker-1]" in listed and "SELECT 1" not in listed


def test_a_label_is_the_first_line_that_is_not_a_comment():
    assert statements.label("-- what it does\n-- more\nCREATE TABLE x AS\nSELECT 1") == "CREATE TABLE x AS"
    assert statements.label("SELECT " + "x" * 200, width=20) == "SELECT " + "x" * 12 + "…"
    # a statement DuckDB parsed, as pipeline/sqlexec.py run_script runs them, by its text
    parsed = duckdb.connect().extract_statements("-- a comment\nSELECT 1 AS one;\nSELECT 2")
    assert [statements.label(s) for s in parsed] == ["SELECT 1 AS one;", "SELECT 2"]
