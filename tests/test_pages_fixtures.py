"""The constructed pages: up to date with their builder, indexed, one per site for each paper Case card."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from pages_support import PAGES, index, reference_cards


def _builder():
    spec = importlib.util.spec_from_file_location("build_pages", PAGES / "build_pages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_pages", module)
    spec.loader.exec_module(module)
    return module


def test_committed_pages_are_what_the_builder_writes(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["build_pages.py", "--out", str(tmp_path)])
    _builder().main()
    built = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in PAGES.iterdir() if p.suffix in (".html", ".json"))
    assert built == committed
    for name in built:
        assert (tmp_path / name).read_bytes() == (PAGES / name).read_bytes(), name


def test_index_names_every_page_and_only_existing_pages():
    pages = {p.name for p in PAGES.glob("*.html")}
    assert set(index()) == pages
    assert len(pages) == 27  # the wiki page, and 13 cards × (scryfall.com, listeblanche.fr)


def test_each_paper_case_card_with_rulings_has_one_page_per_site():
    paper = [c for c in reference_cards() if not c["digital_only"] and c["rulings"]]
    assert len(paper) == 13
    for card in paper:
        oracle_id = card["identifiers"]["oracle_id"]
        sites = sorted(e["site"] for e in index().values() if e["oracle_id"] == oracle_id)
        assert sites == ["listeblanche.fr", "scryfall.com"], card["name"]


@pytest.mark.parametrize("name, entry", sorted(index().items()))
def test_index_urls_follow_each_sites_pattern(name, entry):
    if entry["site"] == "mtg.wiki":
        assert entry == {**entry, "url": "https://mtg.wiki/page/Case", "oracle_id": None, "scryfall_id": None}
        return
    card = next(c for c in reference_cards() if c["identifiers"]["oracle_id"] == entry["oracle_id"])
    assert entry["scryfall_id"] == card["identifiers"]["scryfall_id"]
    printing = card["printings"][0]
    set_lower, number = printing["set_code"].lower(), printing["collector_number"]
    slug = re.sub(r"[^a-z0-9]+", "-", card["name"].lower().replace("'", ""))  # "case-of-the-gorgons-kiss"
    if entry["site"] == "scryfall.com":
        assert name == f"scryfall_{slug}.html"
        assert entry["url"] == f"https://scryfall.com/card/{set_lower}/{number}/{slug}"
    else:
        assert name == f"listeblanche_{set_lower}_{slug}-{set_lower}-{number}.html"
        assert entry["url"] == f"https://listeblanche.fr/carte/{set_lower}/{slug}-{set_lower}-{number}"
