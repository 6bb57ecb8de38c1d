"""A sync, start to end: lock, extract to a new raw run, mark it complete, load it.

This module wires the stages together and owns no logic of its own stage: network stays in
``extract/``, records in ``normalize/`` and ``reconcile``, writes in ``load/``. ``rebuild``
replays every complete run through the same build and load steps.
"""

from __future__ import annotations

import contextlib
import logging
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import duckdb

from . import __version__, cooldown, stop, timing
from .build import (RULES_ORIGIN, build_state, build_state_sql, current_runs, document_rows,
                    refuse_empty_bulk_files, run_origins, run_row)
from .config import ALL_SOURCES, BULK_MODES, DEFAULT_QUERY, LIVE_DEFAULT_SOURCES, Settings, check_sources, redact_url
from .errors import (Aborted, CasefileError, ChecksFailed, ConfigError, Interrupted, ParseError,
                     QueryMatchesNothing, SourceDataError, UsageError, printable, warehouse_is_a_folder)
from .failpoints import failpoint
from .normalize import query as query_filter
from .normalize.scryfall import search_page
from .normalize.duck import SqlPathUnavailable
from .normalize.lines import prune_cache
from .stop import ABORTED_MESSAGE
from .load.warehouse import (checkpoint, defer_compaction, describe_failures, load_run, open_writer, replace_file,
                             run_checks)
from .lock import SyncLock
from .lost import SHOWN, advice, lost_document_copies, lost_runs, read_loaded
from .rawstore import EarlierPages, RawStore, RunInfo, document_problem, mark_rejected, read_manifest, read_run
from .reader import loaded_runs
from .resources import sample_dir

# The extractors and the HTTP client (requests) are imported by the functions that fetch: a
# rebuild, or the load of a recorded run, needs neither.

log = logging.getLogger(__name__)


@dataclass
class LoadResult:
    run_id: str
    status: str
    inserted: int = 0
    updated: int = 0
    removed: int = 0
    changes: int = 0
    tables: dict = field(default_factory=dict)
    row: dict = field(default_factory=dict)  # the run's sync_run row as stored
    build: str = ""  # delta | full | python (build.State.build)


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
    unknown_fields: dict = field(default_factory=dict)  # Scryfall card fields casefile does not read: name -> times seen
    timings_s: dict = field(default_factory=dict)  # phase -> seconds (pipeline/timing.py)

    def summary(self) -> dict:
        """The run summary: the figures of its sync_run row, as stored, plus row counts."""
        row = self.load.row
        return {"event": "summary", "run_id": self.run_id, "mode": row.get("mode", self.mode),
                "query": row.get("query", self.query), "sources": self.sources, "outcome": row.get("status"),
                "requests": row.get("requests"), "bytes": row.get("bytes"), "documents": row.get("documents"),
                "inserted": row.get("inserted"), "updated": row.get("updated"), "removed": row.get("removed"),
                "changes": self.load.changes, "duration_s": row.get("duration_s"), "replay_of": self.replay_of,
                "skipped_records": self.skipped_records, "unknown_fields": self.unknown_fields, "rows": self.counts,
                "build": self.load.build, "timings_s": self.timings_s}


def resolve_offline_source(value: str) -> RunInfo:
    """``--offline`` alone means the bundled sample; with a value, a recorded run folder."""
    path = Path(value) if value else sample_dir()
    try:
        folder = path.is_dir()
    except OSError as exc:  # a name too long, a folder on the way that may not be searched
        raise UsageError(f"--offline: {printable(str(path))}: cannot read it ({exc.strerror or exc})") from None
    if not folder:
        raise UsageError(f"--offline: {path} is not a folder")
    run = read_run(path)
    if run.meta.get("mode") == "ingest":  # its one document is a rules file, not Scryfall's answers
        raise UsageError(f"--offline: {path} is a rules ingest, not a sync run; sync cannot replay it"
                         + _ingest_again(run))
    if run.success is None:
        raise UsageError(f"--offline: {path} is not a complete run (no _SUCCESS); it cannot be replayed")
    if run.damaged is not None:  # its query and sources are unknown: a replay would guess them
        raise UsageError(f"--offline: {path} cannot be replayed: {run.damaged}")
    return run


def _ingest_again(run: RunInfo) -> str:
    """The command that ingests the rules file a complete rules-ingest run keeps, for its error
    message; "" when there is none to name."""
    import shlex

    if not run.complete:
        return ""
    try:
        entries = read_manifest(run)
    except (CasefileError, OSError):
        return ""
    if len(entries) != 1:
        return ""
    return f" (to ingest its file again: casefile rules ingest {shlex.quote(printable(str(run.path / entries[0].path)))})"


# The signal handlers set stop's flag as well as raising Aborted (SIGTERM) or KeyboardInterrupt
# (Ctrl-C). A signal that arrives while DuckDB runs a query interrupts the query, and DuckDB
# reports "Query interrupted" instead of the handler's exception: the flag tells such an error
# from a real failure.
def _was_signalled(exc: BaseException) -> bool:
    return isinstance(exc, (Aborted, KeyboardInterrupt)) or stop.requested()


def sync(settings: Settings, *, query: str | None = None, offline: str | None = None,
         sources: list[str] | None = None, include_multilingual: bool | None = None,
         progress=None, lock_held: bool = False, bulk: str = "auto") -> SyncResult:
    """One sync. ``lock_held``: the caller already holds the sync lock (the CLI takes it first).
    ``bulk``: auto | always | never, which plan a live sync takes (see ``_choose_plan``)."""
    with stop.signals_stop():
        with nullcontext() if lock_held else SyncLock(settings.lock_path):
            return _sync(settings, query=query, offline=offline, sources=sources,
                         include_multilingual=include_multilingual, progress=progress, bulk=bulk)


@dataclass
class _Plan:
    settings: Settings
    transport: object
    mode: str
    query: str
    include_multilingual: bool
    sources: list[str]
    replay_of: str | None
    bulk: str


def _remember_429(settings: Settings, url: str, wait: float) -> None:
    """Remember Scryfall's cool-down (its API, its files) for the next runs; a rulings site's 429
    only concerns that site, and is no reason for the next runs to leave Scryfall alone."""
    from urllib.parse import urlsplit

    page_hosts = {urlsplit(u).netloc for u in (settings.wiki_url, settings.wiki_page, settings.listeblanche_url,
                                               settings.scryfall_web_url) if u}
    if urlsplit(url).netloc not in page_hosts - {urlsplit(settings.api_url).netloc}:
        cooldown.remember(settings.cooldown_path, url, wait)


def _plan(settings: Settings, query, offline, sources, include_multilingual, bulk) -> _Plan:
    """What this sync will ask, and through which transport (live HTTP, or a recorded run)."""
    from .extract.replay import ReplayTransport

    if offline is not None:
        source_run = resolve_offline_source(offline)
        recorded = source_run.meta
        if recorded.get("api_url"):  # replay asks the URLs the recording holds
            settings = settings.with_overrides(api_url=recorded["api_url"])
        plan = _Plan(settings=settings, transport=ReplayTransport(source_run), mode="offline",
                     query=query or recorded.get("query") or DEFAULT_QUERY,
                     include_multilingual=bool(recorded.get("include_multilingual")) if include_multilingual is None
                     else include_multilingual,
                     sources=sources or [s for s in recorded.get("sources", ["api"]) if s in ALL_SOURCES],
                     # a folder named with bytes that are not UTF-8 cannot be stored as they are
                     replay_of="sample" if not offline else printable(str(source_run.path)),
                     bulk="always" if recorded.get("plan") == "bulk" else "never")
    else:
        from .extract.http import HttpClient

        cooldown.check(settings.cooldown_path)
        client = HttpClient(settings, on_rate_limited=lambda url, wait: _remember_429(settings, url, wait))
        plan = _Plan(settings=settings, transport=client, mode="live", query=query or DEFAULT_QUERY,
                     include_multilingual=bool(include_multilingual),
                     sources=sources or list(LIVE_DEFAULT_SOURCES), replay_of=None, bulk=bulk)
    check_sources(plan.sources)
    if plan.bulk == "always":
        query_filter.parse(plan.query)  # a query the local filter cannot evaluate is refused up front
    return plan


def _fetch(store: RawStore, plan: _Plan, progress) -> tuple[RunInfo, dict, int]:
    """Extract into a new raw run; mark it complete, or failed/aborted with the reason."""
    from .extract.bulk import BulkExtractor
    from .extract.pages import PageExtractor
    from .extract.scryfall import ScryfallExtractor
    from .extract.replay import ReplayTransport

    settings = plan.settings
    meta = {"mode": plan.mode, "query": plan.query, "include_multilingual": plan.include_multilingual,
            "sources": plan.sources, "api_url": settings.api_url, "casefile_version": __version__,
            "replay_of": plan.replay_of, "plan": "bulk" if plan.bulk == "always" else "api"}
    writer = store.new_run(meta)
    log.info("run %s: %s sync of %s (sources: %s)", writer.run_id, plan.mode, plan.query, ",".join(plan.sources))
    try:
        api = ScryfallExtractor(plan.transport, writer, settings, progress=progress)
        chosen, first, index = _choose_plan(settings, api, plan.transport, writer, store, plan.query,
                                            plan.include_multilingual, plan.bulk, progress)
        if chosen == "bulk":
            BulkExtractor(plan.transport, writer, settings, store, progress=progress).run(
                plan.query, plan.include_multilingual, index=index)
            if set(plan.sources) - {"api"}:
                log.warning("the bulk plan reads Scryfall's files only: the page sources are skipped")
                writer.update_meta({"sources": ["api"]})
        else:
            extracted = api.run(plan.query, plan.include_multilingual, first=first)
            if set(plan.sources) - {"api"}:
                stands_for = {oid: extracted.stands_for[oid] for oid in extracted.with_rulings}
                if isinstance(plan.transport, ReplayTransport):  # the recording's pages, as it had them
                    recorded = plan.transport.run
                    not_fetched, earlier = recorded.meta.get("not_fetched") or (), partial(_carried_pages, recorded)
                else:
                    not_fetched, earlier = (), store.earlier_pages
                pages = PageExtractor(plan.transport, writer, settings, robots=plan.mode == "live", progress=progress,
                                      not_fetched=not_fetched, earlier=earlier).run(
                    plan.sources, plan.query, stands_for)
                if pages.disallowed:  # a replay of the run skips them as it did (robots.txt is not read offline)
                    writer.update_meta({"not_fetched": pages.disallowed})
                if pages.carried:
                    log.info("%d page(s) robots.txt kept casefile from are stood in for by their earlier copies",
                             len(pages.carried))
                if pages.left_out:  # the run is then no view of them: the warehouse keeps their pages
                    writer.update_meta({"sources": [s for s in plan.sources if s not in pages.left_out],
                                        "left_out": pages.left_out})
                if pages.gone:  # for doctor: their cards lost their sightings from the site
                    writer.update_meta({"gone": pages.gone})
            if isinstance(plan.transport, ReplayTransport):
                # a replay takes the recording's sources, which lack those it left out (for the same
                # reason), and its history of the pages, against which the recording found pages gone
                kept = {name: plan.transport.run.meta[name] for name in ("left_out", "gone")
                        if plan.transport.run.meta.get(name)}
                if kept:
                    writer.update_meta(kept)
        if chosen != meta["plan"]:
            writer.update_meta({"plan": chosen})
        traffic = _traffic(plan.transport)
        stop.check()  # a signal noted only (during an import, or its exception swallowed): the run is aborted
        writer.finish(traffic)
    except BaseException as exc:
        status = "aborted" if isinstance(exc, (KeyboardInterrupt, SystemExit, Aborted)) else "failed"
        writer.fail(f"{exc.__class__.__name__}: {exc}", status=status)
        if isinstance(exc, CasefileError):  # the run it is kept in, for the error's JSON line
            exc.run_id = writer.run_id
        raise
    finally:
        if not isinstance(plan.transport, ReplayTransport):
            plan.transport.close()
    return read_run(writer.path), traffic, len(writer.entries)


def _carried_pages(run: RunInfo) -> EarlierPages:
    """The pages a recorded run carried from earlier runs, for its replay to carry as it did."""
    return EarlierPages({(entry.origin, entry.key): (run, entry) for entry in read_manifest(run)
                         if entry.kind == "page" and entry.carried})


def _sync(settings: Settings, *, query, offline, sources, include_multilingual, progress, bulk) -> SyncResult:
    started = time.monotonic()
    store = RawStore(settings.raw_dir)
    plan = _plan(settings, query, offline, sources, include_multilingual, bulk)
    with timing.recording() as timings:
        with timing.phase("fetch"):
            run, traffic, documents = _fetch(store, plan, progress)
        results = load_pending(plan.settings, store, fetched=run.run_id)
    load = next((r for r in results if r.run_id == run.run_id), None)
    if load is None:
        raise CasefileError(f"run {run.run_id} was not loaded")
    log.info("time: %s", timing.describe(timings))
    unknown = load.tables.get("_unknown_fields", {})
    if unknown:
        log.info("ignored %d field(s) of Scryfall card objects that casefile does not read (%d times): %s",
                 len(unknown), sum(unknown.values()), ", ".join(sorted(unknown)))
    return SyncResult(run_id=run.run_id, mode=plan.mode, query=plan.query, sources=run.meta.get("sources"),
                      requests=traffic["requests"], bytes=traffic["bytes"], documents=documents,
                      duration_s=time.monotonic() - started, load=load, counts=table_counts_from(load),
                      replay_of=plan.replay_of, skipped_records=load.tables.get("_skipped", 0),
                      unknown_fields=unknown, timings_s=timing.rounded(timings))


def _choose_plan(settings, api, transport, writer, store, query, include_multilingual, bulk, progress):
    """Which plan a live sync takes (see ``plan``); returns (plan, first search page, bulk index)."""
    from .extract import bulk as bulk_plans
    from .extract.bulk import BulkExtractor

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
    try:
        page = search_page(first.body, "the first search page")
    except ParseError:
        return "api", first, None  # the API extract keeps the page and refuses it, naming it
    by_api = bulk_plans.api_plan(settings, page)
    if by_api.requests < bulk_plans.AUTO_API_BELOW:
        return "api", first, None
    index = BulkExtractor(transport, writer, settings, store, progress=progress).index()
    chosen = bulk_plans.choose(by_api, bulk_plans.bulk_plan(settings, index, include_multilingual))
    if chosen.name == "bulk":
        writer.save(first, "scryfall-api", "plan-probe")
        return "bulk", None, index
    return "api", first, None


def _traffic(transport) -> dict:
    """What a transport cost: the HTTP client counts in ``traffic``, a replay in its own fields."""
    traffic = getattr(transport, "traffic", None)
    if traffic is not None:
        return {"requests": traffic.requests, "bytes": traffic.bytes, "retries": traffic.retries}
    return {"requests": transport.requests, "bytes": transport.bytes, "retries": 0}


def table_counts_from(load: LoadResult) -> dict[str, int]:
    return dict(load.tables.get("_rows", {}))


def _build(con, store: RawStore, upto: list[RunInfo], cache_dir: Path | None, use_delta: bool):
    """The SQL build when it applies (every Scryfall document readable by DuckDB, no page
    sources), else the Python reference build; both give the same rows."""
    refuse_empty_bulk_files(upto)
    try:
        return build_state_sql(con, store, upto, cache_dir=cache_dir, use_delta=use_delta)
    except SqlPathUnavailable as exc:
        if exc.large:  # what a cron job's owner should hear of: it can cost 10x the time
            log.warning("building in Python: %s; at this size that takes many times the SQL build's "
                        "time and memory", exc)
        else:
            log.info("building in Python: %s", exc)
        return build_state(store, upto)


def _refuse_if_the_warehouse_was_broken(con, run: RunInfo, failed: ChecksFailed) -> None:
    """Rows that fail the checks are the run's fault only when the warehouse passed them before
    the load (rolled back by now): a warehouse damaged by hand fails them whatever run comes, and
    no run is rejected for it. Raises SourceDataError (65) saying what to do in that case."""
    before = run_checks(con)
    if before:
        raise SourceDataError(
            "the warehouse fails its checks before any run is loaded ("
            + describe_failures(before)
            + f"): run {run.run_id} was not loaded, and is kept to be; "
            "`casefile rebuild` makes the warehouse again from data/raw/") from failed


def _refuse_if_raw_files_changed(upto: list[RunInfo], run: RunInfo, failed: BaseException | None = None) -> None:
    """Raises SourceDataError (65) naming the first raw file a full build reads that is not the
    body fetched (lost, or changed since: its sha256 no longer the manifest's). No run is rejected
    for it (a rebuild would leave a loaded run out from then on). Only the runs a build reads are
    checked (the current views and the editions of the rules): not gigabytes of older bulk files;
    a file checked unchanged is not hashed again by the same process (rawstore.document_problem)."""
    read = {r.run_id: r for r in current_runs(upto).values()}
    read.update((r.run_id, r) for r in upto if RULES_ORIGIN in run_origins(r))
    for held in sorted(read.values(), key=lambda r: r.run_id):
        for entry in read_manifest(held):
            problem = document_problem(held, entry)
            if problem:
                raise SourceDataError(
                    f"run {run.run_id} was not loaded, and is not rejected: {problem}; restore the file, "
                    "or remove the folder of its run (`casefile doctor` lists every such file)") from failed


def _load_one(con, store: RawStore, runs: list[RunInfo], run: RunInfo, cache_dir: Path | None,
              mark_aborted: bool = False, use_delta: bool = True, timed: bool = True) -> LoadResult:
    """Build and load one run. ``mark_aborted``: a signal during the build or the load marks this run aborted
    (only the run a sync fetched itself; a rebuild or an older pending run is never marked).
    ``timed``: whether sync_run.duration_s is the time from the run's start to this load (not for a rebuild).
    ``cache_dir``: where the line index of each bulk file read is kept (normalize/lines.py);
    ``use_delta``: whether a bulk view may be built as a delta of the previous one."""
    upto = [r for r in runs if r.run_id <= run.run_id]
    try:
        try:
            failpoint("during_build")
            stop.check()  # a signal noted only, since the fetch: no build
            with timing.phase("build"):
                state = _build(con, store, upto, cache_dir, use_delta)
            if not state.scope:  # a full build read every file of the views: each is the body fetched
                with timing.phase("verify"):
                    _refuse_if_raw_files_changed(upto, run)
            with timing.phase("load"):
                bulk_query = (run.meta.get("query") or "") if run.meta.get("plan") == "bulk" else None
                counts = load_run(con, {**run_row(run), "timed": timed}, state.tables, document_rows(run),
                                  scope=state.scope, bulk_query=bulk_query, kept_runs=[r.run_id for r in runs],
                                  copies=lost_document_copies(con, runs, run.run_id))
        except (SourceDataError, QueryMatchesNothing) as exc:
            # data the build cannot read, or rows the warehouse checks refuse (the load rolled
            # back): the run is rejected, so that it does not stand before every later load.
            # A SIGTERM's Aborted raised inside a parser can come out as a parse error: the run
            # is not at fault, and the handler below treats the error as the stop it was
            if not stop.requested():
                _refuse_if_raw_files_changed(upto, run, exc)
                if isinstance(exc, ChecksFailed):
                    _refuse_if_the_warehouse_was_broken(con, run, exc)
                mark_rejected(run, str(exc))
            raise
        if cache_dir is not None and state.cache_keep is not None:
            prune_cache(cache_dir, state.cache_keep)
    except BaseException as exc:  # a signal during the build or the load
        if not _was_signalled(exc):
            raise
        if run.run_id in loaded_runs(con):  # the signal came after the commit: the run is in
            raise stop.kept(f"stopped by a signal just after run {run.run_id} was loaded; "
                            "the warehouse holds it") from None
        if mark_aborted:
            reason = ("interrupted (Ctrl-C)" if stop.by_ctrl_c(exc)
                      else exc if isinstance(exc, Aborted) else ABORTED_MESSAGE)
            mark_rejected(run, f"aborted during the load: {reason}", status="aborted")
        if isinstance(exc, (Aborted, KeyboardInterrupt)):
            raise
        raise stop.stopped() from exc
    summary = counts.pop("_run")
    names = list(state.tables)  # the warehouse's table names, as the build gives them: one statement for all
    counted = con.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {name})" for name in names)).fetchone() \
        if names else ()
    rows = {name: int(n) for name, n in zip(names, counted)}
    counts["_rows"] = rows
    counts["_skipped"] = state.skipped_count
    counts["_unknown_fields"] = dict(sorted(state.unknown_fields.items()))
    cursor = con.execute("SELECT * FROM sync_run WHERE run_id = ?", [run.run_id])
    stored = dict(zip([d[0] for d in cursor.description], cursor.fetchall()[0]))
    return LoadResult(run.run_id, summary["status"], summary["inserted"], summary["updated"], summary["removed"],
                      summary["changes"], counts, stored, build=state.build)


def _refuse_if_runs_lost(con, settings: Settings, listed: list[RunInfo], pending: list[RunInfo]) -> None:
    """A load builds from data/raw/ alone: the content of a run the warehouse was loaded from that
    data/raw/ lost (a folder deleted by hand, a raw store not restored beside its warehouse) would
    be removed by it. Refused (78) before any build: the pending runs are kept, not rejected, and
    the next load after the runs are restored, or after a rebuild, loads them (``lost.py``)."""
    lost = lost_runs(read_loaded(con), listed)
    if lost:
        waiting = ", ".join(run.run_id for run in pending[:SHOWN]) + (" …" if len(pending) > SHOWN else "")
        raise ConfigError(f"nothing loaded (run(s) {waiting} kept to be loaded): "
                          + advice(lost, settings.raw_dir))


def load_pending(settings: Settings, store: RawStore, fetched: str | None = None) -> list[LoadResult]:
    """Load every complete run the warehouse has not recorded yet, oldest first.

    ``fetched``: the run this sync just fetched. Readers hold the file for a moment at most, so
    the writer waits for them as long as they would wait for it (``reader_wait_s``).
    """
    listed = store.runs()
    runs = [run for run in listed if run.complete]
    with timing.phase("open"):
        con = open_writer(settings.warehouse_path, wait_s=settings.reader_wait_s,
                          memory_limit_mb=settings.memory_limit_mb)
    try:
        loaded = loaded_runs(con)
        pending = [run for run in runs if run.run_id not in loaded]
        if pending:
            _refuse_if_runs_lost(con, settings, listed, pending)
        results = [_load_one(con, store, runs, run, settings.cache_dir, mark_aborted=run.run_id == fetched)
                   for run in pending]
        defer_compaction(con, [result.build for result in results], settings.compact_every)
        return results
    finally:
        with timing.phase("close"):  # DuckDB writes the run's changes into the file (a checkpoint)
            con.close()


def ingest_rules(settings: Settings, source: str, lock_held: bool = False) -> LoadResult:
    """A run that fetches one Comprehensive Rules file and loads it (rules, glossary, links)."""
    from .extract.rules import check_path, check_url, fetch_rules, is_url
    from .extract.http import HttpClient
    from .normalize.rules import parse_cr
    from .rules_link import unknown_keyword_rules

    if is_url(source):
        check_url(source)
    else:
        check_path(source)
    store = RawStore(settings.raw_dir)
    with stop.signals_stop(), (nullcontext() if lock_held else SyncLock(settings.lock_path)):
        client = HttpClient(settings) if is_url(source) else None
        # a file name that is not UTF-8 is recorded with U+FFFD for its bytes; a URL never with a password
        shown = redact_url(printable(source)) if is_url(source) else printable(source)
        writer = store.new_run({"mode": "ingest", "query": None, "sources": ["rules"], "rules_source": shown,
                                "casefile_version": __version__})
        try:
            fetch_rules(source, client, writer, settings)
            [entry] = writer.entries
            doc = parse_cr((writer.path / entry.path).read_bytes(), shown)  # refuse a file that is not the CR
            writer.finish(_traffic(client) if client else {"requests": 0, "bytes": entry.bytes, "retries": 0})
        except BaseException as exc:
            writer.fail(f"{exc.__class__.__name__}: {exc}",
                        status="aborted" if isinstance(exc, (KeyboardInterrupt, Aborted)) else "failed")
            raise
        finally:
            if client is not None:
                client.close()
        results = load_pending(settings, store, fetched=writer.run_id)
        missing = unknown_keyword_rules(doc)
        if missing:  # a new edition renumbered or removed them: their keyword links are left out
            log.warning("the rules effective %s have no rule %s: the keyword table of pipeline/rules_link.py "
                        "links to them, so no ruling or card gets a keyword link to them from this edition",
                        doc.effective_date, ", ".join(missing))
        return next(r for r in results if r.run_id == writer.run_id)


def _read_old_warehouse(settings: Settings, read, warn: bool = True):
    """``read(con)`` of the warehouse a rebuild is to replace, or None when it cannot be read
    (damaged, no casefile tables, locked): logged when ``warn``, as the rebuild then cannot say
    which runs' content it drops."""
    from .reader import open_reader

    try:
        con = open_reader(settings.warehouse_path, settings.reader_wait_s)
        try:
            return read(con)
        finally:
            con.close()
    except (CasefileError, duckdb.Error) as exc:
        if warn:
            log.warning("rebuild: the old warehouse %s cannot be read (%s); which runs it was loaded from is not "
                        "known, nor what the rebuild leaves out", settings.warehouse_path, str(exc).splitlines()[0])
        return None


def _refuse_to_empty(settings: Settings, store: RawStore) -> None:
    """A raw store without a complete run (a mount that failed, another --data-dir, a cache not
    restored) would rebuild a warehouse that holds runs into an empty one: refused (78) unless
    asked for with ``allow_empty`` (``rebuild``). A warehouse that cannot be read is no reason to
    refuse: a rebuild is how it is made again."""
    if store.complete_runs() or not settings.warehouse_path.exists():
        return
    held = _read_old_warehouse(settings, lambda con: len(loaded_runs(con)), warn=False)  # _left_out warns
    if held:
        raise ConfigError(f"the raw store {settings.raw_dir} holds no complete run, while the warehouse holds "
                          f"{held} loaded run(s): a rebuild would empty it. Check the data folder (--data-dir, "
                          f"a mount, a raw store to restore); if {settings.raw_dir} is meant to be empty, "
                          f"`casefile rebuild --allow-empty` replaces the warehouse with an empty one, which the "
                          f"next sync loads into afresh (all it holds is dropped: copy {settings.warehouse_path} "
                          f"first to keep it)")


def _left_out(settings: Settings, store: RawStore) -> list[str]:
    """The runs the old warehouse was loaded from that data/raw/ lacks (``lost.py``): a rebuild
    leaves what they held out, as a load refuses to. Nothing when the warehouse cannot be read."""
    if not settings.warehouse_path.exists():
        return []
    lost = _read_old_warehouse(settings, lambda con: lost_runs(read_loaded(con), store.runs())) or []
    if lost:
        log.warning("rebuild: the old warehouse was loaded from %d run(s) that %s does not hold as complete runs; "
                    "what they held is left out: %s", len(lost), settings.raw_dir,
                    "; ".join(run.describe() for run in lost))
    return [run.run_id for run in lost]


REBUILD_STOPPED = "stopped by SIGTERM; the warehouse is unchanged and the rebuild's new file deleted"
REBUILD_INTERRUPTED = "the warehouse is unchanged and the rebuild's new file deleted"  # after "interrupted: "
REBUILD_REPLACED_STOPPED = ("stopped by a signal just after the new warehouse was renamed into place; "
                            "the warehouse is rebuilt")


def rebuild(settings: Settings, progress=None, left_out: list[str] | None = None,
            allow_empty: bool = False) -> list[LoadResult]:
    """The warehouse from the raw store alone: every complete run replayed in order, no network.
    ``left_out``, when given, receives the runs the old warehouse was loaded from that the raw
    store lacks (their content is not in the new warehouse: the way to accept that loss).
    ``allow_empty``: a raw store without a complete run makes an empty warehouse, whatever the
    old one held (refused otherwise, ``_refuse_to_empty``).

    Built in a new file and renamed over the old one, so readers see the old warehouse or the
    new one, never a half-built one. Every build is a full one (no delta of the bulk files), so a
    rebuild is also the reference a sync's delta builds are checked against. SIGTERM stops it
    with the old warehouse in place, or, in the instant after the rename, says the new one is.
    """
    store = RawStore(settings.raw_dir)
    built: Path | None = None
    replacing = False

    def replaced() -> bool:
        """Whether the new file is in place: the rename is one step, after which ``built`` is gone."""
        return replacing and built is not None and not built.exists()

    try:
        with stop.signals_stop(REBUILD_STOPPED), SyncLock(settings.lock_path):
            damaged = [run for run in store.runs() if run.damaged is not None]
            if damaged:  # what it held would silently go missing from the rebuilt warehouse
                raise SourceDataError(f"run {damaged[0].run_id}: {damaged[0].damaged}; a rebuild would leave it "
                                      f"out: repair its run.json or remove the folder ({len(damaged)} such run(s))")
            target = settings.warehouse_path
            if target.is_dir():  # the new file could not be renamed over it
                raise warehouse_is_a_folder(target)
            if not allow_empty:
                _refuse_to_empty(settings, store)
            missing = _left_out(settings, store)
            if left_out is not None:
                left_out.extend(missing)
            half_built = settings.rebuild_files
            built = half_built[0]

            def remove_half_built() -> None:
                for stale in half_built:
                    if stale.exists():
                        stale.unlink()

            remove_half_built()
            try:
                with timing.phase("open"):
                    con = open_writer(built, memory_limit_mb=settings.memory_limit_mb)
                try:
                    runs = store.complete_runs()
                    results = []
                    for i, run in enumerate(runs, 1):
                        started = time.monotonic()
                        results.append(_load_one(con, store, runs, run, settings.cache_dir, use_delta=False,
                                                 timed=False))
                        log.info("rebuild: run %s loaded (%d of %d) in %.1f s", run.run_id, i, len(runs),
                                 time.monotonic() - started)
                        if progress is not None:
                            progress("runs rebuilt", unit=" run", total=len(runs))
                    with timing.phase("checkpoint"):
                        checkpoint(con)
                finally:
                    with timing.phase("close"):
                        con.close()
                stop.check()  # a SIGTERM whose exception some code swallowed still keeps the old warehouse
                replacing = True
                with timing.phase("replace"):
                    replace_file(built, target, wait_s=settings.reader_wait_s)
            except BaseException as exc:
                if replaced():  # the new warehouse is in place: there is nothing to undo
                    raise
                # a rebuild that stops (an error, a full disk, SIGTERM, readers holding the old file)
                # leaves the old warehouse and takes its new file with it: as large as the warehouse,
                # on the disk the next sync needs
                with contextlib.suppress(OSError):
                    remove_half_built()
                # said as a rebuild's (a load's stop speaks of a sync's run); Ctrl-C's, with exit 130
                if stop.by_ctrl_c(exc):
                    raise Interrupted(REBUILD_INTERRUPTED) from None
                if isinstance(exc, Aborted):
                    raise Aborted(REBUILD_STOPPED) from None
                raise
            return results
    except (Aborted, KeyboardInterrupt) as exc:
        if replaced():  # a signal in the instant after the rename: not "unchanged", rebuilt
            raise stop.kept(REBUILD_REPLACED_STOPPED, exc) from None
        raise


__all__ = ["sync", "rebuild", "ingest_rules", "load_pending", "SyncResult", "BULK_MODES"]
