"""The benchmark: casefile against DuckDB's floor on SYNTHETIC Scryfall-shaped data.

    make bench               # scales 1, 2 and 4 (7.5 to 27 minutes by the machine)
    make bench SCALE=0.05    # one scale, a quick look

Per scale: generate (or reuse) four synthetic bulk runs (bench/generate.py), then measure, each
step in a child process of its own:
  floor        DuckDB's read_json of the base run's raw files into plain tables, nothing else
  first sync   casefile sync --offline <base run> into an empty data folder
  rebuild      casefile rebuild (the warehouse from raw, one run), then again without data/cache/;
               at 2x and 4x, also in turns with a rebuild of the 1x data (rebuild_vs_1x_interleaved)
  incremental  casefile sync --offline <changed run>: 1 % of card objects and rulings edited (a
               delta build: pipeline/normalize/delta.py); and of the quiet run, where one card
               and one ruling are edited (what a delta costs whatever the change)
  next day     casefile sync --offline <next run> on a copy of the folder the incremental sync
               left: another 1 %, a delta after a delta, as a scheduled sync runs day after day
               (the incremental sync above is the first delta after a full build)
  incremental floor  the least an incremental sync does: open the warehouse, scan the lines of
               the changed run's two files, close (bench/child.py)
  search       median of N `casefile search` queries (pipeline/lookup.py) on a read-only connection
               that has searched before; and each of the words searched first in a process of its
               own, as `casefile search` runs once per process: the open, the query on data the
               process has not read yet, and `casefile search WORDS` whole (imports and output too);
               both medians again on a copy where every ruling has a SYNTHETIC French copy
               (bench/translations.py), as a sync of listeblanche.fr pages gives them
  reports      each `casefile report` (sets, colors, rulings), rendered as a table
  changes      `casefile changes --since 2000-01-01`: every run's change events, as a table
  mixed        the bundled sample (type:"Case" with its page sources) synced into the day-1
               warehouse, then the changed run: a warehouse of two queries and pages, once
  with rules   the rules excerpt of the tests ingested into the day-1 warehouse, then the changed
               run (a delta that links what it derives again), once
  with full rules  the same with a SYNTHETIC edition of a full one's size (bench/generate_cr.py)
and once: the API plan of the Case query against the loopback FakeScryfall of the tests.
Times are measured inside each child, after its imports; wall times of the processes are printed
too. The floor, both rebuilds and the incremental sync run --repeat times (3 unless told; the
incremental one from a copy of the same data folder each time): the median is the figure, and
every run's time is in the JSON (runs_s). Not part of the test suite; figures are printed,
never asserted. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench" / "out"
# Words searched in ruling texts: common rules words, rare ones, and one that matches nothing.
# Each of the others is in some of the SYNTHETIC rulings (bench/generate.py makes them from the
# sample's; "counter", "library", "mana value" and "trample", searched until machine M's sixth
# session, were in none, and a search that finds nothing is among the quickest).
SEARCH_WORDS = ["solved", "creature", "attack", "damage", "mirror", "sacrifice", "spell", "token", "exile",
                "battlefield", "ruling 004", "end step", "copy", "clue", "nothing-matches-this", "graveyard",
                "control", "target", "lantern", "hand"]


def child(step: str, args: list[str], keep_stdout: bool = True, env: dict | None = None) -> dict:
    """Run ``python -m bench.child`` and return its figures, wall time and peak RSS (os.wait4);
    its stdout too, unless ``keep_stdout`` is false (a listing too large to hold). ``env``:
    variables set for the child besides this process's."""
    with tempfile.TemporaryDirectory(prefix="casefile-bench-") as tmp:
        result, out_path, err_path = Path(tmp) / "result.json", Path(tmp) / "out", Path(tmp) / "err"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            started = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "bench.child", str(result), *args], cwd=ROOT,
                                    stdout=out, stderr=err, env={**os.environ, **(env or {})})
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"bench: {step} failed (exit {proc.returncode}):\n{err_path.read_text()[-3000:]}")
        figures = json.loads(result.read_text())
        figures.update({"wall_s": wall, "stdout": out_path.read_text() if keep_stdout else "",
                        "peak_rss_mb": usage.ru_maxrss / 1024})
    return figures


def searches(db: Path, n: int) -> list[float]:
    """``casefile search`` as the command runs it (pipeline/lookup.py, sql/read/search_rulings.sql)
    on a read-only connection, timed from the query's text to its ranked rows."""
    from pipeline.lookup import search
    from pipeline.reader import open_reader

    con = open_reader(db)
    times = []
    try:
        search(con, "warm up")
        for i in range(n):
            started = time.perf_counter()
            search(con, SEARCH_WORDS[i % len(SEARCH_WORDS)])
            times.append((time.perf_counter() - started) * 1000)
    finally:
        con.close()
    return times


def first_searches(data: Path) -> dict:
    """Each of SEARCH_WORDS searched first in a new process: ``bench.child first-search`` times
    the open of the read-only connection and the query; ``casefile search`` run whole gives the
    command's own time (after the CLI module's import, as every casefile child) and its wall
    time (the interpreter's start and every import too). Medians, with every figure."""
    db = data / "warehouse" / "casefile.duckdb"
    opens, queries, commands, walls = [], [], [], []
    for word in SEARCH_WORDS:
        first = child("first search", ["first-search", str(db), word], keep_stdout=False)
        opens.append(first["open_s"] * 1000)
        queries.append(first["query_s"] * 1000)
        command = child("search command", ["casefile", "--data-dir", str(data), "search", word], keep_stdout=False)
        commands.append(command["seconds"] * 1000)
        walls.append(command["wall_s"] * 1000)
    return {"search_first_ms_p50": round(statistics.median(queries), 2),
            "search_open_ms_p50": round(statistics.median(opens), 2),
            "search_command_ms_p50": round(statistics.median(commands), 2),
            "search_command_wall_ms_p50": round(statistics.median(walls), 2),
            "first_search_ms": {"open": [round(t, 1) for t in opens], "query": [round(t, 1) for t in queries],
                                "command": [round(t, 1) for t in commands],
                                "command_wall": [round(t, 1) for t in walls]}}


def searches_translated(db: Path, n: int) -> dict:
    """The searches above on a copy of the warehouse where every ruling has a SYNTHETIC French
    copy, its key filled by a writer (bench/translations.py): a sync of listeblanche.fr pages
    gives such copies, which the bulk plan never brings."""
    from bench.translations import search_figures, translate

    with tempfile.TemporaryDirectory(prefix="casefile-bench-") as tmp:
        copy = Path(tmp) / "casefile.duckdb"
        shutil.copyfile(db, copy)
        fill_s = translate(copy)
        return {**search_figures(copy, n), "fill_s": round(fill_s, 3)}


def reports(db: Path) -> dict[str, float]:
    """Each report as ``casefile report NAME`` builds it (pipeline/report.py), rendered as a table."""
    from pipeline.report import REPORTS, run_report

    times = {}
    for name in REPORTS:
        started = time.perf_counter()
        run_report(db, name, "table")
        times[name] = time.perf_counter() - started
    return times


def api_plan() -> dict:
    """The Case query's live sync against FakeScryfall on loopback: requests and wall vs pacing."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.fake_scryfall import FakeScryfall
    from support.sample_data import sample_api_data

    from pipeline.config import API_INTERVAL_S, SEARCH_INTERVAL_S
    from pipeline.extract.http import PACING_MARGIN_S

    cards, rulings, sets = sample_api_data()
    data = Path(tempfile.mkdtemp(prefix="casefile-bench-api-"))
    try:
        with FakeScryfall(cards, rulings, sets) as fake:
            figures = child("api plan", ["casefile", "--data-dir", str(data), "--log-format", "json", "sync", "--sources", "api",
                                         "--api-url", fake.url])
            log = fake.requests
    finally:
        shutil.rmtree(data, ignore_errors=True)
    pages = sum(1 for r in log if r.path == "/cards/search")
    oracle = sum(1 for r in log if r.path.endswith("/rulings"))
    set_requests = sum(1 for r in log if r.path.startswith("/sets/"))
    required, last_search = 0.0, None
    for i, r in enumerate(log[1:], 1):  # the least time between request i-1 and i the pacing allows
        gap = API_INTERVAL_S + PACING_MARGIN_S
        if r.path == "/cards/search" and last_search is not None:
            gap = max(gap, SEARCH_INTERVAL_S + PACING_MARGIN_S - (log[i - 1].t - log[last_search].t))
        if log[i - 1].path == "/cards/search":
            last_search = i - 1
        required += gap
    span = log[-1].t - log[0].t
    return {"requests": len(log), "search_pages": pages, "oracle_cards": oracle, "sets": set_requests,
            "pacing_s": round(required, 3), "fetch_span_s": round(span, 3),
            "fetch_vs_pacing": round(span / required, 3) if required else None,
            "sync_s": round(figures["seconds"], 3)}


def _median(steps: list[dict]) -> dict:
    """The step whose time is the median (the lower middle one of an even count)."""
    return sorted(steps, key=lambda step: step["seconds"])[(len(steps) - 1) // 2]


def copy_data(source: Path, target: Path) -> None:
    """``target`` made a copy of the data folder ``source``: the raw store and the cache
    hard-linked (casefile never writes a file of either in place: new files are written whole
    and renamed, old ones deleted), the rest (the warehouse, the lock file) copied and flushed
    to disk (``copy_flushed``)."""
    linked = [source / "raw", source / "cache"]

    def copy(src: str, dst: str) -> None:
        if any(Path(src).is_relative_to(folder) for folder in linked):
            os.link(src, dst)
        else:
            copy_flushed(src, dst)

    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, copy_function=copy)


def copy_flushed(src: str | Path, dst: str | Path) -> None:
    """Copy a file and flush the copy to disk before a step is timed on it. A scheduled sync
    opens a warehouse written a day before, long on disk; a copy just made is in the page cache,
    not yet written, and the sync's checkpoint at close (an fsync of the file) would write the
    whole copy: some 0.1 s of a 1x sync's time that is the bench's copying, not the sync's work
    (bench/FINDINGS.md, "Machine L")."""
    shutil.copy2(src, dst)
    fd = os.open(dst, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def bench_scale(scale: float, n_searches: int, keep: bool, repeat: int, one_data: Path | None = None) -> dict:
    """The figures of one scale. ``one_data``: at 1x, where to keep a copy of the data folder
    after the first sync; at another scale, that copy, for rebuilds that alternate with this
    scale's (``rebuild_vs_1x_interleaved``)."""
    base_dir = OUT / f"s{scale:g}"
    t = time.perf_counter()
    # In a process of its own: a child's peak RSS counts its parent's at fork, so the runner
    # must stay small.
    subprocess.run([sys.executable, "-m", "bench.generate", "--scale", str(scale), "--out", str(base_dir / "source")],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    from bench.generate import run_dirs

    runs = run_dirs(base_dir / "source")
    generated = time.perf_counter() - t
    raw_bytes = sum(p.stat().st_size for p in (runs["base"] / "docs").rglob("*") if p.is_file())
    data = base_dir / "data"
    shutil.rmtree(data, ignore_errors=True)
    incremental_data = base_dir / "data-incremental"  # a copy of data, then the changed run on top
    db = incremental_data / "warehouse" / "casefile.duckdb"  # as the last incremental sync left it

    # Each timed step `repeat` times, its median reported (one run of this machine moves by ±5 %).
    first = child("first sync", ["casefile", "--data-dir", str(data), "-q", "sync", "--offline", str(runs["base"])])
    # The floor, the rebuild and the incremental sync in turns, so that the drift of the
    # machine's speed reaches all three alike (the targets are their ratios). Each incremental
    # sync runs on a copy of the data folder just rebuilt, and each must report the same changes.
    # The quiet day (one card and one ruling edited) runs last in each turn, on a copy of its own.
    # The next day runs on a copy of the folder the incremental sync left, after it in each turn,
    # then again on another copy with a close that compacts (CASEFILE_COMPACT_EVERY=1), as one
    # sync in seven does.
    floors, rebuilds, incrementals, summaries, quiets, nexts, compactings = [], [], [], [], [], [], []
    column_floors = []
    quiet_data = base_dir / "data-quiet"
    next_data = base_dir / "data-next"
    for _ in range(repeat):
        floors.append(child("floor", ["floor", str(runs["base"]), str(base_dir / "floor.duckdb")]))
        (base_dir / "floor.duckdb").unlink(missing_ok=True)
        column_floors.append(child("floor of the fields read", ["floor-columns", str(runs["base"]),
                                                                str(base_dir / "floor.duckdb")]))
        (base_dir / "floor.duckdb").unlink(missing_ok=True)
        rebuilds.append(child("rebuild", ["casefile", "--data-dir", str(data), "--log-format", "json", "-q", "rebuild"]))
        copy_data(data, incremental_data)
        incrementals.append(child("incremental", ["casefile", "--data-dir", str(incremental_data), "--log-format",
                                                  "json", "-q", "sync", "--offline", str(runs["changed"])]))
        summaries.append(json.loads(incrementals[-1]["stdout"].strip().splitlines()[-1]))
        copy_data(incremental_data, next_data)
        nexts.append(child("next day", ["casefile", "--data-dir", str(next_data), "--log-format", "json", "-q",
                                        "sync", "--offline", str(runs["next"])]))
        copy_data(incremental_data, next_data)
        compactings.append(child("next day, compacting", [
            "casefile", "--data-dir", str(next_data), "--log-format", "json", "-q", "sync", "--offline",
            str(runs["next"])], env={"CASEFILE_COMPACT_EVERY": "1"}))
        copy_data(data, quiet_data)
        quiets.append(child("quiet incremental", ["casefile", "--data-dir", str(quiet_data), "--log-format", "json",
                                                  "-q", "sync", "--offline", str(runs["quiet"])]))
    shutil.rmtree(quiet_data, ignore_errors=True)
    shutil.rmtree(next_data, ignore_errors=True)
    # This scale against 1x, each pair of rebuilds (one run each) made one after the other: this
    # machine's speed can drift by more than 10 % over the minutes between two scales' rebuilds.
    interleaved, interleaved_rss = {}, 0.0
    if one_data is not None and scale == 1.0:
        copy_data(data, one_data)
    elif one_data is not None:
        ones, ours = [], []
        for _ in range(repeat):
            ones.append(child("1x rebuild", ["casefile", "--data-dir", str(one_data), "-q", "rebuild"]))
            ours.append(child("rebuild", ["casefile", "--data-dir", str(data), "-q", "rebuild"]))
        interleaved_rss = max(r["peak_rss_mb"] for r in ours)  # this scale's rebuilds (the 1x ones are 1x's)
        interleaved = {"rebuild_vs_1x_interleaved": round(_median(ours)["seconds"] / _median(ones)["seconds"], 3),
                       "interleaved_runs_s": {"1x": [round(r["seconds"], 3) for r in ones],
                                              f"{scale:g}x": [round(r["seconds"], 3) for r in ours]}}
    # The same without data/cache/ (the line scans the first sync kept): what a rebuild costs
    # after the cache is deleted. It writes the cache again, so the incremental sync is as before.
    colds = []
    for _ in range(repeat):
        shutil.rmtree(data / "cache", ignore_errors=True)
        colds.append(child("rebuild without cache", ["casefile", "--data-dir", str(data), "-q", "rebuild"]))
    before = base_dir / "data-before-incremental"  # day 1 alone, for the steps below
    copy_data(data, before)
    # The least an incremental sync does (bench/child.py incremental_floor), on a copy of the
    # warehouse the incremental syncs started from.
    floor_db = base_dir / "incremental-floor.duckdb"
    inc_floors = []
    for _ in range(repeat):
        copy_flushed(before / "warehouse" / "casefile.duckdb", floor_db)
        inc_floors.append(child("incremental floor", ["incremental-floor", str(runs["changed"]), str(floor_db)]))
    floor_db.unlink(missing_ok=True)
    # What a live sync of the changed run adds to its offline replay: its bulk files written to
    # the raw store, hashed and flushed (bench/child.py raw_write).
    raw_writes = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="casefile-bench-raw-", dir=base_dir) as folder:
            raw_writes.append(child("raw write", ["raw-write", str(runs["changed"]), folder]))
    mixed = _mixed(before, base_dir / "data-mixed", runs["changed"])
    with_rules = _with_rules(before, base_dir / "data-rules", runs["changed"])
    with_full_rules = _with_full_rules(before, base_dir / "data-full-rules", runs["changed"])
    shutil.rmtree(before, ignore_errors=True)
    changes = [{k: got.get(k) for k in ("inserted", "updated", "removed")} for got in summaries]
    if any(c != changes[0] for c in changes):
        raise SystemExit(f"bench: the incremental syncs of one start did not agree: {changes}")
    summary = summaries[0]
    rows = summary.get("rows", {})
    floor, rebuild, cold, incremental, inc_floor, quiet, nxt, compacting, column_floor, raw_write = (
        _median(steps) for steps in (floors, rebuilds, colds, incrementals, inc_floors, quiets, nexts, compactings,
                                     column_floors, raw_writes))
    wall_pairs = [inc["wall_s"] / reb["wall_s"] for reb, inc in zip(rebuilds, incrementals)]
    next_pairs = [n["seconds"] / reb["seconds"] for reb, n in zip(rebuilds, nexts)]
    compacting_pairs = [c["seconds"] / reb["seconds"] for reb, c in zip(rebuilds, compactings)]
    compacting_summary = json.loads(compacting["stdout"].strip().splitlines()[-1])
    next_summary = json.loads(nxt["stdout"].strip().splitlines()[-1])
    pairs = [inc["seconds"] / reb["seconds"] for reb, inc in zip(rebuilds, incrementals)]
    quiet_pairs = [q["seconds"] / reb["seconds"] for reb, q in zip(rebuilds, quiets)]
    quiet_summary = json.loads(quiet["stdout"].strip().splitlines()[-1])
    floor_pairs = [reb["seconds"] / flo["seconds"] for flo, reb in zip(floors, rebuilds)]
    phases = summaries[incrementals.index(incremental)].get("timings_s", {})  # the median run's
    rebuild_phases = json.loads(rebuild["stdout"].strip().splitlines()[-1]).get("timings_s", {})
    times = searches(db, n_searches)
    process_searches = first_searches(incremental_data)
    translated = searches_translated(db, n_searches)
    report_times = reports(db)
    # In a child: every run's events at 4x are hundreds of MB of rows, which the runner would keep
    # (and each later child would count at its fork).
    listing = child("changes", ["casefile", "--data-dir", str(incremental_data), "changes", "--since", "2000-01-01"],
                    keep_stdout=False)
    if not keep:
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(incremental_data, ignore_errors=True)
    # every casefile process of this scale that builds, loads or lists, by its step (the searches'
    # processes, which read little, aside): the peak is the largest of them all
    peaks = {"first sync": first["peak_rss_mb"], "rebuild": max(max(r["peak_rss_mb"] for r in rebuilds), interleaved_rss),
             "rebuild without data/cache/": max(r["peak_rss_mb"] for r in colds),
             "incremental sync": max(r["peak_rss_mb"] for r in incrementals),
             "prices only": max(r["peak_rss_mb"] for r in quiets), "next day": max(r["peak_rss_mb"] for r in nexts),
             "next day, compacting": max(r["peak_rss_mb"] for r in compactings), "changes": listing["peak_rss_mb"],
             **{f"{group}: {name}": step["peak_rss_mb"] for group, steps in (
                 ("mixed", mixed), ("with rules", with_rules), ("with a full-size edition", with_full_rules))
                for name, step in steps.items()}}
    peak_step = max(peaks, key=peaks.get)
    return {
        "scale": scale, "raw_mb": round(raw_bytes / 2**20, 1), "generated_s": round(generated, 1),
        "cards": rows.get("card"), "printings": rows.get("printing"), "rulings": rows.get("ruling"),
        "card_rulings": rows.get("card_ruling"),
        "repeat": repeat, "floor_s": round(floor["seconds"], 3), "floor_wall_s": round(floor["wall_s"], 3),
        # the floor of the card and rulings files' fields casefile reads (bench/child.py floor, narrow)
        "floor_columns_s": round(column_floor["seconds"], 3),
        "ratio_to_floor_columns": round(rebuild["seconds"] / column_floor["seconds"], 3),
        "first_sync_s": round(first["seconds"], 3),
        "rebuild_s": round(rebuild["seconds"], 3), "rebuild_wall_s": round(rebuild["wall_s"], 3),
        "ratio": round(rebuild["seconds"] / floor["seconds"], 3),
        # each rebuild over the floor run just before it
        "ratio_in_turns": round(statistics.median(floor_pairs), 3),
        "ratio_pairs": [round(p, 3) for p in floor_pairs],
        "rebuild_cold_s": round(cold["seconds"], 3),
        "incremental_s": round(incremental["seconds"], 3),
        "incremental_vs_rebuild": round(incremental["seconds"] / rebuild["seconds"], 3),
        # each incremental sync over the rebuild just before it
        "incremental_vs_rebuild_in_turns": round(statistics.median(pairs), 3),
        "incremental_vs_rebuild_pairs": [round(p, 3) for p in pairs],
        # the same as the processes' wall times: the interpreter's start, the imports and the exit too
        "incremental_wall_s": round(incremental["wall_s"], 3),
        "incremental_wall_vs_rebuild_wall_in_turns": round(statistics.median(wall_pairs), 3),
        # what a live sync adds: the changed run's bulk files written, hashed and flushed
        "raw_write_s": round(raw_write["seconds"], 3),
        # a day when nothing but the prices changed, besides one card and one ruling: what a
        # delta costs whatever the size of the change
        "quiet_incremental_s": round(quiet["seconds"], 3),
        "quiet_vs_rebuild": round(quiet["seconds"] / rebuild["seconds"], 3),
        "quiet_vs_rebuild_in_turns": round(statistics.median(quiet_pairs), 3),
        "quiet_changes": {k: quiet_summary.get(k) for k in ("inserted", "updated", "removed")},
        "quiet_timings_s": quiet_summary.get("timings_s", {}),
        # the day after, on the folder the incremental sync left: a delta after a delta, as a
        # scheduled sync runs day after day ("build" says it was one)
        "next_incremental_s": round(nxt["seconds"], 3),
        "next_vs_rebuild": round(nxt["seconds"] / rebuild["seconds"], 3),
        "next_vs_rebuild_in_turns": round(statistics.median(next_pairs), 3),
        "next_vs_rebuild_pairs": [round(p, 3) for p in next_pairs],
        "next_build": next_summary.get("build"),
        "next_changes": {k: next_summary.get(k) for k in ("inserted", "updated", "removed")},
        "next_timings_s": next_summary.get("timings_s", {}),
        # the same day when its close compacts the row groups (one sync in seven after deltas)
        "next_compacting_s": round(compacting["seconds"], 3),
        "next_compacting_vs_rebuild": round(compacting["seconds"] / rebuild["seconds"], 3),
        "next_compacting_vs_rebuild_in_turns": round(statistics.median(compacting_pairs), 3),
        "next_compacting_timings_s": compacting_summary.get("timings_s", {}),
        "incremental_floor_s": round(inc_floor["seconds"], 3),
        "incremental_floor_vs_rebuild": round(inc_floor["seconds"] / rebuild["seconds"], 3),
        # the CPU time of the median runs (user + system, every thread, over the span their
        # seconds measure), and what the incremental one's would take spread perfectly over every
        # core: a lower bound of its time on this machine
        "cpu_s": {"floor": round(floor["cpu_s"], 3), "rebuild": round(rebuild["cpu_s"], 3),
                  "incremental": round(incremental["cpu_s"], 3)},
        "cores": os.cpu_count(),
        "incremental_cpu_bound_s": round(incremental["cpu_s"] / (os.cpu_count() or 1), 3),
        "incremental_changes": changes[0],
        "incremental_build": summary.get("build"),  # "python" under 16 MiB of raw files, else "sql" or "delta"
        "incremental_timings_s": phases,
        "rebuild_timings_s": rebuild_phases,
        "runs_s": {name: [round(step["seconds"], 3) for step in steps] for name, steps in (
            ("floor", floors), ("rebuild", rebuilds), ("rebuild_cold", colds), ("incremental", incrementals),
            ("quiet_incremental", quiets), ("next_incremental", nexts), ("next_compacting", compactings),
            ("incremental_floor", inc_floors), ("floor_columns", column_floors), ("raw_write", raw_writes))},
        "peak_rss_mb": round(peaks[peak_step], 1), "peak_rss_step": peak_step,
        "rebuild_rss_mb": round(max(step["peak_rss_mb"] for step in rebuilds), 1),
        "floor_rss_mb": round(max(step["peak_rss_mb"] for step in floors), 1),
        "search_ms_p50": round(statistics.median(times), 2), "search_ms_max": round(max(times), 2),
        "searches": len(times), **process_searches, "search_translated": translated,
        "reports_s": {k: round(v, 3) for k, v in report_times.items()},
        "changes_s": round(listing["seconds"], 3), "changes_rss_mb": round(listing["peak_rss_mb"], 1),
        "mixed": mixed,
        "with_rules": with_rules,
        "with_full_rules": with_full_rules,
        **interleaved,
    }


def _mixed(before: Path, data: Path, changed: Path) -> dict:
    """The bulk warehouse of day 1 shared with the type:"Case" query and its page sources: the
    bundled sample synced into it, then day 2's bulk run (built whole: a delta needs the bulk
    view alone)."""
    return _steps_on_copy(before, data, "mixed", {"case_with_pages": ["sync", "--offline"],
                                                  "next_bulk_day": ["sync", "--offline", str(changed)]})


def _with_rules(before: Path, data: Path, changed: Path) -> dict:
    """The bulk warehouse of day 1 with the bundled Comprehensive Rules excerpt ingested (a full
    build that links every ruling and card), then day 2's bulk run (a delta that links what it
    derives again)."""
    excerpt = ROOT / "tests" / "fixtures" / "rules" / "cr_case_excerpt.txt"
    return _steps_on_copy(before, data, "with rules", {"rules_ingest": ["rules", "ingest", str(excerpt)],
                                                       "next_bulk_day": ["sync", "--offline", str(changed)]})


def _with_full_rules(before: Path, data: Path, changed: Path) -> dict:
    """As ``_with_rules``, with a SYNTHETIC edition of a full one's size (bench/generate_cr.py:
    4,472 rules, 700 glossary entries) instead of the 14-rule excerpt, which hides what grows with
    the edition."""
    from bench.generate_cr import edition

    text = OUT / "cr_synthetic.txt"
    text.write_text(edition(), encoding="utf-8")
    return _steps_on_copy(before, data, "with a full-size edition", {
        "rules_ingest": ["rules", "ingest", str(text)], "next_bulk_day": ["sync", "--offline", str(changed)]})


def _steps_on_copy(before: Path, data: Path, label: str, steps: dict[str, list[str]]) -> dict:
    """casefile ``steps`` (name -> arguments), in order, once each, on a copy of the data folder
    ``before`` at ``data`` (deleted afterwards); the time and peak RSS of each."""
    copy_data(before, data)
    try:
        done = {name: child(f"{label}: {name}", ["casefile", "--data-dir", str(data), "-q", *args])
                for name, args in steps.items()}
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return {name: {"seconds": round(step["seconds"], 3), "peak_rss_mb": round(step["peak_rss_mb"], 1)}
            for name, step in done.items()}


def show(fig: dict) -> None:
    f = fig["floor_s"]
    print(f"scale {fig['scale']:g}: {fig['raw_mb']} MB raw; {fig['cards']} cards, {fig['printings']} printings, "
          f"{fig['rulings']} rulings, {fig['card_rulings']} card-ruling links (SYNTHETIC data)")
    print(f"  floor (read_json into plain tables)  {f:8.3f} s   1.00x floor  (process {fig['floor_wall_s']:.3f} s)")
    for label, key in (("first sync --offline", "first_sync_s"), ("rebuild", "rebuild_s"),
                       ("incremental sync (1 % changed)", "incremental_s")):
        print(f"  {label:<36} {fig[key]:8.3f} s   {fig[key] / f:4.2f}x floor")
    print(f"  rebuild / floor in turns             {fig['ratio_in_turns']:8.3f}   (pairs {_listed(fig['ratio_pairs'])})")
    print(f"  floor of the fields casefile reads   {fig['floor_columns_s']:8.3f} s   rebuild "
          f"{fig['ratio_to_floor_columns']:.2f}x it")
    print(f"  rebuild process wall time            {fig['rebuild_wall_s']:8.3f} s   {fig['rebuild_wall_s'] / f:4.2f}x floor")
    print(f"  rebuild without data/cache/          {fig['rebuild_cold_s']:8.3f} s   {fig['rebuild_cold_s'] / f:4.2f}x floor")
    print(f"  incremental / rebuild                {fig['incremental_vs_rebuild']:8.3f}   (in turns: "
          f"{fig['incremental_vs_rebuild_in_turns']:.3f}, pairs {_listed(fig['incremental_vs_rebuild_pairs'])})")
    print(f"  incremental / rebuild, wall times    {fig['incremental_wall_vs_rebuild_wall_in_turns']:8.3f}   (in turns; "
          f"the processes' start and exit too: incremental {fig['incremental_wall_s']:.3f} s)")
    print(f"  raw store writes of a live sync      {fig['raw_write_s']:8.3f} s   (the changed run's bulk files "
          "written, hashed, flushed; not in the offline syncs above)")
    quiet = fig["quiet_changes"]
    print(f"  incremental sync, prices only        {fig['quiet_incremental_s']:8.3f} s   "
          f"{fig['quiet_vs_rebuild']:4.2f}x rebuild (in turns {fig['quiet_vs_rebuild_in_turns']:.3f}; one card and "
          f"one ruling edited: +{quiet['inserted']} ~{quiet['updated']} -{quiet['removed']} rows)")
    nxt = fig["next_changes"]
    print(f"  next day, a delta after a delta      {fig['next_incremental_s']:8.3f} s   "
          f"{fig['next_vs_rebuild']:4.2f}x rebuild (in turns {fig['next_vs_rebuild_in_turns']:.3f}, pairs "
          f"{_listed(fig['next_vs_rebuild_pairs'])}; {fig['next_build']} build: +{nxt['inserted']} "
          f"~{nxt['updated']} -{nxt['removed']} rows)")
    print(f"  next day, its close compacting       {fig['next_compacting_s']:8.3f} s   "
          f"{fig['next_compacting_vs_rebuild']:4.2f}x rebuild (in turns {fig['next_compacting_vs_rebuild_in_turns']:.3f};"
          f" one sync in seven)")
    print(f"  incremental floor (open, scan, close) {fig['incremental_floor_s']:7.3f} s   "
          f"{fig['incremental_floor_vs_rebuild']:4.2f}x rebuild")
    cpu = fig["cpu_s"]
    print(f"  CPU time (user + sys, all threads)   floor {cpu['floor']:.3f} s, rebuild {cpu['rebuild']:.3f} s, "
          f"incremental {cpu['incremental']:.3f} s")
    print(f"  incremental CPU over {fig['cores']} cores         {fig['incremental_cpu_bound_s']:8.3f} s   "
          f"(a quarter of the rebuild: {fig['rebuild_s'] / 4:.3f} s)")
    for name, label, seconds in (("rebuild", "rebuild", "rebuild_s"), ("incremental", "incremental", "incremental_s"),
                                 ("quiet", "prices only", "quiet_incremental_s"),
                                 ("next", "next day", "next_incremental_s"),
                                 ("next_compacting", "compacting", "next_compacting_s")):
        phases = fig.get(f"{name}_timings_s") or {}
        if phases:
            print(f"  {label + ', where the time went':<36} {_phases(phases, fig[seconds])}")
    for name, times in fig["runs_s"].items():
        print(f"  {name + ' runs (s)':<36} {_listed(times)}  (median above)")
    print(f"  peak RSS                             {fig['peak_rss_mb']:8.1f} MB  ({fig['peak_rss_step']}; floor "
          f"process {fig['floor_rss_mb']} MB)")
    print(f"  rulings search, median of {fig['searches']}         {fig['search_ms_p50']:8.2f} ms  (max {fig['search_ms_max']} ms)")
    print(f"  a process's first search, median of {len(fig['first_search_ms']['query'])} "
          f"{fig['search_first_ms_p50']:7.2f} ms  (the open before it {fig['search_open_ms_p50']} ms)")
    print(f"  casefile search, the command         {fig['search_command_ms_p50']:8.2f} ms  "
          f"(the process, wall {fig['search_command_wall_ms_p50']} ms)")
    translated = fig["search_translated"]
    print(f"  search, a French copy of each ruling {translated['warm_ms_p50']:8.2f} ms  (first of a process "
          f"{translated['first_ms_p50']} ms; SYNTHETIC copies, their keys filled in {translated['fill_s']} s)")
    for name, seconds in fig["reports_s"].items():
        print(f"  report {name:<29} {seconds:8.3f} s")
    if not fig["reports_s"]:
        print("  reports                              none in sql/reports/")
    print(f"  changes of every run (a table)       {fig['changes_s']:8.3f} s   peak RSS {fig['changes_rss_mb']} MB")
    for figure, name, label in (("mixed", "case_with_pages", "+ type:\"Case\" with its pages"),
                                ("mixed", "next_bulk_day", "then the next bulk day"),
                                ("with_rules", "rules_ingest", "rules ingest on the day-1 warehouse"),
                                ("with_rules", "next_bulk_day", "then the next bulk day"),
                                ("with_full_rules", "rules_ingest", "full-size edition (SYNTHETIC) ingest"),
                                ("with_full_rules", "next_bulk_day", "then the next bulk day")):
        step = fig[figure][name]
        print(f"  {label:<36} {step['seconds']:8.3f} s   peak RSS {step['peak_rss_mb']:.1f} MB  (one run)")


def _listed(values: list[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def _phases(phases: dict[str, float], total: float) -> str:
    """A step's phases (its summary's timings_s), then what they leave of the measured time:
    imports and start-up."""
    from pipeline import timing

    return f"{timing.describe(phases)}; start-up and the rest {total - timing.top_level(phases):.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description="casefile benchmark (synthetic data)")
    parser.add_argument("--scale", type=float, action="append", help="data scale (repeatable); default 1, 2, 4")
    parser.add_argument("--searches", type=int, default=51)
    parser.add_argument("--no-api", action="store_true", help="skip the loopback API plan measure")
    parser.add_argument("--keep", action="store_true", help="keep the data folders under bench/out/")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each timed step (floor, rebuilds, incremental sync); the median is reported")
    args = parser.parse_args()
    scales = args.scale or [1.0, 2.0, 4.0]
    origin = {"commit": _commit(), "cpu": _cpu_model(), "copies_flushed": True}
    print(f"machine: {platform.machine()}, {origin['cpu'] or 'CPU unknown'}, {os.cpu_count()} cores, "
          f"{_mem_gib():.0f} GiB, Python {platform.python_version()}, DuckDB {_duckdb_version()}; "
          f"code: {origin['commit'] or 'commit unknown'}; data: SYNTHETIC (bench/generate.py)")
    api = None if args.no_api else api_plan()
    if api:
        print(f"API plan, type:\"Case\" on loopback: {api['requests']} requests = {api['search_pages']} search page(s) "
              f"+ {api['oracle_cards']} Oracle cards + {api['sets']} sets; fetch {api['fetch_span_s']:.3f} s for "
              f"{api['pacing_s']:.3f} s of pacing ({api['fetch_vs_pacing']:.3f}x); whole sync {api['sync_s']:.3f} s")
    results = []
    # A copy of the 1x data folder after its first sync stays while other scales follow: their
    # rebuilds alternate with its own.
    one_data = OUT / "s1" / "data-one-run" if 1.0 in scales and len(scales) > 1 else None
    for scale in scales:
        done = [r["scale"] for r in results]
        fig = bench_scale(scale, args.searches, args.keep, max(1, args.repeat),
                          one_data if scale == 1.0 or 1.0 in done else None)
        results.append(fig)
        show(fig)
        one = next((r for r in results if r["scale"] == 1.0), None)
        if one and scale != 1.0:
            fig["rebuild_vs_1x"] = round(fig["rebuild_s"] / one["rebuild_s"], 3)
            print(f"  rebuild vs 1x                        {fig['rebuild_vs_1x']:8.3f}")
            if "rebuild_vs_1x_interleaved" in fig:
                runs = fig["interleaved_runs_s"]
                print(f"  rebuild vs 1x, interleaved runs      {fig['rebuild_vs_1x_interleaved']:8.3f}   "
                      f"(1x: {_listed(runs['1x'])}; {scale:g}x: {_listed(runs[f'{scale:g}x'])})")
        if api:
            fig["api"] = api
        fig.update(origin)  # which code ran, where, and that the synced copies were flushed (copy_flushed)
        print(json.dumps(fig))
    if one_data is not None:
        shutil.rmtree(one_data, ignore_errors=True)


def _mem_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return 0.0


def _commit() -> str | None:
    """The checkout's commit, with "+changes" when files differ from it; None outside git."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        status = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if status.stdout.strip() else "")


def _cpu_model() -> str | None:
    """The CPU's model name as Linux reports it (the hosts of FINDINGS.md are told apart by it)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _duckdb_version() -> str:
    import duckdb

    return duckdb.__version__


if __name__ == "__main__":
    main()
