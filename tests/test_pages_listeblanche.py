"""parse_listeblanche_page against the constructed listeblanche.fr pages (seed 001 and the reference),
test-only pages for the French/English pairing, refusals; fuzzing is in tests/reliability/test_hostile_input.py."""

from __future__ import annotations

import re

import pytest

from pages_support import (
    LISTEBLANCHE_SEED, LISTEBLANCHE_SEED_PAGE, index, page, pages_of, reference_card, seed_lines, soup_text,
)
from pages_support import not_card_page
from pipeline.errors import ParseError, UnrecognizedPage
from pipeline.normalize.pages.listeblanche import parse_listeblanche_page
from pipeline.normalize.text import canonical_text
from pipeline.records import RulingSighting

SEED = seed_lines(LISTEBLANCHE_SEED)
SEED_DATE_LINE = "02 février 2024 · source : wotc"
VISAGE_ORACLE_ID = "409697d5-ce3c-46aa-a97d-969d143a2a65"
LISTEBLANCHE_PAGES = pages_of("listeblanche.fr")

# TEST-ONLY markup for the French/English pairing. No French translation of any Case ruling was
# recorded, so the French strings here are obvious markers ("[FR 1]"), not translations.
NOTE = ("<p>Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous est générée "
        "automatiquement (IA) — l'original anglais reste la source de vérité.</p>")
PAIRED_BY_LANG = NOTE + """
<ol>
<li><p>02 février 2024 · source : wotc</p><blockquote lang="en">English 1.</blockquote><blockquote lang="fr">[FR 1]</blockquote></li>
<li><p>02 février 2024 · source : wotc</p><blockquote lang="en">English 2.</blockquote></li>
<li><p>1er mars 2024 · source : wotc</p><div><p lang="fr">[FR 3]</p></div><div><p lang="en">English 3.</p></div></li>
</ol>"""
PAIRED_BY_ORDER = NOTE + """
<ul>
<li><div><span>02 févr. 2024</span> · source : wotc</div><p>English 1.</p><p>[FR 1]</p></li>
<li><div><span>02 févr. 2024</span> · source : wotc</div><p>English 2.</p></li>
</ul>"""
FLAT = NOTE + """
<div>
<p>02 février 2024 · source : wotc</p><p>English 1.</p><p>[FR 1]</p>
<p>02 février 2024 · source : wotc</p><p>English 2.</p>
</div>"""


@pytest.fixture(scope="module")
def visage():
    return parse_listeblanche_page(page(LISTEBLANCHE_SEED_PAGE), "doc-001", VISAGE_ORACLE_ID)


def _page(body: str) -> str:
    return f'<html lang="fr"><body><main><h1>Affaire du test</h1><section>{body}</section></main></body></html>'


def _pairs(html: str) -> list[tuple[int, str, int | None, str]]:
    return [(r.position, r.lang, r.translates, r.text_as_seen)
            for r in parse_listeblanche_page(html, "doc", None).rulings]


# --- the seed page -----------------------------------------------------------------------------------

def test_the_fixtures_visible_text_holds_every_line_of_seed_001():
    text = soup_text(page(LISTEBLANCHE_SEED_PAGE))
    assert [line for line in SEED if line not in text] == []


def test_the_seeds_sixteen_english_rulings_dated_and_sourced(visage):
    english = SEED[2::2]  # the seed: its note, then a date line before each ruling
    assert SEED[1::2] == [SEED_DATE_LINE] * 16
    assert [r.text_as_seen for r in visage.rulings] == english
    assert {(r.lang, r.date_as_seen, r.source, r.translates) for r in visage.rulings} == {
        ("en", "2024-02-02", "wotc", None)}
    assert [r.position for r in visage.rulings] == list(range(16))
    assert visage.expected_rulings == 16


def test_the_seed_page_has_no_french_ruling(visage):
    assert [r for r in visage.rulings if r.lang == "fr"] == []


def test_a_seed_ruling_in_full(visage):
    assert visage.rulings[7] == RulingSighting(
        doc_id="doc-001", origin="listeblanche", oracle_id=VISAGE_ORACLE_ID, position=7,
        text_as_seen="“Solved — [static ability]” means “As long as this Case is solved, [static ability].” "
                     "Static abilities are written as statements, such as “Creatures you control get +1/+1” "
                     "or “Instant and sorcery spells you cast cost {1} less to cast.”",
        date_as_seen="2024-02-02", source="wotc", lang="en")


@pytest.mark.parametrize("line", [
    ' · <span class="label">source</span> : wotc',
    ' · <b>source</b>&nbsp;: <a href="/sources/wotc">wotc</a>',
    ' · source<span> : </span>wotc',
])
def test_date_lines_whose_words_are_split_by_inline_markup(visage, line):
    """Constructed from the seed page: its date lines with the word "source" and its colon in
    separate inline elements. A reader sees the same line; the rulings are the same."""
    html = page(LISTEBLANCHE_SEED_PAGE).decode("utf-8")
    assert html.count(" · source : wotc") == 16
    parsed = parse_listeblanche_page(html.replace(" · source : wotc", line), "doc-001", VISAGE_ORACLE_ID)
    assert parsed.rulings == visage.rulings
    assert parsed.expected_rulings == 16


SEED_META = '<p class="meta"><time datetime="2024-02-02">02 février 2024</time> · source : wotc</p>'


@pytest.mark.parametrize("line", [
    '<time datetime="2024-02-02">02 février 2024</time> · source : wotc',
    '<span class="meta"><time datetime="2024-02-02">02 février 2024</time> · source : wotc</span>',
    '<small>02 février 2024</small> · <span>source : wotc</span><br>',
])
def test_date_lines_not_boxed_apart_from_their_ruling(visage, line):
    """Constructed from the seed page: each date line as inline text at the start of its list
    item, with no box of its own, the English blockquote after it. A reader sees the same lines."""
    html = page(LISTEBLANCHE_SEED_PAGE).decode("utf-8")
    assert html.count(SEED_META) == 16
    parsed = parse_listeblanche_page(html.replace(SEED_META, line), "doc-001", VISAGE_ORACLE_ID)
    assert parsed.rulings == visage.rulings
    assert parsed.expected_rulings == 16


def test_inline_date_lines_in_one_flat_box_each_start_a_ruling():
    """Constructed: seed 001's first two rulings as one paragraph of inline date lines and texts
    separated by <br>, each with a marker French copy ("[FR n]") after its English."""
    html = _page(NOTE + f"<p>{SEED_DATE_LINE}<br>{SEED[2]}<br>[FR 0]<br>"
                        f"<i>{SEED_DATE_LINE}</i><br>{SEED[4]}</p>")
    assert _pairs(html) == [(0, "en", None, SEED[2]), (0, "fr", 0, "[FR 0]"), (1, "en", None, SEED[4])]


def test_a_ruling_as_bare_text_with_inline_markup_is_one_text():
    """Constructed: seed 001's static-ability ruling as bare text after its date line, its {1} in
    Scryfall's symbol markup and one word in <i>: one English text, no French piece."""
    static = next(line for line in SEED if "cost {1} less" in line)
    marked = static.replace("{1}", '<abbr class="card-symbol card-symbol-1" title="one generic mana">{1}</abbr>')
    marked = marked.replace("Static", "<i>Static</i>", 1)
    html = _page(NOTE + f"<ol><li><p>{SEED_DATE_LINE}</p>\n{marked}\n</li><li><p>{SEED_DATE_LINE}</p>{SEED[4]}</li></ol>")
    assert _pairs(html) == [(0, "en", None, static), (1, "en", None, SEED[4])]


def test_the_names_the_page_marks_by_language(visage):
    assert (visage.title, visage.name_fr, visage.name_en) == (
        "Affaire du visage changeant", "Affaire du visage changeant", "Case of the Shifting Visage")


# --- every card's page -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in LISTEBLANCHE_PAGES if n != LISTEBLANCHE_SEED_PAGE])
def test_each_reference_page_yields_its_cards_rulings(name):
    entry = index()[name]
    card = reference_card(entry["oracle_id"])
    parsed = parse_listeblanche_page(page(name), name, entry["oracle_id"])
    assert parsed.name_en == card["name"]
    assert [r.text_as_seen for r in parsed.rulings] == [canonical_text(r["text"]) for r in card["rulings"]]
    assert [r.date_as_seen for r in parsed.rulings] == [r["published_at"] for r in card["rulings"]]
    assert parsed.expected_rulings == len(card["rulings"]) == len(parsed.rulings)


# --- French/English pairing (test-only pages, marker strings) ----------------------------------------

def test_pairing_by_lang_attributes_within_each_block():
    assert _pairs(_page(PAIRED_BY_LANG)) == [
        (0, "en", None, "English 1."), (0, "fr", 0, "[FR 1]"),
        (1, "en", None, "English 2."),
        (2, "en", None, "English 3."), (2, "fr", 2, "[FR 3]"),
    ]


def test_a_translation_shares_its_originals_date_source_and_position():
    rulings = parse_listeblanche_page(_page(PAIRED_BY_LANG), "doc", "oid").rulings
    english, french = rulings[3], rulings[4]
    assert french == RulingSighting(
        doc_id="doc", origin="listeblanche", oracle_id="oid", position=2, text_as_seen="[FR 3]",
        date_as_seen="2024-03-01", source="wotc", lang="fr", translates=2, flags=("machine-translation",))
    assert (english.position, english.date_as_seen, english.source) == (2, "2024-03-01", "wotc")


@pytest.mark.parametrize("label", ["wotc.", "WotC ;", "Wizards of the Coast."])
def test_a_source_label_ending_in_punctuation_is_the_source(label):
    """CONSTRUCTED date lines: "source : wotc." gave the source "wotc.", a ruling of its own beside
    the API's wotc one."""
    html = _page(PAIRED_BY_LANG.replace("1er mars 2024 · source : wotc", f"1er mars 2024 · source : {label}"))
    assert {r.source for r in parse_listeblanche_page(html, "doc", "oid").rulings} == {"wotc"}


def test_pairing_by_order_when_the_markup_marks_no_language():
    assert _pairs(_page(PAIRED_BY_ORDER)) == [
        (0, "en", None, "English 1."), (0, "fr", 0, "[FR 1]"), (1, "en", None, "English 2.")]


def test_pairing_in_a_flat_layout_stops_at_the_next_date_line():
    assert _pairs(_page(FLAT)) == [
        (0, "en", None, "English 1."), (0, "fr", 0, "[FR 1]"), (1, "en", None, "English 2.")]


def test_pairing_is_by_block_never_by_similar_text():
    # Block 1's marker reads like block 0's English text: it still belongs to block 1.
    html = _page(NOTE + """<ol>
<li><p>02 février 2024 · source : wotc</p><p>Each Case has two special keyword abilities.</p></li>
<li><p>02 février 2024 · source : wotc</p><p>Cases don't lose their abilities.</p>
<p>[FR 2] Each Case has two special keyword abilities.</p></li>
</ol>""")
    french = [r for r in parse_listeblanche_page(html, "doc", None).rulings if r.lang == "fr"]
    assert [(r.position, r.translates) for r in french] == [(1, 1)]


# Seed 001's English of its rulings 2, 4 and 6, each with its marker French copy, as _pairs gives them.
_THREE_PAIRED = [
    (0, "en", None, SEED[2]), (0, "fr", 0, "[FR 0]"),
    (1, "en", None, SEED[4]), (1, "fr", 1, "[FR 1]"),
    (2, "en", None, SEED[6]), (2, "fr", 2, "[FR 2]"),
]


def test_an_original_and_its_translation_in_one_box_are_two_texts():
    """Constructed: the English of seed 001's first three rulings, each with a marker French copy
    ("[FR n]") in the same wrapper as its original: a <div> around both, both inside the English
    blockquote. The original is the English alone, the French its translation."""
    html = _page(NOTE + f"""<ol>
<li><p>{SEED_DATE_LINE}</p><div class="texts"><blockquote lang="en"><p>{SEED[2]}</p></blockquote>
<blockquote lang="fr"><p>[FR 0]</p></blockquote></div></li>
<li><p>{SEED_DATE_LINE}</p><div><p lang="fr">[FR 1]</p><p lang="en">{SEED[4]}</p></div></li>
<li><p>{SEED_DATE_LINE}</p><blockquote lang="en"><p>{SEED[6]}</p><p lang="fr">[FR 2]</p></blockquote></li>
</ol>""")
    assert _pairs(html) == _THREE_PAIRED


def test_an_unmarked_text_beside_a_marked_original_is_in_the_pages_language():
    """Constructed: seed 001's English in <blockquote lang="en"> as on the fixture pages, with a
    marker French copy ("[FR n]") that carries no lang of its own, after or before the original
    and in the same wrapper: on this <html lang="fr"> page it is French, the original's translation."""
    html = _page(NOTE + f"""<ol>
<li><p>{SEED_DATE_LINE}</p><blockquote lang="en"><p>{SEED[2]}</p></blockquote><p>[FR 0]</p></li>
<li><p>{SEED_DATE_LINE}</p><p>[FR 1]</p><blockquote lang="en"><p>{SEED[4]}</p></blockquote></li>
<li><p>{SEED_DATE_LINE}</p><div><blockquote lang="en"><p>{SEED[6]}</p></blockquote><p>[FR 2]</p></div></li>
</ol>""")
    assert _pairs(html) == _THREE_PAIRED


def test_an_unmarked_text_is_not_french_on_a_page_in_no_language():
    """Constructed: as above on a page without lang="fr": the unmarked text's language is unknown,
    so it is no translation; a text marked French still is."""
    body = (f'<ol><li><p>{SEED_DATE_LINE}</p><blockquote lang="en">{SEED[2]}</blockquote><p>[FR 0]</p></li>'
            f'<li><p>{SEED_DATE_LINE}</p><blockquote lang="en">{SEED[4]}</blockquote><p>Note.</p>'
            f'<p lang="fr">[FR 1]</p></li></ol>')
    html = f"<html><body><main><h1>Affaire du test</h1><section>{NOTE}{body}</section></main></body></html>"
    assert _pairs(html) == [(0, "en", None, SEED[2]), (1, "en", None, SEED[4]), (1, "fr", 1, "[FR 1]")]


def test_words_marked_in_another_language_stay_in_their_ruling():
    """Constructed: seed 001's first ruling with its condition marked as another language inline,
    and a ruling whose English runs around a symbol image: neither is split."""
    first = SEED[2].replace("[condition]", '<i lang="la">[condition]</i>', 1)
    html = _page(NOTE + f"""<ol>
<li><p>{SEED_DATE_LINE}</p><blockquote lang="en">{first}<p lang="fr">[FR 0]</p></blockquote></li>
</ol>""")
    assert _pairs(html) == [(0, "en", None, SEED[2]), (0, "fr", 0, "[FR 0]")]


def test_without_the_machine_translation_note_french_copies_carry_no_flag():
    html = _page(PAIRED_BY_LANG.replace(NOTE, "<p>Clarifications officielles.</p>"))
    assert {r.flags for r in parse_listeblanche_page(html, "doc", None).rulings} == {()}


# --- announced counts --------------------------------------------------------------------------------

def test_an_announced_count_is_reported_even_when_fewer_rulings_are_read():
    html = _page("<h2>Clarifications (3)</h2>" + PAIRED_BY_ORDER)
    parsed = parse_listeblanche_page(html, "doc", None)
    assert parsed.expected_rulings == 3
    assert len([r for r in parsed.rulings if r.lang == "en"]) == 2


def test_a_page_with_no_rulings_expects_none():
    parsed = parse_listeblanche_page(_page("<p>Aucune clarification.</p>"), "doc", None)
    assert (parsed.expected_rulings, parsed.rulings, parsed.title) == (0, (), "Affaire du test")


# --- refusals ----------------------------------------------------------------------------------------

def test_date_lines_without_ruling_text_are_a_layout_change():
    html = _page("<ol><li><p>02 février 2024 · source : wotc</p></li>"
                 "<li><p>02 février 2024 · source : wotc</p></li></ol><p>Texts now load later.</p>")
    with pytest.raises(ParseError) as caught:
        parse_listeblanche_page(html, "listeblanche-visage-2031", None)
    assert caught.value.document == "listeblanche-visage-2031"
    assert "layout changed?" in caught.value.reason


def test_the_seed_page_with_its_texts_removed_is_refused():
    html = page(LISTEBLANCHE_SEED_PAGE).decode("utf-8")
    while "<blockquote" in html:
        start = html.index("<blockquote")
        html = html[:start] + html[html.index("</blockquote>", start) + len("</blockquote>"):]
    with pytest.raises(ParseError, match="listeblanche-doc.*no English text"):
        parse_listeblanche_page(html, "listeblanche-doc", None)


def test_a_count_announced_with_no_date_line_is_refused():
    with pytest.raises(ParseError, match="announces 4 rulings"):
        parse_listeblanche_page(_page("<h2>4 clarifications</h2><p>…</p>"), "doc", None)


def test_an_unknown_date_form_is_refused_not_guessed():
    html = _page("<ol><li><p>02 feb 2024 · source : wotc</p><p>English.</p></li></ol>")
    with pytest.raises(ParseError, match="unreadable date line"):
        parse_listeblanche_page(html, "doc", None)


@pytest.mark.parametrize("label", ["Wizards", "WotC (officiel)", "mtgwiki"])
def test_a_source_casefile_does_not_know_is_refused_not_made_a_ruling_of_its_own(label):
    """CONSTRUCTED: kept as shown ("wizards"), the source made each ruling a second one beside the
    API's wotc copy, with exit 0."""
    html = _page(PAIRED_BY_LANG.replace("1er mars 2024 · source : wotc", f"1er mars 2024 · source : {label}"))
    with pytest.raises(ParseError, match=re.escape(f"names a source casefile does not know: '{label}'")):
        parse_listeblanche_page(html, "doc", "oid")


# CONSTRUCTED: a ruling's block holding more texts than an original and its translation. Read as it
# stood, the first English part was the ruling (a new one, cut short, beside the API's) and the rest
# vanished, or the second English part was taken for the French.
@pytest.mark.parametrize("texts", [
    '<p lang="en">Being solved is not part of a permanent’s copiable values.</p>'
    '<p lang="en">A permanent that becomes a copy of a solved Case is not solved.</p>',
    '<blockquote lang="en">English a.</blockquote><blockquote lang="en">English b.</blockquote>'
    '<blockquote lang="fr">[FR]</blockquote>',
])
def test_a_ruling_block_with_more_texts_than_an_original_and_its_translation_is_refused(texts):
    html = _page(f"<ol><li><p>{SEED_DATE_LINE}</p><p>Other.</p></li><li><p>{SEED_DATE_LINE}</p>{texts}</li>"
                 f"<li><p>{SEED_DATE_LINE}</p><p>Last.</p></li></ol>")
    with pytest.raises(ParseError, match="layout changed"):
        parse_listeblanche_page(html, "doc", None)


def test_a_translation_in_parts_is_one_translation_and_the_page_s_own_text_after_the_last_ruling_none():
    """CONSTRUCTED: a French copy marked in two paragraphs is one translation; a note after FLAT's
    last ruling is left out. Blocks with no mark beyond a ruling's two texts are left out too,
    wherever they stand (a source line, an ad, a pagination box): refusing them would stop every
    sync for what a page adds, so a flat layout that lost a date line drops a ruling unseen."""
    html = _page(f'<ol><li><p>{SEED_DATE_LINE}</p><blockquote lang="en">English.</blockquote>'
                 '<p lang="fr">[FR a]</p><p lang="fr">[FR b]</p></li></ol>')
    assert _pairs(html) == [(0, "en", None, "English."), (0, "fr", 0, "[FR a] [FR b]")]
    noted = FLAT.replace("<p>English 2.</p>", "<p>English 2.</p><p>[FR 2]</p><p>Note de bas de page.</p>")
    assert _pairs(_page(noted)) == [(0, "en", None, "English 1."), (0, "fr", 0, "[FR 1]"),
                                    (1, "en", None, "English 2."), (1, "fr", 1, "[FR 2]")]


# CONSTRUCTED: a ruling's item whose date line is missing, between two rulings. Read as it stood,
# the ruling was dropped and the page's count of date lines still matched the rulings read.
@pytest.mark.parametrize("items", [
    f"<li><p>{SEED_DATE_LINE}</p><p>English 1.</p></li><li><p>English 2.</p></li>"
    f"<li><p>{SEED_DATE_LINE}</p><p>English 3.</p></li>",
    f'<li><p>{SEED_DATE_LINE}</p><blockquote lang="en">English 1.</blockquote></li>'
    f'<li><blockquote lang="en">English 2.</blockquote></li>'
    f'<li><p>{SEED_DATE_LINE}</p><blockquote lang="en">English 3.</blockquote></li>',
])
def test_a_ruling_item_without_its_date_line_is_refused(items):
    with pytest.raises(ParseError, match="a ruling item shows no date line.*'English 2.'"):
        parse_listeblanche_page(_page(f"<ol>{items}</ol>"), "doc", None)


@pytest.mark.parametrize("items", [
    f'<li class="first"><p>{SEED_DATE_LINE}</p><p>English 1.</p></li><li><p>English 2.</p></li>'
    f'<li><p>{SEED_DATE_LINE}</p><p>English 3.</p></li>',
    f'<li class="odd"><p>{SEED_DATE_LINE}</p><p>English 1.</p></li><li class="even"><p>English 2.</p></li>'
    f'<li class="odd"><p>{SEED_DATE_LINE}</p><p>English 3.</p></li>',
])
def test_items_of_one_list_whatever_their_classes_are_checked_for_a_lost_date_line(items):
    with pytest.raises(ParseError, match="'English 2.'"):
        parse_listeblanche_page(_page(f"<ol>{items}</ol>"), "doc", None)


def test_a_classed_box_without_its_date_line_among_the_rulings_boxes_is_refused():
    html = _page(f'<div class="ruling odd"><p>{SEED_DATE_LINE}</p><p>English 1.</p></div>'
                 '<div class="ruling even"><p>English 2.</p></div>'
                 f'<div class="ruling odd"><p>{SEED_DATE_LINE}</p><p>English 3.</p></div><div class="footer"><p>Contact</p></div>')
    with pytest.raises(ParseError, match="'English 2.'"):
        parse_listeblanche_page(html, "doc", None)


@pytest.mark.parametrize("body", [
    f"<ol><li><p>{SEED_DATE_LINE}</p><p>English 1.</p></li><li> </li></ol>"
    '<ul><li>Accueil</li><li>Cartes</li></ul><div class="footer"><p>Contact</p></div>',
    # a table's header and footer rows
    f'<table><tr><th>Date</th><th>Anglais</th><th>Français</th></tr><tr><td>{SEED_DATE_LINE}</td>'
    '<td lang="en">English 1.</td><td lang="fr">[FR 1]</td></tr><tr><td colspan="3">16 clarifications</td></tr></table>',
    # a link to see every ruling after the list's rulings; a link after a ruling's texts
    f'<ol><li><p>{SEED_DATE_LINE}</p><p>English 1.</p><p>[FR 1]</p><a href="#">lien</a></li>'
    '<li><a href="/toutes">Voir toutes les clarifications</a></li></ol>',
    # one ruling in an article, beside an article of links; a box with a class beside another
    f'<article><p>{SEED_DATE_LINE}</p><blockquote lang="en">English 1.</blockquote>'
    '<blockquote lang="fr">[FR 1]</blockquote></article><article><h2>Cartes liées</h2><ul><li>Une</li></ul></article>',
    f'<div class="box"><p>{SEED_DATE_LINE}</p><p>English 1.</p><p>[FR 1]</p></div>'
    '<div class="box"><p>Légalités : standard</p></div>',
    # a group's heading row between two rulings' rows, of header cells or not
    f'<table><tr><td>{SEED_DATE_LINE}</td><td lang="en">English 1.</td></tr><tr><th colspan="2">Mises à jour 2023</th>'
    f'</tr><tr><td>{SEED_DATE_LINE}</td><td lang="en">English 2.</td></tr></table>',
    f'<table><tr><td>{SEED_DATE_LINE}</td><td lang="en">English 1.</td></tr><tr class="group"><td colspan="2">'
    f'<strong>2023</strong></td></tr><tr><td>{SEED_DATE_LINE}</td><td lang="en">English 2.</td></tr></table>',
    # an ad and a heading among the rulings' items; boxes sharing a utility class
    f'<ol><li><p>{SEED_DATE_LINE}</p><p>English 1.</p></li><li class="ad">Acheter des cartes</li>'
    f'<li class="group"><h3>Mises à jour 2023</h3></li><li><p>{SEED_DATE_LINE}</p><p>English 2.</p></li></ol>',
    f'<div class="col-12 ruling"><p>{SEED_DATE_LINE}</p><p>English 1.</p></div><div class="col-12 ad">Publicité</div>'
    f'<div class="col-12 ruling"><p>{SEED_DATE_LINE}</p><p>English 2.</p></div>',
    # a source line after a ruling's texts; a heading and a pagination box in a flat layout
    f'<ol><li><p>{SEED_DATE_LINE}</p><p>English 1. {SEED[2]}</p><p>[FR 1]</p>'
    f'<p class="src">Source : Wizards of the Coast</p></li><li><p>{SEED_DATE_LINE}</p><p>English 2.</p></li></ol>',
    f'<div><p>{SEED_DATE_LINE}</p><p>English 1.</p><p>[FR 1]</p><h3>2023</h3><nav class="pagination">1 2</nav>'
    f'<p>{SEED_DATE_LINE}</p><p>English 2.</p></div>',
])
def test_other_lists_rows_links_and_boxes_are_no_undated_rulings(body):
    """CONSTRUCTED: what a page holds beside its rulings' items, which no date line is missing from."""
    assert [text for _, lang, _, text in _pairs(_page(body)) if lang == "en"][0].startswith("English 1.")


def _seed_page_with_date_lines(replaced: str, every: bool = True) -> str:
    """The seed page with its date lines' " · source : wotc" written another way (all, or the third only)."""
    html = page(LISTEBLANCHE_SEED_PAGE).decode("utf-8")
    assert html.count(" · source : wotc") == 16
    if every:
        return html.replace(" · source : wotc", replaced)
    third = html.index(" · source : wotc", html.index(" · source : wotc", html.index(" · source : wotc") + 1) + 1)
    return html[:third] + replaced + html[third + len(" · source : wotc"):]


@pytest.mark.parametrize("replaced", [" · WotC", "", " — wotc", " · origine : wotc"])
def test_date_lines_that_lost_their_source_label_are_a_layout_change_not_no_rulings(replaced):
    with pytest.raises(ParseError, match="opens with a date but is no date line.*'02 février 2024"):
        parse_listeblanche_page(_seed_page_with_date_lines(replaced), "doc", VISAGE_ORACLE_ID,
                                card_names=VISAGE_NAMES)


def test_one_date_line_written_another_way_is_refused_not_read_into_the_ruling_before():
    with pytest.raises(ParseError, match="no date line.*'02 février 2024 · WotC'"):
        parse_listeblanche_page(_seed_page_with_date_lines(" · WotC", every=False), "doc", VISAGE_ORACLE_ID)


@pytest.mark.parametrize("line", ["<p>1<sup>er</sup> mars 2024 · WotC</p>", "<p><span>02</span> février 2024 · WotC</p>",
                                  "<p><b>02</b>\n février 2024</p>"])
def test_a_stray_date_line_whose_date_is_split_by_markup_is_refused_too(line):
    html = _page(f"<ol><li>{line}<p>English 1.</p></li><li>{line}<p>English 2.</p></li></ol>")
    with pytest.raises(ParseError, match="opens with a date but is no date line"):
        parse_listeblanche_page(html, "doc", None, card_names=["Affaire du test"])


def test_a_maintenance_page_with_a_dated_line_is_no_card_page_not_a_layout_change():
    # the check of stray date lines came first: exit 65 where a page that is not the card's is tried again (75)
    html = "<html><body><h1>Maintenance</h1><p>12 mars 2025 : retour prévu à 14 h.</p></body></html>"
    with pytest.raises(UnrecognizedPage):
        parse_listeblanche_page(html, "doc", VISAGE_ORACLE_ID, card_names=VISAGE_NAMES)


@pytest.mark.parametrize("body", [
    "<p>Sortie : <time>09 février 2024</time></p><p>Aucune clarification.</p>",  # a date inside a line
    "<p>02 février 2024 : la carte est sortie avec le set Meurtres au manoir Karlov, et depuis aucune "
    "clarification n'a été publiée.</p>",  # a paragraph, not a line of its own
    "<p>2 000 cartes · 15 affaires</p>",  # a number, no date
])
def test_dates_elsewhere_on_a_page_without_rulings_are_no_date_lines(body):
    parsed = parse_listeblanche_page(_page(body), "doc", None, card_names=["Affaire du test"])
    assert (parsed.rulings, parsed.expected_rulings) == ((), 0)


def test_a_date_line_s_own_date_is_not_a_stray_line():
    html = _page('<ol><li><p><time datetime="2024-02-02">02 février 2024</time> · source : wotc</p>'
                 '<p>English 1.</p></li></ol>')
    assert [r.text_as_seen for r in parse_listeblanche_page(html, "doc", None).rulings] == ["English 1."]


@pytest.mark.parametrize("html", [b"", b"   \n", None, 3.5])
def test_documents_that_are_not_a_page_are_refused(html):
    with pytest.raises(ParseError) as caught:
        parse_listeblanche_page(html, "doc-x", None)
    assert caught.value.document == "doc-x"



# --- a page that is no card page ---------------------------------------------------------------------

VISAGE_NAMES = ["Case of the Shifting Visage"]


def _seed_page_without_rulings() -> str:
    """The seed page as it would be with no ruling: its names and note kept, its list of rulings gone."""
    html = page(LISTEBLANCHE_SEED_PAGE).decode("utf-8")
    return html[:html.index("<ol>")] + html[html.index("</ol>") + len("</ol>"):]


def test_a_maintenance_page_is_no_card_page_not_a_card_without_rulings():
    with pytest.raises(UnrecognizedPage) as caught:
        parse_listeblanche_page(not_card_page("maintenance_fr.html"), "lb-maintenance", VISAGE_ORACLE_ID,
                                card_names=VISAGE_NAMES)
    assert caught.value.document == "lb-maintenance"
    assert "Case of the Shifting Visage" in caught.value.reason and "Site en maintenance" in caught.value.reason


def test_a_card_page_that_shows_no_ruling_still_reads_as_no_rulings():
    parsed = parse_listeblanche_page(_seed_page_without_rulings(), "doc", VISAGE_ORACLE_ID, card_names=VISAGE_NAMES)
    assert (parsed.rulings, parsed.expected_rulings, parsed.name_en) == ((), 0, "Case of the Shifting Visage")


def test_a_page_with_rulings_needs_no_name_and_the_build_s_reading_is_unchanged():
    assert len(parse_listeblanche_page(page(LISTEBLANCHE_SEED_PAGE), "doc", None, card_names=["Other"]).rulings) == 16
    assert parse_listeblanche_page(not_card_page("maintenance_fr.html"), "doc", None).rulings == ()

# Fuzzing (a result or ParseError, nothing else): tests/reliability/test_hostile_input.py
