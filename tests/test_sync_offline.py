"""The main job on the bundled sample, end to end, through the real CLI and a DuckDB file."""

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import main

from conftest import FIXTURES

REFERENCE = json.loads((FIXTURES / "reference" / "case_cards.json").read_text("utf-8"))
STATE_TABLES = ("card_set", "card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation")


def casefile(data_dir, *args):
    return main(["--data-dir", str(data_dir), *args])


def snapshot(path, tables=STATE_TABLES):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}
    finally:
        con.close()


def scalar(path, sql):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_offline_sync_of_the_api_builds_the_warehouse(data_dir, capsys):
    assert casefile(data_dir, "sync", "--offline", "--sources", "api") == 0
    out = capsys.readouterr().out
    assert "15 cards" in out and "153 card-ruling links" in out
    db = data_dir / "warehouse" / "casefile.duckdb"
    assert scalar(db, "SELECT count(*) FROM card") == 15
    assert scalar(db, "SELECT count(*) FROM printing") >= 15
    assert scalar(db, "SELECT count(*) FROM card_ruling") == 153
    assert scalar(db, "SELECT count(*) FROM card_ruling") == sum(len(c["rulings"]) for c in REFERENCE)
    assert scalar(db, "SELECT count(*) FROM ruling") == 40
    general = scalar(db, "SELECT count(*) FROM (SELECT ruling_id FROM card_ruling GROUP BY ALL HAVING count(*) = 13)")
    assert general == 9
    assert scalar(db, "SELECT count(DISTINCT oracle_id) FROM printing") == 15
    assert scalar(db, "SELECT mode FROM sync_run") == "offline"


def test_with_the_pages_the_api_rulings_stay_the_same_rulings(data_dir):
    assert casefile(data_dir, "sync", "--offline") == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    assert scalar(db, "SELECT count(*) FROM ruling WHERE source = 'wotc'") == 40
    assert scalar(db, "SELECT count(*) FROM ruling WHERE source = 'mtgwiki'") == 5
    assert scalar(db, "SELECT count(*) FROM card_ruling") == 153


def test_printings_keep_text_collector_numbers_and_languages(data_dir):
    casefile(data_dir, "sync", "--offline")
    db = data_dir / "warehouse" / "casefile.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    numbers = {r[0] for r in con.execute("SELECT collector_number FROM printing").fetchall()}
    assert {"79†", "10s", "45p", "80p"} <= numbers
    fr = con.execute("SELECT printed_name FROM printing WHERE lang = 'fr' AND set_code = 'MKC'").fetchall()
    assert fr == [("Affaire du visage changeant",)] or len(fr) == 1
    con.close()


def test_the_offline_run_is_recorded_like_any_run(data_dir):
    casefile(data_dir, "sync", "--offline")
    runs = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    assert len(runs) == 1
    assert (runs[0] / "_SUCCESS").exists()
    meta = json.loads((runs[0] / "run.json").read_text())
    assert meta["mode"] == "offline" and meta["replay_of"] == "sample"


def test_the_run_row_is_stamped_when_the_load_has_written_the_rows(data_dir, monkeypatch):
    """sync_run.loaded_at is taken inside the load, once its tables are written: duration_s
    covers the fetch, the build and the writes (only the checks and the commit come after)."""
    from datetime import datetime, timezone

    from pipeline.load import warehouse

    written_at = []
    merge = warehouse._merge

    def timed_merge(con, table):
        counts = merge(con, table)
        written_at.append(datetime.now(timezone.utc))
        return counts

    monkeypatch.setattr(warehouse, "_merge", timed_merge)
    casefile(data_dir, "sync", "--offline")
    warehouse_file = data_dir / "warehouse" / "casefile.duckdb"
    loaded_at, duration = (scalar(warehouse_file, f"SELECT {column} FROM sync_run") for column in ("loaded_at", "duration_s"))
    assert len(written_at) == len(warehouse.STATE_TABLES) and duration > 0
    assert loaded_at.replace(tzinfo=timezone.utc) >= max(written_at)  # stored as UTC


def test_syncing_twice_changes_nothing_and_rebuild_reproduces_it(data_dir, capsys):
    db = data_dir / "warehouse" / "casefile.duckdb"
    casefile(data_dir, "sync", "--offline")
    first = snapshot(db)
    assert casefile(data_dir, "sync", "--offline") == 0
    assert "no changes" in capsys.readouterr().out
    assert snapshot(db) == first
    assert scalar(db, "SELECT count(*) FROM sync_run") == 2
    assert scalar(db, "SELECT status FROM sync_run ORDER BY run_id DESC LIMIT 1") == "no_changes"
    everything = snapshot(db, STATE_TABLES + ("raw_document",))
    con = duckdb.connect(str(db), read_only=True)
    runs = con.execute("SELECT run_id FROM sync_run ORDER BY run_id").fetchall()
    con.close()
    assert casefile(data_dir, "rebuild") == 0
    assert snapshot(db, STATE_TABLES + ("raw_document",)) == everything
    rebuilt = duckdb.connect(str(db), read_only=True).execute(
        "SELECT run_id, status, inserted, updated, removed FROM sync_run ORDER BY run_id").fetchall()
    assert [r[0] for r in rebuilt] == [r[0] for r in runs]
    assert [r[1] for r in rebuilt] == ["ok", "no_changes"]


def test_a_rebuild_leaves_the_runs_untimed(data_dir):
    """A rebuild loads each run long after it started: its duration_s would be that delay, so it
    is NULL; a sync's own load times its run."""
    db = data_dir / "warehouse" / "casefile.duckdb"
    casefile(data_dir, "sync", "--offline")
    assert scalar(db, "SELECT duration_s FROM sync_run") > 0
    assert casefile(data_dir, "rebuild") == 0
    assert scalar(db, "SELECT count(*) FILTER (WHERE duration_s IS NULL AND loaded_at IS NOT NULL) FROM sync_run") == 1
    assert casefile(data_dir, "sync", "--offline") == 0
    assert scalar(db, "SELECT count(duration_s) FROM sync_run") == 1


def test_rebuild_skips_incomplete_runs(data_dir):
    casefile(data_dir, "sync", "--offline")
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = snapshot(db)
    broken = data_dir / "raw" / "29991231T235959.000000Z"
    broken.mkdir()
    (broken / "run.json").write_text(json.dumps({"run_id": broken.name, "query": 'type:"Case"', "sources": ["api"]}))
    (broken / "manifest.jsonl").write_text("")
    assert casefile(data_dir, "rebuild") == 0
    assert snapshot(db) == before


def _damage(page: Path, damage: str) -> None:
    if damage == "truncated":
        page.write_bytes(page.read_bytes()[:3000])
    elif damage == "edited":  # the same size, still valid JSON: read as it is, it would be loaded
        body = page.read_bytes()
        assert b"Whenever" in body
        page.write_bytes(body.replace(b"Whenever", b"Whenevre"))
    else:
        page.unlink()


@pytest.mark.parametrize("damage", ["truncated", "edited", "missing"])
def test_a_raw_file_damaged_after_its_run_was_loaded_rejects_no_run_in_a_rebuild(data_dir, capsys, damage):
    """The bundled sample synced, then one of its raw files cut short, edited or deleted by hand.
    A rebuild fails (65) naming the file and keeps the warehouse; it must not mark the run
    rejected, or the next rebuild would leave the run out and empty the warehouse (it did:
    "rebuilt ... from 0 run(s)", exit 0). An edit that kept the file readable was loaded."""
    casefile(data_dir, "-q", "sync", "--offline")
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = snapshot(db)
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    page = run / "docs" / "scryfall-api" / "00001-search.json"
    _damage(page, damage)
    capsys.readouterr()
    for _ in range(2):
        assert casefile(data_dir, "rebuild") == 65
        err = capsys.readouterr().err
        assert f"{run.name}/docs/scryfall-api/00001-search.json" in err and "Traceback" not in err
        assert "not rejected" in err
        assert not (run / "_FAILED").exists()
        assert snapshot(db) == before


def test_a_raw_file_edited_after_its_run_was_loaded_stops_the_next_full_build_of_a_load(data_dir, capsys):
    """A rules ingest's load builds from every current view, so it reads the sample's search page
    again: edited by hand (the same size, still valid JSON), it was loaded as it stood, exit 0,
    and the card's Oracle text changed in the warehouse. It is refused (65), naming the file;
    nothing is loaded and no run is rejected."""
    casefile(data_dir, "-q", "sync", "--offline")
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = snapshot(db)
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    _damage(run / "docs" / "scryfall-api" / "00001-search.json", "edited")
    capsys.readouterr()
    assert casefile(data_dir, "rules", "ingest", str(FIXTURES / "rules" / "cr_case_excerpt.txt")) == 65
    err = capsys.readouterr().err
    assert f"{run.name}/docs/scryfall-api/00001-search.json does not match its manifest sha256" in err
    assert "not rejected" in err and "Traceback" not in err
    assert snapshot(db) == before
    assert not any((p / "_FAILED").exists() for p in (data_dir / "raw").iterdir() if p.is_dir())


def test_a_rebuild_from_a_raw_store_without_runs_does_not_empty_the_warehouse(data_dir, capsys):
    """data/raw/ emptied or not there (a mount that failed): the warehouse still holds its run,
    and a rebuild would replace it with an empty one. It is refused (78) and the warehouse stays;
    once the warehouse file is deleted, a rebuild of nothing is what was asked for."""
    casefile(data_dir, "-q", "sync", "--offline")
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = snapshot(db)
    (data_dir / "raw").rename(data_dir / "raw.unmounted")
    capsys.readouterr()
    assert casefile(data_dir, "rebuild") == 78
    err = capsys.readouterr().err
    assert "holds no complete run" in err and "1 loaded run(s)" in err and "Traceback" not in err
    assert snapshot(db) == before
    db.unlink()
    assert casefile(data_dir, "rebuild") == 0
    assert "from 0 run(s)" in capsys.readouterr().out


def test_offline_replay_of_a_run_folder(data_dir, tmp_path):
    casefile(data_dir, "sync", "--offline")
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    other = tmp_path / "other"
    assert casefile(other, "sync", "--offline", str(run)) == 0
    assert snapshot(other / "warehouse" / "casefile.duckdb") == snapshot(data_dir / "warehouse" / "casefile.duckdb")


def test_offline_replay_of_a_run_folder_named_with_bytes_that_are_not_utf8(data_dir, tmp_path):
    """The run records the folder it replays (`replay_of`), which DuckDB takes as UTF-8 only: the
    folder's name is stored with U+FFFD for its other bytes, and later syncs and a rebuild load."""
    import os

    casefile(data_dir, "-q", "sync", "--offline")
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    copy = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/run\xff"))
    shutil.copytree(run, copy)
    other = tmp_path / "other"
    assert casefile(other, "-q", "sync", "--offline", str(copy)) == 0
    assert casefile(other, "-q", "sync", "--offline") == 0
    assert casefile(other, "-q", "rebuild") == 0
    con = duckdb.connect(str(other / "warehouse" / "casefile.duckdb"), read_only=True)
    replayed = con.execute("SELECT replay_of FROM sync_run ORDER BY run_id").fetchall()
    con.close()
    assert replayed == [(str(tmp_path) + "/run\ufffd",), ("sample",)]


def test_offline_with_a_query_the_recording_lacks_is_a_usage_error(data_dir, capsys):
    assert casefile(data_dir, "sync", "--offline", "--query", "set:xyz") == 2
    assert "holds no response" in capsys.readouterr().err
    assert not (data_dir / "warehouse" / "casefile.duckdb").exists()


@pytest.mark.parametrize("lost", ["manifest.jsonl", "docs/scryfall-api/00001-search.json"])
def test_a_recorded_run_missing_a_file_is_refused_by_name(data_dir, tmp_path, capsys, lost):
    """A copy of a recorded run (made here by syncing the bundled sample) without its manifest
    or one of its documents: the replay fails with 65 naming the file (it was a traceback for a
    document, and "holds no response" with 2 for the manifest), the warehouse is left as it was."""
    casefile(data_dir, "-q", "sync", "--offline")
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    copy = tmp_path / "recorded"
    shutil.copytree(run, copy)
    (copy / lost).unlink()
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = snapshot(db)
    capsys.readouterr()
    assert casefile(data_dir, "sync", "--offline", str(copy)) == 65
    err = capsys.readouterr().err
    assert f"{copy / lost} is missing" in err and "Traceback" not in err
    assert snapshot(db) == before


def test_a_failed_sync_s_json_error_line_names_the_run_it_kept(data_dir, tmp_path, capsys):
    """A copy of a recorded run (the bundled sample synced) without one of its documents: the sync
    fails (65) and keeps its run marked failed, which its JSON error line names."""
    casefile(data_dir, "-q", "sync", "--offline")
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    copy = tmp_path / "recorded"
    shutil.copytree(run, copy)
    (copy / "docs/scryfall-api/00001-search.json").unlink()
    capsys.readouterr()
    assert casefile(data_dir, "--log-format", "json", "sync", "--offline", str(copy)) == 65
    error = json.loads(capsys.readouterr().err.splitlines()[-1])
    [failed] = [p for p in (data_dir / "raw").iterdir() if (p / "_FAILED").exists()]
    assert (error["exit_code"], error["run_id"]) == (65, failed.name)


def test_offline_from_a_folder_that_is_not_a_run(data_dir, tmp_path, capsys):
    assert casefile(data_dir, "sync", "--offline", str(tmp_path)) == 78
    assert "not a casefile run" in capsys.readouterr().err


def test_offline_from_a_folder_the_system_cannot_look_up_is_a_usage_error(data_dir, tmp_path, capsys):
    """A name too long for the file system was a traceback (exit 1)."""
    assert casefile(data_dir, "sync", "--offline", str(tmp_path / ("x" * 300))) == 2
    err = capsys.readouterr().err
    assert "cannot read it (File name too long)" in err and "Traceback" not in err
    assert not (data_dir / "raw").exists()


def test_offline_from_a_rules_ingest_run_says_it_is_no_sync_run(data_dir, capsys):
    """A rules ingest's run was refused with "--sources must include api", which said nothing of
    why: the message now names it a rules ingest and gives the command that ingests its file again."""
    casefile(data_dir, "-q", "sync", "--offline")
    before = {p.name for p in (data_dir / "raw").iterdir()}
    assert casefile(data_dir, "-q", "rules", "ingest", str(FIXTURES / "rules" / "cr_case_excerpt.txt")) == 0
    [ingest] = [p for p in (data_dir / "raw").iterdir() if p.name not in before]
    runs = sorted(p.name for p in (data_dir / "raw").iterdir())
    capsys.readouterr()
    assert casefile(data_dir, "sync", "--offline", str(ingest)) == 2
    err = capsys.readouterr().err
    assert f"--offline: {ingest} is a rules ingest, not a sync run; sync cannot replay it" in err
    [copy] = (ingest / "docs" / "comprehensive-rules").iterdir()
    assert f"casefile rules ingest {copy})" in err and "--sources" not in err
    assert sorted(p.name for p in (data_dir / "raw").iterdir()) == runs  # no run made for it
    assert casefile(data_dir, "-q", "rules", "ingest", str(copy)) == 0  # the command it names works


def test_page_sources_beside_a_large_input_take_the_sql_path_and_load_the_same(data_dir, tmp_path, capsys,
                                                                                 monkeypatch):
    """Page sources no longer send a large build to Python: their copies are reconciled with the
    Scryfall sightings they can reach, the rest in SQL. The bundled sample stands in for a large
    input by lowering the SQL path's threshold; the tables equal those of the Python build."""
    import pipeline.build

    assert casefile(data_dir, "-v", "sync", "--offline") == 0  # small: the Python path
    assert "building in Python: " in capsys.readouterr().err

    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 1)
    other = tmp_path / "sql-built"
    assert casefile(other, "-v", "sync", "--offline") == 0
    assert "building in Python" not in capsys.readouterr().err
    python_built = snapshot(data_dir / "warehouse" / "casefile.duckdb")
    assert snapshot(other / "warehouse" / "casefile.duckdb") == python_built
    assert len(python_built["ruling_sighting"]) > len(python_built["card_ruling"])  # page copies are in

    # with an edition of the rules ingested, the links are made from the SQL build's cards and rulings
    rules = FIXTURES / "rules" / "cr_case_excerpt.txt"
    monkeypatch.undo()
    assert casefile(data_dir, "rules", "ingest", str(rules)) == 0
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 1)
    assert casefile(other, "-v", "rules", "ingest", str(rules)) == 0
    assert "building in Python" not in capsys.readouterr().err
    linked = STATE_TABLES + ("cr_edition", "cr_rule", "cr_glossary", "ruling_rule", "card_rule")
    python_built = snapshot(data_dir / "warehouse" / "casefile.duckdb", linked)
    assert snapshot(other / "warehouse" / "casefile.duckdb", linked) == python_built
    assert python_built["ruling_rule"] and python_built["card_rule"]


def test_rebuild_reports_its_progress_run_by_run(settings, cli, caplog):
    from pipeline.sync import rebuild

    for _ in range(2):
        assert cli("sync", "--offline").returncode == 0
    calls = []
    with caplog.at_level("INFO", logger="pipeline.sync"):
        rebuild(settings, progress=lambda label, **kw: calls.append((label, kw)))
    assert calls == [("runs rebuilt", {"unit": " run", "total": 2})] * 2
    assert [r.getMessage().split(" in ")[0] for r in caplog.records if r.getMessage().startswith("rebuild:")] == [
        f"rebuild: run {run.name} loaded ({i} of 2)" for i, run in enumerate(sorted((settings.raw_dir).iterdir()), 1)]


def test_an_offline_sync_and_the_reading_commands_import_no_http_library(tmp_path):
    """An offline replay reads recorded files: importing requests (and urllib3, ssl) would only
    add some 60 ms to every replay and every scheduled rebuild-like run. Each command runs in a
    process of its own, which then says which HTTP modules it had imported."""
    import subprocess
    import sys

    from conftest import subprocess_env

    data = tmp_path / "data"
    probe = ("import sys\nfrom pipeline.cli import main\ncode = main(sys.argv[1:])\n"
             "print(sorted(m for m in ('requests', 'urllib3', 'ssl', 'http.client') if m in sys.modules))\n"
             "raise SystemExit(code)\n")
    for command in (["sync", "--offline"], ["search", "copy"], ["card", "Case of the Burning Masks"],
                    ["status"], ["rebuild"]):
        done = subprocess.run([sys.executable, "-c", probe, "-q", *command], capture_output=True, text=True,
                              env=subprocess_env(data), timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.splitlines()[-1] == "[]", (command, done.stdout[-300:])
