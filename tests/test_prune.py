"""`casefile prune`: which runs go, what stays, and that the warehouse still matches its raw store.

The runs of the plan tests are constructed in a temporary raw store (bodies are small JSON texts
made up for the test, run ids chosen to be days apart); the end-to-end tests sync the bundled
sample.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import main
from pipeline.lock import SyncLock
from pipeline.formats import human_bytes
from pipeline.prune import CURRENT, RECENT, RULES, bytes_freed, plan, prune, run_time
from pipeline.rawstore import DELETING, RawStore, new_run_id, read_manifest
from pipeline.wire import Response

from conftest import subprocess_env
from support.warehouse_state import fingerprints, query, warehouse_of

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def _response(url: str, body: bytes) -> Response:
    return Response(url=url, final_url=url, status=200, headers={"content-type": "application/json"},
                    body=body, fetched_at="2026-12-01T00:00:00Z")


def _run(store: RawStore, days_ago: float, query: str = "q", sources=("api",), docs=(), status: str = "complete"):
    """A run started ``days_ago`` before NOW, holding ``docs`` ((url, body) pairs)."""
    writer = store.new_run({"query": query, "sources": list(sources)}, run_id=new_run_id(NOW - timedelta(days=days_ago)))
    for url, body in docs:
        writer.save(_response(url, body), "scryfall-api", "search")
    if status == "complete":
        writer.finish({})
    elif status == "failed":
        writer.fail("boom")
    return writer.run_id


def _decisions(store: RawStore, keep_days: int = 30):
    decided = plan(store.runs(), NOW, keep_days)
    return {d.run.run_id: (d.keep, d.reason) for d in decided.decisions}, decided


def test_old_superseded_and_failed_runs_go_and_current_rules_and_recent_runs_stay(tmp_path):
    store = RawStore(tmp_path)
    oldest = _run(store, 60)
    rules = _run(store, 59, query="", sources=("rules",))
    superseded = _run(store, 50)
    failed = _run(store, 40, status="failed")
    other_query = _run(store, 45, query="t:case")
    recent_superseded = _run(store, 10)
    unfinished = _run(store, 5, status="incomplete")
    current = _run(store, 3)
    old_unfinished = _run(store, 35, status="incomplete")

    got, decided = _decisions(store)

    assert got == {
        oldest: (False, "superseded"), rules: (True, RULES), superseded: (False, "superseded"),
        failed: (False, "failed"), other_query: (True, CURRENT), recent_superseded: (True, RECENT),
        unfinished: (True, RECENT), current: (True, CURRENT), old_unfinished: (False, "incomplete"),
    }
    assert [r.run_id for r in decided.doomed] == sorted([oldest, superseded, failed, old_unfinished])


def test_keep_days_zero_keeps_only_what_the_warehouse_is_built_from(tmp_path):
    store = RawStore(tmp_path)
    first, second = _run(store, 0.5), _run(store, 0.1)
    got, _ = _decisions(store, keep_days=0)
    assert got == {first: (False, "superseded"), second: (True, CURRENT)}


def test_a_run_started_exactly_keep_days_ago_is_not_older_than_that_and_stays(tmp_path):
    """Constructed runs: "more than --keep-days days ago" leaves out a run started exactly then;
    a run one second older goes, and one whose id is in the future (a clock set back) stays."""
    store = RawStore(tmp_path)
    older = _run(store, 30 + 1 / 86_400)
    at_the_boundary = _run(store, 30)
    ahead = _run(store, -1)
    current = _run(store, -2)
    got, _ = _decisions(store, keep_days=30)
    assert got == {older: (False, "superseded"), at_the_boundary: (True, RECENT), ahead: (True, RECENT),
                   current: (True, CURRENT)}


def test_after_a_clock_that_ran_ahead_runs_are_aged_by_when_they_started(tmp_path):
    """Constructed runs: the clock ran 400 days ahead for one run; the runs after it, the clock
    right again, took the ids just after that one (the newest id comes last). Aged by their ids,
    they all looked recent until the clock caught up: no prune deleted any, for 400 days. Their
    run.json says when they started."""
    store = RawStore(tmp_path)

    def run(started: datetime, run_id: str) -> str:
        writer = store.new_run({"query": "q", "sources": ["api"], "started_at": started.isoformat()}, run_id=run_id)
        writer.finish({})
        return writer.run_id

    ahead_at = NOW - timedelta(days=40) + timedelta(days=400)
    ahead = run(ahead_at, new_run_id(ahead_at))
    after = run(NOW - timedelta(days=35), new_run_id(ahead_at + timedelta(microseconds=1)))
    current = run(NOW - timedelta(days=1), new_run_id(ahead_at + timedelta(microseconds=2)))
    got, _ = _decisions(store, keep_days=30)
    assert got == {ahead: (True, RECENT), after: (False, "superseded"), current: (True, CURRENT)}
    assert run_time(store.runs()[1]) == NOW - timedelta(days=35)


def test_a_document_a_deleted_run_shares_with_kept_ones_goes_to_the_oldest_kept_copy(tmp_path):
    store = RawStore(tmp_path)
    same = ("https://api.scryfall.com/sets", b'{"object":"list","data":[]}')
    _run(store, 60, docs=[same, ("https://api.scryfall.com/cards/search?q=a", b'{"v":1}')])
    _run(store, 50, docs=[same, ("https://api.scryfall.com/cards/search?q=a", b'{"v":2}')])
    recent = _run(store, 10, docs=[same, ("https://api.scryfall.com/cards/search?q=a", b'{"v":3}')])
    _run(store, 1, docs=[same, ("https://api.scryfall.com/cards/search?q=a", b'{"v":4}')])
    _, decided = _decisions(store)
    [entry] = [e for e in read_manifest(store.runs()[2]) if e.url == same[0]]
    assert decided.moves == [{"doc_id": entry.doc_id, "path": f"{recent}/{entry.path}"}]


def test_a_file_linked_into_a_kept_run_frees_nothing(tmp_path):
    doomed, kept = tmp_path / "doomed", tmp_path / "kept"
    doomed.mkdir(), kept.mkdir()
    (doomed / "own").write_bytes(b"x" * 1000)
    (doomed / "shared").write_bytes(b"y" * 5000)
    os.link(doomed / "shared", kept / "shared")
    (doomed / "twice").write_bytes(b"z" * 300)
    os.link(doomed / "twice", doomed / "twice-again")
    assert bytes_freed([doomed]) == 1300


@pytest.fixture
def synced(data_dir: Path, cli):
    for _ in range(2):
        done = cli("sync", "--offline")
        assert done.returncode == 0, done.stderr
    return [r.run_id for r in RawStore(data_dir / "raw").runs()]


def test_prune_deletes_the_superseded_run_and_the_warehouse_still_matches_a_rebuild(data_dir, cli, synced):
    first, second = synced
    before = fingerprints(data_dir)

    done = cli("--log-format", "json", "prune", "--keep-days", "0")

    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["deleted"] == [first] and summary["kept"] == {CURRENT: 1}
    assert summary["documents_repointed"] > 0 and summary["bytes_freed"] > 0
    assert [r.run_id for r in RawStore(data_dir / "raw").runs()] == [second]
    # every document row names a file that is there
    for (path,) in query(warehouse_of(data_dir), "SELECT path FROM raw_document"):
        assert (data_dir / "raw" / path).is_file(), path
    assert cli("doctor").returncode == 0
    after_prune = fingerprints(data_dir)
    # the prune changes no row but the paths of the documents it repointed
    assert {t: v for t, v in after_prune.items() if t != "raw_document"} == \
        {t: v for t, v in before.items() if t != "raw_document"}
    rebuilt = cli("rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    after = fingerprints(data_dir)
    for table in ("card", "printing", "ruling", "card_ruling", "ruling_sighting", "card_set"):
        assert after[table] == before[table], table


def _free_blocks(target: Path) -> None:
    """CONSTRUCTED: 20 MB of blocks left free inside the warehouse file, as a weekly prune's
    repointed sightings and the checkpoints of months of daily syncs leave them (bench/FINDINGS.md,
    "Months of daily syncs"): a table of padding, a small one written after it, the padding
    dropped. The small one stays (``tail``): the tables of casefile are compared apart from it."""
    con = duckdb.connect(str(target))
    try:
        con.execute("CREATE TABLE padding AS SELECT md5(CAST(i AS VARCHAR)) || md5(CAST(-i AS VARCHAR)) AS t "
                    "FROM range(640000) AS r(i)")
        con.execute("CHECKPOINT")
        con.execute("CREATE TABLE tail AS SELECT md5(CAST(i AS VARCHAR)) AS t FROM range(20000) AS r(i)")
        con.execute("CHECKPOINT")
        con.execute("DROP TABLE padding")
        con.execute("CHECKPOINT")
        total, free, block = con.execute("SELECT total_blocks, free_blocks, block_size FROM pragma_database_size()").fetchone()
        assert free > total / 2 and free * block > 16 * 2**20, (total, free)
    finally:
        con.close()


TABLE_DDL = "SELECT table_name, sql, comment FROM duckdb_tables() ORDER BY table_name"


def test_a_prune_gives_back_the_blocks_the_warehouse_freed_and_keeps_its_rows(data_dir, cli, synced):
    target = warehouse_of(data_dir)
    _free_blocks(target)
    size, before, ddl = target.stat().st_size, fingerprints(data_dir), query(target, TABLE_DDL)

    done = cli("--log-format", "json", "prune", "--keep-days", "0")

    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["deleted"] == [synced[0]]
    assert summary["warehouse_compacted"] == {"bytes_before": size, "bytes_after": target.stat().st_size}
    assert target.stat().st_size < size / 2
    # the prune changes no row but the paths of the documents it repointed
    after = fingerprints(data_dir)
    assert {t: v for t, v in after.items() if t != "raw_document"} == \
        {t: v for t, v in before.items() if t != "raw_document"}
    # the columns' compression (ruling.text uncompressed, for the search) and the tables' comments
    # (the derived tables' marks) are the old file's
    assert query(target, TABLE_DDL) == ddl
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]
    assert cli("doctor").returncode == 0
    assert cli("sync", "--offline").returncode == 0


def test_a_prune_says_how_far_it_compacted_the_warehouse(data_dir, cli, synced):
    _free_blocks(warehouse_of(data_dir))
    done = cli("prune", "--keep-days", "0")
    assert done.returncode == 0, done.stderr
    assert re.search(r"; warehouse compacted from [\d.]+ MB to [\d.]+ [KM]B$", done.stdout.strip()), done.stdout


def test_a_prune_leaves_a_warehouse_of_few_free_blocks_as_it_is(data_dir, cli, synced):
    target = warehouse_of(data_dir)
    inode = target.stat().st_ino
    done = cli("--log-format", "json", "prune", "--keep-days", "0")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["warehouse_compacted"] is None and target.stat().st_ino == inode


def test_a_copy_of_the_warehouse_that_fails_leaves_it_as_it_was_and_the_prune_done(data_dir, cli, synced):
    """CONSTRUCTED: a folder where the copy goes (``casefile.duckdb.compact``), so that making the
    copy fails, as a full disk fails it, once the runs are deleted. The prune ended with that error
    although it had done its work; now it warns and exits 0, the warehouse whole as it was."""
    target = warehouse_of(data_dir)
    _free_blocks(target)
    blocker = target.with_name(target.name + ".compact")
    blocker.mkdir()
    (blocker / "x").write_text("x")
    size, before = target.stat().st_size, fingerprints(data_dir)

    done = cli("--log-format", "json", "prune", "--keep-days", "0")

    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["deleted"] == [synced[0]] and summary["warehouse_compacted"] is None
    assert "the warehouse was not compacted" in done.stderr and "the next prune" in done.stderr
    assert target.stat().st_size == size
    after = fingerprints(data_dir)
    assert {t: v for t, v in after.items() if t != "raw_document"} == \
        {t: v for t, v in before.items() if t != "raw_document"}
    assert cli("sync", "--offline").returncode == 0


def test_a_prune_killed_before_its_copy_replaces_the_warehouse_leaves_it_whole_and_doctor_says_so(
        data_dir, cli, synced):
    """kill -9 between the copy's making and its rename (``before_replace``): the warehouse is the
    old file, whole; the copy (as large) stays until the next prune that deletes runs, and doctor
    warns of it, as it warns of a rebuild's."""
    target = warehouse_of(data_dir)
    _free_blocks(target)
    size, before = target.stat().st_size, fingerprints(data_dir)
    copy = target.with_name(target.name + ".compact")

    killed = cli("prune", "--keep-days", "0", CASEFILE_FAILPOINT="before_replace:kill")

    assert killed.returncode == -signal.SIGKILL
    assert copy.is_file() and target.stat().st_size == size
    after = fingerprints(data_dir)
    assert {t: v for t, v in after.items() if t != "raw_document"} == \
        {t: v for t, v in before.items() if t != "raw_document"}
    warned = [f["finding"] for f in json.loads(cli("doctor", "--format", "json").stdout) if f["level"] == "warn"]
    assert any(w.startswith("a prune that did not finish left casefile.duckdb.compact (") for w in warned), warned
    for _ in range(2):  # runs for the next prune to delete
        assert cli("sync", "--offline").returncode == 0
    assert cli("prune", "--keep-days", "0").returncode == 0
    assert not copy.exists()


def test_a_dry_run_leaves_the_warehouse_file_as_it_is(data_dir, cli, synced):
    target = warehouse_of(data_dir)
    _free_blocks(target)
    inode, size = target.stat().st_ino, target.stat().st_size
    done = cli("--log-format", "json", "prune", "--keep-days", "0", "--dry-run")
    assert json.loads(done.stdout)["warehouse_compacted"] is None
    assert (target.stat().st_ino, target.stat().st_size) == (inode, size)


def test_a_prune_never_deletes_the_only_intact_copy_of_a_document(data_dir, cli, synced):
    """Two syncs of the sample, then the second run's copy of a rulings list overwritten: the
    prune pointed the document at that copy and deleted the first run, whose copy was intact;
    from then on no rebuild could run. It deletes nothing now (65), naming both copies; once the
    file is restored from the first run's copy, it prunes."""
    first, second = synced
    [run] = [r for r in RawStore(data_dir / "raw").runs() if r.run_id == second]
    [entry] = [e for e in read_manifest(run) if e.path.endswith("00002-rulings.json")]
    damaged, intact = data_dir / "raw" / second / entry.path, data_dir / "raw" / first / entry.path
    assert not os.path.samefile(damaged, intact) and intact.read_bytes() == damaged.read_bytes()
    damaged.unlink()
    damaged.write_bytes(b"garbage\n")
    done = cli("prune", "--keep-days", "0")
    assert done.returncode == 65, done.stderr
    assert f"prune deleted nothing: {second}/{entry.path} does not match its manifest sha256" in done.stderr
    assert f"holds the same document intact ({first}/{entry.path})" in done.stderr
    assert [r.run_id for r in RawStore(data_dir / "raw").runs()] == synced
    damaged.write_bytes(intact.read_bytes())
    done = cli("prune", "--keep-days", "0")
    assert done.returncode == 0, done.stderr
    assert [r.run_id for r in RawStore(data_dir / "raw").runs()] == [second]
    assert cli("rebuild").returncode == 0


def test_a_prune_of_several_runs_finds_the_intact_copy_among_them(data_dir, cli, synced):
    """Three syncs: the newest run's copy and the oldest's changed, the middle one's intact. The
    prune looked at the first deleted run's copy only, found it changed too, and deleted both."""
    done = cli("sync", "--offline")
    assert done.returncode == 0, done.stderr
    runs = RawStore(data_dir / "raw").runs()
    [entry] = [e for e in read_manifest(runs[-1]) if e.path.endswith("00003-rulings.json")]
    for run in (runs[0], runs[-1]):
        (run.path / entry.path).unlink()
        (run.path / entry.path).write_bytes(b"garbage\n")
    done = cli("prune", "--keep-days", "0")
    assert done.returncode == 65, done.stderr
    assert f"holds the same document intact ({runs[1].run_id}/{entry.path})" in done.stderr
    assert [r.run_id for r in RawStore(data_dir / "raw").runs()] == [r.run_id for r in runs]


def test_a_dry_run_lists_the_runs_and_deletes_nothing(data_dir, cli, synced):
    first, _ = synced
    done = cli("prune", "--keep-days", "0", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"would delete {first} (superseded" in done.stdout
    assert "would delete 1 run(s)" in done.stdout
    assert [r.run_id for r in RawStore(data_dir / "raw").runs()] == synced


def test_by_default_a_month_of_runs_stays(data_dir, cli, synced):
    done = cli("prune")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("deleted 0 run(s) older than 30 day(s)")
    assert [r.run_id for r in RawStore(data_dir / "raw").runs()] == synced


def test_a_prune_killed_mid_deletion_leaves_whole_runs_and_the_next_one_finishes(data_dir, cli, synced):
    first, second = synced
    killed = cli("prune", "--keep-days", "0", CASEFILE_FAILPOINT="during_prune:kill")
    assert killed.returncode == -signal.SIGKILL
    raw = data_dir / "raw"
    assert (raw / f"{DELETING}{first}").is_dir()  # renamed, not yet removed
    assert [r.run_id for r in RawStore(raw).runs()] == [second]
    doctor = cli("doctor")
    assert doctor.returncode == 0, doctor.stdout  # a warning, not a failure
    assert "1 run folder(s) a prune did not finish deleting" in doctor.stdout

    again = cli("--log-format", "json", "prune", "--keep-days", "0")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["leftovers_removed"] == 1
    assert not (raw / f"{DELETING}{first}").exists()


def test_sigterm_during_a_prune_exits_75_and_the_next_prune_finishes_it(data_dir, cli, synced):
    first, second = synced
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "prune", "--keep-days", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=subprocess_env(data_dir, CASEFILE_FAILPOINT="during_prune:sleep=30"))
    raw = data_dir / "raw"
    deadline = time.monotonic() + 30
    while not (raw / f"{DELETING}{first}").exists() and time.monotonic() < deadline:  # renamed: at the failpoint
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 75, err
    assert "SIGTERM" in err and "Traceback" not in err
    assert [r.run_id for r in RawStore(raw).runs()] == [second]
    again = cli("--log-format", "json", "prune", "--keep-days", "0")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["leftovers_removed"] == 1 and not (raw / f"{DELETING}{first}").exists()
    assert cli("doctor").returncode == 0


def test_prune_waits_for_no_sync_it_exits_75_when_one_holds_the_lock(settings):
    with SyncLock(settings.lock_path):
        code = main(["--data-dir", str(settings.data_dir), "prune"])
    assert code == 75


@pytest.mark.parametrize("days", ["-1", "99999999", "a week"])
def test_a_keep_days_that_is_not_a_count_of_days_is_a_usage_error(data_dir, cli, days):
    done = cli("prune", "--keep-days", days)
    assert done.returncode == 2, done.stderr
    assert "--keep-days" in done.stderr and "Traceback" not in done.stderr


def test_a_second_prune_moves_the_rows_the_first_one_pointed_at_a_run_it_now_deletes(settings):
    """Three syncs of the same documents: the first prune deletes the oldest run and points the
    rows at the middle one (recent then); the next deletes that one too."""
    for _ in range(3):
        assert main(["--data-dir", str(settings.data_dir), "-q", "sync", "--offline"]) == 0
    oldest, middle, newest = RawStore(settings.raw_dir).runs()
    db = warehouse_of(settings.data_dir)
    folders = "SELECT DISTINCT split_part(path, '/', 1) FROM raw_document"

    between = run_time(oldest) + (run_time(middle) - run_time(oldest)) / 2
    first = prune(settings, keep_days=0, now=between)
    assert [r.run_id for r in first.plan.doomed] == [oldest.run_id] and first.repointed > 0
    assert query(db, folders) == [(middle.run_id,)]

    second = prune(settings, keep_days=0)
    assert [r.run_id for r in second.plan.doomed] == [middle.run_id] and second.repointed == first.repointed
    assert query(db, folders) == [(newest.run_id,)]
    assert all((settings.raw_dir / path).is_file() for (path,) in query(db, "SELECT path FROM raw_document"))


def test_the_runs_the_warehouse_is_built_from_stay_while_a_newer_run_waits_to_be_loaded(tmp_path):
    store = RawStore(tmp_path)
    loaded_view = _run(store, 60)
    waiting = _run(store, 40)  # complete, not loaded yet (a sync stopped after fetching it)
    got, _ = _decisions(store)
    assert got[loaded_view] == (False, "superseded")  # no warehouse: the raw store alone decides
    decided = plan(store.runs(), NOW, 30, loaded={loaded_view})
    assert {d.run.run_id: d.keep for d in decided.decisions} == {loaded_view: True, waiting: True}


def test_doctor_says_what_a_prune_would_free(settings, capsys):
    store = RawStore(settings.raw_dir)
    old = _run(store, 60, docs=[("https://api.scryfall.com/sets", b'{"object":"list","data":[]}')])
    _run(store, 50)
    assert main(["--data-dir", str(settings.data_dir), "doctor", "--format", "json"]) == 0  # a note, not a failure
    findings = [f["finding"] for f in json.loads(capsys.readouterr().out)]
    assert f"1 run(s) older than 30 days that no view needs hold {human_bytes(bytes_freed([store.root / old]))}; " \
           "`casefile prune` deletes them" in findings


def test_doctor_counts_as_a_prune_does_the_views_the_warehouse_holds(settings, capsys):
    """Constructed: the sample synced, then two runs of another query, 60 and 40 days old, the
    older recorded in sync_run as loaded (the newer one waits to be loaded). A prune keeps both;
    doctor's note must not count the older one as prunable."""
    assert main(["--data-dir", str(settings.data_dir), "-q", "sync", "--offline"]) == 0
    store = RawStore(settings.raw_dir)
    loaded_view = _run(store, 60)
    _run(store, 40)
    con = duckdb.connect(str(settings.warehouse_path))
    con.execute("INSERT INTO sync_run (run_id, status, mode) VALUES ($id, 'ok', 'live')", {"id": loaded_view})
    con.close()
    capsys.readouterr()
    main(["--data-dir", str(settings.data_dir), "doctor", "--format", "json"])
    findings = [f["finding"] for f in json.loads(capsys.readouterr().out)]
    assert not [f for f in findings if "`casefile prune` deletes them" in f]
    assert main(["--data-dir", str(settings.data_dir), "prune", "--dry-run"]) == 0
    assert "would delete 0 run(s)" in capsys.readouterr().out

