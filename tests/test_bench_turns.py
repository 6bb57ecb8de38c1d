"""bench/turns.py, two checkouts of one command in turns, compared call site by call site."""

import json

from bench import turns
from pipeline.cli import main

from conftest import ROOT


def _saved(seconds, rows):
    return {"seconds": seconds, "exit": 0,
            "statements": [{"seconds": s, "site": site, "thread": thread, "sql": "SELECT 1"} for s, site, thread in rows]}


def test_a_run_counts_only_the_main_threads_statements_by_call_site():
    run = turns.summarize(_saved(1.0, [(0.1, "a:f", "main"), (0.2, "a:f", "main"), (0.05, "b:g", "main"),
                                       (0.5, "lines:_scan", "ThreadPoolExecutor-0_0")]))
    assert run.seconds == 1.0
    assert round(run.main_s, 6) == 0.35
    assert {k: round(v, 6) for k, v in run.sites.items()} == {"a:f": 0.3, "b:g": 0.05}


def test_the_pairs_are_compared_after_minus_before_and_a_missing_site_counts_zero():
    before = [turns.Run(1.0, 0.5, {"a:f": 0.3, "b:g": 0.2}), turns.Run(1.2, 0.6, {"a:f": 0.4, "b:g": 0.2})]
    after = [turns.Run(0.9, 0.4, {"a:f": 0.3, "c:h": 0.1}), turns.Run(1.0, 0.5, {"a:f": 0.3, "c:h": 0.2})]
    diffs = turns.paired(before, after)
    assert [round(d, 6) for d in diffs["command"]] == [-0.1, -0.2]
    assert [round(d, 6) for d in diffs["b:g"]] == [-0.2, -0.2]  # gone after the change
    assert [round(d, 6) for d in diffs["c:h"]] == [0.1, 0.2]    # new with it
    text = turns.report(before, after, n_sites=2)
    assert "2 pairs" in text
    assert "-150.0  (-200.0 to -100.0)  command" in text
    by_site = text.split("the largest first:")[1].splitlines()[1:]
    assert [line.split()[-1] for line in by_site] == ["b:g", "c:h"]  # |median| 200 ms, then 150; a:f cut


def test_one_pair_on_the_sample_runs_each_tree_on_its_own_copy(data_dir, tmp_path, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", "--sources", "api"]) == 0
    capsys.readouterr()
    before = json.dumps(sorted(p.name for p in (data_dir / "raw").iterdir()))
    saved = tmp_path / "turns.json"
    # every call site shown: which 15 differ most between two runs of one tree is the machine's noise
    assert turns.main(["--before", str(ROOT), "--after", str(ROOT), "--data", str(data_dir), "--pairs", "1",
                       "--sites", "1000", "--json", str(saved), "--", "-q", "sync", "--offline", "--sources", "api"]
                      ) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 pairs") and "warehouse:load_run" in out
    runs = json.loads(saved.read_text("utf-8"))
    assert len(runs["before"]) == len(runs["after"]) == 1
    assert runs["before"][0]["sites"].keys() == runs["after"][0]["sites"].keys()
    # the runs worked on copies: the data folder given is as it was
    assert json.dumps(sorted(p.name for p in (data_dir / "raw").iterdir())) == before
