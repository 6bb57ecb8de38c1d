"""Loads the bundled sample run into the shapes FakeScryfall serves (cards, rulings, sets)."""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "raw" / "sample"


def sample_api_data(sample: Path = SAMPLE) -> tuple[list[dict], dict[str, list[dict]], dict[str, dict]]:
    cards: list[dict] = []
    rulings: dict[str, list[dict]] = {}
    sets: dict[str, dict] = {}
    for line in (sample / "manifest.jsonl").read_text("utf-8").splitlines():
        entry = json.loads(line)
        if entry["origin"] != "scryfall-api":
            continue
        body = json.loads((sample / entry["path"]).read_bytes())
        if entry["kind"] == "search":
            cards.extend(body["data"])
        elif entry["kind"] == "rulings":
            rulings[entry["key"]] = body["data"]
        elif entry["kind"] == "set":
            sets[body["code"]] = body
    return cards, rulings, sets
