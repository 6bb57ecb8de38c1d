"""parse_scryfall_page against the constructed scryfall.com pages (seed 002 and the reference) and
inline pages; fuzzing is in tests/reliability/test_hostile_input.py."""

from __future__ import annotations

import pytest

from pages_support import (
    SCRYFALL_SEED, SCRYFALL_SEED_PAGE, index, page, pages_of, reference_card, seed_lines, soup_text,
)
from pages_support import not_card_page
from pipeline.errors import ParseError, UnrecognizedPage
from pipeline.normalize.pages.scryfall_page import parse_scryfall_page
from pipeline.normalize.text import canonical_text, symbol_free_key
from pipeline.records import RulingSighting

SEED = seed_lines(SCRYFALL_SEED)
VISAGE_ORACLE_ID = "409697d5-ce3c-46aa-a97d-969d143a2a65"
SCRYFALL_PAGES = pages_of("scryfall.com")


@pytest.fixture(scope="module")
def visage():
    return parse_scryfall_page(page(SCRYFALL_SEED_PAGE), "doc-002", VISAGE_ORACLE_ID)


def _page(rulings_html: str, name: str = "Case of the Test") -> str:
    return (f'<html><body><h1>{name} <abbr class="card-symbol card-symbol-W" title="one white mana">{{W}}</abbr></h1>'
            f"<div><h2>Notes and Rules Information for {name}:</h2>{rulings_html}</div></body></html>")


# --- the seed page -----------------------------------------------------------------------------------

def test_the_fixtures_visible_text_holds_every_line_of_seed_002():
    text = soup_text(page(SCRYFALL_SEED_PAGE))
    assert [line for line in SEED if line not in text] == []


def test_card_name_from_the_rulings_heading(visage):
    assert visage.card_name == "Case of the Shifting Visage" == SEED[0]


def test_the_seeds_sixteen_rulings_in_order_as_seen(visage):
    assert [r.text_as_seen for r in visage.rulings] == SEED[1:]
    assert len(visage.rulings) == 16


def test_the_lost_symbol_stays_lost(visage):
    static = visage.rulings[7].text_as_seen
    assert static.startswith("“Solved — [static ability]” means")
    assert static.endswith("Instant and sorcery spells you cast cost less to cast.”")
    assert "{1}" not in static


def test_rulings_carry_page_origin_dates_and_no_source(visage):
    assert visage.rulings[4] == RulingSighting(
        doc_id="doc-002", origin="scryfall-page", oracle_id=VISAGE_ORACLE_ID, position=4,
        text_as_seen="Each Case has two special keyword abilities: to solve and solved.",
        date_as_seen="2024-02-02", source=None, lang="en")
    assert [r.position for r in visage.rulings] == list(range(16))
    assert {r.date_as_seen for r in visage.rulings} == {"2024-02-02"}


def test_the_seed_rulings_are_the_reference_rulings_but_for_the_symbol(visage):
    reference = reference_card(VISAGE_ORACLE_ID)["rulings"]
    assert sorted(symbol_free_key(r.text_as_seen) for r in visage.rulings) == sorted(
        symbol_free_key(r["text"]) for r in reference)


# --- every card's page -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in SCRYFALL_PAGES if n != SCRYFALL_SEED_PAGE])
def test_each_reference_page_yields_its_cards_rulings(name):
    entry = index()[name]
    card = reference_card(entry["oracle_id"])
    parsed = parse_scryfall_page(page(name), name, entry["oracle_id"])
    assert parsed.card_name == card["name"]
    assert [r.text_as_seen for r in parsed.rulings] == [canonical_text(r["text"]) for r in card["rulings"]]
    assert [r.date_as_seen for r in parsed.rulings] == [r["published_at"] for r in card["rulings"]]


def test_symbols_survive_on_the_reference_pages():
    entry = index()["scryfall_case-of-the-ransacked-lab.html"]
    parsed = parse_scryfall_page(page("scryfall_case-of-the-ransacked-lab.html"), "doc", entry["oracle_id"])
    assert any("cost {1} less to cast" in r.text_as_seen for r in parsed.rulings)


# --- markup variants ---------------------------------------------------------------------------------

def test_mana_symbols_in_markup_become_braced_text():
    html = _page(
        "<ul>"
        '<li><p>Cost <abbr class="card-symbol card-symbol-1" title="one generic mana">{1}</abbr> less.</p></li>'
        '<li><p>Cost <img alt="{1}" src="1.svg"> less.</p></li>'
        '<li><p>Cost <img alt="1" src="1.svg"> less.</p></li>'
        "</ul>")
    assert [r.text_as_seen for r in parse_scryfall_page(html, "doc", None).rulings] == ["Cost {1} less."] * 3


def test_the_english_only_note_of_non_english_pages_is_not_a_ruling():
    # The note as case_translations.json records it on Scryfall's Japanese page of Case of the Ransacked Lab.
    note = ("Only the English version of a Magic card receives Oracle updates and errata. "
            'View this card in <a href="/card/mkm/45/en">English</a>. (Scryfall note)')
    html = _page(f"<ul><li><p>{note}</p></li><li><p>Real ruling.</p><p>(2024-02-02)</p></li></ul>",
                 name="研究所荒らしの事件")
    parsed = parse_scryfall_page(html, "doc", None)
    assert parsed.card_name == "研究所荒らしの事件"
    assert [(r.position, r.text_as_seen) for r in parsed.rulings] == [(0, "Real ruling.")]


def test_a_ruling_labelled_wizards_of_the_coast_has_source_wotc():
    html = _page("<ul><li><p>From Wizards.</p><p>Wizards of the Coast (2024-02-02)</p></li>"
                 "<li><p>From Scryfall.</p><p>— Scryfall (2024-02-09)</p></li>"
                 "<li><p>Undated and unlabelled.</p></li></ul>")
    rulings = parse_scryfall_page(html, "doc", None).rulings
    assert [(r.text_as_seen, r.date_as_seen, r.source) for r in rulings] == [
        ("From Wizards.", "2024-02-02", "wotc"),
        ("From Scryfall.", "2024-02-09", "scryfall"),
        ("Undated and unlabelled.", None, None)]


def test_a_ruling_text_ending_in_a_label_word_keeps_it_when_the_date_has_a_block_of_its_own():
    # Constructed: the seed page's markup (text, then <p class="ruling-meta">) with texts that end
    # in the word of a label; inline, with no block between them, the word reads as the label.
    html = _page('<ul><li><p>The card is listed on Scryfall</p><p class="ruling-meta"><a>(2024-02-02)</a></p></li>'
                 '<li><p>Printed by Wizards of the Coast</p><p class="ruling-meta">Scryfall (2024-02-09)</p></li>'
                 "<li><p>Inline and labelled — Scryfall (2024-02-10)</p></li></ul>")
    rulings = parse_scryfall_page(html, "doc", None).rulings
    assert [(r.text_as_seen, r.date_as_seen, r.source) for r in rulings] == [
        ("The card is listed on Scryfall", "2024-02-02", None),
        ("Printed by Wizards of the Coast", "2024-02-09", "scryfall"),
        ("Inline and labelled", "2024-02-10", "scryfall")]


def test_a_list_nested_in_a_ruling_is_part_of_it_not_rulings_of_its_own():
    # Constructed: no recorded page nests a list; a ruling that enumerates cases could.
    html = _page("<ul><li><p>Either of these counts:</p><ul><li>a Clue you control</li><li>a Food you control</li></ul>"
                 '<p class="ruling-meta">(2024-02-02)</p></li><li><p>Next ruling.</p><p>(2024-02-03)</p></li></ul>')
    rulings = parse_scryfall_page(html, "doc", None).rulings
    assert [(r.position, r.text_as_seen, r.date_as_seen) for r in rulings] == [
        (0, "Either of these counts: a Clue you control a Food you control", "2024-02-02"),
        (1, "Next ruling.", "2024-02-03")]


def test_a_page_without_rulings_names_its_card_from_the_title():
    html = '<html><body><h1>Case of the Test <abbr>{1}</abbr><abbr>{W}</abbr></h1><p>No rulings.</p></body></html>'
    parsed = parse_scryfall_page(html, "doc", None)
    assert (parsed.card_name, parsed.rulings) == ("Case of the Test", ())


# --- refusals ----------------------------------------------------------------------------------------

def test_a_rulings_heading_with_no_readable_ruling_is_a_layout_change():
    html = _page('<div class="rulings-grid"><span>text moved into a grid</span></div>')
    with pytest.raises(ParseError) as caught:
        parse_scryfall_page(html, "scryfall-visage-2031", None)
    assert caught.value.document == "scryfall-visage-2031"
    assert "layout changed?" in caught.value.reason


def test_the_seed_page_with_its_list_emptied_is_refused():
    html = page(SCRYFALL_SEED_PAGE).decode("utf-8")
    start, end = html.index('<ul class="rulings-list">'), html.index("</ul>")
    with pytest.raises(ParseError, match="scryfall-doc"):
        parse_scryfall_page(html[:start] + "<ul></ul>" + html[end + len("</ul>"):], "scryfall-doc", None)


def test_an_impossible_date_is_refused():
    with pytest.raises(ParseError, match="not a calendar date"):
        parse_scryfall_page(_page("<ul><li><p>Text.</p><p>(2024-13-45)</p></li></ul>"), "doc", None)


# Constructed: the recorded pages show "(YYYY-MM-DD)" in a block of its own. A page that shows its
# dates another way must not leave them in the texts: an undated copy whose text holds its date is a
# new ruling beside the API's, on every card, with exit 0.
@pytest.mark.parametrize("items", [
    "<li><p>Text.</p><p>2024-02-02</p></li>",  # no parentheses
    "<li><p>Text.</p><p>(2024\u201102\u201102)</p></li>",  # non-breaking hyphens
    "<li><p>Text.</p><p>2024.02.02</p></li>",
    "<li><p>Text.</p><p>— WotC (2024-02-02)</p></li>",  # a label casefile does not know
    "<li><p>Text.</p><p>(2024-02-02) — Wizards of the Coast</p></li>",  # the label after the date
    "<li><p>Text. — WotC (2024-02-02)</p></li>",  # the same, inline
    "<li><p>(2024-02-02)</p><p>Text.</p></li>",  # the date first
    "<li><p>Text. 2024-02-02</p></li>",  # inline, without parentheses
    "<li><p>Text.</p><p>February 2, 2024</p></li>",
    "<li><p>Text.</p><p>Feb. 2 2024</p></li>",
    "<li><p>Text.</p><p>2 February 2024</p></li>",
    "<li><p>Text.</p><p>2/2/2024</p></li>",
    "<li><p>Text.</p><p>February 2nd, 2024</p></li>",
    "<li><p>Text.</p><p>2024-02-02T00:00:00Z</p></li>",
    "<li><p>Text.</p><small>(2024-02-02) — Wizards of the Coast</small></li>",  # inline, the label after
    "<li><p>Text. [2024-02-02]</p></li>",
    "<li><p>Text. - WotC (2024-02-02)</p></li>",
])
def test_a_date_shown_in_a_form_not_read_is_a_layout_change(items):
    with pytest.raises(ParseError, match="layout changed"):
        parse_scryfall_page(_page(f"<ul><li><p>Other.</p><p>(2024-02-01)</p></li>{items}</ul>"), "doc", None)


@pytest.mark.parametrize("words", [
    "“Solved — [static ability]” means it gets +1/+1 — or 2/2 for 10 turns.",
    "Its cost is {2/W} — one of two.",
    "Cards printed before 2019-10-04 had the older wording.",
    "As of 6/1/2020, companion works another way; see 10/10/2010 errata.",
    "See https://magic.wizards.com/en/news/2020/06/01/companion for the change.",
    "June 1, 2020 is when the rule changed.",
    "Choose one — Draw a card",
    "The flavor text is “I see.” —Jace Beleren",
    "Rule 702.19b applies to 2/2 tokens and to {2/W}.",
])
def test_dates_numbers_and_dashes_among_a_rulings_words_are_no_date_of_the_page(words):
    html = _page(f"<ul><li><p>{words}</p><p>(2024-02-02)</p></li><li><p>{words}</p>"
                 "<p>(4000/2/2) is halved, as its last paragraph says.</p><p>(2024-02-03)</p></li>"
                 f"<li><p>{words} (2024-02-04)</p></li></ul>")
    rulings = parse_scryfall_page(html, "doc", None).rulings
    assert [(r.text_as_seen, r.date_as_seen) for r in rulings] == [
        (words, "2024-02-02"), (f"{words} (4000/2/2) is halved, as its last paragraph says.", "2024-02-03"),
        (words, "2024-02-04")]


@pytest.mark.parametrize("block", ["— WotC (2024-02-02)", "Gatherer (2024-02-02)"])
def test_a_date_block_with_a_label_casefile_does_not_know_is_a_layout_change(block):
    with pytest.raises(ParseError, match="date block reads"):
        parse_scryfall_page(_page(f'<ul><li><p>The card reads “Draw a card.”</p><p class="ruling-meta">{block}</p>'
                                  "</li></ul>"), "doc", None)


# Constructed: a date block in a layout casefile does not know, longer than a label and its date
# ("— Wizards of the Coast (2024-02-02)" is 35 characters) but within the 60 a date block may have.
@pytest.mark.parametrize("block", ["Published 2024-02-02 by Wizards of the Coast",  # 44 characters
                                   "Published 2024-02-02 by Wizards of the Coast, rules team"])  # 56
def test_a_date_block_of_up_to_sixty_characters_in_a_layout_not_known_is_a_layout_change(block):
    assert 35 < len(block) <= 60
    with pytest.raises(ParseError, match="date block reads"):
        parse_scryfall_page(_page(f'<ul><li><p>A Case can be solved only once.</p><p class="ruling-meta">{block}</p>'
                                  "</li></ul>"), "doc", None)


def test_an_undated_ruling_ending_in_a_date_of_its_own_words_is_read():
    html = _page("<ul><li><p>Cards printed before 2019-10-04.</p></li><li><p>It changed on June 1, 2020.</p></li></ul>")
    assert [(r.text_as_seen, r.date_as_seen) for r in parse_scryfall_page(html, "doc", None).rulings] == [
        ("Cards printed before 2019-10-04.", None), ("It changed on June 1, 2020.", None)]


def test_a_last_paragraph_of_words_ending_in_its_date_is_read_as_the_rulings_end():
    html = _page("<ul><li><p>First paragraph.</p><p>Second paragraph. (2024-02-02)</p></li></ul>")
    [ruling] = parse_scryfall_page(html, "doc", None).rulings
    assert (ruling.text_as_seen, ruling.date_as_seen) == ("First paragraph. Second paragraph.", "2024-02-02")


@pytest.mark.parametrize("html", [b"", b"<html><body><p>nothing</p></body></html>", None, ["<h1>x</h1>"]])
def test_documents_that_are_not_a_card_page_are_refused(html):
    with pytest.raises(ParseError) as caught:
        parse_scryfall_page(html, "doc-x", None)
    assert caught.value.document == "doc-x"



# --- a page that is no card page ---------------------------------------------------------------------

def test_an_error_page_is_no_card_page_not_a_card_without_rulings():
    with pytest.raises(UnrecognizedPage) as caught:
        parse_scryfall_page(not_card_page("error_en.html"), "sf-error", VISAGE_ORACLE_ID,
                            card_names=["Case of the Shifting Visage"])
    assert caught.value.document == "sf-error"
    assert "Something went wrong" in caught.value.reason
    with pytest.raises(UnrecognizedPage):
        parse_scryfall_page("<html><body><p>Please sign in.</p></body></html>", "sf-login", None, card_names=["X"])


def test_a_card_page_without_the_rulings_section_still_names_its_card():
    html = page(SCRYFALL_SEED_PAGE).decode("utf-8")
    start = html.index('<div class="card-rulings">')
    html = html[:start] + html[html.index("</div>", start) + len("</div>"):]
    parsed = parse_scryfall_page(html, "doc", VISAGE_ORACLE_ID, card_names=["Case of the Shifting Visage"])
    assert (parsed.card_name, parsed.rulings) == ("Case of the Shifting Visage", ())
    # a face's name is enough for a card of two faces
    parsed = parse_scryfall_page('<h1>Front Face <abbr>{1}</abbr></h1>', "doc", None,
                                 card_names=["Front Face // Back Face", "Front Face", "Back Face"])
    assert parsed.card_name == "Front Face"

# Fuzzing (a result or ParseError, nothing else): tests/reliability/test_hostile_input.py


def test_a_page_of_a_printing_in_another_language_names_its_card_by_the_printed_name():
    """A Japanese printing's page heads the card with its printed name (case_translations.json:
    Case of the Shattered Pact is パクト破りの事件 in Japanese); the names a page may show come from
    the printing, so such a page without rulings is still the card's page, not an error page."""
    from pipeline.extract.pages import card_names

    printing = {"name": "Case of the Shattered Pact", "lang": "ja", "printed_name": "パクト破りの事件"}
    names = card_names(printing)
    assert names == ["Case of the Shattered Pact", "パクト破りの事件"]
    parsed = parse_scryfall_page("<h1>パクト破りの事件 <abbr>{2}</abbr></h1>", "doc", None, card_names=names)
    assert parsed.rulings == ()
    with pytest.raises(UnrecognizedPage):
        parse_scryfall_page("<h1>パクト破りの事件</h1>", "doc", None, card_names=["Case of the Shattered Pact"])
    # the faces' printed names of a card of two faces count too
    assert card_names({"name": "A // B", "card_faces": [{"printed_name": "甲"}, {"printed_name": "乙"}]}) == [
        "A // B", "A", "B", "甲", "乙"]
