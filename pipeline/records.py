"""The records that flow between the stages: normalizers produce them, reconcile and load consume them.

Plain frozen dataclasses, one per table row (or per sighting before reconciliation). Field names
are the warehouse's column names, so the load step can write them without a mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The origin of the Comprehensive Rules' documents in the raw store: extract/rules.py writes them,
# the build reads them.
RULES_ORIGIN = "comprehensive-rules"


@dataclass(frozen=True)
class CardSet:
    set_code: str  # upper case, as printed on cards: "MKM"
    name: str | None
    set_type: str | None
    released_at: str | None  # ISO date
    card_count: int | None
    digital: bool | None


@dataclass(frozen=True)
class Card:
    """An Oracle card (the "work"), whatever language or printing it was seen in."""

    oracle_id: str
    name: str
    mana_cost: str | None  # "" (no cost) is kept distinct from "{0}" and from None (unknown)
    cmc: float | None
    colors: tuple[str, ...] | None
    color_identity: tuple[str, ...]
    type_line: str | None
    oracle_text: str | None
    layout: str


@dataclass(frozen=True)
class Printing:
    """One printing of a card in one language."""

    scryfall_id: str
    oracle_id: str
    set_code: str
    collector_number: str  # text: "79†", "10s", "45p"
    lang: str
    rarity: str | None
    released_at: str | None
    printed_name: str | None
    printed_text: str | None
    digital: bool | None
    scryfall_uri: str | None = None


@dataclass(frozen=True)
class RulingSighting:
    """One copy of a ruling as one document showed it, before reconciliation.

    ``position`` is the 0-based order of the ruling on that document for that card.
    ``oracle_id`` is None for a document about a whole subtype (the MTG wiki's type page).
    ``lang`` is the language of ``text_as_seen``; a translation names the English copy it
    translates through ``translates`` (the position of that copy on the same document).
    """

    doc_id: str
    origin: str  # scryfall-api | scryfall-page | listeblanche | mtgwiki
    oracle_id: str | None
    position: int
    text_as_seen: str
    date_as_seen: str | None  # ISO date, or None when the document shows no date
    source: str | None  # wotc | scryfall | None when the document does not say
    lang: str = "en"
    translates: int | None = None
    flags: tuple[str, ...] = field(default_factory=tuple)
    # Where the copy sits when that outlives one document: the sightings of a bulk rulings file
    # are at the same place in the next day's file. None: the document itself is the place.
    # Only the sighting's id uses it (a new bulk file does not re-key every sighting).
    place: str | None = None


@dataclass(frozen=True)
class Ruling:
    """One distinct ruling: identified by (source, published_at, match_key of its text)."""

    ruling_id: str
    source: str
    published_at: str | None
    text: str  # the best copy seen
    match_key: str


@dataclass(frozen=True)
class CardRuling:
    oracle_id: str
    ruling_id: str
    position: int


@dataclass(frozen=True)
class SightingRow:
    """A sighting once reconciled: which ruling it is a copy of, and how it was matched."""

    ruling_id: str
    doc_id: str
    origin: str
    oracle_id: str | None
    position: int
    lang: str
    text_as_seen: str
    date_as_seen: str | None
    source_as_seen: str | None
    flags: tuple[str, ...]
    place: str | None = None  # see RulingSighting.place


@dataclass(frozen=True)
class Translation:
    ruling_id: str
    lang: str
    origin: str
    text: str
    machine_translated: bool
