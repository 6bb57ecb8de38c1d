"""Normalizing Scryfall API JSON. Card objects are taken from the bundled sample where they exist;
the multi-face and edge-case objects are constructed here from Scryfall's documented card format
(https://scryfall.com/docs/api/cards, "Card Face Objects", layouts) and say so."""

import json

import pytest

from pipeline.errors import ParseError
from pipeline.normalize import scryfall as api

from conftest import ROOT

SAMPLE = ROOT / "data" / "raw" / "sample"


def sample_search_page() -> bytes:
    return (SAMPLE / "docs" / "scryfall-api" / "00001-search.json").read_bytes()


def page_of(*cards) -> bytes:
    return json.dumps({"object": "list", "has_more": False, "total_cards": len(cards), "data": list(cards)}).encode()


def cards_of(page: api.PageRecords) -> list:
    return [card for _, cards, _ in page.pairs for card in cards]


def test_sample_page_gives_15_cards_and_every_printing():
    page = api.search_page_records(sample_search_page(), "sample")
    assert page.skipped == []
    assert len({c.oracle_id for c in cards_of(page)}) == 15
    assert len(page.printings) == 107
    numbers = {p.collector_number for p in page.printings}
    assert {"79†", "10s", "45p", "80p"} <= numbers  # text, never numbers
    langs = {p.lang for p in page.printings}
    assert langs == {"en", "es", "fr", "de", "it", "pt", "ja", "zhs"}


def test_translated_printing_is_a_printing_of_the_same_oracle_card():
    page = api.search_page_records(sample_search_page(), "sample")
    fr = [p for p in page.printings if p.lang == "fr" and p.collector_number == "1"]
    assert len(fr) == 1
    assert fr[0].printed_name == "Affaire du Pacte fracassé"
    assert fr[0].printed_text.startswith("Quand cette affaire arrive sur le champ de bataille")
    assert fr[0].oracle_id == "d00a089b-7d0d-4b89-902b-7b914e892178"


def test_links_for_extract():
    links = api.search_page_links(sample_search_page(), "sample")
    assert links.has_more is False and links.total_cards == 107
    assert {p["set"] for p in links.printings} == {"mkm", "pmkm", "mkc", "ymkm"}


# Constructed from Scryfall's documented format: a reversible_card has no top-level oracle_id;
# each face carries its own.
REVERSIBLE = {
    "object": "card", "id": "00000000-0000-4000-8000-000000000001", "lang": "en", "layout": "reversible_card",
    "set": "sld", "collector_number": "1500★", "rarity": "rare", "digital": False, "color_identity": ["U"],
    "name": "Face A // Face A",
    "card_faces": [
        {"object": "card_face", "name": "Face A", "oracle_id": "00000000-0000-4000-8000-0000000000aa",
         "mana_cost": "{U}", "cmc": 1.0, "type_line": "Enchantment — Case", "oracle_text": "Text.", "colors": ["U"]},
        {"object": "card_face", "name": "Face A", "oracle_id": "00000000-0000-4000-8000-0000000000aa",
         "mana_cost": "{U}", "cmc": 1.0, "type_line": "Enchantment — Case", "oracle_text": "Text.", "colors": ["U"]},
    ],
}


def test_reversible_card_takes_its_oracle_id_from_its_faces():
    page = api.search_page_records(page_of(REVERSIBLE), "constructed")
    assert page.skipped == []
    assert [c.oracle_id for c in cards_of(page)] == ["00000000-0000-4000-8000-0000000000aa"]
    assert cards_of(page)[0].name == "Face A" and cards_of(page)[0].cmc == 1.0
    assert page.printings[0].oracle_id == "00000000-0000-4000-8000-0000000000aa"
    assert page.printings[0].collector_number == "1500★"
    links = api.search_page_links(page_of(REVERSIBLE), "constructed")
    assert links.printings[0]["oracle_ids"] == ["00000000-0000-4000-8000-0000000000aa"]


def test_transform_card_joins_its_faces():
    card = {"object": "card", "id": "00000000-0000-4000-8000-000000000002", "oracle_id": "00000000-0000-4000-8000-0000000000bb",
            "name": "Front // Back", "lang": "en", "layout": "transform", "cmc": 2.0, "set": "tst",
            "collector_number": "2", "color_identity": ["G"],
            "card_faces": [{"name": "Front", "mana_cost": "{1}{G}", "type_line": "Creature", "oracle_text": "A.", "colors": ["G"]},
                           {"name": "Back", "mana_cost": "", "type_line": "Creature", "oracle_text": "B.", "colors": ["G"]}]}
    [c] = api.card_records(card)
    assert c.mana_cost == "{1}{G} // " and c.oracle_text == "A.\n//\nB." and c.colors == ("G",)
    assert c.type_line == "Creature // Creature"


def test_empty_mana_cost_is_not_zero():
    base = {"object": "card", "id": "x", "oracle_id": "o", "name": "Land", "layout": "normal", "set": "tst",
            "collector_number": "3", "color_identity": []}
    [land] = api.card_records({**base, "mana_cost": ""})
    [zero] = api.card_records({**base, "mana_cost": "{0}"})
    [unknown] = api.card_records(base)
    assert (land.mana_cost, zero.mana_cost, unknown.mana_cost) == ("", "{0}", None)


def test_a_broken_card_is_skipped_and_reported():
    page = api.search_page_records(page_of({"object": "card", "id": "x", "name": "No oracle"}, REVERSIBLE), "doc")
    assert len(page.printings) == 1
    assert page.skipped and page.skipped[0].startswith("doc#0")


def test_numeric_collector_number_is_refused():
    bad = {**REVERSIBLE, "collector_number": 1500}
    page = api.search_page_records(page_of(bad), "doc")
    assert page.printings == [] and "collector_number" in page.skipped[0]


def test_unknown_fields_are_counted():
    page = api.search_page_records(page_of({**REVERSIBLE, "brand_new_field": 1}), "doc")
    assert page.unknown_fields["brand_new_field"] == 1


@pytest.mark.parametrize("body", [b"", b"not json", b"[]", b'{"object": "error"}', b'{"object": "list"}'])
def test_documents_that_are_not_lists_raise_parse_error_naming_them(body):
    with pytest.raises(ParseError) as info:
        api.search_page_records(body, "run/doc.json")
    assert "run/doc.json" in str(info.value)


def test_rulings_become_sightings_in_order():
    body = (SAMPLE / "docs" / "scryfall-api" / "00002-rulings.json").read_bytes()
    sightings, skipped = api.ruling_sightings(body, "doc-1", "asked", "doc")
    assert skipped == [] and len(sightings) > 0
    assert [s.position for s in sightings] == list(range(len(sightings)))
    assert all(s.origin == "scryfall-api" and s.date_as_seen == "2024-02-02" and s.source == "wotc" for s in sightings)


def test_set_record():
    body = (SAMPLE / "docs" / "scryfall-api" / "00017-mkm.json").read_bytes()
    record = api.set_record(body, "doc")
    assert record.set_code == "MKM" and record.name == "Murders at Karlov Manor"
