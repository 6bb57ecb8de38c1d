"""``casefile prune``: delete the runs of the raw store that the warehouse no longer needs.

The warehouse is built from the current view of each (query, origin) and from every ingested
edition of the rules (``build.py``); until the next sync loads a complete run it has not loaded
yet, from the current views among the runs it loaded. A run that later runs superseded for everything it fetched
is history only: ``rebuild`` replays it for the change events, and each such run costs a rebuild
one more build and the disk its files (a daily bulk sync adds hundreds of MB a day). A prune
deletes the runs older than ``keep_days`` except the current views and the rules ingests.
Failed, rejected and unfinished runs older than ``keep_days`` go too (the sync lock is held: no
sync is writing one).

A document fetched again with the same bytes (a 304 links the earlier file into the new run) is
one ``raw_document`` row, whose ``path`` names the first run's file. Before deleting that run,
the prune points such rows at the oldest kept copy (``load/warehouse.py``). A bulk view's
sighting names the rulings file it was first read from as it is now; when no kept run holds that
file, the sighting is pointed at the rulings file of the oldest kept run of its query, the one a
rebuild from the kept runs reads it from first. So the documents the warehouse's rows come from
can still be opened. The rest of the warehouse's rows are left as they are; its file is copied
into a new one when much of it is blocks DuckDB freed and keeps (``load/warehouse.py``
``compact``), after runs were deleted: repointed sightings leave the blocks they were in.

``plan`` decides, with no side effect; ``prune`` takes the lock, plans, repoints and deletes
through ``RawStore.delete_run``, which a crash cannot leave half done.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb

from . import stop
from .clock import parse_utc_iso
from .build import RULES_ORIGIN, bulk_rulings_place, current_runs, run_origins
from .config import Settings
from .errors import NoWarehouse, SourceDataError, TryAgainLater
from .load.warehouse import compact, open_writer, repoint_documents
from .lock import SyncLock
from .rawstore import RUN_ID_FORMAT, DocEntry, RawStore, RunInfo, document_problem, inode_usage, read_manifest
from .reader import loaded_runs, open_reader

log = logging.getLogger(__name__)

STOPPED = ("stopped by SIGTERM; the runs not deleted yet are kept, and a run folder left half deleted "
           "is removed by the next prune")

CURRENT = "current view"
RULES = "rules edition"
RECENT = "recent"
DAMAGED = "damaged: repair its run.json or remove it by hand"


@dataclass(frozen=True)
class Decision:
    run: RunInfo
    keep: bool
    reason: str  # why it stays (DAMAGED, RULES, CURRENT, RECENT) or goes ("superseded", or its status)


@dataclass
class Plan:
    decisions: list[Decision]
    # documents to point at a kept copy if their raw_document row names a deleted run: {"doc_id", "path"}
    moves: list[dict]
    # sightings of a bulk view (its place) that name a deleted rulings file, to the kept one:
    # {"doc_id", "to_doc_id", "place"}
    sighting_moves: list[dict] = field(default_factory=list)
    # the manifest of each complete run, by run id, as the plan read them
    manifests: dict[str, list[DocEntry]] = field(default_factory=dict)

    @property
    def doomed(self) -> list[RunInfo]:
        return [d.run for d in self.decisions if not d.keep]


@dataclass
class PruneResult:
    plan: Plan
    bytes_freed: int
    dry_run: bool
    leftovers: int = 0  # folders an interrupted prune had started to delete, removed now
    repointed: int = 0  # raw_document rows now naming a kept copy
    sightings_repointed: int = 0  # ruling_sighting rows now naming a kept rulings file
    compacted: tuple[int, int] | None = None  # the warehouse file's bytes before and after, when compacted

    def kept_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for d in self.plan.decisions:
            if d.keep:
                counts[d.reason] = counts.get(d.reason, 0) + 1
        return counts

    def summary(self) -> dict:
        return {"event": "prune", "dry_run": self.dry_run,
                ("would_delete" if self.dry_run else "deleted"): [r.run_id for r in self.plan.doomed],
                "kept": self.kept_by_reason(), "bytes_freed": self.bytes_freed,
                "documents_repointed": self.repointed, "sightings_repointed": self.sightings_repointed,
                "leftovers_removed": self.leftovers,
                "warehouse_compacted": None if self.compacted is None
                else {"bytes_before": self.compacted[0], "bytes_after": self.compacted[1]}}


def run_time(run: RunInfo) -> datetime:
    """When the run started: the earlier of its id (a UTC timestamp) and its run.json's
    ``started_at`` (the clock when it started). After a clock that ran ahead, every run takes the id
    just after the newest one, in the future, until the clock catches up; by its id alone each of
    them would look younger than a day for as long, and no prune would delete any."""
    by_id = datetime.strptime(run.run_id, RUN_ID_FORMAT).replace(tzinfo=timezone.utc)
    started = parse_utc_iso(run.meta.get("started_at")) if isinstance(run.meta, dict) else None
    return min(by_id, started) if started is not None else by_id


def plan(runs: list[RunInfo], now: datetime, keep_days: int, loaded: set[str] | None = None) -> Plan:
    """What a prune keeps and deletes, oldest run first, and the document rows it repoints.
    ``loaded``: the runs the warehouse has loaded. The current views among them stay too: the
    warehouse is built from them until the next sync loads a newer complete run. Reads the
    manifests of the complete runs; changes nothing."""
    if keep_days < 0:
        raise ValueError("keep_days must be 0 or more")
    cutoff = now - timedelta(days=keep_days)
    runs = sorted(runs, key=lambda r: r.run_id)
    current = {run.run_id for run in current_runs(runs).values()}
    if loaded is not None:
        current |= {run.run_id for run in current_runs([r for r in runs if r.run_id in loaded]).values()}
    decisions = []
    for run in runs:
        if run.damaged is not None:  # what it holds is unknown: only a person can decide
            decisions.append(Decision(run, True, DAMAGED))
        elif run.complete and RULES_ORIGIN in run_origins(run):
            decisions.append(Decision(run, True, RULES))
        elif run.run_id in current:
            decisions.append(Decision(run, True, CURRENT))
        elif run_time(run) >= cutoff:  # started exactly keep_days ago: not older, it stays
            decisions.append(Decision(run, True, RECENT))
        else:
            decisions.append(Decision(run, False, "superseded" if run.complete else run.status))
    manifests = {d.run.run_id: read_manifest(d.run, include_quarantined=True) for d in decisions if d.run.complete}
    moves = _moves(decisions, manifests)
    return Plan(decisions, moves, _sighting_moves(decisions, manifests), manifests)


def _moves(decisions: list[Decision], manifests: dict[str, list[DocEntry]]) -> list[dict]:
    """Each document that a deleted run and a kept run both hold, to the oldest kept copy. Its
    raw_document row may name the deleted run's file (it names the first run that held it, or the
    copy an earlier prune chose); ``repoint_documents`` moves it only then."""
    doomed_docs: set[str] = set()
    for d in decisions:
        if not d.keep and d.run.complete:
            doomed_docs.update(e.doc_id for e in manifests[d.run.run_id])
    moves: dict[str, dict] = {}
    for d in decisions:  # oldest first
        if d.keep and d.run.complete:
            for entry in manifests[d.run.run_id]:
                if entry.doc_id in doomed_docs and entry.doc_id not in moves:
                    moves[entry.doc_id] = {"doc_id": entry.doc_id, "path": f"{d.run.run_id}/{entry.path}"}
    return list(moves.values())


def _sighting_moves(decisions: list[Decision], manifests: dict[str, list[DocEntry]]) -> list[dict]:
    """Each bulk rulings file of a deleted run that no kept run of its query holds, to the rulings
    file of the oldest kept run of the same query after it, for the sightings of that query's view
    (``place``: build.bulk_rulings_place). A bulk view's sighting names the file it was first read
    from as it is now ("How it works"), which may be a deleted run's; a rebuild from the kept runs
    reads it first from that kept run's file. The same file kept by a run of another query (two
    bulk queries synced the same day read one file) stays named by that query's sightings."""
    def rulings_files(run: RunInfo) -> list[str]:
        return [e.doc_id for e in manifests[run.run_id] if e.kind == "bulk-rulings" and not e.quarantined]

    kept = [(d.run, rulings_files(d.run)) for d in decisions if d.keep and d.run.complete]
    moves: dict[tuple[str, str], dict] = {}
    for d in decisions:  # oldest first, as ``kept`` is
        if d.keep or not d.run.complete:
            continue
        query = d.run.meta.get("query") or ""
        same_query = [(run, files) for run, files in kept if (run.meta.get("query") or "") == query]
        held = {doc_id for _, files in same_query for doc_id in files}
        after = next((files[0] for run, files in same_query if files and run.run_id > d.run.run_id), None)
        for doc_id in rulings_files(d.run):
            if after is not None and doc_id not in held:
                moves.setdefault((doc_id, query), {"doc_id": doc_id, "to_doc_id": after,
                                                   "place": bulk_rulings_place(d.run)})
    return list(moves.values())


def _refuse_to_delete_the_only_intact_copy(decided: Plan) -> None:
    """A document a deleted run and a kept run both hold is pointed at the kept copy (``moves``).
    When that copy is no longer the body fetched (changed or rotted since) while a deleted run's
    is, deleting the runs would leave no good copy: SourceDataError (65), nothing deleted. Only
    those copies are hashed, and none that is one file with the kept copy (a 304's link)."""
    runs = {d.run.run_id: d.run for d in decided.decisions if d.run.complete}
    doomed: dict[str, list[tuple[RunInfo, DocEntry]]] = {}
    for run in decided.doomed:
        for entry in decided.manifests.get(run.run_id, ()):
            doomed.setdefault(entry.doc_id, []).append((run, entry))
    for move in decided.moves:
        run_id, _, path = move["path"].partition("/")
        kept_run = runs.get(run_id)
        kept = next((e for e in decided.manifests.get(run_id, ()) if e.path == path), None)
        if kept_run is None or kept is None or move["doc_id"] not in doomed:
            continue
        others = [(run, entry) for run, entry in doomed[move["doc_id"]]
                  if not _same_file(kept_run.path / kept.path, run.path / entry.path)]
        if not others:
            continue
        problem = document_problem(kept_run, kept)
        if problem is None:
            continue
        intact = next(((run, entry) for run, entry in others if document_problem(run, entry) is None), None)
        if intact is not None:
            run, entry = intact
            raise SourceDataError(
                f"prune deleted nothing: {problem}, and run {run.run_id}, which it would delete, holds the "
                f"same document intact ({run.run_id}/{entry.path}); copy it over the changed file, then prune "
                "again (`casefile doctor` lists every changed file)")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them missing: document_problem says which
        return False


def bytes_freed(doomed: list[Path]) -> int:
    """The bytes that deleting these folders gives back: a file counts when every one of its hard
    links is among them (a body a 304 linked into a kept run stays on disk)."""
    return sum(size for seen, links, size in inode_usage(doomed).values() if seen >= links)


def prune(settings: Settings, keep_days: int, dry_run: bool = False, now: datetime | None = None) -> PruneResult:
    """Plan, then (unless ``dry_run``) repoint the warehouse's document rows and delete, holding
    the sync lock. The warehouse is changed first: its rows name files that exist before the
    deletion and after it. SIGTERM stops it (exit 75) wherever it is: a deletion cut short is
    finished by the next prune."""
    store = RawStore(settings.raw_dir)
    with stop.signals_stop(STOPPED), SyncLock(settings.lock_path):
        leftovers = 0 if dry_run else store.finish_deletions()
        loaded = None  # no warehouse yet (a file without its tables is none either)
        if settings.warehouse_path.exists():
            try:
                con = open_reader(settings.warehouse_path, settings.reader_wait_s)
            except NoWarehouse:
                con = None
            if con is not None:
                try:
                    loaded = loaded_runs(con)
                finally:
                    con.close()
        decided = plan(store.runs(), now or datetime.now(timezone.utc), keep_days, loaded)
        _refuse_to_delete_the_only_intact_copy(decided)
        result = PruneResult(decided, bytes_freed([r.path for r in decided.doomed]), dry_run, leftovers)
        if dry_run or not decided.doomed:
            return result
        if (decided.moves or decided.sighting_moves) and loaded is not None:
            con = open_writer(settings.warehouse_path, wait_s=settings.reader_wait_s)
            try:
                result.repointed, result.sightings_repointed = repoint_documents(
                    con, decided.moves, [r.run_id for r in decided.doomed], decided.sighting_moves)
            finally:
                con.close()
        for run in decided.doomed:
            store.delete_run(run)
            log.info("deleted run %s (%s, query %r)", run.run_id, run.status, run.meta.get("query"))
        if loaded is not None:  # the blocks DuckDB freed and keeps, given back (README, "prune")
            result.compacted = _compact(settings)
        return result


def _compact(settings: Settings) -> tuple[int, int] | None:
    """``compact`` the warehouse; where the copy cannot be made (a full disk, a reader that holds
    the file for longer than the wait), a warning and None: the runs are deleted by then, and the
    warehouse is whole as it was, its free blocks left for the next prune."""
    try:
        return compact(settings.warehouse_path, settings.compact_files[0], wait_s=settings.reader_wait_s)
    except (OSError, duckdb.Error, TryAgainLater) as exc:
        stop.check()  # a stop that interrupted the copy is the stop, not a copy that failed
        said = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        log.warning("the warehouse was not compacted (%s); it stays as it was, and the next prune that "
                    "deletes runs tries again", said)
        return None


__all__ = ["Decision", "Plan", "PruneResult", "plan", "prune", "bytes_freed", "run_time"]
