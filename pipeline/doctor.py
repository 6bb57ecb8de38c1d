"""``casefile doctor``: is this installation healthy? Config, lock, raw store, the newest runs,
warehouse, sources.

Reads only (the raw store's files, a read-only warehouse connection); ``--online`` asks each
source one small question through extract/probe.py (the API nothing inside a 429 cool-down, and
a 429 it answers is remembered, as a sync does). A warehouse loaded from runs that data/raw/ no
longer holds fails (78, ``lost.py``), as the next load would refuse. Each finding is ok, warn or fail; the exit code
is that of the worst failure (78 config, 65 data, 69 unreachable, 75 the warehouse busy or
Scryfall's cool-down).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import duckdb

from . import cooldown
from .clock import parse_utc_iso
from .config import Settings
from .errors import (EXIT_CONFIG, EXIT_DATAERR, EXIT_OK, EXIT_TEMPFAIL, EXIT_UNAVAILABLE, CasefileError,
                     ConfigError, NoWarehouse, damaged_warehouse)
from .lock import HOLDERS, holder_pid
from .lost import advice, lost_runs, read_loaded
from .rawstore import DELETING, RawStore, document_problem, new_run_id, read_manifest, store_problem, who_cannot
from .reader import TABLES, loaded_runs, open_reader, query
from .resources import read_sql, sql_files


@dataclass(frozen=True)
class Finding:
    level: str  # ok | warn | fail
    area: str
    message: str
    exit_code: int = EXIT_OK


def _config(settings: Settings) -> list[Finding]:
    found = []
    data = settings.data_dir
    # the folder, or the one a sync would make it in (config.validate: each exists or is a folder)
    nearest = next((path for path in (data, *data.parents) if path.exists()), data)
    if data.exists() and not os.access(data, os.W_OK):
        found.append(Finding("fail", "config", f"the data folder {data} is not writable", EXIT_CONFIG))
    elif nearest != data and not os.access(nearest, os.W_OK | os.X_OK):
        found.append(Finding("fail", "config", f"the data folder {data} does not exist, and cannot be made: "
                                               f"{nearest} is not writable", EXIT_CONFIG))
    elif nearest != data:  # a first install, or a mistyped path (then syncs and reads go elsewhere)
        found.append(Finding("warn", "config", f"the data folder {data} does not exist yet; the first sync makes it"))
    else:
        found.append(Finding("ok", "config", f"data folder {data}"))
    if not settings.contact:
        found.append(Finding("warn", "config", "CASEFILE_CONTACT is not set: Scryfall asks clients to say who they are"))
    return found


def _lock_and_cooldown(settings: Settings) -> list[Finding]:
    found = []
    try:
        pid = holder_pid(settings.lock_path)
    except ConfigError as exc:
        found.append(Finding("fail", "lock", str(exc), exc.exit_code))
    else:
        found.append(Finding("ok", "lock", f"no {HOLDERS} holds the lock" if pid is None else
                             f"a {HOLDERS} holds the lock (pid {pid})"))
    body, problem = cooldown.read_checked(settings.cooldown_path)
    if problem:
        found.append(Finding("warn", "cool-down", f"{problem}; the next 429 writes it again"))
    if body:
        try:
            cooldown.check(settings.cooldown_path, reanchor=False)
            found.append(Finding("ok", "cool-down", f"the last 429 cool-down ended at {body['until']}"))
        except CasefileError:
            found.append(Finding("warn", "cool-down", f"Scryfall asked for a pause until {body['until']}"))
    return found


def _raw_store(settings: Settings, running: bool, loaded: set[str] | None = None) -> list[Finding]:
    found, store = [], RawStore(settings.raw_dir)
    runs = store.runs()
    checked = bad = 0
    problem = store_problem(store.root)
    if problem is not None:  # every sync and rules ingest fails on it (78), before it fetches anything
        found.append(Finding("fail", "raw", f"{store.root} {problem[0]}: {who_cannot(problem[0])} can keep "
                                            f"a run there ({problem[1]})", EXIT_CONFIG))
        bad += 1
    for run in runs:
        if run.status == "incomplete" and not running:
            found.append(Finding("warn", "raw", f"run {run.run_id} never finished (killed?); it is never loaded"))
        if run.damaged is not None:
            found.append(Finding("fail", "raw", f"run {run.run_id}: {run.damaged}; it is neither loaded, rebuilt "
                                 "nor pruned until its run.json is repaired or the folder removed", EXIT_DATAERR))
            bad += 1
            continue
        if run.success is None:
            continue
        try:
            entries = read_manifest(run, include_quarantined=True)
        except CasefileError as exc:
            found.append(Finding("fail", "raw", str(exc), EXIT_DATAERR))
            bad += 1
            continue
        for entry in entries:
            checked += 1
            problem = document_problem(run, entry)
            if problem:
                found.append(Finding("fail", "raw", problem, EXIT_DATAERR))
                bad += 1
        leftovers = [p for p in run.path.rglob(".*.tmp-*")]
        if leftovers:
            found.append(Finding("warn", "raw", f"run {run.run_id} has {len(leftovers)} unfinished temporary file(s)"))
    if store.root.is_dir():
        unfinished = [p.name for p in store.root.iterdir() if p.name.startswith(DELETING)]
        if unfinished:
            found.append(Finding("warn", "raw", f"{len(unfinished)} run folder(s) a prune did not finish deleting "
                                                f"({unfinished[0]}…); the next `casefile prune` removes them"))
    if not bad:
        found.append(Finding("ok", "raw", f"{len(runs)} run(s), {checked} document(s) match their manifests"))
    if runs and runs[-1].run_id > new_run_id():
        found.append(Finding("warn", "raw", f"the clock ({new_run_id()}) is behind the newest run ({runs[-1].run_id}): "
                                            "new runs take ids just after it until the clock catches up"))
    found += _last_runs(runs, datetime.now(timezone.utc))
    found += _prunable(runs, loaded)
    return found


ENDED = ("failed", "aborted", "rejected")  # the statuses of a run that ended without being kept
REASON_CHARS = 200  # of the reason the newest of them ended, in a finding
PAGES_NAMED = 3  # of the pages a run found gone, those a finding names


def _last_runs(runs, now: datetime) -> list[Finding]:
    """How the newest runs of each job ended, a job being the syncs of one query, or the rules
    ingests (one warehouse may be synced for several queries, each by a cron line of its own):
    the runs that failed, were aborted or rejected since the job's last complete one (a job whose
    syncs keep failing exits non-zero each time; this says since when and why), else how long ago
    its last complete run started; and the page sources that run left out, the pages it read
    from earlier copies, and those it found gone. Runs that never finished and damaged ones have
    findings of their own."""
    jobs: dict[str, list] = {}
    for run in runs:
        if run.damaged is None:
            jobs.setdefault(_job(run), []).append(run)
    findings = []
    for job, runs_of in sorted(jobs.items()):
        if any(run.complete or run.status in ENDED for run in runs_of):
            complete = [run for run in runs_of if run.complete]
            findings += [_job_finding(job, runs_of, now), *_left_out(job, complete, now), *_carried(job, complete, now),
                         *_gone(job, complete)]
    return findings


def _job(run) -> str:
    if run.meta.get("mode") == "ingest":
        return "rules ingest"
    return f"sync {run.meta.get('query')}"


def _job_finding(job: str, runs, now: datetime) -> Finding:
    from .prune import run_time

    last_complete = next((run for run in reversed(runs) if run.complete), None)
    since = [run for run in runs if run.status in ENDED
             and (last_complete is None or run.run_id > last_complete.run_id)]
    if last_complete is None:
        after = "no complete run yet"
    else:
        after = f"last complete run {last_complete.run_id}, {_age(now - run_time(last_complete))} ago"
    if not since:
        return Finding("ok", "runs", f"{job}: {after}")
    newest = since[-1]
    reason = " ".join(str(newest.failure.get("reason") or "no reason written").split())
    if len(reason) > REASON_CHARS:
        reason = reason[:REASON_CHARS - 1] + "…"
    if len(since) == 1:
        return Finding("warn", "runs", f"{job}: run {newest.run_id} {newest.status}; {after}: {reason}")
    return Finding("warn", "runs", f"{job}: {len(since)} runs did not complete, from {since[0].run_id}; {after}; "
                                   f"the newest, {newest.run_id}, {newest.status}: {reason}")


def _left_out(job: str, complete, now: datetime) -> list[Finding]:
    """A warning for each page source the job's newest complete run (the last of ``complete``) left
    out, with why (its run.json's ``left_out``: robots.txt let none of its pages be fetched, its
    robots.txt could not be read (the error: the site could not be reached) or refused casefile, or
    none of its pages answered with the page; extract/pages.py): the warehouse serves that
    source's rulings from the newest complete run that fetched it, which the warning names with
    its age, so that a source left out day after day is seen."""
    from .prune import run_time

    left_out = complete[-1].meta.get("left_out") if complete else None
    if not isinstance(left_out, dict):
        return []
    findings = []
    for source, why in left_out.items():
        last = next((run for run in reversed(complete) if source in (run.meta.get("sources") or ())), None)
        served = (f"its rulings are those of run {last.run_id}, {_age(now - run_time(last))} ago" if last
                  else "no complete run brought its rulings")
        findings.append(Finding("warn", "runs", f"{job}: {source} left out of the newest complete run, "
                                                f"{complete[-1].run_id} ({why}); {served}"))
    return findings


def _carried(job: str, complete, now: datetime) -> list[Finding]:
    """A warning when the job's newest complete run (the last of ``complete``) read pages robots.txt
    kept it from in their earlier copies (manifest lines marked ``carried``): how many, and how old
    the oldest is."""
    if not complete:
        return []
    try:
        carried = [entry for entry in read_manifest(complete[-1]) if entry.carried]
    except CasefileError:  # an unreadable manifest has a finding of its own (raw)
        return []
    if not carried:
        return []
    fetched = [parse_utc_iso(entry.fetched_at) for entry in carried]
    oldest = min((t for t in fetched if t is not None), default=None)
    age = f", the oldest fetched {_age(now - oldest)} ago" if oldest is not None else ""
    return [Finding("warn", "runs", f"{job}: {len(carried)} page(s) the newest complete run, {complete[-1].run_id}, "
                                    f"did not fetch (robots.txt) are read from their earlier copies{age}")]


def _gone(job: str, complete) -> list[Finding]:
    """A warning for each page source of which the job's newest complete run (the last of
    ``complete``) found pages gone (its run.json's ``gone``: pages that answered without the page,
    404, 410 or another status, where the last run to ask for them found it), whose cards'
    sightings from the site the warehouse no longer holds. The next run that asks for them, gone
    again, says nothing more."""
    gone = complete[-1].meta.get("gone") if complete else None
    if not isinstance(gone, dict):
        return []
    findings = []
    for source, urls in gone.items():
        if isinstance(urls, list) and urls:
            named = ", ".join(urls[:PAGES_NAMED]) + (" …" if len(urls) > PAGES_NAMED else "")
            findings.append(Finding("warn", "runs", f"{job}: {len(urls)} page(s) of {source} answered without the page "
                                                    f"in the newest complete run, {complete[-1].run_id}, where the "
                                                    f"last run to ask for them found the page: their cards' rulings "
                                                    f"from {source} are no longer served ({named})"))
    return findings


def _age(delta: timedelta) -> str:
    """A time span in its largest whole unit: 3 days, 5 hours, 1 minute, 0 minutes."""
    seconds = max(int(delta.total_seconds()), 0)
    unit, size = next(((unit, size) for unit, size in (("day", 86_400), ("hour", 3_600)) if seconds >= size),
                      ("minute", 60))
    n = seconds // size
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _warehouse(settings: Settings) -> tuple[list[Finding], set[str] | None]:
    """The warehouse's findings, and the runs it has loaded (None when it cannot be read)."""
    path = settings.warehouse_path
    if path.parent.exists() and not path.parent.is_dir():
        return [Finding("fail", "warehouse", f"cannot use the warehouse folder {path.parent}: it is not a folder",
                        EXIT_CONFIG)], None
    if not path.exists():
        return [Finding("warn", "warehouse", f"no warehouse at {path} yet (run casefile sync)")], None
    found = []
    try:
        con = open_reader(path, settings.reader_wait_s)
    except NoWarehouse:  # a DuckDB file without casefile's tables
        return [Finding("warn", "warehouse", f"no warehouse at {path} yet (the file holds no casefile tables; "
                                             "run casefile sync)")], None
    except CasefileError as exc:
        return [Finding("fail", "warehouse", str(exc), exc.exit_code)], None
    try:
        failing = ran = 0
        try:
            read = _read_every_table(con)
        except ConfigError as exc:  # a damaged block (reader.query): what the next load would meet
            return [Finding("fail", "warehouse", str(exc), exc.exit_code)], None
        lacking = [table for table in TABLES if table not in read]  # made by an older casefile
        for check in sql_files("checks"):
            text = check.read_text("utf-8")
            missing = [table for table in lacking if re.search(rf"\b{table}\b", text)]
            if missing:  # the next sync or rules ingest makes the tables (load.warehouse.apply_schema)
                found.append(Finding("warn", "warehouse", f"check {check.stem} not run: the warehouse has no "
                                                          f"{', '.join(missing)} yet (made by an older casefile; "
                                                          "the next sync or rules ingest adds "
                                                          f"{'it' if len(missing) == 1 else 'them'})"))
                continue
            ran += 1
            try:
                _, rows = query(con, text)
            except ConfigError as exc:  # the file is damaged (reader.query): no check can run
                return [Finding("fail", "warehouse", str(exc), exc.exit_code)], None
            except CasefileError as exc:
                found.append(Finding("fail", "warehouse", f"check {check.stem} cannot run: {exc}", EXIT_DATAERR))
                failing += 1
                continue
            if rows:
                found.append(Finding("fail", "warehouse", f"check {check.stem} finds {len(rows)} bad row(s), "
                                                          f"first: {rows[0]}", EXIT_DATAERR))
                failing += 1
        loaded = loaded_runs(con)
        facts = read_loaded(con)
    except duckdb.Error as exc:
        damaged = damaged_warehouse(exc)
        if damaged is None:
            raise
        return [Finding("fail", "warehouse", str(damaged), damaged.exit_code)], None
    finally:
        con.close()
    listed = RawStore(settings.raw_dir).runs()
    # the next sync or rules ingest refuses to load (78): said with the same advice. A run whose
    # run.json cannot be read has its own failing finding (raw, 65), saying to repair it
    lost = [run for run in lost_runs(facts, listed) if run.state != "damaged"]
    pending = [r.run_id for r in listed if r.complete and r.run_id not in loaded]
    if lost:
        empty = not any(run.complete for run in listed)
        found.append(Finding("fail", "warehouse", advice(lost, settings.raw_dir, empty=empty, reingest=not pending),
                             EXIT_CONFIG))
    if pending:
        when = "once the missing runs are restored, or by `casefile rebuild`" if lost else "the next sync loads them"
        found.append(Finding("warn", "warehouse", f"{len(pending)} complete run(s) not loaded yet "
                                                  f"({when}): {', '.join(pending[:3])}"))
    unwritable = _unwritable(path)
    if unwritable:
        found.append(Finding("fail", "warehouse", f"{unwritable}: no sync, rebuild or rules ingest can load a run "
                                                  "(make it writable again)", EXIT_CONFIG))
    if not failing:
        found.append(Finding("ok", "warehouse", f"{ran} checks pass; {len(read)} tables read whole"))
    return found, loaded


def _read_every_table(con) -> list[str]:
    """Read every column of every table (a hash of each row): a block of the file damaged where
    the checks read nothing fails here, as it fails the next load (ConfigError, 78). Returns the
    names of the tables read, the warehouse's own, from its catalog."""
    _, tables = query(con, read_sql("read/tables.sql"))
    for (name,) in tables:
        quoted = '"' + name.replace('"', '""') + '"'
        query(con, f"SELECT count(*), sum(hash(t)) FROM {quoted} AS t")
    return [name for (name,) in tables]


def _unwritable(path) -> str | None:
    """Why a writer could not write the warehouse file or its folder (a read-only mount, the
    permissions), or None. Judged for the user running doctor: run it as the syncs' user."""
    for target in (path.parent, path):
        try:
            if os.statvfs(target).f_flag & os.ST_RDONLY:
                return f"{target} is on a read-only file system"
        except OSError:
            continue
        if not os.access(target, os.W_OK):
            return f"{target} may not be written by this user (permissions)"
    return None


def _half_built(settings: Settings) -> list[Finding]:
    """The new file of a rebuild, or the copy of a prune's compaction, killed before it was put in
    place (kill -9, the OOM killer): as large as the warehouse, left until the next of its kind."""
    from .formats import human_bytes

    findings = []
    for files, command, then in ((settings.rebuild_files, "rebuild", "the next `casefile rebuild` replaces it"),
                                 (settings.compact_files, "prune", "the next `casefile prune` that deletes runs "
                                                                   "removes it")):
        left = [p for p in files if p.is_file()]
        if left:
            size = sum(p.stat().st_size for p in left)
            findings.append(Finding("warn", "warehouse", f"a {command} that did not finish left {left[0].name} "
                                                         f"({human_bytes(size)}); {then}, or delete it"))
    return findings


def diagnose(settings: Settings, online: bool = False) -> list[Finding]:
    findings = _config(settings) + _lock_and_cooldown(settings)
    try:
        running = holder_pid(settings.lock_path) is not None
    except ConfigError:  # a finding already says so; a run that looks unfinished may be running
        running = True
    warehouse, loaded = _warehouse(settings)
    findings += _raw_store(settings, running, loaded) + warehouse + ([] if running else _half_built(settings))
    if online:
        from .extract.probe import probe

        for what, code, detail in probe(settings):
            findings.append(Finding("ok" if code == EXIT_OK else "fail", "online", f"{what}: {detail}", code))
    return findings


def exit_code(findings: list[Finding]) -> int:
    order = [EXIT_CONFIG, EXIT_DATAERR, EXIT_UNAVAILABLE, EXIT_TEMPFAIL]
    codes = {f.exit_code for f in findings if f.level == "fail"}
    return next((c for c in order if c in codes), EXIT_OK)


def _prunable(runs, loaded: set[str] | None) -> list[Finding]:
    """A note of what `casefile prune` with its default window would delete, when anything
    (``loaded``: the runs the warehouse holds, whose views a prune keeps too)."""
    from .formats import human_bytes
    from .config import DEFAULT_KEEP_DAYS
    from .prune import bytes_freed, plan

    try:
        doomed = plan(runs, datetime.now(timezone.utc), DEFAULT_KEEP_DAYS, loaded).doomed
    except CasefileError:  # a manifest that cannot be read: a failing raw finding names it already
        return []
    if not doomed:
        return []
    return [Finding("ok", "raw", f"{len(doomed)} run(s) older than {DEFAULT_KEEP_DAYS} days that no view needs hold "
                                 f"{human_bytes(bytes_freed([r.path for r in doomed]))}; `casefile prune` deletes them")]
