"""Output formatters shared by every command that prints rows: table, markdown, csv, json, html.

Pure: columns and rows in, text out. ``html`` is a ``<table>`` fragment with every text escaped;
whole pages (with charts) are put together by ``html_report.py`` from such fragments.
"""

from __future__ import annotations

import csv
import html
import datetime as dt
import decimal
import io
import json
import math
from typing import Any, Sequence

FORMATS = ("table", "markdown", "csv", "json")
# The table format is for eyes on a terminal: longer cells are cut with "…" (other formats keep all).
TABLE_CELL_MAX = 80
# Reports also print as HTML; ``sql`` and ``status`` keep the four text formats.
REPORT_FORMATS = FORMATS + ("html",)


def _plain(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.hex()
    return value


def _cell(value: Any) -> str:
    kind = type(value)
    if kind is str:  # most cells: nothing to convert (a listing of 100,000 events has a million)
        return value
    if value is None:
        return ""
    if kind is int:
        return str(value)
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) or abs(value) >= 1e15 else f"{value:.1f}"
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    return str(value)


def records(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[dict]:
    """Rows as JSON-ready dicts (dates as ISO text, decimals as floats), as ``json`` prints them."""
    return [dict(zip(columns, (_plain(v) for v in row))) for row in rows]


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps(records(columns, rows), ensure_ascii=False, indent=2) + "\n"
    if fmt == "html":
        esc = html.escape
        out = ["<table>", "<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in columns) + "</tr></thead>",
               "<tbody>"]
        for row in rows:
            cells = "".join((f'<td class="num">{esc(_cell(v))}</td>' if _numeric(v) else f"<td>{esc(_cell(v))}</td>")
                            for v in row)
            out.append(f"<tr>{cells}</tr>")
        out += ["</tbody>", "</table>"]
        return "\n".join(out) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[_cell(v) for v in row] for row in rows])
        return out.getvalue()
    cells = [[_cell(v).replace("\n", " ⏎ ") for v in row] for row in rows]
    if fmt == "table":
        cells = [[c if len(c) <= TABLE_CELL_MAX else c[:TABLE_CELL_MAX - 1] + "…" for c in row] for row in cells]
    if fmt == "markdown":
        def esc(text: str) -> str:
            return text.replace("|", "\\|")
        lines = ["| " + " | ".join(esc(c) for c in columns) + " |",
                 "| " + " | ".join("---" for _ in columns) + " |"]
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    if fmt == "table":
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        def line(values):
            return "  ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()
        out = [line(columns), line(["-" * w for w in widths])] + [line(r) for r in cells]
        out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
        return "\n".join(out) + "\n"
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(REPORT_FORMATS)}")


def human_bytes(n: int) -> str:
    """A byte count for people: 646.5 KB, 1.2 GB (powers of 1000)."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")
