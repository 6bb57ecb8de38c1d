"""What the page-parser tests share: the seeds, the constructed pages, the reference, fuzz strategies."""

from __future__ import annotations

import json
from pathlib import Path

from bs4 import BeautifulSoup
from hypothesis import strategies as st

FIXTURES = Path(__file__).parent / "fixtures"
PAGES = FIXTURES / "pages"
SEEDS = FIXTURES / "seeds"

WIKI_SEED = "000_8bff36ab184ebabf.txt"
LISTEBLANCHE_SEED = "001_e174bb831b3b261f.txt"
SCRYFALL_SEED = "002_69a2b200c1ac39cf.txt"

WIKI_PAGE = "mtgwiki_case.html"
SCRYFALL_SEED_PAGE = "scryfall_case-of-the-shifting-visage.html"
LISTEBLANCHE_SEED_PAGE = "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html"


def page(name: str) -> bytes:
    return (PAGES / name).read_bytes()


def seed_lines(name: str) -> list[str]:
    """A seed's non-blank lines, whitespace collapsed, a list bullet ("• ") taken off."""
    lines = (SEEDS / name).read_text(encoding="utf-8").split("\n")
    return [collapse(line).removeprefix("• ") for line in lines if line.strip()]


def collapse(text: str) -> str:
    return " ".join(text.split())


def soup_text(html: bytes) -> str:
    """The page's text as BeautifulSoup's get_text gives it, whitespace collapsed."""
    return collapse(BeautifulSoup(html, "lxml").get_text())


def index() -> dict[str, dict]:
    return json.loads((PAGES / "index.json").read_text(encoding="utf-8"))


def pages_of(site: str) -> list[str]:
    return sorted(name for name, entry in index().items() if entry["site"] == site)


def reference_cards() -> list[dict]:
    return json.loads((FIXTURES / "reference" / "case_cards.json").read_text(encoding="utf-8"))


def reference_card(oracle_id: str) -> dict:
    return next(c for c in reference_cards() if c["identifiers"]["oracle_id"] == oracle_id)


# --- hypothesis strategies -------------------------------------------------------------------------

# Pieces that make a mutation hit what the parsers look for, or what trips HTML parsers.
_SNIPPETS = [
    b"<ul>", b"</ul>", b"<li>", b"</li>", b"<ol>", b"<p>", b"</p>", b"<h1>", b"</h1>", b"<h2>Rulings</h2>",
    b"<h2>Notes and Rules Information for X:</h2>", "02 février 2024 · source : wotc".encode(),
    " · source : ".encode(), b"<blockquote lang=\"fr\">", b"<img alt=\"1\">", b"<abbr>{1}</abbr>",
    b"<table><tr><th>Statistics</th><td>", b"(2024-13-45)", b"<!--", b"-->", b"<script>", b"<![CDATA[",
    b"&#0;", b"&#xD800;", b"\x00", b"\xff\xfe", b"\xe2\x80", b"<meta charset=\"utf-16\">",
]


def truncated(pages: list[str]) -> st.SearchStrategy[bytes]:
    """A prefix of one of the pages, cut anywhere (mid-tag, mid-character)."""
    return st.sampled_from([page(name) for name in pages]).flatmap(
        lambda data: st.integers(0, len(data)).map(lambda end: data[:end]))


@st.composite
def mutated(draw, pages: list[str]) -> bytes:
    """One of the pages with a few random edits: bytes deleted, replaced, inserted, snippets spliced in."""
    data = bytearray(page(draw(st.sampled_from(pages))))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["delete", "replace", "insert", "snippet"]))
        if edit == "delete":
            del data[at:at + draw(st.integers(1, 400))]
        elif edit == "replace" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        else:
            data[at:at] = draw(st.sampled_from(_SNIPPETS))
    return bytes(data)


random_documents = st.one_of(st.binary(max_size=4096), st.text(max_size=2048))


NOT_CARD_PAGES = FIXTURES / "not_card_pages"  # constructed: see its README


def not_card_page(name: str) -> bytes:
    return (NOT_CARD_PAGES / name).read_bytes()
