"""bench/signals.py: a signal at random moments of a command, and how each run ended."""

import json
import signal

from bench import signals
from pipeline.cli import main


def test_each_end_of_a_run_falls_in_its_class():
    assert signals.classify("INT", 130, "casefile: interrupted\n", ["aborted"]) == "stopped"
    assert signals.classify("TERM", 75, "casefile: error: stopped by SIGTERM", ["aborted"]) == "stopped"
    assert signals.classify("INT", 0, "", ["complete"]) == "completed"
    # Python's own start-up: its traceback, no line of casefile's, no run folder
    assert signals.classify("INT", -signal.SIGINT, "Traceback ...\nKeyboardInterrupt\n", []) == "before casefile"
    assert signals.classify("INT", 1, "Traceback ...\nKeyboardInterrupt\n", []) == "before casefile"
    assert signals.classify("TERM", -signal.SIGTERM, "", []) == "before casefile"
    # what the signal fixes were about: killed after casefile had answered, or a run left behind
    assert signals.classify("INT", -signal.SIGINT, "\ncasefile: aborted\n", []) == "other"
    assert signals.classify("INT", -signal.SIGABRT, "Critical nanobind error", []) == "other"
    assert signals.classify("TERM", -signal.SIGTERM, "", ["incomplete"]) == "other"
    assert signals.classify("TERM", -signal.SIGTERM, "casefile: error: stopped by SIGTERM\n", []) == "other"
    assert signals.classify("INT", 75, "casefile: error: stopped by a signal", ["complete"]) == "other"


def test_ctrl_c_at_three_moments_of_a_sync_of_the_sample_stops_each_on_a_copy(data_dir, tmp_path, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", "--sources", "api"]) == 0
    capsys.readouterr()
    before = sorted(p.name for p in (data_dir / "raw").iterdir())
    saved = tmp_path / "runs.json"
    assert signals.main(["--data", str(data_dir), "--count", "3", "--between", "0.1", "0.3", "--seed", "1",
                         "--json", str(saved), "--", "-q", "sync", "--offline", "--sources", "api"]) == 0
    out = capsys.readouterr().out.splitlines()
    summary = json.loads(out[-1])
    assert summary["signal"] == "INT" and summary["runs"] == 3 and summary["seed"] == 1
    assert summary["classes"] == {"stopped": 3}, out
    runs = json.loads(saved.read_text("utf-8"))
    assert [r["exit"] for r in runs] == [130, 130, 130]
    assert all(0.1 <= r["delay"] <= 0.3 for r in runs)
    assert sorted(p.name for p in (data_dir / "raw").iterdir()) == before  # the runs worked on a copy
