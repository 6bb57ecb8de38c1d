"""The phases of a sync's time (pipeline/timing.py) and the summary's timings_s."""

import json
import time

from pipeline import timing
from pipeline.cli import main


def test_phases_add_up_inside_a_record_and_cost_nothing_outside():
    with timing.phase("outside"):  # no record open: nothing kept anywhere
        pass
    with timing.recording() as record:
        for _ in range(2):
            with timing.phase("build"), timing.phase("build.read"):
                time.sleep(0.01)
        with timing.recording() as inner, timing.phase("load"):  # a record of its own, the outer one untouched
            pass
    assert list(record) == ["build.read", "build"] and list(inner) == ["load"]
    assert record["build"] >= record["build.read"] >= 0.02
    assert "outside" not in record
    assert timing.describe({"build.read": 0.5, "build": 1.25, "load": 0.5}) == "build 1.25 s (read 0.50); load 0.50 s"
    assert timing.top_level({"build.read": 0.5, "build": 1.25, "load": 0.5}) == 1.75


def test_a_sync_says_where_its_time_went(data_dir, capsys):
    """The summary of a sync names its phases; their parts fit in their phase."""
    assert main(["--data-dir", str(data_dir), "--log-format", "json", "sync", "--offline"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    timings = summary["timings_s"]
    assert {"fetch", "open", "build", "load", "load.checks", "load.commit", "close"} <= set(timings)
    assert all(seconds >= 0 for seconds in timings.values())
    assert timings["load"] >= timings["load.checks"] + timings["load.commit"]


def test_a_rebuild_says_where_its_time_went(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "--log-format", "json", "rebuild"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["event"] == "rebuild"
    assert {"open", "build", "load", "checkpoint", "close", "replace"} <= set(summary["timings_s"])
