"""Build the bundled offline sample (data/raw/sample/) from the reference facts.

The sample is a *constructed* raw run: the responses Scryfall's API would give for
``type:"Case"`` with ``include_multilingual``, made from tests/fixtures/reference/*.json.
What is taken and what is derived is listed in data/raw/sample/README.md. Deterministic:
running it twice gives the same bytes.

    python tools/build_sample.py
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import unicodedata
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.config import DEFAULT_LISTEBLANCHE_URL, DEFAULT_SCRYFALL_WEB_URL, DEFAULT_WIKI_URL  # noqa: E402
from pipeline.extract.pages import listeblanche_url, scryfall_page_url, wiki_page_for  # noqa: E402
from pipeline.extract.scryfall import search_url  # noqa: E402
from pipeline.rawstore import doc_id_for  # noqa: E402

REFERENCE = ROOT / "tests" / "fixtures" / "reference"
# The one recorded scryfall.com card page (its text only): the order Scryfall gives that card's rulings.
SCRYFALL_PAGE_SEED = ROOT / "tests" / "fixtures" / "seeds" / "002_69a2b200c1ac39cf.txt"
PAGES = ROOT / "tests" / "fixtures" / "pages"
HTML_TYPE = "text/html; charset=utf-8"
OUT = ROOT / "data" / "raw" / "sample"
API = "https://api.scryfall.com"
QUERY = 'type:"Case"'
JSON_TYPE = "application/json; charset=utf-8"
# Ids the reference does not give are derived, visibly: uuid5 in this namespace of a readable name.
DERIVED_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://casefile.invalid/sample-derived-ids")
# Scryfall-style language order for the translated printings.
LANG_ORDER = ["en", "es", "fr", "de", "it", "pt", "ja", "ko", "ru", "zhs", "zht"]


def slug(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower().replace("'", "")).strip("-")


def derived_id(label: str) -> str:
    return str(uuid.uuid5(DERIVED_NS, label))


def compact(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _page_key(text: str) -> str:
    """A ruling's text as a page shows it: mana symbols gone, spaces collapsed."""
    return " ".join(re.sub(r"\{[^}]*\}", "", text).split())


def in_scryfall_order(card: dict) -> list[dict]:
    """The card's rulings in the order of the recorded scryfall.com page where there is one (the
    API serves them in that order); else in the reference's order (MTGJSON's, alphabetical)."""
    lines = [line.strip() for line in SCRYFALL_PAGE_SEED.read_text("utf-8").splitlines() if line.strip()]
    if lines[0] != card["name"]:
        return card["rulings"]
    place = {_page_key(line): i for i, line in enumerate(lines[1:])}
    ordered = sorted(card["rulings"], key=lambda r: place[_page_key(r["text"])])
    assert len(place) == len(ordered) == len({_page_key(r["text"]) for r in ordered}), card["name"]
    return ordered


def english_printing(card: dict, printing: dict, first: bool) -> dict:
    set_code = printing["set_code"].lower()
    number = printing["collector_number"]
    if first:
        card_id = card["identifiers"]["scryfall_id"]
    else:
        card_id = _known_alt_id(card, printing) or derived_id(f"{set_code}/{number}/en")
    obj = {
        "object": "card", "id": card_id, "oracle_id": card["identifiers"]["oracle_id"],
        "name": card["name"], "lang": "en", "uri": f"{API}/cards/{card_id}",
        "scryfall_uri": f"https://scryfall.com/card/{set_code}/{number}/{slug(card['name'])}",
        "layout": card["layout"], "mana_cost": card["mana_cost"], "cmc": card["mana_value"],
        "type_line": card["type_line"], "oracle_text": card["oracle_text"], "colors": card["colors"],
        "color_identity": card["colors"], "set": set_code, "set_name": printing["set_name"],
        "collector_number": number, "digital": card["digital_only"], "rarity": card["rarity"],
        "artist": card["artist"], "rulings_uri": f"{API}/cards/{card_id}/rulings",
    }
    ids = card["identifiers"]
    if first and ids.get("multiverse_id"):
        obj["multiverse_ids"] = [int(ids["multiverse_id"])]
    if first and ids.get("mtg_arena_id"):
        obj["arena_id"] = int(ids["mtg_arena_id"])
    return obj


def _known_alt_id(card: dict, printing: dict) -> str | None:
    """Scryfall ids of alternative printings that the reference does name."""
    note = printing.get("note") or ""
    match = re.search(r"scryfallId ([0-9a-f-]{36})", note)
    if match:
        return match.group(1)
    for url in printing.get("seen_in", []):
        match = re.search(r"/cards/id/([0-9a-f-]{36})$", url)
        if match and match.group(1) != card["identifiers"]["scryfall_id"]:
            return match.group(1)
    return None


def translated_printing(base: dict, lang: str, entry: dict) -> dict:
    obj = {k: v for k, v in base.items() if k not in ("multiverse_ids", "arena_id", "scryfall_uri")}
    card_id = derived_id(f"{base['id']}/{lang}")
    obj.update({"id": card_id, "lang": lang, "uri": f"{API}/cards/{card_id}",
                "rulings_uri": f"{API}/cards/{card_id}/rulings", "printed_name": entry["printed_names"][lang]})
    if lang == "fr" and entry.get("fr"):
        obj["printed_type_line"] = entry["fr"]["type_line"]
        obj["printed_text"] = entry["fr"]["text"]
        if entry["fr"].get("multiverse_id"):
            obj["multiverse_ids"] = [int(entry["fr"]["multiverse_id"])]
    elif lang in (entry.get("other_printed_text") or {}):
        obj["printed_type_line"] = entry["other_printed_text"][lang]["type_line"]
        obj["printed_text"] = entry["other_printed_text"][lang]["text"]
    return obj


def page_documents(objects: list[dict], by_oracle: dict) -> list[tuple]:
    """The constructed pages of tests/fixtures/pages, at the URLs a sync of this query asks for."""
    index = json.loads((PAGES / "index.json").read_text("utf-8"))
    by_url = {meta["url"]: name for name, meta in index.items()}
    docs = []
    wiki = wiki_page_for(QUERY, DEFAULT_WIKI_URL)
    docs.append(("mtgwiki", "page", QUERY, wiki, (PAGES / by_url[wiki]).read_bytes(), HTML_TYPE))
    stands_for: dict[str, dict] = {}
    for obj in objects:
        if obj["lang"] == "en":
            stands_for.setdefault(obj["oracle_id"], obj)
    for oracle_id, printing in stands_for.items():
        if not by_oracle[oracle_id]["rulings"]:
            continue  # a sync fetches pages only for cards with rulings
        for origin, url in (("listeblanche", listeblanche_url(DEFAULT_LISTEBLANCHE_URL, printing)),
                            ("scryfall-page", scryfall_page_url(DEFAULT_SCRYFALL_WEB_URL, printing))):
            name = by_url[url]  # every page a sync asks for must be one of the fixtures
            assert index[name]["oracle_id"] == oracle_id, name
            docs.append((origin, "page", oracle_id, url, (PAGES / name).read_bytes(), HTML_TYPE))
    return docs


def build() -> None:
    cards = json.loads((REFERENCE / "case_cards.json").read_text("utf-8"))
    translations = {c["name"]: c for c in json.loads((REFERENCE / "case_translations.json").read_text("utf-8"))["cards"]}

    objects = []
    for card in sorted(cards, key=lambda c: c["name"]):
        english = [english_printing(card, p, i == 0) for i, p in enumerate(card["printings"])]
        english.sort(key=lambda o: (o["set"], len(o["collector_number"]), o["collector_number"]))
        objects.extend(english)
        entry = translations.get(card["name"])
        if entry:
            base = next(o for o in english if o["set"] == entry["set_code"].lower()
                        and o["collector_number"] == entry["collector_number"])
            langs = sorted(entry["printed_names"], key=lambda l: LANG_ORDER.index(l) if l in LANG_ORDER else 99)
            objects.extend(translated_printing(base, lang, entry) for lang in langs)

    docs = []  # (origin, kind, key, url, body, content type)
    url = search_url(API, QUERY, include_multilingual=True)
    page = {"object": "list", "total_cards": len(objects), "has_more": False, "data": objects}
    docs.append(("scryfall-api", "search", "1", url, compact(page), JSON_TYPE))

    first_printing: dict[str, str] = {}
    set_names: dict[str, str] = {}
    set_digital: dict[str, bool] = {}
    for obj in objects:
        first_printing.setdefault(obj["oracle_id"], obj["id"])
        set_names.setdefault(obj["set"], obj["set_name"])
        set_digital[obj["set"]] = set_digital.get(obj["set"], True) and obj["digital"]

    by_oracle = {c["identifiers"]["oracle_id"]: c for c in cards}
    for oracle_id, card_id in first_printing.items():
        rulings = [{"object": "ruling", "oracle_id": oracle_id, "source": r["source"] or "wotc",
                    "published_at": r["published_at"], "comment": r["text"]}
                   for r in in_scryfall_order(by_oracle[oracle_id])]
        body = {"object": "list", "has_more": False, "data": rulings}
        docs.append(("scryfall-api", "rulings", oracle_id, f"{API}/cards/{card_id}/rulings", compact(body), JSON_TYPE))

    for code, name in set_names.items():
        body = {"object": "set", "code": code, "name": name, "digital": set_digital[code],
                "uri": f"{API}/sets/{code}", "scryfall_uri": f"https://scryfall.com/sets/{code}"}
        docs.append(("scryfall-api", "set", code, f"{API}/sets/{code}", compact(body), JSON_TYPE))

    docs.extend(page_documents(objects, by_oracle))

    if OUT.exists():
        for child in OUT.iterdir():
            if child.name != "README.md":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    manifest = []
    for seq, (origin, kind, key, doc_url, body, ctype) in enumerate(docs, 1):
        tail = re.sub(r"[^A-Za-z0-9._-]+", "_", doc_url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1])
        rel = f"docs/{origin}/{seq:05d}-{tail}.{'json' if 'json' in ctype else 'html'}"
        (OUT / rel).parent.mkdir(parents=True, exist_ok=True)
        (OUT / rel).write_bytes(body)
        manifest.append({"doc_id": doc_id_for(doc_url, body), "origin": origin, "kind": kind, "key": key,
                         "url": doc_url, "final_url": doc_url, "status": 200,
                         "headers": {"content-type": ctype, "content-length": str(len(body))},
                         "fetched_at": None, "sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body),
                         "path": rel, "quarantined": None})
    (OUT / "manifest.jsonl").write_text(
        "".join(json.dumps(m, ensure_ascii=False, sort_keys=True) + "\n" for m in manifest), "utf-8")
    meta = {"run_id": "sample", "started_at": None, "mode": "constructed", "query": QUERY,
            "include_multilingual": True, "sources": ["api", "wiki", "listeblanche", "scryfall-page"], "api_url": API,
            "constructed_from": "tests/fixtures/reference (see README.md)"}
    (OUT / "run.json").write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True, indent=1) + "\n", "utf-8")
    success = {"finished_at": None, "documents": len(docs), "requests": len(docs),
               "bytes": sum(len(d[4]) for d in docs)}
    (OUT / "_SUCCESS").write_text(json.dumps(success, sort_keys=True, indent=1) + "\n", "utf-8")
    print(f"wrote {len(docs)} documents ({len(objects)} printings of {len(cards)} cards) to {OUT}")


if __name__ == "__main__":
    build()
