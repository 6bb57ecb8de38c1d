"""A listeblanche.fr card page's rulings as records: the English original and, where shown, its French translation.

Pure: no network, no DuckDB. Each ruling opens with a French date line ("02 février 2024 · source :
wotc"); its texts follow that line in the same block. Pairing of a translation with its original
is by that structure only, never by comparing texts. Returns a ListeBlanchePage or raises
ParseError naming the document, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from itertools import takewhile

from bs4 import BeautifulSoup, NavigableString, Tag

from pipeline.errors import ParseError, UnrecognizedPage
from pipeline.normalize.dates_fr import parse_french_date, starts_with_french_date
from pipeline.normalize.pages.markup import (
    HEADING_TAGS, PAGE_ROOTS, is_block, is_visible_string, load_html, names_any, nearest_lang, parse_guard,
    visible_text, visible_text_of,
)
from pipeline.normalize.text import search_fold
from pipeline.records import RulingSighting

ORIGIN = "listeblanche"
MACHINE_TRANSLATION = "machine-translation"  # flag on French copies the page says were machine-made

_DATE_LINE = re.compile(r"(?P<date>.+?)\s*[·•|]\s*source\s*:\s*(?P<source>.+)", re.IGNORECASE)
# A string a date line is made of: "source" may stand in an element of its own, apart from its colon.
_DATE_LINE_HINT = re.compile(r"\bsource\b", re.IGNORECASE)
_OPENS_WITH_DIGIT = re.compile(r"^\s*\d")  # a string a date may open: "02 février 2024", "1er mars 2024"
_DATE_LINE_MAX_CHARS = 80  # "02 septembre 2024 · source : wotc" is 33; longer text is a paragraph, not a date line
_LIST_ENTRIES = ("li", "tr", "dd", "article")  # what is an entry of a list by its tag alone
_SOURCES = {"wotc": "wotc", "wizards of the coast": "wotc", "scryfall": "scryfall"}
# A heading announcing how many rulings follow: "16 clarifications", "Clarifications (16)".
_ANNOUNCED = re.compile(
    r"(?:^|\D)(\d+)\s+(?:clarifications?|regles?|rulings?)\b|\b(?:clarifications?|regles?|rulings?)\s*\(\s*(\d+)\s*\)")
# The page's own word that its French copies are machine translations ("traduction … générée automatiquement").
_MACHINE_MADE = re.compile(r"traduction\b[^.]*\bautomatiquement")


@dataclass(frozen=True)
class ListeBlanchePage:
    title: str | None  # the h1 as shown
    name_en: str | None  # the card's names, where the page marks their language
    name_fr: str | None
    expected_rulings: int  # the count the page announces, else its number of date lines
    rulings: tuple[RulingSighting, ...]  # per ruling: the English copy, then its French copy if shown


@dataclass(frozen=True, eq=False)
class _DateLine:
    """A date line as the page shows it: an element, or a run of inline text inside a larger box."""

    parts: tuple[Tag | NavigableString, ...]
    text: str

    def touches(self, node: Tag | NavigableString) -> bool:
        """Whether ``node`` is, or holds, a part of this date line."""
        return any(part is node or (isinstance(node, Tag) and any(parent is node for parent in part.parents))
                   for part in self.parts)


@dataclass(frozen=True)
class _Block:
    published: str  # ISO date
    source: str
    english: str | None
    french: str | None


def parse_listeblanche_page(html: bytes | str, doc_id: str, oracle_id: str | None,
                            content_type: str | None = None, *,
                            card_names: Collection[str] | None = None) -> ListeBlanchePage:
    """Read one listeblanche.fr card page.

    ``card_names``: the names of the card the page was asked for. Given, a page that shows no
    ruling (no date line, no count) must name one of them to read as the card's page with no
    rulings; one that does not is no card page (a maintenance, error or login page) and raises
    UnrecognizedPage.
    """
    with parse_guard(doc_id):
        soup = load_html(html, doc_id, content_type)
        title, name_en, name_fr = _names(soup)
        date_lines = _date_lines(soup)
        announced = _announced_count(soup)
        if announced and not date_lines:
            raise ParseError(doc_id, f"the page announces {announced} rulings but none is dated (layout changed?)")
        if not date_lines and announced is None and card_names is not None and not names_any(soup, card_names):
            raise UnrecognizedPage(doc_id, f"no ruling and no mention of {' / '.join(card_names) or 'the card'}: "
                                           f"not its listeblanche.fr page (h1: {title!r})")
        # after the test above: a maintenance page with a dated line is no card page, tried again
        stray = _stray_dated_line(soup, date_lines)
        if stray is not None:
            raise ParseError(doc_id, f"a line opens with a date but is no date line (date · source : …): {stray!r} "
                                     "(layout changed?)")
        undated = _undated_item(date_lines)
        if undated is not None:
            raise ParseError(doc_id, f"a ruling item shows no date line (date · source : …): {undated[:80]!r} "
                                     "(layout changed?)")
        blocks = [_block(line, date_lines, doc_id) for line in date_lines]
        flags = (MACHINE_TRANSLATION,) if _MACHINE_MADE.search(search_fold(visible_text(soup))) else ()
        return ListeBlanchePage(
            title=title, name_en=name_en, name_fr=name_fr,
            expected_rulings=announced if announced is not None else len(date_lines),
            rulings=tuple(_sightings(blocks, doc_id, oracle_id, flags)),
        )


def _names(soup: BeautifulSoup) -> tuple[str | None, str | None, str | None]:
    """The h1, and the names the page marks as English or French (the h1 and its hgroup siblings)."""
    h1 = soup.find("h1")
    if h1 is None:
        return None, None, None
    candidates = [h1]
    if isinstance(h1.parent, Tag) and h1.parent.name == "hgroup":
        candidates += [c for c in h1.parent.children if isinstance(c, Tag) and c is not h1]
    names: dict[str, str] = {}
    for candidate in candidates:
        lang, text = nearest_lang(candidate), visible_text(candidate)
        if lang and text:
            names.setdefault(lang.split("-")[0], text)
    return visible_text(h1) or None, names.get("en"), names.get("fr")


def _date_lines(soup: BeautifulSoup) -> list[_DateLine]:
    """The date lines, in page order: each the smallest element whose whole text is one, or the run
    of inline text that is one where it shares its box with other lines (no box of its own)."""
    found: list[_DateLine] = []
    for string in soup.find_all(string=_DATE_LINE_HINT):
        if not is_visible_string(string):
            continue
        line = _date_line_at(string)
        if line is not None and not any(line.parts[-1] is seen.parts[-1] for seen in found):
            found.append(line)
    return found


def _date_line_at(string: NavigableString) -> _DateLine | None:
    node: Tag | NavigableString = string
    while isinstance(node.parent, Tag) and node.parent.name not in PAGE_ROOTS:
        run = _inline_run(node)
        text = visible_text_of(run)
        if len(text) > _DATE_LINE_MAX_CHARS:
            return None
        if _DATE_LINE.fullmatch(text):
            if visible_text(node.parent) == text:
                return _DateLine((node.parent,), text)
            return _DateLine(tuple(run), text)
        node = node.parent
    return None


def _stray_dated_line(soup: BeautifulSoup, date_lines: list[_DateLine]) -> str | None:
    """The first short line that opens with a French date yet is none of ``date_lines`` (its source
    left out or labelled another way), else None. Read as no date line, it would drop its ruling
    without a word: with no date line left, the page would read as a card's page with no rulings."""
    for string in soup.find_all(string=_OPENS_WITH_DIGIT):  # a date's day may stand apart: <span>02</span>
        if not is_visible_string(string):
            continue
        if any(part is string or any(parent is part for parent in string.parents)
               for line in date_lines for part in line.parts):
            continue
        node: Tag | NavigableString = string
        while isinstance(node.parent, Tag) and node.parent.name not in PAGE_ROOTS and not is_block(node.parent):
            node = node.parent
        text = visible_text_of(_inline_run(node))
        if len(text) <= _DATE_LINE_MAX_CHARS and text.startswith(" ".join(string.split())) \
                and starts_with_french_date(text):
            return text
    return None


def _undated_item(date_lines: list[_DateLine]) -> str | None:
    """The text of the first item between two rulings' items that looks like one of them but holds
    no date line, else None.

    A ruling's item is the nearest box around its date line that is an entry of a list (an
    ``<li>``, a row, an article, a box with a class a sibling shares) and holds no other date
    line. A sibling of the same tag between two of them whose elements are those of a ruling's
    item less its date line (the same tags, the same ``lang`` marks, in order) is a ruling whose
    date line is missing, read as nothing otherwise. Anything else there (an ad, a group's
    heading, a link) is left alone, and so is whatever comes before the first or after the last:
    a check that refused a page for them would stop every sync until casefile is changed, where
    the ruling missed is still the API's. A date line that is a box of its own among its texts (a
    flat layout) has no item.
    """
    items = [(line, item) for line in date_lines if (item := _item_of(line, date_lines)) is not None]
    shapes = {shape for line, item in items if (shape := _shape(item, line))}
    for parent in {id(item.parent): item.parent for _, item in items}.values():
        kin = [item for _, item in items if item.parent is parent]
        siblings = parent.find_all(kin[0].name, recursive=False)
        dated = {id(item) for item in kin}
        places = [i for i, node in enumerate(siblings) if id(node) in dated]
        for sibling in siblings[places[0] + 1:places[-1]]:
            if id(sibling) in dated or any(line.touches(sibling) for line in date_lines):
                continue
            if _shape(sibling, None) in shapes and (text := visible_text(sibling)):
                return text
    return None


def _shape(item: Tag, line: _DateLine | None) -> tuple[tuple[str, str | None], ...]:
    """The elements of ``item`` as (tag, lang) in order, less line breaks and the date line's own."""
    return tuple((child.name, _own_lang(child)) for child in item.children
                 if isinstance(child, Tag) and child.name != "br" and not (line and line.touches(child)))


def _classes(tag: Tag) -> set[str]:
    classes = tag.get("class") or ()
    return set(classes.split() if isinstance(classes, str) else classes)


def _item_of(line: _DateLine, date_lines: list[_DateLine]) -> Tag | None:
    node = line.parts[-1]
    if not isinstance(node, Tag) or visible_text(node) == line.text:
        node = node.parent  # the date line's own box (or its run of text) is no item
    while isinstance(node, Tag) and node.name not in PAGE_ROOTS and isinstance(node.parent, Tag):
        if sum(1 for other in date_lines if other.touches(node)) > 1:
            return None
        if _may_hold_a_ruling(node):
            return node
        node = node.parent
    return None


def _may_hold_a_ruling(item: Tag) -> bool:
    """Items whose kind says they are entries of one list: list items, rows, articles, and a box
    with a class that a sibling of the same tag shares."""
    if item.name in _LIST_ENTRIES:
        return True
    classes = _classes(item)
    return bool(classes) and isinstance(item.parent, Tag) and any(
        sibling is not item and classes & _classes(sibling) for sibling in item.parent.find_all(item.name, recursive=False))


def _inline_run(node: Tag | NavigableString) -> list[Tag | NavigableString]:
    """``node`` and the inline text beside it in its box, up to a block or a line break."""
    if _breaks_line(node):
        return [node]
    before = list(takewhile(lambda n: not _breaks_line(n), node.previous_siblings))
    after = list(takewhile(lambda n: not _breaks_line(n), node.next_siblings))
    return [*reversed(before), node, *after]


def _breaks_line(node: Tag | NavigableString) -> bool:
    return isinstance(node, Tag) and (is_block(node) or node.name == "br")


def _announced_count(soup: BeautifulSoup) -> int | None:
    for heading in soup.find_all(HEADING_TAGS):
        match = _ANNOUNCED.search(search_fold(visible_text(heading)))
        if match:
            return int(match.group(1) or match.group(2))
    return None


def _block(date_line: _DateLine, date_lines: list[_DateLine], doc_id: str) -> _Block:
    shown = date_line.text
    line = _DATE_LINE.fullmatch(shown)
    try:
        published = parse_french_date(line.group("date")).isoformat()
    except ValueError:
        raise ParseError(doc_id, f"unreadable date line {shown!r} (layout changed?)") from None
    label = line.group("source").strip().rstrip(".;,").strip()  # "source : wotc." is wotc
    source = _SOURCES.get(label.lower())
    if source is None:  # kept as shown, it would make a ruling of its own beside the API's copy
        raise ParseError(doc_id, f"date line {shown!r} names a source casefile does not know: {label!r} "
                                 f"(known: {', '.join(sorted(_SOURCES))}; layout changed?)")
    try:
        english, french = _original_and_translation(*_texts_after(date_line, date_lines))
    except _TooManyTexts as many:
        raise ParseError(doc_id, f"the ruling after {shown!r} shows {many} (layout changed?)") from None
    return _Block(published=published, source=source, english=english, french=french)


def _texts_after(date_line: _DateLine,
                 date_lines: list[_DateLine]) -> tuple[list[tuple[str | None, str]], str | None]:
    """(lang marked on it, text) of what follows a date line up to the next one, in its parent, and
    the language in force there (the page's: what a text with no mark of its own is written in).

    A date line boxed on its own (nothing after it in its parent) is stepped out of, as long as the
    box holds no other date line.
    """
    anchor = date_line.parts[-1]
    texts = _following_texts(anchor, date_lines)
    while not texts and _may_step_out(anchor, date_lines):
        anchor = anchor.parent
        texts = _following_texts(anchor, date_lines)
    in_force = nearest_lang(anchor.parent) if isinstance(anchor.parent, Tag) else None
    return texts, (in_force.split("-")[0] if in_force else None)


def _following_texts(anchor: Tag | NavigableString, date_lines: list[_DateLine]) -> list[tuple[str | None, str]]:
    return _sibling_texts(anchor.next_siblings, None, date_lines)


def _sibling_texts(nodes: Iterable[Tag | NavigableString], own: str | None,
                   date_lines: list[_DateLine] = ()) -> list[tuple[str | None, str]]:
    """(lang marked on it, text) of a sequence of siblings up to the first that holds a date line:
    each block (or element marked English or French) on its own, each run of inline text between
    them and line breaks as one text, marked ``own``."""
    texts: list[tuple[str | None, str]] = []
    run: list[Tag | NavigableString] = []
    for node in [*nodes, None]:
        if node is not None and any(line.touches(node) for line in date_lines):
            node = None
        if node is None or _breaks_line(node) or (isinstance(node, Tag) and _own_lang(node)):
            if run and (text := visible_text_of(run)):
                texts.append((own, text))
            run = []
            if node is None:
                break
            if node.name != "br":
                texts.extend((lang or own, text) for lang, text in _texts_by_language(node))
        elif isinstance(node, Tag) or is_visible_string(node):
            run.append(node)
    return texts


def _may_step_out(anchor: Tag | NavigableString, date_lines: list[_DateLine]) -> bool:
    parent = anchor.parent
    return (isinstance(parent, Tag) and parent.name not in PAGE_ROOTS
            and sum(1 for line in date_lines if line.touches(parent)) == 1)


def _texts_by_language(box: Tag) -> list[tuple[str | None, str]]:
    """(lang marked on it, text) of a box: the box whole when its text is in one language; when it
    holds texts marked as English and French (an original and its translation in one wrapper),
    each of its blocks and of the runs of text between them, with the language marked on it."""
    if len(_languages_within(box)) <= 1:
        text = visible_text(box)
        return [(_marked_lang(box), text)] if text else []
    return _sibling_texts(box.children, _own_lang(box))


def _languages_within(box: Tag) -> set[str | None]:
    """The languages of the visible words in ``box``: the English or French marked nearest to each
    within the box (None for words with no such mark)."""
    languages: set[str | None] = set()
    for string in box.find_all(string=True):
        if string.strip() and is_visible_string(string):
            languages.add(next((lang for parent in string.parents
                                if (lang := _own_lang(parent)) or parent is box), None))
    return languages


def _own_lang(tag: Tag) -> str | None:
    """English or French as ``tag``'s own lang attribute marks it, else None."""
    lang = tag.get("lang")
    if not isinstance(lang, str):
        return None
    primary = lang.strip().lower().split("-")[0]
    return primary if primary in ("en", "fr") else None


def _marked_lang(tag: Tag) -> str | None:
    """The language the markup gives a text: its own lang, or that of the first element inside it."""
    marked = tag if tag.get("lang") else tag.find(attrs={"lang": True})
    lang = marked.get("lang") if marked else None
    return lang.strip().lower().split("-")[0] if isinstance(lang, str) and lang.strip() else None


class _TooManyTexts(Exception):
    """A ruling's block holds two texts marked English: read as it stands, a part of the ruling
    would be dropped, or two rulings (a date line lost between them) read as one."""


def _original_and_translation(texts: list[tuple[str | None, str]],
                              in_force: str | None) -> tuple[str | None, str | None]:
    """Where the markup marks languages, it decides: a text marked English or French, else a text
    with no mark when the language in force around it is that one (a French page that marks only
    the English original); otherwise the first text is the English original and the second its
    translation (the page: "La traduction FR ci-dessous"). Texts marked French are one
    translation in parts, joined; two texts marked English raise _TooManyTexts."""
    if any(lang for lang, _ in texts):
        if sum(1 for lang, _ in texts if lang == "en") > 1:
            raise _TooManyTexts("more than one text marked English")
        unmarked = next((text for lang, text in texts if lang is None), None)
        english = next((text for lang, text in texts if lang == "en"), unmarked if in_force == "en" else None)
        marked_french = [text for lang, text in texts if lang == "fr"]
        french = " ".join(marked_french) if marked_french else (unmarked if in_force == "fr" else None)
        return english, french
    plain = [text for _, text in texts]
    return (plain[0] if plain else None), (plain[1] if len(plain) > 1 else None)


def _sightings(blocks: list[_Block], doc_id: str, oracle_id: str | None,
               flags: tuple[str, ...]) -> list[RulingSighting]:
    sightings: list[RulingSighting] = []
    for position, block in enumerate(blocks):
        if not block.english:
            raise ParseError(doc_id, f"ruling {position} ({block.published}) has no English text (layout changed?)")
        common = dict(doc_id=doc_id, origin=ORIGIN, oracle_id=oracle_id, position=position,
                      date_as_seen=block.published, source=block.source)
        sightings.append(RulingSighting(text_as_seen=block.english, lang="en", **common))
        if block.french:
            sightings.append(RulingSighting(text_as_seen=block.french, lang="fr", translates=position,
                                            flags=flags, **common))
    return sightings
