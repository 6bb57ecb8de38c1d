"""bench/compare.py: two statement profiles of a command, paired statement by statement."""

import json
import shutil

import pytest

from bench import compare, statements


def _row(seconds, sql, site="delta:_build_on", thread="main"):
    return {"seconds": seconds, "site": site, "thread": thread, "sql": sql}


def test_quoted_strings_and_hashes_are_masked_but_names_are_not():
    assert compare.masked("COPY casefile_scans.main.scan_0_6c5e5050 TO '/tmp/x/.abc-1.tmp'") == \
        "COPY casefile_scans.main.scan_0_# TO ''"
    # a label cut short inside its string
    assert compare.masked("COPY n_card_line TO '/tmp/x2/cache/lines/.82e1181544…") == "COPY n_card_line TO ''…"
    # cut short after its string: the cut moves with the string's length
    assert compare.masked("ATTACH '/tmp/a/data/warehouse/casefile.duckdb' AS ware…") == \
        compare.masked("ATTACH '/tmp/a/b/data/warehouse/casefile.duckdb' AS w…") == "ATTACH ''…"
    assert compare.masked("SELECT 'it''s' AS a, deadbeefx1 FROM t") == "SELECT '' AS a, deadbeefx1 FROM t"
    assert compare.masked("CREATE TEMP TABLE d_card_match AS") == "CREATE TEMP TABLE d_card_match AS"


def test_statements_pair_in_order_by_site_thread_and_sql():
    a = [_row(0.010, "SELECT 1"), _row(0.020, "SELECT 1"),
         _row(0.5, "CREATE TABLE scan_0_aaaaaaaa AS", "lines:_scan", "T-1"), _row(0.003, "DROP TABLE x")]
    b = [_row(0.011, "SELECT 1"), _row(0.050, "SELECT 1"),
         _row(0.4, "CREATE TABLE scan_0_bbbbbbbb AS", "lines:_scan", "T-0"),
         _row(0.007, "SELECT 1", site="warehouse:_merge")]
    pairs = compare.pair(a, b)
    first, second = [p for p in pairs if p.key == ("delta:_build_on", True, "SELECT 1")]
    assert (first.a, first.b, second.a, second.b) == (0.010, 0.011, 0.020, 0.050)
    scan = next(p for p in pairs if p.key[0] == "lines:_scan")
    assert (scan.key[1], scan.a, scan.b) == (False, 0.5, 0.4)  # another thread's name, another day's hash
    assert [(p.key[2], p.a, p.b) for p in pairs if p.a is None or p.b is None] == \
        [("DROP TABLE x", 0.003, None), ("SELECT 1", None, 0.007)]
    assert second.difference == pytest.approx(0.030)


def test_the_report_sums_the_differences_and_names_the_largest():
    a = {"seconds": 1.0, "statements": [_row(0.010, "SELECT 1"), _row(0.100, "CREATE TABLE big AS"),
                                        _row(0.040, "CREATE TABLE shrinks AS"), _row(0.3, "SCAN", "lines:_scan", "T")]}
    b = {"seconds": 1.2, "statements": [_row(0.012, "SELECT 1"), _row(0.250, "CREATE TABLE big AS"),
                                        _row(0.020, "CREATE TABLE shrinks AS"), _row(0.3, "SCAN", "lines:_scan", "T"),
                                        _row(0.009, "INSERT INTO new")]}
    text = compare.report(a, b, over_ms=5, top=1)
    assert "command: A 1.000 s, B 1.200 s, B - A +0.200 s" in text
    assert "main thread: 3 pairs, A 0.150 s, B 0.282 s, B - A +0.132 s" in text
    assert "other threads: 1 pairs, A 0.300 s, B 0.300 s, B - A +0.000 s" in text
    assert "more than 5 ms longer in B: 1, +0.150 s in all" in text
    assert "more than 5 ms shorter in B: 1, -0.020 s in all" in text
    longer = text.split("B longer")[1].split("B shorter")[0]
    assert "CREATE TABLE big AS" in longer and "SELECT 1" not in longer  # --top 1
    assert "ran in B only: 1 statements, 0.009 s" in text and "ran in A only" not in text


def test_a_file_that_is_not_a_profile_is_refused(tmp_path, capsys):
    good = tmp_path / "a.json"
    good.write_text(json.dumps({"seconds": 0.1, "exit": 0, "statements": [_row(0.01, "SELECT 1")]}), "utf-8")
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps({"rows": []}), "utf-8")
    with pytest.raises(SystemExit, match="is not a file of python -m bench.statements --json"):
        compare.main([str(good), str(bad)])
    with pytest.raises(SystemExit, match="cannot read"):
        compare.main([str(good), str(tmp_path / "missing.json")])
    assert compare.main([str(good), str(good)]) == 0
    assert "B - A +0.000 s" in capsys.readouterr().out


def test_two_profiles_of_the_same_sync_pair_every_statement(data_dir, tmp_path):
    """The sample synced into two copies of an empty data folder: the same statements, each paired."""
    other = tmp_path / "other-data"
    shutil.copytree(data_dir, other)
    files = []
    for folder in (data_dir, other):
        target = tmp_path / f"{folder.name}.json"
        assert statements.main(["--json", str(target), "--", "--data-dir", str(folder), "-q",
                                "sync", "--offline", "--sources", "api"]) == 0
        files.append(json.loads(target.read_text("utf-8")))
    pairs = compare.pair(files[0]["statements"], files[1]["statements"])
    assert pairs and all(p.a is not None and p.b is not None for p in pairs)
    assert len(pairs) == len(files[0]["statements"]) == len(files[1]["statements"])
