"""Where one casefile command spends its time, statement by statement.

    python -m bench.statements [--over MS] [--sites N] [--json FILE] -- CASEFILE_ARGS...

For example, the incremental sync of the benchmark at 1x, on a copy of a day-1 data folder:

    python -m bench.statements --over 5 -- --data-dir /tmp/d1 -q sync --offline \
        bench/out/s1/source/20000102T000000.000000Z

Runs the command in this process with every DuckDB connection it opens wrapped, and prints: the
command's time, the share spent inside statements (the rest is Python, and waiting for work on
other threads), the time by call site (the function that ran the statements: ``run_script`` is
looked through to its caller), and each statement over ``--over`` milliseconds in the order they
ran, labelled by their first line of SQL. Statements run on cursors (the line scans, on threads
of their own) are recorded too, marked with their thread. A statement's time is that of its
``execute`` call, which for DuckDB includes running the query and building its result.

A development tool, not part of the tests' figures: the wrapping adds a few microseconds a
statement (a sync runs some 270).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb

_LOOKED_THROUGH = ("sqlexec.py", "statements.py")


@dataclass
class Statement:
    seconds: float
    site: str    # module:function that ran it
    thread: str  # "main", or the name of the thread that ran it
    sql: str     # its first line of SQL (comments skipped), shortened
    ended: float = 0.0  # when it ended, in seconds since the recording began


def label(sql: object, width: int = 110) -> str:
    """The first line of a statement that is not a comment, shortened to ``width``: of its text,
    or of the text of a statement DuckDB parsed (``extract_statements``)."""
    text = sql if isinstance(sql, str) else getattr(sql, "query", None) or str(sql)
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("--"):
            return line if len(line) <= width else line[:width - 1] + "…"
    return text.strip()[:width]


def _site() -> str:
    frame = sys._getframe(2)
    while frame is not None and Path(frame.f_code.co_filename).name in _LOOKED_THROUGH:
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{Path(frame.f_code.co_filename).stem}:{frame.f_code.co_name}"


class _Recorded:
    """A DuckDB connection whose ``execute`` calls are timed into ``record``."""

    def __init__(self, con: duckdb.DuckDBPyConnection, record: list[Statement], origin: float):
        object.__setattr__(self, "_con", con)
        object.__setattr__(self, "_record", record)
        object.__setattr__(self, "_origin", origin)

    def __getattr__(self, name: str):
        return getattr(self._con, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._con, name, value)

    def execute(self, query, *args, **kwargs):
        started = time.perf_counter()
        try:
            return self._con.execute(query, *args, **kwargs)
        finally:
            self._add(time.perf_counter() - started, _site(), label(query))

    def cursor(self) -> _Recorded:
        return _Recorded(self._con.cursor(), self._record, self._origin)

    def close(self) -> None:
        started = time.perf_counter()
        try:
            self._con.close()
        finally:
            self._add(time.perf_counter() - started, _site(), "(close: checkpoint and release)")

    def _add(self, seconds: float, site: str, sql: str) -> None:
        thread = threading.current_thread()
        name = "main" if thread is threading.main_thread() else thread.name
        self._record.append(Statement(seconds, site, name, sql, time.perf_counter() - self._origin))


@contextmanager
def recording() -> Iterator[list[Statement]]:
    """Every statement run on connections opened by ``duckdb.connect`` inside the block (and on
    their cursors), in the order they ended; ``duckdb.connect`` is itself again afterwards."""
    record: list[Statement] = []
    original = duckdb.connect
    origin = time.perf_counter()

    def connect(*args, **kwargs):
        return _Recorded(original(*args, **kwargs), record, origin)

    duckdb.connect = connect
    try:
        yield record
    finally:
        duckdb.connect = original


def by_site(record: list[Statement]) -> list[tuple[str, float, int]]:
    """(site, seconds, statements), the costliest first."""
    sites: dict[str, list] = {}
    for statement in record:
        entry = sites.setdefault(statement.site, [0.0, 0])
        entry[0] += statement.seconds
        entry[1] += 1
    return sorted(((site, s, n) for site, (s, n) in sites.items()), key=lambda row: -row[1])


def report(record: list[Statement], total: float, over_ms: float, n_sites: int) -> str:
    main = [s for s in record if s.thread == "main"]
    inside = sum(s.seconds for s in main)
    small = [s for s in main if s.seconds * 1000 < over_ms]
    lines = [f"command {total:.3f} s; statements on the main thread {len(main)}, {inside:.3f} s "
             f"({inside / total:.0%}); the rest {total - inside:.3f} s (Python, waiting for other threads)",
             f"statements under {over_ms:g} ms: {len(small)}, {sum(s.seconds for s in small):.3f} s in all",
             "", "by call site (main thread):"]
    for site, seconds, n in by_site(main)[:n_sites]:
        lines.append(f"  {seconds * 1000:8.1f} ms {n:5d}  {site}")
    others = [s for s in record if s.thread != "main"]
    if others:
        lines.append(f"on other threads: {len(others)} statements, {sum(s.seconds for s in others):.3f} s")
    lines += ["", f"statements over {over_ms:g} ms, in order:"]
    for s in record:
        if s.seconds * 1000 >= over_ms:
            where = s.site if s.thread == "main" else f"{s.site} [{s.thread}]"
            lines.append(f"  {s.seconds * 1000:8.1f} ms  {where:32s} {s.sql}")
    return "\n".join(lines)


def parse_with_command(parser: argparse.ArgumentParser, argv: list[str] | None,
                       example: str) -> tuple[argparse.Namespace, list[str]]:
    """The options, and the casefile command given after ``--`` (an error without one)."""
    parser.add_argument("casefile_args", nargs=argparse.REMAINDER, help="the casefile command, after --")
    args = parser.parse_args(argv)
    command = args.casefile_args[1:] if args.casefile_args[:1] == ["--"] else args.casefile_args
    if not command:
        parser.error(f"give the casefile command after --, e.g. -- {example}")
    return args, command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.statements", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--over", type=float, default=5.0, metavar="MS",
                        help="list each statement that takes at least MS milliseconds (default 5)")
    parser.add_argument("--sites", type=int, default=20, metavar="N", help="call sites shown (default 20)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every statement to FILE")
    args, command = parse_with_command(parser, argv, "--data-dir D -q sync --offline")
    from pipeline.cli import main as casefile

    with recording() as record:
        started = time.perf_counter()
        code = casefile(command)
        total = time.perf_counter() - started
    print(report(record, total, args.over, args.sites), file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"seconds": total, "exit": code,
                                         "statements": [asdict(s) for s in record]}, indent=1), "utf-8")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
