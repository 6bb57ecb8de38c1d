"""Output formatters shared by every command that prints rows: table, markdown, csv, json, html.

Pure: columns and rows in, text out. ``html`` is a ``<table>`` fragment with every text escaped;
whole pages (with charts) are put together by ``html_report.py`` from such fragments.
"""

from __future__ import annotations

import csv
import html
import datetime as dt
import decimal
import functools
import io
import json
import math
import re
import unicodedata
from typing import Any, Iterable, Iterator, Sequence

FORMATS = ("table", "markdown", "csv", "json")
# The table format is for eyes on a terminal: longer cells are cut with "…" (other formats keep all).
TABLE_CELL_MAX = 80
# Reports also print as HTML; ``sql`` and ``status`` keep the four text formats.
REPORT_FORMATS = FORMATS + ("html",)
# The reports ``report`` prints, and what its argument may name.
REPORTS = ("sets", "colors", "rulings")
REPORT_NAMES = REPORTS + ("all",)
# What ``export`` writes, and in which file formats.
DATASETS = ("rulings",)
EXPORT_FORMATS = ("csv", "jsonl", "parquet")
# A line break inside a cell: table and markdown print a row on one line.
_LINE_BREAK = re.compile(r"\r\n?|\n")
# What a markdown cell escapes or turns into <br>.
_MARKDOWN_SPECIAL = re.compile(r"[\\|\r\n]")
# A streamed CSV is handed out in pieces of about this many characters.
CSV_CHUNK = 1 << 16


def _plain(value: Any) -> Any:
    """A value as the ``json`` format has it: nothing lost, every DuckDB type made JSON."""
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):  # JSON has no NaN or infinity: null, so that the column stays numbers
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):  # a number when a float holds it exactly, else its digits as text
        number = float(value)
        return number if decimal.Decimal(repr(number)) == value else format(value, "f")
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _duration(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)  # UUID, and any type to come


def _duration(value: dt.timedelta) -> str:
    """An INTERVAL as an ISO 8601 duration: P3DT0.5S, PT1H30M, -PT1H30M, PT0S (DuckDB gives Python a
    month as 30 days)."""
    sign = "-" if value < dt.timedelta(0) else ""
    value = abs(value)
    hours, rest = divmod(value.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    time = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or value.microseconds:
        time += f"{seconds}.{value.microseconds:06d}".rstrip("0").rstrip(".") + "S"
    text = (f"{value.days}D" if value.days else "") + (f"T{time}" if time else "")
    return sign + "P" + (text or "T0S")


def _cell(value: Any) -> str:
    kind = type(value)
    if kind is str:  # most cells: nothing to convert (a listing of 100,000 events has a million)
        return value
    if value is None:
        return ""
    if kind is int:
        return str(value)
    if kind is dt.date:  # a date column: one in every few cells of the rulings' tables
        return value.isoformat()
    if kind is float:  # every digit: the shortest text that reads back as the same float; nan, inf, -inf
        return repr(value)
    if isinstance(value, decimal.Decimal):  # its exact digits, never an exponent
        return format(value, "f")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_element(v) for v in value) + "]"
    if isinstance(value, dict):  # a struct as DuckDB prints one: {'key': value}, values as a list's elements
        return "{" + ", ".join(f"{_quoted(str(k))}: {_element(v)}" for k, v in value.items()) + "}"
    return str(_plain(value))


# The characters that make DuckDB quote a string inside a list it prints (CAST(list AS VARCHAR)).
_QUOTED_IN_LIST = frozenset("\"'(),:=[\\]{}")
_SPACE = " \t\n\v\f\r"  # what DuckDB counts as space at a string's edge


def _element(value: Any) -> str:
    """An element of a list as DuckDB prints it: NULL as NULL, and a string quoted ('…', with \\'
    and \\\\) where it would read as something else (empty, edged with spaces, holding a separator
    or a quote, or the word null), so that ['a, b'] is not ['a', 'b'] and [NULL] not ['NULL']."""
    if value is None:
        return "NULL"
    if type(value) is str and (value == "" or value[0] in _SPACE or value[-1] in _SPACE
                               or value.lower() == "null" or not _QUOTED_IN_LIST.isdisjoint(value)):
        return _quoted(value)
    return _cell(value)


def _quoted(text: str) -> str:
    """A string in quotes as DuckDB writes one inside a list or a struct: '…', with \\' and \\\\."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def records(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[dict]:
    """Rows as JSON-ready dicts (dates and intervals as ISO 8601 text; see ``_plain``), as ``json`` prints them."""
    columns = unique_columns(columns)
    return [_record(columns, row) for row in rows]


def _record(columns: Sequence[str], row: Sequence[Any]) -> dict:
    return dict(zip(columns, (_plain(v) for v in row)))


def unique_columns(columns: Sequence[str]) -> list[str]:
    """The column names as every format prints them: a name given again gets the first free suffix
    _2, _3, … (``SELECT c.name, s.name`` prints name and name_2), so a JSON object or a CSV read by
    its header keeps every column."""
    taken = set(columns)
    seen: set[str] = set()
    names = []
    for name in columns:
        if name in seen:
            n = 2
            while f"{name}_{n}" in taken:
                n += 1
            name = f"{name}_{n}"
            taken.add(name)
        seen.add(name)
        names.append(name)
    return names


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table") -> str:
    """Rows as text in ``fmt`` (one of REPORT_FORMATS)."""
    columns = unique_columns(columns)
    if fmt != "table":
        return "".join(render_stream(columns, [rows], fmt))
    # The rows are at hand: each cell is made text once, for the widths and for its line (a
    # report of thousands of rows spent most of its rendering converting every number twice).
    cells = [list(map(_table_cell, row)) for row in rows]
    widths = [max([_cell_width(name)] + [row[i][1] for row in cells]) for i, name in enumerate(columns)]
    return "".join(_table_lines(columns, cells, widths))


# Characters a terminal shows in other than one column: the wide ones of Chinese, Japanese and
# Korean (printed names in ja, ko, zhs, zht), full-width forms and emoji take two; combining
# accents (an "é" written as "e" and U+0301), variation selectors and zero-width characters none.
# A quick test before the exact count of ``_char_width``: curly quotes and dashes are not in it.
# Compiled when first needed (``_not_one_column``): some 4 ms that a command printing only ASCII,
# or nothing (a sync), need not pay.
_NOT_ONE_COLUMN = ("[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f"
                   "\u1100-\u115f\u1ab0-\u1aff\u1dc0-\u1dff\u200b-\u200f\u202a-\u202e"
                   "\u2060-\u2064\u20d0-\u20ff\u231a\u231b\u2329\u232a\u23e9-\u23f3"
                   "\u25fd\u25fe\u2614\u2615\u2648-\u2653\u26aa-\u26ff\u2705\u270a\u270b"
                   "\u2728\u274c-\u2757\u2795-\u27bf\u2b1b\u2b1c\u2b50\u2b55"
                   "\u2e80-\u303e\u3040-\ua4cf\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
                   "\ufe00-\ufe0f\ufe10-\ufe19\ufe20-\ufe6f\ufeff\uff00-\uff60\uffe0-\uffe6"
                   "\U0001f000-\U0001faff\U00020000-\U0003fffd\U000e0000-\U000e01ef]")


@functools.cache
def _not_one_column() -> re.Pattern:
    return re.compile(_NOT_ONE_COLUMN)


def _char_width(char: str) -> int:
    """The columns a terminal gives ``char``: 0, 1 or 2."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """How many columns of a terminal ``text`` takes (its length when every character takes one)."""
    if text.isascii() or not _not_one_column().search(text):
        return len(text)
    return sum(_char_width(c) for c in text)


def _cut(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` columns of a terminal, with "…" where it was cut."""
    if text.isascii() or not _not_one_column().search(text):
        return text if len(text) <= most else text[:most - 1] + "…"
    if display_width(text) <= most:
        return text
    used = 0
    for i, char in enumerate(text):  # the longest start that leaves a column for the "…"
        used += _char_width(char)
        if used > most - 1:
            return text[:i] + "…"
    return text  # not reached: the text is wider than ``most``


def _table_cell(value: Any) -> tuple[str, int]:
    """A cell, or a column's name, as the ``table`` format prints it (on one line, cut at
    TABLE_CELL_MAX columns of a terminal with "…"), and the columns it takes. Both passes of a
    listing, its widths and its lines, take each cell from here: the text is looked at once, and
    a text of one-column characters (most: ASCII, curly quotes, precomposed accented letters) is
    measured by its length."""
    text = value if type(value) is str else _cell(value)
    if "\n" in text or "\r" in text:  # few cells: the pattern only where it has work
        text = _LINE_BREAK.sub(" ⏎ ", text)
    if text.isascii() or not _not_one_column().search(text):
        if len(text) <= TABLE_CELL_MAX:
            return text, len(text)
        return text[:TABLE_CELL_MAX - 1] + "…", TABLE_CELL_MAX
    text = _cut(text, TABLE_CELL_MAX)
    return text, display_width(text)


def _cell_width(value: Any) -> int:
    return _table_cell(value)[1]


def table_widths(columns: Sequence[str], batches: Iterable[Sequence[Sequence[Any]]]) -> list[int]:
    """The column widths of the ``table`` format for these rows (cells cut at TABLE_CELL_MAX)."""
    widths = [_cell_width(c) for c in unique_columns(columns)]
    for batch in batches:
        if not batch:
            continue
        for i, column in enumerate(zip(*batch)):  # a column of the batch at a time
            if widths[i] < TABLE_CELL_MAX:  # no cell is wider: a column of texts is measured until one is cut
                widths[i] = max(widths[i], max(map(_cell_width, column)))
    return widths


def render_stream(columns: Sequence[str], batches: Iterable[Sequence[Sequence[Any]]], fmt: str = "table",
                  widths: Sequence[int] | None = None) -> Iterator[str]:
    """Rows as text in ``fmt``, chunk by chunk, from batches of rows: a listing of any length
    is printed without holding it whole. The ``table`` format needs ``widths`` (``table_widths``
    of the same rows); joined, the chunks are ``render``'s text."""
    if fmt not in REPORT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(REPORT_FORMATS)}")
    columns = unique_columns(columns)
    rows = (row for batch in batches for row in batch)
    if fmt == "json":
        yield from _json_stream(columns, rows)
    elif fmt == "html":
        yield from _html_stream(columns, rows)
    elif fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        out.write(_csv_line(columns, columns))  # a name may hold a lone carriage return, as a value may
        for row in rows:
            texts = [_cell(v) for v in row]
            if "" in texts or any("\r" in t for t in texts):  # the row is put together here (see _csv_line)
                out.write(_csv_line(row, texts))
            else:
                writer.writerow(texts)
            if out.tell() >= CSV_CHUNK:
                yield out.getvalue()
                out.seek(0)
                out.truncate()
        yield out.getvalue()
    elif fmt == "markdown":
        yield "| " + " | ".join(_markdown_text(c) for c in columns) + " |\n"
        yield "| " + " | ".join("---" for _ in columns) + " |\n"
        for row in rows:
            yield "| " + " | ".join(_markdown_text(_cell(v)) for v in row) + " |\n"
    else:  # table
        if widths is None:
            raise ValueError("the table format needs the column widths (table_widths)")
        yield from _table_lines(columns, (list(map(_table_cell, row)) for row in rows), widths)


# The characters that make a cell quoted: the comma, the quote, and both line-end characters. Python's
# csv writer with lines ending in \n quotes the first three but leaves a lone \r bare, which most
# readers take for a line end: such a row is written by _csv_line, which quotes it, as DuckDB does.
_CSV_QUOTED = re.compile('[,"\r\n]')


def _csv_line(row: Sequence[Any], texts: Sequence[str]) -> str:
    """The CSV line of a row that holds a NULL, a value that prints as nothing ('', an empty BLOB)
    or a carriage return. CSV tells NULL from the empty value as DuckDB's COPY ... (FORMAT csv) and
    PostgreSQL's CSV do: NULL is an empty field, the empty value a quoted empty field ``""``
    (Python 3.11's csv module writes both alike; QUOTE_NOTNULL came in 3.12). One exception: a
    row of a single NULL is ``""`` too, not an empty line, which pandas and R skip by default, so
    the row would be lost. Other cells are quoted as ``render_stream``'s csv writer quotes them."""
    if len(row) == 1 and row[0] is None:
        return '""\n'
    fields = []
    for value, text in zip(row, texts):
        if value is None:
            fields.append("")
        elif text == "" or _CSV_QUOTED.search(text):
            fields.append('"' + text.replace('"', '""') + '"')
        else:
            fields.append(text)
    return ",".join(fields) + "\n"


def _markdown_text(text: str) -> str:
    """A cell of a markdown table: backslashes and pipes escaped (a backslash before a pipe in the text
    must not unescape it), each line break (\\n, \\r\\n, \\r) a ``<br>``, so the cell stays one cell."""
    if not _MARKDOWN_SPECIAL.search(text):  # most cells: nothing to escape
        return text
    return _LINE_BREAK.sub("<br>", text.replace("\\", "\\\\").replace("|", "\\|"))


def _table_lines(columns: Sequence[str], cells: Iterable[Sequence[tuple[str, int]]],
                 widths: Sequence[int]) -> Iterator[str]:
    """The ``table`` format's lines: the header, its rule, the rows (each cell ``_table_cell``'s
    text and width), and the count of rows."""
    def line(row) -> str:
        return "  ".join(text + " " * (w - used) for (text, used), w in zip(row, widths)).rstrip() + "\n"

    yield line([_table_cell(name) for name in columns])
    yield line([("-" * w, w) for w in widths])
    count = 0
    for row in cells:
        count += 1
        yield line(row)
    yield f"({count} row{'s' if count != 1 else ''})\n"


def _json_stream(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """What ``json.dumps(records(...), ensure_ascii=False, indent=2)`` prints, a record at a time."""
    first = True
    encode = json.JSONEncoder(ensure_ascii=False, indent=2).encode  # one encoder, not one per record
    for row in rows:
        record = encode(_record(columns, row))
        yield ("[\n  " if first else ",\n  ") + record.replace("\n", "\n  ")
        first = False
    yield "[]\n" if first else "\n]\n"


def _html_stream(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    esc = html.escape
    yield "<table>\n<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in columns) + "</tr></thead>\n<tbody>\n"
    for row in rows:
        cells = "".join((f'<td class="num">{esc(_cell(v))}</td>' if _numeric(v) else f"<td>{esc(_cell(v))}</td>")
                        for v in row)
        yield f"<tr>{cells}</tr>\n"
    yield "</tbody>\n</table>\n"


def human_bytes(n: int) -> str:
    """A byte count for people: 646.5 KB, 1.2 GB (powers of 1000)."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")
