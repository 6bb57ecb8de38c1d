"""The delta build: a new day's bulk files against the ones the warehouse was built from.

Scryfall's bulk files change by a few percent a day, and a full build reads and derives all of
them again. The warehouse is a function of the raw store's current views; when it holds one
bulk view (one query: its card file and its rulings file) and the next run is the same query's
next bulk view, the build works from the object index of the previous files (what each of their
lines gave a full read; ``lines.py`` keeps it in the cache, written by the build that read them):

1. hashes each line of the new files (``lines.py``, cached per file) and matches the lines to
   the index: unchanged, new or changed, gone;
2. reads the new and changed lines (staged with the very SQL a full read uses), and from them
   and the index finds what to derive again: the card rows of the Oracle cards a changed, new or
   gone card line is about (``d_dirty``); the sightings at the places of the cards' rulings lists
   where a ruling line came, went, changed or moved (``d_sighted_place``), and every sighting of
   the cards that appear or go away (``d_sighted_whole``);
3. reads again the other card lines of the cards of ``d_dirty`` and the ruling lines that moved,
   derives the printings, card rows and sightings with ``sql/normalize/``, and reconciles again
   the rulings partitions (source, date, symbol-free key) whose texts change, with the
   warehouse's own sightings there that are not derived again; a card's sightings that are not
   derived again keep their rows and complete its rulings (``sql/delta/kept_sightings.sql``);
4. hands the load the staged rows and, per table, the keys of the warehouse rows it answers for
   (``scope_<table>``), and saves the object index of the new files for the next day.

Everything else in the warehouse is, by construction, what a full build would write again. The
test suite checks that a warehouse loaded through delta builds equals one loaded through full
builds, table by table, change events included (tests/test_delta.py). Where a condition does not
hold, ``build`` returns None and the caller makes a full build: no index of the previous files,
another query or view, a line that is not one whole object, a repeated Scryfall id, or more than
``MAX_CHANGED_SHARE`` of the lines changed (a full read is then as fast).
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .. import timing
from ..resources import read_sql
from ..sqlexec import run_script
from . import duck
from .lines import (LineScans, Volatile, copy_lines, hash_params, load_table, object_index_file, ruling_keys_file,
                    save_table, stage_lines)

log = logging.getLogger(__name__)

# Above this share of changed lines (in either file) a full read costs no more than a delta.
MAX_CHANGED_SHARE = 0.25
# Fields of Scryfall's card objects that casefile does not read (duck.CARD_COLUMNS) and that
# Scryfall updates daily (prices: https://scryfall.com/docs/api/bulk-data): a card line that
# differs only there is the same card for casefile.
# They are taken out of a card line before it is hashed, with the comma before them, so that a
# card that gains or loses a rank (enters or leaves the Penny Dreadful pool) is the same card too
# (a field first in its object has no comma and stays in: Scryfall's objects begin with
# "object"). The comma is not optional: `,?` makes the regular expression 2.5 times slower on
# the benchmark's card lines. The pattern cannot match inside a JSON string, where a quote is
# escaped. A test checks none of the fields is among the columns read.
VOLATILE_CARD_FIELDS = r',"(?:prices":\{[^{}]*\}|edhrec_rank":[0-9]+|penny_rank":[0-9]+)'
VOLATILE_FIELD_NAMES = ("prices", "edhrec_rank", "penny_rank")
# Scryfall writes the three together, ranks first: ..."story_spotlight", "edhrec_rank",
# "penny_rank", "prices", "related_uris"... A card line whose three fields are in that shape has
# them left out without the pattern, by splitting it (lines.Volatile); the pattern is for the
# other lines. On the benchmark's card file that takes about a third less CPU than the pattern on
# the text from the rank key on (bench/FINDINGS.md, "Machine J").
VOLATILE_CARD = Volatile(VOLATILE_CARD_FIELDS, cut=',"edhrec_rank":', flat=',"prices":{', between=',"penny_rank":')
# The tables a delta build answers for by scope (the others it stages whole: sets, translations, rules).
SCOPED_TABLES = ("card", "query_card", "printing", "ruling", "card_ruling", "ruling_sighting")


@dataclass
class Outcome:
    """What a delta build tells the caller besides the n_<table> TEMP tables it made."""

    objects: int
    refused: int
    changed_lines: int
    dirty_cards: int


def bulk_docs(docs: list[duck.Doc]) -> tuple[duck.Doc, duck.Doc] | None:
    """The card file and the rulings file of a single bulk view, or None if the view is not one."""
    by_kind: dict[str, list[duck.Doc]] = {}
    for doc in docs:
        by_kind.setdefault(doc.kind, []).append(doc)
    if set(by_kind) - {"bulk-cards", "bulk-rulings", "set", "sets"}:
        return None
    if len(by_kind.get("bulk-cards", [])) != 1 or len(by_kind.get("bulk-rulings", [])) != 1:
        return None
    return by_kind["bulk-cards"][0], by_kind["bulk-rulings"][0]


def stage_line_files(con, cards: duck.Doc, rulings: duck.Doc, cache_dir: Path | None, materialize: bool = True,
                     scans: LineScans | None = None) -> bool:
    """lines_cards and lines_rulings (TEMP); whether both files are one object per line.
    ``scans``: the files' scans, if the caller started them (``start_line_scans``)."""
    return stage_lines(con, [("lines_cards", cards.path, cards.sha256, VOLATILE_CARD),
                             ("lines_rulings", rulings.path, rulings.sha256, None)], cache_dir, materialize, scans)


def start_line_scans(con, cards: duck.Doc, rulings: duck.Doc, cache_dir: Path) -> LineScans:
    """The scans ``stage_line_files`` needs, started now, to run while the caller reads the files."""
    return LineScans(con, [(cards.path, cards.sha256, VOLATILE_CARD), (rulings.path, rulings.sha256, None)],
                     cache_dir)


def index_full(con, cards: duck.Doc, rulings: duck.Doc, query: str, cache_dir: Path | None) -> bool:
    """After a full read of the two files: their object index, saved in the cache for the next
    day's delta. False when the lines and the objects read do not match one to one."""
    if cache_dir is None or not (cards.sha256 and rulings.sha256):
        return False
    seqs = {"cards_seq": cards.file_seq, "rulings_seq": rulings.file_seq}
    if not con.execute(read_sql("delta/index_full.sql"), {**seqs, "whole": cards.terms is None}).fetchone()[0]:
        return False
    try:
        save_table(con, f"({read_sql('delta/index_cards.sql')})",
                   object_index_file(cache_dir, cards.sha256, cards.kind, query, VOLATILE_CARD),
                   {"cards_seq": cards.file_seq})
        save_table(con, f"({read_sql('delta/index_rulings.sql')})",
                   object_index_file(cache_dir, rulings.sha256, rulings.kind, query), {"rulings_seq": rulings.file_seq})
    except (OSError, duckdb.IOException) as exc:  # the cache cannot be written: the next sync is a full build
        log.warning("cannot write the object index to %s: %s", cache_dir, str(exc).splitlines()[0])
        return False
    return True


def index_ruling_keys(con, cards: duck.Doc, rulings: duck.Doc, query: str, cache_dir: Path) -> None:
    """After a full build's reconciliation (n_ruling): the ruling keys of its view, which complete
    the object index that ``index_full`` saved (the next delta finds a partition's rulings by
    them, not by working out every ruling's symbol-free key: ``sql/delta/partitions.sql``)."""
    try:
        con.execute(read_sql("delta/index_ruling_keys.sql"))
        save_table(con, "(SELECT * FROM d_ruling_key)",
                   ruling_keys_file(cache_dir, cards.sha256, rulings.sha256, query))
    except (OSError, duckdb.IOException) as exc:  # the next sync is a full build
        log.warning("cannot write the ruling keys to %s: %s", cache_dir, str(exc).splitlines()[0])


def _save_index(con, cards: duck.Doc, rulings: duck.Doc, query: str, cache_dir: Path) -> None:
    save_table(con, "n_card_line", object_index_file(cache_dir, cards.sha256, cards.kind, query, VOLATILE_CARD))
    save_table(con, "n_ruling_line", object_index_file(cache_dir, rulings.sha256, rulings.kind, query))
    save_table(con, "n_ruling_key", ruling_keys_file(cache_dir, cards.sha256, rulings.sha256, query))


def _load_index(con, previous: tuple[str, str], query: str, cache_dir: Path) -> bool:
    """old_card_line, old_ruling_line and old_ruling_key: the object index of the previous
    view's files, and its ruling keys."""
    cards_sha, rulings_sha = previous
    cards_index = object_index_file(cache_dir, cards_sha, "bulk-cards", query, VOLATILE_CARD)
    return load_table(con, "old_card_line", cards_index) \
        and load_table(con, "old_ruling_line", object_index_file(cache_dir, rulings_sha, "bulk-rulings", query)) \
        and load_table(con, "old_ruling_key", ruling_keys_file(cache_dir, cards_sha, rulings_sha, query))


def build(con: duckdb.DuckDBPyConnection, docs: list[duck.Doc], query: str, cache_dir: Path | None,
          previous: tuple[str, str] | None) -> Outcome | None:
    """The delta build on ``con`` (the warehouse attached), or None where a full build is needed.

    ``previous``: the sha256 of the card file and the rulings file of the view the warehouse
    holds now (the same query's previous bulk view, and no other view), or None. An error of
    the delta build itself (a cache file that cannot be read, a query that fails) is logged as a
    warning and answered with a full build: an unattended sync still loads its run. An
    interruption (SIGTERM) is not.
    """
    try:
        return _build(con, docs, query, cache_dir, previous)
    except duckdb.InterruptException:
        raise
    except (duckdb.Error, OSError, UnicodeDecodeError) as exc:
        log.warning("delta build failed (%s: %s); full build", exc.__class__.__name__, str(exc).splitlines()[0])
        return None


def _build(con: duckdb.DuckDBPyConnection, docs: list[duck.Doc], query: str, cache_dir: Path | None,
           previous: tuple[str, str] | None) -> Outcome | None:
    pair = bulk_docs(docs)
    if pair is None or previous is None or cache_dir is None:
        return None
    scans = start_line_scans(con, *pair, cache_dir)  # while the previous index is read
    try:
        outcome = _build_on(con, docs, pair, query, cache_dir, previous, scans)
    except Exception:
        scans.finish()  # the scans written to the cache serve the full build that follows
        raise
    except BaseException:
        scans.finish(interrupt=True)
        raise
    scans.finish()
    return outcome


def _build_on(con: duckdb.DuckDBPyConnection, docs: list[duck.Doc], pair: tuple[duck.Doc, duck.Doc], query: str,
              cache_dir: Path, previous: tuple[str, str], scans: LineScans) -> Outcome | None:
    cards, rulings = pair
    with timing.phase("build.lines"):
        try:
            indexed = _load_index(con, previous, query, cache_dir)
        finally:
            usable = stage_line_files(con, cards, rulings, cache_dir, scans=scans)  # waits for the scans
        if not indexed:
            log.info("delta build: no object index of the previous files in the cache; full build")
            return None
        if not usable:
            log.info("delta build: a bulk file is not one object per line; full build")
            return None
        cards_new, cards_gone, n_cards, rulings_new, rulings_gone, n_rulings = run_script(
            con, read_sql("delta/match_lines.sql")).fetchone()
    if max(cards_new, cards_gone) > MAX_CHANGED_SHARE * max(n_cards, 1) \
            or max(rulings_new, rulings_gone) > MAX_CHANGED_SHARE * max(n_rulings, 1):
        log.info("delta build: of %d card lines %d are new or changed and %d gone, of %d ruling lines %d and %d; "
                 "full build", n_cards, cards_new, cards_gone, n_rulings, rulings_new, rulings_gone)
        return None
    seqs = {"cards_seq": cards.file_seq, "rulings_seq": rulings.file_seq}
    others = [d for d in docs if d.kind in ("set", "sets")]
    duck.stage_documents(con, others)  # creates card_object, ruling_object, set_object; reads the sets
    con.execute(read_sql("normalize/10_object.sql"))
    with tempfile.TemporaryDirectory(prefix="casefile-delta-") as tmp:
        con.execute(read_sql("delta/changed_lines.sql"))
        if not _read_again(con, cards, rulings, Path(tmp) / "changed"):
            return None
        repeated = run_script(con, read_sql("delta/dirty.sql"), seqs).fetchone()[0]
        if repeated:
            log.info("delta build: a Scryfall id is on two lines; full build")
            return None
        con.execute(read_sql("delta/needed_cards.sql"))
        if not _read_again(con, cards, rulings, Path(tmp) / "cards"):
            return None
        if con.execute(read_sql("delta/repeated_ids.sql")).fetchone()[0]:
            log.info("delta build: a Scryfall id is on two lines; full build")
            return None
        for name in ("20_printing", "30_card"):
            run_script(con, read_sql(f"normalize/{name}.sql"))
        run_script(con, read_sql("delta/cards.sql"))
        con.execute(read_sql("delta/needed_rulings.sql"))
        if not _read_again(con, cards, rulings, Path(tmp) / "rulings"):
            return None
    run_script(con, read_sql("delta/positions.sql"))
    run_script(con, read_sql("normalize/40_card_set.sql"))
    run_script(con, read_sql("delta/card_set.sql"))
    run_script(con, read_sql("normalize/50_sighting.sql"))
    if not duck.all_anchors(con):
        return None  # the full build hands such sightings to the Python reconciliation
    run_script(con, read_sql("delta/partitions_known.sql"))
    duck.variants(con, "d_new_sighting")  # the features of the variants the warehouse does not have
    run_script(con, read_sql("delta/partitions.sql"), {"rulings_doc": rulings.doc_id})
    duck.variants(con)  # of every sighting in the partitions reconciled again
    for name in ("normalize/60_reconcile.sql", "delta/mapped.sql", "normalize/65_card_ruling.sql",
                 "delta/kept_sightings.sql"):
        run_script(con, read_sql(name))
    run_script(con, read_sql("delta/scopes.sql"), {"query": query})
    con.execute(read_sql("delta/index_ruling_keys.sql"))
    objects, refused = run_script(con, read_sql("delta/new_index.sql")).fetchone()
    try:
        _save_index(con, cards, rulings, query, cache_dir)
    except (OSError, duckdb.IOException) as exc:  # the run still loads; the next sync is a full build
        log.warning("cannot write the object index to %s: %s", cache_dir, str(exc).splitlines()[0])
    dirty = con.execute(read_sql("delta/dirty_count.sql")).fetchone()[0]
    return Outcome(objects=int(objects), refused=int(refused),
                   changed_lines=int(cards_new + cards_gone + rulings_new + rulings_gone), dirty_cards=int(dirty))


def _read_again(con, cards: duck.Doc, rulings: duck.Doc, stem: Path) -> bool:
    """Stage the lines of TEMP table d_wanted (file, ord, off, len) as the full read would stage
    them; False if a line read is not the one indexed (its hash differs) or DuckDB cannot read it."""
    with timing.phase("build.read"):
        return _stage_lines_read(con, cards, rulings, stem)


def _stage_lines_read(con, cards: duck.Doc, rulings: duck.Doc, stem: Path) -> bool:
    for label, doc in (("cards", cards), ("rulings", rulings)):
        wanted = con.execute(read_sql("delta/line_place.sql"), {"file": label}).fetchone()[0]
        if not wanted:
            continue
        path = stem.with_name(f"{stem.name}-{label}.jsonl")
        written = copy_lines(con, doc.path, path)
        verify = read_sql("delta/verify_lines.sql").replace(
            "{lines}", "lines_cards" if label == "cards" else "lines_rulings")
        read, wrong = con.execute(verify, {"file": str(path),
                                           **hash_params(VOLATILE_CARD if label == "cards" else None)}).fetchone()
        if wrong or read != wanted or written != wanted:
            log.info("delta build: %d line(s) of %s read back differ from their hash; full build",
                     max(wrong, wanted - min(read, written)), doc.name)
            return False
        # staged as the full read stages the bulk file, each object at its line's place in it
        staged = duck.Doc(file_seq=doc.file_seq, run_id=doc.run_id, doc_id=doc.doc_id, kind=doc.kind, key=doc.key,
                          path=path, name=doc.name, terms=doc.terms, place=doc.place)
        table = "card_object" if label == "cards" else "ruling_object"
        count = f"SELECT count(*), count(*) FILTER (WHERE ord IS NULL) FROM {table} WHERE file_seq = $seq"
        before = con.execute(count, {"seq": doc.file_seq}).fetchone()[0]
        try:
            if label == "cards":
                duck.stage_bulk_cards(con, staged)
            else:
                duck.stage_bulk_rulings(con, staged)
        except duckdb.Error as exc:
            log.info("delta build: DuckDB cannot read the changed lines of %s (%s); full build",
                     doc.name, str(exc).splitlines()[0])
            return False
        after, beyond = con.execute(count, {"seq": doc.file_seq}).fetchone()
        if beyond or (label == "rulings" and after - before != wanted):  # an object beyond the lines has no place
            log.info("delta build: a line of %s holds more than one object; full build", doc.name)
            return False
    return True


__all__ = ["SCOPED_TABLES", "Outcome", "build", "bulk_docs", "index_full", "index_ruling_keys", "stage_line_files",
           "start_line_scans"]
