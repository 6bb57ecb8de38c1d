"""A scryfall.com card page's rulings as records, for when the API copy must be checked against the page.

Pure: no network, no DuckDB. The rulings are the items listed under the heading "Notes and Rules
Information for <card name>"; each may end with its date "(YYYY-MM-DD)", which scryfall.com sets in
a block of its own (``<p class="ruling-meta">``) after the text. A list nested in an item is part of
its ruling. Returns a ScryfallPage or raises ParseError naming the document, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

from bs4 import BeautifulSoup, Tag

from pipeline.errors import ParseError, UnrecognizedPage
from pipeline.normalize.pages.markup import (find_headings, is_block, list_items, load_html, parse_guard, section_blocks,
                                             visible_text, visible_text_of)
from pipeline.normalize.text import search_fold
from pipeline.records import RulingSighting

ORIGIN = "scryfall-page"

_RULINGS_HEADING = re.compile(r"Notes and Rules Information for (?P<name>.+?)\s*:?", re.IGNORECASE | re.DOTALL)
# The end of a ruling item: who published it, if the page says, and the date in parentheses.
_RULING_META = re.compile(
    r"(?P<text>.*?)(?:\s*[—–-]?\s*(?P<label>Wizards of the Coast|Scryfall))?\s*\((?P<date>\d{4}-\d{2}-\d{2})\)",
    re.DOTALL)
# The same end, alone in the item's last block: then the text is every block before it, whatever
# word it ends with ("... on Scryfall" keeps its last word).
_META_BLOCK = re.compile(r"[—–-]?\s*(?P<label>Wizards of the Coast|Scryfall)?\s*\((?P<date>\d{4}-\d{2}-\d{2})\)")
_SOURCE_LABELS = {"wizards of the coast": "wotc", "scryfall": "scryfall"}
# A date in a form the two above do not read: ISO with other separators ("2024-02-02" without its
# parentheses, "2024.02.02", non-breaking hyphens), "2/2/2024", "February 2, 2024", "Feb. 2 2024",
# "2 February 2024". Where the page shows a ruling's date (its item's last block, or the end of
# an item with none), such a date would be left in the ruling's words, making a new ruling,
# undated, beside the API's copy: the page's layout has changed. Elsewhere in the words it is a
# ruling's own ("Cards printed before 2019-10-04 ...").
_MONTHS = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
           r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_SEP = "[-\u2010\u2011\u2012\u2013\u2212/.]"
_DAY = r"(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
_DATE_LIKE = re.compile(
    rf"\b(?:19|20)\d{{2}}{_SEP}(?:0?[1-9]|1[0-2]){_SEP}(?:0?[1-9]|[12]\d|3[01])(?:T[\d:.]+Z?)?\b"
    rf"|\b(?:0?[1-9]|[12]\d|3[01])/(?:0?[1-9]|[12]\d|3[01])/(?:19|20)\d{{2}}\b"
    rf"|\b{_MONTHS}\s+{_DAY},?\s+(?:19|20)\d{{2}}\b"
    rf"|\b{_DAY}\s+{_MONTHS}\s+(?:19|20)\d{{2}}\b", re.IGNORECASE)
# At an item's end: the date, in brackets or not, a full stop, and what a label after it would be
# ("Text. (2024-02-02) — Wizards of the Coast" with the date in an inline element of its own).
_DATE_AT_END = re.compile(rf"[(\[]?(?:{_DATE_LIKE.pattern})[)\]]?(?:\s*[—–-]\s*[^.!?()]{{1,40}})?\s*$",
                          re.IGNORECASE)
_DATE_AT_START = re.compile(rf"^[(\[]\s*(?:{_DATE_LIKE.pattern})\s*[)\]]", re.IGNORECASE)
# A label no known source's before an inline date: a dash and a few words after a sentence's end
# ("... solved. — WotC (2024-02-02)", "... solved. - WotC (...)"); "Choose one — Draw a card (...)"
# ends no sentence first, and a quotation's attribution ("“I see.” —Jace Beleren") ends a quote.
_UNKNOWN_LABEL = re.compile(r"[.!?]\s*(?:[—–]|\s-)\s*[^\s.!?—–]{1,30}(?:\s[^\s.!?—–]{1,30}){0,3}$")
_DATE_BLOCK_MAX_CHARS = 60  # "— Wizards of the Coast (2024-02-02)" is 35; a longer last block is words
# Scryfall's own note heading the list on a non-English page; it is not a ruling.
_ENGLISH_ONLY_NOTE = "Only the English version of a Magic card receives Oracle updates and errata."
_SYMBOLS_AT_END = re.compile(r"(?:\s*\{[^{}\s]+\})+$")  # the mana cost printed after the name


@dataclass(frozen=True)
class ScryfallPage:
    card_name: str
    rulings: tuple[RulingSighting, ...]


def parse_scryfall_page(html: bytes | str, doc_id: str, oracle_id: str | None,
                        content_type: str | None = None, *,
                        card_names: Collection[str] | None = None) -> ScryfallPage:
    """Read one scryfall.com card page (any language; the rulings are English).

    ``card_names``: the names of the card the page was asked for. Given, a page without the
    rulings heading must name one of them in its h1 (the card's name heading) to read as the
    card's page; one that does not is no card page (a maintenance, error or login page) and
    raises UnrecognizedPage.
    """
    with parse_guard(doc_id):
        soup = load_html(html, doc_id, content_type)
        headings = find_headings(soup, _RULINGS_HEADING)
        if not headings:
            if card_names is not None:
                _check_name_heading(soup, doc_id, card_names)
            return ScryfallPage(card_name=_name_from_title(soup, doc_id), rulings=())
        heading = headings[0]
        card_name = _RULINGS_HEADING.fullmatch(visible_text(heading)).group("name")
        return ScryfallPage(card_name=card_name, rulings=_rulings(heading, doc_id, oracle_id))


def _check_name_heading(soup: BeautifulSoup, doc_id: str, card_names: Collection[str]) -> None:
    h1 = soup.find("h1")
    shown = search_fold(_SYMBOLS_AT_END.sub("", visible_text(h1))) if h1 else ""
    if not any(search_fold(name) and search_fold(name) in shown for name in card_names):
        raise UnrecognizedPage(doc_id, f"no rulings heading and no h1 naming {' / '.join(card_names) or 'the card'}: "
                                       f"not its scryfall.com page (h1: {visible_text(h1) if h1 else None!r})")


def _name_from_title(soup: BeautifulSoup, doc_id: str) -> str:
    """A page with no rulings names its card only in its h1 (name, then the mana cost symbols)."""
    h1 = soup.find("h1")
    name = _SYMBOLS_AT_END.sub("", visible_text(h1)) if h1 else ""
    if not name:
        raise ParseError(doc_id, "no card name: neither a rulings heading nor an h1")
    return name


def _rulings(heading: Tag, doc_id: str, oracle_id: str | None) -> tuple[RulingSighting, ...]:
    every = list_items(section_blocks(heading))
    inner = {id(li) for item in every for li in item.find_all("li")}  # a nested list belongs to its item
    items = [_split(item, doc_id) for item in every if id(item) not in inner]
    items = [(text, meta) for text, meta in items if text and not text.startswith(_ENGLISH_ONLY_NOTE)]
    if not items:
        raise ParseError(doc_id, "the rulings heading is there but no ruling can be read (layout changed?)")
    return tuple(_sighting(text, meta, position, doc_id, oracle_id) for position, (text, meta) in enumerate(items))


def _split(item: Tag, doc_id: str) -> tuple[str, re.Match | None]:
    """An item's text and, when its last block is the label and date alone, that block's match."""
    children = [c for c in item.contents if not (isinstance(c, str) and not c.strip())]
    if len(children) > 1 and isinstance(children[-1], Tag) and is_block(children[-1]):
        last = visible_text(children[-1])
        meta = _META_BLOCK.fullmatch(last)
        if meta:
            return visible_text_of(children[:-1]), meta
        if len(last) <= _DATE_BLOCK_MAX_CHARS and _DATE_LIKE.search(last) and not _words_then_date(last):
            raise ParseError(doc_id, f"a ruling's date block reads {last!r}, not \"[label] (YYYY-MM-DD)\" "
                                     "(layout changed?)")
    return visible_text(item), None


def _words_then_date(block: str) -> bool:
    """A last paragraph of words ending in "(YYYY-MM-DD)" ("Second paragraph. (2024-02-02)"): read
    with the item's other blocks, as one ruling and its date. Not a label ("— WotC (2024-02-02)",
    "Gatherer (2024-02-02)"): words end a sentence before the date."""
    meta = _RULING_META.fullmatch(block)
    return bool(meta) and meta.group("label") is None and meta.group("text").rstrip().endswith(
        (".", "!", "?", "”", '"', ")"))


def _sighting(item: str, meta_block: re.Match | None, position: int, doc_id: str,
              oracle_id: str | None) -> RulingSighting:
    text, label, published = item, None, None
    meta = meta_block or _RULING_META.fullmatch(item)
    if meta:
        text = item if meta_block else meta.group("text")
        label = meta.group("label")
        published = _iso_date(meta.group("date"), doc_id)
    if not text:
        raise ParseError(doc_id, f"ruling {position} has a date but no text (layout changed?)")
    if meta and not label and not meta_block and _UNKNOWN_LABEL.search(text):
        raise ParseError(doc_id, f"ruling {position}'s date follows a label that is no known source: "
                                 f"{text[-60:]!r} (layout changed?)")
    unread = _DATE_AT_START.search(text) or (None if meta else _DATE_AT_END.search(text))
    if unread:
        raise ParseError(doc_id, f"ruling {position} shows a date in a form not read: {unread.group()!r} "
                                 "(layout changed?)")
    return RulingSighting(
        doc_id=doc_id, origin=ORIGIN, oracle_id=oracle_id, position=position, text_as_seen=text,
        date_as_seen=published, source=_SOURCE_LABELS.get(label.lower()) if label else None, lang="en")


def _iso_date(shown: str, doc_id: str) -> str:
    try:
        return date.fromisoformat(shown).isoformat()
    except ValueError:
        raise ParseError(doc_id, f"a ruling date is not a calendar date: {shown!r}") from None
