"""bench/child.py's first-search step: a process's first search, timed in its parts, on the sample."""

import json
import subprocess
import sys
from pathlib import Path

from pipeline.cli import main as casefile

ROOT = Path(__file__).resolve().parent.parent


def _first_search(tmp_path: Path, db: Path, words: str) -> dict:
    result = tmp_path / "result.json"
    proc = subprocess.run([sys.executable, "-m", "bench.child", str(result), "first-search", str(db), words],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(result.read_text("utf-8"))


def test_the_first_search_of_a_process_is_timed_open_then_query(data_dir, tmp_path):
    assert casefile(["--data-dir", str(data_dir), "-q", "sync", "--offline", "--sources", "api"]) == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    figures = _first_search(tmp_path, db, "solved")
    assert figures["exit"] == 0
    assert figures["open_s"] > 0 and figures["query_s"] > 0
    # the step's time is the open and the query, and nothing is left out of it
    assert figures["open_s"] + figures["query_s"] <= figures["seconds"] + 1e-6


def test_a_first_search_of_a_missing_warehouse_fails_the_step(data_dir, tmp_path):
    result = tmp_path / "result.json"
    proc = subprocess.run([sys.executable, "-m", "bench.child", str(result), "first-search",
                           str(data_dir / "warehouse" / "casefile.duckdb"), "solved"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "no warehouse" in proc.stderr
    assert not result.exists()


def _step(tmp_path: Path, *args: str) -> dict:
    result = tmp_path / "result.json"
    proc = subprocess.run([sys.executable, "-m", "bench.child", str(result), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(result.read_text("utf-8"))


def _generated_run(tmp_path: Path) -> Path:
    """Day 1 of the bench's SYNTHETIC data at a tiny scale."""
    from bench.generate import run_dirs

    subprocess.run([sys.executable, "-m", "bench.generate", "--scale", "0.002", "--out", str(tmp_path / "source")],
                   cwd=ROOT, check=True, capture_output=True, timeout=120)
    return run_dirs(tmp_path / "source")["base"]


def test_the_floor_of_the_fields_read_reads_what_casefile_reads_of_the_same_rows(tmp_path):
    import duckdb

    from pipeline.normalize.duck import CARD_COLUMNS, RULING_COLUMNS

    run = _generated_run(tmp_path)
    tables = {}
    for mode in ("floor", "floor-columns"):
        db = tmp_path / f"{mode}.duckdb"
        assert _step(tmp_path, mode, str(run), str(db))["exit"] == 0
        con = duckdb.connect(str(db), read_only=True)
        kinds = [json.loads(line)["kind"] for line in (run / "manifest.jsonl").read_text("utf-8").splitlines()]
        tables[mode] = {kind: ([c[0] for c in con.execute(f"DESCRIBE doc_{i}").fetchall()],
                               con.execute(f"SELECT count(*) FROM doc_{i}").fetchone()[0])
                        for i, kind in enumerate(kinds)}
        con.close()
    whole, narrow = tables["floor"], tables["floor-columns"]
    assert narrow["bulk-cards"] == (list(CARD_COLUMNS), whole["bulk-cards"][1])
    assert narrow["bulk-rulings"] == (list(RULING_COLUMNS), whole["bulk-rulings"][1])
    assert set(whole["bulk-cards"][0]) > set(CARD_COLUMNS)  # the floor stores the fields casefile leaves too
    assert {k: v for k, v in narrow.items() if not k.startswith("bulk-")} == \
        {k: v for k, v in whole.items() if not k.startswith("bulk-")}


def test_the_raw_write_step_writes_each_bulk_file_as_a_live_sync_would(tmp_path):
    run = _generated_run(tmp_path)
    folder = tmp_path / "written"
    assert _step(tmp_path, "raw-write", str(run), str(folder))["exit"] == 0
    entries = [json.loads(line) for line in (run / "manifest.jsonl").read_text("utf-8").splitlines()]
    bulk = {Path(e["path"]).name: (run / e["path"]).read_bytes() for e in entries if e["kind"].startswith("bulk-")
            and e["kind"] != "bulk-index"}
    assert len(bulk) == 2
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == bulk  # whole, renamed into place, no temp file
