"""Reconciliation: sightings from the reference facts (API copies) and the seed pages."""

import json
import logging
import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from pipeline.normalize.text import match_key
from pipeline.reconcile import OTHER_WORDING, SYMBOLS_LOST, reconcile, ruling_id_for
from pipeline.records import RulingSighting

from conftest import FIXTURES

CARDS = json.loads((FIXTURES / "reference" / "case_cards.json").read_text("utf-8"))
SEED_WIKI = (FIXTURES / "seeds" / "000_8bff36ab184ebabf.txt").read_text("utf-8")
SEED_SCRYFALL = (FIXTURES / "seeds" / "002_69a2b200c1ac39cf.txt").read_text("utf-8")
VISAGE = next(c for c in CARDS if c["name"] == "Case of the Shifting Visage")


def api_sightings() -> list[RulingSighting]:
    out = []
    for card in CARDS:
        oid = card["identifiers"]["oracle_id"]
        for i, r in enumerate(card["rulings"]):
            out.append(RulingSighting(doc_id=f"api-{oid}", origin="scryfall-api", oracle_id=oid, position=i,
                                      text_as_seen=r["text"], date_as_seen=r["published_at"], source="wotc"))
    return out


def wiki_sightings() -> list[RulingSighting]:
    section = SEED_WIKI.split("\nRulings\n", 1)[1]
    bullets = [line.strip().lstrip("•").strip() for line in section.splitlines() if line.strip().startswith("•")]
    return [RulingSighting(doc_id="wiki", origin="mtgwiki", oracle_id=None, position=i, text_as_seen=t,
                           date_as_seen=None, source=None) for i, t in enumerate(bullets)]


def scryfall_page_sightings() -> list[RulingSighting]:
    lines = [l.strip() for l in SEED_SCRYFALL.splitlines()[1:] if l.strip()]
    oid = VISAGE["identifiers"]["oracle_id"]
    return [RulingSighting(doc_id="page-visage", origin="scryfall-page", oracle_id=oid, position=i, text_as_seen=t,
                           date_as_seen=None, source=None) for i, t in enumerate(lines)]


def everything() -> list[RulingSighting]:
    return api_sightings() + wiki_sightings() + scryfall_page_sightings()


def test_api_copies_fold_to_the_distinct_rulings_of_the_reference():
    out = reconcile(api_sightings())
    expected = {(r["published_at"], match_key(r["text"])) for c in CARDS for r in c["rulings"]}
    assert len(out.rulings) == len(expected) == 40
    assert len(out.card_rulings) == 153
    general = [r for r in out.rulings if sum(1 for c in out.card_rulings if c.ruling_id == r.ruling_id) == 13]
    assert len(general) == 9


def test_best_copy_is_the_curly_one():
    out = reconcile(api_sightings())
    cases = next(r for r in out.rulings if r.match_key.startswith("cases don't lose"))
    assert cases.text == "Cases don’t lose their other abilities when they become solved."


def test_wiki_rulings_attach_or_stand_alone():
    out = reconcile(api_sightings() + wiki_sightings())
    wiki_rows = [s for s in out.sightings if s.origin == "mtgwiki"]
    assert len(wiki_rows) == 14
    by_id = {r.ruling_id: r for r in out.rulings}
    attached = [s for s in wiki_rows if by_id[s.ruling_id].source == "wotc"]
    own = [by_id[s.ruling_id] for s in wiki_rows if by_id[s.ruling_id].source == "mtgwiki"]
    assert len(attached) == 9 and len(own) == 5
    assert all(r.published_at is None for r in own)
    assert {r.text[:40] for r in own} == {
        "The first ability of a Case is always ac", "To solve a Case, its \"to solve\" conditio",
        "As long as it's solved, its \"to solve\" a", "A Case remains solved even if another pl",
        "An unsolved Case will check if it has be"}
    assert len(out.rulings) == 45
    assert len(out.card_rulings) == 153  # wiki rulings are about the subtype, not linked to cards


def test_the_page_copy_that_lost_its_symbol_is_attached_and_flagged():
    out = reconcile(api_sightings() + scryfall_page_sightings())
    page_rows = [s for s in out.sightings if s.origin == "scryfall-page"]
    assert len(page_rows) == 16
    lost = [s for s in page_rows if SYMBOLS_LOST in s.flags]
    assert len(lost) == 1 and "cost less to cast" in lost[0].text_as_seen
    ruling = next(r for r in out.rulings if r.ruling_id == lost[0].ruling_id)
    assert "cost {1} less to cast" in ruling.text
    oid = VISAGE["identifiers"]["oracle_id"]
    assert sum(1 for c in out.card_rulings if c.oracle_id == oid) == 16
    assert len(out.rulings) == 40


def test_a_symbol_less_copy_with_a_date_joins_the_dated_ruling():
    api = api_sightings()
    original = next(s for s in api if "cost {1} less" in s.text_as_seen)
    dated = RulingSighting(doc_id="lb", origin="listeblanche", oracle_id=original.oracle_id, position=0,
                           text_as_seen=original.text_as_seen.replace("cost {1} less", "cost less"),
                           date_as_seen="2024-02-02", source="wotc")
    out = reconcile(api + [dated])
    assert len(out.rulings) == 40
    row = next(s for s in out.sightings if s.doc_id == "lb")
    assert SYMBOLS_LOST in row.flags


def test_translations_pair_by_structure_not_by_text():
    api = api_sightings()
    oid = VISAGE["identifiers"]["oracle_id"]
    en = [s for s in api if s.oracle_id == oid][:2]
    page = []
    for i, s in enumerate(en):
        page.append(RulingSighting("lb", "listeblanche", oid, i, s.text_as_seen, "2024-02-02", "wotc"))
        # Marker strings, not real French: the recorded pages hold no translation text.
        page.append(RulingSighting("lb", "listeblanche", oid, i, f"[FR {i}]", "2024-02-02", "wotc", lang="fr", translates=i))
    out = reconcile(api + page)
    assert len(out.rulings) == 40
    assert len(out.translations) == 2
    for t in out.translations:
        assert t.lang == "fr" and t.machine_translated and t.origin == "listeblanche"
    by_ruling = {t.ruling_id: t.text for t in out.translations}
    first = next(s for s in out.sightings if s.doc_id == "lb" and s.lang == "en" and s.position == 0)
    assert by_ruling[first.ruling_id] == "[FR 0]"


def test_a_translation_without_its_english_copy_is_reported_not_loaded():
    stray = RulingSighting("lb", "listeblanche", "x", 5, "[FR]", "2024-02-02", "wotc", lang="fr", translates=5)
    out = reconcile(api_sightings() + [stray])
    assert out.unmatched_translations == [stray] and out.translations == []


def test_a_build_warns_of_a_translation_left_out_for_want_of_its_english_copy(caplog):
    from pipeline.build import _reconciled

    stray = RulingSighting("lb", "listeblanche", "x", 5, "[FR]", "2024-02-02", "wotc", lang="fr", translates=5)
    with caplog.at_level(logging.WARNING, logger="pipeline.build"):
        out = _reconciled(api_sightings() + [stray])
    assert out.translations == []
    assert [r.getMessage() for r in caplog.records] == [
        "1 translation(s) left out: the English copy each translates is not in the run (first: lb, fr copy in "
        "listeblanche)"]


def test_ruling_identity_is_source_date_and_key():
    rid = ruling_id_for("wotc", "2024-02-02", "a")
    assert rid == ruling_id_for("wotc", "2024-02-02", "a")
    assert len({rid, ruling_id_for("scryfall", "2024-02-02", "a"), ruling_id_for("wotc", "2024-02-03", "a"),
                ruling_id_for("wotc", "2024-02-02", "b")}) == 4


def _as_rows(out):
    return (out.rulings, sorted(out.card_rulings, key=repr), out.sightings, out.translations)


ALL = everything()
BASELINE = _as_rows(reconcile(ALL))

CURLY = str.maketrans({"'": "\u2019", '"': "\u201d"})
STRAIGHT = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dup=st.floats(0, 1))
def test_shuffled_and_duplicated_inputs_give_the_same_rows(seed, dup):
    rng = random.Random(seed)
    items = list(ALL) + [s for s in ALL if rng.random() < dup]
    rng.shuffle(items)
    assert _as_rows(reconcile(items)) == BASELINE


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_retypeset_copies_keep_every_ruling_identity(seed):
    rng = random.Random(seed)
    retyped = []
    for s in ALL:
        table = CURLY if rng.random() < 0.5 else STRAIGHT
        spaces = "  " if rng.random() < 0.3 else " "
        retyped.append(RulingSighting(s.doc_id, s.origin, s.oracle_id, s.position,
                                      s.text_as_seen.translate(table).replace(" ", spaces) + " ",
                                      s.date_as_seen, s.source))
    rng.shuffle(retyped)
    out = reconcile(retyped)
    base_rulings, base_links = BASELINE[0], BASELINE[1]
    assert [(r.ruling_id, r.source, r.published_at, r.match_key) for r in out.rulings] == \
        [(r.ruling_id, r.source, r.published_at, r.match_key) for r in base_rulings]
    assert sorted(out.card_rulings, key=repr) == base_links


def test_reconcile_is_idempotent_over_its_own_sightings():
    first = reconcile(ALL)
    again = reconcile(ALL + ALL)
    assert _as_rows(first) == _as_rows(again)
    assert Counter(s.origin for s in first.sightings) == Counter({"scryfall-page": 16, "mtgwiki": 14, "scryfall-api": 153})


# Constructed texts, shaped like rulings that differ only by their symbols on different cards.
def _api(oid, text, date="2024-02-02", doc=None):
    return RulingSighting(doc_id=doc or f"api-{oid}", origin="scryfall-api", oracle_id=oid, position=0,
                          text_as_seen=text, date_as_seen=date, source="wotc")


def _page(oid, text, origin="scryfall-page", date=None, source=None):
    return RulingSighting(doc_id=f"{origin}-{oid}", origin=origin, oracle_id=oid, position=0,
                          text_as_seen=text, date_as_seen=date, source=source)


def _links(out):
    text = {r.ruling_id: r.text for r in out.rulings}
    return sorted((c.oracle_id, text[c.ruling_id]) for c in out.card_rulings)


def test_a_card_page_copy_that_lost_its_symbols_joins_its_own_cards_ruling():
    for docs in (("d1", "d2"), ("d2", "d1")):  # whatever the documents' ids sort like
        out = reconcile([_api("a", "Spells cost {1} less to cast.", doc=docs[0]),
                         _api("b", "Spells cost {2} less to cast.", doc=docs[1]),
                         _page("b", "Spells cost less to cast.")])
        assert _links(out) == [("a", "Spells cost {1} less to cast."), ("b", "Spells cost {2} less to cast.")]
        [row] = [s for s in out.sightings if s.origin == "scryfall-page"]
        assert SYMBOLS_LOST in row.flags and "ambiguous_match" not in row.flags


def test_a_card_page_copy_that_lost_its_symbols_joins_its_own_cards_ruling_not_another_cards_same_words():
    """CONSTRUCTED: card c's API copy has the words without symbols, a ruling of its own (a and b
    have two symbol versions, so it folds into neither). Before, a's page copy that lost its {1}
    joined c's ruling by its exact key: card a was linked to a ruling it does not have, while its
    listeblanche copy, dated, went to a's own."""
    out = reconcile([_api("a", "Spells cost {1} less to cast."), _api("b", "Spells cost {2} less to cast."),
                     _api("c", "Spells cost less to cast."), _page("a", "Spells cost less to cast."),
                     _page("a", "Spells cost less to cast.", origin="listeblanche", date="2024-02-02", source="wotc")])
    assert _links(out) == [("a", "Spells cost {1} less to cast."), ("b", "Spells cost {2} less to cast."),
                           ("c", "Spells cost less to cast.")]
    for row in (s for s in out.sightings if s.origin != "scryfall-api"):
        assert SYMBOLS_LOST in row.flags, row
    # a copy on c's page is c's ruling, as it says
    out = reconcile([_api("a", "Spells cost {1} less to cast."), _api("b", "Spells cost {2} less to cast."),
                     _api("c", "Spells cost less to cast."), _page("c", "Spells cost less to cast.")])
    assert _links(out) == [("a", "Spells cost {1} less to cast."), ("b", "Spells cost {2} less to cast."),
                           ("c", "Spells cost less to cast.")]
    [row] = [s for s in out.sightings if s.origin == "scryfall-page"]
    assert SYMBOLS_LOST not in row.flags


def test_dated_page_copies_that_lost_their_symbols_make_no_ruling_of_their_own():
    colours = "WUBRG"
    sightings = [_api(c, f"Its last ability adds {{{c}}} only once each turn.") for c in colours]
    sightings += [_page(c, "Its last ability adds only once each turn.", origin="listeblanche",
                        date="2024-02-02", source="wotc") for c in colours]
    out = reconcile(sightings)
    assert len(out.rulings) == 5 and all("{" in r.text for r in out.rulings)
    assert _links(out) == [(c, f"Its last ability adds {{{c}}} only once each turn.") for c in sorted(colours)]


def test_an_undated_card_page_copy_takes_the_date_its_card_has():
    text = "If the target becomes illegal, the spell doesn't resolve."
    out = reconcile([_api("a", text, date="2020-01-01"), _api("b", text), _page("a", text)])
    dates = {r.ruling_id: r.published_at for r in out.rulings}
    assert sorted((c.oracle_id, dates[c.ruling_id]) for c in out.card_rulings) == [("a", "2020-01-01"),
                                                                                  ("b", "2024-02-02")]


def test_a_copy_with_other_symbols_is_another_ruling_not_a_silent_match():
    out = reconcile([_api("a", "It costs {1} less to cast."), _page("a", "It costs {2} less to cast.")])
    assert _links(out) == [("a", "It costs {1} less to cast."), ("a", "It costs {2} less to cast.")]
    assert all(match_key(r.text) == r.match_key for r in out.rulings)


def test_a_page_copy_with_invisible_characters_and_a_typed_dash_is_the_api_ruling():
    """Web pages put soft hyphens and zero-width spaces into long words, and a wiki editor types
    "--" for "—": the reader sees the API's sentence, and the copy joins its ruling unflagged.
    Constructed from a reference ruling that holds a dash."""
    api = api_sightings()
    dashed = next(s for s in api if "\u2014" in s.text_as_seen)
    retyped = dashed.text_as_seen.replace("\u2014", "--").replace("condition", "con\u00addi\u200btion")
    assert retyped != dashed.text_as_seen
    copy = RulingSighting(doc_id="page", origin="listeblanche", oracle_id=dashed.oracle_id, position=0,
                          text_as_seen=retyped, date_as_seen=dashed.date_as_seen, source="wotc")
    alone = reconcile(api)
    out = reconcile(api + [copy])
    assert len(out.rulings) == len(alone.rulings)
    row = next(r for r in out.sightings if r.doc_id == "page")
    assert row.ruling_id == next(r.ruling_id for r in out.sightings if r.doc_id == dashed.doc_id
                                 and r.position == dashed.position) and row.flags == ()
    stored = next(r.text for r in out.rulings if r.ruling_id == row.ruling_id)
    assert "--" not in stored and "\u00ad" not in stored  # the API's copy is the text kept


# Constructed: a ruling quoting a lone symbol, and its page copies once the icon is dropped (the
# symbol vanishes, its quotes stay: curly on scryfall.com, straight on the MTG wiki).
QUOTED = "An ability with “{T}” in its cost can’t be activated unless its creature has been under your control continuously."
QUOTED_PAGE = QUOTED.replace("{T}", "")
QUOTED_WIKI = QUOTED_PAGE.translate(str.maketrans("“”’", "\"\"'"))


def test_page_copies_of_a_quoted_lone_symbol_join_the_ruling_that_has_it():
    out = reconcile([_api("a", QUOTED), _page("a", QUOTED_PAGE),
                     RulingSighting(doc_id="wiki", origin="mtgwiki", oracle_id=None, position=0,
                                    text_as_seen=QUOTED_WIKI, date_as_seen=None, source=None)])
    [ruling] = out.rulings
    assert ruling.text == QUOTED and ruling.source == "wotc"
    assert sorted(s.origin for s in out.sightings if SYMBOLS_LOST in s.flags) == ["mtgwiki", "scryfall-page"]


def test_a_dated_copy_of_a_quoted_lone_symbol_folds_into_the_ruling_that_has_it():
    out = reconcile([_api("a", QUOTED), _page("a", QUOTED_PAGE, origin="listeblanche", date="2024-02-02", source="wotc")])
    [ruling] = out.rulings
    assert ruling.text == QUOTED
    [row] = [s for s in out.sightings if s.origin == "listeblanche"]
    assert SYMBOLS_LOST in row.flags


def test_a_copy_that_lost_a_quoted_symbol_and_differs_by_other_words_is_the_card_s_ruling_in_another_wording():
    """The card's page shows these words where the API shows its ruling with the symbol: the page
    words it otherwise (flag other_wording, not symbols_lost); the API's text is the one kept."""
    other = QUOTED_PAGE.replace("in its cost", "in its effect")
    for copy in (_page("a", other), _page("a", other, origin="listeblanche", date="2024-02-02", source="wotc")):
        out = reconcile([_api("a", QUOTED), copy])
        assert [r.text for r in out.rulings] == [QUOTED]
        [row] = [s for s in out.sightings if s.origin != "scryfall-api"]
        assert OTHER_WORDING in row.flags and SYMBOLS_LOST not in row.flags and row.text_as_seen == other


def test_a_copy_in_other_words_is_another_ruling_where_its_page_shows_the_api_s_too():
    other = QUOTED_PAGE.replace("in its cost", "in its effect")
    for origin, date, source in (("scryfall-page", None, None), ("listeblanche", "2024-02-02", "wotc")):
        both = [_page("a", QUOTED_PAGE, origin=origin, date=date, source=source),
                RulingSighting(doc_id=f"{origin}-a", origin=origin, oracle_id="a", position=1, text_as_seen=other,
                               date_as_seen=date, source=source)]
        out = reconcile([_api("a", QUOTED), *both])
        assert sorted(r.text for r in out.rulings) == sorted([QUOTED, other])
        assert not any(OTHER_WORDING in s.flags for s in out.sightings)


# A ruling re-worded on the API while the pages still show the wording before (the sites copy
# Scryfall's rulings some time after it). Constructed from the reference: the API's copies of
# "Cases don't lose …" on every card re-worded, the pages' and the wiki's left as they were.
OLD_WORDING = "Cases don’t lose their other abilities when they become solved."
NEW_WORDING = "Cases don’t lose any of their other abilities when they become solved."


def canonical(text):
    return text.replace("'", "\u2019")


def _reworded_day() -> list[RulingSighting]:
    api = [RulingSighting(s.doc_id, s.origin, s.oracle_id, s.position,
                          NEW_WORDING if canonical(s.text_as_seen) == OLD_WORDING else s.text_as_seen,
                          s.date_as_seen, s.source) for s in api_sightings()]
    pages = []
    for s in api_sightings():  # each card's listeblanche.fr page: its rulings as they were, dated and sourced
        pages.append(RulingSighting(f"listeblanche-{s.oracle_id}", "listeblanche", s.oracle_id, s.position,
                                    s.text_as_seen, s.date_as_seen, "wotc"))
    return api + pages + wiki_sightings() + scryfall_page_sightings()


def test_pages_behind_a_re_wording_on_the_api_give_one_ruling_not_two():
    out = reconcile(_reworded_day())
    texts = [r.text for r in out.rulings]
    assert NEW_WORDING in texts and OLD_WORDING not in texts
    new_id = next(r.ruling_id for r in out.rulings if r.text == NEW_WORDING)
    copies = [s for s in out.sightings if s.ruling_id == new_id]
    assert Counter(s.origin for s in copies) == Counter({"scryfall-api": 13, "listeblanche": 13, "scryfall-page": 1,
                                                         "mtgwiki": 1})
    assert all((OTHER_WORDING in s.flags) == (s.origin != "scryfall-api") for s in copies)
    assert {canonical(s.text_as_seen) for s in copies if s.origin != "scryfall-api"} == {OLD_WORDING}
    # every other ruling as on a day without the re-wording
    plain = reconcile(api_sightings() + [RulingSighting(f"listeblanche-{s.oracle_id}", "listeblanche", s.oracle_id,
                                                        s.position, s.text_as_seen, s.date_as_seen, "wotc")
                                         for s in api_sightings()] + wiki_sightings() + scryfall_page_sightings())
    assert len(out.rulings) == len(plain.rulings)
    assert sorted(out.card_rulings, key=repr) != sorted(plain.card_rulings, key=repr)
    assert len(out.card_rulings) == len(plain.card_rulings)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_other_wordings_fold_alike_in_any_order(seed):
    items = _reworded_day()
    random.Random(seed).shuffle(items)
    assert _as_rows(reconcile(items)) == _as_rows(reconcile(_reworded_day()))


def test_another_wording_folds_only_with_its_card_s_date_source_and_one_alike_ruling():
    before, after = "Its first ability counts tokens you control.", "Its first ability counts the tokens you control."
    page = dict(origin="listeblanche", date="2024-02-02", source="wotc")
    # folded: same card, date and source, alike, the page shows no copy of the API's words
    assert len(reconcile([_api("a", after), _page("a", before, **page)]).rulings) == 1
    # another date, another source, another card: two rulings
    assert len(reconcile([_api("a", after, date="2024-03-01"), _page("a", before, **page)]).rulings) == 2
    assert len(reconcile([_api("a", after), _page("a", before, origin="listeblanche", date="2024-02-02",
                                                   source="scryfall")]).rulings) == 2
    assert len(reconcile([_api("b", after), _page("a", before, **page)]).rulings) == 2
    # words not alike enough to be a re-wording: two rulings
    assert len(reconcile([_api("a", "Tokens you control are not Clues."), _page("a", before, **page)]).rulings) == 2
    # two of the card's API rulings alike: no guess
    twin = "Its first ability counts the tokens you controlled."
    assert len(reconcile([_api("a", after), _api("a", twin, doc="api-a2"), _page("a", before, **page)]).rulings) == 3


# Constructed: card x's API re-worded a ruling its listeblanche.fr page shows in the words before
# (OLD), which fold into the API's (NEW); other copies of OLD around it.
OLD = "Tap an untapped Clue you control: {T} it again to investigate."
NEW = "Tap an untapped Clue you control: {T} it once more to investigate."
LISTEBLANCHE_X = dict(origin="listeblanche", date="2024-02-02", source="wotc")


def _wiki(text):
    return RulingSighting(doc_id="wiki", origin="mtgwiki", oracle_id=None, position=0, text_as_seen=text,
                          date_as_seen=None, source=None)


def test_the_wiki_s_copy_of_folded_words_without_their_symbols_follows_them():
    out = reconcile([_api("x", NEW), _page("x", OLD, **LISTEBLANCHE_X), _wiki(OLD.replace("{T} ", ""))])
    assert [r.text for r in out.rulings] == [NEW]
    [wiki] = [s for s in out.sightings if s.origin == "mtgwiki"]
    assert {OTHER_WORDING, SYMBOLS_LOST, "matched_without_date"} <= set(wiki.flags)


def test_a_card_page_s_copy_of_folded_words_joins_only_its_own_card_s_api_ruling():
    # card z's page shows OLD, but z's API does not have the ruling: z is not linked to it
    out = reconcile([_api("x", NEW), _page("x", OLD, **LISTEBLANCHE_X), _api("z", "Another ruling of z."),
                     _page("z", OLD)])
    assert ("z", NEW) not in _links(out) and ("z", OLD) in _links(out)
    # card y's page shows NEW and OLD: its OLD is another ruling, as the page says
    out = reconcile([_api("x", NEW), _api("y", NEW), _page("x", OLD, **LISTEBLANCHE_X), _page("y", NEW),
                     RulingSighting(doc_id="scryfall-page-y", origin="scryfall-page", oracle_id="y", position=1,
                                    text_as_seen=OLD, date_as_seen=None, source=None)])
    assert ("y", OLD) in _links(out) and ("y", NEW) in _links(out)
    assert not any(OTHER_WORDING in s.flags for s in out.sightings if s.oracle_id == "y")


def test_a_card_page_s_dated_and_undated_copies_of_its_own_are_two_rulings_not_a_crash():
    """A scryfall.com page showing a ruling the API lacks, beside an item with no date: sorting
    the rulings of their own compared a date with None (TypeError), on both build paths."""
    def copy(position, date):
        return RulingSighting(doc_id="pg", origin="scryfall-page", oracle_id="x", position=position,
                              text_as_seen=f"Page-only ruling {position}.", date_as_seen=date, source=None)

    out = reconcile([copy(0, "2024-02-02"), copy(1, None), _api("x", "The API's own ruling.")])
    assert sorted((r.source, r.published_at or "undated") for r in out.rulings) == [
        ("scryfall-page", "2024-02-02"), ("scryfall-page", "undated"), ("wotc", "2024-02-02")]


def test_two_page_wordings_folded_into_one_api_ruling_leave_its_wiki_copy_unambiguous():
    tapped, untapped = OLD, OLD.replace("{T}", "{Q}")
    out = reconcile([_api("x", NEW), _page("x", tapped, **LISTEBLANCHE_X),
                     _page("y", untapped, **LISTEBLANCHE_X), _api("y", NEW), _wiki(OLD.replace("{T} ", ""))])
    assert [r.text for r in out.rulings] == [NEW]
    [wiki] = [s for s in out.sightings if s.origin == "mtgwiki"]
    assert "ambiguous_match" not in wiki.flags and OTHER_WORDING in wiki.flags


def test_an_undated_copy_with_another_source_is_a_ruling_of_its_own_not_the_other_source_s():
    """CONSTRUCTED: card y's API copy names its source (scryfall) but no date it can read: the
    same words under wotc on card x are another source's ruling, so y keeps a scryfall ruling."""
    text = "The Case stays solved."
    out = reconcile([_api("x", text), RulingSighting(doc_id="api-y", origin="scryfall-api", oracle_id="y", position=0,
                                                      text_as_seen=text, date_as_seen=None, source="scryfall")])
    assert sorted((r.source, r.published_at) for r in out.rulings) == [("scryfall", None), ("wotc", "2024-02-02")]
    source = {r.ruling_id: r.source for r in out.rulings}
    assert sorted((c.oracle_id, source[c.ruling_id]) for c in out.card_rulings) == [("x", "wotc"), ("y", "scryfall")]


def test_an_undated_wiki_copy_of_words_two_dated_rulings_share_joins_the_latest_flagged_ambiguous():
    """CONSTRUCTED: the same words are a ruling of 2019 on card x and one of 2024 on card y; the
    wiki's copy, on no card and undated, cannot tell which: it goes to the latest, flagged."""
    text = "The Case stays solved."
    out = reconcile([_api("x", text, date="2019-05-03"), _api("y", text), _wiki(text)])
    assert len(out.rulings) == 2
    dates = {r.ruling_id: r.published_at for r in out.rulings}
    [wiki] = [s for s in out.sightings if s.origin == "mtgwiki"]
    assert dates[wiki.ruling_id] == "2024-02-02"
    assert "ambiguous_match" in wiki.flags
