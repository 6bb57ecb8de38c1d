"""casefile export rulings: files that read back, identical bytes, a folder replaced whole or not at all."""

import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline import export as export_module
from pipeline.cli import main
from pipeline.export import export_rulings

EXCERPT = Path(__file__).parent / "fixtures" / "rules" / "cr_case_excerpt.txt"
READERS = {"csv": "read_csv", "jsonl": "read_json", "parquet": "read_parquet"}


def warehouse_of(data):
    return data / "warehouse" / "casefile.duckdb"


def scalar(data, sql):
    con = duckdb.connect(str(warehouse_of(data)), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def read_back(path, fmt):
    con = duckdb.connect()
    try:
        cursor = con.execute(f"SELECT * FROM {READERS[fmt]}($path)", {"path": str(path)})
        columns = [d[0] for d in cursor.description]
        return [dict(zip(columns, row)) for row in cursor.fetchall()]
    finally:
        con.close()


def files_of(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def run_export(data, out, *args):
    return main(["--data-dir", str(data), "export", "rulings", "--out", str(out), *args])


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_every_format_reads_back_with_the_warehouse_row_counts(sample_data_dir, tmp_path, capsys, fmt):
    out = tmp_path / "export"
    assert run_export(sample_data_dir, out, "--format", fmt) == 0
    run_id = scalar(sample_data_dir, "SELECT run_id FROM sync_run")
    assert capsys.readouterr().out == (f"exported rulings to {out} ({fmt}): 40 rulings, 153 card-ruling links; "
                                       f"from run {run_id}\n")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"rulings.{fmt}", f"card_rulings.{fmt}", "datasheet.md", "manifest.json"])
    rulings = read_back(out / f"rulings.{fmt}", fmt)
    links = read_back(out / f"card_rulings.{fmt}", fmt)
    assert len(rulings) == scalar(sample_data_dir, "SELECT count(*) FROM ruling") == 40
    assert len(links) == scalar(sample_data_dir, "SELECT count(*) FROM card_ruling") == 153
    assert [r["ruling_id"] for r in rulings] == sorted(r["ruling_id"] for r in rulings)

    def as_list(value):  # CSV holds lists as JSON text
        return json.loads(value) if isinstance(value, str) else list(value)

    shared = [r for r in rulings if r["card_count"] == 13]
    assert len(shared) == 9  # the general Case rulings, on all 13 cards with rulings
    for r in rulings:
        names, ids = as_list(r["card_names"]), as_list(r["oracle_ids"])
        assert len(names) == len(ids) == r["card_count"] and names == sorted(names)
        assert as_list(r["origins"]) == ["scryfall-api"] and as_list(r["translations"]) == []
    assert sum(r["sightings"] for r in rulings) == scalar(sample_data_dir, "SELECT count(*) FROM ruling_sighting")
    assert sum(r["card_count"] for r in rulings) == len(links)
    assert {(l["oracle_id"], l["ruling_id"]) for l in links} == {
        (o, i) for r in rulings for o, i in zip(as_list(r["oracle_ids"]), [r["ruling_id"]] * r["card_count"])}


def test_manifest_lists_files_rows_and_checksums(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    result = export_rulings(warehouse_of(sample_data_dir), out, "parquet")
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["generator"] == "casefile export" and manifest["format"] == "parquet"
    assert manifest["sync_run"]["run_id"] == result.run_id
    assert manifest["sync_run"]["query"] == 'type:"Case"'
    assert [(f["name"], f["rows"]) for f in manifest["files"]] == [
        ("rulings.parquet", 40), ("card_rulings.parquet", 153), ("datasheet.md", None)]
    for entry in manifest["files"]:
        data = (out / entry["name"]).read_bytes()
        assert entry["bytes"] == len(data) and entry["sha256"] == hashlib.sha256(data).hexdigest()


def test_datasheet_explains_every_column_and_names_run_and_sources(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    result = export_rulings(warehouse_of(sample_data_dir), out, "csv")
    sheet = (out / "datasheet.md").read_text("utf-8")
    for stem in ("rulings", "card_rulings"):
        con = duckdb.connect()
        columns = [d[0] for d in con.execute("SELECT * FROM read_csv($p) LIMIT 0",
                                             {"p": str(out / f"{stem}.csv")}).description]
        con.close()
        for column in columns:
            assert f"| `{column}` |" in sheet, column
    assert f"sync run `{result.run_id}`" in sheet and '`type:"Case"`' in sheet
    assert "| `rulings.csv` | 40 |" in sheet and "| `card_rulings.csv` | 153 |" in sheet
    assert "| `ruling_translation` | 0 |" in sheet
    assert "Scryfall" in sheet and "Wizards of the Coast Fan Content Policy" in sheet
    assert "JSON arrays" in sheet


def test_the_datasheet_names_every_source_a_ruling_can_have(warehouse_copy, tmp_path):
    # test-only row on a copy: a ruling as reconciliation makes one of a card page's copy that
    # matches no ruling of the API and shows no source, whose source is then the page's origin
    data = warehouse_copy("INSERT INTO ruling VALUES ('rtestonly0000001', 'scryfall-page', DATE '2024-02-02', "
                          "'Test-only ruling.', 'test-only ruling.')")
    out = tmp_path / "export"
    export_rulings(warehouse_of(data), out, "csv")
    sources = {row["source"] for row in read_back(out / "rulings.csv", "csv")}
    assert sources == {"wotc", "scryfall-page"}
    sheet = (out / "datasheet.md").read_text("utf-8")
    described = next(line for line in sheet.splitlines() if line.startswith("| `source` |"))
    for source in sources:
        assert f"`{source}`" in described, source


def test_the_run_named_is_the_latest_sync_not_a_later_rules_ingest(sample_data_dir, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(sample_data_dir, data)
    synced = scalar(data, "SELECT max(run_id) FROM sync_run")
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(EXCERPT)]) == 0
    assert scalar(data, "SELECT max(run_id) FROM sync_run WHERE mode = 'ingest'") > synced
    out = tmp_path / "export"
    result = export_rulings(warehouse_of(data), out, "jsonl")
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert result.run_id == synced
    assert manifest["sync_run"]["run_id"] == synced and manifest["sync_run"]["mode"] == "offline"
    assert f"sync run `{synced}` (the latest loaded): mode offline" in (out / "datasheet.md").read_text("utf-8")


def test_the_manifest_names_the_run_each_source_s_rows_come_from(sample_warehouse, tmp_path):
    """A sync of the API alone after a sync of every source: the wiki's, listeblanche.fr's and
    scryfall.com's rulings stay from the first run. The manifest named only the second run, whose
    sources were `api`, beside rulings from the wiki."""
    data = tmp_path / "data"
    shutil.copytree(sample_warehouse, data)
    first = scalar(data, "SELECT max(run_id) FROM sync_run")
    assert main(["--data-dir", str(data), "-q", "sync", "--offline", "--sources", "api"]) == 0
    second = scalar(data, "SELECT max(run_id) FROM sync_run")
    out = tmp_path / "export"
    export_rulings(warehouse_of(data), out, "jsonl")
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["sync_run"]["run_id"] == second and manifest["sync_run"]["sources"] == "api"
    assert [(v["query"], v["source"], v["run_id"]) for v in manifest["views"]] == [
        ('type:"Case"', "api", second), ('type:"Case"', "listeblanche", first),
        ('type:"Case"', "scryfall-page", first), ('type:"Case"', "wiki", first)]
    assert all(v["started_at"].endswith("Z") and v["finished_at"].endswith("Z") for v in manifest["views"])
    sheet = (out / "datasheet.md").read_text("utf-8")
    assert f"| `type:\"Case\"` | `wiki` | `{first}` | offline |" in sheet
    assert f"| `type:\"Case\"` | `api` | `{second}` | offline |" in sheet


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_exporting_the_same_warehouse_twice_gives_identical_bytes(sample_data_dir, tmp_path, fmt):
    first, second = tmp_path / "first", tmp_path / "second"
    export_rulings(warehouse_of(sample_data_dir), first, fmt)
    export_rulings(warehouse_of(sample_data_dir), second, fmt)
    assert files_of(first) == files_of(second)
    before = files_of(first)
    export_rulings(warehouse_of(sample_data_dir), first, fmt)  # over itself
    assert files_of(first) == before


def test_a_new_export_replaces_the_previous_one_whole(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    export_rulings(warehouse_of(sample_data_dir), out, "parquet")
    assert sorted(p.name for p in out.iterdir()) == ["card_rulings.parquet", "datasheet.md", "manifest.json",
                                                      "rulings.parquet"]
    assert [p.name for p in tmp_path.iterdir()] == ["export"]  # nothing left beside it


def test_an_export_that_fails_removes_the_folders_it_made_for_its_out(sample_data_dir, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    (tmp_path / "kept").mkdir()
    monkeypatch.setattr(export_module, "write_datasheet", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        export_rulings(warehouse_of(sample_data_dir), tmp_path / "kept" / "a" / "b" / "export", "csv")
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and list((tmp_path / "kept").iterdir()) == []


def test_an_export_interrupted_midway_leaves_the_previous_one_intact(sample_data_dir, tmp_path, monkeypatch):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    # the data files are written, then the datasheet step fails
    monkeypatch.setattr(export_module, "write_datasheet", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        export_rulings(warehouse_of(sample_data_dir), out, "parquet")
    assert files_of(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["export"]  # the temp folder is gone


def test_an_export_interrupted_at_the_swap_puts_the_previous_one_back(sample_data_dir, tmp_path, monkeypatch):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)
    real_rename = export_module.os.rename
    calls = []

    def rename(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the old export is aside; putting the new one in place fails
            raise OSError("interrupted")
        real_rename(src, dst)

    monkeypatch.setattr(export_module.os, "rename", rename)
    with pytest.raises(OSError, match="interrupted"):
        export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    monkeypatch.undo()
    assert files_of(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


def test_a_folder_that_is_not_an_export_is_never_replaced(sample_data_dir, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert run_export(sample_data_dir, out) == 2
    assert "not a casefile export" in capsys.readouterr().err
    assert files_of(out) == {"notes.txt": b"keep me"}


def test_an_export_whose_manifest_cannot_be_read_is_not_replaced_and_the_error_says_why(sample_data_dir, tmp_path,
                                                                                         capsys, monkeypatch):
    # (the tests run as root, whom permissions do not stop: the refusal is made by hand)
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)
    real_read_text = Path.read_text

    def refused(self, *args, **kwargs):
        if self == out / "manifest.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", refused)
    assert run_export(sample_data_dir, out, "--format", "jsonl") == 2
    err = capsys.readouterr().err
    assert f"cannot read {out / 'manifest.json'} (Permission denied)" in err and "not a casefile export" not in err
    monkeypatch.undo()
    assert files_of(out) == before


@pytest.mark.parametrize("added", ["LICENSE", "extra/notes.txt"])
def test_an_export_with_files_added_to_it_is_not_replaced(sample_data_dir, tmp_path, capsys, added):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    (out / added).parent.mkdir(exist_ok=True)
    (out / added).write_text("keep me")
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert run_export(sample_data_dir, out, "--format", "jsonl") == 2
    assert "not a casefile export" in capsys.readouterr().err
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


@pytest.mark.parametrize("before", ["export", "none"])
def test_files_put_in_out_while_the_export_writes_are_never_replaced(sample_data_dir, tmp_path, capsys,
                                                                      monkeypatch, before):
    # --out is checked before the files are written; what is there when the export comes to rename
    # is checked again: a LICENSE added to the previous export, or a folder of notes made at --out
    # meanwhile, is not swept away with the folder
    out = tmp_path / "export"
    if before == "export":
        export_rulings(warehouse_of(sample_data_dir), out, "csv")
    real_datasheet = export_module.write_datasheet

    def datasheet_then_someone_writes(*args, **kwargs):
        real_datasheet(*args, **kwargs)
        out.mkdir(exist_ok=True)
        (out / "LICENSE").write_text("keep me")

    monkeypatch.setattr(export_module, "write_datasheet", datasheet_then_someone_writes)
    assert run_export(sample_data_dir, out, "--format", "jsonl") == 2
    assert "not a casefile export" in capsys.readouterr().err
    kept = {p.name: p.read_bytes() for p in out.iterdir()}
    assert kept["LICENSE"] == b"keep me"
    assert sorted(kept) == (["LICENSE", "card_rulings.csv", "datasheet.md", "manifest.json", "rulings.csv"]
                            if before == "export" else ["LICENSE"])
    assert [p.name for p in tmp_path.iterdir()] == ["export"]  # the temp folder is gone


def test_out_that_is_a_file_is_a_usage_error(sample_data_dir, tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    assert run_export(sample_data_dir, target) == 2
    assert target.read_text() == "x"


@pytest.mark.parametrize("below", ["sub", "sub/deeper"])
def test_out_below_a_file_names_the_file(sample_data_dir, tmp_path, capsys, below):
    target = tmp_path / "file"
    target.write_text("x")
    assert run_export(sample_data_dir, target / below) == 2
    assert capsys.readouterr().err == f"casefile: error: --out {target / below}: {target} is a file, not a folder\n"
    assert target.read_text() == "x" and [p.name for p in tmp_path.iterdir()] == ["file"]


def test_export_without_a_warehouse_says_what_to_do(data_dir, tmp_path, capsys):
    assert run_export(data_dir, tmp_path / "export") == 78
    assert "casefile sync" in capsys.readouterr().err
    assert not (tmp_path / "export").exists()


def test_translations_reach_the_dataset(warehouse_copy, tmp_path):
    # test-only row on a copy: a French translation of one ruling, from the listeblanche origin
    data = warehouse_copy("INSERT INTO ruling_translation SELECT ruling_id, 'fr', 'listeblanche', 'Texte.', false "
                          "FROM ruling ORDER BY ruling_id LIMIT 1")
    out = tmp_path / "export"
    export_rulings(warehouse_of(data), out, "jsonl")
    rows = read_back(out / "rulings.jsonl", "jsonl")
    assert rows[0]["translations"] == [{"lang": "fr", "origin": "listeblanche", "text": "Texte.",
                                        "machine_translated": False}]
    assert all(r["translations"] == [] for r in rows[1:])


def test_csv_tells_an_undated_ruling_from_an_empty_text(warehouse_copy, tmp_path):
    # test-only change on a copy: the first ruling undated (NULL) and with an empty text ('')
    data = warehouse_copy("UPDATE ruling SET published_at = NULL, text = '' "
                          "WHERE ruling_id = (SELECT min(ruling_id) FROM ruling)")
    with duckdb.connect(str(warehouse_of(data)), read_only=True) as con:
        first, source = con.execute("SELECT ruling_id, source FROM ruling ORDER BY ruling_id LIMIT 1").fetchone()
    out, again = tmp_path / "export", tmp_path / "again"
    export_rulings(warehouse_of(data), out, "csv")
    export_rulings(warehouse_of(data), again, "csv")
    line = (out / "rulings.csv").read_text().splitlines()[1]
    assert line.startswith(f'{first},{source},,"",')  # published_at NULL: nothing; text '': ""
    assert files_of(out) == files_of(again)
    assert '- In CSV an empty field is NULL' in (out / "datasheet.md").read_text()


def test_the_warehouse_is_not_changed_by_an_export(sample_data_dir, tmp_path):
    before = warehouse_of(sample_data_dir).read_bytes()
    export_rulings(warehouse_of(sample_data_dir), tmp_path / "export", "parquet")
    assert warehouse_of(sample_data_dir).read_bytes() == before


def _export_killed_at(point, data_dir, out):
    from conftest import run_cli

    killed = run_cli(["export", "rulings", "--out", str(out)], data_dir, CASEFILE_FAILPOINT=f"{point}:kill")
    assert killed.returncode == -9
    return sorted(p.name for p in out.parent.iterdir())


def test_an_export_killed_while_writing_leaves_a_folder_the_next_export_removes(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)
    left = _export_killed_at("during_export", sample_data_dir, out)
    assert len(left) == 2 and left[1] == "export" and left[0].startswith(".export.") and left[0].endswith(".tmp")
    assert files_of(out) == before  # the previous export is untouched
    export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    assert [p.name for p in tmp_path.iterdir()] == ["export"]  # the killed export's folder is gone


def test_an_export_killed_at_the_swap_gets_the_previous_export_back(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)
    left = _export_killed_at("export_swap", sample_data_dir, out)
    assert "export" not in left and sorted(name.rsplit(".", 1)[1] for name in left) == ["old", "tmp"]
    restored = export_module.clear_leftovers(out)
    assert len(restored) == 2 and files_of(out) == before  # the previous export is back, the new one dropped
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


def _start_export(data_dir, out, point, fmt):
    """A real `casefile export` paused 3 s at failpoint ``point``; returns once it has got there."""
    import subprocess
    import sys
    import time

    from conftest import subprocess_env

    before = set(out.parent.iterdir())
    process = subprocess.Popen([sys.executable, "-m", "pipeline", "export", "rulings", "--out", str(out),
                                "--format", fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=subprocess_env(data_dir, CASEFILE_FAILPOINT=f"{point}:sleep=3"),
                               cwd=str(data_dir.parent))
    wanted = ".old" if point == "export_swap" else ".tmp"
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(wanted) for p in set(out.parent.iterdir()) - before):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    if point == "during_export":  # its data files are written: it is past its start
        while not any(p.name.endswith(wanted) and any(p.iterdir()) for p in out.parent.iterdir()):
            time.sleep(0.05)
    return process


def test_the_folder_of_an_export_still_writing_is_left_alone(sample_data_dir, tmp_path, capsys):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    first = _start_export(sample_data_dir, out, "during_export", "jsonl")
    try:
        assert export_module.clear_leftovers(out) == []
        assert run_export(sample_data_dir, out, "--format", "parquet") == 0  # meanwhile, another export
        assert (out / "rulings.parquet").is_file()
    finally:
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))  # one export, whole
    assert sorted(p.name for p in out.iterdir()) == sorted([f["name"] for f in manifest["files"]] + ["manifest.json"])
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


def test_two_exports_to_one_folder_take_turns_at_the_swap(sample_data_dir, tmp_path, capsys):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    first = _start_export(sample_data_dir, out, "export_swap", "jsonl")  # its previous export moved aside
    try:
        assert run_export(sample_data_dir, out, "--format", "parquet") == 0
    finally:
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert (out / "rulings.parquet").is_file()  # the second waited for the first's swap, then replaced it
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


def test_an_export_that_waits_too_long_for_its_turn_exits_75_and_leaves_nothing(sample_data_dir, tmp_path):
    from pipeline.errors import TryAgainLater

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    first = _start_export(sample_data_dir, out, "export_swap", "jsonl")
    try:
        with pytest.raises(TryAgainLater, match="another export is replacing a folder in"):
            export_rulings(warehouse_of(sample_data_dir), out, "parquet", wait_s=0.3)
    finally:
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    assert (out / "rulings.jsonl").is_file() and [p.name for p in tmp_path.iterdir()] == ["export"]


def test_folders_left_by_a_killed_export_with_this_process_s_pid_are_cleared(sample_data_dir, tmp_path):
    """The leftovers are made here by renaming a real export: the names a kill at the swap leaves,
    with the pid this process has now (a container runs each export with the same pid)."""
    import os

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)
    os.rename(out, tmp_path / f".export.{os.getpid()}-0123abcd.old")
    (tmp_path / f".export.{os.getpid()}-4567cdef.tmp").mkdir()
    assert len(export_module.clear_leftovers(out)) == 2
    assert files_of(out) == before and [p.name for p in tmp_path.iterdir()] == ["export"]


def test_out_with_dot_dot_is_the_folder_it_names_and_nothing_is_left_beside_it(sample_data_dir, tmp_path, capsys):
    folder = tmp_path / "exports"
    folder.mkdir()
    for _ in range(2):  # a new export, then one replacing it
        assert run_export(sample_data_dir, f"{folder}/new/..") == 0
        assert capsys.readouterr().out.startswith(f"exported rulings to {folder} (csv): ")
        assert sorted(p.name for p in folder.iterdir()) == ["card_rulings.csv", "datasheet.md", "manifest.json",
                                                            "rulings.csv"]
    assert [p.name for p in tmp_path.iterdir()] == ["exports"]


def test_out_of_the_current_folder_writes_there(sample_data_dir, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "here"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert run_export(sample_data_dir, ".") == 0
    assert capsys.readouterr().out.startswith(f"exported rulings to {folder} (csv): ")
    assert (folder / "manifest.json").is_file() and [p.name for p in tmp_path.iterdir()] == ["here"]


def test_out_of_the_root_folder_is_a_usage_error(sample_data_dir, capsys):
    assert run_export(sample_data_dir, "/") == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: --out /: ") and "Traceback" not in err


def test_an_export_followed_by_a_symlink_replaces_the_folder_it_points_to(sample_data_dir, tmp_path):
    real = tmp_path / "real"
    export_rulings(warehouse_of(sample_data_dir), real, "csv")
    (tmp_path / "link").symlink_to(real)
    export_rulings(warehouse_of(sample_data_dir), tmp_path / "link", "jsonl")
    assert (tmp_path / "link").is_symlink() and (real / "rulings.jsonl").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


def test_an_out_path_that_is_not_utf8_is_a_usage_error(sample_data_dir, tmp_path, capsys):
    import os

    out = tmp_path / os.fsdecode(b"caf\xe9")  # Latin-1 bytes: DuckDB writes only to UTF-8 paths
    assert run_export(sample_data_dir, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"casefile: error: --out {tmp_path}/caf\N{REPLACEMENT CHARACTER}: ") and "UTF-8" in err
    assert list(tmp_path.iterdir()) == []


def test_a_duckdb_file_without_casefile_s_tables_is_no_warehouse_yet(data_dir, tmp_path, capsys):
    warehouse_of(data_dir).parent.mkdir()
    duckdb.connect(str(warehouse_of(data_dir))).close()  # a valid, empty DuckDB database
    assert run_export(data_dir, tmp_path / "export") == 78  # as for the other readers: sync first
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: no warehouse at ") and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_a_duckdb_file_with_a_sync_run_but_no_rulings_is_a_usage_error(data_dir, tmp_path, capsys):
    warehouse_of(data_dir).parent.mkdir()
    con = duckdb.connect(str(warehouse_of(data_dir)))
    con.execute("CREATE TABLE sync_run AS SELECT 'r1' AS run_id, 'offline' AS mode, 'q' AS query, 'api' AS sources, "
                "now() AS started_at, now() AS finished_at, now() AS loaded_at")
    con.close()
    assert run_export(data_dir, tmp_path / "export") == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: the query failed: Catalog Error: ") and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def _export_with_file_size_limit(data_dir, out, limit):
    """A real `casefile export` whose writes beyond ``limit`` bytes per file fail (RLIMIT_FSIZE, with
    SIGXFSZ ignored: the kernel answers EFBIG, as a file system too small for the files would)."""
    import resource
    import signal
    import subprocess
    import sys

    from conftest import subprocess_env

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "pipeline", "export", "rulings", "--out", str(out)],
                          capture_output=True, text=True, env=subprocess_env(data_dir), timeout=120,
                          cwd=str(data_dir.parent), preexec_fn=limited)


def test_a_dataset_file_the_file_system_refuses_is_a_clear_error_not_a_traceback(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "parquet")
    before = files_of(out)
    failed = _export_with_file_size_limit(sample_data_dir, out, 4000)  # rulings.csv is about 20 KB
    assert failed.returncode == 2, failed.stderr
    assert failed.stderr.startswith(f"casefile: error: --out {out}: cannot write the export there (")
    assert "File too large" in failed.stderr and "Traceback" not in failed.stderr
    assert files_of(out) == before and [p.name for p in tmp_path.iterdir()] == ["export"]


@pytest.mark.parametrize("name", ['my "rulings"', "back\\slash", 'mes "règles"'])
def test_a_refused_write_to_a_folder_named_with_quotes_or_backslashes_is_the_export_s(sample_data_dir, tmp_path,
                                                                                      name):
    # DuckDB escapes " and \ in the path its message names: the refusal was read as the
    # warehouse's (exit 78, "cannot write the warehouse")
    out = tmp_path / name
    failed = _export_with_file_size_limit(sample_data_dir, out, 4000)
    assert failed.returncode == 2, failed.stderr
    assert failed.stderr.startswith(f"casefile: error: --out {out}: cannot write the export there (File too large")
    assert [p.name for p in tmp_path.iterdir()] == []


def test_a_full_disk_while_the_data_files_are_written_exits_75(sample_data_dir, tmp_path, monkeypatch, capsys):
    """The error is made here in the shape DuckDB gives a failed write (its message carries the
    errno): ENOSPC cannot be caused on demand without a file system of its own."""
    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)

    def full(con, folder, fmt):
        (folder / f"rulings.{fmt}").write_text("half")
        raise duckdb.IOException(
            'IO Error: Async write failed for range [offset=0, size=9]: {"exception_type":"IO",'
            f'"exception_message":"Could not write file \\"{folder}/rulings.{fmt}\\": No space left on device",'
            '"errno":"28"}')

    monkeypatch.setattr(export_module, "write_dataset", full)
    assert run_export(sample_data_dir, out) == 75
    err = capsys.readouterr().err
    assert err.startswith(f"casefile: error: cannot write the export beside {out}: No space left on device")
    assert "Traceback" not in err
    assert files_of(out) == before and [p.name for p in tmp_path.iterdir()] == ["export"]


def test_a_full_disk_while_the_datasheet_is_written_exits_75(sample_data_dir, tmp_path, monkeypatch, capsys):
    """The OSError is raised here, as Python's write of datasheet.md raises it on a full disk."""
    import errno
    import os

    out = tmp_path / "export"

    def full(con, folder, *args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / "datasheet.md"))

    monkeypatch.setattr(export_module, "write_datasheet", full)
    assert run_export(sample_data_dir, out) == 75
    err = capsys.readouterr().err
    assert err.startswith(f"casefile: error: cannot write the export beside {out}: No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_the_datasheet_names_every_site_its_rulings_were_read_from(sample_warehouse, sample_data_dir, tmp_path):
    out = tmp_path / "full"
    export_rulings(warehouse_of(sample_warehouse), out, "jsonl")
    sources = (out / "datasheet.md").read_text("utf-8").split("## Sources and attribution", 1)[1]
    origins = {o for r in read_back(out / "rulings.jsonl", "jsonl") for o in r["origins"]}
    assert origins == {"listeblanche", "mtgwiki", "scryfall-api", "scryfall-page"}
    for origin in origins:
        assert f"- `{origin}` (" in sources, origin
    assert "https://mtg.wiki" in sources and "https://listeblanche.fr" in sources
    assert "source `mtgwiki` are the wiki's own text" in sources
    assert "Wizards of the Coast Fan Content Policy" in sources

    api_only = tmp_path / "api"
    export_rulings(warehouse_of(sample_data_dir), api_only, "jsonl")
    sources = (api_only / "datasheet.md").read_text("utf-8").split("## Sources and attribution", 1)[1]
    assert "- `scryfall-api` (40 rulings): " in sources and "mtg.wiki" not in sources and "listeblanche" not in sources


@pytest.mark.parametrize("point", ["during_export", "export_swap"])
def test_sigterm_stops_an_export_with_75_and_removes_its_temp_folder(sample_data_dir, tmp_path, point):
    import signal

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    before = files_of(out)
    running = _start_export(sample_data_dir, out, point, "parquet")  # at the swap: the previous one aside
    running.send_signal(signal.SIGTERM)
    stdout, stderr = running.communicate(timeout=60)
    assert running.returncode == 75, stderr
    assert stderr == "casefile: error: stopped by SIGTERM; the previous export, if any, is unchanged\n"
    assert files_of(out) == before and [p.name for p in tmp_path.iterdir()] == ["export"]


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_stop_once_the_new_export_is_in_place_ends_the_tidying_only(sample_data_dir, tmp_path, signal_name):
    # Ctrl-C there exited 130, "interrupted", which says the previous export was kept: it was not
    import signal
    import subprocess
    import sys
    import time

    from conftest import subprocess_env

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    running = subprocess.Popen([sys.executable, "-m", "pipeline", "export", "rulings", "--out", str(out),
                                "--format", "jsonl"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=subprocess_env(sample_data_dir, CASEFILE_FAILPOINT="export_tidy:sleep=5"),
                               cwd=str(sample_data_dir.parent))
    deadline = time.monotonic() + 60
    while not (out / "rulings.jsonl").exists():  # the new export is in place, the tidying paused
        assert running.poll() is None and time.monotonic() < deadline, running.communicate()
        time.sleep(0.05)
    running.send_signal(getattr(signal, signal_name))
    stdout, stderr = running.communicate(timeout=60)
    assert running.returncode == 0, stderr
    assert stdout.startswith(f"exported rulings to {out} (jsonl)") and stderr == ""
    assert sorted(files_of(out)) == ["card_rulings.jsonl", "datasheet.md", "manifest.json", "rulings.jsonl"]
    left = [p.name for p in tmp_path.iterdir() if p.name != "export"]
    assert len(left) == 1 and left[0].endswith(".old")  # the previous export, for the next export to remove
    assert main(["--data-dir", str(sample_data_dir), "-q", "export", "rulings", "--out", str(out)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


def test_a_replaced_export_keeps_its_folder_s_permissions(sample_data_dir, tmp_path):
    import stat

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    out.chmod(0o700)
    export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    assert stat.S_IMODE(out.stat().st_mode) == 0o700


def test_a_replaced_export_keeps_its_folder_s_group(sample_data_dir, tmp_path):
    """A folder shared with a group (`chgrp publishers; chmod 2775`): the export put in its place
    had the exporter's group, and the group lost its write access."""
    import os

    from conftest import other_group

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    group = other_group()
    os.chown(out, -1, group)
    out.chmod(0o2775)
    export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    assert out.stat().st_gid == group and oct(out.stat().st_mode & 0o7777) == oct(0o2775)


def _as_a_user_not_root(monkeypatch):
    """os.unlink and os.rmdir refused in a folder without write permission, as for any user but
    root (the tests run as root, whom a chmod does not stop)."""
    import errno
    import os
    import stat

    def guarded(real):
        def call(path, *, dir_fd=None):
            parent = os.fstat(dir_fd) if dir_fd is not None else os.stat(os.path.dirname(os.fspath(path)) or ".")
            if not parent.st_mode & stat.S_IWUSR:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
            return real(path, dir_fd=dir_fd)
        return call

    monkeypatch.setattr(os, "unlink", guarded(os.unlink))
    monkeypatch.setattr(os, "rmdir", guarded(os.rmdir))


def test_a_read_only_export_replaced_leaves_no_copy_of_itself_behind(sample_data_dir, tmp_path, monkeypatch):
    """`chmod -R a-w` on a published export: each export after it left the one before beside it,
    hidden (`.export.<pid>-<hex>.old`), and exited 0; the next export's tidying failed alike."""
    import os
    import stat

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    for path in [*out.iterdir(), out]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    _as_a_user_not_root(monkeypatch)
    export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    assert [p.name for p in tmp_path.iterdir()] == ["export"]
    assert stat.S_IMODE(out.stat().st_mode) & 0o222 == 0  # the new export keeps the folder's permissions
    assert sorted(os.listdir(out)) == ["card_rulings.jsonl", "datasheet.md", "manifest.json", "rulings.jsonl"]


def test_a_folder_that_cannot_be_listed_is_a_usage_error_not_a_traceback(sample_data_dir, tmp_path, monkeypatch,
                                                                         capsys):
    """The PermissionError is raised here, as listing a folder without read permission raises it
    (the tests run as root, which may list any folder)."""
    import errno
    import os

    real_iterdir = Path.iterdir

    def iterdir(self):
        if self == tmp_path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    assert run_export(sample_data_dir, tmp_path / "export") == 2
    err = capsys.readouterr().err
    assert err == (f"casefile: error: --out {tmp_path / 'export'}: cannot read the folder {tmp_path} "
                   "(Permission denied)\n")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_rebuilt_warehouse_exports_the_same_bytes(sample_data_dir, tmp_path, fmt):
    data = tmp_path / "data"
    shutil.copytree(sample_data_dir, data)
    export_rulings(warehouse_of(data), tmp_path / "before", fmt)
    assert main(["--data-dir", str(data), "-q", "rebuild"]) == 0  # the same runs, loaded again
    export_rulings(warehouse_of(data), tmp_path / "after", fmt)
    assert files_of(tmp_path / "after") == files_of(tmp_path / "before")


def test_the_files_and_folder_are_on_disk_before_the_folder_is_renamed_into_place(sample_data_dir, tmp_path,
                                                                                  monkeypatch):
    import os

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    events = []
    real_fsync, real_rename = os.fsync, os.rename

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def rename(src, dst):
        events.append(("rename", str(src), str(dst)))
        real_rename(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", rename)
    export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    monkeypatch.undo()
    into_place = next(i for i, e in enumerate(events) if e[0] == "rename" and e[2] == str(out))
    tmp = events[into_place][1]
    synced_before = {e[1] for e in events[:into_place] if e[0] == "fsync"}
    assert {f"{tmp}/{p.name}" for p in out.iterdir()} | {tmp} <= synced_before
    assert ("fsync", str(tmp_path)) in events[into_place:]  # the renames themselves


def test_an_export_that_cannot_get_its_turn_removes_the_folders_it_made(sample_data_dir, tmp_path, monkeypatch):
    """The wait for the turn is made to fail here (a second call of ``_turn``, the one around
    the temp folder's creation), as another export holding the folder's lock too long would."""
    from pipeline.errors import TryAgainLater

    real_turn, calls = export_module._turn, []

    def turn(folder, wait_s):
        calls.append(folder)
        if len(calls) == 2:
            raise TryAgainLater("another export is replacing a folder")
        return real_turn(folder, wait_s)

    monkeypatch.setattr(export_module, "_turn", turn)
    with pytest.raises(TryAgainLater):
        export_rulings(warehouse_of(sample_data_dir), tmp_path / "new" / "export", "csv")
    assert calls == [tmp_path / "new", tmp_path / "new"] and list(tmp_path.iterdir()) == []


def test_a_sigterm_once_the_new_export_is_in_place_does_not_report_it_failed(sample_data_dir, tmp_path,
                                                                           monkeypatch):
    """Aborted is raised here where the SIGTERM handler would raise it: while the previous export,
    moved aside, is being removed."""
    from pipeline.errors import Aborted

    out = tmp_path / "export"
    export_rulings(warehouse_of(sample_data_dir), out, "csv")
    real_rmtree = shutil.rmtree

    def rmtree(path, *args, **kwargs):
        if str(path).endswith(".old"):
            raise Aborted("stopped by SIGTERM")
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(export_module.shutil, "rmtree", rmtree)
    result = export_rulings(warehouse_of(sample_data_dir), out, "jsonl")
    monkeypatch.undo()
    assert result.out == out and (out / "rulings.jsonl").is_file()
    export_rulings(warehouse_of(sample_data_dir), out, "jsonl")  # the next export removes the old one
    assert [p.name for p in tmp_path.iterdir()] == ["export"]


def test_the_run_s_times_keep_their_time_zone(sample_data_dir, tmp_path):
    out = tmp_path / "export"
    result = export_rulings(warehouse_of(sample_data_dir), out, "csv")
    recorded = json.loads((sample_data_dir / "raw" / result.run_id / "run.json").read_text("utf-8"))
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert recorded["started_at"].endswith("Z")  # UTC, as run.json records it
    assert manifest["sync_run"]["started_at"] == recorded["started_at"]
    assert manifest["sync_run"]["finished_at"].endswith("Z")
    assert f"started {recorded['started_at']}, " in (out / "datasheet.md").read_text("utf-8")


def test_out_that_is_a_symlink_loop_is_a_usage_error(sample_data_dir, tmp_path, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert run_export(sample_data_dir, tmp_path / "a") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"casefile: error: --out {tmp_path / 'a'}: cannot follow it to a folder (")
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"] and (tmp_path / "a").is_symlink()


def test_a_query_with_backticks_shows_whole_in_the_datasheet(warehouse_copy, tmp_path):
    """The query is a test-only row added to a copy of the sample: Scryfall queries may hold
    backticks, which would end a Markdown code span of one backtick early."""
    query = 'o:`x` or name:"a``b"'
    data = warehouse_copy("INSERT INTO query_card SELECT $q, oracle_id FROM card ORDER BY oracle_id LIMIT 1",
                          params={"q": query})
    out = tmp_path / "export"
    export_rulings(warehouse_of(data), out, "csv")
    line = next(l for l in (out / "datasheet.md").read_text("utf-8").splitlines() if l.startswith("Scryfall queries"))
    # a span of three backticks holds runs of one and two as they are (CommonMark code spans)
    assert line == f'Scryfall queries synced into the warehouse: ```{query}```, `type:"Case"`.'


def test_a_cards_positions_are_distinct_when_a_page_shows_a_ruling_the_api_does_not(data_dir, tmp_path, capsys):
    """Constructed: the API's rulings list of Case of the Burning Masks lacks its fifth ruling,
    which its pages still show at the place where the API's list now has another. The export
    gives the card's rulings the places 0 to n-1, each once, in the order `casefile card`
    numbers them 1 to n."""
    from support.runs import sync_a_page_ahead_of_the_api

    sync_a_page_ahead_of_the_api(data_dir, tmp_path / "page-ahead")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "card", "Case of the Burning Masks", "--format", "json"]) == 0
    shown = [r["ruling_id"] for r in json.loads(capsys.readouterr().out)]
    assert len(shown) == 15
    assert run_export(data_dir, tmp_path / "out", "--format", "jsonl") == 0
    links = read_back(tmp_path / "out" / "card_rulings.jsonl", "jsonl")
    burning = [link for link in links if link["card_name"] == "Case of the Burning Masks"]
    assert [link["position"] for link in burning] == list(range(15))
    assert [link["ruling_id"] for link in burning] == shown
    per_card = {}
    for link in links:
        per_card.setdefault(link["oracle_id"], []).append(link["position"])
    assert all(positions == list(range(len(positions))) for positions in per_card.values())
