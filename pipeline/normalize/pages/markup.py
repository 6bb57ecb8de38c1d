"""What every page parser needs from HTML: a parsed tree, visible text with mana symbols, sections.

Pure: no network, no DuckDB, and no knowledge of any one site. Reads visible text and document
structure (headings, lists, siblings), never CSS class names. ``parse_guard`` is the one place
where a surprise from lxml or bs4 becomes a ParseError naming the document.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import bs4
from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag
from bs4.dammit import EncodingDetector
from bs4.element import Script, Stylesheet, TemplateString

from pipeline.errors import ParseError
from pipeline.normalize.text import canonical_text, search_fold

HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")

# Elements a browser lays out as their own box: their text never runs into the text next to them.
_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "caption", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "legend", "li",
    "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "ul", *HEADING_TAGS,
})
_INVISIBLE_TAGS = frozenset({"head", "script", "style", "template", "noscript", "title"})
_INVISIBLE_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, Script, Stylesheet, TemplateString)
LIST_TAGS = ("ul", "ol")
PAGE_ROOTS = ("body", "html", "[document]")  # "[document]" is bs4's name for the parsed page itself

# A symbol image's alt text: "{1}", "{W}{U}", or the bare token a wiki template writes ("1", "W",
# "T", "W/U", "2/W", "G/U/P"). Tokens as Scryfall's symbology lists them.
_BRACED_SYMBOLS = re.compile(r"(?:\{[^{}\s]{1,12}\})+")
_BARE_SYMBOL = re.compile(r"\d{1,2}|[WUBRGCXYZSTQE]|[WUBRGC2]/[WUBRGP]|[WUBRG]/[WUBRG]/P", re.IGNORECASE)

# MediaWiki's edit link inside or beside a heading: "[edit]", "[ edit | edit source ]".
_EDIT_LINK = re.compile(r"\s*\[\s*edit(?:\s*\|\s*edit source)?\s*\]\s*$", re.IGNORECASE)

_SWALLOWED_BS4_WARNINGS = (bs4.MarkupResemblesLocatorWarning, bs4.XMLParsedAsHTMLWarning)


@contextmanager
def parse_guard(document: str) -> Iterator[None]:
    """Let ParseError through; turn any other failure while reading ``document`` into one."""
    try:
        yield
    except ParseError:
        raise
    except Exception as exc:  # lxml and bs4 raise many kinds on hostile input; callers get one
        raise ParseError(document, f"unreadable HTML ({type(exc).__name__}: {exc})") from exc


def load_html(html: bytes | str, document: str, content_type: str | None = None) -> BeautifulSoup:
    """The parsed page (lxml parser). Bytes are decoded as a browser does: by their byte order
    mark, else the charset of the Content-Type header the page came with, else the page's own
    declaration, else a guess; a page labelled ISO-8859-1 or ASCII is read as windows-1252."""
    if not isinstance(html, (bytes, str)):
        raise ParseError(document, f"expected HTML as bytes or str, got {type(html).__name__}")
    if not html.strip():
        raise ParseError(document, "empty document")
    encoding = _encoding(html, content_type) if isinstance(html, bytes) else None
    with warnings.catch_warnings():
        for category in _SWALLOWED_BS4_WARNINGS:
            warnings.simplefilter("ignore", category)
        return BeautifulSoup(html, "lxml", from_encoding=encoding)


# The labels the WHATWG Encoding Standard decodes as windows-1252 (browsers do): such a page's
# curly quotes and dashes (bytes 0x80-0x9F) are characters, not control codes.
_WINDOWS_1252_LABELS = frozenset({
    "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
    "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252",
    "x-cp1252",
})
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_CHARSET_PARAM = re.compile(r";\s*charset\s*=\s*[\"']?([^\s;\"']+)", re.IGNORECASE)


def _encoding(html: bytes, content_type: str | None) -> str | None:
    """The encoding to read ``html`` with, or None to leave it to the byte order mark or a guess."""
    if html.startswith(_BOMS):
        return None
    header = _CHARSET_PARAM.search(content_type or "")
    label = header.group(1) if header else EncodingDetector.find_declared_encoding(html, is_html=True)
    if not label:
        return None
    label = label.strip().lower()
    return "windows-1252" if label in _WINDOWS_1252_LABELS else label


def symbol_from_alt(alt: str) -> str:
    """The ``{…}`` text of a symbol image's alt, or "" when the image is not a symbol."""
    alt = alt.strip()
    if _BRACED_SYMBOLS.fullmatch(alt):
        return alt
    if _BARE_SYMBOL.fullmatch(alt):
        return "{" + alt.upper() + "}"
    return ""


def visible_text(node: Tag | NavigableString, skip: tuple[str, ...] = ()) -> str:
    """The text a reader sees in ``node``, symbol images as ``{…}``, whitespace collapsed.

    Elements named in ``skip`` (below ``node``) are left out, e.g. a list item's sub-list.
    """
    return _text_of([node], node, skip)


def visible_text_of(nodes: list[Tag | NavigableString]) -> str:
    """The text a reader sees in a run of sibling nodes, read as one line (see ``visible_text``)."""
    return _text_of(nodes, None, ())


def names_any(soup: BeautifulSoup, names: Iterable[str]) -> bool:
    """Whether the page's visible text or its <title> holds one of ``names`` (accents, case and
    typography aside): how a page that shows no rulings still tells it is the page of its card."""
    title = soup.find("title")
    shown = search_fold(" ".join([visible_text(soup), title.get_text(" ") if title else ""]))
    shown = " ".join(shown.split())
    return any(folded and folded in shown for folded in (" ".join(search_fold(n).split()) for n in names))


def is_block(tag: Tag) -> bool:
    """Whether a browser lays ``tag`` out as a box of its own."""
    return tag.name in _BLOCK_TAGS


def _text_of(nodes: list[Tag | NavigableString], root: Tag | NavigableString | None, skip: tuple[str, ...]) -> str:
    parts: list[str] = []
    stack: list[Tag | NavigableString | None] = list(reversed(nodes))  # None marks the end of a block
    while stack:
        item = stack.pop()
        if item is None:
            parts.append(" ")
        elif isinstance(item, NavigableString):
            if not isinstance(item, _INVISIBLE_STRINGS):
                parts.append(str(item))
        elif isinstance(item, Tag):
            _push_tag(item, item is root, skip, parts, stack)
    return canonical_text("".join(parts))


def is_visible_string(string: NavigableString) -> bool:
    """Whether a reader sees this string: no comment or declaration, nothing in <script>, <head>…"""
    if isinstance(string, _INVISIBLE_STRINGS):
        return False
    return not any(parent.name in _INVISIBLE_TAGS for parent in string.parents)


def _push_tag(tag: Tag, is_root: bool, skip: tuple[str, ...], parts: list[str], stack: list) -> None:
    if tag.name in _INVISIBLE_TAGS or (not is_root and tag.name in skip):
        return
    if tag.name == "img":
        parts.append(symbol_from_alt(tag.get("alt") or ""))
    elif tag.name == "br":
        parts.append(" ")
    elif tag.name in _BLOCK_TAGS:
        parts.append(" ")
        stack.append(None)
        stack.extend(reversed(tag.contents))
    else:
        stack.extend(reversed(tag.contents))


def heading_level(tag: Tag) -> int:
    return int(tag.name[1])


def heading_title(tag: Tag) -> str:
    """A heading's text without MediaWiki's "[edit]" link."""
    return _EDIT_LINK.sub("", visible_text(tag))


def find_headings(root: Tag, title: re.Pattern[str]) -> list[Tag]:
    """Headings (h1–h6) whose whole title matches ``title``, in page order."""
    return [h for h in root.find_all(HEADING_TAGS) if title.fullmatch(heading_title(h))]


def section_blocks(heading: Tag) -> list[Tag]:
    """The elements of the section a heading opens: what follows it up to the next heading of its rank.

    A heading wrapped in a box of its own (MediaWiki 1.43's ``<div><h2/>[edit]</div>``) is
    stepped out of first, so the section's elements are that box's siblings.
    """
    anchor = _outermost_box(heading)
    level = heading_level(heading)
    blocks: list[Tag] = []
    for sibling in anchor.next_siblings:
        if not isinstance(sibling, Tag):
            continue
        if _opens_section(sibling, level):
            break
        blocks.append(sibling)
    return blocks


def _outermost_box(heading: Tag) -> Tag:
    """The largest element around ``heading`` that shows nothing but the heading (and its edit link)."""
    title = heading_title(heading)
    anchor = heading
    while isinstance(anchor.parent, Tag) and anchor.parent.name not in PAGE_ROOTS:
        if heading_title(anchor.parent) != title:
            break
        anchor = anchor.parent
    return anchor


def _opens_section(tag: Tag, level: int) -> bool:
    ranks = HEADING_TAGS[:level]
    return tag.name in ranks or tag.find(ranks) is not None


def list_items(blocks: list[Tag]) -> list[Tag]:
    """Every <li> of the lists among ``blocks``, nested ones included, in page order."""
    items: list[Tag] = []
    for block in blocks:
        if block.name == "li":
            items.append(block)
        items.extend(block.find_all("li"))
    return items


def inside(tag: Tag, names: tuple[str, ...], stop: Tag | None = None) -> bool:
    """Whether ``tag`` sits within an element named in ``names`` (below ``stop``, if given)."""
    for parent in tag.parents:
        if parent is stop:
            return False
        if parent.name in names:
            return True
    return False


def nearest_lang(tag: Tag) -> str | None:
    """The ``lang`` in force on ``tag`` (its own or the nearest ancestor's), lower case."""
    node: Tag | None = tag
    while isinstance(node, Tag):
        lang = node.get("lang")
        if isinstance(lang, str) and lang.strip():
            return lang.strip().lower()
        node = node.parent
    return None
