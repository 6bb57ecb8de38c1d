"""Reports on the warehouse: set statistics, the MTG wiki's color box, rulings by source and origin.

Runs ``sql/reports/*.sql`` on a read-only connection and returns text rendered by the shared
formatters (``formats.render``; ``html_report`` for pages). Writes nothing, opens no network.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import duckdb

from . import html_report
from .errors import UsageError, cut
from .formats import REPORT_FORMATS, REPORT_NAMES, REPORTS, records, render
from .reader import open_reader, query as run_query
from .resources import read_sql

log = logging.getLogger(__name__)

TITLES = {"sets": "Set statistics", "colors": "Statistics by color", "rulings": "Rulings"}

# The MTG wiki's Statistics box lists colorless first, then the five colors in WUBRG order.
COLOR_COLUMNS = ("colorless", "white", "blue", "black", "red", "green")
RARITY_COLUMNS = ("common", "uncommon", "rare", "mythic", "special", "bonus")

ATTRIBUTION = ("Card data and rulings from Scryfall (https://scryfall.com) and Wizards of the Coast. "
               "casefile is unofficial Fan Content permitted under the Wizards of the Coast Fan Content "
               "Policy; it is not approved or endorsed by Wizards. Portions of the materials used are "
               "property of Wizards of the Coast. ©Wizards of the Coast LLC.")


@dataclass(frozen=True)
class Scope:
    """What a report covers: ``label`` names the query (or queries), ``run_id`` the latest run."""

    label: str
    run_id: str
    queries: tuple[str, ...]
    note: str = ""


# Rows of a detail table an HTML page shows at most: a page of 70,000 rulings is no page to read.
DETAIL_ROWS = 1000
# Bars of a chart at most (the first ones, in the order the chart gives): the table keeps every row.
CHART_BARS = 60


def _chart(title: str, series: list[tuple[str, str]], bars: list, unit: str, what: str,
           total: int | None = None) -> html_report.BarChart:
    """A bar chart of at most CHART_BARS bars; a longer one says what it shows of how many
    (``total``: how many bars there would be, when ``bars`` holds only the first ones)."""
    total = len(bars) if total is None else total
    if total > CHART_BARS:
        title += f" (the first {CHART_BARS} {what} of {total:,})"
    return html_report.BarChart(title, series, bars[:CHART_BARS], unit=unit)


@dataclass
class Detail:
    """A table shown on the HTML page only, under the report's own table and charts."""

    title: str
    columns: list[str]
    rows: list[tuple]


@dataclass
class Report:
    name: str
    title: str
    columns: list[str]
    rows: list[tuple]
    charts: list[html_report.BarChart] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)


def resolve_scope(con: duckdb.DuckDBPyConnection, query: str | None) -> Scope:
    """What a report covers: the cards of ``--query`` (from ``query_card``), or every card.

    With ``--query``, temporary views named like the tables (sql/reports/scope_views.sql) shadow
    them on this read-only connection, so the report SQL reads only that query's cards. Without
    it, a warehouse holding several queries is reported whole, and says so.
    """
    _, rows = run_query(con, read_sql("reports/scope.sql"))
    if not rows:
        raise UsageError("the warehouse holds no synced cards yet: run `casefile sync` first")
    queries = tuple(r[0] for r in rows)
    known = ", ".join(queries)
    if query is not None:
        if query not in queries:
            raise UsageError(f"--query {cut(query)}: the warehouse holds no cards of that query (it holds: {known})")
        _scope_to(con, query)
        latest = next(r[1] for r in rows if r[0] == query)
        return Scope(label=query, run_id=latest, queries=(query,))
    latest_run = rows[0][1]  # the latest run of the queries reported (a rules ingest is of none)
    if len(queries) == 1:
        return Scope(label=queries[0], run_id=latest_run, queries=queries)
    note = f"the warehouse holds the cards of {len(queries)} queries ({known}); this report covers all of them"
    return Scope(label=" + ".join(queries), run_id=latest_run, queries=queries, note=note)


def _scope_to(con: duckdb.DuckDBPyConnection, query: str) -> None:
    catalog = run_query(con, "SELECT current_database()")[1][0][0]
    ident = '"' + catalog.replace('"', '""') + '"'  # an identifier: cannot be a bound parameter
    statements = read_sql("reports/scope_views.sql").split(";")
    if not run_query(con, read_sql("read/has_table.sql"), {"name": "query_wiki_page"})[1][0][0]:
        # a warehouse no writer of this version has opened yet
        first_runs = read_sql("reports/scope_page_first_runs.sql")
        statements = [first_runs if "TABLE scope_page" in s else s for s in statements]
    for statement in (s.replace("{db}", ident) for s in statements):
        if "CREATE" in statement:
            run_query(con, statement, {"query": query} if "$query" in statement else None)


def wiki_share(count: int, total: int) -> str:
    """A share as the MTG wiki prints it: percent to one decimal, rounded half up, no trailing ".0".

    1 of 15 is "6.7%", 3 of 15 "20%", 4 of 15 "26.7%". Integer arithmetic, so 1 of 16 is "6.3%".
    """
    if total <= 0:
        return ""
    tenths = (2000 * count + total) // (2 * total)  # round(1000 * count / total), halves up
    whole, tenth = divmod(tenths, 10)
    return f"{whole}%" if tenth == 0 else f"{whole}.{tenth}%"


def _fetch(con, name: str) -> tuple[list[str], list[tuple]]:
    return run_query(con, read_sql(f"reports/{name}.sql"))


def sets_report(con) -> Report:
    columns, rows = _fetch(con, "sets")
    frame = [dict(zip(columns, row)) for row in rows]
    charts = [
        _chart("Cards by color per set", [(c, html_report.COLOR_FILLS[c]) for c in COLOR_COLUMNS + ("multicolored",)],
               [(r["set"], [r[c] for c in COLOR_COLUMNS + ("multicolored",)]) for r in frame], " cards", "sets"),
        _chart("Cards by rarity per set", [(c, html_report.RARITY_FILLS[c]) for c in RARITY_COLUMNS],
               [(r["set"], [r[c] for c in RARITY_COLUMNS]) for r in frame], " cards", "sets"),
    ]
    return Report("sets", TITLES["sets"], columns, rows, charts)


def colors_report(con, scope: Scope) -> Report:
    columns, rows = _fetch(con, "colors")
    counts = dict(zip(columns, rows[0]))
    total = counts["cards"]
    shown = list(COLOR_COLUMNS)
    if counts["multicolored"]:
        shown.append("multicolored")
    unknown = total - sum(counts[c] for c in COLOR_COLUMNS + ("multicolored",))
    counts["unknown"] = unknown
    if unknown:
        shown.append("unknown")
    box = (scope.label, f"{total} cards", *(wiki_share(counts[c], total) for c in shown))
    chart = html_report.BarChart("Cards by color", [("cards", html_report.SINGLE_FILL)],
                                 [(c, [counts[c]]) for c in shown], unit=" cards")
    return Report("colors", TITLES["colors"], ["statistics", "cards", *shown], [box], [chart])


def rulings_report(con, page: bool = True) -> Report:
    """``page``: also the chart and the detail table of the HTML page (two more queries: every
    card's count of rulings, and the first ``DETAIL_ROWS`` rulings seen on one origin only)."""
    columns, rows = _fetch(con, "rulings")
    if not page:
        return Report("rulings", TITLES["rulings"], columns, rows)
    _, per_card = run_query(con, read_sql("reports/rulings_per_card.sql"), {"limit": CHART_BARS})
    chart = _chart("Rulings per card", [("rulings", html_report.SINGLE_FILL)],
                   [(name, [n]) for name, n, _ in per_card], " rulings", "cards, most rulings first,",
                   total=per_card[0][2] if per_card else 0)
    columns_one, one = run_query(con, read_sql("reports/rulings_one_origin.sql"), {"limit": DETAIL_ROWS})
    # how many there are: the count the report's own table shows
    total = sum(count for measure, _, count in rows if measure == "rulings seen on one origin only")
    title = "Rulings seen on one origin only"
    if total > len(one):
        title += f" (the first {len(one):,} of {total:,}; all of them: casefile sql)"
    one_origin = Detail(title, columns_one, one)
    return Report("rulings", TITLES["rulings"], columns, rows, [chart], [one_origin])


def build_reports(con, names: Sequence[str], scope: Scope, page: bool = True) -> list[Report]:
    """``page``: with what only the HTML page shows (charts, detail tables)."""
    built = []
    for name in names:
        if name == "sets":
            built.append(sets_report(con))
        elif name == "colors":
            built.append(colors_report(con, scope))
        elif name == "rulings":
            built.append(rulings_report(con, page))
        else:
            raise UsageError(f"unknown report {name!r}; choose one of {', '.join(REPORT_NAMES)}")
    return built


def run_report(warehouse: Path, name: str, fmt: str, query: str | None = None, wait_s: float = 5.0) -> str:
    """Build report ``name`` (or ``all``) from the warehouse and return it rendered in ``fmt``."""
    if fmt not in REPORT_FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(REPORT_FORMATS)}")
    names = list(REPORTS) if name == "all" else [name]
    if fmt == "csv" and len(names) > 1:
        raise UsageError("csv holds one table: choose one report (sets, colors or rulings), or another --format")
    con = open_reader(warehouse, wait_s)
    try:
        scope = resolve_scope(con, query)
        reports = build_reports(con, names, scope, page=fmt == "html")
    finally:
        con.close()
    if scope.note:
        log.warning("note: %s", scope.note)
    return render_reports(scope, reports, fmt, title=_page_title(name))


def _page_title(name: str) -> str:
    return "casefile report" if name == "all" else f"casefile report: {TITLES[name]}"


def render_reports(scope: Scope, reports: Sequence[Report], fmt: str, title: str = "casefile report") -> str:
    if fmt == "html":
        sections = [html_report.Section(r.title, render(r.columns, r.rows, "html"), r.charts,
                                        details=[(d.title, render(d.columns, d.rows, "html")) for d in r.details])
                    for r in reports]
        scope_line = f"query {scope.label} · latest run {scope.run_id}"
        return html_report.page(title, scope_line, sections, [scope.note] if scope.note else [], ATTRIBUTION)
    if len(reports) == 1:
        return render(reports[0].columns, reports[0].rows, fmt)
    if fmt == "json":
        payload: dict[str, Any] = {r.name: records(r.columns, r.rows) for r in reports}
        return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
    heading = "### {}\n\n" if fmt == "markdown" else "{}\n\n"
    return "\n".join(heading.format(r.title) + render(r.columns, r.rows, fmt) for r in reports)
