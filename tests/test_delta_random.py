"""Delta builds against full builds on random series of days.

``test_delta.py`` plays a fixed series of edits, each chosen for a case the delta build handles.
Here Hypothesis draws the series: one to three days after the first, each with one to three
edits of the kinds below (Oracle errata, reworded, moved, shared or dropped rulings, copies of a
ruling with straight quotes or without its mana symbols, cards that go and come back, printings
that move to another card or set, refused objects, new prices; cards that gain or lose faces or
become reversible, printings that change language, an Oracle card merged into another, a set's
new code, rulings retyped (dashes, spaces, quotes, invisible characters), a card's rulings all
gone, lines reordered or repeated across a file, the last line of a file, CRLF line ends, a day
as it was two days before, a day with so many unreadable records that its run is rejected...),
each edit placed by a seed.
In some series the view's query keeps only some cards (a local filter, which edits move cards
into or out of); in some the tests' rules excerpt is ingested after the first day, so that the
deltas link what they derive again; in some the files are gzipped JSON lines, not JSON arrays; in
some the cache is lost before a day, whose sync is then a full build that the next delta starts
from.
The days are loaded by syncs, then by a rebuild, then by a rebuild on the Python reference path
(``pipeline/build.py``): every table, the rules links included, must come out the same all three
ways; and every day whose card file names each Scryfall id once must have been loaded by a delta
build (else the test would compare full builds only), unless it changes more than a quarter of a
file's lines or is a JSON array with CRLF line ends and lines to read again. Last, a prune of
every superseded run and a rebuild from the runs it kept must give the same cards, rulings and
links, and one more day synced after them must be a delta build that a rebuild agrees with.

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
from collections import Counter
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

import pipeline.build
from bench.generate import Synth, compact
from pipeline.config import Settings, validate
from pipeline.normalize.delta import MAX_CHANGED_SHARE, VOLATILE_FIELD_NAMES
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


# Edits of shapes the ones above do not make: faces that come or go, a printing's language, an
# Oracle card merged into another, a set's new code, typography-only rewordings, reordered lines,
# the last line of a file, CRLF line ends, a rejected day, a revert.

def _faced(card: dict, oracle_ids: list[str] | None = None) -> None:
    """The card object as a two-faced one (each face with its own Oracle text); with
    ``oracle_ids``, a reversible card whose faces name those Oracle cards (none on the object)."""
    face = {"object": "card_face", "mana_cost": card.get("mana_cost", ""), "type_line": card.get("type_line", ""),
            "oracle_text": card.get("oracle_text", ""), "colors": card.get("colors", [])}
    name = card["name"]
    card["card_faces"] = [{**face, "name": name}, {**face, "name": name + " Back", "mana_cost": "",
                                                   "oracle_text": "Transform this at dusk."}]
    card["name"] = f"{name} // {name} Back"
    card["layout"] = "transform"
    for key in ("mana_cost", "oracle_text", "colors"):
        card.pop(key, None)
    if oracle_ids:
        for f, oracle_id in zip(card["card_faces"], oracle_ids):
            f["oracle_id"], f["cmc"] = oracle_id, card.get("cmc", 0.0)
        card["layout"] = "reversible_card"
        card.pop("oracle_id", None)
        card.pop("type_line", None)


def gains_faces(day, rng, base):  # every printing of a card becomes two-faced
    plain = sorted({day.oracle_of(c) for c in day.cards if "card_faces" not in c})
    oracle_id = rng.choice(plain)
    for card in day.cards:
        if day.oracle_of(card) == oracle_id and "card_faces" not in card:
            _faced(card)


def loses_faces(day, rng, base):  # a two-faced card's printings become one-faced (its front)
    faced = sorted({day.oracle_of(c) for c in day.cards if "card_faces" in c and "oracle_id" in c})
    if faced:
        oracle_id = rng.choice(faced)
        for card in day.cards:
            if card.get("oracle_id") == oracle_id and "card_faces" in card:
                front = card.pop("card_faces")[0]
                card.update(name=front["name"], mana_cost=front.get("mana_cost", ""), layout="normal",
                            oracle_text=front.get("oracle_text", ""), colors=front.get("colors", []))


def reversible(day, rng, base):  # a printing becomes a reversible card: its faces name their Oracle cards
    card = rng.choice([c for c in day.cards if "card_faces" not in c])
    _faced(card, [card["oracle_id"], rng.choice([card["oracle_id"], rng.choice(_oracle_ids(day))])])


def reversible_face_moves(day, rng, base):  # a face of a reversible card names another Oracle card
    flipped = [c for c in day.cards if "card_faces" in c and "oracle_id" not in c]
    if flipped:
        faces = rng.choice(flipped)["card_faces"]
        faces[rng.randrange(len(faces))]["oracle_id"] = rng.choice(_oracle_ids(day))


def language_change(day, rng, base):  # a printing's language corrected (English or not)
    card = rng.choice(day.cards)
    if card["lang"] == "en":
        card["lang"] = rng.choice(["de", "ja"])
        card["printed_name"] = card["name"] + " (translated)"
        card["printed_text"] = "Translated text."
    else:
        card["lang"] = "en"
        for key in ("printed_name", "printed_text", "printed_type_line"):
            card.pop(key, None)


def only_english(day, rng, base):  # one English printing of a card stays English, the others go or are translated
    oracle_id = rng.choice(_oracle_ids(day))
    english = [c for c in day.cards if day.oracle_of(c) == oracle_id and c["lang"] == "en"]
    keep = rng.choice(english) if english and rng.random() < 0.7 else None
    for card in english:
        if card is not keep:
            if rng.random() < 0.5:
                day.cards.remove(card)
            else:
                card["lang"], card["printed_name"] = "fr", card["name"] + " (fr)"


def merge_card(day, rng, base):  # an Oracle card merged into another: its printings (and maybe rulings) move
    gone, into = rng.choice(_oracle_ids(day)), rng.choice(_oracle_ids(day))
    target = next(c for c in day.cards if day.oracle_of(c) == into)
    for card in day.cards:
        if day.oracle_of(card) == gone and "oracle_id" in card:
            card["oracle_id"] = into
            card["name"] = target["name"]
            for key in ("oracle_text", "type_line", "mana_cost"):
                if key in target:
                    card[key] = target[key]
    if rng.random() < 0.5:
        for ruling in day.rulings:
            if ruling["oracle_id"] == gone:
                ruling["oracle_id"] = into


def set_code_change(day, rng, base):  # a set gets another code, on the set and on its printings
    s = rng.choice(day.sets)
    old, new = s["code"], s["code"] + rng.choice(["a", "p"])
    s["code"] = new
    for card in day.cards:
        if card["set"] == old:
            card["set"] = new


TYPOGRAPHY = [  # (what is looked for, what replaces it): the same sentence to a reader
    ("\u2014", "--"), ("\u2014", "-"), (" ", "  "), (" ", "\u00a0"), ("e", "e\u00ad"), ("a", "a\u200b"),
    (".", " ."), ("\u2019", "'"), ("'", "\u2019"), ('"', "\u201c"), ("\u201c", '"'), ("--", "\u2014")]


def _retyped(text: str, rng) -> str:
    found = [(a, b) for a, b in TYPOGRAPHY if a in text]
    if not found or rng.random() < 0.2:
        return text + rng.choice([" ", "\u200b", "\u00ad", "\ufeff"])
    a, b = rng.choice(found)
    at = rng.choice([m.start() for m in re.finditer(re.escape(a), text)])
    return text[:at] + b + text[at + len(a):]


def retype(day, rng, base):  # a ruling's text changes by typography only (dashes, spaces, quotes, invisibles)
    ruling = rng.choice(day.rulings)
    ruling["comment"] = _retyped(_comment(ruling), rng)


def retyped_copy(day, rng, base):  # a copy of a ruling, changed by typography only, on another card or the same one
    ruling = rng.choice(day.rulings)
    owner = rng.choice([ruling["oracle_id"], rng.choice(_oracle_ids(day))])
    day.rulings.insert(rng.randrange(len(day.rulings) + 1),
                       {**ruling, "oracle_id": owner, "comment": _retyped(_comment(ruling), rng)})


def redate_everywhere(day, rng, base):  # a shared ruling moves to another date or source on every card
    text = _comment(rng.choice(day.rulings))
    field, value = rng.choice([("published_at", "2024-02-09"), ("source", "scryfall"), ("source", "wotc")])
    for ruling in day.rulings:
        if _comment(ruling) == text:
            ruling[field] = value


def card_loses_rulings(day, rng, base):  # every ruling of a card goes from the file
    oracle_id = rng.choice(sorted({r["oracle_id"] for r in day.rulings}))
    day.rulings = [r for r in day.rulings if r["oracle_id"] != oracle_id]


def repeated_far(day, rng, base):  # the same ruling line again, elsewhere in the file
    day.rulings.insert(rng.randrange(len(day.rulings) + 1), copy.deepcopy(rng.choice(day.rulings)))


def move_ruling_block(day, rng, base):  # a card's rulings move together to another place in the file
    oracle_id = rng.choice(sorted({r["oracle_id"] for r in day.rulings}))
    block = [r for r in day.rulings if r["oracle_id"] == oracle_id]
    day.rulings = [r for r in day.rulings if r["oracle_id"] != oracle_id]
    at = rng.randrange(len(day.rulings) + 1)
    day.rulings[at:at] = block


def shuffle_span(day, rng, base):  # lines reordered across a stretch of a file
    lines = day.rulings if rng.random() < 0.5 else day.cards
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randrange(2, 30))
    span = lines[a:b]
    rng.shuffle(span)
    lines[a:b] = span


def last_line(day, rng, base):  # the last line of a file changes, comes or goes (the comma before "]")
    lines = day.rulings if rng.random() < 0.5 else day.cards
    how = rng.choice(["edit", "drop", "move", "append"])
    if how == "drop":
        lines.pop()
    elif how == "move":  # the last line goes to the front, or the first line to the end
        if rng.random() < 0.5:
            lines.insert(0, lines.pop())
        else:
            lines.append(lines.pop(0))
    elif lines is day.rulings:
        if how == "edit":
            lines[-1]["comment"] = _comment(lines[-1]) + " (Reworded.)"
        else:
            lines.append({**rng.choice(lines), "oracle_id": rng.choice(_oracle_ids(day))})
    elif how == "edit":
        lines[-1]["rarity"] = "special"
    else:
        card = copy.deepcopy(rng.choice(lines))
        card["id"] = f"00000000-0000-5000-9000-{rng.randrange(10 ** 12):012d}"
        lines.append(card)


def crlf(day, rng, base):  # the files written with CRLF line ends (or with LF again)
    day.crlf = not day.crlf


def unreadable_day(day, rng, base):  # a seventh of the card objects (and of the rulings) written refused
    day.unreadable = rng.choice(["cards", "rulings"])


def two_days_back(day, rng, base):  # the day as it was two days before (a revert); see _next_day
    raise AssertionError("replaced by _next_day")


EDITS = {edit.__name__: edit for edit in (
    errata, face_errata, rename, type_change, translated_errata, reword, reword_ten, reword_everywhere, redate,
    other_source, drop_ruling, ruling_moves_card, share_ruling, straight_copy, straighten, symbols_lost_copy,
    repeated_line, swap_rulings, refused_ruling, revert_ruling, card_goes, card_comes_back, new_printing,
    drop_printing, printing_moves_card, printing_moves_set, refused_printing, move_card_line, new_prices,
    gains_faces, loses_faces, reversible, reversible_face_moves, language_change, only_english, merge_card,
    set_code_change, retype, retyped_copy, redate_everywhere, card_loses_rulings, repeated_far, move_ruling_block,
    shuffle_span, last_line, crlf, unreadable_day, two_days_back)}

# The view's query: every card, or a local filter that keeps some (pipeline/normalize/query.py),
# which edits move cards into or out of (a type changed, a printing moved to another set...).
QUERIES = ("*", "*", "t:creature", "-t:instant", "set:x001", "-set:x002 -type:land", "name:front")

SERIES = st.lists(st.lists(st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 2 ** 32 - 1)),
                           min_size=1, max_size=3), min_size=1, max_size=3)


def _next_day(days: list[Day], edits, base: Day) -> Day:
    """The day after the last of ``days``, with the edits made in turn (two_days_back: the files
    of the day before the last, or of the first day when there is none)."""
    day = copy.deepcopy(days[-1])
    day.unreadable = None  # the next day's files are readable again, unless an edit says otherwise
    for name, seed in edits:
        if name == "two_days_back":
            day = copy.deepcopy(days[-2] if len(days) > 1 else base)
        else:
            EDITS[name](day, random.Random(seed), base)
    return day


def _ids_once(day: Day) -> bool:
    ids = [c["id"] for c in day.cards]
    return len(ids) == len(set(ids))


def _line(item: dict) -> str:  # an object's line as the delta compares it: without prices and ranks
    return compact({k: v for k, v in item.items() if k not in VOLATILE_FIELD_NAMES})


def _few_changed(previous: Day, day: Day) -> bool:
    """Whether at most MAX_CHANGED_SHARE of each file's lines are new, changed or gone (one more
    for the line that stops or starts being the last, whose comma changes)."""
    for old, new in ((previous.cards, day.cards), (previous.rulings, day.rulings)):
        before, after = Counter(map(_line, old)), Counter(map(_line, new))
        changed = max(sum((after - before).values()), sum((before - after).values())) + 1
        if changed > MAX_CHANGED_SHARE * max(len(new), 1):
            return False
    return True


def _delta_expected(previous: Day, day: Day, gz: bool) -> bool:
    """Whether the day's sync must be a delta build: a card file that names each Scryfall id
    once, few lines changed, and no JSON array written with CRLF line ends (whose line offsets
    miss the CR: the lines read again differ from their hashes, and the build is full) unless
    nothing changed."""
    crlf_read = day.crlf and not gz and (day.cards, day.rulings) != (previous.cards, previous.rulings)
    return _ids_once(day) and _few_changed(previous, day) and not crlf_read


@pytest.mark.timeout(60 + 30 * EXAMPLES)  # the whole search is one test
@settings(max_examples=EXAMPLES, deadline=None, derandomize=FIXED, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(series=SERIES, with_rules=st.booleans(), gz=st.booleans(), lost=st.sets(st.integers(2, 4), max_size=1),
       after_prune=SERIES.map(lambda series: series[0]), query=st.sampled_from(QUERIES))
def test_random_days_load_the_same_by_delta_and_by_full_builds(series, with_rules, gz, lost, after_prune, query, synth,
                                                              tmp_path_factory, monkeypatch):
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 0)  # the SQL path, where the delta is
    base = Day(synth)
    base.query = query
    days = [base]
    for edits in series:
        days.append(_next_day(days, edits, base))
    settings = validate(Settings(data_dir=tmp_path_factory.mktemp("data")))

    builds, synced, rebuilt = load_days(settings, days, gz=gz, rules=monkeypatch if with_rules else None,
                                        lose_cache=frozenset(lost), tables=TABLES + LINK_TABLES)

    note(f"builds: {builds}")
    assert synced == rebuilt
    if with_rules:
        assert builds.pop(1) == "full"  # the ingest of the rules excerpt, after the first day
    loaded = base  # the day whose view the warehouse holds
    for n, (day, build) in enumerate(zip(days[1:], builds[1:]), 2):
        if build == "rejected":  # too many records refused: the warehouse keeps the day before
            assert day.unreadable
            continue
        if n in lost:
            assert build == "full"
        elif _delta_expected(loaded, day, gz):
            assert build == "delta"
        loaded = day
    # and the Python reference path, which the SQL path is held to, rebuilds the same tables
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 10 ** 12)
    assert all(result.build == "python" for result in rebuild(settings))
    assert fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES) == rebuilt
    # a prune of every superseded run, then a rebuild from the runs kept: the same cards, rulings,
    # sightings (the prune points them at the kept rulings file) and links; the change events go
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 0)
    prune(settings, keep_days=0, now=datetime(2100, 1, 1, tzinfo=timezone.utc))
    before = fingerprints(settings.data_dir, tables=DATA_TABLES + LINK_TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=DATA_TABLES + LINK_TABLES) == before
    # and the next day's sync starts from the pruned store and the cache the rebuild left
    days.append(_next_day(days, after_prune, base))
    days[-1].unreadable = None
    write_day(settings.raw_dir, days[-1], len(days), gz=gz)
    [result] = load_pending(settings, RawStore(settings.raw_dir))
    assert result.build == "delta" or not _delta_expected(loaded, days[-1], gz)
    synced = fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES)
    rebuild(settings)
    assert fingerprints(settings.data_dir, tables=TABLES + LINK_TABLES) == synced
