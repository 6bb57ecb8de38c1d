"""The output formats: a listing streamed in batches prints what the whole listing prints."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from unittest.mock import patch

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


def test_infinity_prints_as_inf_and_is_null_in_json():
    columns, rows = ["x"], [(float("inf"),), (float("-inf"),), (float("nan"),), (None,)]
    assert render(columns, rows, "csv") == 'x\ninf\n-inf\nnan\n""\n'  # csv quotes a row of one empty field
    assert json.loads(render(columns, rows, "json")) == [{"x": None}] * 4


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
