"""Unattended operation: one sync at a time, change history, no-change runs, cool-down, doctor."""

import json
import logging
import re
import shutil
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from pipeline.cli import main
from pipeline.config import Settings, validate
from pipeline.status import collect_status
from pipeline.sync import REBUILD_INTERRUPTED, REBUILD_REPLACED_STOPPED, REBUILD_STOPPED

from conftest import FIXTURES, subprocess_env
from support.fake_scryfall import FakeScryfall
from support.runs import (ADDED_TO, ERRATA, NEW_CARD, REMOVED_FROM, REWORDED, EditableRun,
                          change_history_runs)
from support.sample_data import sample_api_data
from support.warehouse_state import query as sql

TABLES = ["card_set", "card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation",
          "raw_document", "change_event", "retired_ruling"]
REFERENCE = {c["name"]: c for c in json.loads((FIXTURES / "reference" / "case_cards.json").read_text("utf-8"))}


def db_of(data):
    return data / "warehouse" / "casefile.duckdb"


def state(data, tables=TABLES):
    con = duckdb.connect(str(db_of(data)), read_only=True)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
    finally:
        con.close()


def start(data_dir, *args, **env):
    return subprocess.Popen([sys.executable, "-m", "pipeline", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=subprocess_env(data_dir, **env))


def test_two_syncs_started_together_one_works_the_other_exits_75_at_once(data_dir, tmp_path):
    """Both are started at once, each held in its fetch until the file ``go`` is there: the one
    that took the lock is still held when the other has exited 75, so the other did not wait for it."""
    go = tmp_path / "go"
    held = {"CASEFILE_FAILPOINT": f"during_extract:until={go}"}
    syncs = [start(data_dir, "sync", "--offline", **held), start(data_dir, "sync", "--offline", **held)]
    deadline = time.monotonic() + 120
    while all(proc.poll() is None for proc in syncs):  # the one without the lock gives up
        assert time.monotonic() < deadline, "neither sync gave up"
        time.sleep(0.02)
    loser = next(proc for proc in syncs if proc.poll() is not None)
    winner = next(proc for proc in syncs if proc is not loser)
    loser_out, loser_err = loser.communicate(timeout=60)
    assert winner.poll() is None  # still held: the loser gave up without waiting for it
    go.touch()
    winner_out, winner_err = winner.communicate(timeout=120)
    assert (winner.returncode, loser.returncode) == (0, 75), (winner_err, loser_err)
    assert "another casefile sync, rebuild, prune or rules ingest holds the lock (pid" in loser_err
    single = tmp_path / "single"
    assert main(["--data-dir", str(single), "-q", "sync", "--offline"]) == 0
    ours, theirs = state(data_dir), state(single)
    for table in ("card_set", "card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation"):
        assert ours[table] == theirs[table], table
    assert sql(data_dir, "SELECT doc_id FROM raw_document ORDER BY 1") == sql(single, "SELECT doc_id FROM raw_document ORDER BY 1")
    assert sql(data_dir, "SELECT count(*) FROM sync_run") == [(1,)]


def test_a_second_identical_sync_changes_nothing_but_sync_run(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    before = state(data_dir)
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("no changes")
    assert state(data_dir) == before
    assert sql(data_dir, "SELECT status FROM sync_run ORDER BY run_id") == [("ok",), ("no_changes",)]
    assert main(["--data-dir", str(data_dir), "changes"]) == 0
    assert capsys.readouterr().out == "no changes in 1 run(s)\n"


@pytest.fixture
def two_runs(tmp_path):
    """The constructed pair of runs of the change history (support.runs.change_history_runs)."""
    return change_history_runs(tmp_path)


def test_a_run_made_while_the_clock_is_behind_still_comes_last(data_dir, two_runs, monkeypatch, capsys):
    """Run ids order the runs; a rebuild replays them in that order. A clock set back after a
    sync must not give the next run an id before it, or the rebuild would let the older run win."""
    import pipeline.doctor
    import pipeline.rawstore
    from datetime import datetime, timezone

    run1, run2, _ = two_runs
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run1)]) == 0
    real = pipeline.rawstore.new_run_id
    for module in (pipeline.rawstore, pipeline.doctor):  # a clock set back to 2001
        monkeypatch.setattr(module, "new_run_id", lambda now=None: real(now or datetime(2001, 1, 1, tzinfo=timezone.utc)))
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(run2)]) == 0
    assert "is not after the newest run" in capsys.readouterr().err
    ids = sorted(_statuses(data_dir))  # the second sync's run follows the first, not the clock
    assert len(ids) == 2 and not any(run_id.startswith("2001") for run_id in ids)
    synced = state(data_dir)
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0
    assert any(f["level"] == "warn" and "the clock" in f["finding"] for f in json.loads(capsys.readouterr().out))
    monkeypatch.undo()
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    assert state(data_dir) == synced
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0
    assert not any("the clock" in f["finding"] for f in json.loads(capsys.readouterr().out))


def test_changes_lists_exactly_the_five_changes(data_dir, two_runs, capsys):
    run1, run2, edits = two_runs
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(run1)]) == 0
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(run2)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert sorted((e["kind"], e["card"]) for e in events) == sorted([
        ("card_added", NEW_CARD),
        ("card_changed", ERRATA),
        ("ruling_added", ADDED_TO),
        ("ruling_removed", REMOVED_FROM),
        ("ruling_reworded", REWORDED),
    ])
    by_kind = {e["kind"]: e for e in events}
    assert by_kind["card_changed"]["field"] == "oracle_text"
    assert by_kind["card_changed"]["before"] == REFERENCE[ERRATA]["oracle_text"]
    assert by_kind["ruling_reworded"]["before"] == edits["old"] and by_kind["ruling_reworded"]["after"] == edits["new"]
    assert by_kind["ruling_removed"]["before"] == edits["removed"]
    assert by_kind["ruling_added"]["after"] == edits["added"]

    # the removed ruling stays queryable as history, with the runs that saw it
    runs = [r[0] for r in sql(data_dir, "SELECT run_id FROM sync_run ORDER BY run_id")]
    retired = sql(data_dir, """SELECT r.text, r.first_seen_run, r.last_seen_run, r.removed_in_run, c.name
                               FROM retired_ruling r, unnest(r.oracle_ids) AS u(oid) JOIN card c ON c.oracle_id = u.oid
                               WHERE r.text = ?""", [edits["removed"]])
    assert retired == [(edits["removed"], runs[0], runs[0], runs[1], REMOVED_FROM)]
    assert sql(data_dir, "SELECT count(*) FROM ruling WHERE text = ?", [edits["removed"]]) == [(0,)]

    assert main(["--data-dir", str(data_dir), "changes", "--since", runs[0]]) == 0
    out, err = capsys.readouterr()
    assert "ruling_reworded" in out and "(5 rows)" in out and "no run" not in err
    # a run id the warehouse does not hold (never loaded, or mistyped) still marks a point in time, and is named
    assert main(["--data-dir", str(data_dir), "changes", "--since", "19991231T235959.000000Z"]) == 0
    out, err = capsys.readouterr()
    assert "ruling_reworded" in out and runs[0] in out and "(5 rows)" not in out
    assert "holds no run 19991231T235959.000000Z" in err and "the 2 loaded run(s) after it" in err
    assert main(["--data-dir", str(data_dir), "changes", "--since", "yesterday"]) == 2


# The card names of a ruling event, as first written: a subquery per event over every card. The
# query of sql/read/changes.sql must give the same rows (where every card named is still held).
REFERENCE_CHANGES = """
SELECT e.run_id, e.seq, e.kind,
       CASE WHEN e.kind LIKE 'card%' THEN e.name
            ELSE (SELECT string_agg(c.name, '; ' ORDER BY c.name) FROM card c
                  WHERE list_contains(e.cards, c.oracle_id)) END AS card,
       e.field, e.before, e.after, coalesce(e.ruling_id, e.oracle_id) AS id, e.previous_ruling_id
FROM change_event e ORDER BY e.run_id, e.seq"""


def test_the_changes_of_every_run_name_the_cards_as_the_reference_query_does(data_dir, two_runs, capsys):
    run1, run2, _ = two_runs
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run1)]) == 0
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run2)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--since", "2000-01-01", "--format", "json"]) == 0
    got = [tuple(e.values()) for e in json.loads(capsys.readouterr().out)]
    expected = sql(data_dir, REFERENCE_CHANGES)
    assert len(expected) == 59  # 14 cards and 40 rulings added, then the five changes
    assert got == [tuple(row) for row in expected]
    assert any(card and "; " in card for _, _, _, card, *_ in got)  # rulings shared by several cards


KIND_ORDER = ["card_added", "card_removed", "card_changed", "ruling_added", "ruling_removed", "ruling_reworded",
              "ruling_cards_changed", "translation_added", "translation_changed", "translation_removed"]


def test_a_runs_change_events_are_numbered_from_one_in_the_order_of_their_keys(data_dir, two_runs):
    """seq counts 1, 2, ... within each run, in the order README documents: kind (in the listed
    order), card, ruling, field, origin; every event once, with the texts it was written with."""
    run1, run2, _ = two_runs
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run)]) == 0
    rows = sql(data_dir, """SELECT run_id, seq, kind, oracle_id, ruling_id, field, name, before, after, cards
                            FROM change_event ORDER BY run_id, seq""")
    runs = sorted({row[0] for row in rows})
    assert len(runs) == 2
    second_kinds = set()
    for run_id in runs:
        events = [row[1:] for row in rows if row[0] == run_id]
        assert [e[0] for e in events] == list(range(1, len(events) + 1))
        keyed = [(KIND_ORDER.index(kind), oracle_id or "", ruling_id or "", field or "", name or "")
                 for _, kind, oracle_id, ruling_id, field, name, *_ in events]
        assert keyed == sorted(keyed)
        assert len(set(keyed)) == len(keyed)
        second_kinds = {e[1] for e in events}
    assert {"card_added", "card_changed", "ruling_added", "ruling_removed", "ruling_reworded"} <= second_kinds
    # each event keeps its own texts: the re-worded ruling's before and after differ, an added card has a name
    reworded = [r for r in rows if r[2] == "ruling_reworded"]
    assert reworded and all(r[7] and r[8] and r[7] != r[8] and r[9] for r in reworded)
    assert all(r[6] for r in rows if r[2] == "card_added")


def test_change_events_read_in_small_batches_are_the_listing(data_dir, two_runs):
    from pipeline.history import change_batches, runs_for
    from pipeline.reader import open_reader, query
    from pipeline.resources import read_sql

    run1, run2, _ = two_runs
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run)]) == 0
    con = open_reader(data_dir / "warehouse" / "casefile.duckdb")
    try:
        runs = runs_for(con, "2000-01-01")
        columns, rows = query(con, read_sql("read/changes.sql"), {"runs": runs})  # the whole listing at once
        got_columns, batches = change_batches(con, runs, size=7)
        batched = [list(batch) for batch in batches]
    finally:
        con.close()
    assert got_columns == columns and len(batched) == -(-len(rows) // 7)
    assert [row for batch in batched for row in batch] == rows


def test_json_logs_parse_and_the_summary_equals_the_warehouse(data_dir):
    # stdout and stderr into one stream, as a cron line with 2>&1 has them
    result = subprocess.run([sys.executable, "-m", "pipeline", "--log-format", "json", "-vv", "sync", "--offline"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=subprocess_env(data_dir),
                            timeout=120)
    assert result.returncode == 0, result.stdout
    lines = [l for l in result.stdout.splitlines() if l.strip()]
    parsed = [json.loads(l) for l in lines]
    assert parsed[-1]["event"] == "summary" and len(parsed) > 1
    summary = parsed[-1]
    [row] = sql(data_dir, "SELECT run_id, mode, requests, bytes, inserted, updated, removed, duration_s, status "
                          "FROM sync_run")
    assert (summary["run_id"], summary["mode"], summary["requests"], summary["bytes"], summary["inserted"],
            summary["updated"], summary["removed"], summary["duration_s"], summary["outcome"]) == row
    counts = {t: sql(data_dir, f"SELECT count(*) FROM {t}")[0][0] for t in summary["rows"]}
    assert summary["rows"] == counts


def test_a_run_inside_a_remembered_429_cool_down_makes_no_request(cli, data_dir):
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/cards/search", "429", retry_after=600)
        first = cli("sync", "--api-url", server.url, "--sources", "api", CASEFILE_RETRY_AFTER_MIN="1", CASEFILE_RETRY_AFTER_MAX="5")
        assert first.returncode == 75 and "429" in first.stderr
        assert len(server.requests) == 1
        assert json.loads((data_dir / "cooldown.json").read_text())["wait_s"] == 600
        server.clear_log()
        server.clear_faults()
        second = cli("sync", "--api-url", server.url, "--sources", "api")
        assert second.returncode == 75
        assert "No request was made" in second.stderr
        assert server.requests == []
    assert not db_of(data_dir).exists()


def test_plan_inside_a_remembered_429_cool_down_makes_no_request(cli, data_dir):
    from pipeline import cooldown

    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/cards/search", "429", retry_after=600)
        first = cli("sync", "--api-url", server.url, "--plan", CASEFILE_RETRY_AFTER_MIN="1",
                    CASEFILE_RETRY_AFTER_MAX="5")
        assert first.returncode == 75 and "429" in first.stderr
        assert json.loads((data_dir / "cooldown.json").read_text())["wait_s"] == 600  # remembered, as a sync does
        server.clear_log()
        server.clear_faults()
        until = cooldown.read(data_dir / "cooldown.json")["until"]
        for bulk in ("auto", "always", "never"):
            second = cli("sync", "--api-url", server.url, "--plan", "--bulk", bulk, "--query", "*")
            assert second.returncode == 75, second.stderr
            assert "No request was made" in second.stderr and until in second.stderr
        assert server.requests == []
    assert not (data_dir / "raw").exists()


def test_plan_answers_a_429_with_75_where_the_data_folder_cannot_be_written(tmp_path):
    # a plan takes no lock and makes no folder: a cool-down it cannot keep (a folder, made here,
    # where its file goes; a data folder whose path runs through a file is a setting to fix, 78)
    # is no traceback
    data = tmp_path / "data"
    (data / "cooldown.json").mkdir(parents=True)
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/cards/search", "429", retry_after=600)
        result = subprocess.run([sys.executable, "-m", "pipeline", "sync", "--api-url", server.url, "--plan"],
                                capture_output=True, text=True, cwd=str(tmp_path), timeout=60,
                                env=subprocess_env(data, CASEFILE_RETRY_AFTER_MIN="1",
                                                   CASEFILE_RETRY_AFTER_MAX="5"))
    assert result.returncode == 75, result.stderr
    assert "could not be kept" in result.stderr and "Traceback" not in result.stderr


def _sites_on(server) -> dict:
    """Every source of `doctor --online` on the loopback server (its robots.txt answers 404)."""
    return {"CASEFILE_API_URL": server.url, "CASEFILE_WIKI_URL": server.url, "CASEFILE_LISTEBLANCHE_URL": server.url}


def test_doctor_online_asks_the_api_nothing_inside_a_remembered_429_cool_down(cli, data_dir):
    from pipeline import cooldown

    cooldown.remember(data_dir / "cooldown.json", "https://api.scryfall.com/cards/search", 600)
    until = cooldown.read(data_dir / "cooldown.json")["until"]
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        result = cli("doctor", "--online", **_sites_on(server))
        assert server.requests_to("/bulk-data") == []
        assert [r.path for r in server.requests] == ["/robots.txt", "/robots.txt"]  # the two sites still
    assert result.returncode == 75, result.stdout + result.stderr  # try later, not 69 (refused for good)
    assert "not asked" in result.stdout and until in result.stdout


def test_doctor_online_remembers_a_429_of_the_api_at_once_and_exits_75(cli, data_dir):
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/bulk-data", "429", retry_after=60)
        started = time.monotonic()
        result = cli("doctor", "--online", **_sites_on(server))
        took = time.monotonic() - started
        assert len(server.requests_to("/bulk-data")) == 1
    assert result.returncode == 75, result.stdout + result.stderr
    assert took < 30  # the probe does not sit out the Retry-After it was given
    saved = json.loads((data_dir / "cooldown.json").read_text())
    assert saved["wait_s"] == 60  # the next sync asks nothing before it ends


def test_doctor_online_stops_at_a_site_s_429_and_exits_75(cli, data_dir):
    """Before, the sites' client waited out the Retry-After (30 s at the least) of its one attempt,
    then reported the site unreachable (69), where a sync would try again later (75)."""
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_page("/bulk-data", b'{"object": "list", "has_more": false, "data": []}', "application/json")
        server.add_fault("/robots.txt", "429", times=None, retry_after=60)
        started = time.monotonic()
        result = cli("doctor", "--online", "--format", "json", **_sites_on(server))
        took = time.monotonic() - started
        assert len(server.requests_to("/robots.txt")) == 2  # each site once
    assert result.returncode == 75, result.stdout + result.stderr
    assert took < 30  # the probe does not sit out the Retry-After it was given
    online = {f["finding"].split(":")[0]: (f["level"], f["finding"]) for f in json.loads(result.stdout)
              if f["area"] == "online"}
    assert online["Scryfall API"][0] == "ok"
    for site in ("MTG wiki", "listeblanche.fr"):
        assert online[site][0] == "fail" and "answered 429 and asks for a pause of 60 s" in online[site][1]
    assert not (data_dir / "cooldown.json").exists()  # Scryfall's cool-down is the API's alone


def test_doctor_online_names_each_url_it_could_not_reach_once(cli, data_dir):
    """Every connection reset (constructed faults): each online finding read "Scryfall API:
    <url>: <url>: gave up after 1 attempts; …", the URL twice and "1 attempts"."""
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/", "reset", times=None)
        result = cli("doctor", "--online", "--format", "json", **_sites_on(server))
        url = server.url
    assert result.returncode == 69, result.stdout + result.stderr
    online = [f["finding"] for f in json.loads(result.stdout) if f["area"] == "online"]
    assert [finding.split(": gave up after 1 attempt; last problem: connection failed: ")[0] for finding in online] \
        == [f"Scryfall API: {url}/bulk-data", f"MTG wiki: {url}/robots.txt", f"listeblanche.fr: {url}/robots.txt"]
    assert all(finding.count(url) == 1 for finding in online), online


@pytest.mark.parametrize("status", [401, 403])
def test_plan_exits_69_when_the_api_refuses_casefile_as_a_sync_does(cli, data_dir, status):
    """Before, --plan exited 2 (a usage error) on a search the API refused, where the sync exits 69."""
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/cards/search", "status", times=None, status=status, content_type="application/json",
                         body=json.dumps({"object": "error", "code": "forbidden", "status": status,
                                          "details": "Refused."}).encode())
        plan = cli("sync", "--api-url", server.url, "--plan")
        synced = cli("sync", "--api-url", server.url, "--sources", "api")
    assert (plan.returncode, synced.returncode) == (69, 69), plan.stderr + synced.stderr
    assert f"Scryfall answered {status} (forbidden)" in plan.stderr


@pytest.mark.parametrize("status", [401, 403, 404])
def test_doctor_online_fails_an_api_that_refuses_the_question(cli, data_dir, status):
    # a 403 is what a sync meets as exit 69 (refused for good); the probe must not call it reachable
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/bulk-data", "status", status=status, body=b"{}", content_type="application/json")
        result = cli("doctor", "--online", **_sites_on(server))
    assert result.returncode == 69, result.stdout + result.stderr
    assert re.search(rf"^fail +online +Scryfall API: .*HTTP {status}", result.stdout, re.M), result.stdout


def test_a_huge_retry_after_is_remembered_as_a_cool_down_of_at_most_a_day(cli, data_dir):
    """``Retry-After: 1000000000000`` (valid delta-seconds) stops the run with 75 and a cool-down
    that ends within a day, instead of a date out of range (exit 1, nothing remembered)."""
    from pipeline.cooldown import MAX_WAIT_S

    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as server:
        server.add_fault("/cards/search", "429", retry_after="1000000000000")
        started = time.time()
        result = cli("sync", "--api-url", server.url, "--sources", "api")
        assert result.returncode == 75, result.stderr
        assert "Traceback" not in result.stderr and len(server.requests) == 1
    saved = json.loads((data_dir / "cooldown.json").read_text())
    assert saved["wait_s"] == MAX_WAIT_S == 86_400
    assert started + MAX_WAIT_S <= saved["until_epoch"] <= time.time() + MAX_WAIT_S


def test_a_cool_down_written_longer_than_a_day_lasts_a_day_from_now(tmp_path):
    from pipeline import cooldown
    from pipeline.errors import RateLimited

    path = tmp_path / "cooldown.json"
    path.write_text(json.dumps({"until_epoch": 1e15, "until": "far away", "url": "u", "wait_s": 1e12}))
    with pytest.raises(RateLimited, match="86400 s from now"):
        cooldown.check(path, now=1_000_000)
    assert json.loads(path.read_text())["until_epoch"] == 1_000_000 + 86_400


def test_a_clock_set_back_does_not_stretch_a_cool_down_beyond_the_wait_asked(tmp_path):
    from pipeline import cooldown
    from pipeline.errors import RateLimited

    path = tmp_path / "cooldown.json"
    cooldown.remember(path, "https://api.scryfall.com/cards/search", 600, now=1_000_000)
    with pytest.raises(RateLimited, match="300 s from now"):
        cooldown.check(path, now=1_000_300)  # 300 s later: 300 s left
    day_back = 1_000_300 - 86_400
    with pytest.raises(RateLimited, match="600 s from now"):  # not 86,700 s: the wait asked, from now
        cooldown.check(path, now=day_back)
    cooldown.check(path, now=day_back + 601)  # over, though the clock is still a day behind the 429
    # doctor only reads: it reports the cool-down as written, and leaves the file alone
    cooldown.remember(path, "https://api.scryfall.com/cards/search", 600, now=2_000_000)
    written = path.read_bytes()
    with pytest.raises(RateLimited):
        cooldown.check(path, now=2_000_000 - 86_400, reanchor=False)
    assert path.read_bytes() == written


@pytest.mark.parametrize("body", ["{\"until_epoch\": 1.0e15, \"until\"", "[]", "{\"until\": \"soon\"}"])
def test_a_cool_down_file_that_is_no_cool_down_is_warned_of_and_replaced_by_the_next_429(tmp_path, caplog, body):
    from pipeline import cooldown

    path = tmp_path / "cooldown.json"
    path.write_text(body)  # cut short by a crash of the system, or edited by hand
    with caplog.at_level(logging.WARNING, logger="pipeline.cooldown"):
        cooldown.check(path, now=1_000_000)  # not known to hold a pause: the run goes on
    assert [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()] != []
    assert str(path) in caplog.text
    assert cooldown.read(tmp_path / "none.json") is None and "none.json" not in caplog.text  # none kept: no warning
    cooldown.remember(path, "https://api.scryfall.com/cards/search", 600, now=1_000_000)
    assert json.loads(path.read_text())["until_epoch"] == 1_000_600


def test_doctor_reports_a_tampered_raw_file_and_a_broken_check(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor"]) == 0
    assert "fail" not in capsys.readouterr().out
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    victim = sorted((run / "docs" / "scryfall-api").iterdir())[1]
    victim.write_bytes(victim.read_bytes().replace(b"solved", b"SOLVED", 1))
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 65
    findings = json.loads(capsys.readouterr().out)
    assert any(f["level"] == "fail" and victim.name in f["finding"] and "sha256" in f["finding"] for f in findings)
    victim.write_bytes(victim.read_bytes().replace(b"SOLVED", b"solved", 1))
    con = duckdb.connect(str(db_of(data_dir)))
    con.execute("INSERT INTO card SELECT * FROM card LIMIT 1")  # a duplicate key
    con.close()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 65
    findings = json.loads(capsys.readouterr().out)
    failing = [f["finding"] for f in findings if f["level"] == "fail"]
    assert len(failing) == 1 and "unique_keys" in failing[0]


def test_doctor_fails_a_wiki_only_ruling_given_a_date_by_hand(data_dir, capsys):
    """A wiki-only ruling is undated (the MTG wiki dates none): one given a date by hand, in the
    warehouse of the sample, is a failing check that doctor names."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    con = duckdb.connect(str(db_of(data_dir)))
    con.execute("UPDATE ruling SET published_at = DATE '2024-02-02' "
                "WHERE ruling_id = (SELECT min(ruling_id) FROM ruling WHERE source = 'mtgwiki')")
    assert con.execute("SELECT count(*) FROM ruling WHERE source = 'mtgwiki' AND published_at IS NOT NULL").fetchone() == (1,)
    con.close()
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 65
    failing = [f["finding"] for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert len(failing) == 1 and "rulings_have_provenance" in failing[0]


@pytest.mark.parametrize("table, check", [("query_card", "unique_keys"), ("query_wiki_page", "unique_keys_merged")])
def test_the_checks_refuse_a_query_table_row_held_twice(warehouse_copy, table, check):
    """Each row of query_card and query_wiki_page is its own key: one held twice (CONSTRUCTED by
    the INSERT) fails the key check of its table."""
    from support.warehouse_state import failing_checks

    data = warehouse_copy("INSERT INTO query_wiki_page VALUES ('q', 'd')",
                          f"INSERT INTO {table} SELECT * FROM {table} LIMIT 1")
    assert failing_checks(data) == [(check, 1)]


def test_status_and_doctor_of_a_warehouse_an_older_version_made(data_dir, capsys):
    """A warehouse of the sample whose query_wiki_page is dropped, as a warehouse made before the
    table has none (CONSTRUCTED by that DROP): status, the first command run after an upgrade,
    exited 2 ("the query failed: Catalog Error"); the next sync makes the table."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    con = duckdb.connect(str(db_of(data_dir)))
    con.execute("DROP TABLE query_wiki_page")
    con.close()
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "status", "--format", "json"]) == 0
    tables = json.loads(capsys.readouterr().out)["warehouse"]["tables"]
    assert "query_wiki_page" not in tables and tables["card"] == 15 and tables["sync_run"] == 1
    # doctor, run by a monitor after an upgrade, does not fail the check it cannot run yet
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0
    warehouse = [(f["level"], f["finding"]) for f in json.loads(capsys.readouterr().out) if f["area"] == "warehouse"]
    assert warehouse == [("warn", "check unique_keys_merged not run: the warehouse has no query_wiki_page yet (made "
                                  "by an older casefile; the next sync or rules ingest adds it)"),
                         ("ok", "5 checks pass; 19 tables read whole")]
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "status", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["warehouse"]["tables"]["query_wiki_page"] == 1
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0
    assert "6 checks pass; 20 tables read whole" in capsys.readouterr().out


# The tables a warehouse made by 4182d63, the first commit that synced, lacks: sql/schema/ then made
# sync_run, raw_document, card_set, card, printing, ruling, card_ruling, ruling_sighting and
# ruling_translation only, and sync_run without duration_s.
FIRST_SCHEMA_LACKS = ("change_event", "retired_ruling", "query_card", "query_wiki_page", "cr_edition", "cr_rule",
                      "cr_glossary", "ruling_rule", "card_rule", "ruling_card_names", "ruling_translation_key")


def test_the_readers_of_a_warehouse_made_before_their_tables_name_the_command_that_adds_them(data_dir, tmp_path,
                                                                                              capsys):
    """CONSTRUCTED from 4182d63's schema: the sample synced, then the tables that commit did not
    make dropped (and sync_run.duration_s). Before, on such a warehouse, card, changes, report and
    rule exited 2 ("the query failed: Catalog Error: Table with name change_event does not
    exist!"), as if the command were mistyped, and export exited 1 with a traceback. Each now
    exits 78 naming the table and the commands that add it; a sync adds them, and each then works.
    doctor's warning of a check it cannot run said "adds it" of several tables; it says "adds them"."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    con = duckdb.connect(str(db_of(data_dir)))
    for table in FIRST_SCHEMA_LACKS:
        con.execute(f"DROP TABLE {table}")
    con.execute("ALTER TABLE sync_run DROP COLUMN duration_s")
    con.close()
    commands = {"card": ["card", REWORDED], "changes": ["changes"], "report": ["report", "all"],
                "export": ["export", "rulings", "--out", str(tmp_path / "export")], "rule": ["rule", "702.1"],
                "sql": ["sql", "SELECT count(*) FROM change_event"]}
    capsys.readouterr()
    for args in commands.values():
        assert main(["--data-dir", str(data_dir), *args]) == 78, args
        err = capsys.readouterr().err
        assert "Traceback" not in err and "made by an older casefile and has no " in err, args
        assert re.search(r"has no (\w+) table yet: the next `casefile sync` or `casefile rules ingest` adds it",
                         err).group(1) in FIRST_SCHEMA_LACKS, args
    assert not (tmp_path / "export").exists()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0  # warns of the checks it cannot run
    assert ("check accepted_values not run: the warehouse has no change_event, ruling_rule, card_rule, retired_ruling "
            "yet (made by an older casefile; the next sync or rules ingest adds them)"
            ) in [f["finding"] for f in json.loads(capsys.readouterr().out)]
    assert main(["--data-dir", str(data_dir), "sql", "SELECT count(*) FROM change_events"]) == 2  # no such table
    assert main(["--data-dir", str(data_dir), "search", "solved"]) == 0  # reads none of them
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    capsys.readouterr()
    for name, args in commands.items():
        assert main(["--data-dir", str(data_dir), *args]) == (2 if name == "rule" else 0), args
    assert "no Comprehensive Rules in the warehouse yet" in capsys.readouterr().err  # rule: the ingest's advice


@pytest.mark.parametrize("damage", ["a line that is not JSON", "no manifest"])
def test_doctor_lists_its_findings_beside_a_manifest_it_cannot_read(data_dir, capsys, damage):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    if damage == "no manifest":
        (run / "manifest.jsonl").unlink()
    else:
        with open(run / "manifest.jsonl", "ab") as fh:  # a test-only line, as a disk error could leave
            fh.write(b"garbage\n")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 65
    out, err = capsys.readouterr()
    findings = json.loads(out)
    assert err == ""
    assert [f["area"] for f in findings if f["level"] == "fail"] == ["raw"]
    assert "manifest.jsonl" in next(f["finding"] for f in findings if f["level"] == "fail")
    assert {"config", "lock", "warehouse"} <= {f["area"] for f in findings if f["level"] == "ok"}


def test_a_warehouse_damaged_by_hand_rejects_no_run_and_a_rebuild_mends_it(data_dir, capsys):
    # the checks fail whatever run comes: the run fetched is kept for the load after the rebuild
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    con = duckdb.connect(str(db_of(data_dir)))
    con.execute("INSERT INTO card SELECT * FROM card LIMIT 1")  # a duplicate key
    con.close()
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 65
    assert "fails its checks before any run is loaded" in capsys.readouterr().err
    runs = sorted(p for p in (data_dir / "raw").iterdir() if p.is_dir())
    assert len(runs) == 2 and not any((run / "_FAILED").exists() for run in runs)
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    con = duckdb.connect(str(db_of(data_dir)), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT oracle_id) FROM card").fetchone() == (15, 15)
    assert con.execute("SELECT count(*) FROM sync_run").fetchone() == (2,)
    con.close()


def test_a_recorded_run_whose_run_json_is_unreadable_is_not_replayed(data_dir, tmp_path, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    copy = tmp_path / "recorded"
    shutil.copytree(run, copy)
    (copy / "run.json").write_text("{bad", "utf-8")
    capsys.readouterr()
    assert main(["--data-dir", str(tmp_path / "other"), "-q", "sync", "--offline", str(copy)]) == 2
    assert "run.json" in capsys.readouterr().err
    assert not (tmp_path / "other" / "warehouse" / "casefile.duckdb").exists()


def test_a_run_whose_run_json_is_unreadable_is_reported_and_never_loaded_rebuilt_or_pruned(data_dir, capsys):
    # Read as an empty run.json, such a run was replayed as a live sync of no query, without its
    # page sources: a rebuild silently dropped five rulings.
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before = state(data_dir)
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    (run / "run.json").write_text("{bad", "utf-8")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 65
    [finding] = [f for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert run.name in finding["finding"] and "run.json" in finding["finding"]
    assert main(["--data-dir", str(data_dir), "rebuild"]) == 65
    assert "repair its run.json" in capsys.readouterr().err
    assert state(data_dir) == before
    assert main(["--data-dir", str(data_dir), "prune", "--keep-days", "0"]) == 0
    assert run.is_dir()
    info = collect_status(validate(Settings(data_dir=data_dir)))
    assert [r["status"] for r in info["recent_runs"]] == ["damaged"] and info["runs"]["failed"] == 1


def test_a_run_folder_copied_in_under_another_name_is_damaged_not_a_traceback(data_dir, capsys):
    """A run folder copied into the store by hand under a new name: its run.json names another run
    (here the bundled sample, whose run.json says "sample"). It is reported and left alone like a
    run whose run.json cannot be read; prune used to fail with a traceback on its id."""
    from conftest import ROOT

    shutil.copytree(ROOT / "data" / "raw" / "sample", data_dir / "raw" / "20240101T000000.000000Z")
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before = state(data_dir)
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "prune", "--keep-days", "0"]) == 0
    assert "1 damaged" in capsys.readouterr().out
    assert (data_dir / "raw" / "20240101T000000.000000Z").is_dir()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 65
    [finding] = [f for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert "names the run 'sample'" in finding["finding"]
    assert main(["--data-dir", str(data_dir), "rebuild"]) == 65
    assert "Traceback" not in capsys.readouterr().err
    assert state(data_dir) == before


@pytest.mark.parametrize("point", ["during_extract", "during_build", "before_commit"])
def test_sigterm_aborts_the_run_and_changes_nothing(data_dir, point):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before = state(data_dir)
    proc = start(data_dir, "sync", "--offline", CASEFILE_FAILPOINT=f"{point}:sleep=30")
    deadline = time.monotonic() + 30
    runs_dir = data_dir / "raw"
    while time.monotonic() < deadline:  # wait until the run reached the failpoint
        runs = sorted(p for p in runs_dir.iterdir() if p.is_dir())
        if len(runs) == 2 and ((point == "during_extract" and (runs[-1] / "manifest.jsonl").exists()
                                and (runs[-1] / "manifest.jsonl").stat().st_size > 0)
                               or (point != "during_extract" and (runs[-1] / "_SUCCESS").exists())):
            break
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 75, err
    assert "SIGTERM" in err and "Traceback" not in err
    assert state(data_dir) == before
    newest = sorted(p for p in runs_dir.iterdir() if p.is_dir())[-1]
    assert json.loads((newest / "_FAILED").read_text())["status"] == "aborted"
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert sql(data_dir, "SELECT count(*) FROM sync_run") == [(2,)]


@pytest.mark.parametrize("point", ["during_extract", "before_commit"])
def test_ctrl_c_is_exit_130_and_changes_nothing(data_dir, point):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before = state(data_dir)
    proc = start(data_dir, "sync", "--offline", CASEFILE_FAILPOINT=f"{point}:sleep=30")
    runs_dir = data_dir / "raw"
    newest = lambda: sorted(p for p in runs_dir.iterdir() if p.is_dir())  # noqa: E731
    marker = "manifest.jsonl" if point == "during_extract" else "_SUCCESS"
    _wait_for(lambda: len(newest()) == 2 and (newest()[-1] / marker).exists()
              and (newest()[-1] / marker).stat().st_size > 0)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert state(data_dir) == before
    assert json.loads((newest()[-1] / "_FAILED").read_text())["status"] == "aborted"
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert sql(data_dir, "SELECT count(*) FROM sync_run") == [(2,)]


def test_ctrl_c_in_a_log_of_json_lines_leaves_json_lines_only(data_dir):
    """click answers a KeyboardInterrupt with an empty line on stderr: not in a log of JSON lines."""
    proc = start(data_dir, "--log-format", "json", "sync", "--offline", CASEFILE_FAILPOINT="during_extract:sleep=30")
    _wait_for(lambda: any(p.stat().st_size > 0 for p in (data_dir / "raw").glob("*/manifest.jsonl")))
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    lines = err.splitlines()
    assert [json.loads(line)["event"] for line in lines][-1:] == ["error"], err  # every line an object
    error = json.loads(lines[-1])
    assert {k: v for k, v in error.items() if k != "ts"} == {"level": "error", "event": "error", "exit_code": 130,
                                                             "error": "Interrupted", "message": "interrupted"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", error["ts"])  # as a log line's


def _wait_for(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _statuses(data):
    from pipeline.rawstore import RawStore

    return {run.run_id: run.status for run in RawStore(data / "raw").runs()}


@pytest.mark.parametrize("signum, code, said", [(signal.SIGTERM, 75, "casefile: error:"),
                                                (signal.SIGINT, 130, "casefile: interrupted:")])
def test_a_signal_just_after_the_commit_keeps_the_run_it_loaded(data_dir, signum, code, said):
    """The run is in the warehouse: it must stay complete in the raw store, or a rebuild would drop it.
    SIGTERM exits 75 and Ctrl-C 130, as they do before the commit, saying that the run was loaded."""
    proc = start(data_dir, "-vv", "sync", "--offline", CASEFILE_FAILPOINT="after_commit:sleep=30")
    seen = []
    for line in iter(proc.stderr.readline, ""):  # -vv logs the commit, then the failpoint holds the run
        seen.append(line)
        if line.rstrip().endswith(" committed"):
            break
    time.sleep(0.3)  # into the failpoint's sleep, past the log line
    proc.send_signal(signum)
    out, rest = proc.communicate(timeout=30)
    err = "".join(seen) + rest
    assert proc.returncode == code and "internal error" not in err  # -vv logs the error's stack on purpose
    assert err.rstrip().splitlines()[-1].startswith(f"{said} stopped by a signal just after run")
    assert list(_statuses(data_dir).values()) == ["complete"]
    loaded = state(data_dir)
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    assert state(data_dir) == loaded


@pytest.mark.parametrize("signum, code, said", [(signal.SIGTERM, 75, f"casefile: error: {REBUILD_STOPPED}"),
                                                (signal.SIGINT, 130, f"casefile: interrupted: {REBUILD_INTERRUPTED}")])
def test_a_signal_during_a_rebuild_keeps_the_old_warehouse_and_every_run(data_dir, signum, code, said):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", "--sources", "api"]) == 0
    before, runs = state(data_dir), _statuses(data_dir)
    proc = start(data_dir, "rebuild", CASEFILE_FAILPOINT="before_commit:sleep=30")
    _wait_for(lambda: (data_dir / "warehouse" / "casefile.duckdb.rebuild").exists())
    time.sleep(0.5)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code and "Traceback" not in err
    # what a rebuild leaves, not a sync's "the run is recorded as aborted" (none is)
    assert err.rstrip().splitlines()[-1] == said
    assert state(data_dir) == before
    assert _statuses(data_dir) == runs  # no run is marked aborted by a stopped rebuild
    assert sorted(p.name for p in (data_dir / "warehouse").iterdir()) == ["casefile.duckdb"]  # nothing half built
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    assert state(data_dir) == before


def test_sigterm_just_after_a_rebuild_s_rename_says_the_new_warehouse_is_in_place(data_dir):
    """The new file is already renamed over the old one when the signal comes: the message says
    the warehouse is rebuilt, not that it is unchanged."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    rebuilt, runs = state(data_dir), _statuses(data_dir)
    con = duckdb.connect(str(db_of(data_dir)))
    try:
        con.execute("DELETE FROM change_event")  # the old warehouse differs from the rebuilt one
    finally:
        con.close()
    assert state(data_dir) != rebuilt
    old_inode = db_of(data_dir).stat().st_ino
    proc = start(data_dir, "rebuild", CASEFILE_FAILPOINT="after_replace:sleep=30")
    _wait_for(lambda: db_of(data_dir).stat().st_ino != old_inode)  # renamed: now in the failpoint's pause
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 75 and "Traceback" not in err
    assert err.rstrip().splitlines()[-1] == f"casefile: error: {REBUILD_REPLACED_STOPPED}"
    assert "unchanged" not in err
    assert state(data_dir) == rebuilt and _statuses(data_dir) == runs
    assert sorted(p.name for p in (data_dir / "warehouse").iterdir()) == ["casefile.duckdb"]


def test_sigterm_as_a_rebuild_lets_go_of_its_lock_says_the_new_warehouse_is_in_place(data_dir, capsys,
                                                                                       monkeypatch):
    """Aborted is raised where the SIGTERM handler would raise it once the rename is done and
    replace_file has returned: as the lock is let go."""
    import pipeline.sync
    from pipeline.errors import Aborted

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    rebuilt = state(data_dir)
    real = pipeline.sync.SyncLock

    class StoppedOnRelease(real):
        def __exit__(self, *exc):
            super().__exit__(*exc)
            raise Aborted(REBUILD_STOPPED)

    monkeypatch.setattr(pipeline.sync, "SyncLock", StoppedOnRelease)
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 75
    assert capsys.readouterr().err.rstrip().splitlines()[-1] == f"casefile: error: {REBUILD_REPLACED_STOPPED}"
    assert state(data_dir) == rebuilt
    assert sorted(p.name for p in (data_dir / "warehouse").iterdir()) == ["casefile.duckdb"]


def test_doctor_warns_of_the_file_a_killed_rebuild_left(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    killed = start(data_dir, "rebuild", CASEFILE_FAILPOINT="before_replace:kill")  # as the OOM killer would
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert (data_dir / "warehouse" / "casefile.duckdb.rebuild").is_file()
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0
    warned = [f["finding"] for f in json.loads(capsys.readouterr().out) if f["level"] == "warn"]
    assert any(w.startswith("a rebuild that did not finish left casefile.duckdb.rebuild (") for w in warned)
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 0
    assert not [f for f in json.loads(capsys.readouterr().out) if "casefile.duckdb.rebuild" in f["finding"]]


def _with_file_size_limit(data_dir, limit, *args):
    """A real `casefile` whose writes beyond ``limit`` bytes per file fail (RLIMIT_FSIZE, SIGXFSZ
    ignored): the kernel answers EFBIG, as it answers ENOSPC on a full disk, in the middle of
    DuckDB's writes. The sample's raw files are smaller; a warehouse and its WAL are not."""
    import resource

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True,
                          env=subprocess_env(data_dir), timeout=120, cwd=str(data_dir.parent), preexec_fn=limited)


def test_a_warehouse_the_system_refuses_to_write_is_one_line_not_a_traceback_and_the_run_waits(data_dir):
    failed = _with_file_size_limit(data_dir, 200_000, "sync", "--offline")
    assert failed.returncode == 78, failed.stderr
    assert failed.stderr.startswith("casefile: error: cannot write the warehouse (") and "File too large" in failed.stderr
    assert "Traceback" not in failed.stderr and len(failed.stderr.splitlines()) == 1
    [(run_id, status)] = _statuses(data_dir).items()
    assert status == "complete"  # fetched, not loaded, not rejected: the next sync loads it
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert [r[0] for r in sql(data_dir, "SELECT run_id FROM sync_run ORDER BY run_id")][0] == run_id
    assert sql(data_dir, "SELECT count(*) FROM card") == [(15,)]


def test_a_full_disk_under_the_warehouse_exits_75(data_dir, monkeypatch, capsys):
    """The error is made here as DuckDB gave it for a COMMIT on a full file system (the text of a
    real one, a tmpfs filled up): ENOSPC cannot be caused on demand without a file system of its own."""
    from pipeline import sync as sync_module

    def full(*args, **kwargs):
        raise duckdb.TransactionException(
            f'TransactionContext Error: Failed to commit: Could not write file "{db_of(data_dir)}.wal": '
            "No space left on device")

    monkeypatch.setattr(sync_module, "load_pending", full)
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 75
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: cannot write the warehouse (") and "free some space" in err
    assert "Traceback" not in err
    assert list(_statuses(data_dir).values()) == ["complete"]


def test_a_rebuild_the_system_refuses_to_write_keeps_the_old_warehouse_and_leaves_no_new_file(data_dir):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before = state(data_dir)
    failed = _with_file_size_limit(data_dir, 200_000, "rebuild")
    assert failed.returncode == 78, failed.stderr
    assert failed.stderr.startswith("casefile: error: cannot write the warehouse (") and "Traceback" not in failed.stderr
    assert sorted(p.name for p in (data_dir / "warehouse").iterdir()) == ["casefile.duckdb"]
    assert state(data_dir) == before


def _build_that_swallows_a_sigterm(monkeypatch):
    """The build, with a SIGTERM received inside code that catches every Exception: the
    exception the handler raises is lost there, as in a library's fallback or a logging write."""
    import os

    import pipeline.sync

    real = pipeline.sync._build

    def build(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs here and raises
        except Exception:
            pass
        else:
            raise AssertionError("the SIGTERM handler did not run")
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline.sync, "_build", build)


def test_a_sigterm_whose_exception_is_swallowed_still_stops_the_commit(data_dir, monkeypatch, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before = state(data_dir)
    _build_that_swallows_a_sigterm(monkeypatch)
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 75
    assert "SIGTERM" in capsys.readouterr().err
    assert state(data_dir) == before
    assert list(_statuses(data_dir).values()) == ["complete", "aborted"]
    # the failpoint's pause, like a slow query, ends at a SIGTERM received before it
    monkeypatch.setenv("CASEFILE_FAILPOINT", "before_commit:sleep=30")
    started = time.monotonic()
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 75
    assert time.monotonic() - started < 20
    assert state(data_dir) == before


def test_a_sigterm_whose_exception_is_swallowed_still_stops_a_rebuild(data_dir, monkeypatch, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before, runs = state(data_dir), _statuses(data_dir)
    _build_that_swallows_a_sigterm(monkeypatch)
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 75
    assert capsys.readouterr().err.rstrip().splitlines()[-1] == f"casefile: error: {REBUILD_STOPPED}"
    assert state(data_dir) == before and _statuses(data_dir) == runs


def test_a_sigterm_that_comes_out_of_a_parser_as_a_parse_error_rejects_no_run(data_dir, monkeypatch, capsys):
    """A parser that turns any exception into a ParseError turns the SIGTERM handler's Aborted
    into one too: the run is not at fault and must not be marked rejected."""
    import os

    import pipeline.sync
    from pipeline.errors import ParseError

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    before, runs = state(data_dir), _statuses(data_dir)

    def build(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs here and raises
        except Exception as exc:
            raise ParseError("a page", f"cut short ({exc.__class__.__name__})") from None
        raise AssertionError("the SIGTERM handler did not run")

    monkeypatch.setattr(pipeline.sync, "_build", build)
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 75
    assert capsys.readouterr().err.rstrip().splitlines()[-1] == f"casefile: error: {REBUILD_STOPPED}"
    assert state(data_dir) == before and _statuses(data_dir) == runs


def test_a_sigterm_swallowed_during_a_fetch_stops_it_at_the_next_wait(data_dir, monkeypatch, capsys):
    """A live fetch paces its requests; the wait before the next request ends the run."""
    import os

    from pipeline.extract.http import Pacer

    cards, rulings, sets = sample_api_data()
    real_mark = Pacer.mark
    marks = []

    def mark(self, rules):
        marks.append(1)
        if len(marks) == 2:  # the first answer is in: the signal lands in code that swallows it
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)
            except Exception:
                pass
        return real_mark(self, rules)

    monkeypatch.setattr(Pacer, "mark", mark)
    with FakeScryfall(cards, rulings, sets) as server:
        code = main(["--data-dir", str(data_dir), "sync", "--api-url", server.url, "--sources", "api"])
        requests_made = len(server.requests)
    assert code == 75 and "SIGTERM" in capsys.readouterr().err
    assert requests_made <= 2  # a whole fetch of the sample makes 20
    assert list(_statuses(data_dir).values()) == ["aborted"]
    assert not db_of(data_dir).exists()


def test_sigterm_during_a_duckdb_query_is_an_abort_not_a_crash():
    """DuckDB answers a signal that lands inside a query with its own "Query interrupted" error;
    the sync must still report the abort (exit 75), not an internal error."""
    import os
    import threading

    from pipeline.errors import Aborted
    from pipeline.stop import signals_stop

    con = duckdb.connect()
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    with pytest.raises(Aborted) as caught:
        with signals_stop():
            timer.start()
            # a few seconds of work: DuckDB usually stops it at the signal; when it does not, the
            # handler's Aborted comes when the query ends
            con.execute("SELECT count(*) FROM range(1000000000) AS t(i) WHERE i % 7 = 3").fetchall()
    timer.join()
    assert "SIGTERM" in str(caught.value)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGTERM))


def test_ctrl_c_during_a_duckdb_query_is_an_interrupt_and_no_commit_follows():
    """Ctrl-C inside a query: DuckDB fails the query with "Query interrupted" (or, when the query
    ends first, says nothing); either way the block leaves as KeyboardInterrupt, and a check
    before a commit, after code that swallowed the error, still refuses to go on."""
    import os
    import threading

    from pipeline import stop

    con = duckdb.connect()
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        with stop.signals_stop():
            timer.start()
            try:
                con.execute("SELECT count(*) FROM range(1000000000) AS t(i) WHERE i % 7 = 3").fetchall()
            except Exception:
                pass  # what a careless fallback does with DuckDB's error
            assert stop.requested() and stop.interrupted()
            stop.check()  # as the load does before its commit
    timer.join()
    assert signal.getsignal(signal.SIGINT) is before and not stop.requested()


def _self_signalling_module(folder, signum, monkeypatch) -> str:
    """A module whose import sends ``signum`` to this process and runs on: the handler runs inside
    the import. Returns its name."""
    import importlib

    name = f"casefile_test_import_{signum}"
    (folder / f"{name}.py").write_text(
        "import os\n"
        f"os.kill(os.getpid(), {int(signum)})\n"
        "for _ in range(100000):  # the handler runs here, inside the import\n"
        "    pass\n"
        "finished = True\n")
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    return name


def test_ctrl_c_during_an_import_is_noted_and_the_import_finishes(tmp_path, monkeypatch):
    """Python's handler raises KeyboardInterrupt inside the module being imported, which is left
    half made (DuckDB's extension then aborts the process, or fails its import); casefile's notes
    the Ctrl-C, lets the import finish, and the next check stops."""
    import importlib

    from pipeline import stop

    name = _self_signalling_module(tmp_path, signal.SIGINT, monkeypatch)
    before = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with pytest.raises(KeyboardInterrupt):
            importlib.import_module(name)
        assert name not in sys.modules
        signal.signal(signal.SIGINT, stop.on_ctrl_c)
        try:
            finished = importlib.import_module(name).finished
        except KeyboardInterrupt:  # what Python's handler does (a failure, not the end of the test run)
            finished = False
        assert finished and stop.interrupted()
        with pytest.raises(KeyboardInterrupt):
            stop.check()
    finally:
        signal.signal(signal.SIGINT, before)
        sys.modules.pop(name, None)
        stop.clear()


def test_sigterm_during_an_import_in_a_block_is_noted_and_the_import_finishes(tmp_path, monkeypatch):
    import importlib

    from pipeline import stop
    from pipeline.errors import Aborted

    name = _self_signalling_module(tmp_path, signal.SIGTERM, monkeypatch)
    imported = []
    try:
        with pytest.raises(Aborted):
            with stop.signals_stop():
                imported.append(importlib.import_module(name).finished)
                stop.check()  # as the steps before a commit do
    finally:
        sys.modules.pop(name, None)
    assert imported == [True] and not stop.requested()


def test_sigterm_during_a_log_write_leaves_the_log_call_as_aborted(capsys):
    """logging prints the traceback of an exception raised while it writes a record, and goes on."""
    import io
    import logging
    import os

    from pipeline import logs, stop
    from pipeline.errors import Aborted

    class Signalling(io.StringIO):  # the signal arrives while the record is being written
        def write(self, text):
            if "SIGTERM now" in text:
                os.kill(os.getpid(), signal.SIGTERM)
            return super().write(text)

    logger = logging.getLogger("casefile.test_log_write")
    logger.propagate = False
    handler = logs.StreamHandler(Signalling())
    logger.addHandler(handler)
    went_on = []
    try:
        with pytest.raises(Aborted):
            with stop.signals_stop():
                logger.warning("SIGTERM now")
                went_on.append("past the log call")
    finally:
        logger.removeHandler(handler)
    assert went_on == [] and "Logging error" not in capsys.readouterr().err


def test_a_stop_asked_before_a_signals_stop_block_ends_it_before_it_starts():
    """A Ctrl-C noted during an import before the block: the block does not run."""
    from pipeline import stop

    stop.request(interrupt=True)
    ran = []
    with pytest.raises(KeyboardInterrupt):
        with stop.signals_stop():
            ran.append("the block")
    assert ran == [] and not stop.requested()


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 75)])
def test_a_signal_at_any_moment_of_a_command_s_start_stops_it_and_changes_nothing(data_dir, signum, code):
    """Ctrl-C, or SIGTERM as a scheduler stops a job, at spread moments of a sync's first second:
    the imports (DuckDB's extension among them), the fetch, the load. Each exits 130 (Ctrl-C) or 75
    (SIGTERM), leaves the warehouse as it was and no run folder incomplete; only a signal that
    comes in Python's own start-up, before casefile's code runs, ends the process Python's way
    (killed by the signal, or exit 1 from its site packages after Ctrl-C), with no line of
    casefile's and no run folder."""
    started = time.monotonic()
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    whole = time.monotonic() - started  # in this process; a new one also starts Python and imports
    before, runs_before = state(data_dir), set(_statuses(data_dir))
    pythons_way = {-signum, 1} if signum == signal.SIGINT else {-signum}
    outcomes = []
    for i in range(12):
        proc = start(data_dir, "-q", "sync", "--offline")
        time.sleep(0.06 + i * max(whole, 0.5) / 20)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        made = [status for run_id, status in _statuses(data_dir).items() if run_id not in runs_before]
        runs_before |= set(_statuses(data_dir))
        outcomes.append((proc.returncode, made, err[-300:]))
        assert proc.returncode == code or \
            (proc.returncode in pythons_way and "casefile:" not in err and not made), outcomes
        assert "Critical" not in err and "internal error" not in err and "incomplete" not in made, outcomes
        assert state(data_dir) == before, outcomes
    assert sum(c == code for c, _, _ in outcomes) >= 9, outcomes  # not all of them in Python's start-up


def test_a_signal_once_the_command_has_its_exit_code_changes_nothing(data_dir):
    """A SIGTERM or Ctrl-C that comes as the process exits, its command done: Python's finalization
    put back SIGTERM's default action, and the process ended by the signal (143 in a shell) with
    the command's whole output written. The signals are sent here right after ``entry.run``
    returns, where finalization would meet them."""
    script = ("import os, signal, sys\n"
              "from pipeline.entry import run\n"
              "sys.argv = ['casefile', 'status', '--format', 'csv']\n"
              "code = run()\n"
              "os.kill(os.getpid(), signal.SIGTERM)\n"
              "os.kill(os.getpid(), signal.SIGINT)\n"
              "print('exit', code, flush=True)\n"
              "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env=subprocess_env(data_dir))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("table,rows\n") and done.stdout.endswith("exit 0\n")


@pytest.mark.parametrize("signum, code, said", [(signal.SIGINT, 130, "casefile: interrupted"),
                                                (signal.SIGTERM, 75, "casefile: error: stopped by SIGTERM")])
def test_a_signal_during_a_query_of_any_command_stops_it(sample_warehouse, capsys, signum, code, said):
    """`casefile sql` with a query Ctrl-C or SIGTERM stops: exit 130 or 75 and one line, not an
    internal error; the command puts back the handlers it found."""
    import os
    import threading

    handler = signal.getsignal(signum)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signum))
    timer.start()
    exit_code = main(["--data-dir", str(sample_warehouse), "sql",
                      "SELECT count(*) FROM range(3000000000) AS t(i) WHERE i % 7 = 3"])
    timer.join()
    err = capsys.readouterr().err
    assert exit_code == code, err
    assert err.strip() == said
    assert signal.getsignal(signum) is handler


def test_doctor_exits_75_while_a_writer_holds_the_warehouse(data_dir, capsys):
    from conftest import run_cli

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    writer = duckdb.connect(str(db_of(data_dir)))  # holds the file as a sync does
    try:
        result = run_cli(["doctor", "--format", "json"], data_dir, CASEFILE_READER_WAIT="1")
    finally:
        writer.close()
    assert result.returncode == 75, result.stdout + result.stderr
    failing = [f for f in json.loads(result.stdout) if f["level"] == "fail"]
    assert len(failing) == 1 and failing[0]["area"] == "warehouse" and "is busy" in failing[0]["finding"]


def test_a_retired_ruling_was_last_seen_in_the_sync_before_its_removal_not_in_a_rules_ingest(data_dir):
    """Constructed: run 1 is the sample (API only); then the rules excerpt is ingested; run 2 is
    the sample with the last ruling of Case of the Gorgon's Kiss removed. The removed ruling was
    last seen in run 1: the rules ingest between the two syncs read no card and no ruling."""
    run1 = EditableRun(data_dir.parent / "run1", sources=["api"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api"])
    run2.edit_rulings("Case of the Gorgon's Kiss", lambda rulings: rulings.pop())
    excerpt = FIXTURES / "rules" / "cr_case_excerpt.txt"
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run1.path)]) == 0
    assert main(["--data-dir", str(data_dir), "-q", "rules", "ingest", str(excerpt)]) == 0
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run2.path)]) == 0
    (first, _), (ingest, _), (second, _) = sql(data_dir, "SELECT run_id, mode FROM sync_run ORDER BY run_id")
    assert sql(data_dir, "SELECT mode FROM sync_run WHERE run_id = ?", [ingest]) == [("ingest",)]
    expected = [(first, first, second)]
    assert sql(data_dir, "SELECT first_seen_run, last_seen_run, removed_in_run FROM retired_ruling") == expected
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    assert sql(data_dir, "SELECT first_seen_run, last_seen_run, removed_in_run FROM retired_ruling") == expected


def test_a_ruling_that_moves_from_one_card_to_another_is_one_event(data_dir, capsys):
    """Constructed: run 1 is the sample (API only); run 2 is the same with the last ruling of Case
    of the Gorgon's Kiss moved, word for word, to Case of the Market Melee's rulings list. The
    ruling keeps its id (same source, date and text) and both cards stay: one
    ``ruling_cards_changed`` event says which card it left and which it joined."""
    run1 = EditableRun(data_dir.parent / "run1", sources=["api"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api"])
    moved = {}

    def take(rulings):
        moved["ruling"] = rulings.pop()

    def give(rulings):
        rulings.append({**moved["ruling"], "oracle_id": run2.oracle_id("Case of the Market Melee")})

    run2.edit_rulings("Case of the Gorgon's Kiss", take)
    run2.edit_rulings("Case of the Market Melee", give)
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    [(ruling_id,)] = sql(data_dir, "SELECT ruling_id FROM ruling WHERE text = ?", [moved["ruling"]["comment"]])
    assert [(e["kind"], e["id"], e["field"], e["before"], e["after"]) for e in events] == [
        ("ruling_cards_changed", ruling_id, "cards", "Case of the Gorgon's Kiss", "Case of the Market Melee")]
    assert events[0]["card"] == "Case of the Gorgon's Kiss; Case of the Market Melee"
    history = sql(data_dir, "SELECT * FROM change_event ORDER BY ALL")
    assert main(["--data-dir", str(data_dir), "-q", "rebuild"]) == 0
    assert sql(data_dir, "SELECT * FROM change_event ORDER BY ALL") == history


def test_a_ruling_that_leaves_a_renamed_card_names_it_as_the_run_does(data_dir, capsys):
    """Constructed: run 1 is the sample (API only); in run 2 Case of the Gorgon's Kiss is renamed
    (every printing's name, a test-only name) and its last ruling moved to Case of the Market
    Melee. The ruling_cards_changed event names the card by the name the run gives it, as the
    card_changed event and the card column of the listing do."""
    new_name = "Case of the Renamed Kiss"
    run1 = EditableRun(data_dir.parent / "run1", sources=["api"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api"])
    moved = {}
    run2.edit_rulings("Case of the Gorgon's Kiss", lambda rulings: moved.setdefault("ruling", rulings.pop()))
    run2.edit_rulings("Case of the Market Melee", lambda rulings: rulings.append(
        {**moved["ruling"], "oracle_id": run2.oracle_id("Case of the Market Melee")}))
    [search] = run2.entries("search")
    page = run2.read(search)
    for card in page["data"]:
        if card["name"] == "Case of the Gorgon's Kiss":
            card["name"] = new_name
    run2.write(search, page)
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = {e["kind"]: e for e in json.loads(capsys.readouterr().out)}
    assert events["card_changed"]["after"] == new_name
    assert events["ruling_cards_changed"]["before"] == new_name
    assert new_name in events["ruling_cards_changed"]["card"].split("; ")


def test_the_rulings_of_a_removed_card_still_name_it(data_dir, capsys):
    """Constructed: run 1 is the sample (API only); run 2 is the same without Case of the Stashed
    Skeleton (its printings and its rulings list dropped). Its five rulings, its own only, go with
    it: their removal, and their addition in run 1, name the card the warehouse no longer holds."""
    gone = "Case of the Stashed Skeleton"
    run1 = EditableRun(data_dir.parent / "run1", sources=["api"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api"])
    run2.drop_card(gone)
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert [e["kind"] for e in events] == ["card_removed"] + ["ruling_removed"] * 5
    assert {e["card"] for e in events} == {gone}
    assert main(["--data-dir", str(data_dir), "changes", "--since", "2000-01-01", "--format", "json"]) == 0
    added = [e for e in json.loads(capsys.readouterr().out)
             if e["kind"] == "ruling_added" and e["id"] in {x["id"] for x in events}]
    assert len(added) == 5 and {e["card"] for e in added} == {gone}


def test_a_run_that_changes_printings_only_is_not_said_to_change_nothing(data_dir, capsys):
    """Constructed: run 1 is the sample (API only); run 2 is the same without one Japanese
    printing of a card that keeps its other printings. The run changed rows (status ok, one
    printing removed) but no card, ruling or translation: `changes` says so, not "no changes"."""
    run1 = EditableRun(data_dir.parent / "run1", sources=["api"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api"])
    [search] = run2.entries("search")
    page = run2.read(search)
    printing = next(c for c in page["data"] if c["lang"] == "ja")
    assert sum(c["oracle_id"] == printing["oracle_id"] for c in page["data"]) > 1
    page["data"].remove(printing)
    page["total_cards"] = len(page["data"])
    run2.write(search, page)
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    last = sql(data_dir, "SELECT status, removed FROM sync_run ORDER BY run_id DESC LIMIT 1")
    assert last[0][0] == "ok" and last[0][1] >= 1
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes"]) == 0
    out = capsys.readouterr().out
    assert out == ("no change to cards, rulings or translations in 1 run(s); 1 of them changed other rows "
                   "(printings, sets, sightings, the order of a card's rulings)\n")


def test_a_ruling_whose_text_changes_but_not_its_words_is_a_ruling_text_changed_event(data_dir, capsys):
    """Constructed: run 2 is the sample (API only) with one ruling's quotes made straight and its
    first words upper case. Its match key, so its id, stays; the text the warehouse stores (and
    an export publishes) changed, where `changes` said no ruling did."""
    run1 = EditableRun(data_dir.parent / "run1", sources=["api"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api"])

    def retype(rulings):
        ruling = next(r for r in rulings if r["comment"].startswith("The copy is created on the stack"))
        ruling["comment"] = ruling["comment"].replace("’", "'").replace("“", '"').replace("”", '"') \
            .replace("The copy", "THE COPY")

    run2.edit_rulings("Case of the Shifting Visage", retype)
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    [event] = json.loads(capsys.readouterr().out)
    assert (event["kind"], event["field"]) == ("ruling_text_changed", "text")
    assert event["before"].startswith("The copy is created on the stack") and "’" in event["before"]
    assert event["after"].startswith("THE COPY is created on the stack") and "’" not in event["after"]
    assert event["card"] == "Case of the Shifting Visage"
    [(stored,)] = sql(data_dir, "SELECT text FROM ruling WHERE ruling_id = ?", [event["id"]])
    assert stored == event["after"]
    assert sql(data_dir, "SELECT count(*) FROM retired_ruling") == [(0,)]  # the ruling stays, under its id


def test_a_retired_ruling_on_no_card_has_an_empty_list_of_cards_as_its_event_has(data_dir):
    """Constructed: run 2 is the sample (the API and the MTG wiki) with one of the wiki's own
    rulings, which are on no card, taken out of its page. Its event said cards [], its
    retired_ruling row oracle_ids NULL."""
    run1 = EditableRun(data_dir.parent / "run1", sources=["api", "wiki"])
    run2 = EditableRun(data_dir.parent / "run2", sources=["api", "wiki"])
    [wiki] = [e for e in run2.entries("page") if e["origin"] == "mtgwiki"]
    page = (run2.path / wiki["path"]).read_bytes()
    gone = b"The first ability of a Case is always active."
    start = page.rindex(b"<li", 0, page.index(gone))
    run2.write_bytes(wiki, page[:start] + page[page.index(b"</li>", start) + len(b"</li>"):])
    for run in (run1, run2):
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    [(event_cards,)] = sql(data_dir, "SELECT cards FROM change_event WHERE kind = 'ruling_removed'")
    [(text, retired_cards)] = sql(data_dir, "SELECT text, oracle_ids FROM retired_ruling")
    assert text == gone.decode() and event_cards == retired_cards == []


def test_the_sync_lock_is_taken_and_let_go_where_its_pid_cannot_be_written():
    """/dev/full answers every write with ENOSPC, as a disk full to its last block does (and refuses
    a truncate). The lock wrote its holder's pid unguarded: on a full disk every writer, the prune
    that would free space included, ended in a traceback (exit 1) instead of holding the lock."""
    from pathlib import Path

    from pipeline.lock import SyncLock, _take

    full = Path("/dev/full")
    with SyncLock(full), open(full, "a+") as other:
        with pytest.raises((BlockingIOError, PermissionError)):  # held all the same: another open file is refused
            _take(other.fileno())
    with SyncLock(full):  # and let go
        pass
