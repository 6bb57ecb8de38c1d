"""Build recorded runs for tests: copies of the bundled sample, edited where a test needs a change.

Every edit made here is constructed (the test says what it changes); the texts used come from
the reference data, never made up, except where a test's docstring says otherwise.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from pipeline.rawstore import doc_id_for

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "raw" / "sample"
REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "reference" / "case_cards.json"


def printed_text(name: str) -> str:
    """A card's English printed text (its wording before the Oracle update), from the reference."""
    cards = json.loads(REFERENCE.read_text("utf-8"))
    return next(c["printed_text_en"] for c in cards if c["name"] == name)


class EditableRun:
    """A copy of a recorded run whose JSON documents can be edited, with the manifest kept true."""

    def __init__(self, dest: Path, source: Path = SAMPLE, sources: list[str] | None = None):
        shutil.copytree(source, dest)
        self.path = dest
        self.manifest = [json.loads(l) for l in (dest / "manifest.jsonl").read_text("utf-8").splitlines()]
        if sources is not None:
            meta = json.loads((dest / "run.json").read_text("utf-8"))
            meta["sources"] = sources
            (dest / "run.json").write_text(json.dumps(meta, indent=1), "utf-8")

    def entries(self, kind: str | None = None, key: str | None = None) -> list[dict]:
        return [e for e in self.manifest if (kind is None or e["kind"] == kind) and (key is None or e["key"] == key)]

    def read(self, entry: dict):
        return json.loads((self.path / entry["path"]).read_bytes())

    def write(self, entry: dict, obj) -> None:
        self.write_bytes(entry, json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    def _save(self) -> None:
        (self.path / "manifest.jsonl").write_text(
            "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in self.manifest), "utf-8")

    # -- edits ---------------------------------------------------------------------------
    def drop_card(self, name: str) -> None:
        """Remove a card's printings from the search page and its rulings document."""
        [search] = self.entries("search")
        page = self.read(search)
        oracle_ids = {c["oracle_id"] for c in page["data"] if c["name"] == name}
        page["data"] = [c for c in page["data"] if c["name"] != name]
        page["total_cards"] = len(page["data"])
        self.write(search, page)
        for oracle_id in oracle_ids:
            for entry in self.entries(key=oracle_id):
                (self.path / entry["path"]).unlink()
                self.manifest.remove(entry)
        self._save()

    def set_oracle_text(self, name: str, text: str) -> None:
        [search] = self.entries("search")
        page = self.read(search)
        for card in page["data"]:
            if card["name"] == name:
                card["oracle_text"] = text
        self.write(search, page)

    def oracle_id(self, name: str) -> str:
        [search] = self.entries("search")
        return next(c["oracle_id"] for c in self.read(search)["data"] if c["name"] == name)

    def edit_rulings(self, name: str, edit) -> None:
        """``edit(list_of_ruling_objects)`` changes the card's rulings list in place."""
        [entry] = self.entries("rulings", self.oracle_id(name))
        body = self.read(entry)
        edit(body["data"])
        self.write(entry, body)

    def add_french(self, url_part: str, marker) -> None:
        """Give the listeblanche.fr page whose URL holds ``url_part`` a French copy after each
        English ruling, where the site puts its translation: ``marker(i)`` after the i-th, none
        where it gives None. No recorded page holds French ruling text, so the copies are what
        the test gives (plain markers such as "[FR 0]"), never a translation made up."""
        [entry] = [e for e in self.manifest if e["origin"] == "listeblanche" and url_part in e["url"]]
        html, count = (self.path / entry["path"]).read_text("utf-8"), iter(range(100))

        def after(found):
            text = marker(next(count))
            french = "" if text is None else f'\n<blockquote lang="fr"><p>{text}</p></blockquote>'
            return found.group(1) + french

        body = re.sub(r"(<blockquote lang=\"en\">.*?</blockquote>)", after, html, flags=re.S).encode("utf-8")
        self.write_bytes(entry, body)

    def carry(self, url_part: str, reason: str = "robots.txt disallows it") -> None:
        """Record the page whose URL holds ``url_part`` as a run records a page robots.txt kept it
        from and an earlier copy stood in for (README, "casefile sync"): listed in run.json's
        ``not_fetched``, its manifest line marked ``carried``, with a ``reused_from`` naming a run
        of the day before that no data folder holds (constructed). The body is the recording's."""
        [entry] = [e for e in self.manifest if e["kind"] == "page" and url_part in e["url"]]
        entry.update(carried=reason, reused_from=f"20240101T000000.000000Z/{entry['path']}")
        meta = json.loads((self.path / "run.json").read_text("utf-8"))
        meta["not_fetched"] = [*meta.get("not_fetched", []), entry["url"]]
        (self.path / "run.json").write_text(json.dumps(meta, indent=1), "utf-8")
        self._save()

    def write_bytes(self, entry: dict, body: bytes) -> None:
        (self.path / entry["path"]).write_bytes(body)
        entry.update(doc_id=doc_id_for(entry["url"], body), sha256=hashlib.sha256(body).hexdigest(), bytes=len(body))
        if "content-length" in entry.get("headers", {}):
            entry["headers"]["content-length"] = str(len(body))
        self._save()


# The change history's constructed pair of runs (README, "casefile changes"): the cards it edits.
REWORDED = "Case of the Shifting Visage"
REMOVED_FROM = "Case of the Burning Masks"
ADDED_TO = "Case of the Gorgon's Kiss"
ERRATA = "Case of the Uneaten Feast"
NEW_CARD = "Case of the Market Melee"


def change_history_runs(folder: Path) -> tuple[Path, Path, dict]:
    """Run 1: the sample (API only) without Case of the Market Melee. Run 2: the full sample with
    four constructed edits: one card-specific ruling re-worded (a few words changed), one removed,
    one added (the text of one of the MTG wiki's own rulings, filed as a WotC ruling), and one
    card's Oracle text set to its printed wording from the reference (the pre-update text).
    Returns the two run folders and the texts edited."""
    reference = {c["name"]: c for c in json.loads(REFERENCE.read_text("utf-8"))}
    base = EditableRun(folder / "run1", sources=["api"])
    base.drop_card(NEW_CARD)
    changed = EditableRun(folder / "run2", sources=["api"])
    edits = {}

    def reword(rulings):
        target = next(r for r in rulings if r["comment"].startswith("The copy is created on the stack"))
        edits["old"] = target["comment"]
        target["comment"] = target["comment"].replace("Creating the copy won’t cause", "Creating the copy doesn’t cause")
        edits["new"] = target["comment"]

    def remove(rulings):
        own = [r for r in rulings if sum(r["comment"] in [x["text"] for x in c["rulings"]] for c in reference.values()) == 1]
        edits["removed"] = own[0]["comment"]
        rulings.remove(own[0])

    def add(rulings):
        edits["added"] = "A Case remains solved even if another player gains control of it."
        rulings.append({"object": "ruling", "oracle_id": rulings[0]["oracle_id"], "source": "wotc",
                        "published_at": "2024-02-02", "comment": edits["added"]})

    changed.edit_rulings(REWORDED, reword)
    changed.edit_rulings(REMOVED_FROM, remove)
    changed.edit_rulings(ADDED_TO, add)
    changed.set_oracle_text(ERRATA, reference[ERRATA]["printed_text_en"])
    assert reference[ERRATA]["printed_text_en"] != reference[ERRATA]["oracle_text"]
    return base.path, changed.path, edits


def recorded_as(dest: Path, query: str, source: Path = SAMPLE) -> Path:
    """A copy of a recorded run (the sample by default) CONSTRUCTED as a run of another query of
    the same cards (``t:case`` for the sample's ``type:"Case"``): run.json names ``query``, the
    search URLs ask Scryfall for it (their doc_ids follow), and the MTG wiki page, whose bytes are
    unchanged, is filed under it. Every other document is the recording's, byte for byte."""
    from urllib.parse import parse_qs, urlencode, urlsplit

    run = EditableRun(dest, source)
    meta = json.loads((dest / "run.json").read_text("utf-8"))
    old = meta["query"]
    meta["query"] = query
    (dest / "run.json").write_text(json.dumps(meta, indent=1), "utf-8")
    for entry in run.entries("search"):
        assert parse_qs(urlsplit(entry["url"]).query)["q"] == [old] and urlencode({"q": old}) in entry["url"]
        for name in ("url", "final_url"):
            entry[name] = entry[name].replace(urlencode({"q": old}), urlencode({"q": query}))
        entry["doc_id"] = doc_id_for(entry["url"], (dest / entry["path"]).read_bytes())
    for entry in run.manifest:
        if entry["origin"] == "mtgwiki":
            entry["key"] = query
    run._save()
    return dest


def sync_a_page_ahead_of_the_api(data_dir: Path, folder: Path) -> EditableRun:
    """Sync (offline) a copy of the sample whose API rulings list of Case of the Burning Masks
    lacks its fifth ruling, which its pages still show (a page behind the API): constructed."""
    from pipeline.cli import main

    run = EditableRun(folder)
    run.edit_rulings("Case of the Burning Masks", lambda rulings: rulings.pop(4))
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    return run
