"""Delta builds against full builds on random series of days.

``test_delta.py`` plays a fixed series of edits, each chosen for a case the delta build handles.
Here Hypothesis draws the series: one to three days after the first, each with one to three
edits of the kinds below (Oracle errata, reworded, moved, shared or dropped rulings, copies of a
ruling with straight quotes or without its mana symbols, cards that go and come back, printings
that move to another card or set, refused objects, new prices...), each edit placed by a seed.
In some series the tests' rules excerpt is ingested after the first day, so that the deltas link
what they derive again; in some the files are gzipped JSON lines, not JSON arrays; in some the
cache is lost before a day, whose sync is then a full build that the next delta starts from.
The days are loaded by syncs, then by a rebuild, then by a rebuild on the Python reference path
(``pipeline/build.py``): every table, the rules links included, must come out the same all three
ways; and every day whose card file names each Scryfall id once must have been loaded by a delta
build (else the test would compare full builds only). Last, a prune of every superseded run and
a rebuild from the runs it kept must give the same cards, rulings and links, and one more day
synced after them must be a delta build that a rebuild agrees with.

The suite runs the same six series on every machine (derandomized). A longer search, of series
drawn anew each time: ``CASEFILE_DELTA_EXAMPLES=200 python -m pytest tests/test_delta_random.py``
(some 5 s a series on a two-core machine). The objects are bench/generate.py's SYNTHETIC ones;
the edits change them as Scryfall's daily files change, with texts that say what they are.
"""

from __future__ import annotations

import copy
import os
import random
import re
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

import pipeline.build
from bench.generate import Synth
from pipeline.config import Settings, validate
from pipeline.prune import prune
from pipeline.rawstore import RawStore
from pipeline.sync import load_pending, rebuild
from support.bulk_days import LINK_TABLES, TABLES, Day, load_days, write_day
from support.warehouse_state import DATA_TABLES, fingerprints

# CASEFILE_DELTA_EXAMPLES=N: N series drawn at random (a new search each run) instead of the fixed few
EXAMPLES = int(os.environ.get("CASEFILE_DELTA_EXAMPLES", "0")) or 6
FIXED = "CASEFILE_DELTA_EXAMPLES" not in os.environ


@pytest.fixture(scope="module")
def synth():
    return Synth(0.004, seed=7)  # 140 Oracle cards, 400 card objects, 561 ruling lines


def _oracle_ids(day: Day) -> list[str]:
    return sorted({day.oracle_of(c) for c in day.cards})


def _comment(ruling: dict) -> str:
    return ruling.get("comment", "")


def _straight(text: str) -> str:
    return text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'")


def _with(rulings: list[dict], has) -> list[dict]:
    return [r for r in rulings if has(_comment(r))]


# Each edit: (day, rng, base) -> None, changing the day in place; base is the first day.

def errata(day, rng, base):  # an Oracle text changes on every printing of the card
    oracle_id = rng.choice(_oracle_ids(day))
    for card in day.cards:
        if day.oracle_of(card) == oracle_id and "oracle_text" in card:
            card["oracle_text"] += " (Errata.)"


def face_errata(day, rng, base):
    faced = [c for c in day.cards if "card_faces" in c]
    if faced:
        oracle_id = day.oracle_of(rng.choice(faced))
        for card in day.cards:
            if day.oracle_of(card) == oracle_id and "card_faces" in card:
                card["card_faces"][-1]["oracle_text"] = card["card_faces"][-1].get("oracle_text", "") + " (Errata.)"


def rename(day, rng, base):
    oracle_id = rng.choice(_oracle_ids(day))
    for card in day.cards:
        if day.oracle_of(card) == oracle_id and "card_faces" not in card:
            card["name"] += " Renamed"


def type_change(day, rng, base):
    oracle_id = rng.choice(_oracle_ids(day))
    for card in day.cards:
        if day.oracle_of(card) == oracle_id and "card_faces" not in card:
            card["type_line"] = "Enchantment \u2014 Case"


def translated_errata(day, rng, base):
    translated = [c for c in day.cards if "printed_name" in c]
    if translated:
        card = rng.choice(translated)
        card["printed_name"] += " (Errata)"
        card["printed_text"] = card.get("printed_text", "") + " (Errata.)"


def reword(day, rng, base):
    ruling = rng.choice(day.rulings)
    ruling["comment"] = _comment(ruling) + " (Reworded.)"


def reword_ten(day, rng, base):
    for ruling in rng.sample(day.rulings, 10):
        ruling["comment"] = _comment(ruling) + " (Reworded.)"


def reword_everywhere(day, rng, base):  # a shared ruling reworded on every card that has it
    text = _comment(rng.choice(day.rulings))
    for ruling in day.rulings:
        if _comment(ruling) == text:
            ruling["comment"] = text + " (Reworded.)"


def redate(day, rng, base):
    rng.choice(day.rulings)["published_at"] = rng.choice(["2018-01-19", "2024-02-02", "2024-02-09"])


def other_source(day, rng, base):
    ruling = rng.choice(day.rulings)
    ruling["source"] = "scryfall" if ruling["source"] == "wotc" else "wotc"


def drop_ruling(day, rng, base):
    del day.rulings[rng.randrange(len(day.rulings))]


def ruling_moves_card(day, rng, base):
    rng.choice(day.rulings)["oracle_id"] = rng.choice(_oracle_ids(day))


def share_ruling(day, rng, base):  # a card gets another card's ruling, at any place in the file
    ruling = rng.choice(day.rulings)
    day.rulings.insert(rng.randrange(len(day.rulings) + 1), {**ruling, "oracle_id": rng.choice(_oracle_ids(day))})


def straight_copy(day, rng, base):  # a copy with straight quotes, on another card or the same one
    curly = _with(day.rulings, lambda t: "\u201c" in t or "\u2019" in t)
    if curly:
        ruling = rng.choice(curly)
        owner = rng.choice([ruling["oracle_id"], rng.choice(_oracle_ids(day))])
        day.rulings.append({**ruling, "oracle_id": owner, "comment": _straight(ruling["comment"])})


def straighten(day, rng, base):  # a ruling's own quotes made straight
    curly = _with(day.rulings, lambda t: "\u201c" in t or "\u2019" in t)
    if curly:
        ruling = rng.choice(curly)
        ruling["comment"] = _straight(ruling["comment"])


def symbols_lost_copy(day, rng, base):  # a copy without its mana symbols, on another card or the same one
    symbolic = _with(day.rulings, lambda t: "{" in t)
    if symbolic:
        ruling = rng.choice(symbolic)
        owner = rng.choice([ruling["oracle_id"], rng.choice(_oracle_ids(day))])
        day.rulings.insert(rng.randrange(len(day.rulings) + 1),
                           {**ruling, "oracle_id": owner, "comment": re.sub(r"\{[^}]*\}", "", ruling["comment"])})


def repeated_line(day, rng, base):  # the same ruling line twice
    i = rng.randrange(len(day.rulings))
    day.rulings.insert(i, copy.deepcopy(day.rulings[i]))


def swap_rulings(day, rng, base):
    a, b = rng.randrange(len(day.rulings)), rng.randrange(len(day.rulings))
    day.rulings[a], day.rulings[b] = day.rulings[b], day.rulings[a]


def refused_ruling(day, rng, base):  # no comment, or an empty one
    ruling = rng.choice(day.rulings)
    if rng.random() < 0.5:
        ruling.pop("comment", None)
    else:
        ruling["comment"] = ""


def revert_ruling(day, rng, base):  # a ruling line as it was on the first day
    i = rng.randrange(min(len(day.rulings), len(base.rulings)))
    day.rulings[i] = copy.deepcopy(base.rulings[i])


def card_goes(day, rng, base):  # every printing of a card goes; its rulings stay in the file
    oracle_id = rng.choice(_oracle_ids(day))
    day.cards = [c for c in day.cards if day.oracle_of(c) != oracle_id]


def card_comes_back(day, rng, base):
    gone = sorted({base.oracle_of(c) for c in base.cards} - set(_oracle_ids(day)))
    if gone:
        oracle_id = rng.choice(gone)
        day.cards.extend(copy.deepcopy(c) for c in base.cards if base.oracle_of(c) == oracle_id)


def new_printing(day, rng, base):
    card = copy.deepcopy(rng.choice([c for c in day.cards if c["lang"] == "en"]))
    card["id"] = f"00000000-0000-5000-8000-{rng.randrange(10 ** 12):012d}"
    card["collector_number"] = str(rng.randrange(900, 1000))
    day.cards.insert(rng.randrange(len(day.cards) + 1), card)


def drop_printing(day, rng, base):
    del day.cards[rng.randrange(len(day.cards))]


def printing_moves_card(day, rng, base):
    plain = [c for c in day.cards if "card_faces" not in c]
    rng.choice(plain)["oracle_id"] = rng.choice(plain)["oracle_id"]


def printing_moves_set(day, rng, base):
    card, new_set = rng.choice(day.cards), rng.choice(day.sets)
    card["set"], card["set_name"] = new_set["code"], new_set["name"]


def refused_printing(day, rng, base):
    rng.choice(day.cards).pop("collector_number", None)


def move_card_line(day, rng, base):
    card = day.cards.pop(rng.randrange(len(day.cards)))
    day.cards.insert(rng.randrange(len(day.cards) + 1), card)


def new_prices(day, rng, base):  # what changes on every card every day: no card changed
    for card in day.cards:
        card["prices"] = {"usd": f"{rng.random():.2f}", "eur": None}
        card["edhrec_rank"] = rng.randrange(1, 30000)


EDITS = {edit.__name__: edit for edit in (
    errata, face_errata, rename, type_change, translated_errata, reword, reword_ten, reword_everywhere, redate,
    other_source, drop_ruling, ruling_moves_card, share_ruling, straight_copy, straighten, symbols_lost_copy,
    repeated_line, swap_rulings, refused_ruling, revert_ruling, card_goes, card_comes_back, new_printing,
    drop_printing, printing_moves_card, printing_moves_set, refused_printing, move_card_line, new_prices)}

SERIES = st.lists(st.lists(st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 2 ** 32 - 1)),
                           min_size=1, max_size=3), min_size=1, max_size=3)


def _next_day(day: Day, edits, base: Day) -> Day:
    day = copy.deepcopy(day)
    for name, seed in edits:
        EDITS[name](day, random.Random(seed), base)
    return day


def _ids_once(day: Day) -> bool:
    ids = [c["id"] for c in day.cards]
    return len(ids) == len(set(ids))


@pytest.mark.timeout(60 + 30 * EXAMPLES)  # the whole search is one test
@settings(max_examples=EXAMPLES, deadline=None, derandomize=FIXED, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(series=SERIES, with_rules=st.booleans(), gz=st.booleans(), lost=st.sets(st.integers(2, 4), max_size=1),
       after_prune=SERIES.map(lambda series: series[0]))
def test_random_days_load_the_same_by_delta_and_by_full_builds(series, with_rules, gz, lost, after_prune, synth,
                                                              tmp_path_factory, monkeypatch):
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 0)  # the SQL path, where the delta is
    base = Day(synth)
    days = [base]
    for edits in series:
        days.append(_next_day(days[-1], edits, base))
    settings = validate(Settings(data_dir=tmp_path_factory.mktemp("data")))

    builds, synced, rebuilt = load_days(settings, days, gz=gz, rules=monkeypatch if with_rules else None,
                                        lose_cache=frozenset(lost), tables=TABLES + LINK_TABLES)

    note(f"builds: {builds}")
    assert synced == rebuilt
    if with_rules:
        assert builds.pop(1) == "full"  # the ingest of the rules excerpt, after the first day
    for n, (day, build) in enumerate(zip(days[1:], builds[1:]), 2):
        if n in lost:
            assert build == "full"
        elif _ids_once(day):
            assert build == "delta"
    # and the Python reference path, which the SQL path is held to, rebuilds the same tables
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 10 ** 12)
    assert all(result.build == "python" for result in rebuild(settings))
    assert fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES) == rebuilt
    # a prune of every superseded run, then a rebuild from the runs kept: the same cards, rulings
    # and links; the history goes (the change events, and where each sighting was first read)
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 0)
    first_read = {"ruling_sighting": ("doc_id",)}
    before = fingerprints(settings.data_dir, tables=DATA_TABLES + LINK_TABLES, leave_out=first_read)
    prune(settings, keep_days=0, now=datetime(2100, 1, 1, tzinfo=timezone.utc))
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=DATA_TABLES + LINK_TABLES, leave_out=first_read) == before
    # and the next day's sync starts from the pruned store and the cache the rebuild left
    days.append(_next_day(days[-1], after_prune, base))
    write_day(settings.raw_dir, days[-1], len(days), gz=gz)
    [result] = load_pending(settings, RawStore(settings.raw_dir))
    assert result.build == "delta" or not _ids_once(days[-1])
    synced = fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES) == synced
