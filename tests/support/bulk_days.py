"""Days of bulk files for the delta tests: a day's card and ruling objects as dicts, edited by a
test, written as a complete offline run of the raw store, then loaded by syncs (a delta build for
each day after the first) and by a rebuild (full builds only).

The objects come from bench/generate.py's SYNTHETIC data at a small scale; no real card data is
invented.
"""

from __future__ import annotations

import copy
import gzip
import json
import shutil

from bench.generate import API, DATA, JSON_TYPE, Synth, compact
from pipeline.rawstore import RawStore, read_run
from pipeline.sync import load_pending, rebuild
from pipeline.wire import Response
from support.warehouse_state import ALL_TABLES, fingerprints

TABLES = ALL_TABLES + ("query_card",)


class Day:
    """One day's bulk files: card objects, ruling objects (in file order) and sets, as dicts."""

    def __init__(self, synth: Synth):
        self.cards = [copy.deepcopy(o) for o in synth.objects]
        self.rulings = [json.loads(line) for line in synth.ruling_lines()]
        self.sets = copy.deepcopy(synth.sets)
        self.crlf = False  # the files written with \r\n line ends
        self.query = "*"  # the view's query (its local filter keeps the cards it selects)
        # written with every 7th card object (and with "rulings", every 7th ruling too) refused:
        # a run that its share of unreadable records may get rejected (exit 65)
        self.unreadable: str | None = None

    def oracle_of(self, card: dict) -> str:
        return card.get("oracle_id") or card["card_faces"][0]["oracle_id"]

    def rulings_of(self, oracle_id: str) -> list[int]:
        return [i for i, r in enumerate(self.rulings) if r["oracle_id"] == oracle_id]


def write_day(raw, day: Day, n: int, gz: bool = False) -> None:
    """A complete offline run of the day's files (JSON arrays, one element per line, or gzipped JSON lines)."""
    run_id = f"200001{n:02d}T000000.000000Z"
    writer = RawStore(raw).new_run({"mode": "offline", "query": day.query, "plan": "bulk", "include_multilingual": True,
                                    "sources": ["api"], "api_url": API, "synthetic": True}, run_id=run_id)
    cards, rulings = day.cards, day.rulings
    if day.unreadable:
        cards = [{k: v for k, v in c.items() if i % 7 != 3 or k != "collector_number"} for i, c in enumerate(cards)]
    if day.unreadable == "rulings":
        rulings = [{k: v for k, v in r.items() if i % 7 != 3 or k != "comment"} for i, r in enumerate(rulings)]
    for kind, key, items in (("bulk-cards", "all_cards", cards), ("bulk-rulings", "rulings", rulings)):
        url = f"{DATA}/{key}/{key}-{n}.json" + ("l.gz" if gz else "")
        body = writer.body_file("scryfall-api", url, ".jsonl.gz" if gz else ".json")
        lines = [compact(item) for item in items]
        end = "\r\n" if day.crlf else "\n"
        if gz:
            body.write(gzip.compress("".join(line + end for line in lines).encode("utf-8")))
        else:
            body.write(("[" + end + ("," + end).join(lines) + end + "]" + end).encode("utf-8"))
        writer.save_file(Response(url=url, final_url=url, status=200, headers={"content-type": "application/json"},
                                  body=b"", fetched_at=None), body, "scryfall-api", kind, key=key)
    url = f"{API}/sets"
    writer.save(Response(url=url, final_url=url, status=200, headers={"content-type": JSON_TYPE},
                         body=compact({"object": "list", "has_more": False, "data": day.sets}).encode("utf-8"),
                         fetched_at=None), "scryfall-api", "sets")
    writer.finish({"requests": 3, "bytes": sum(e.bytes for e in writer.entries)})
    assert read_run(writer.path).complete


LINK_TABLES = ("ruling_rule", "card_rule", "cr_edition", "cr_rule", "cr_glossary")


def ingest_excerpt(settings, monkeypatch, run_id: str):
    """The rules excerpt of the tests ingested as run ``run_id`` (between two days' runs)."""
    import pipeline.rawstore
    from conftest import FIXTURES
    from pipeline.sync import ingest_rules

    monkeypatch.setattr(pipeline.rawstore, "new_run_id", lambda: run_id)
    return ingest_rules(settings, str(FIXTURES / "rules" / "cr_case_excerpt.txt"))


def sync_days(settings, days: list[Day], gz: bool = False, rules=None, lose_cache: frozenset[int] = frozenset()
              ) -> list[str]:
    """Write each day as a run and sync it; with ``rules`` (a pytest monkeypatch), the rules
    excerpt is ingested after the first day; before the days numbered in ``lose_cache`` (from 1),
    the cache folder is deleted. Returns each load's build ("full" or "delta"), in load order
    (the ingest's included); "rejected" for an unreadable day whose run was rejected."""
    from pipeline.errors import SourceDataError

    store = RawStore(settings.raw_dir)
    builds = []
    for n, day in enumerate(days, 1):
        if n in lose_cache:
            shutil.rmtree(settings.cache_dir, ignore_errors=True)
        write_day(settings.raw_dir, day, n, gz=gz)
        try:
            builds += [result.build for result in load_pending(settings, store)]
        except SourceDataError as exc:
            if not day.unreadable or "unreadable" not in str(exc):
                raise
            builds.append("rejected")
        if n == 1 and rules is not None:
            builds.append(ingest_excerpt(settings, rules, "20000101T120000.000000Z").build)
    return builds


def load_days(settings, days: list[Day], gz: bool = False, rules=None, lose_cache: frozenset[int] = frozenset(),
              tables: tuple[str, ...] = TABLES) -> tuple[list[str], dict, dict]:
    """``sync_days``, then a rebuild. Returns the builds of the syncs, and the fingerprints of
    ``tables`` after the syncs and after the rebuild."""
    builds = sync_days(settings, days, gz=gz, rules=rules, lose_cache=lose_cache)
    synced = fingerprints(settings.data_dir, tables=tables)
    assert all(result.build == "full" for result in rebuild(settings))
    return builds, synced, fingerprints(settings.data_dir, tables=tables)
