"""The output formats: a listing streamed in batches prints what the whole listing prints."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
import re
from unittest.mock import patch

import duckdb
import pytest
from hypothesis import given, settings, strategies as st

from pipeline import formats
from pipeline.formats import REPORT_FORMATS, records, render, render_stream, table_widths

CELLS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**18, 10**18),
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=120),
    st.sampled_from(["a|b", "line\nbreak", "<td>&amp;", "é’—…", "x" * 200]),
    st.dates(min_value=dt.date(1993, 1, 1), max_value=dt.date(2030, 12, 31)),
    st.lists(st.one_of(st.integers(), st.text(max_size=5)), max_size=3),
    st.decimals(allow_nan=False, allow_infinity=False), st.timedeltas(), st.times(), st.uuids(), st.binary(max_size=8),
    st.dictionaries(st.text(max_size=3), st.one_of(st.floats(), st.timedeltas(), st.decimals(places=2, allow_nan=False)), max_size=2),
)


@st.composite
def listings(draw):
    width = draw(st.integers(1, 5))
    columns = [draw(st.text(min_size=1, max_size=8)) for _ in range(width)]
    rows = draw(st.lists(st.lists(CELLS, min_size=width, max_size=width).map(tuple), max_size=30))
    cuts = sorted(draw(st.lists(st.integers(0, len(rows)), max_size=4)))
    bounds = [0, *cuts, len(rows)]
    batches = [rows[a:b] for a, b in zip(bounds, bounds[1:])]
    return columns, rows, batches


@settings(max_examples=300, deadline=None)
@given(listings(), st.sampled_from(REPORT_FORMATS), st.sampled_from([1, 50, formats.CSV_CHUNK]))
def test_rows_in_batches_print_as_the_whole_listing(listing, fmt, csv_chunk):
    columns, rows, batches = listing
    widths = table_widths(columns, batches) if fmt == "table" else None
    with patch.object(formats, "CSV_CHUNK", csv_chunk):  # small pieces: every flush is exercised
        streamed = "".join(render_stream(columns, batches, fmt, widths))
    assert streamed == render(columns, rows, fmt)


@settings(max_examples=200, deadline=None)
@given(listings())
def test_the_streamed_json_is_the_json_of_the_records(listing):
    columns, rows, batches = listing
    streamed = "".join(render_stream(columns, batches, "json"))
    assert streamed == json.dumps(records(columns, rows), ensure_ascii=False, indent=2) + "\n"
    assert json.loads(streamed) == json.loads(json.dumps(records(columns, rows)))


def test_infinity_and_nan_print_as_text_and_are_null_in_json():
    # JSON has no NaN or infinity; null keeps a column of numbers a column of numbers
    columns, rows = ["x"], [(float("inf"),), (float("-inf"),), (float("nan"),), (None,)]
    assert render(columns, rows, "csv") == 'x\ninf\n-inf\nnan\n""\n'  # a row of one NULL: not an empty line
    assert json.loads(render(columns, rows, "json")) == [{"x": None}] * 4


def test_csv_tells_null_from_an_empty_string_as_duckdb_copy_does(tmp_path):
    """NULL is an empty field, '' (and any value that prints as nothing, as an empty BLOB) a quoted
    one: the bytes DuckDB's COPY ... (FORMAT csv) writes."""
    cursor = duckdb.connect().execute(
        "SELECT * FROM (VALUES (1, NULL, '', ''::BLOB, 'x'), (2, '', NULL, NULL, NULL), (3, 'a,b', 'say \"hi\"', NULL, ''),"
        " (4, NULL, NULL, NULL, NULL), (5, ' ', 'NULL', 'x'::BLOB, 'two\nlines')) AS t(i, s, u, b, v) ORDER BY i")
    columns, rows = [d[0] for d in cursor.description], cursor.fetchall()
    assert render(columns, rows, "csv") == ('i,s,u,b,v\n1,,"","",x\n2,"",,,\n3,"a,b","say ""hi""",,""\n'
                                            '4,,,,\n5, ,NULL,78,"two\nlines"\n')
    path = tmp_path / "copy.csv"
    duckdb.connect().execute(f"COPY (SELECT s, u, v FROM (VALUES (1, NULL, '', 'x'), (2, '', NULL, NULL),"
                             f" (3, 'a,b', 'say \"hi\"', '')) AS t(i, s, u, v) ORDER BY i) TO '{path}' (FORMAT csv, HEADER true)")
    assert render(["s", "u", "v"], [r[1:3] + r[4:] for r in rows[:3]], "csv") == path.read_text()
    # DuckDB writes a row of one NULL as an empty line, which pandas and R skip: casefile keeps the row
    assert render(["a"], [(None,), ("",), ("x",)], "csv") == 'a\n""\n""\nx\n'


def test_a_csv_cell_with_a_lone_carriage_return_is_quoted():
    """Python's csv writer leaves a lone \r bare with lines ending in \n; most readers end a line
    there. Quoted, as DuckDB's COPY quotes it, the row reads back whole."""
    text = render(["a", "b"], [("one\rtwo", 1)], "csv")
    assert text == 'a,b\n"one\rtwo",1\n'
    assert list(csv.reader(io.StringIO(text, newline=""))) == [["a", "b"], ["one\rtwo", "1"]]


@pytest.mark.parametrize("name", ["a\rb", "a,b", 'say "a"', "a\nb", "plain"])
def test_a_csv_header_quotes_a_column_name_as_a_cell_is_quoted(name):
    # the header went through the csv writer, which left a lone \r bare: the header read as two lines
    text = render([name, "c"], [(1, 2)], "csv")
    assert list(csv.reader(io.StringIO(text, newline=""))) == [[name, "c"], ["1", "2"]]
    assert text == _csv_line_of([name, "c"]) + "1,2\n"


def _csv_line_of(texts) -> str:
    """A line as the rows' cells are written: quoted where the csv module quotes, and where a lone \r is."""
    return ",".join('"' + t.replace('"', '""') + '"' if re.search('[,"\r\n]', t) else t for t in texts) + "\n"


def _csv_writer_line(texts) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(texts)
    return out.getvalue()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.none(), st.just(""), st.text(min_size=1, max_size=6),
                          st.sampled_from(["a,b", 'q"', "\r", "\n", "\r\n", " ", "NULL", '""'])),
                min_size=1, max_size=5))
def test_a_csv_row_quotes_its_cells_as_the_csv_module_does_but_for_null_and_empty(cells):
    """Every cell but NULL, '' and a text with a carriage return is quoted as Python's csv writer
    quotes it (a row without them is its line, byte for byte); NULL is nothing (a row of a single
    NULL excepted: ""), '' is "", a carriage return quoted, whatever else the row holds."""
    [_, line] = render(["c"] * len(cells), [cells], "csv").split("\n", 1)
    if None not in cells and "" not in cells and not any("\r" in c for c in cells):
        assert line == _csv_writer_line(cells)
    if cells == [None]:
        assert line == '""\n'
        return
    expected = [("" if c is None else '"' + c.replace('"', '""') + '"' if c == "" or "\r" in c
                 else _csv_writer_line([c])[:-1]) for c in cells]
    assert line == ",".join(expected) + "\n"


def test_every_duckdb_type_prints_as_json():
    u = "5b6ab9a5-3c6e-4a11-9b5c-0d0f4c0e2a8e"
    cursor = duckdb.connect().execute(f"""
        SELECT INTERVAL 90 MINUTE AS i, -INTERVAL 90 MINUTE AS neg, INTERVAL 3 DAY + INTERVAL 500 MILLISECOND AS days,
               INTERVAL 0 SECOND AS zero, '{u}'::UUID AS u, 1234567.25 AS d,
               12345678901234567890.123::DECIMAL(38,3) AS big, '\\xAB\\x01'::BLOB AS b,
               TIME '12:34:56.5' AS t, TIMETZ '12:00:00+02' AS tz, [INTERVAL 1 HOUR, NULL] AS l,
               {{'p': 1.50::DECIMAL(4,2), 'u': '{u}'::UUID, 'n': 'nan'::DOUBLE}} AS s, MAP {{1: INTERVAL 1 SECOND}} AS m,
               'nan'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, [1, 2]::INTEGER[2] AS arr""")
    columns, rows = [d[0] for d in cursor.description], cursor.fetchall()
    assert json.loads(render(columns, rows, "json")) == [{
        "i": "PT1H30M", "neg": "-PT1H30M", "days": "P3DT0.5S", "zero": "PT0S", "u": u, "d": 1234567.25,
        "big": "12345678901234567890.123", "b": "ab01", "t": "12:34:56.500000", "tz": "12:00:00+02:00",
        "l": ["PT1H", None], "s": {"p": 1.5, "u": u, "n": None}, "m": {"1": "PT1S"}, "nan": None, "inf": None,
        "arr": [1, 2]}]
    [header, line] = render(columns, rows, "csv").splitlines()
    assert line.startswith(f"PT1H30M,-PT1H30M,P3DT0.5S,PT0S,{u},1234567.25,12345678901234567890.123,ab01,")


def test_a_null_in_a_list_is_not_an_empty_list():
    # [NULL] printed as [] read as an empty list: `list(source_as_seen)` of the wiki's sightings
    cursor = duckdb.connect().execute("SELECT [NULL]::VARCHAR[] AS one_null, []::VARCHAR[] AS empty, "
                                      "[1, NULL, 3] AS ints, [[NULL], []] AS nested")
    columns, rows = [d[0] for d in cursor.description], cursor.fetchall()
    assert render(columns, rows, "csv") == 'one_null,empty,ints,nested\n[NULL],[],"[1, NULL, 3]","[[NULL], []]"\n'
    for fmt in ("table", "markdown"):
        assert "[NULL]" in render(columns, rows, fmt) and "[1, NULL, 3]" in render(columns, rows, fmt), fmt
    assert json.loads(render(columns, rows, "json")) == [
        {"one_null": [None], "empty": [], "ints": [1, None, 3], "nested": [[None], []]}]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                                             max_size=12),
                          st.sampled_from(["", " a", "a ", "null", "NULL", "a, b", "Gorgon's", "a\\b", "[x]", "k=v"])),
                max_size=4))
def test_a_list_of_strings_prints_as_duckdb_prints_it(values):
    """A list's strings are quoted where DuckDB quotes them, so that ['a, b'] does not print as
    the two elements [a, b], nor ['NULL'] as [NULL]."""
    cursor = duckdb.connect().execute("SELECT $v::VARCHAR[] AS l, CAST($v::VARCHAR[] AS VARCHAR) AS shown", {"v": values})
    listed, shown = cursor.fetchone()
    assert render(["l"], [(listed,)], "csv") == render(["l"], [(shown,)], "csv")


def test_a_struct_prints_as_duckdb_prints_it():
    """A struct, alone or in a list, prints as DuckDB prints one: NULL as NULL, true as true, its
    strings quoted where a list's are, not as Python shows a dict ({'a': None})."""
    struct = ("{'a': NULL, 'b': 'x, y', 'c': 'plain', 'd': '', 'e': 'it''s', 'f': [NULL, 'NULL'], "
              "'g': DATE '2024-02-02', 'h': true, 'i': 1.5, 'j': {'k': NULL}, 'my key': 'Gorgon''s'}")
    cursor = duckdb.connect().execute(f"SELECT {struct} AS s, [{struct}, NULL] AS l, "
                                      f"CAST({struct} AS VARCHAR), CAST([{struct}, NULL] AS VARCHAR)")
    [(struct_value, list_value, struct_shown, list_shown)] = cursor.fetchall()
    assert render(["s", "l"], [(struct_value, list_value)], "csv") == render(["s", "l"], [(struct_shown, list_shown)], "csv")
    assert "None" not in render(["s", "l"], [(struct_value, list_value)], "table")
    assert json.loads(render(["s"], [(struct_value,)], "json"))[0]["s"]["a"] is None  # JSON keeps objects

def test_strings_that_would_read_as_other_elements_are_quoted():
    rows = [(["Ghired, Conclave Exile", "X"], ["Ghired", "Conclave Exile", "X"], [""], ["NULL", None],
             ["Case of the Gorgon's Kiss", "plain words"])]
    [_, line] = render(["a", "b", "c", "d", "e"], rows, "csv").splitlines()
    assert line == ("\"['Ghired, Conclave Exile', X]\",\"[Ghired, Conclave Exile, X]\",['']," 
                    "\"['NULL', NULL]\",\"['Case of the Gorgon\\'s Kiss', plain words]\"")


def test_numbers_print_with_every_digit():
    columns = ["t", "mean", "price", "whole", "huge"]
    rows = [(1796310000.123456, 2.2666666666666666, decimal.Decimal("1234567.25"), 3.0, 1e16),
            (1796310000.123457, 2.266666666666667, decimal.Decimal("0E-10"), -0.0, float("nan"))]
    assert render(columns, rows, "csv") == ("t,mean,price,whole,huge\n"
                                            "1796310000.123456,2.2666666666666666,1234567.25,3.0,1e+16\n"
                                            "1796310000.123457,2.266666666666667,0.0000000000,-0.0,nan\n")
    for fmt in ("table", "markdown"):
        text = render(columns, rows, fmt)
        assert "1796310000.123456" in text and "1796310000.123457" in text and "1234567.25" in text, fmt
        assert "2.2666666666666666" in text and "2.266666666666667" in text and "nan" in text, fmt


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=False), st.decimals(allow_nan=False, allow_infinity=False)),
                min_size=1, max_size=5))
def test_a_number_read_back_from_csv_is_the_same_number(numbers):
    [header, cells] = render([f"c{i}" for i in range(len(numbers))], [numbers], "csv").splitlines()
    for number, cell in zip(numbers, cells.split(",")):
        back = decimal.Decimal(cell) if isinstance(number, decimal.Decimal) else float(cell)
        assert back == number and str(back) == str(number)


def test_a_column_name_given_again_gets_a_suffix_in_every_format():
    columns, rows = ["name", "name", "name_2", "name"], [("a", "b", "c", "d")]
    assert json.loads(render(columns, rows, "json")) == [{"name": "a", "name_3": "b", "name_2": "c", "name_4": "d"}]
    assert records(columns, rows) == json.loads(render(columns, rows, "json"))
    assert render(columns, rows, "csv").startswith("name,name_3,name_2,name_4\n")
    assert render(columns, rows, "markdown").startswith("| name | name_3 | name_2 | name_4 |\n")
    assert render(columns, rows, "table").startswith("name  name_3  name_2  name_4\n----  ------  ------  ------\n")
    assert "<th>name_4</th>" in render(columns, rows, "html")


def test_a_markdown_cell_keeps_its_backslashes_pipes_and_line_breaks_in_one_cell():
    columns, rows = ["a|b", "x"], [("a\\|b", "y"), ("one\ntwo", "three\r\nfour\rfive"), ("\\", "|")]
    assert render(columns, rows, "markdown") == ("| a\\|b | x |\n| --- | --- |\n"
                                                 "| a\\\\\\|b | y |\n"
                                                 "| one<br>two | three<br>four<br>five |\n"
                                                 "| \\\\ | \\| |\n")
    assert render(["x"], [("a\rb",)], "table").splitlines()[2] == "a ⏎ b"


def _read_in_order(body: str) -> list[str]:
    """The cells of a markdown row read as CommonMark reads escapes: left to right, a backslash
    keeps the next character as text, a bare pipe ends a cell."""
    cells, cell, i = [], "", 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            cell, i = cell + body[i + 1], i + 2
        elif body[i] == "|":
            cells, cell, i = cells + [cell], "", i + 1
        else:
            cell, i = cell + body[i], i + 1
    return [c.strip() for c in cells + [cell]]


def _read_as_github(body: str) -> list[str]:
    """The cells as GitHub reads a table row: split at each pipe without a backslash just before it,
    each backslash-pipe made a pipe, then the cell's text read as above."""
    return [re.sub(r"\\(.)", r"\1", c.replace("\\|", "|")).strip() for c in re.split(r"(?<!\\)\|", body)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab\\|\n\r", max_size=8), min_size=1, max_size=4))
def test_a_markdown_row_reads_back_as_its_cells(cells):
    text = render([f"c{i}" for i in range(len(cells))], [cells], "markdown")
    [_, _, row] = text.split("\n")[:-1]
    assert row.startswith("| ") and row.endswith(" |") and "\r" not in row
    expected = [re.sub(r"\r\n?|\n", "<br>", cell) for cell in cells]
    assert _read_in_order(row[1:-1]) == expected
    assert _read_as_github(row[1:-1]) == expected


@settings(max_examples=300, deadline=None)
@given(listings())
def test_a_table_is_one_line_per_row_whatever_its_names_and_cells_hold(listing):
    """A header, its rule, a line per row and the count: a column named with a line break (SQL
    allows "a\nb" AS a name) is printed on its line like a cell, and the widths fit it."""
    columns, rows, batches = listing
    text = render(columns, rows, "table")
    assert text.count("\n") == len(rows) + 3 and "\r" not in text
    assert "".join(render_stream(columns, batches, "table", table_widths(columns, batches))) == text


def test_a_table_counts_the_columns_a_terminal_gives_each_character():
    """A wide character (Japanese, Chinese) takes two columns, a combining accent none: the
    columns line up and the cut at 80 counts columns, not characters."""
    text = render(["name", "lang"], [("真紅の鼓動の事件", "ja"), ("Cafe\u0301", "fr"), ("Fall", "de")], "table")
    assert text.splitlines()[:5] == ["name              lang", "----------------  ----",
                                     "真紅の鼓動の事件  ja", "Cafe\u0301              fr", "Fall              de"]
    assert formats.display_width(render(["x"], [("真" * 60,)], "table").splitlines()[2]) == 79
    assert render(["x"], [("a" * 78 + "真",)], "table").splitlines()[2] == "a" * 78 + "真"
    assert render(["x"], [("a" * 79 + "真",)], "table").splitlines()[2] == "a" * 79 + "…"


def test_a_column_name_with_a_line_break_prints_on_the_header_line():
    assert render(["one\ntwo", "x"], [("a", "b")], "table").split("\n")[:3] == [
        "one ⏎ two  x", "---------  -", "a          b"]
