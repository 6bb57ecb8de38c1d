"""A sync, start to end: lock, extract to a new raw run, mark it complete, load it.

This module wires the stages together and owns no logic of its own stage: network stays in
``extract/``, records in ``normalize/`` and ``reconcile``, writes in ``load/``. ``rebuild``
replays every complete run through the same build and load steps.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .build import build_state, build_state_sql, current_runs, document_rows, run_row
from .normalize.duck import SqlPathUnavailable
from .config import DEFAULT_QUERY, Settings
from .errors import EXIT_UNAVAILABLE, EXIT_USAGE, CasefileError, SourceDataError, UsageError
from .extract.replay import ReplayTransport
from .extract import bulk as bulk_plans
from .extract.bulk import BulkExtractor
from .extract.scryfall import ScryfallExtractor, scryfall_error, search_url
from .http import JSON_ACCEPT, HttpClient, json_body_check, utc_now_iso
from .normalize import query as query_filter
from .load.warehouse import load_run, open_writer, replace_file
from .lock import SyncLock
from .rawstore import RawStore, RunInfo, mark_rejected, read_run
from .resources import sample_dir

log = logging.getLogger(__name__)

ALL_SOURCES = ("api", "wiki", "listeblanche", "scryfall-page")
LIVE_DEFAULT_SOURCES = ("api",)


@dataclass
class LoadResult:
    run_id: str
    status: str
    inserted: int = 0
    updated: int = 0
    removed: int = 0
    tables: dict = field(default_factory=dict)


@dataclass
class SyncResult:
    run_id: str
    mode: str
    query: str
    sources: list[str]
    requests: int
    bytes: int
    documents: int
    duration_s: float
    load: LoadResult
    counts: dict[str, int]
    replay_of: str | None = None
    skipped_records: int = 0

    def summary(self) -> dict:
        return {"event": "summary", "run_id": self.run_id, "mode": self.mode, "query": self.query,
                "sources": self.sources, "outcome": self.load.status, "requests": self.requests,
                "bytes": self.bytes, "documents": self.documents, "inserted": self.load.inserted,
                "updated": self.load.updated, "removed": self.load.removed,
                "duration_s": round(self.duration_s, 3), "replay_of": self.replay_of,
                "skipped_records": self.skipped_records, "rows": self.counts}


def resolve_offline_source(value: str) -> RunInfo:
    """``--offline`` alone means the bundled sample; with a value, a recorded run folder."""
    path = Path(value) if value else sample_dir()
    if not path.is_dir():
        raise UsageError(f"--offline: {path} is not a folder")
    run = read_run(path)
    if run.success is None:
        raise UsageError(f"--offline: {path} is not a complete run (no _SUCCESS); it cannot be replayed")
    return run


BULK_MODES = ("auto", "always", "never")


def sync(settings: Settings, *, query: str | None = None, offline: str | None = None,
         sources: list[str] | None = None, include_multilingual: bool | None = None,
         progress=None, bulk: str = "auto") -> SyncResult:
    started = time.monotonic()
    store = RawStore(settings.raw_dir)
    with SyncLock(settings.lock_path):
        if offline is not None:
            source_run = resolve_offline_source(offline)
            transport = ReplayTransport(source_run)
            mode = "offline"
            recorded = source_run.meta
            query = query or recorded.get("query") or DEFAULT_QUERY
            if include_multilingual is None:
                include_multilingual = bool(recorded.get("include_multilingual"))
            sources = sources or [s for s in recorded.get("sources", ["api"]) if s in ALL_SOURCES]
            replay_of = "sample" if not offline else str(source_run.path)
            bulk = "always" if recorded.get("plan") == "bulk" else "never"
            if recorded.get("api_url"):
                settings = settings.with_overrides(api_url=recorded["api_url"])
        else:
            transport = HttpClient(settings)
            mode = "live"
            query = query or DEFAULT_QUERY
            include_multilingual = bool(include_multilingual)
            sources = sources or list(LIVE_DEFAULT_SOURCES)
            replay_of = None
        if "api" not in sources:
            raise UsageError("--sources must include api: the web pages are matched to the cards it brings")
        if bulk == "always":
            query_filter.parse(query)  # a query the local filter cannot evaluate is refused up front
        meta = {"mode": mode, "query": query, "include_multilingual": include_multilingual,
                "sources": sources, "api_url": settings.api_url, "casefile_version": __version__,
                "replay_of": replay_of, "plan": "bulk" if bulk == "always" else "api"}
        writer = store.new_run(meta)
        log.info("run %s: %s sync of %s (sources: %s)", writer.run_id, mode, query, ",".join(sources))
        try:
            api = ScryfallExtractor(transport, writer, settings, progress=progress)
            chosen, first, index = _choose_plan(settings, api, transport, writer, store, query,
                                                include_multilingual, bulk, progress)
            if chosen == "bulk":
                BulkExtractor(transport, writer, settings, store, progress=progress).run(
                    query, include_multilingual, index=index)
            else:
                api.run(query, include_multilingual, first=first)
            if chosen != meta["plan"]:
                writer.update_meta({"plan": chosen})
            traffic = _traffic(transport)
            writer.finish(traffic)
        except BaseException as exc:
            status = "aborted" if isinstance(exc, (KeyboardInterrupt, SystemExit)) else "failed"
            writer.fail(f"{exc.__class__.__name__}: {exc}", status=status)
            raise
        finally:
            if isinstance(transport, HttpClient):
                transport.close()
        run = read_run(writer.path)
        results = load_pending(settings, store)
        load = next((r for r in results if r.run_id == run.run_id), None)
        if load is None:
            raise CasefileError(f"run {run.run_id} was not loaded")
        counts = table_counts_from(load)
        return SyncResult(run_id=run.run_id, mode=mode, query=query, sources=sources,
                          requests=traffic["requests"], bytes=traffic["bytes"], documents=len(writer.entries),
                          duration_s=time.monotonic() - started, load=load, counts=counts, replay_of=replay_of,
                          skipped_records=load.tables.get("_skipped", 0))


def _choose_plan(settings, api, transport, writer, store, query, include_multilingual, bulk, progress):
    """Which plan a live sync takes (see ``plan``); returns (plan, first search page, bulk index)."""
    if bulk == "always":
        return "bulk", None, None
    if bulk == "never":
        return "api", None, None
    try:
        query_filter.parse(query)
    except UsageError:
        return "api", None, None  # the local filter cannot evaluate it: only the API can
    first = api.first_page(query, include_multilingual)
    if first.status != 200:
        return "api", first, None  # the API extract reports Scryfall's error
    by_api = bulk_plans.api_plan(settings, json.loads(first.body))
    if by_api.requests < bulk_plans.AUTO_API_BELOW:
        return "api", first, None
    index = BulkExtractor(transport, writer, settings, store, progress=progress).index()
    chosen = bulk_plans.choose(by_api, bulk_plans.bulk_plan(settings, index, include_multilingual))
    if chosen.name == "bulk":
        writer.save(first, "scryfall-api", "plan-probe")
        return "bulk", None, index
    return "api", first, None


def plan(settings: Settings, *, query: str | None = None, include_multilingual: bool = False,
         bulk: str = "auto") -> dict:
    """What a sync would request, without syncing. Fetches only: the first search page (unless
    ``bulk`` is always) and the ``/bulk-data`` index (with ``always``, or with ``auto`` when the
    API plan needs AUTO_API_BELOW requests or more). Writes nothing."""
    query = query or DEFAULT_QUERY
    client = HttpClient(settings)
    fetched: list[str] = []
    by_api = by_bulk = None
    try:
        local = True
        try:
            query_filter.parse(query)
        except UsageError as exc:
            local = False
            if bulk == "always":
                raise
            reason = str(exc)
        if bulk != "always":
            url = search_url(settings.api_url, query, include_multilingual)
            pacing = [("api", settings.api_interval_s), ("api:search", settings.search_interval_s)]
            response = client.get(url, pacing=pacing, accept=JSON_ACCEPT, check_body=json_body_check)
            fetched.append(url)
            if response.status != 200:
                raise scryfall_error(url, response.status, response.body, EXIT_USAGE)
            by_api = bulk_plans.api_plan(settings, json.loads(response.body))
        if local and (bulk == "always" or (bulk == "auto" and by_api.requests >= bulk_plans.AUTO_API_BELOW)):
            url = f"{settings.api_url}/bulk-data"
            response = client.get(url, pacing=[("api", settings.api_interval_s)], accept=JSON_ACCEPT,
                                  check_body=json_body_check)
            fetched.append(url)
            if response.status != 200:
                raise scryfall_error(url, response.status, response.body, EXIT_UNAVAILABLE)
            by_bulk = bulk_plans.bulk_plan(settings, bulk_plans.read_index(response.body, url), include_multilingual)
    finally:
        client.close()
    chosen = by_bulk if bulk == "always" else by_api if bulk == "never" or by_bulk is None else \
        bulk_plans.choose(by_api, by_bulk)
    notes = []
    if not local and bulk == "auto":
        notes.append(f"bulk plan not possible: {reason}")
    elif bulk == "auto" and by_bulk is None:
        notes.append(f"API plan under {bulk_plans.AUTO_API_BELOW} requests: taken without asking for the bulk index")
    return {"query": query, "bulk": bulk, "chosen": chosen.name, "fetched": fetched, "notes": notes,
            "plans": {p.name: {"requests": p.requests, "bytes": p.bytes, "pacing_s": round(p.pacing_s, 3),
                               "exact": p.exact, "detail": p.detail} for p in (by_api, by_bulk) if p is not None}}


def _traffic(transport) -> dict:
    if isinstance(transport, HttpClient):
        return {"requests": transport.traffic.requests, "bytes": transport.traffic.bytes,
                "retries": transport.traffic.retries}
    return {"requests": transport.requests, "bytes": transport.bytes, "retries": 0}


def table_counts_from(load: LoadResult) -> dict[str, int]:
    return dict(load.tables.get("_rows", {}))


def _loaded_run_ids(con) -> set[str]:
    return {r[0] for r in con.execute("SELECT run_id FROM sync_run").fetchall()}


def _build(con, store: RawStore, upto: list[RunInfo]):
    """The SQL build when it applies (every Scryfall document readable by DuckDB, no page
    sources), else the Python reference build; both give the same rows."""
    try:
        return build_state_sql(con, store, upto)
    except SqlPathUnavailable as exc:
        log.info("building in Python: %s", exc)
        return build_state(store, upto)


def _load_one(con, store: RawStore, runs: list[RunInfo], run: RunInfo) -> LoadResult:
    upto = [r for r in runs if r.run_id <= run.run_id]
    try:
        state = _build(con, store, upto)
    except SourceDataError as exc:
        mark_rejected(run, str(exc))
        raise
    counts = load_run(con, run_row(run, utc_now_iso()), state.tables, document_rows(run))
    summary = counts.pop("_run")
    rows = {name: int(con.execute(f"SELECT count(*) FROM {name}").fetchone()[0]) for name in state.tables}
    counts["_rows"] = rows
    counts["_skipped"] = state.skipped_count
    return LoadResult(run.run_id, summary["status"], summary["inserted"], summary["updated"], summary["removed"],
                      counts)


def load_pending(settings: Settings, store: RawStore) -> list[LoadResult]:
    """Load every complete run the warehouse has not recorded yet, oldest first."""
    runs = store.complete_runs()
    con = open_writer(settings.warehouse_path, memory_limit_mb=settings.memory_limit_mb)
    try:
        loaded = _loaded_run_ids(con)
        return [_load_one(con, store, runs, run) for run in runs if run.run_id not in loaded]
    finally:
        con.close()


def rebuild(settings: Settings) -> list[LoadResult]:
    """The warehouse from the raw store alone: every complete run replayed in order, no network.

    Built in a new file and renamed over the old one, so readers see the old warehouse or the
    new one, never a half-built one.
    """
    store = RawStore(settings.raw_dir)
    with SyncLock(settings.lock_path):
        target = settings.warehouse_path
        built = target.with_name(target.name + ".rebuild")
        for stale in (built, Path(str(built) + ".wal")):
            if stale.exists():
                stale.unlink()
        con = open_writer(built, memory_limit_mb=settings.memory_limit_mb)
        try:
            runs = store.complete_runs()
            results = [_load_one(con, store, runs, run) for run in runs]
            con.execute("CHECKPOINT")
        finally:
            con.close()
        replace_file(built, target)
        return results


__all__ = ["sync", "plan", "rebuild", "load_pending", "current_runs", "SyncResult", "BULK_MODES"]
