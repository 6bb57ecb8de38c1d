"""Runs the warehouse was loaded from that data/raw/ no longer holds.

Every load builds the warehouse's state from the complete runs of data/raw/ (``build.py``): for
each (query, origin) the newest complete run, and every ingested edition of the rules. A run the
warehouse's content came from that is gone from data/raw/ (its folder deleted by hand, a raw store
not restored beside its warehouse, a warehouse copied to another data folder) would have its
content removed by the next load, as if the sources had dropped it. ``lost_runs`` names such runs
from the warehouse's ``sync_run`` and ``cr_edition`` rows and a listing of data/raw/ (no raw file
is read; the manifests of ingests only when one waits to load or an edition's file is gone). A
load refuses while there is any (exit 78: the data folder's two halves do not match), ``doctor``
fails on it, and ``rebuild``, which makes the warehouse from data/raw/ alone, is how the loss is
accepted.

A run is needed when it is

* for some (query, origin), the newest run the warehouse loaded: unless the first run the next
  load brings in (the oldest complete run not loaded yet) is a newer run of that query and origin,
  which then replaces it;
* an ingest of the rules that holds the file of an edition the warehouse holds (the run whose
  copy ``raw_document`` names: the first run that fetched it; when that run is gone, the oldest
  ingest the next load builds from that holds the same bytes, if any), or that came after such a
  run (it may have ingested that edition again). An ingest older than the file of every edition
  held was replaced. An edition is brought back, and needs none of these, when the first run the
  next load brings in is an ingest of a file with the very bytes of that edition's file (its
  manifest's sha256): the newest ingest of an edition is the one loaded, and the same bytes make
  the same rules, glossary and links.

Every load points a ``raw_document`` row whose file is in a run folder that is gone at the oldest
copy of the same document that the complete runs up to it hold (``lost_document_copies``): the
copy a rebuild names.

It is there when data/raw/ holds it as a complete run: a run rejected, failed, aborted, never
finished or whose run.json cannot be read is never loaded, and counts as not there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from .build import RULES_ORIGIN, SOURCE_ORIGINS, run_origins
from .errors import SourceDataError
from .rawstore import RunInfo, read_manifest
from .resources import read_sql

SHOWN = 3  # runs named in a message; the rest are counted


@dataclass(frozen=True)
class Loaded:
    """What the warehouse says it was loaded from."""

    runs: list[tuple[str, str | None, str | None]]  # sync_run: run_id, query, sources ("api,wiki")
    # effective date, the run whose copy of its file raw_document names, the file's sha256
    editions: list[tuple[str, str | None, str | None]] = field(default_factory=list)


@dataclass(frozen=True)
class LostRun:
    run_id: str
    state: str  # "missing" (no folder), or its status in data/raw/: rejected, failed, aborted, incomplete, damaged
    held: tuple[str, ...]  # what the warehouse holds from it: 'query t:case (scryfall-api)', 'rules edition …'

    def describe(self) -> str:
        return f"{self.run_id} ({self.state}; {', '.join(self.held)})"


def read_loaded(con: duckdb.DuckDBPyConnection) -> Loaded:
    """The warehouse's loaded runs and editions (a warehouse of an older version may lack cr_edition)."""
    runs = [tuple(row) for row in con.execute(read_sql("read/loaded_sources.sql")).fetchall()]
    editions = []
    if con.execute(read_sql("read/has_table.sql"), {"name": "cr_edition"}).fetchone()[0]:
        editions = [tuple(row) for row in con.execute(read_sql("read/edition_first_runs.sql")).fetchall()]
    return Loaded(runs, editions)


def _origins(sources: str | None) -> list[str]:
    names = [s for s in (sources or "").split(",") if s] or ["api"]
    return [SOURCE_ORIGINS[s] for s in names if s in SOURCE_ORIGINS]


def lost_runs(loaded: Loaded, runs: list[RunInfo]) -> list[LostRun]:
    """The runs the warehouse's content came from that ``runs`` (data/raw/'s listing) lacks as
    complete runs, oldest first."""
    listed = {run.run_id: run for run in runs}
    loaded_ids = {run_id for run_id, _, _ in loaded.runs}
    pending = sorted((r for r in runs if r.complete and r.run_id not in loaded_ids), key=lambda r: r.run_id)
    first = pending[0] if pending else None
    brings = {(first.meta.get("query") or "", origin) for origin in run_origins(first)} if first else set()
    bodies = _rules_bodies(first) if first is not None and RULES_ORIGIN in run_origins(first) else set()

    def there(run_id: str) -> bool:
        run = listed.get(run_id)
        return run is not None and run.complete

    newest: dict[tuple[str, str], str] = {}
    ingests = []
    for run_id, query, sources in sorted(loaded.runs):
        for origin in _origins(sources):
            if origin == RULES_ORIGIN:
                ingests.append(run_id)
            else:
                newest[(query or "", origin)] = run_id
    views: dict[str, dict[str, list[str]]] = {}  # run -> query -> origins
    for (query, origin), run_id in sorted(newest.items()):
        if there(run_id) or (first is not None and first.run_id > run_id and (query, origin) in brings):
            continue
        views.setdefault(run_id, {}).setdefault(query, []).append(origin)
    held: dict[str, list[str]] = {run_id: [f"query {query or '(none)'} ({', '.join(origins)})"
                                           for query, origins in by_query.items()]
                                  for run_id, by_query in views.items()}
    # the editions the first run to load does not bring back: their ingests are needed. An
    # edition whose file's run is gone is held by the oldest ingest the load builds from that holds
    # the same bytes, when there is one (the copy the load then points raw_document at)
    copies = _rules_copies([r for r in runs if r.complete and (first is None or r.run_id < first.run_id)]) \
        if any(not there(first_run or "") for _, first_run, _ in loaded.editions) else {}
    staying = [(date, first_run if there(first_run or "") else copies.get(sha256, first_run))
               for date, first_run, sha256 in loaded.editions if sha256 is None or sha256 not in bodies]
    edition_of = {first_run: date for date, first_run in staying if first_run is not None}
    oldest_file = min((first_run or "" for _, first_run in staying), default=None)
    for run_id in ingests:
        if there(run_id):
            continue
        if run_id in edition_of:
            held.setdefault(run_id, []).append(f"rules edition {edition_of[run_id]}")
        elif oldest_file is not None and run_id > oldest_file:
            held.setdefault(run_id, []).append("an ingest of the rules")
    return [LostRun(run_id, "missing" if run_id not in listed else listed[run_id].status, tuple(what))
            for run_id, what in sorted(held.items())]


def lost_document_copies(con: duckdb.DuckDBPyConnection, runs: list[RunInfo], loading: str) -> list[dict]:
    """For each raw_document row that names a file of a run folder that ``runs`` (the complete runs
    of data/raw/) lacks, deleted by hand, the file ({doc_id, path}) of the same document (URL and
    bytes) in the oldest of them up to the run ``loading`` that holds it: the copy a rebuild names,
    as its load of that run is the first to see the document. The manifests are read only while
    such a row exists, oldest run first, until each row has its copy (a manifest that cannot be
    read is passed over); a document that only runs now gone held keeps naming its file."""
    lost = dict(con.execute(read_sql("read/lost_documents.sql"),
                            {"kept_runs": [run.run_id for run in runs]}).fetchall())
    origins = set(lost.values())
    copies: dict[str, dict] = {}
    for run in sorted((r for r in runs if r.run_id <= loading), key=lambda r: r.run_id):
        if len(copies) == len(lost):
            break
        if not origins.intersection(run_origins(run)):
            continue
        try:
            entries = read_manifest(run, include_quarantined=True)
        except (OSError, SourceDataError):
            continue
        for entry in entries:
            if entry.doc_id in lost and entry.doc_id not in copies:
                copies[entry.doc_id] = {"doc_id": entry.doc_id, "path": f"{run.run_id}/{entry.path}"}
    return list(copies.values())


def _rules_copies(runs: list[RunInfo]) -> dict[str, str]:
    """For the sha256 of each Comprehensive Rules file these complete runs hold, the oldest
    ingest that holds it."""
    oldest: dict[str, str] = {}
    for run in sorted(runs, key=lambda r: r.run_id, reverse=True):
        if RULES_ORIGIN in run_origins(run):
            oldest.update((sha256, run.run_id) for sha256 in _rules_bodies(run))
    return oldest


def _rules_bodies(run: RunInfo) -> set[str]:
    """The sha256 of the Comprehensive Rules files an ingest holds (none when its manifest
    cannot be read: the load would fail on it)."""
    try:
        return {e.sha256 for e in read_manifest(run) if e.origin == RULES_ORIGIN and e.status == 200 and e.sha256}
    except (OSError, SourceDataError):
        return set()


def advice(lost: list[LostRun], raw_dir, empty: bool = False, reingest: bool = False) -> str:
    """One line: which runs, and the ways out. ``empty``: data/raw/ holds no complete run, so a
    rebuild needs ``--allow-empty`` (it refuses to empty a warehouse unless told to).
    ``reingest``: no run waits to be loaded, so an ingest of a lost edition's very file would be
    the next load's first run, and bring the edition back: said when a rules edition is lost."""
    named = "; ".join(run.describe() for run in lost[:SHOWN])
    more = f"; and {len(lost) - SHOWN} more" if len(lost) > SHOWN else ""
    rebuild = (f"`casefile rebuild --allow-empty` to replace the warehouse with an empty one ({raw_dir} holds no "
               "complete run), dropping all it holds" if empty else
               f"`casefile rebuild` to make the warehouse from what {raw_dir} holds, dropping what the missing "
               "runs held")
    again = (" (a rules edition also comes back with a `casefile rules ingest` of the same file, byte for "
             "byte, as the next run)" if reingest and any(h.startswith("rules edition") for run in lost
                                                           for h in run.held) else "")
    return (f"the warehouse was loaded from {len(lost)} run(s) that {raw_dir} does not hold as complete runs: "
            f"{named}{more}. A load now would remove what they hold. Restore {raw_dir}/<run_id> (from a backup "
            f"or the cache it came from){again}, or run {rebuild}")


__all__ = ["Loaded", "LostRun", "advice", "lost_document_copies", "lost_runs", "read_loaded"]
