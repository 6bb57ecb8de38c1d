"""The MTG wiki's page on a card type (mtg.wiki/page/Case) as records: its text, figures and rulings.

Pure: no network, no DuckDB. Reads the rendered MediaWiki page by its visible text and structure:
the h1 title, the "Statistics" row of the type box, and the sections under "Description", "Rules"
and "Rulings". Returns a WikiPage or raises ParseError naming the document, nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, Tag

from pipeline.errors import ParseError, UnrecognizedPage
from pipeline.normalize.pages.markup import (
    LIST_TAGS, PAGE_ROOTS, find_headings, inside, is_block, list_items, load_html, parse_guard, section_blocks,
    symbol_from_alt, visible_text,
)
from pipeline.normalize.text import search_fold
from pipeline.records import RulingSighting

ORIGIN = "mtgwiki"

_CARD_COUNT = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)\s+cards?\b")  # "15 cards", "1,651 cards" (MediaWiki's formatnum)
_FIGURE = re.compile(r"(?:(\{[^{}\s]+\})\s*)?(\d+(?:\.\d+)?%)")  # optional symbol label, then "6.7%"
# "719.", "719.1.", "719.3a": a rule number at the start of a quoted rule
_RULE = re.compile(r"(\d{3}(?:\.\d{1,3}[a-z]?)?)\.?\s+(.+)", re.DOTALL)
_NOT_PROSE = ("figure", "table")  # pictures with captions, boxes of figures
# Boxes whose lists are not rulings: navigation (MediaWiki's navbox templates, which end the content
# with no heading before them), tables of links or figures.
_NOT_RULINGS = ("nav", "table")
_GLOSSARY_INTRO = re.compile(r"From the glossary\b", re.IGNORECASE)
_RULES_INTRO = re.compile(r"From the Comprehensive Rules\b", re.IGNORECASE)
# A superscript whose whole text is in brackets: a citation mark ("[1]", "[note 2]", "[citation needed]").
_CITATION_MARK = re.compile(r"\[[^\[\]]{1,40}\]")


@dataclass(frozen=True)
class WikiStatistics:
    """The type box's "Statistics" row: "15 cards", then one percentage per color."""

    card_count: int
    figures: tuple[tuple[str | None, str], ...]  # (symbol label like "{W}" or None, "20%"), page order


@dataclass(frozen=True)
class WikiPage:
    title: str
    intro: tuple[str, ...]  # paragraphs before the first section
    description: tuple[str, ...]  # paragraphs of the Description section
    statistics: WikiStatistics | None  # None when the page has no Statistics row
    rules_quoted: tuple[tuple[str, str], ...]  # ("719.3a", text) and ("glossary:Case", text)
    rulings: tuple[RulingSighting, ...]


def parse_wiki_page(html: bytes | str, doc_id: str, content_type: str | None = None, *,
                    title: str | None = None) -> WikiPage:
    """Read one rendered MTG wiki type page.

    ``title``: the title of the page asked for. Given, a page without a Rulings section must bear
    it as its h1 to read as that page with no rulings; one that does not is not the page (a
    maintenance, error or login page) and raises UnrecognizedPage.
    """
    with parse_guard(doc_id):
        soup = load_html(html, doc_id, content_type)
        _drop_citation_marks(soup)
        if title is not None and _section(soup, "Rulings") is None:
            _check_title(soup, doc_id, title)
        return WikiPage(
            title=_title(soup, doc_id),
            intro=_intro(soup),
            description=_section_paragraphs(soup, "Description"),
            statistics=_statistics(soup, doc_id),
            rules_quoted=_rules_quoted(soup),
            rulings=_rulings(soup, doc_id),
        )


def _drop_citation_marks(soup: BeautifulSoup) -> None:
    """MediaWiki's citation marks are links to the page's references, not words of the text they follow."""
    for sup in soup.find_all("sup"):
        if not sup.decomposed and _CITATION_MARK.fullmatch(visible_text(sup)):
            sup.decompose()


def _title(soup: BeautifulSoup, doc_id: str) -> str:
    h1 = soup.find("h1")
    title = visible_text(h1) if h1 else ""
    if not title:
        raise ParseError(doc_id, "no page title (h1)")
    return title


def _check_title(soup: BeautifulSoup, doc_id: str, title: str) -> None:
    """The page asked for bears ``title`` as its h1, or says it was reached by a redirect from it
    (MediaWiki serves a redirect's target under the asked URL, "(Redirected from <title>)")."""
    h1 = soup.find("h1")
    shown = visible_text(h1) if h1 else ""
    asked = search_fold(title.replace("_", " "))
    redirects = [search_fold(visible_text(link).replace("_", " "))
                 for note in soup.select(".mw-redirectedfrom") for link in note.find_all("a")]
    if search_fold(shown.replace("_", " ")) != asked and asked not in redirects:
        raise UnrecognizedPage(doc_id, f"no Rulings section and no h1 {title!r}: not the wiki page asked for "
                                       f"(h1: {shown or None!r})")


def _section(soup: BeautifulSoup, title: str) -> list[Tag] | None:
    """The blocks of the first section titled ``title``, or None when the page has none."""
    headings = find_headings(soup, re.compile(re.escape(title), re.IGNORECASE))
    return section_blocks(headings[0]) if headings else None


def _paragraphs(blocks: list[Tag]) -> tuple[str, ...]:
    """The text of the <p> among ``blocks`` (or inside them), leaving out figure captions and boxes."""
    found: list[str] = []
    for block in blocks:
        if block.name in _NOT_PROSE:
            continue
        candidates = [block] if block.name == "p" else [
            p for p in block.find_all("p") if not inside(p, _NOT_PROSE, stop=block)]
        found.extend(text for text in map(visible_text, candidates) if text)
    return tuple(found)


def _section_paragraphs(soup: BeautifulSoup, title: str) -> tuple[str, ...]:
    blocks = _section(soup, title)
    return _paragraphs(blocks) if blocks else ()


def _intro(soup: BeautifulSoup) -> tuple[str, ...]:
    """Paragraphs before the first section heading (h2): beside the heading, or beside the nearest
    box that holds it (MediaWiki's heading wrapper, a table of contents)."""
    node = soup.find("h2")
    while isinstance(node, Tag) and node.name not in PAGE_ROOTS:
        before = [s for s in node.previous_siblings if isinstance(s, Tag) and s.name == "p"]
        if before:
            return _paragraphs(list(reversed(before)))
        node = node.parent
    return ()


def _statistics(soup: BeautifulSoup, doc_id: str) -> WikiStatistics | None:
    """The cell beside a "Statistics" label cell: "15 cards", then "{W} 20%" figures."""
    label = next((cell for cell in soup.find_all(["th", "td"]) if visible_text(cell) == "Statistics"), None)
    if label is None:
        return None
    value = label.find_next_sibling(["td", "th"])
    text = visible_text(value) if value else ""
    count = _CARD_COUNT.match(text)
    if count is None:
        raise ParseError(doc_id, f"Statistics row unreadable (layout changed?): {text[:80]!r}")
    figures = tuple((symbol or None, percent) for symbol, percent in _FIGURE.findall(text[count.end():]))
    return WikiStatistics(card_count=int(count.group(1).replace(",", "")), figures=figures)


def _rules_quoted(soup: BeautifulSoup) -> tuple[tuple[str, str], ...]:
    """Quotes of the Comprehensive Rules in the Rules section: glossary entries after a "From the
    glossary" line (term and definition), numbered rules from the lists after "From the Comprehensive Rules"."""
    blocks = _section(soup, "Rules") or []
    quoted: list[tuple[str, str]] = []
    quoting = None
    for block in blocks:
        text = visible_text(block)
        if block.name == "p" and _GLOSSARY_INTRO.match(text):
            quoting = "glossary"
        elif block.name == "p" and _RULES_INTRO.match(text):
            quoting = "rules"
        elif quoting == "glossary" and block.name == "dl":
            quoted.extend(_glossary_entries(block))
        elif quoting == "rules":
            quoted.extend(_numbered_rules(block))
    return tuple(quoted)


def _glossary_entries(definition_list: Tag) -> list[tuple[str, str]]:
    entries, term = [], None
    for child in definition_list.find_all(["dt", "dd"]):
        if child.name == "dt":
            term = visible_text(child)
        elif term:
            entries.append((f"glossary:{term}", visible_text(child)))
    return entries


def _numbered_rules(block: Tag) -> list[tuple[str, str]]:
    rules = []
    for item in list_items([block]):
        match = _RULE.fullmatch(visible_text(item, skip=LIST_TAGS))
        if match:
            rules.append((match.group(1), match.group(2)))
    return rules


def _rulings(soup: BeautifulSoup, doc_id: str) -> tuple[RulingSighting, ...]:
    """Every bullet of the Rulings section, sub-bullets as rulings of their own, in page order."""
    blocks = _section(soup, "Rulings")
    if blocks is None:
        return ()
    texts = [visible_text(item, skip=LIST_TAGS) for item in list_items(blocks)
             if not _is_picture(item) and not _in_navigation(item) and not _is_reference(item)]
    texts = [text for text in texts if text]
    if not texts:
        raise ParseError(doc_id, "a Rulings section holds no readable ruling (layout changed?)")
    return tuple(
        RulingSighting(doc_id=doc_id, origin=ORIGIN, oracle_id=None, position=position,
                       text_as_seen=text, date_as_seen=None, source=None, lang="en")
        for position, text in enumerate(texts))


def _in_navigation(item: Tag) -> bool:
    """A list item of a navigation box or a table, not a ruling."""
    return any(parent.name in _NOT_RULINGS or parent.get("role") == "navigation" for parent in item.parents)


def _is_reference(item: Tag) -> bool:
    """An entry of the references list (MediaWiki's Cite links it back to its mark, "#cite_ref-…"),
    which the wiki appends to the last section when the page has no References section of its own."""
    return any(str(link.get("href", "")).startswith("#cite_ref") for link in item.find_all("a"))


def _is_picture(item: Tag) -> bool:
    """A gallery box or a list item inside a figure: a picture and its caption, not a ruling.

    A gallery box holds an image that is no symbol in a box of its own (MediaWiki's thumb), its
    caption beside it. An image among a ruling's words (an icon whose alt text names no symbol:
    none, empty, a file name) is not a picture: the ruling stays, without that icon.
    """
    if inside(item, ("figure",)):
        return True
    return any(_alone_in_its_box(image, item) for image in item.find_all("img")
               if symbol_from_alt(image.get("alt") or "") == "")


def _alone_in_its_box(image: Tag, item: Tag) -> bool:
    """Whether the nearest box around ``image`` (within ``item``) shows no words beside it."""
    box = next((parent for parent in image.parents if parent is item or is_block(parent)), item)
    return box is not item and not visible_text(box)
