"""Records from Scryfall API responses: cards, printings, sets and ruling sightings.

Pure: bytes in, records out; no network, no DuckDB. A document that is not what it claims to be
raises ParseError naming it; a single card object that cannot be read is skipped and reported in
``PageRecords.skipped`` so the caller can decide whether the share of broken records is too high.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from ..errors import ParseError
from ..records import Card, CardSet, Printing, RulingSighting

ORIGIN = "scryfall-api"
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _iso_date(value) -> str | None:
    """An ISO date (YYYY-MM-DD) that is a day of the calendar, as the warehouse's DATE columns
    take it, or None: "2024-02-30" is no date."""
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        return None
    try:
        date.fromisoformat(value)
    except ValueError:
        return None
    return value

# Fields of Scryfall's card object that casefile reads (normalize/duck.py CARD_COLUMNS), and
# ``object`` ("card", not read). Everything else is ignored, and counted on search pages, so a
# format change shows up in the run summary rather than silently.
CARD_FIELDS_READ = frozenset({
    "object", "id", "oracle_id", "name", "lang", "released_at", "layout", "mana_cost", "cmc",
    "type_line", "oracle_text", "colors", "color_identity", "set", "collector_number", "rarity",
    "digital", "printed_name", "printed_text", "scryfall_uri", "card_faces",
})


class RecordError(ValueError):
    """One record of a document cannot be read; the document as a whole still can."""


def load_json(body: bytes, doc: str):
    """The document's JSON value. Refused: invalid JSON, nesting too deep for the parser, and text
    that is not Unicode (a lone surrogate such as ``"\\ud800"``, which nothing downstream can store)."""
    try:
        value = json.loads(body)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ParseError(doc, f"not JSON ({exc.__class__.__name__})") from None
    except UnicodeEncodeError:
        raise ParseError(doc, "JSON text holds a lone surrogate (not Unicode text)") from None
    return value


def _list_object(body: bytes, doc: str) -> dict:
    obj = load_json(body, doc)
    if not isinstance(obj, dict) or obj.get("object") != "list" or not isinstance(obj.get("data"), list):
        raise ParseError(doc, "expected a Scryfall list object with a data array")
    return obj


def search_page(body: bytes, doc: str) -> dict:
    """A search page's list object (what ``--bulk auto`` and ``--plan`` read the totals from), or
    ParseError naming the document, as when its links are read."""
    return _list_object(body, doc)


@dataclass(frozen=True)
class SearchLinks:
    total_cards: int | None
    has_more: bool
    next_page: str | None
    printings: list[dict]  # {"id", "oracle_ids", "set", "lang", "name", "collector_number", "scryfall_uri"}
    warnings: tuple[str, ...] = ()  # Scryfall's word on a query it did not read whole (terms ignored)


def search_page_links(body: bytes, doc: str) -> SearchLinks:
    """What extract needs to follow a search: the next page, and each printing's ids and set."""
    obj = _list_object(body, doc)
    printings = []
    for item in obj["data"]:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        oracle_ids = _oracle_ids(item)
        set_code = item.get("set")
        if not oracle_ids or not isinstance(set_code, str) or not isinstance(item.get("name"), str):
            continue  # a printing the records cannot be built from either: nothing to follow
        printings.append({"id": item["id"], "oracle_ids": oracle_ids, "set": set_code.lower(),
                          "lang": _text(item.get("lang")), "name": item["name"],
                          "collector_number": _text(item.get("collector_number")),
                          "scryfall_uri": _text(item.get("scryfall_uri"))})
    total = obj.get("total_cards")
    return SearchLinks(total_cards=total if isinstance(total, int) else None,
                       has_more=obj.get("has_more") is True,
                       next_page=obj.get("next_page") if isinstance(obj.get("next_page"), str) else None,
                       printings=printings, warnings=search_warnings(obj))


def search_warnings(page: dict) -> tuple[str, ...]:
    """The ``warnings`` of a search page's list object: the terms Scryfall ignored, searching with the rest."""
    warnings = page.get("warnings") if isinstance(page.get("warnings"), list) else []
    return tuple(w.encode("utf-8", "replace").decode() for w in warnings if isinstance(w, str))


def _faces(item: dict) -> list[dict]:
    """A card's faces: the objects of its ``card_faces`` list (anything else there is ignored)."""
    faces = item.get("card_faces")
    return [f for f in faces if isinstance(f, dict)] if isinstance(faces, list) else []


def _oracle_ids(item: dict) -> list[str]:
    """A card's Oracle ids: its own, or (reversible cards) those of its faces, in face order."""
    if isinstance(item.get("oracle_id"), str):
        return [item["oracle_id"]]
    ids = []
    for face in _faces(item):
        if isinstance(face.get("oracle_id"), str) and face["oracle_id"] not in ids:
            ids.append(face["oracle_id"])
    return ids


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _colors(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise RecordError("colors is not a list of strings")
    return tuple(value)


def _number(value) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordError(f"cmc is not a number: {value!r}")
    try:
        return float(value)
    except OverflowError:  # an integer of hundreds of digits: JSON allows it, no card has it
        raise RecordError("cmc is too large a number") from None


def _joined(faces: list[dict], key: str, sep: str) -> str | None:
    parts = [f.get(key) for f in faces if isinstance(f.get(key), str)]
    return sep.join(parts) if parts else None


def _face_colors(faces: list[dict]) -> tuple[str, ...] | None:
    order = "WUBRG"
    seen = {c for f in faces if isinstance(f.get("colors"), list) for c in f["colors"] if isinstance(c, str)}
    if all(f.get("colors") is None for f in faces):  # no face says its colors: unknown
        return None
    return tuple(sorted(seen, key=lambda c: (order.find(c) if c in order else 99, c)))


def card_records(item: dict) -> list[Card]:
    """The Oracle card(s) a printing is a copy of. Raises RecordError if it cannot be read."""
    faces = _faces(item)
    layout = _text(item.get("layout")) or "normal"
    color_identity = _colors(item.get("color_identity")) or ()
    if isinstance(item.get("oracle_id"), str):
        name = _text(item.get("name"))
        if not name:
            raise RecordError("card without a name")
        mana_cost = item["mana_cost"] if isinstance(item.get("mana_cost"), str) else _joined(faces, "mana_cost", " // ")
        # colors and oracle_text are null or absent where a multi-faced card gives them per face
        colors = _colors(item["colors"]) if item.get("colors") is not None else _face_colors(faces)
        return [Card(
            oracle_id=item["oracle_id"], name=name, mana_cost=mana_cost, cmc=_number(item.get("cmc")),
            colors=colors, color_identity=color_identity,
            type_line=_text(item.get("type_line")) or _joined(faces, "type_line", " // "),
            oracle_text=(_text(item["oracle_text"]) if item.get("oracle_text") is not None
                         else _joined(faces, "oracle_text", "\n//\n")),
            layout=layout)]
    cards = []
    for face in faces:  # reversible_card: no top-level oracle_id, each face names its own
        oracle_id = face.get("oracle_id")
        if not isinstance(oracle_id, str) or any(c.oracle_id == oracle_id for c in cards):
            continue
        name = _text(face.get("name"))
        if not name:
            raise RecordError("card face without a name")
        cards.append(Card(
            oracle_id=oracle_id, name=name, mana_cost=_text(face.get("mana_cost")), cmc=_number(face.get("cmc")),
            colors=_colors(face.get("colors")), color_identity=color_identity,
            type_line=_text(face.get("type_line")), oracle_text=_text(face.get("oracle_text")),
            layout=_text(face.get("layout")) or layout))  # reversible_card is the printing's layout
    if not cards:
        raise RecordError("card without an oracle_id, on the card or its faces")
    return cards


def printing_record(item: dict) -> Printing:
    scryfall_id = item.get("id")
    oracle_ids = _oracle_ids(item)
    set_code = item.get("set")
    number = item.get("collector_number")
    if not isinstance(scryfall_id, str) or not oracle_ids or not isinstance(set_code, str):
        raise RecordError("printing without id, oracle_id or set")
    if not isinstance(number, str):  # collector numbers are text: "79†", "10s", "45p"
        raise RecordError(f"collector_number is not text: {number!r}")
    faces = _faces(item)
    return Printing(
        scryfall_id=scryfall_id, oracle_id=oracle_ids[0], set_code=set_code.upper(), collector_number=number,
        lang=_text(item.get("lang")) or "en", rarity=_text(item.get("rarity")),
        released_at=_iso_date(item.get("released_at")),
        printed_name=_text(item.get("printed_name")) or _joined(faces, "printed_name", " // "),
        printed_text=_text(item.get("printed_text")) or _joined(faces, "printed_text", "\n//\n"),
        digital=item.get("digital") if isinstance(item.get("digital"), bool) else None,
        scryfall_uri=_text(item.get("scryfall_uri")))


@dataclass
class PageRecords:
    printings: list[Printing] = field(default_factory=list)
    # each printing with its card(s), and whether it names its card itself (False: a reversible
    # card, whose faces name theirs and whose color_identity is the printing's, over both faces)
    pairs: list[tuple[Printing, list[Card], bool]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "doc#index: reason"
    unknown_fields: Counter = field(default_factory=Counter)
    objects: int = 0


def search_page_records(body: bytes, doc: str) -> PageRecords:
    """Cards and printings of one ``/cards/search`` page."""
    page = PageRecords()
    for index, item in enumerate(_list_object(body, doc)["data"]):
        page.objects += 1
        if not isinstance(item, dict):
            page.skipped.append(f"{doc}#{index}: not an object")
            continue
        page.unknown_fields.update(k for k in item if k not in CARD_FIELDS_READ)
        try:
            printing = printing_record(item)
            cards = card_records(item)
        except RecordError as exc:
            page.skipped.append(f"{doc}#{index}: {exc}")
            continue
        page.printings.append(printing)
        page.pairs.append((printing, cards, names_its_card(item)))
    return page


def names_its_card(item: dict) -> bool:
    """Whether a card object gives its Oracle card's fields itself, not only on its faces."""
    return isinstance(item.get("oracle_id"), str)


def set_record(body: bytes, doc: str) -> CardSet:
    obj = load_json(body, doc)
    if not isinstance(obj, dict) or obj.get("object") != "set" or not isinstance(obj.get("code"), str):
        raise ParseError(doc, "expected a Scryfall set object with a code")
    count = obj.get("card_count")
    return CardSet(set_code=obj["code"].upper(), name=_text(obj.get("name")), set_type=_text(obj.get("set_type")),
                   released_at=_iso_date(obj.get("released_at")),
                   card_count=count if _is_count(count) else None,
                   digital=obj.get("digital") if isinstance(obj.get("digital"), bool) else None)


def _is_count(value) -> bool:
    """A whole number the warehouse's INTEGER columns hold."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31


def rulings_list(body: bytes, doc: str) -> tuple[int, bool]:
    """How many rulings a rulings list holds (extract uses it to skip pages of cards without any),
    and whether it says more follow (``has_more``: a list object may be paginated)."""
    obj = _list_object(body, doc)
    return len(obj["data"]), obj.get("has_more") is True


def ruling_sightings(body: bytes, doc_id: str, oracle_id: str, doc: str) -> tuple[list[RulingSighting], list[str]]:
    """The rulings list of one Oracle card, as sightings in the order Scryfall lists them."""
    sightings, skipped = [], []
    for position, item in enumerate(_list_object(body, doc)["data"]):
        problem = _unreadable_ruling(item)
        if problem:
            skipped.append(f"{doc}#{position}: {problem}")
            continue
        owner = item.get("oracle_id") if isinstance(item.get("oracle_id"), str) else oracle_id
        sightings.append(RulingSighting(
            doc_id=doc_id, origin=ORIGIN, oracle_id=owner, position=position, text_as_seen=item["comment"],
            date_as_seen=item["published_at"], source=_text(item.get("source")), lang="en"))
    return sightings, skipped


def _unreadable_ruling(item) -> str | None:
    """Why a ruling object cannot be a sighting (no comment, no ISO date), or None."""
    if not isinstance(item, dict) or not isinstance(item.get("comment"), str) or not item["comment"].strip():
        return "ruling without a comment"
    if _iso_date(item.get("published_at")) is None:
        return "ruling without an ISO published_at"
    return None


# -- bulk files (the bulk plan) ----------------------------------------------------------------

def iter_bulk_items(path, doc: str):
    """The items of a bulk file, one at a time, never the whole file in memory.

    A JSON array (Scryfall's ``download_uri``) or JSON lines (``jsonl_download_uri``), either
    possibly gzipped (by the ``.gz`` suffix). Raises ParseError naming the document.
    """
    import gzip

    import zlib

    name = str(path)
    opener = gzip.open if name.endswith(".gz") else open
    lines_format = name.removesuffix(".gz").endswith((".jsonl", ".ndjson"))
    with opener(path, "rb") as fh:
        try:
            if lines_format:
                for number, line in enumerate(fh, 1):
                    if line.strip():
                        try:
                            yield json.loads(line)
                        except ValueError as exc:
                            raise ParseError(doc, f"line {number} is not JSON ({exc.__class__.__name__})") from None
                return
            yield from _iter_array(fh, doc)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # kept before the download's check was whole
            raise ParseError(doc, f"broken gzip data ({exc.__class__.__name__}: {exc})") from None


def _iter_array(fh, doc: str, chunk_size: int = 1 << 20):
    """Stream the elements of a top-level JSON array from a binary file."""
    decoder = json.JSONDecoder()
    buf, pos, started, done = "", 0, False, False
    pending = b""
    while True:
        chunk = fh.read(chunk_size)
        if chunk:
            data = pending + chunk
            try:
                text_part = data.decode("utf-8")
                pending = b""
            except UnicodeDecodeError as exc:  # a character cut at the chunk's end
                if exc.start < len(data) - 4:
                    raise ParseError(doc, "not UTF-8") from None
                text_part, pending = data[:exc.start].decode("utf-8"), data[exc.start:]
            buf = buf[pos:] + text_part
            pos = 0
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n":
                pos += 1
            if pos >= len(buf):
                break
            if not started:
                if buf[pos] != "[":
                    raise ParseError(doc, "expected a JSON array of objects")
                started, pos = True, pos + 1
                continue
            if buf[pos] == "]":
                done, pos = True, pos + 1
                break
            if buf[pos] == ",":
                pos += 1
                continue
            try:
                item, end = decoder.raw_decode(buf, pos)
            except ValueError:
                if not chunk:
                    raise ParseError(doc, "not JSON (the array is cut or broken)") from None
                break  # the element continues in the next chunk
            yield item
            pos = end
        if done:
            if buf[pos:].strip() or fh.read(1).strip():
                raise ParseError(doc, "data after the end of the array")
            return
        if not chunk:
            raise ParseError(doc, "not JSON (the array is cut)" if started else "empty document")


def bulk_ruling_sightings(items, doc_id: str, doc: str, place: str | None = None
                          ) -> tuple[list[RulingSighting], list[str], int]:
    """Sightings of a bulk rulings file: a card's rulings in file order, numbered per card.

    ``place``: what stays the same from one bulk file to the next (see RulingSighting.place).
    Returns sightings, refusals and the number of items read.
    """
    sightings, skipped, seen = [], [], 0
    positions: dict[str, int] = {}
    for index, item in enumerate(items):
        seen += 1
        owner = item.get("oracle_id") if isinstance(item, dict) and isinstance(item.get("oracle_id"), str) else None
        if owner is None:
            skipped.append(f"{doc}#{index}: ruling without an oracle_id")
            continue
        position = positions.get(owner, 0)
        positions[owner] = position + 1
        problem = _unreadable_ruling(item)
        if problem:
            skipped.append(f"{doc}#{index}: {problem}")
            continue
        sightings.append(RulingSighting(
            doc_id=doc_id, origin=ORIGIN, oracle_id=owner, position=position, text_as_seen=item["comment"],
            date_as_seen=item["published_at"], source=_text(item.get("source")), lang="en", place=place))
    return sightings, skipped, seen


def sets_list_records(body: bytes, doc: str) -> list[CardSet]:
    """The sets of Scryfall's ``/sets`` list (bulk plan); entries without a code are left out."""
    records = []
    for item in _list_object(body, doc)["data"]:
        if isinstance(item, dict) and isinstance(item.get("code"), str):
            records.append(set_record(json.dumps({**item, "object": "set"}).encode("utf-8"), doc))
    return records
