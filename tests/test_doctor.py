"""`casefile doctor`'s finding on how the newest runs ended (area ``runs``).

The runs are made in a temporary raw store by the raw store's own writer, with run ids chosen at
set times before NOW and reasons written for the test (CONSTRUCTED, no fetch); the end-to-end test
of the same finding after real failed syncs is in tests/test_sync_live.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from pipeline.doctor import REASON_CHARS, _age, _last_runs
from pipeline.rawstore import RawStore, mark_rejected, new_run_id, read_run

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=timezone.utc)


def _run(store: RawStore, ago: timedelta, outcome: str, reason: str = "TryAgainLater: gave up after 5 attempts",
         query: str | None = "q", **more):
    meta = {"query": query, "sources": ["api"]} if query is not None else {"mode": "ingest", "sources": ["rules"]}
    meta.update(more)
    writer = store.new_run(meta, run_id=new_run_id(NOW - ago))
    if outcome in ("complete", "rejected"):
        writer.finish({})
    if outcome == "rejected":
        mark_rejected(read_run(writer.path), reason)
    elif outcome in ("failed", "aborted"):
        writer.fail(reason, status=outcome)
    return writer.run_id


def _findings(store: RawStore):
    return [(f.level, f.area, f.message) for f in _last_runs(store.runs(), NOW)]


def test_a_store_whose_newest_run_completed_says_how_long_ago_it_started(tmp_path):
    store = RawStore(tmp_path)
    _run(store, timedelta(days=3), "failed")  # before the last complete run: over
    kept = _run(store, timedelta(hours=5, minutes=59), "complete")
    assert _findings(store) == [("ok", "runs", f"sync q: last complete run {kept}, 5 hours ago")]


def test_the_runs_that_ended_since_the_last_complete_one_are_counted_and_the_newest_s_reason_told(tmp_path):
    store = RawStore(tmp_path)
    kept = _run(store, timedelta(days=2, hours=1), "complete")
    first = _run(store, timedelta(days=1), "failed", "first reason")
    _run(store, timedelta(hours=12), "rejected", "a check failed")
    _run(store, timedelta(minutes=1, seconds=5), "incomplete")  # has a finding of its own (raw)
    newest = _run(store, timedelta(seconds=30), "aborted", "Aborted: stopped by SIGTERM\n  during the load")
    [(level, area, message)] = _findings(store)
    assert (level, area) == ("warn", "runs")
    assert message == (f"sync q: 3 runs did not complete, from {first}; last complete run {kept}, 2 days ago; "
                       f"the newest, {newest}, aborted: Aborted: stopped by SIGTERM during the load")


def test_one_failed_run_and_none_complete(tmp_path):
    store = RawStore(tmp_path)
    assert _findings(store) == []  # no run at all: nothing to say
    _run(store, timedelta(minutes=2), "incomplete")
    assert _findings(store) == []
    failed = _run(store, timedelta(minutes=1), "failed", "x" * (REASON_CHARS + 50))
    [(level, _, message)] = _findings(store)
    assert level == "warn"
    assert message == f"sync q: run {failed} failed; no complete run yet: {'x' * (REASON_CHARS - 1)}…"


def test_each_query_and_the_rules_ingests_are_told_apart(tmp_path):
    """A failing query is not hidden by another query's newer complete runs, nor by an ingest's."""
    store = RawStore(tmp_path)
    case = _run(store, timedelta(days=1), "complete", query='type:"Case"')
    failed = _run(store, timedelta(hours=2), "failed", "TryAgainLater: 503", query='type:"Case"')
    everything = _run(store, timedelta(hours=1), "complete", query="*")
    ingest = _run(store, timedelta(minutes=30), "complete", query=None)
    assert _findings(store) == [
        ("ok", "runs", f"rules ingest: last complete run {ingest}, 30 minutes ago"),
        ("ok", "runs", f"sync *: last complete run {everything}, 1 hour ago"),
        ("warn", "runs", f'sync type:"Case": run {failed} failed; last complete run {case}, 1 day ago: '
                         "TryAgainLater: 503")]


def test_an_age_is_told_in_its_largest_whole_unit():
    assert [_age(timedelta(seconds=s)) for s in (-5, 59, 60, 3599, 7200, 86_399, 86_400, 10 * 86_400 + 5)] == [
        "0 minutes", "0 minutes", "1 minute", "59 minutes", "2 hours", "23 hours", "1 day", "10 days"]


def test_a_page_source_the_newest_complete_run_left_out_is_warned_of_with_the_run_its_rulings_are_from(tmp_path):
    """run.json's ``left_out`` as a sync writes it (``sources`` without the source, and why); the
    runs and reasons are constructed. Left out day after day, the warning names the last run that
    brought the source's rulings and how old it is."""
    store = RawStore(tmp_path)
    why, robots = "none of its pages answered with the page, where earlier runs found them", "robots.txt said no"
    both = _run(store, timedelta(days=3, hours=2), "complete", sources=["api", "wiki", "listeblanche"])
    wiki = _run(store, timedelta(days=2), "complete", sources=["api", "wiki"], left_out={"listeblanche": why})
    _run(store, timedelta(hours=2), "failed")  # not complete: the newest complete run is the one before
    newest = _run(store, timedelta(days=1), "complete", sources=["api"], left_out={"listeblanche": why, "wiki": robots})
    assert _findings(store)[1:] == [
        ("warn", "runs", f"sync q: listeblanche left out of the newest complete run, {newest} ({why}); "
                         f"its rulings are those of run {both}, 3 days ago"),
        ("warn", "runs", f"sync q: wiki left out of the newest complete run, {newest} ({robots}); "
                         f"its rulings are those of run {wiki}, 2 days ago")]
    back = _run(store, timedelta(hours=1), "complete", sources=["api", "wiki", "listeblanche"])
    assert _findings(store) == [("ok", "runs", f"sync q: last complete run {back}, 1 hour ago")]


def test_a_source_no_complete_run_brought_is_said_to_have_none(tmp_path):
    store = RawStore(tmp_path)
    newest = _run(store, timedelta(minutes=5), "complete", left_out={"scryfall-page": "why"})
    assert _findings(store)[1:] == [
        ("warn", "runs", f"sync q: scryfall-page left out of the newest complete run, {newest} (why); "
                         "no complete run brought its rulings")]


def test_pages_the_newest_run_read_from_earlier_copies_are_warned_of_with_the_oldest_copy_s_age(tmp_path):
    """A page fetched five days ago (a constructed body), then carried by the next run, as a sync
    carries a page robots.txt keeps it from (``RunWriter.save_carried``)."""
    from pipeline.wire import Response

    store = RawStore(tmp_path)
    fetched_at = (NOW - timedelta(days=5)).isoformat().replace("+00:00", "Z")
    meta = {"query": "q", "sources": ["api", "listeblanche"]}
    first = store.new_run(meta, run_id=new_run_id(NOW - timedelta(days=5)))
    page = first.save(Response("https://listeblanche.fr/carte/x", "https://listeblanche.fr/carte/x", 200,
                               {"content-type": "text/html"}, b"<html>constructed</html>", fetched_at),
                      "listeblanche", "page", key="oracle-x")
    first.finish({})
    second = store.new_run(meta, run_id=new_run_id(NOW - timedelta(hours=3)))
    second.save_carried(read_run(first.path), page, "robots.txt disallows it")
    second.finish({})
    assert _findings(store) == [
        ("ok", "runs", f"sync q: last complete run {second.run_id}, 3 hours ago"),
        ("warn", "runs", f"sync q: 1 page(s) the newest complete run, {second.run_id}, did not fetch (robots.txt) are "
                         "read from their earlier copies, the oldest fetched 5 days ago")]


def test_pages_the_newest_complete_run_found_gone_are_warned_of_three_by_name(tmp_path):
    """run.json's ``gone`` as a sync writes it (constructed URLs): each source's pages that answered
    404 or 410 where the last run to ask for them found the page; three are named, the rest counted.
    A value of another shape (a run.json edited by hand) is passed over. A later complete run without
    ``gone`` ends the warning."""
    store = RawStore(tmp_path)
    urls = [f"https://listeblanche.fr/carte/x/{n}" for n in range(5)]
    newest = _run(store, timedelta(hours=2), "complete", sources=["api", "listeblanche", "scryfall-page"],
                  gone={"listeblanche": urls, "scryfall-page": "not a list"})
    assert _findings(store)[1:] == [
        ("warn", "runs", f"sync q: 5 page(s) of listeblanche answered without the page in the newest complete run, "
                         f"{newest}, "
                         "where the last run to ask for them found the page: their cards' rulings from listeblanche "
                         f"are no longer served ({', '.join(urls[:3])} …)")]
    _run(store, timedelta(hours=1), "complete", gone=["not", "a", "dict"])
    assert len(_findings(store)) == 1
    later = _run(store, timedelta(minutes=30), "complete")
    assert _findings(store) == [("ok", "runs", f"sync q: last complete run {later}, 30 minutes ago")]
