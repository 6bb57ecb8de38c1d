"""SYNTHETIC Scryfall-shaped data at scale, for the benchmark only. Never real card data.

Writes four recorded runs in the raw store's format, as a bulk sync would have fetched them:
``base`` and two next days made from it, ``changed`` (the same data with 1 % of the card
objects and 1 % of the rulings edited) and ``quiet`` (one Oracle card, with all its printings,
and one ruling edited), and ``next``, the day after ``changed`` (another 1 % of each edited),
each with new prices and ranks on every card object, as every day at Scryfall. Each holds
the ``/bulk-data`` index, the ``/sets`` list, an ``all_cards`` file (a JSON array, one card
object per line, as Scryfall writes its bulk files) and a ``rulings`` file.

At scale 1: 35,000 Oracle cards, 100,000 card objects (English printings and translated copies),
70,000 distinct rulings shared across cards, 700 sets. The objects have the fields and sizes of
the card and ruling objects of ``data/raw/sample/``, and the card objects the fields Scryfall
updates daily (``prices``, ``edhrec_rank``, ``penny_rank``): about 1.4 KB a card; every name says
"Synthetic", ids are uuid5 in a namespace of their own, and run.json says ``synthetic: true``.
Deterministic: the same scale and seed give the same bytes.

    python -m bench.generate --scale 0.05 --out bench/out/s0.05
"""

from __future__ import annotations

import argparse
import email.utils
import json
import random
import shutil
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.wire import Response  # noqa: E402
from pipeline.rawstore import RawStore, RunWriter, read_run  # noqa: E402

SAMPLE = ROOT / "data" / "raw" / "sample"
NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://casefile.invalid/bench-synthetic")
API = "https://api.scryfall.com"
DATA = "https://data.scryfall.io"
JSON_TYPE = "application/json; charset=utf-8"
# Scale-1 sizes, from the issue (orders of magnitude of Scryfall's bulk files, 2026).
ORACLE_CARDS = 35_000
CARD_OBJECTS = 100_000
RULINGS = 70_000
SETS = 700
CHANGED_SHARE = 0.01
LANGS = ["es", "fr", "de", "it", "pt", "ja", "zhs", "ko", "ru"]
COLORS = ["W", "U", "B", "R", "G"]
RARITIES = ["common", "uncommon", "rare", "mythic"]
WORDS = ("shadow ember tide grove spire vault relic oath mirror ash storm thorn lantern ledger "
         "sigil warden cipher harbor crown ferry quarry beacon hollow brine cinder").split()


def sid(label: str) -> str:
    return str(uuid.uuid5(NS, label))


def compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _sample_texts() -> tuple[list[str], list[str], dict]:
    """Ruling comments and Oracle texts of the bundled sample: the templates of the synthetic ones."""
    rulings, oracle, printed = [], [], {}
    for line in (SAMPLE / "manifest.jsonl").read_text("utf-8").splitlines():
        entry = json.loads(line)
        if entry["origin"] != "scryfall-api":
            continue  # the sample's web pages are not API shapes
        body = json.loads((SAMPLE / entry["path"]).read_bytes())
        if entry["kind"] == "rulings":
            rulings.extend(r["comment"] for r in body["data"])
        elif entry["kind"] == "search":
            for card in body["data"]:
                if card["lang"] == "en":
                    oracle.append(card["oracle_text"])
                elif card.get("printed_text"):
                    printed.setdefault(card["lang"], []).append(card["printed_text"])
    return sorted(set(rulings)), sorted(set(oracle)), printed


class Synth:
    def __init__(self, scale: float, seed: int = 7):
        self.scale = scale
        self.seed = seed
        self.rng = random.Random(seed)
        self.n_oracle = max(15, round(ORACLE_CARDS * scale))
        self.n_objects = max(self.n_oracle, round(CARD_OBJECTS * scale))
        self.n_rulings = max(10, round(RULINGS * scale))
        self.n_sets = max(4, round(SETS * scale))
        self.ruling_templates, self.oracle_templates, self.printed = _sample_texts()
        self._make_sets()
        self._make_oracle()
        self._make_printings()
        self._make_rulings()
        self._quote_market(day=1)

    def _make_sets(self) -> None:
        rng = self.rng
        self.sets = []
        for i in range(self.n_sets):
            code = f"x{i:03d}" if i < 1000 else f"x{i:04d}"
            self.sets.append({
                "object": "set", "id": sid(f"set/{code}"), "code": code, "name": f"Synthetic Set {i:03d}",
                "set_type": rng.choice(["expansion", "core", "commander", "promo", "masters"]),
                "released_at": f"{2000 + i * 26 // max(1, self.n_sets)}-{1 + i % 12:02d}-{1 + i % 28:02d}",
                "card_count": 0, "digital": rng.random() < 0.03,
                "uri": f"{API}/sets/{code}", "scryfall_uri": f"https://scryfall.com/sets/{code}"})

    def _make_oracle(self) -> None:
        rng = self.rng
        self.oracle = []
        for i in range(self.n_oracle):
            colors = sorted(rng.sample(COLORS, rng.choice([0, 1, 1, 1, 2])), key=COLORS.index)
            cmc = rng.randint(0, 7)
            cost = "" if cmc == 0 and not colors else "{%d}" % max(0, cmc - len(colors)) + "".join("{%s}" % c for c in colors)
            word = WORDS[i % len(WORDS)]
            layout = "normal"
            r = rng.random()
            if r < 0.03:
                layout = "transform"
            elif r < 0.031:
                layout = "reversible_card"
            self.oracle.append({
                "oracle_id": sid(f"oracle/{i}"), "name": f"Synthetic {word.title()} {i:06d}",
                "mana_cost": cost, "cmc": float(cmc), "colors": colors, "color_identity": colors,
                "type_line": rng.choice(["Creature — Synthetic", "Enchantment — Case", "Instant", "Sorcery",
                                         "Artifact", "Land", "Enchantment — Aura"]),
                "oracle_text": rng.choice(self.oracle_templates).replace("Case", f"Synthetic {i:06d}"),
                "layout": layout, "rarity": rng.choice(RARITIES)})

    def _make_printings(self) -> None:
        """Card objects: each Oracle card's English printings, then translated copies of some."""
        rng = self.rng
        n_en = max(self.n_oracle, round(self.n_objects * 0.56))
        english = [self.oracle[i % self.n_oracle] for i in range(n_en)]
        numbers: dict[str, int] = {}
        self.objects: list[dict] = []
        for k, card in enumerate(english):
            s = self.sets[rng.randrange(self.n_sets)]
            numbers[s["code"]] = numbers.get(s["code"], 0) + 1
            number = str(numbers[s["code"]]) + ("†" if rng.random() < 0.002 else "s" if rng.random() < 0.01 else "")
            self.objects.append(self._printing(card, s, number, "en", f"en/{k}"))
        k = 0
        while len(self.objects) < self.n_objects:
            base = self.objects[k % n_en]
            lang = LANGS[(k // n_en) % len(LANGS)]
            where = {"code": base["set"], "name": base["set_name"], "released_at": base["released_at"]}
            self.objects.append(self._printing(self._oracle_of(base), where, base["collector_number"], lang,
                                               f"{lang}/{k}"))
            k += 1
        self.objects.sort(key=lambda o: (o["name"], o["lang"] != "en", o["set"], o["collector_number"], o["lang"]))
        counts: dict[str, int] = {}
        for o in self.objects:
            counts[o["set"]] = counts.get(o["set"], 0) + 1
        for s in self.sets:
            s["card_count"] = counts.get(s["code"], 0)

    def _oracle_of(self, obj: dict) -> dict:
        if not hasattr(self, "_oracle_index"):
            self._oracle_index = {c["oracle_id"]: c for c in self.oracle}
        return self._oracle_index[obj["oracle_id"] if "oracle_id" in obj else obj["card_faces"][0]["oracle_id"]]

    def _printing(self, card: dict, s: dict, number: str, lang: str, label: str) -> dict:
        rng = self.rng
        card_id = sid(f"card/{label}")
        obj = {"object": "card", "id": card_id, "oracle_id": card["oracle_id"], "name": card["name"], "lang": lang,
               "released_at": s["released_at"], "uri": f"{API}/cards/{card_id}",
               "scryfall_uri": f"https://scryfall.com/card/{s['code']}/{number}/{card['name'].lower().replace(' ', '-')}",
               "layout": card["layout"], "mana_cost": card["mana_cost"], "cmc": card["cmc"],
               "type_line": card["type_line"], "oracle_text": card["oracle_text"], "colors": card["colors"],
               "color_identity": card["color_identity"], "set": s["code"], "set_name": s["name"],
               "collector_number": number, "digital": False, "rarity": card["rarity"],
               "artist": f"Synthetic Artist {rng.randrange(900):03d}", "rulings_uri": f"{API}/cards/{card_id}/rulings"}
        if card["layout"] in ("transform", "reversible_card"):
            front, back = card["name"] + " Front", card["name"] + " Back"
            face = {"object": "card_face", "mana_cost": card["mana_cost"], "type_line": card["type_line"],
                    "oracle_text": card["oracle_text"], "colors": card["colors"]}
            faces = [{**face, "name": front}, {**face, "name": back, "mana_cost": ""}]
            obj["name"] = f"{front} // {back}"
            for key in ("mana_cost", "oracle_text", "colors"):
                obj.pop(key)
            if card["layout"] == "reversible_card":  # no top-level oracle_id: each face carries it
                obj.pop("oracle_id")
                obj.pop("type_line")
                faces = [{**f, "oracle_id": card["oracle_id"], "cmc": card["cmc"]} for f in faces]
                obj["name"] = f"{card['name']} // {card['name']}"
                for f in faces:
                    f["name"] = card["name"]
            obj["card_faces"] = faces
        if lang != "en":
            texts = self.printed.get(lang) or self.printed.get("fr") or [""]
            obj["printed_name"] = f"{card['name']} ({lang})"
            obj["printed_text"] = rng.choice(texts)
            obj["printed_type_line"] = card["type_line"]
        else:
            obj["multiverse_ids"] = [rng.randrange(400000, 700000)]
        return obj

    def _quote_market(self, day: int) -> None:
        """The fields of a card object that Scryfall updates every day and casefile does not read
        (``prices``, ``edhrec_rank``, ``penny_rank``; the field names and kinds of Scryfall's
        documented card object, the values synthetic). Each day gives every object new values:
        the worst case for the delta build, whose line hashes must leave these fields out. Drawn
        from a generator of their own, so the other fields do not depend on them."""
        rng = random.Random(f"market/{self.seed}/{day}")
        ranks = list(range(1, self.n_oracle + 1))
        rng.shuffle(ranks)
        rank_of = {card["oracle_id"]: rank for card, rank in zip(self.oracle, ranks)}

        def price(chance: float) -> str | None:
            return f"{rng.lognormvariate(-1.0, 1.5) + 0.01:.2f}" if rng.random() < chance else None

        for obj in self.objects:
            oracle_id = obj.get("oracle_id") or obj["card_faces"][0]["oracle_id"]
            obj["edhrec_rank"] = rank_of[oracle_id]
            if oracle_id[-1] in "0123456789a":  # the Penny Dreadful pool: the same cards every day
                obj["penny_rank"] = rank_of[oracle_id] // 2 + 1
            obj["prices"] = {"usd": price(0.9), "usd_foil": price(0.5), "usd_etched": price(0.05),
                             "eur": price(0.8), "eur_foil": price(0.4), "tix": price(0.6)}

    def _make_rulings(self) -> None:
        """Distinct rulings, each on one card (most), a few cards, or many (general rulings)."""
        rng = self.rng
        per_card: dict[int, list[int]] = {}
        self.rulings = []
        for r in range(self.n_rulings):
            text = rng.choice(self.ruling_templates)
            w = WORDS[r % len(WORDS)]
            text = f"{text} Synthetic ruling {r:06d} about the {w}."
            date = f"{2004 + r % 22}-{1 + r % 12:02d}-{1 + (r * 7) % 28:02d}"
            self.rulings.append({"source": "wotc" if rng.random() < 0.8 else "scryfall", "published_at": date,
                                 "comment": text})
            x = rng.random()
            n = 1 if x < 0.7 else rng.randint(2, 5) if x < 0.95 else rng.randint(6, 20)
            for card in rng.sample(range(self.n_oracle), min(n, self.n_oracle)):
                per_card.setdefault(card, []).append(r)
        self.per_card = per_card
        # 1 % of copies of a shared ruling use straight quotes, as some sources do.
        self.straight = {(c, r) for c, rs in per_card.items() for r in rs if rng.random() < 0.01}

    # -- the changed copy -------------------------------------------------------------------
    def change(self, share: float = CHANGED_SHARE, seed: int = 11, day: int = 2) -> None:
        """Edit ``share`` of the card objects (errata of Oracle cards, carried by their printings)
        and ``share`` of the distinct rulings (a reworded text); and, as on every day, quote new
        prices and ranks on every card object (those of ``day``)."""
        rng = random.Random(seed)
        target = max(1, round(len(self.objects) * share))
        by_oracle: dict[str, list[dict]] = {}
        for o in self.objects:
            by_oracle.setdefault(o.get("oracle_id") or o["card_faces"][0]["oracle_id"], []).append(o)
        oracle_ids = sorted(by_oracle)
        rng.shuffle(oracle_ids)
        changed = 0
        for oid in oracle_ids:
            if changed >= target:
                break
            for o in by_oracle[oid]:
                if "oracle_text" in o:
                    o["oracle_text"] += " (Synthetic errata.)"
                else:
                    o["rarity"] = "special"
                changed += 1
        for r in rng.sample(range(len(self.rulings)), max(1, round(len(self.rulings) * share))):
            self.rulings[r] = {**self.rulings[r], "comment": self.rulings[r]["comment"] + " (Reworded.)"}
        self._quote_market(day=day)

    # -- writing ---------------------------------------------------------------------------
    def ruling_lines(self):
        for card in range(self.n_oracle):
            oid = self.oracle[card]["oracle_id"]
            for r in per_card_sorted(self.per_card.get(card, []), self.rulings):
                ruling = self.rulings[r]
                text = ruling["comment"]
                if (card, r) in self.straight:
                    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
                yield compact({"object": "ruling", "oracle_id": oid, "source": ruling["source"],
                               "published_at": ruling["published_at"], "comment": text})

    def write_run(self, store_dir: Path, run_id: str, stamp: str) -> Path:
        store = RawStore(store_dir)
        writer = store.new_run({"mode": "constructed", "synthetic": True, "query": "*", "plan": "bulk",
                                "include_multilingual": True, "sources": ["api"], "api_url": API,
                                "scale": self.scale,
                                "constructed_by": "bench/generate.py (SYNTHETIC data, not Scryfall's)"}, run_id=run_id)
        cards_url = f"{DATA}/all-cards/all-cards-{stamp}.json"
        rulings_url = f"{DATA}/rulings/rulings-{stamp}.json"
        cards_size = self._stream(writer, cards_url, "bulk-cards", "all_cards",
                                  (compact(o) for o in self.objects), stamp)
        rulings_size = self._stream(writer, rulings_url, "bulk-rulings", "rulings", self.ruling_lines(), stamp)
        index = {"object": "list", "has_more": False, "data": [
            _descriptor("all_cards", "All Cards", cards_url, cards_size, stamp),
            _descriptor("rulings", "Rulings", rulings_url, rulings_size, stamp)]}
        sets = {"object": "list", "has_more": False, "data": self.sets}
        for url, kind, body in ((f"{API}/bulk-data", "bulk-index", index), (f"{API}/sets", "sets", sets)):
            writer.save(Response(url=url, final_url=url, status=200, headers={"content-type": JSON_TYPE},
                                 body=compact(body).encode("utf-8"), fetched_at=None), "scryfall-api", kind)
        writer.finish({"requests": 4, "bytes": sum(e.bytes for e in writer.entries)})
        return read_run(writer.path).path

    def _stream(self, writer: RunWriter, url: str, kind: str, key: str, lines, stamp: str) -> int:
        body = writer.body_file("scryfall-api", url, ".json")
        first = True
        body.write(b"[")
        for line in lines:
            body.write((b"\n" if first else b",\n") + line.encode("utf-8"))
            first = False
        body.write(b"\n]\n")
        when = datetime(int(stamp[:4]), int(stamp[4:6]), int(stamp[6:]), 9, tzinfo=timezone.utc)
        headers = {"content-type": "application/json", "etag": f'"{body.sha256[:16]}"',
                   "last-modified": email.utils.format_datetime(when, usegmt=True)}
        writer.save_file(Response(url=url, final_url=url, status=200, headers=headers, body=b"",
                                  fetched_at=None), body, "scryfall-api", kind, key=key)
        return body.size


def per_card_sorted(rulings: list[int], table: list[dict]) -> list[int]:
    return sorted(rulings, key=lambda r: (table[r]["published_at"], r))


def _descriptor(kind: str, name: str, url: str, size: int, stamp: str) -> dict:
    return {"object": "bulk_data", "id": sid(f"bulk/{kind}"), "type": kind, "name": name,
            "description": "SYNTHETIC benchmark data", "updated_at": f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:]}T09:00:00.000+00:00",
            "uri": f"{API}/bulk-data/{kind}", "size": size, "download_uri": url,
            "content_type": "application/json", "content_encoding": "gzip"}


def run_dirs(out: Path) -> dict[str, Path]:
    """The base run (day 1), two next days made from it: ``changed`` (1 % of the cards and
    rulings edited) and ``quiet`` (one Oracle card and one ruling edited), and the day after
    ``changed``: ``next`` (another 1 % edited, drawn with another seed). Each day quotes new
    prices and ranks on every card object."""
    return {"base": out / "20000101T000000.000000Z", "changed": out / "20000102T000000.000000Z",
            "quiet": out / "20000102T120000.000000Z", "next": out / "20000103T000000.000000Z"}


def generate(scale: float, out: Path, seed: int = 7) -> dict[str, Path]:
    """Write ``out/base`` and ``out/changed`` (runs of a store at ``out/``) unless already there."""
    marker = out / "params.json"
    params = {"scale": scale, "seed": seed, "version": 3}  # 3: card objects carry released_at
    runs = run_dirs(out)
    if not (marker.exists() and json.loads(marker.read_text()) == params
            and all((runs[name] / "_SUCCESS").exists() for name in ("base", "changed"))):
        if out.exists():
            shutil.rmtree(out)
        synth = Synth(scale, seed)
        synth.write_run(out, runs["base"].name, "20000101")
        synth.change()
        synth.write_run(out, runs["changed"].name, "20000102")
        marker.write_text(json.dumps(params))
    if not (runs["quiet"] / "_SUCCESS").exists():  # added later than the others: made on its own
        shutil.rmtree(runs["quiet"], ignore_errors=True)  # what an interrupted write left
        synth = Synth(scale, seed)  # the base again: the quiet day is not made on top of the changed one
        synth.change(share=0)  # at least one of each: one Oracle card (all its printings), one ruling
        synth.write_run(out, runs["quiet"].name, "20000102")
    if not (runs["next"] / "_SUCCESS").exists():  # added later still: made on its own
        shutil.rmtree(runs["next"], ignore_errors=True)
        synth = Synth(scale, seed)
        synth.change()  # the changed day again, as written above
        synth.change(seed=13, day=3)
        synth.write_run(out, runs["next"].name, "20000103")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    for name, path in generate(args.scale, args.out, args.seed).items():
        print(name, path)


if __name__ == "__main__":
    main()
