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
