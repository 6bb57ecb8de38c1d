"""Delta builds (pipeline/normalize/delta.py) leave the warehouse a full build leaves.

A series of bulk runs, each a day's files with one kind of edit, is loaded by syncs (a delta build
for each run after the first); then ``rebuild`` loads the same runs with full builds only. Every
table, the change events and the retired rulings included, must come out the same.

The runs are SYNTHETIC, made by bench/generate.py at a small scale and edited here; no real card
data is invented.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
from collections import Counter

import pytest

import pipeline.build
from bench.generate import Synth, compact
from pipeline.rawstore import RawStore, read_manifest, read_run
from pipeline.sync import load_pending, rebuild
from support.bulk_days import LINK_TABLES, TABLES, Day, ingest_excerpt, load_days, sync_days, write_day
from support.warehouse_state import fingerprints, query, warehouse_of


@pytest.fixture(autouse=True)
def sql_path_for_small_runs(monkeypatch):
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 0)


def sync_then_rebuild(settings, days, caplog, gz=False):
    """Load the days by syncs, then by a rebuild; return both fingerprints and the delta log lines."""
    caplog.set_level(logging.INFO, logger="pipeline")
    builds, synced, rebuilt = load_days(settings, days, gz=gz)
    assert builds[0] == "full" and len(builds) == len(days)
    deltas = [r.getMessage() for r in caplog.records if r.getMessage().startswith("delta build")]
    assert builds[1:].count("delta") == sum("changed line(s)" in d for d in deltas)
    return synced, rebuilt, deltas


@pytest.fixture(scope="module")
def synth():
    return Synth(0.004, seed=7)  # 140 Oracle cards, 400 card objects, 280 rulings


def _edited(days: list[Day], edit) -> Day:
    day = copy.deepcopy(days[-1])
    edit(day)
    days.append(day)
    return day


def test_a_series_of_edits_loads_the_same_by_delta_and_by_full_builds(settings, synth, caplog):
    base = Day(synth)
    days = [base]
    oracle_ids = sorted({base.oracle_of(c) for c in base.cards})
    with_rulings = [o for o in oracle_ids if len(base.rulings_of(o)) >= 3]
    gone_card, reordered, extended, symbolic, plain = with_rulings[:5]

    def errata(day):  # text changes of cards and rulings
        for card in day.cards[:6]:
            if "oracle_text" in card:
                card["oracle_text"] += " (Errata.)"
        for i in range(0, len(day.rulings), 40):
            day.rulings[i]["comment"] += " (Reworded.)"

    def comings_and_goings(day):  # a card goes (its rulings stay in the file), a card comes, a ruling goes
        day.cards = [c for c in day.cards if day.oracle_of(c) != gone_card]
        newcomer = copy.deepcopy(day.cards[0])
        newcomer.update(id="00000000-0000-5000-8000-000000000001", oracle_id="00000000-0000-5000-8000-0000000000aa",
                        name="Synthetic Newcomer", set="zzz", collector_number="1")
        newcomer.pop("card_faces", None)
        newcomer.setdefault("oracle_text", "Flying")
        day.cards.append(newcomer)
        first = day.rulings_of(extended)[0]
        day.rulings.insert(first, {"object": "ruling", "oracle_id": extended, "source": "wotc",
                                   "published_at": "2024-02-09", "comment": "A ruling that comes first."})
        del day.rulings[day.rulings_of(reordered)[-1]]

    def back_and_symbols(day):  # the card comes back; rulings move; a text with and without its symbols
        day.cards.extend(c for c in base.cards if base.oracle_of(c) == gone_card)
        a, b = day.rulings_of(reordered)[:2]
        day.rulings[a], day.rulings[b] = day.rulings[b], day.rulings[a]
        text = "Pay {2}{U} and tap an untapped creature you control: look at the top card."
        for oracle_id, comment in ((symbolic, text), (plain, text.replace("{2}{U} ", ""))):
            at = day.rulings_of(oracle_id)[-1] + 1
            day.rulings.insert(at, {"object": "ruling", "oracle_id": oracle_id, "source": "wotc",
                                    "published_at": "2019-05-03", "comment": comment})

    def refusals(day):  # a ruling without a comment, a card object without a collector number
        day.rulings.insert(3, {"object": "ruling", "oracle_id": oracle_ids[7], "source": "wotc",
                               "published_at": "2020-01-01"})
        day.cards[5].pop("collector_number")

    def symbols_lost_goes(day):  # the copy with symbols goes: the plain one stands alone again
        del day.rulings[next(i for i in day.rulings_of(symbolic) if "{2}{U}" in day.rulings[i]["comment"])]

    put_aside = []

    def reversible(day):  # a printing becomes a reversible card whose faces are two Oracle cards; the
        # second's own printings go, so its face is its row (the first keeps a row of its own printings)
        put_aside.extend(c for c in day.cards if day.oracle_of(c) == plain)
        day.cards = [c for c in day.cards if day.oracle_of(c) != plain]
        card = next(c for c in day.cards if c["lang"] == "en" and "card_faces" not in c)
        first, second = day.oracle_of(card), plain
        face = {"object": "card_face", "mana_cost": card["mana_cost"], "type_line": card["type_line"],
                "oracle_text": card["oracle_text"], "colors": card["colors"], "cmc": card["cmc"]}
        card["card_faces"] = [{**face, "oracle_id": first, "name": card["name"]},
                              {**face, "oracle_id": second, "name": card["name"] + " Back", "oracle_text": "Reach"}]
        card["layout"] = "reversible_card"
        card["id"] = "00000000-0000-5000-8000-000000000000"  # the smallest id: a face still comes after own printings
        for key in ("oracle_id", "mana_cost", "oracle_text", "colors", "type_line"):
            card.pop(key)

    def reversible_goes(day):  # and the printing is gone again; the second card's own printings are back
        day.cards = [c for c in day.cards if c.get("layout") != "reversible_card"] + put_aside

    def symbols_back_on_its_card(day):  # the copy with symbols comes after the plain one, on the plain one's
        # card: the plain copy, not derived again, folds into it, and the card's link follows
        text = "Pay {2}{U} and tap an untapped creature you control: look at the top card."
        day.rulings.insert(day.rulings_of(plain)[-1] + 1, {"object": "ruling", "oracle_id": plain, "source": "wotc",
                                                           "published_at": "2019-05-03", "comment": text})

    for edit in (errata, comings_and_goings, back_and_symbols, refusals, symbols_lost_goes, reversible,
                 reversible_goes, symbols_back_on_its_card):
        _edited(days, edit)
    days.append(copy.deepcopy(days[-1]))  # nothing changed

    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert synced == rebuilt
    assert len(deltas) == len(days) - 1 and all("changed line(s)" in d for d in deltas), deltas
    assert deltas[-1].startswith("delta build: 0 changed line(s)")
    # the edits did reach the tables
    events = dict(query(settings.data_dir, "SELECT kind, count(*) FROM change_event GROUP BY kind"))
    assert {"card_added", "card_removed", "card_changed", "ruling_added", "ruling_removed"} <= set(events)
    assert query(settings.data_dir, "SELECT count(*) FROM card WHERE name = 'Synthetic Newcomer'") == [(1,)]
    assert query(settings.data_dir, "SELECT count(*) FROM change_event WHERE run_id = '20000107T000000.000000Z' "
                                    "AND kind = 'card_changed' AND after = 'Reach'") == [(1,)]
    statuses = [s for (s,) in query(settings.data_dir, "SELECT status FROM sync_run ORDER BY run_id")]
    assert statuses[-1] == "no_changes" and statuses[:-1] == ["ok"] * (len(days) - 1)
    # the plain copy of the last edit joined the ruling with symbols on its own card
    lost = "SELECT r.text FROM ruling_sighting AS s JOIN ruling AS r USING (ruling_id) " \
           "WHERE s.oracle_id = ? AND list_contains(s.flags, 'symbols_lost')"
    assert query(settings.data_dir, lost, [plain]) == [
        ("Pay {2}{U} and tap an untapped creature you control: look at the top card.",)]


def test_gzipped_json_lines_are_read_again_by_a_scan(settings, synth, caplog):
    base = Day(synth)
    days = [base]

    def errata(day):
        for card in day.cards[10:14]:
            card["rarity"] = "special"
        day.rulings[1]["comment"] += " (Reworded.)"

    _edited(days, errata)
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog, gz=True)
    assert synced == rebuilt
    assert len(deltas) == 1 and "changed line(s)" in deltas[0]
    assert warehouse_of(settings.data_dir).exists()


def test_a_day_that_changes_most_lines_gets_a_full_build(settings, synth, caplog):
    base = Day(synth)
    days = [base]

    def everything(day):
        for card in day.cards:
            card["rarity"] = "special"

    _edited(days, everything)
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert synced == rebuilt
    assert deltas == ["delta build: of 400 card lines 400 are new or changed and 400 gone, of 561 ruling lines 0 and 0; "
                      "full build"]


def test_without_the_cache_or_with_lines_that_are_not_objects_the_builds_are_full(settings, synth, caplog):
    """A lost cache, then a day written as an indented JSON document (an object spans many
    lines): full builds, the same tables."""
    import shutil

    base = Day(synth)
    days = [base]

    def errata(day):
        day.rulings[2]["comment"] += " (Reworded.)"

    _edited(days, errata)
    _edited(days, errata)
    caplog.set_level(logging.INFO, logger="pipeline")
    store = RawStore(settings.raw_dir)
    write_day(settings.raw_dir, days[0], 1)
    load_pending(settings, store)
    shutil.rmtree(settings.cache_dir)
    write_day(settings.raw_dir, days[1], 2)
    load_pending(settings, store)
    indented = RawStore(settings.raw_dir)
    write_day(settings.raw_dir, days[2], 3)
    run = read_run(settings.raw_dir / "20000103T000000.000000Z")
    for path in (run.path / "docs" / "scryfall-api").glob("*.json"):
        if "all_cards" in path.name:
            items = json.loads(path.read_text("utf-8"))
            path.write_text(json.dumps(items, indent=1, ensure_ascii=False), "utf-8")
    _fix_manifest(run.path)
    load_pending(settings, indented)
    messages = [r.getMessage() for r in caplog.records]
    assert "delta build: no object index of the previous files in the cache; full build" in messages
    assert "delta build: a bulk file is not one object per line; full build" in messages
    assert not [m for m in messages if "changed line(s)" in m]
    synced = fingerprints(settings.data_dir, tables=TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=TABLES) == synced


def _fix_manifest(run_path):
    """A body rewritten in place: its manifest entry gets the new size and sha256."""
    import hashlib

    lines = []
    for line in (run_path / "manifest.jsonl").read_text("utf-8").splitlines():
        entry = json.loads(line)
        body = (run_path / entry["path"]).read_bytes()
        entry.update(bytes=len(body), sha256=hashlib.sha256(body).hexdigest())
        lines.append(json.dumps(entry, sort_keys=True))
    (run_path / "manifest.jsonl").write_text("\n".join(lines) + "\n", "utf-8")


def test_lines_read_back_that_differ_from_their_hash_give_way_to_a_full_build(settings, synth, caplog):
    """A day's card file with \\r\\n line ends: the scan's offsets miss the \\r of each line, so the
    changed lines read back by seeking are not the lines hashed, and the build is full."""
    base = Day(synth)
    days = [base]

    def errata(day):
        for card in day.cards[:3]:
            card["rarity"] = "special"

    _edited(days, errata)
    caplog.set_level(logging.INFO, logger="pipeline")
    store = RawStore(settings.raw_dir)
    write_day(settings.raw_dir, days[0], 1)
    load_pending(settings, store)
    write_day(settings.raw_dir, days[1], 2)
    run = read_run(settings.raw_dir / "20000102T000000.000000Z")
    [cards] = [p for p in (run.path / "docs" / "scryfall-api").glob("*.json") if "all_cards" in p.name]
    cards.write_bytes(cards.read_bytes().replace(b"\n", b"\r\n"))
    _fix_manifest(run.path)
    assert [r.build for r in load_pending(settings, store)] == ["full"]
    assert any("read back differ from their hash; full build" in r.getMessage() for r in caplog.records)
    synced = fingerprints(settings.data_dir, tables=TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=TABLES) == synced


def test_a_delta_build_that_fails_gives_way_to_a_full_build(settings, synth, caplog, monkeypatch):
    from pipeline.normalize import delta

    base = Day(synth)
    days = [base]

    def errata(day):
        day.rulings[2]["comment"] += " (Reworded.)"

    _edited(days, errata)
    real = delta.read_sql
    monkeypatch.setattr(delta, "read_sql", lambda name: "SELECT * FROM no_such_table" if name == "delta/partitions.sql"
                        else real(name))
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert synced == rebuilt
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(w.startswith("delta build failed (CatalogException") and w.endswith("; full build") for w in warnings)
    assert deltas == [w for w in warnings if w.startswith("delta build")]


def test_a_full_read_that_gives_way_to_the_python_path_leaves_no_line_scan_behind(settings, synth, monkeypatch):
    """A full build scans the bulk files' lines while it reads the documents (pipeline/build.py).
    When the read gives way to the Python path while a scan runs, the scans are stopped or
    finished before the run loads: no scan thread is left, no half-written cache file, and the
    run is loaded."""
    import threading

    from pipeline.normalize import duck, lines

    started = threading.Event()
    real_scan = lines._scan

    def scan(*args):
        started.set()
        return real_scan(*args)

    def refuse(con, docs):
        assert started.wait(10)
        raise duck.SqlPathUnavailable("refused by the test")

    monkeypatch.setattr(lines, "_scan", scan)
    monkeypatch.setattr(duck, "stage_documents", refuse)
    threads = set(threading.enumerate())
    write_day(settings.raw_dir, Day(synth), 1)
    [result] = load_pending(settings, RawStore(settings.raw_dir))
    assert result.build == "python" and result.tables["_rows"]["card"] == 140
    assert set(threading.enumerate()) <= threads
    assert not [p.name for p in (settings.cache_dir / "lines").glob(".*")]


def test_a_delta_that_meets_a_text_that_is_not_plain_works_it_out_in_python(settings, synth, caplog):
    """The Python text functions are registered only when a build meets a text the SQL macros do
    not cover (pipeline/normalize/duck.py variants): a day that adds such a ruling (made up here:
    a ligature and a non-breaking space, which Unicode normalization changes) is still a delta,
    and gives the tables a rebuild gives."""
    base = Day(synth)
    days = [base]
    oracle_id = base.oracle_of(base.cards[0])

    def unusual(day):
        at = day.rulings_of(oracle_id)[-1] + 1
        day.rulings.insert(at, {"object": "ruling", "oracle_id": oracle_id, "source": "wotc",
                                "published_at": "2021-06-18", "comment": "\u00c6ther \ufb01nds\u00a0its way."})

    _edited(days, unusual)
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert synced == rebuilt
    assert len(deltas) == 1 and "changed line(s)" in deltas[0]
    assert query(settings.data_dir, "SELECT match_key FROM ruling WHERE text LIKE '%ther%nds%'") == [
        ("\u00e6ther finds its way.",)]


def test_prices_and_ranks_that_change_every_day_do_not_make_a_card_line_changed(settings, synth, caplog):
    """Scryfall's card objects carry prices and ranks that change daily; casefile does not read
    them, so a day where only they move, a rank comes or goes where Scryfall puts it (and a few
    cards get errata) is still a delta."""
    import re

    from pipeline.normalize import delta
    from pipeline.normalize.duck import CARD_COLUMNS

    assert not set(delta.VOLATILE_FIELD_NAMES) & set(CARD_COLUMNS)
    line = compact({"object": "card", "id": "x", "prices": {"usd": "0.25", "eur": None}, "edhrec_rank": 12,
                    "oracle_text": 'Say \"prices\":{} aloud.', "penny_rank": 3})
    assert re.sub(delta.VOLATILE_CARD_FIELDS, "", line) == \
        '{"object":"card","id":"x","oracle_text":"Say \\"prices\\":{} aloud."}'  # the text is left alone
    base = Day(synth)
    for i, card in enumerate(base.cards):
        card.update(prices={"usd": f"{i % 7}.25", "usd_foil": None, "tix": "0.03"}, edhrec_rank=1000 + i)
    base.cards[5].pop("penny_rank", None)

    def rank_in_the_pool(card: dict, rank: int) -> None:  # where Scryfall writes it: after edhrec_rank
        fields = [(k, v) for k, v in card.items() if k != "penny_rank"]
        card.clear()
        for k, v in fields:
            card[k] = v
            if k == "edhrec_rank":
                card["penny_rank"] = rank

    rank_in_the_pool(base.cards[6], 40)
    days = [base]

    def a_day_of_prices(day):
        for i, card in enumerate(day.cards):
            card["prices"]["usd"] = f"{i % 5}.50"
            card["edhrec_rank"] += 1
        day.cards[3]["rarity"] = "special"
        rank_in_the_pool(day.cards[5], 7)  # a card enters the Penny Dreadful pool, another leaves it
        day.cards[6].pop("penny_rank", None)

    _edited(days, a_day_of_prices)
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert synced == rebuilt
    assert len(deltas) == 1 and deltas[0].startswith("delta build: 2 changed line(s)"), deltas
    # the cache keeps what the next day needs: the scan and object index of the last day's two
    # files, and the ruling keys of its view
    last = read_run(settings.raw_dir / "20000102T000000.000000Z")
    bulk = {e.kind: e.sha256 for e in read_manifest(last) if e.kind.startswith("bulk-")}
    cached = Counter(p.name.split("-", 1)[0] for p in (settings.cache_dir / "lines").iterdir())
    assert cached == {bulk["bulk-cards"]: 2, bulk["bulk-rulings"]: 3}


def test_an_index_hashed_without_other_fields_is_not_matched_against_the_new_lines(settings, synth, caplog,
                                                                                  monkeypatch):
    """The card file's object index holds hashes made without the volatile fields of its day's
    casefile; after an upgrade that leaves out other fields, the next day's lines are hashed
    another way, and the old index is not used (a full build), rather than matched to no line."""
    from pipeline.normalize import delta

    caplog.set_level(logging.INFO, logger="pipeline")
    store = RawStore(settings.raw_dir)
    base = Day(synth)
    write_day(settings.raw_dir, base, 1)
    assert [r.build for r in load_pending(settings, store)] == ["full"]
    monkeypatch.setattr(delta, "VOLATILE_CARD", dataclasses.replace(
        delta.VOLATILE_CARD, pattern=r',"(?:prices":\{[^{}]*\}|edhrec_rank":[0-9]+)'))
    next_day = copy.deepcopy(base)
    next_day.cards[3]["rarity"] = "special"
    write_day(settings.raw_dir, next_day, 2)
    assert [r.build for r in load_pending(settings, store)] == ["full"]
    deltas = [r.getMessage() for r in caplog.records if r.getMessage().startswith("delta build")]
    assert deltas == ["delta build: no object index of the previous files in the cache; full build"]
    third_day = copy.deepcopy(next_day)
    third_day.cards[4]["rarity"] = "special"
    write_day(settings.raw_dir, third_day, 3)  # the full build indexed its files the new way
    assert [r.build for r in load_pending(settings, store)] == ["delta"]


# Corruptions of a delta build's TEMP tables, made after it: the load's checks of a delta
# (sql/checks/delta/) must refuse each one.
BROKEN_DELTAS = {
    "a sighting of a ruling that does not exist": (
        "UPDATE n_ruling_sighting SET ruling_id = 'no-such-ruling' "
        "WHERE sighting_id = (SELECT min(sighting_id) FROM n_ruling_sighting)", "references"),
    "a printing staged twice, once changed": (
        "INSERT INTO n_printing SELECT * REPLACE ('special' AS rarity) FROM n_printing "
        "WHERE scryfall_id = (SELECT min(scryfall_id) FROM n_printing)", "unique_keys"),
    "a ruling of cards not derived again put in scope, so deleted under their sightings": (
        "INSERT INTO scope_ruling SELECT * FROM ruling "
        "WHERE ruling_id NOT IN (SELECT ruling_id FROM n_ruling) ORDER BY ruling_id LIMIT 1", "references"),
    "a card not derived again put in scope, so deleted under its printings and links": (
        "INSERT INTO scope_card SELECT * FROM card "
        "WHERE oracle_id NOT IN (SELECT oracle_id FROM n_card) ORDER BY oracle_id LIMIT 1", "references"),
    "a set its unchanged printings name, not staged": (
        "DELETE FROM n_card_set WHERE set_code = (SELECT min(set_code) FROM printing "
        "WHERE set_code NOT IN (SELECT set_code FROM n_printing))", "references"),
    "a sighting deleted from under its ruling": (
        "DELETE FROM n_ruling_sighting WHERE ruling_id = (SELECT min(ruling_id) FROM n_ruling_sighting "
        "WHERE ruling_id IN (SELECT ruling_id FROM n_ruling_sighting GROUP BY ruling_id HAVING count(*) = 1) "
        "AND ruling_id NOT IN (SELECT ruling_id FROM ruling_sighting "
        "ANTI JOIN scope_ruling_sighting USING (sighting_id)))",
        "rulings_have_provenance"),
    "a ruling written as the wiki's, with a date (the wiki dates none)": (
        "UPDATE n_ruling SET source = 'mtgwiki' WHERE ruling_id = (SELECT min(ruling_id) FROM n_ruling "
        "WHERE published_at IS NOT NULL)", "rulings_have_provenance"),
    "a sighting from an origin casefile does not read": (
        "UPDATE n_ruling_sighting SET origin = 'elsewhere' "
        "WHERE sighting_id = (SELECT min(sighting_id) FROM n_ruling_sighting)", "accepted_values"),
    "a card link at a negative position": (
        "UPDATE n_card_ruling SET position = -1 "
        "WHERE (oracle_id, ruling_id) = (SELECT (oracle_id, ruling_id) FROM n_card_ruling "
        "ORDER BY oracle_id, ruling_id LIMIT 1)", "accepted_values"),
}


@pytest.mark.parametrize("broken", sorted(BROKEN_DELTAS))
def test_a_delta_load_that_breaks_a_rule_is_refused_and_changes_nothing(settings, synth, monkeypatch, broken):
    """The checks of a delta load look only at the rows it wrote and at those that pointed at
    rows it deleted: each corruption, in a row written or in a row left standing, is caught,
    and the warehouse stays as the first day left it."""
    from pipeline.errors import SourceDataError
    from pipeline.normalize import delta

    statement, check = BROKEN_DELTAS[broken]
    base = Day(synth)
    day2 = copy.deepcopy(base)
    for card in day2.cards[:6]:
        if "oracle_text" in card:
            card["oracle_text"] += " (Errata.)"
    for i in range(0, len(day2.rulings), 40):
        day2.rulings[i]["comment"] += " (Reworded.)"
    store = RawStore(settings.raw_dir)
    write_day(settings.raw_dir, base, 1)
    load_pending(settings, store)
    before = fingerprints(settings.data_dir, tables=TABLES)
    real = delta._build

    def corrupted(con, *args):
        outcome = real(con, *args)
        assert outcome is not None
        con.execute(statement)
        return outcome

    monkeypatch.setattr(delta, "_build", corrupted)
    write_day(settings.raw_dir, day2, 2)
    with pytest.raises(SourceDataError, match=rf"fails the warehouse checks.*{check} \(\d+ rows\)"):
        load_pending(settings, store)
    assert fingerprints(settings.data_dir, tables=TABLES) == before


def test_the_checks_of_a_delta_load_read_this_runs_history_only(settings, synth):
    """A delta load checks the change events and retired rulings it wrote, not the history every
    earlier load checked (which grows with every day): an event of an earlier run that breaks a
    rule, planted past the loads, is left to ``casefile doctor``, which checks everything."""
    import duckdb

    from pipeline.doctor import diagnose

    store = _day_one_loaded_day_two_written(settings, synth)
    con = duckdb.connect(str(settings.warehouse_path))
    con.execute("INSERT INTO change_event (run_id, seq, kind) SELECT run_id, 999999, 'no_such_kind' FROM sync_run")
    con.close()
    assert [r.build for r in load_pending(settings, store)] == ["delta"]
    failing = [f.message for f in diagnose(settings) if f.level == "fail" and f.area == "warehouse"]
    assert len(failing) == 1 and "accepted_values" in failing[0] and "no_such_kind" in failing[0]


def _accepted_lists(text: str) -> dict[str, list[str]]:
    """Each column's list of accepted values in an accepted-values check: its label, the first
    quoted text of its SELECT, and the quoted values of its NOT IN (...)."""
    import re

    lists = {}
    for part in re.split(r"\bUNION ALL\b", text.split("\nSELECT ", 1)[1]):
        label = re.search(r"'([^']+)'", part).group(1)
        values = re.search(r"NOT IN \(([^)]*)\)", part)
        if values:
            lists[label] = re.findall(r"'([^']*)'", values.group(1))
    return lists


def test_a_delta_load_accepts_the_values_the_whole_check_accepts():
    """sql/checks/delta/accepted_values.sql reads other rows than sql/checks/accepted_values.sql,
    with the same lists of values: a value added to one list is added to the other."""
    from pipeline.resources import read_sql

    whole = _accepted_lists(read_sql("checks/accepted_values.sql"))
    delta = _accepted_lists(read_sql("checks/delta/accepted_values.sql"))
    assert len(whole) == 7 and "ruling_sighting.origin" in whole
    assert delta == whole


def _day_one_loaded_day_two_written(settings, synth) -> RawStore:
    """Day 1 synced; day 2, which changes one card's rarity, written to the raw store."""
    store = RawStore(settings.raw_dir)
    base = Day(synth)
    write_day(settings.raw_dir, base, 1)
    load_pending(settings, store)
    next_day = copy.deepcopy(base)
    next_day.cards[3]["rarity"] = "special"
    write_day(settings.raw_dir, next_day, 2)
    return store


def test_a_delta_build_times_its_line_scans_and_its_reads(settings, synth):
    from pipeline import timing

    store = _day_one_loaded_day_two_written(settings, synth)
    with timing.recording() as record:
        assert [r.build for r in load_pending(settings, store)] == ["delta"]
    assert record["build.lines"] > 0 and record["build.read"] > 0
    assert record["build"] >= record["build.lines"] + record["build.read"]


def test_a_cache_that_cannot_be_written_costs_the_delta_not_the_sync(settings, synth, caplog):
    base = Day(synth)
    days = [base]

    def errata(day):
        day.rulings[2]["comment"] += " (Reworded.)"

    _edited(days, errata)
    settings.cache_dir.parent.mkdir(parents=True, exist_ok=True)
    settings.cache_dir.write_text("not a folder")
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert synced == rebuilt
    assert deltas == ["delta build: no object index of the previous files in the cache; full build"]
    assert any(r.levelno == logging.WARNING and r.getMessage().startswith("cannot write") for r in caplog.records)
    assert query(settings.data_dir, "SELECT count(*) FROM sync_run") == [(2,)]


@pytest.mark.parametrize("damage", [b"", b"PAR1 cut short"])
def test_a_cache_file_a_system_crash_left_unreadable_is_made_again_not_a_failure_of_every_sync(
        settings, synth, caplog, damage):
    """The cache is not synced to disk: after a crash of the system a file of it may be empty
    or cut short under its final name. Every build that read it failed (exit 1), the rebuild too,
    until someone deleted the cache by hand."""
    store = _day_one_loaded_day_two_written(settings, synth)
    files = sorted((settings.cache_dir / "lines").iterdir())
    assert files
    for path in files:
        path.write_bytes(damage)
    caplog.set_level(logging.INFO, logger="pipeline")
    assert [r.build for r in load_pending(settings, store)] == ["full"]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("the cache file ") and "deleted, to be made again" in m for m in warned)
    synced = fingerprints(settings.data_dir, tables=TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=TABLES) == synced
    third = copy.deepcopy(Day(synth))
    third.cards[5]["rarity"] = "special"
    write_day(settings.raw_dir, third, 3)
    assert [r.build for r in load_pending(settings, store)] == ["delta"]  # the cache was made again


def test_a_delta_sync_leaves_whole_scans_of_its_files_in_the_cache(settings, synth):
    """A delta build writes the scans of the day's files to the cache while it builds on them
    (pipeline/normalize/lines.py LineScans.finish): once the sync is over each one is there,
    whole, with the lines a scan of the file gives, and no half-written file is left."""
    import duckdb

    from pipeline.normalize import lines
    from pipeline.normalize.delta import VOLATILE_CARD

    store = _day_one_loaded_day_two_written(settings, synth)
    assert [r.build for r in load_pending(settings, store)] == ["delta"]
    run = read_run(settings.raw_dir / "20000102T000000.000000Z")
    entries = {e.kind: e for e in read_manifest(run)}
    con = duckdb.connect()
    for kind, ignore in (("bulk-cards", VOLATILE_CARD), ("bulk-rulings", None)):
        cached = lines._cache_file(settings.cache_dir, entries[kind].sha256, ignore)
        assert cached.is_file(), kind
        assert lines.stage_lines(con, [("fresh", run.path / entries[kind].path, None, ignore)], cache_dir=None)
        fresh = con.execute("SELECT * FROM fresh ORDER BY ord").fetchall()
        assert len(fresh) > 100
        assert con.execute("SELECT * FROM read_parquet($f) ORDER BY ord", {"f": str(cached)}).fetchall() == fresh
    assert not [p.name for p in (settings.cache_dir / "lines").glob(".*")]


def test_the_line_scan_places_every_line_of_a_file_read_on_several_threads(tmp_path):
    """The scan numbers the lines after hashing them on every thread (sql/delta/scan_lines.sql):
    in a file of several reader blocks, each object line still gets its place, offset and length,
    and repeated lines their rank. The lines are made up here (JSON-shaped, not card data)."""
    import duckdb

    from pipeline.normalize.lines import stage_lines

    lines = [json.dumps({"i": i, "pad": "x" * (100 + (i * 37) % 900)}) for i in range(70_000)]
    lines[20_000] = lines[50_000] = lines[69_000] = lines[5]  # a line four times
    text = "[\n" + ",\n".join(lines) + "\n]\n"
    path = tmp_path / "objects.json"
    path.write_text(text, encoding="utf-8")
    # 38 MB: more than the 32 MB one thread of DuckDB's CSV reader takes at a time (two threads
    # read such a file faster than one, where they read a 27 MB one no faster)
    assert path.stat().st_size > 32 * 2**20

    con = duckdb.connect()
    con.execute("SET threads = 2")
    assert stage_lines(con, [("scanned", path, None, None)], cache_dir=None)
    rows = con.execute("SELECT ord, off, len, n, h FROM scanned ORDER BY ord").fetchall()
    assert [r[0] for r in rows] == list(range(len(lines)))
    data = path.read_bytes()
    for ord_, off, length, _, _ in rows[::997] + rows[-3:]:
        assert data[off:off + length].decode("utf-8").rstrip(",") == lines[ord_]
    assert [r[3] for r in rows if r[4] == rows[5][4]] == [0, 1, 2, 3]
    assert len({r[4] for r in rows}) == len(lines) - 3


def test_a_line_scan_reads_a_large_file_through_a_bounded_buffer(tmp_path):
    """The line scan reads lines of up to 8 MB, and DuckDB would then read a file of tens of MB
    into one buffer of its size, all of it counted against the memory limit: two scans beside a
    full build's read went over the limit at scale. The scan's buffer is 16 MB
    (sql/delta/scan_lines.sql): a 48 MB file is scanned within a 40 MB limit. The objects are
    made up here, in Scryfall's shape."""
    import duckdb

    from pipeline.normalize.delta import VOLATILE_CARD
    from pipeline.normalize.lines import stage_lines

    text = "Synthetic rules text. " * 55
    lines = [compact({"object": "card", "id": f"id-{i:06d}", "name": f"Synthetic Case {i}", "oracle_text": text,
                      "edhrec_rank": i, "prices": {"usd": "0.25"}}) for i in range(36_000)]
    path = tmp_path / "cards.json"
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    assert path.stat().st_size > 48_000_000
    con = duckdb.connect()
    con.execute("SET memory_limit = '40MB'")
    assert stage_lines(con, [("scanned", path, None, VOLATILE_CARD)], cache_dir=None)
    assert con.execute("SELECT count(*), count(DISTINCT h) FROM scanned").fetchone() == (36_000, 36_000)


def test_card_lines_are_hashed_without_their_prices_and_ranks_whatever_their_order(tmp_path):
    """A card line's hash leaves out its prices and ranks (pipeline/normalize/delta.py
    VOLATILE_CARD): in Scryfall's order, with or without the Penny Dreadful rank, by splitting
    the line at their keys; where another field comes between them, by the pattern on the text
    from the rank key on; in a line without the rank key, or with it twice, by the pattern on the
    whole line. Where a price comes before the rank key (not Scryfall's order) it stays in the
    hash: the line reads as changed, which costs a delta time, not correctness. A change to a
    field casefile reads, before the three or after them, changes the hash whatever the order,
    and the lines read again are checked against the scan's hashes with the same text
    (sql/delta/verify_lines.sql). The objects are made up here, in Scryfall's shape."""
    import duckdb

    from pipeline.normalize.delta import VOLATILE_CARD
    from pipeline.normalize.lines import hash_params, stage_lines
    from pipeline.resources import read_sql

    def card(order: str, day: int, text: str = "Draw a card.", gatherer: str = "1") -> str:
        ranks = {"edhrec_rank": 1000 + day, "penny_rank": 50 - day}
        prices = {"prices": {"usd": f"0.{day}5", "usd_foil": None, "tix": "0.03"}}
        head = {"object": "card", "id": f"id-{order}", "name": "Synthetic Case", "oracle_text": text}
        tail = {"related_uris": {"gatherer": f"https://example.invalid/{gatherer}"}}
        if order == "scryfall":
            obj = {**head, **ranks, **prices, **tail}
        elif order == "no penny rank":
            obj = {**head, "edhrec_rank": ranks["edhrec_rank"], **prices, **tail}
        elif order == "preview between":
            obj = {**head, **ranks, "preview": {"source": "Synthetic"}, **prices, **tail}
        elif order == "no rank key":
            obj = {**head, "penny_rank": ranks["penny_rank"], **prices, **tail}
        elif order == "rank key twice":
            obj = {**head, "card_faces": [{"name": "Face", "edhrec_rank": 7}], **ranks, **prices, **tail}
        else:  # prices first
            obj = {**head, **prices, "edhrec_rank": ranks["edhrec_rank"], **tail}
        return compact(obj)

    orders = ["scryfall", "no penny rank", "preview between", "no rank key", "rank key twice", "prices first"]
    lines = [card(order, *variant) for order in orders
             for variant in ((1,), (2,), (1, "Draw two cards."), (1, "Draw a card.", "2"))]
    path = tmp_path / "cards.json"
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    con = duckdb.connect()
    assert stage_lines(con, [("scanned", path, None, VOLATILE_CARD)], cache_dir=None)
    h = [row[0] for row in con.execute("SELECT h FROM scanned ORDER BY ord").fetchall()]
    for k, order in enumerate(orders):
        day_one, day_two, reworded, relinked = h[4 * k:4 * k + 4]
        assert day_one != reworded and day_one != relinked, order
        assert (day_one == day_two) is (order != "prices first"), order
    assert len(set(h)) == len(h) - (len(orders) - 1)

    def split_off(line: str) -> int:  # the hash of the text around the three fields
        before, after = line.split(',"edhrec_rank":')
        after = after.split(',"prices":{')[1]
        return con.execute("SELECT hash($before, $after)", {"before": before,
                                                             "after": after[after.index("}") + 1:]}).fetchone()[0]

    split = [h[i] == split_off(lines[i] + ",") for i in range(0, 12, 4)]
    assert split == [True, True, False]  # Scryfall's order with or without the penny rank; not with a preview

    def wrong_when_read_back(texts: list[str]) -> tuple[int, int]:
        copied = tmp_path / "copied.jsonl"
        copied.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
        con.execute("CREATE OR REPLACE TEMP TABLE line_place AS SELECT i, i AS ord FROM range($n) AS r(i)",
                    {"n": len(texts)})
        verify = read_sql("delta/verify_lines.sql").replace("{lines}", "scanned")
        return con.execute(verify, {"file": str(copied), **hash_params(VOLATILE_CARD)}).fetchone()

    assert wrong_when_read_back(lines) == (len(lines), 0)
    for k in (1, 9):  # split off, and cleaned by the pattern
        changed = lines[:k] + [lines[k].replace("Synthetic", "Other")] + lines[k + 1:]
        assert wrong_when_read_back(changed) == (len(lines), 1)


def test_with_an_edition_of_the_rules_ingested_delta_builds_link_what_they_derive_again(
        settings, synth, caplog, monkeypatch):
    """The ingest is a full build (it links everything); the days after it are deltas that link
    the cards and rulings they derive again and leave the other links standing: the same links,
    and the same tables, as full builds."""
    caplog.set_level(logging.INFO, logger="pipeline")
    base = Day(synth)
    days = [base]

    def errata(day):
        day.rulings[4]["comment"] += " See rule 702.169b."  # a citation comes
        for card in day.cards:
            if day.oracle_of(card) == day.oracle_of(day.cards[3]) and "oracle_text" in card:
                card["oracle_text"] = card["oracle_text"].replace("Solved — ", "")  # its solved line's links go
        del day.rulings[9]

    _edited(days, errata)
    assert sync_days(settings, days, rules=monkeypatch) == ["full", "full", "delta"]
    assert not [r for r in caplog.records if "glossary terms linked change" in r.getMessage()]
    synced = fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES)
    cites = "SELECT text FROM ruling_rule JOIN ruling USING (ruling_id) WHERE method = 'citation' " \
            "AND rule_number = '702.169b'"
    assert query(settings.data_dir, cites) == [(" ".join(days[1].rulings[4]["comment"].split()),)]
    assert all(result.build == "full" for result in rebuild(settings))
    assert fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES) == synced


def test_a_delta_build_that_changes_the_glossary_terms_linked_links_every_ruling_again(
        settings, synth, caplog, monkeypatch):
    """Day 1 has no Case and no "Solved —" line (the synthetic texts edited), so no ruling links
    to the glossary terms "Case" and "Solved"; day 2 brings one Case card back, and every
    ruling that speaks of a Case or of being solved gains its glossary links, though its own
    line did not change."""
    caplog.set_level(logging.INFO, logger="pipeline")
    original = Day(synth)
    base = copy.deepcopy(original)
    base.cards = [json.loads(json.dumps(c, ensure_ascii=False).replace("Solved — ", "Closed — ").replace("Case", "Riddle"))
                  for c in base.cards]
    days = [base]
    back = base.oracle_of(original.cards[0])

    def a_case_again(day):
        day.cards = [c for c in day.cards if day.oracle_of(c) != back]
        day.cards += [c for c in original.cards if original.oracle_of(c) == back]

    _edited(days, a_case_again)
    glossary = "SELECT count(*) FROM ruling_rule WHERE method = 'glossary'"
    store = RawStore(settings.raw_dir)
    write_day(settings.raw_dir, days[0], 1)
    load_pending(settings, store)
    ingest_excerpt(settings, monkeypatch, "20000101T120000.000000Z")
    assert query(settings.data_dir, glossary) == [(0,)]
    write_day(settings.raw_dir, days[1], 2)
    assert [r.build for r in load_pending(settings, store)] == ["delta"]
    assert [r for r in caplog.records if "glossary terms linked change" in r.getMessage()]
    [(linked,)] = query(settings.data_dir, glossary)
    assert linked > 10
    synced = fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES) == synced


def test_a_rejected_day_with_the_same_rulings_file_leaves_the_next_delta_the_ruling_keys_of_the_warehouse(
        settings, synth, caplog):
    """Day 1 (the synthetic files, with a ruling with mana symbols added to card A) is loaded.
    Day 2 keeps the rulings file byte for byte, but 60 card objects, A's printings among them,
    lose their collector number: its delta build runs (without A, whose ruling goes) before the
    share of refused records rejects the run, and the warehouse stays at day 1. Day 3 is day 1
    with a copy of that ruling without its symbols on card B: its delta build starts from day 1,
    and must find A's ruling in the partition the copy comes to, as the full build does (the
    copy joins it, flagged symbols_lost)."""
    from pipeline.errors import SourceDataError

    caplog.set_level(logging.INFO, logger="pipeline")
    base = Day(synth)
    a, b = sorted({base.oracle_of(c) for c in base.cards})[3:5]
    ruling = {"object": "ruling", "oracle_id": a, "source": "wotc", "published_at": "2019-05-03"}
    base.rulings.insert(0, {**ruling, "comment": "Pay {2}{U}: draw a card."})
    unreadable = copy.deepcopy(base)
    refused = [c for c in unreadable.cards if unreadable.oracle_of(c) == a]
    refused += [c for c in unreadable.cards if unreadable.oracle_of(c) != a][:60 - len(refused)]
    for card in refused:
        card.pop("collector_number")
    copied = copy.deepcopy(base)
    copied.rulings.append({**ruling, "oracle_id": b, "comment": "Pay: draw a card."})
    store = RawStore(settings.raw_dir)
    write_day(settings.raw_dir, base, 1)
    assert [r.build for r in load_pending(settings, store)] == ["full"]
    write_day(settings.raw_dir, unreadable, 2)
    with pytest.raises(SourceDataError, match="unreadable"):
        load_pending(settings, store)
    write_day(settings.raw_dir, copied, 3)
    assert [r.build for r in load_pending(settings, store)] == ["delta"]
    synced = fingerprints(settings.data_dir, tables=TABLES)
    assert all(result.build == "full" for result in rebuild(settings))
    assert fingerprints(settings.data_dir, tables=TABLES) == synced
    lost = "SELECT count(*) FROM ruling_sighting WHERE oracle_id = ? AND list_contains(flags, 'symbols_lost')"
    assert query(settings.data_dir, lost, [b]) == [(1,)]


def test_a_copy_that_lost_a_quoted_lone_symbol_joins_its_ruling_by_delta_as_by_full_builds(settings, synth, caplog):
    """Day 1 (the synthetic files, with a constructed ruling quoting {T} added to card A) is
    loaded. Day 2 adds, on the same date, a copy of it that lost the symbol (its quotes left
    empty) on card B, and one that lost it and differs by other words on card C: the delta build
    reconciles their partition again and must give what the full builds give (B's copy joins A's
    ruling, flagged symbols_lost; C's is a ruling of its own)."""
    base = Day(synth)
    a, b, c = sorted({base.oracle_of(card) for card in base.cards})[3:6]
    text = "An ability with \u201c{T}\u201d in its cost can\u2019t be activated unless its creature has been under your control continuously."
    ruling = {"object": "ruling", "oracle_id": a, "source": "wotc", "published_at": "2019-05-03"}
    base.rulings.insert(0, {**ruling, "comment": text})
    days = [base]
    _edited(days, lambda day: day.rulings.extend([
        {**ruling, "oracle_id": b, "comment": text.replace("{T}", "")},
        {**ruling, "oracle_id": c, "comment": text.replace("{T}", "").replace("in its cost", "in its effect")}]))
    synced, rebuilt, deltas = sync_then_rebuild(settings, days, caplog)
    assert len(deltas) == 1 and synced == rebuilt
    texts = "SELECT s.oracle_id, r.text, s.flags FROM ruling_sighting AS s JOIN ruling AS r USING (ruling_id) " \
            "WHERE s.oracle_id IN (?, ?, ?) AND r.published_at = DATE '2019-05-03' ORDER BY s.oracle_id"
    assert sorted(query(settings.data_dir, texts, [a, b, c])) == sorted([
        (a, text, []), (b, text, ["symbols_lost"]),
        (c, text.replace("{T}", "").replace("in its cost", "in its effect"), [])])
