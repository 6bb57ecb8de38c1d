"""From raw runs to table rows: pick the current runs, normalize their documents, reconcile.

Reads files of the raw store; no network. The Python path (``build_state``) uses no DuckDB;
the SQL path (``build_state_sql``) works in TEMP tables of the connection it is given and
writes no warehouse table (the load does). The warehouse's content is a function of
the raw store: for each (query, origin), the newest complete run that fetched that origin is the
current view of it, and the tables are built from those views. ``sync`` and ``rebuild`` both come
through here, which is why a rebuild reproduces what the syncs wrote.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union

from . import timing
from .errors import ParseError, SourceDataError
from .normalize import delta, duck
from .normalize.lines import release_scans
from .normalize import query as query_filter
from .normalize import scryfall as api
from .normalize.rules import RulesDocument, parse_cr
from .normalize.text import symbol_free_key
from .rawstore import DocEntry, RawStore, RunInfo, body_path, read_body, read_manifest
from .reconcile import reconcile
from .records import RULES_ORIGIN, Card, CardSet, Printing, RulingSighting
from .resources import read_sql
from .rules_tables import LINK_TABLES, rules_tables, sql_rules_tables
from .sqlexec import insert_rows, run_script

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

# A table's rows as a build hands them to the load: a DataFrame (Python path), the name of a TEMP
# table (SQL path), or a list of row dicts (a few rows; an empty list for an empty table).
# pandas and the HTML parsers are imported where used: a large SQL build needs neither.
Rows = Union["pd.DataFrame", str, list]

# What ``--sources`` names, and the origin each one writes to the raw store.
SOURCE_ORIGINS = {"api": "scryfall-api", "wiki": "mtgwiki", "listeblanche": "listeblanche",
                  "scryfall-page": "scryfall-page", "rules": RULES_ORIGIN}
# A run whose documents of one origin hold more than this share of unreadable records fails with
# exit 65 instead of loading half a picture. 5 %: one broken card in a page of 20 is tolerated.
MAX_SKIPPED_SHARE = 0.05


def run_origins(run: RunInfo) -> list[str]:
    sources = run.meta.get("sources") or ["api"]
    return [SOURCE_ORIGINS[s] for s in sources if s in SOURCE_ORIGINS]


def current_runs(runs: list[RunInfo]) -> dict[tuple[str, str], RunInfo]:
    """For each (query, origin), the newest complete run among ``runs`` that fetched it."""
    current: dict[tuple[str, str], RunInfo] = {}
    for run in sorted(runs, key=lambda r: r.run_id):
        if not run.complete:
            continue
        for origin in run_origins(run):
            current[(run.meta.get("query") or "", origin)] = run
    return current


@dataclass
class State:
    """A build's rows: DataFrames (Python path) or names of TEMP tables (SQL path), per table."""

    tables: dict[str, Rows]
    unknown_fields: Counter = field(default_factory=Counter)
    skipped_count: int = 0
    engine: str = "python"
    # A delta build (normalize/delta.py): the tables it answers for by scope (scope_<table> TEMP
    # tables hold the keys); the others are staged whole.
    scope: tuple[str, ...] = ()
    # The bodies (sha256) whose cached line index the next day's delta needs: the bulk files of
    # the view just built. None: the build was not of one bulk view.
    cache_keep: set[str] | None = None

    @property
    def build(self) -> str:
        """How the rows were made: "delta" (the changed lines of a bulk view), "full" (every
        document through DuckDB), "python" (the reference path, for small syncs)."""
        return "delta" if self.scope else "full" if self.engine == "sql" else "python"


@dataclass
class _Collected:
    cards: dict[str, list[tuple]] = field(default_factory=dict)  # oracle_id -> [(rank, Card)]
    objects_read: int = 0  # card objects read so far: the last copy of a Scryfall id read twice wins
    printings: dict[str, Printing] = field(default_factory=dict)
    sets: dict[str, CardSet] = field(default_factory=dict)
    sightings: list[RulingSighting] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    unknown_fields: Counter = field(default_factory=Counter)
    wiki_quotes: list[tuple[str, list[str]]] = field(default_factory=list)  # (page title, rule numbers)
    query_cards: set[tuple[str, str]] = field(default_factory=set)  # (query, oracle_id)
    query_wiki_pages: set[tuple[str, str]] = field(default_factory=set)  # (query, doc_id)
    editions: dict[str, tuple[str, RulesDocument]] = field(default_factory=dict)  # date -> (doc_id, rules)


# Kinds of Scryfall documents the build reads; the others (the bulk-data index) say how a run
# was fetched, not what the cards are.
API_KINDS = ("search", "rulings", "set", "sets", "bulk-cards", "bulk-rulings")


def _usable(entry: DocEntry) -> bool:
    """A document with data: a 200, or a 304 whose body the run took from an earlier run."""
    return entry.origin == api.ORIGIN and entry.kind in API_KINDS and (
        entry.status == 200 or (entry.status == 304 and entry.reused_from is not None))


def view_terms(run: RunInfo) -> list[dict] | None:
    """The local filter of a bulk run's query (None: every card)."""
    return query_filter.parse(run.meta.get("query") or "*")


def _collect_api(store: RawStore, run: RunInfo, got: _Collected) -> None:
    objects = skipped = 0
    before = len(got.skipped)  # the refusals of the runs read before this one
    terms = view_terms(run) if any(e.kind == "bulk-cards" for e in read_manifest(run)) else None
    for entry in read_manifest(run):
        if not _usable(entry):
            continue
        doc = f"{run.run_id}/{entry.path}"
        if entry.kind in ("search", "bulk-cards"):
            if entry.kind == "search":
                page = api.search_page_records(read_body(run, entry), doc)
            else:
                page = _bulk_page(body_path(run, entry), doc, terms)
            objects += page.objects
            skipped += len(page.skipped)
            got.skipped.extend(page.skipped)
            got.unknown_fields.update(page.unknown_fields)
            for printing, cards, own in page.pairs:
                got.printings[printing.scryfall_id] = printing
                got.query_cards.update((run.meta.get("query") or "", card.oracle_id) for card in cards)
                # the card's Oracle fields come from the newest run, a printing that names the card
                # itself (not a reversible card's face), an English printing, the smallest
                # Scryfall id: any such printing would do, this makes the choice repeatable; of
                # one id read twice, the copy its printing row is from (the last)
                got.objects_read += 1
                rank = (run.run_id, own, printing.lang == "en", _neg(printing.scryfall_id), got.objects_read)
                for card in cards:
                    got.cards.setdefault(card.oracle_id, []).append((rank, card))
        elif entry.kind in ("rulings", "bulk-rulings"):
            if entry.kind == "rulings":
                sightings, bad = api.ruling_sightings(read_body(run, entry), entry.doc_id, entry.key or "", doc)
                seen = len(sightings) + len(bad)
            else:
                items = api.iter_bulk_items(body_path(run, entry), doc)
                sightings, bad, seen = api.bulk_ruling_sightings(items, entry.doc_id, doc,
                                                                 place=bulk_rulings_place(run))
            objects += seen
            skipped += len(bad)
            got.skipped.extend(bad)
            got.sightings.extend(sightings)
        elif entry.kind == "set":
            record = api.set_record(read_body(run, entry), doc)
            got.sets[record.set_code] = record
        elif entry.kind == "sets":
            for record in api.sets_list_records(read_body(run, entry), doc):
                got.sets[record.set_code] = record
    _check_refused_share(run.run_id, skipped, objects, got.skipped[before:])


def _bulk_page(path, doc: str, terms) -> api.PageRecords:
    """A bulk card file read like one long search page, kept to the cards the query selects."""
    page = api.PageRecords()
    for index, item in enumerate(api.iter_bulk_items(path, doc)):
        if isinstance(item, dict) and not query_filter.matches(terms, item):
            continue
        page.objects += 1
        if not isinstance(item, dict):
            page.skipped.append(f"{doc}#{index}: not an object")
            continue
        try:
            printing = api.printing_record(item)
            cards = api.card_records(item)
        except api.RecordError as exc:
            page.skipped.append(f"{doc}#{index}: {exc}")
            continue
        page.printings.append(printing)
        page.pairs.append((printing, cards, api.names_its_card(item)))
    return page


def _neg(text: str) -> tuple:
    return tuple(-ord(c) for c in text)


def _page_name(run: RunInfo, entry: DocEntry) -> str:
    return f"{entry.url} ({run.run_id}/{entry.path})"


def _page_sightings(origin: str, body: bytes, entry: DocEntry, name: str, got: "_Collected") -> list[RulingSighting]:
    """The sightings of one rulings page; a page that shows rulings it does not let us read fails."""
    from .normalize.pages.listeblanche import parse_listeblanche_page
    from .normalize.pages.scryfall_page import parse_scryfall_page
    from .normalize.pages.wiki import parse_wiki_page

    content_type = entry.headers.get("content-type")  # its charset says how the page's bytes read
    try:
        if origin == "mtgwiki":
            page = parse_wiki_page(body, entry.doc_id, content_type)
            numbers = [number for number, _ in page.rules_quoted if not number.startswith("glossary:")]
            got.wiki_quotes.append((page.title, numbers))
            return list(page.rulings)
        if origin == "listeblanche":
            page = parse_listeblanche_page(body, entry.doc_id, entry.key, content_type)
            english = [s for s in page.rulings if s.lang == "en"]
            if len(english) != page.expected_rulings:
                raise ParseError(entry.doc_id, f"the page shows {page.expected_rulings} rulings but "
                                               f"{len(english)} could be read (layout changed?)")
            return list(page.rulings)
        if origin == "scryfall-page":
            rulings = list(parse_scryfall_page(body, entry.doc_id, entry.key, content_type).rulings)
            if not rulings and entry.key:  # fetched because the API gives the card rulings (extract/pages.py)
                raise ParseError(entry.doc_id, "the page of a card with rulings shows none (layout changed?)")
            return rulings
    except ParseError as exc:
        raise ParseError(name, exc.reason) from None
    raise ValueError(f"no page parser for {origin}")


def _collect_pages(origin: str):
    def collect_pages(store: RawStore, run: RunInfo, got: "_Collected") -> None:
        for entry, body in store.iter_documents(run):
            if entry.origin != origin or entry.kind != "page" or entry.status != 200:
                continue
            got.sightings.extend(_page_sightings(origin, body, entry, _page_name(run, entry), got))
            if origin == "mtgwiki":  # its copies name no card: the page is the query's
                got.query_wiki_pages.add((run.meta.get("query") or "", entry.doc_id))
    return collect_pages


# Page parsers by origin; each adds the sightings of the run's documents of that origin.
PAGE_COLLECTORS = {origin: _collect_pages(origin) for origin in ("mtgwiki", "listeblanche", "scryfall-page")}


def _collect_rules(store: RawStore, runs: list[RunInfo], got: _Collected) -> None:
    """Every ingested edition of the Comprehensive Rules, by effective date (the newest ingest wins)."""
    for run in sorted(runs, key=lambda r: r.run_id):
        if not run.complete or RULES_ORIGIN not in run_origins(run):
            continue
        for entry, body in store.iter_documents(run):
            if entry.origin == RULES_ORIGIN and entry.status == 200:
                document = parse_cr(body, _page_name(run, entry))
                got.editions[document.effective_date] = (entry.doc_id, document)


def collect(store: RawStore, runs: list[RunInfo]) -> _Collected:
    got = _Collected()
    views = current_runs(runs)
    for (query, origin), run in sorted(views.items(), key=lambda item: (item[1].run_id, item[0])):
        if origin == api.ORIGIN:
            _collect_api(store, run, got)
        elif origin in PAGE_COLLECTORS:
            PAGE_COLLECTORS[origin](store, run, got)
    _collect_rules(store, runs, got)
    return got


_NOTHING = object()


def refuse_empty_bulk_files(runs: list[RunInfo]) -> None:
    """A bulk file of the views to build that holds no object at all is a broken download, not a
    day without cards or rulings: built, it would empty the view's tables. Raises SourceDataError
    naming it. Reads each file up to its first object only."""
    for run in current_runs(runs).values():
        for entry in read_manifest(run):
            if entry.kind not in ("bulk-cards", "bulk-rulings") or not _usable(entry):
                continue
            doc = f"{run.run_id}/{entry.path}"
            with closing(api.iter_bulk_items(body_path(run, entry), doc)) as items:
                if next(items, _NOTHING) is _NOTHING:
                    raise SourceDataError(f"{doc}: the bulk {entry.kind.removeprefix('bulk-')} file holds no "
                                          "object; nothing loaded (an empty file would empty the warehouse)")


def build_state(store: RawStore, runs: list[RunInfo]) -> State:
    """The reference build: every document parsed and reconciled in Python."""
    got = collect(store, runs)
    cards = [max(candidates, key=lambda item: item[0])[1] for _, candidates in sorted(got.cards.items())]
    known = {c.oracle_id for c in cards}
    printings = sorted((p for p in got.printings.values() if p.oracle_id in known), key=lambda p: p.scryfall_id)
    sets = dict(got.sets)
    for p in printings:  # a set Scryfall could not describe still gets its code
        sets.setdefault(p.set_code, CardSet(p.set_code, None, None, None, None, None))
    sightings = [s for s in got.sightings if s.oracle_id is None or s.oracle_id in known]
    rec = _reconciled(sightings)
    tables = {
        **{name: _frame(rows) for name, rows in rules_tables(got.editions, got.wiki_quotes, cards, rec.rulings).items()},
        "card_set": _frame([_set_row(s) for _, s in sorted(sets.items())]),
        "query_card": _frame([{"query": q, "oracle_id": o} for q, o in sorted(got.query_cards) if o in known]),
        "query_wiki_page": _frame(query_wiki_page_rows(got)),
        "card": _frame([_card_row(c) for c in cards]),
        "printing": _frame([_printing_row(p) for p in printings]),
        "ruling": _frame([r.__dict__ for r in rec.rulings]),
        "card_ruling": _frame([c.__dict__ for c in rec.card_rulings]),
        "ruling_sighting": _frame([_sighting_row(s) for s in rec.sightings]),
        "ruling_translation": _frame([t.__dict__ for t in rec.translations]),
    }
    return State(tables=tables, unknown_fields=got.unknown_fields, skipped_count=len(got.skipped))


# The SQL path pays off on large inputs (bulk files, big queries); below this many bytes of
# Scryfall documents the Python reference path is as fast and stricter about field types.
SQL_PATH_MIN_BYTES = 16 * 1024 * 1024


def build_state_sql(con, store: RawStore, runs: list[RunInfo], min_bytes: int | None = None,
                    cache_dir: Path | None = None, use_delta: bool = True) -> State:
    """The same tables through DuckDB (``normalize/duck.py``): TEMP tables n_<table> on ``con``.

    A single bulk view whose previous files the warehouse's line index describes is built as a
    delta (``normalize/delta.py``, unless ``use_delta`` is false), an ingested edition of the
    rules beside it or not (``rules_tables.sql_rules_tables``); ``cache_dir`` keeps the line
    index of each bulk file read. Views of several queries, and page sources beside them, are
    built whole: the pages' sightings are reconciled in Python with the Scryfall sightings they
    may join (``_reconcile_with_pages``). Raises SqlPathUnavailable when the input is small or a
    document needs the Python path (``build_state``).
    """
    views = current_runs(runs)
    scryfall_views = {key: run for key, run in views.items() if key[1] == api.ORIGIN}
    page_views = {key: run for key, run in views.items() if key[1] not in (api.ORIGIN, RULES_ORIGIN)}
    size = sum(e.bytes or 0 for run in scryfall_views.values() for e in read_manifest(run) if _usable(e))
    if size < (SQL_PATH_MIN_BYTES if min_bytes is None else min_bytes):
        raise duck.SqlPathUnavailable(f"{size:,} bytes of documents: the Python path is enough")
    queries = sorted({query for query, _ in scryfall_views})
    docs: list[duck.Doc] = []
    order: list[str] = []
    ruling_docs: set[str] = set()  # each rulings document once: its (card, position) pairs are then unique
    for (query, origin), run in sorted(scryfall_views.items(), key=lambda item: (item[1].run_id, item[0])):
        order.append(run.run_id)
        entries = read_manifest(run)
        terms = view_terms(run) if any(e.kind == "bulk-cards" for e in entries) else None
        for entry in entries:
            if not _usable(entry) or (entry.kind in ("rulings", "bulk-rulings") and entry.doc_id in ruling_docs):
                continue
            if entry.kind in ("rulings", "bulk-rulings"):
                ruling_docs.add(entry.doc_id)
            docs.append(duck.Doc(file_seq=len(docs), run_id=run.run_id, doc_id=entry.doc_id, kind=entry.kind,
                                 key=entry.key, path=body_path(run, entry), name=f"{run.run_id}/{entry.path}",
                                 terms=terms if entry.kind == "bulk-cards" else None,
                                 place=bulk_rulings_place(run) if entry.kind == "bulk-rulings" else None,
                                 sha256=entry.sha256))
    one_view = len(scryfall_views) == 1 and not page_views
    query = queries[0] if queries else ""
    got = _Collected()
    _collect_rules(store, runs, got)
    for (_, origin), run in sorted(page_views.items(), key=lambda item: (item[1].run_id, item[0])):
        if origin in PAGE_COLLECTORS:
            PAGE_COLLECTORS[origin](store, run, got)
    duck.register_macros(con)
    # the line index serves the next day's delta, which only a warehouse of one bulk view takes
    pair = delta.bulk_docs(docs) if one_view else None
    # a run that ingests an edition links every card and ruling again: its build is full
    outcome = delta.build(con, docs, query, cache_dir, _previous_bulk(runs, query)) \
        if pair and use_delta and not _ingests_rules(runs) else None
    if outcome is not None and outcome.objects and outcome.refused / outcome.objects > MAX_SKIPPED_SHARE:
        outcome = None  # the full read names the first refusals
    if outcome is not None:
        total, scope = outcome.refused, delta.SCOPED_TABLES
        unknown: Counter = Counter()  # a delta reads bulk files only, whose fields are not counted
        log.info("delta build: %d changed line(s), %d card(s) derived again", outcome.changed_lines,
                 outcome.dirty_cards)
    else:
        # The line index of the bulk files, for the next day's delta: their lines are scanned
        # while the documents are read.
        indexable = pair is not None and cache_dir is not None and all(doc.sha256 for doc in pair)
        scans = delta.start_line_scans(con, *pair, cache_dir) if indexable else None
        try:
            with timing.phase("build.read"):
                duck.stage_documents(con, docs)
            with timing.phase("build.lines"):  # what the scans take beyond the read
                indexed = scans is not None \
                    and delta.stage_line_files(con, *pair, cache_dir, materialize=False, scans=scans)
            duck.derive_records(con)
            if len(queries) > 1:
                con.execute(read_sql("normalize/query_card_views.sql"),
                            {"run_ids": [run.run_id for _, run in sorted(scryfall_views.items())],
                             "queries": [q for q, _ in sorted(scryfall_views)]})
            total = _refusals(con, docs, order)
            unknown = Counter(duck.unknown_fields(con, docs))
            indexed = indexed and delta.index_full(con, *pair, query, cache_dir)
        except BaseException:
            if scans is not None:
                scans.finish(interrupt=True)
            raise
        if scans is not None:
            scans.finish()  # the scans' writes to the cache, which ran meanwhile
        scope = ()
    duck.release_objects(con)
    release_scans(con)  # the line scans kept in memory for this build
    if outcome is None:  # a delta build reconciles as it goes
        if not duck.all_anchors(con):
            raise duck.SqlPathUnavailable("sightings without a date or a source need the Python reconciliation",
                                          large=True)
        pages = _reconcile_with_pages(con, got.sightings) if got.sightings else None
        duck.reconcile(con)
        if pages is not None:
            _append_reconciled(con, pages)
        if indexed:  # the rulings' keys complete the object index (normalize/delta.py)
            delta.index_ruling_keys(con, *pair, query, cache_dir)
    tables: dict[str, Rows] = {t: f"n_{t}" for t in duck.TABLES}
    if len(queries) <= 1:
        con.execute(read_sql("normalize/query_card_one.sql"), {"query": query})
    tables["query_card"] = "n_query_card"
    tables["query_wiki_page"] = query_wiki_page_rows(got)
    rules, links_scoped = sql_rules_tables(con, got.editions, got.wiki_quotes, delta_built=outcome is not None)
    tables.update(rules)
    if links_scoped:
        scope = (*scope, *LINK_TABLES)
    return State(tables=tables, skipped_count=total, engine="sql", scope=scope, unknown_fields=unknown,
                 cache_keep={doc.sha256 for doc in pair if doc.sha256} if pair else None)


def query_wiki_page_rows(got: _Collected) -> list[dict]:
    """query_wiki_page: the MTG wiki page of each query's current view (a page several queries
    fetched, byte-identical, is one document and a row for each of them)."""
    return [{"query": q, "doc_id": d} for q, d in sorted(got.query_wiki_pages)]


def _reconcile_with_pages(con, sightings: list[RulingSighting]):
    """The page copies (``sightings``) reconciled in Python with the Scryfall sightings they may
    join, which leave n_sighting and n_variant (sql/normalize/pull_page_classes.sql); the SQL
    reconciliation then works on the rest. A ruling page copies cannot reach is reconciled alike
    either way, so the two parts together give what ``build_state`` gives."""
    ids = sorted({s.oracle_id for s in sightings if s.oracle_id is not None})
    known = {row[0] for row in con.execute(read_sql("normalize/known_cards.sql"), {"ids": ids}).fetchall()}
    pages = [s for s in sightings if s.oracle_id is None or s.oracle_id in known]
    bare = sorted({symbol_free_key(s.text_as_seen) for s in pages if s.lang == "en"})
    cards = sorted({s.oracle_id for s in pages if s.oracle_id is not None})
    run_script(con, read_sql("normalize/pull_page_classes.sql"), {"bare": bare, "cards": cards})
    pulled = [RulingSighting(doc_id=doc_id, origin=origin, oracle_id=oracle_id, position=position, text_as_seen=text,
                             date_as_seen=date, source=source, lang=lang, place=place)
              for doc_id, origin, oracle_id, position, text, date, source, lang, place in con.execute(
                  "SELECT doc_id, origin, oracle_id, position, text_as_seen, date_as_seen, source, lang, place "
                  "FROM pulled_sighting").fetchall()]
    con.execute("DROP TABLE pulled_sighting")
    return _reconciled(pulled + pages)


def _reconciled(sightings: list[RulingSighting]):
    """``reconcile`` of the sightings; a translation whose English copy is not among them is left
    out of the tables, and a warning says so."""
    rec = reconcile(sightings)
    if rec.unmatched_translations:
        first = rec.unmatched_translations[0]
        log.warning("%d translation(s) left out: the English copy each translates is not in the run (first: %s, "
                    "%s copy in %s)", len(rec.unmatched_translations), first.doc_id, first.lang, first.origin)
    return rec


def _append_reconciled(con, rec) -> None:
    """What ``_reconcile_with_pages`` gave, added to the SQL reconciliation's tables."""
    for table, rows in (("n_ruling", [r.__dict__ for r in rec.rulings]),
                        ("n_card_ruling", [c.__dict__ for c in rec.card_rulings]),
                        ("n_ruling_sighting", [_sighting_row(s) for s in rec.sightings]),
                        ("n_ruling_translation", [t.__dict__ for t in rec.translations])):
        insert_rows(con, table, rows)


def _previous_bulk(runs: list[RunInfo], query: str) -> tuple[str, str] | None:
    """The card file and the rulings file (sha256) of the view the warehouse holds before the
    last of ``runs`` is loaded, when that is the same query's bulk view and no other view (an
    ingested edition of the rules aside)."""
    views = current_runs(sorted(runs, key=lambda r: r.run_id)[:-1])
    if {key for key in views if key[1] != RULES_ORIGIN} != {(query, api.ORIGIN)}:
        return None
    entries = [e for e in read_manifest(views[(query, api.ORIGIN)]) if _usable(e)]
    kinds = [e.kind for e in entries]
    if set(kinds) - {"bulk-cards", "bulk-rulings", "set", "sets"} or kinds.count("bulk-cards") != 1 \
            or kinds.count("bulk-rulings") != 1:
        return None
    sha = {e.kind: e.sha256 for e in entries}
    return sha["bulk-cards"], sha["bulk-rulings"]


def _ingests_rules(runs: list[RunInfo]) -> bool:
    """Whether the run being loaded (the newest of ``runs``) ingests an edition of the rules."""
    return RULES_ORIGIN in run_origins(max(runs, key=lambda r: r.run_id))


def _refusals(con, docs: list[duck.Doc], order: list[str]) -> int:
    """The count of refusals; a run with too many refused records fails (exit 65)."""
    counts = duck.refusals(con, docs)
    total = 0
    for run_id in order:
        got = counts.get(run_id)
        if got is None:
            continue
        total += got.refused
        _check_refused_share(run_id, got.refused, got.objects, got.examples)
    return total


def _check_refused_share(run_id: str, refused: int, objects: int, examples: list[str]) -> None:
    """Fail (exit 65) a run with more than MAX_SKIPPED_SHARE of its records refused, naming the first."""
    if objects and refused / objects > MAX_SKIPPED_SHARE:
        raise SourceDataError(f"run {run_id}: {refused} of {objects} Scryfall records are unreadable "
                              f"(more than {MAX_SKIPPED_SHARE:.0%}); nothing loaded. First: {examples[0]}")


def _frame(rows: list[dict]) -> Rows:
    if not rows:
        return []
    import pandas as pd

    return pd.DataFrame(rows)


def _set_row(s: CardSet) -> dict:
    return dict(s.__dict__)


def _card_row(c: Card) -> dict:
    row = dict(c.__dict__)
    row["colors"] = list(c.colors) if c.colors is not None else None
    row["color_identity"] = list(c.color_identity)
    return row


def _printing_row(p: Printing) -> dict:
    return dict(p.__dict__)


def sighting_id_for(place: str, oracle_id: str | None, position: int, lang: str) -> str:
    """``place``: the document's id, or for a bulk rulings file, ``bulk_rulings_place``."""
    raw = "\x1f".join([place, oracle_id or "", str(position), lang]).encode("utf-8")
    return "s" + hashlib.sha256(raw).hexdigest()[:15]


def bulk_rulings_place(run: RunInfo) -> str:
    """The place of a bulk rulings file's sightings: Scryfall's rulings file as read for this
    view's query. Tomorrow's file is the same place, so an unchanged ruling keeps its sighting id
    (one view per query and origin: the place is unique among the current views)."""
    return "bulk-rulings\x1f" + (run.meta.get("query") or "")


def _sighting_row(s) -> dict:
    row = dict(s.__dict__)
    row["sighting_id"] = sighting_id_for(row.pop("place") or s.doc_id, s.oracle_id, s.position, s.lang)
    row["flags"] = list(s.flags)
    return row


def document_rows(run: RunInfo) -> list[dict]:
    """raw_document rows for every response of a run (quarantined ones included)."""
    return [_document_row(run, e) for e in read_manifest(run, include_quarantined=True)]


def _document_row(run: RunInfo, e: DocEntry) -> dict:
    return {"doc_id": e.doc_id, "run_id": run.run_id, "origin": e.origin, "kind": e.kind, "url": e.url,
            "fetched_at": e.fetched_at, "http_status": e.status,
            "content_type": e.headers.get("content-type"), "path": f"{run.run_id}/{e.path}",
            "bytes": e.bytes, "sha256": e.sha256}


def run_row(run: RunInfo) -> dict:
    meta, done = run.meta, run.success or {}
    return {"run_id": run.run_id, "started_at": meta.get("started_at"), "finished_at": done.get("finished_at"),
            "status": None, "mode": meta.get("mode", "live"), "query": meta.get("query"),
            "sources": ",".join(meta.get("sources") or ["api"]), "replay_of": meta.get("replay_of"),
            "requests": done.get("requests"), "bytes": done.get("bytes"), "documents": done.get("documents")}


__all__ = ["ParseError", "State", "build_state", "build_state_sql", "current_runs", "document_rows", "run_row"]
