"""parse_wiki_page against the constructed MTG wiki page (seed 000) and small inline pages; fuzzing
is in tests/reliability/test_hostile_input.py."""

from __future__ import annotations

from collections import Counter

import pytest

from pages_support import (
    WIKI_PAGE, WIKI_SEED, page, reference_cards, seed_lines, soup_text,
)
from pages_support import not_card_page
from pipeline.errors import ParseError, UnrecognizedPage
from pipeline.normalize.pages.wiki import WikiStatistics, parse_wiki_page
from pipeline.records import RulingSighting

SEED = seed_lines(WIKI_SEED)


def _seed_between(start: str, end: str | None) -> list[str]:
    """Seed 000's lines after the line ``start`` and before the line ``end``."""
    first = SEED.index(start) + 1
    return SEED[first:SEED.index(end, first)] if end else SEED[first:]


@pytest.fixture(scope="module")
def wiki():
    return parse_wiki_page(page(WIKI_PAGE), "doc-000")


def _page(body: str) -> str:
    return f"<html><body><h1>Case</h1><div>{body}</div></body></html>"


# --- the seed page -----------------------------------------------------------------------------------

def test_the_fixtures_visible_text_holds_every_line_of_seed_000():
    text = soup_text(page(WIKI_PAGE))
    missing = [line for line in SEED if line not in text]
    assert missing == []


def test_title_and_intro(wiki):
    assert wiki.title == "Case"
    assert wiki.intro == (SEED[SEED.index("Description") - 1],)
    assert wiki.intro[0].startswith("Case is an enchantment type introduced in Murders at Karlov Manor.")


def test_description_is_its_paragraphs_without_the_picture_caption(wiki):
    expected = [line for line in _seed_between("Description", "Rules") if line != "Case Solved indicator"]
    assert list(wiki.description) == expected
    assert len(wiki.description) == 5


def test_statistics_equal_the_seeds_figures_with_their_color_labels(wiki):
    seen = SEED[SEED.index("Case", 1) + 3]  # "Statistics 15 cards 6.7% 20% …"
    assert seen == "Statistics 15 cards 6.7% 20% 26.7% 13.3% 20% 13.3%"
    assert wiki.statistics == WikiStatistics(card_count=15, figures=(
        ("{C}", "6.7%"), ("{W}", "20%"), ("{U}", "26.7%"), ("{B}", "13.3%"), ("{R}", "20%"), ("{G}", "13.3%")))
    assert [percent for _, percent in wiki.statistics.figures] == seen.split()[3:]


def test_statistics_labels_agree_with_the_reference_cards_colors(wiki):
    cards = reference_cards()
    counts = Counter(color for card in cards for color in (card["colors"] or ["C"]))
    for label, percent in wiki.statistics.figures:
        share = 100 * counts[label.strip("{}")] / len(cards)
        assert f"{share:.1f}".removesuffix(".0") + "%" == percent, label
    assert wiki.statistics.card_count == len(cards)


def test_rules_quoted_are_the_glossary_entry_then_rule_719(wiki):
    glossary = _seed_between("From the glossary of the Comprehensive Rules (June 7, 2024—Modern Horizons 3)",
                             "From the Comprehensive Rules (June 7, 2024—Modern Horizons 3)")
    assert glossary[0] == "Case"
    rules = _seed_between("From the Comprehensive Rules (June 7, 2024—Modern Horizons 3)", "Rulings")
    expected = [("glossary:Case", glossary[1])]
    for line in rules:
        number, text = line.split(" ", 1)
        expected.append((number.rstrip("."), text))
    assert list(wiki.rules_quoted) == expected
    assert [number for number, _ in wiki.rules_quoted] == [
        "glossary:Case", "719", "719.1", "719.2", "719.3", "719.3a", "719.3b", "719.3c"]
    assert ("719.3a", "“To solve — [Condition]” means “At the beginning of your end step, if [condition] "
            "and this Case is not solved, this Case becomes solved.”") in wiki.rules_quoted


def test_rulings_are_the_seeds_fourteen_bullets_in_order(wiki):
    bullets = _seed_between("Case of the Pilfered Proof card.", None)
    assert len(bullets) == 14
    assert [r.text_as_seen for r in wiki.rulings] == bullets
    assert wiki.rulings[6].text_as_seen.endswith("cost less to cast.\"")  # as seen: the {1} is not there


def test_rulings_carry_the_wiki_origin_and_no_date_or_source(wiki):
    assert wiki.rulings[0] == RulingSighting(
        doc_id="doc-000", origin="mtgwiki", oracle_id=None, position=0,
        text_as_seen="The first ability of a Case is always active.", date_as_seen=None, source=None, lang="en")
    assert [r.position for r in wiki.rulings] == list(range(14))
    assert {(r.origin, r.oracle_id, r.date_as_seen, r.source, r.lang, r.translates) for r in wiki.rulings} == {
        ("mtgwiki", None, None, None, "en", None)}


def test_nested_bullets_are_rulings_of_their_own_after_their_parent(wiki):
    texts = [r.text_as_seen for r in wiki.rulings]
    parent = texts.index("Once a Case becomes solved, it stays solved until it leaves the battlefield.")
    assert texts[parent + 1] == "As long as it's solved, its \"to solve\" ability won't trigger again."
    assert texts[parent + 2] == "A Case remains solved even if another player gains control of it."


def test_the_picture_caption_is_not_a_ruling(wiki):
    assert "Case of the Pilfered Proof card." not in [r.text_as_seen for r in wiki.rulings]


def test_lists_after_the_content_are_not_rulings(wiki):
    texts = [r.text_as_seen for r in wiki.rulings]
    assert "Enchantment types" not in texts and "Main page" not in texts


# --- markup variants ---------------------------------------------------------------------------------

def test_mana_symbols_in_markup_become_braced_text():
    html = _page(
        "<h2>Rulings</h2><ul>"
        '<li>Spells cost <abbr class="card-symbol card-symbol-1" title="one generic mana">{1}</abbr> less.</li>'
        '<li>Spells cost <img alt="{1}" src="1.svg"> less.</li>'
        '<li>Spells cost <img alt="1" src="1.svg"> less, <img alt="T" src="t.svg">: tap.</li>'
        "</ul>")
    texts = [r.text_as_seen for r in parse_wiki_page(html, "doc").rulings]
    assert texts == ["Spells cost {1} less.", "Spells cost {1} less.", "Spells cost {1} less, {T}: tap."]


@pytest.mark.parametrize("icon", [
    '<img src="/images/symbols/1.svg" decoding="async" width="16" height="16">',
    '<span typeof="mw:File"><a href="/page/File:1.svg"><img alt="" src="/images/symbols/1.svg" width="16"></a></span>',
    '<img alt="Symbol 1.svg" src="/images/symbols/1.svg" width="16" height="16">',
])
def test_a_ruling_with_an_icon_that_is_no_known_symbol_keeps_its_text(wiki, icon):
    """Constructed from the wiki fixture: its static-ability ruling, whose {1} seed 000 shows lost,
    with the icon put back as an image whose alt text names no symbol (none, empty, a file name).
    The ruling stays, its words as the seed shows them; only a picture box is left out."""
    html = page(WIKI_PAGE).decode("utf-8")
    lost = "cast cost less to cast"
    assert html.count(lost) == 1
    html = html.replace(lost, f"cast cost {icon} less to cast")
    assert [r.text_as_seen for r in parse_wiki_page(html, "doc-000").rulings] == [
        r.text_as_seen for r in wiki.rulings]


def test_citation_marks_are_not_part_of_a_ruling(wiki):
    """Constructed from the wiki fixture: two of its rulings end with MediaWiki's citation marks
    (<sup><a href="#cite_note-1">[1]</a></sup>, as the Cite extension renders <ref>), and a
    References section follows. The rulings read as the seed shows them."""
    html = page(WIKI_PAGE).decode("utf-8")
    mark = '<sup id="cite_ref-{n}" class="reference"><a href="#cite_note-{n}"><span>[</span>{n}<span>]</span></a></sup>'
    for n, ruling in ((1, "always active."), (2, "to solve and solved.")):
        assert html.count(ruling + "</li>") == 1
        html = html.replace(ruling + "</li>", ruling + mark.format(n=n) + "</li>")
    html = html.replace('<div id="catlinks"', '<h2>References</h2><ol class="references">'
                        '<li id="cite_note-1"><a href="#cite_ref-1">↑</a> Murders at Karlov Manor Release Notes</li>'
                        '<li id="cite_note-2"><a href="#cite_ref-2">↑</a> Murders at Karlov Manor Release Notes</li>'
                        '</ol><div id="catlinks"', 1)
    parsed = parse_wiki_page(html, "doc-000")
    assert [r.text_as_seen for r in parsed.rulings] == [r.text_as_seen for r in wiki.rulings]


NAVBOX_LIST = '<ul><li><a href="/page/Aura">Aura</a></li><li><a href="/page/Case">Case</a></li></ul>'


@pytest.mark.parametrize("navbox", [
    '<div role="navigation" class="navbox" aria-labelledby="Enchantment_types"><table class="navbox-inner"><tr>'
    '<th><span id="Enchantment_types">Enchantment types</span></th></tr><tr><td>' + NAVBOX_LIST + "</td></tr></table></div>",
    '<table class="navbox"><tr><th>Enchantment types</th></tr><tr><td>' + NAVBOX_LIST + "</td></tr></table>",
    "<nav><h3>Enchantment types</h3>" + NAVBOX_LIST + "</nav>",
])
def test_a_navigation_box_after_the_last_section_is_not_rulings(wiki, navbox):
    """Constructed from the wiki fixture: a navigation box of enchantment types (as MediaWiki
    navbox templates render at the end of the content, with no heading before them) after the
    Rulings list, the section the page ends with."""
    html = page(WIKI_PAGE).decode("utf-8")
    end = html.index("</ul>\n</div></div>") + len("</ul>\n")
    parsed = parse_wiki_page(html[:end] + navbox + html[end:], "doc-000")
    assert [r.text_as_seen for r in parsed.rulings] == [r.text_as_seen for r in wiki.rulings]


def test_a_references_list_the_wiki_appends_to_the_last_section_is_not_rulings(wiki):
    """Constructed from the wiki fixture: a ruling with a citation mark, and the list of references
    MediaWiki appends at the end of the content when the page has no References section, which
    puts it inside Rulings, the page's last section."""
    html = page(WIKI_PAGE).decode("utf-8")
    ruling = "always active.</li>"
    assert html.count(ruling) == 1
    html = html.replace(ruling, 'always active.<sup id="cite_ref-1"><a href="#cite_note-1">[1]</a></sup></li>')
    end = html.index("</ul>\n</div></div>") + len("</ul>\n")
    references = ('<div class="mw-references-wrap"><ol class="references"><li id="cite_note-1">'
                  '<span class="mw-cite-backlink"><a href="#cite_ref-1">↑</a></span> '
                  '<span class="reference-text">Murders at Karlov Manor Release Notes</span></li></ol></div>')
    parsed = parse_wiki_page(html[:end] + references + html[end:], "doc-000")
    assert [r.text_as_seen for r in parsed.rulings] == [r.text_as_seen for r in wiki.rulings]


def test_a_gallery_box_in_the_rulings_section_is_a_picture_not_a_ruling():
    """Constructed: MediaWiki's gallery markup (image in its own box, caption beside it) holding the
    fixture's picture and caption, before a ruling list."""
    html = _page(
        '<h2>Rulings</h2><ul class="gallery"><li class="gallerybox"><div class="thumb"><span typeof="mw:File">'
        '<a href="/page/File:Case_of_the_Pilfered_Proof_card.png"><img src="/images/thumb/Case_of_the_Pilfered_Proof_card.png" '
        'width="120" height="167"></a></span></div><div class="gallerytext">Case of the Pilfered Proof card.</div></li></ul>'
        "<ul><li>The first ability of a Case is always active.</li></ul>")
    assert [r.text_as_seen for r in parse_wiki_page(html, "doc").rulings] == [
        "The first ability of a Case is always active."]


def test_a_card_count_with_a_thousands_separator(wiki):
    """Constructed from the wiki fixture: its Statistics count written as MediaWiki's formatnum writes
    numbers of four digits and more ("1,651 cards", a count of the size of a large type). The page
    is read, not refused; the figures and rulings stay as they are."""
    html = page(WIKI_PAGE).decode("utf-8")
    assert html.count("<td>15 cards<br>") == 1
    parsed = parse_wiki_page(html.replace("<td>15 cards<br>", "<td>1,651 cards<br>"), "doc-000")
    assert parsed.statistics == WikiStatistics(card_count=1651, figures=wiki.statistics.figures)
    assert parsed.rulings == wiki.rulings


def test_statistics_labels_come_from_symbol_images_or_are_none():
    html = _page('<table><tr><th>Statistics</th><td>3 cards<br><img alt="W"> 33.3% 66.7%</td></tr></table>')
    assert parse_wiki_page(html, "doc").statistics == WikiStatistics(3, (("{W}", "33.3%"), (None, "66.7%")))


def test_older_mediawiki_headings_with_an_edit_link_inside():
    html = _page('<h2><span class="mw-headline">Rulings</span><span class="mw-editsection">[<a>edit</a>]</span>'
                 "</h2><ul><li>One.</li></ul><h2>See also</h2><ul><li>Class</li></ul>")
    assert [r.text_as_seen for r in parse_wiki_page(html, "doc").rulings] == ["One."]


def test_a_page_without_rulings_section_has_no_rulings_and_no_statistics():
    page_ = parse_wiki_page(_page("<p>Intro.</p><h2>History</h2><p>Text.</p>"), "doc")
    assert page_.rulings == () and page_.statistics is None and page_.intro == ("Intro.",)


def test_str_and_bytes_read_alike():
    assert parse_wiki_page(page(WIKI_PAGE).decode("utf-8"), "doc-000") == parse_wiki_page(page(WIKI_PAGE), "doc-000")


# --- refusals ----------------------------------------------------------------------------------------

def test_a_rulings_section_with_no_readable_ruling_is_a_layout_change():
    html = _page("<h2>Rulings</h2><p>The rulings moved to a table.</p><h2>Trivia</h2><ul><li>x</li></ul>")
    with pytest.raises(ParseError) as caught:
        parse_wiki_page(html, "wiki-case-2031")
    assert caught.value.document == "wiki-case-2031"
    assert "layout changed?" in caught.value.reason


def test_the_seed_page_with_its_ruling_list_removed_is_refused():
    html = page(WIKI_PAGE).decode("utf-8")
    start = html.index("<ul>", html.index('id="Rulings"'))
    broken = html[:start] + html[html.index("</ul>\n</div></div>", start) + len("</ul>"):]
    assert "<li>The first ability" not in broken and "Case of the Pilfered Proof card." in broken
    with pytest.raises(ParseError) as caught:
        parse_wiki_page(broken, "wiki-case")
    assert caught.value.document == "wiki-case"
    assert "Rulings section holds no readable ruling (layout changed?)" in str(caught.value)


def test_an_unreadable_statistics_row_is_refused():
    with pytest.raises(ParseError, match="Statistics"):
        parse_wiki_page(_page("<table><tr><th>Statistics</th><td>many</td></tr></table>"), "doc")


@pytest.mark.parametrize("html", [b"", "   ", b"<html></html>", b"<p>no title</p>", None, 42])
def test_documents_that_are_not_a_wiki_page_are_refused(html):
    with pytest.raises(ParseError) as caught:
        parse_wiki_page(html, "doc-x")
    assert caught.value.document == "doc-x"


def test_a_surprise_from_the_html_parser_becomes_a_parse_error():
    # lxml cannot encode a lone surrogate; the parser must name the document, not leak UnicodeEncodeError.
    with pytest.raises(ParseError) as caught:
        parse_wiki_page("<h1>Case</h1><p>\ud800</p>", "doc-surrogate")
    assert caught.value.document == "doc-surrogate"
    assert "UnicodeEncodeError" in caught.value.reason
    assert isinstance(caught.value.__cause__, UnicodeEncodeError)



# --- a page that is not the wiki page asked for -------------------------------------------------------

def test_an_error_page_is_not_the_type_page_without_rulings():
    with pytest.raises(UnrecognizedPage) as caught:
        parse_wiki_page(not_card_page("error_en.html"), "wiki-error", title="Case")
    assert caught.value.document == "wiki-error"
    assert "'Case'" in caught.value.reason and "Something went wrong" in caught.value.reason


def test_the_type_page_without_its_rulings_section_still_reads_as_no_rulings():
    html = page(WIKI_PAGE).decode("utf-8")
    start = html.index('<div class="mw-heading mw-heading2"><h2 id="Rulings">')
    html = html[:start] + html[html.index("</ul>\n</div></div>", start) + len("</ul>\n"):]
    parsed = parse_wiki_page(html, "doc", title="Case")
    assert (parsed.title, parsed.rulings) == ("Case", ())
    assert parse_wiki_page(_page("<h2>History</h2><p>Text.</p>"), "doc", title="case").rulings == ()


def test_a_redirect_s_target_is_the_page_asked_for():
    """Constructed, in MediaWiki's markup of a redirect: the asked URL (/page/Cases) serves the
    target's page under the target's title, with "(Redirected from Cases)" below the heading."""
    redirected = ('<html><body><h1 id="firstHeading">Case</h1><div id="contentSub"><span class="mw-redirectedfrom">'
                  '(Redirected from <a href="/index.php?title=Cases&amp;redirect=no" class="mw-redirect" '
                  'title="Cases">Cases</a>)</span></div><h2>History</h2><p>Text.</p></body></html>')
    assert parse_wiki_page(redirected, "doc", title="Cases").title == "Case"
    with pytest.raises(UnrecognizedPage):
        parse_wiki_page(redirected, "doc", title="Clue")

# Fuzzing (a result or ParseError, nothing else): tests/reliability/test_hostile_input.py
