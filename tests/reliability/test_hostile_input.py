"""Hostile input: every parser, fuzzed, gives records that can be stored, or its parse error.

At least 1,000 inputs per parser (counted in the session's summary line); end to end, too many
broken records fail the run with exit 65 and unknown fields are counted in the run summary.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import typing
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.errors import ParseError
from pipeline.normalize import scryfall as api
from pipeline.normalize.dates_fr import parse_french_date
from pipeline.normalize.pages.listeblanche import parse_listeblanche_page
from pipeline.normalize.pages.scryfall_page import parse_scryfall_page
from pipeline.normalize.pages.wiki import parse_wiki_page
from pipeline.normalize.rules import diff_rules, parse_cr

from pages_support import WIKI_PAGE, mutated, pages_of, random_documents, truncated
from support import tally
from support.runs import SAMPLE, EditableRun
from support.warehouse_state import fingerprints, run_dirs

pytestmark = pytest.mark.reliability

DOC = "fuzz-doc"
_BOUNDED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def inputs(n: int) -> settings:
    """Hypothesis settings for a fuzz test of ``n`` inputs: no deadline (CI machines vary)."""
    return settings(_BOUNDED, max_examples=n)
MIN_INPUTS = 1_000
JSON_PARSERS = {
    "scryfall.search_page_records": lambda body: api.search_page_records(body, DOC),
    "scryfall.search_page_links": lambda body: api.search_page_links(body, DOC),
    "scryfall.set_record": lambda body: api.set_record(body, DOC),
    "scryfall.ruling_sightings": lambda body: api.ruling_sightings(body, "doc-id", "oracle-id", DOC),
}
PAGE_PARSERS = {
    "pages.wiki": (lambda html: parse_wiki_page(html, DOC), [WIKI_PAGE]),
    "pages.listeblanche": (lambda html: parse_listeblanche_page(html, DOC, None), pages_of("listeblanche.fr")),
    "pages.scryfall_page": (lambda html: parse_scryfall_page(html, DOC, None), pages_of("scryfall.com")),
}
ALL_PARSERS = [*JSON_PARSERS, *PAGE_PARSERS, "dates_fr.parse_french_date", "rules.parse_cr"]
CR_EXCERPT = Path(__file__).parents[1] / "fixtures" / "rules" / "cr_case_excerpt.txt"


# --- the contract ---------------------------------------------------------------------------

def storable(value, hint=None) -> None:
    """Records hold only what the warehouse can store: each field of its declared type, text that
    is Unicode (encodes as UTF-8), integers that fit a 32-bit INTEGER column."""
    if dataclasses.is_dataclass(value):
        hints = typing.get_type_hints(type(value))
        for f in dataclasses.fields(value):
            storable(getattr(value, f.name), hints.get(f.name))
        return
    if hint is not None:
        assert _conforms(value, hint), f"{value!r} is not a {hint}"
    if isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, bool) or value is None or isinstance(value, float):
        pass
    elif isinstance(value, int):
        assert -2**31 <= value < 2**31, value
    elif isinstance(value, (list, tuple)):
        for item in value:
            storable(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            storable(key)
            storable(item)


def _conforms(value, hint) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return any(_conforms(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin is tuple:
        return isinstance(value, tuple) and all(_conforms(v, args[0]) for v in value)
    if origin is not None:
        return isinstance(value, origin)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint) if isinstance(hint, type) else True


def records_or_parse_error(name: str, parse, data) -> None:
    tally.fuzzed[name] += 1
    try:
        result = parse(data)
    except ParseError as error:
        assert error.document == DOC
        return
    storable(result)


def every_json_parser(body: bytes) -> None:
    for name, parse in JSON_PARSERS.items():
        records_or_parse_error(name, parse, body)


# --- JSON strategies ------------------------------------------------------------------------

def _documents(kind: str) -> list[dict]:
    found = []
    for line in (SAMPLE / "manifest.jsonl").read_text("utf-8").splitlines():
        entry = json.loads(line)
        if entry["origin"] == "scryfall-api" and entry["kind"] == kind:
            found.append(json.loads((SAMPLE / entry["path"]).read_bytes()))
    return found


SEARCH_PAGE = _documents("search")[0]
RULINGS_LISTS = _documents("rulings")
SETS = _documents("set")
REAL_BODIES = [json.dumps(d, ensure_ascii=False).encode() for d in [SEARCH_PAGE, *RULINGS_LISTS[:5], *SETS]]

lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF).map(lambda c: f"text {c}")
scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
           | st.integers(min_value=10**300, max_value=10**310) | lone_surrogates)
json_values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=10)


def encoded(value, ascii_only: bool) -> bytes:
    """JSON bytes as a server could send them: \\u escapes, or raw UTF-8 (lone surrogates passed through)."""
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@st.composite
def odd_object(draw, originals: list[dict], fields: list[str]) -> dict:
    """A real object with one to three fields removed or given any JSON value."""
    obj = dict(draw(st.sampled_from(originals)))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(set(obj) | set(fields))))
        if draw(st.booleans()):
            obj.pop(key, None)
        else:
            obj[key] = draw(json_values)
    return obj


def list_of(items) -> st.SearchStrategy[dict]:
    return st.builds(lambda data, more, link: {"object": "list", "has_more": more, "next_page": link, "data": data},
                     st.lists(items, max_size=6), st.booleans(), st.none() | json_values)


CARD_FIELDS = sorted(api.CARD_FIELDS_READ | {"legalities", "prices", "all_parts"})
odd_search_pages = list_of(odd_object(SEARCH_PAGE["data"], CARD_FIELDS) | json_values)
odd_rulings_lists = list_of(odd_object([r for d in RULINGS_LISTS for r in d["data"]],
                                       ["object", "oracle_id", "source", "published_at", "comment"]) | json_values)
odd_sets = odd_object(SETS, ["object", "code", "name", "set_type", "released_at", "card_count", "digital"])


@st.composite
def mutated_bytes(draw, bodies: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(bodies)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["delete", "replace", "insert"]))
        if edit == "delete":
            del data[at:at + draw(st.integers(1, 50))]
        elif edit == "replace" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        else:
            data[at:at] = draw(st.sampled_from([b"[", b"{", b'"', b"\\ud800", b"1e999", b"null", b",", b"\xff"])
                               | st.binary(min_size=1, max_size=8))
    return bytes(data)


# --- JSON parsers ---------------------------------------------------------------------------

@inputs(250)
@given(random_documents)
@example(b"[" * 100_000)
@example(b'{"object": "list", "data": [' * 3_000)
@example(b'{"object": "set", "code": "\\ud800"}')
@example(b'{"object": "list", "data": [{"id": "x", "oracle_id": "y", "name": "n", "set": "s", '
         b'"collector_number": "1", "cmc": 1' + b"0" * 400 + b"}]}")
@example(b'{"object": "list", "data": [{"id": "x", "oracle_id": "y", "name": "n", "set": "s", '
         b'"collector_number": "1", "card_faces": 5, "colors": null}]}')
def test_json_parsers_on_random_input(data):
    every_json_parser(data if isinstance(data, bytes) else data.encode("utf-8"))


@inputs(250)
@given(json_values, st.booleans())
def test_json_parsers_on_any_json(value, ascii_only):
    every_json_parser(encoded(value, ascii_only))


@inputs(300)
@given(odd_search_pages, st.booleans())
def test_json_parsers_on_search_pages_with_odd_cards(page, ascii_only):
    every_json_parser(encoded(page, ascii_only))


@inputs(200)
@given(odd_rulings_lists, st.booleans())
def test_json_parsers_on_rulings_lists_with_odd_rulings(page, ascii_only):
    every_json_parser(encoded(page, ascii_only))


@inputs(150)
@given(odd_sets, st.booleans())
def test_json_parsers_on_odd_sets(obj, ascii_only):
    every_json_parser(encoded(obj, ascii_only))


@inputs(150)
@given(mutated_bytes(REAL_BODIES))
def test_json_parsers_on_mutated_documents(data):
    every_json_parser(data)


@inputs(100)
@given(st.sampled_from(REAL_BODIES).flatmap(lambda body: st.integers(0, len(body)).map(lambda end: body[:end])))
def test_json_parsers_on_truncated_documents(data):
    every_json_parser(data)


# --- page parsers ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(PAGE_PARSERS))
def test_page_parsers_on_random_input(name):
    parse, _ = PAGE_PARSERS[name]

    @inputs(350)
    @given(random_documents)
    def run(data):
        records_or_parse_error(name, parse, data)
    run()


@pytest.mark.parametrize("name", sorted(PAGE_PARSERS))
def test_page_parsers_on_truncated_pages(name):
    parse, pages = PAGE_PARSERS[name]

    @inputs(300)
    @given(truncated(pages))
    def run(data):
        records_or_parse_error(name, parse, data)
    run()


@pytest.mark.parametrize("name", sorted(PAGE_PARSERS))
def test_page_parsers_on_mutated_pages(name):
    parse, pages = PAGE_PARSERS[name]

    @inputs(400)
    @given(mutated(pages))
    def run(data):
        records_or_parse_error(name, parse, data)
    run()


# --- French dates and the Comprehensive Rules -----------------------------------------------

MONTH_WORDS = ["janvier", "février", "fevr.", "fév.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.",
               "octobre", "nov.", "décembre", "1er", "er", "de", "."]
date_like = st.lists(st.one_of(st.integers(-5, 40).map(str), st.integers(0, 99999).map(str),
                               st.sampled_from(MONTH_WORDS), st.text(max_size=4)), max_size=5).flatmap(
    lambda parts: st.sampled_from([" ", "\u00a0", "\u202f", "", "\t"]).map(lambda sep: sep.join(parts)))


def parse_date_or_value_error(text) -> None:
    """The date module's own contract: a date, or ValueError (never a guessed date)."""
    tally.fuzzed["dates_fr.parse_french_date"] += 1
    try:
        assert isinstance(parse_french_date(text), date)
    except ValueError:
        pass


@inputs(500)
@given(st.text(max_size=40))
@example("29 février 2023")
@example("1ᵉʳ janv. 0000")
def test_french_dates_on_any_text(text):
    parse_date_or_value_error(text)


@inputs(550)
@given(date_like)
def test_french_dates_on_date_like_text(text):
    parse_date_or_value_error(text)


def parse_cr_or_parse_error(data: bytes) -> None:
    tally.fuzzed["rules.parse_cr"] += 1
    try:
        rules = parse_cr(data, DOC)
    except ParseError as error:
        assert error.document == DOC
        return
    date.fromisoformat(rules.effective_date)
    assert diff_rules(rules, rules) == []  # every rule number sorts
    storable(rules)


CR_LINES = CR_EXCERPT.read_text("utf-8").split("\n")
cr_line = st.one_of(st.sampled_from(CR_LINES), st.sampled_from(["Contents", "Glossary", "Credits", ""]),
                    st.text(max_size=30), st.from_regex(r"\d{1,3}\.\d{0,3}[a-z]? .{0,20}", fullmatch=True),
                    st.just("These rules are effective as of February 31, 2024."))


@st.composite
def edited_cr(draw) -> bytes:
    lines = list(CR_LINES)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(lines)))
        edit = draw(st.sampled_from(["delete", "insert", "swap"]))
        if edit == "delete" and at < len(lines):
            del lines[at]
        elif edit == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        else:
            lines.insert(at, draw(cr_line))
    return "\n".join(lines).encode(draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16"])), "surrogatepass")


@inputs(250)
@given(st.binary(max_size=2048))
def test_parse_cr_on_random_bytes(data):
    parse_cr_or_parse_error(data)


@inputs(200)
@given(st.integers(0, len(CR_EXCERPT.read_bytes())))
def test_parse_cr_on_truncated_excerpt(end):
    parse_cr_or_parse_error(CR_EXCERPT.read_bytes()[:end])


@inputs(600)
@given(edited_cr())
def test_parse_cr_on_edited_excerpt(data):
    parse_cr_or_parse_error(data)


def test_every_parser_got_its_share_of_hostile_input(request):
    """Counted only where every fuzz test of the module ran in this session (a run of some of them,
    ``-k``, does not fuzz every parser); then a parser fuzzed less than MIN_INPUTS times, or not at
    all, fails."""
    module = sys.modules[__name__]
    fuzz_tests = {name for name, test in vars(module).items()
                  if name.startswith("test_") and hasattr(test, "hypothesis")}
    collected = {item.originalname for item in request.session.items if item.module is module}
    if not fuzz_tests <= collected:
        pytest.skip(f"run the whole module to count: {sorted(fuzz_tests - collected)} not run in this session")
    assert {name: tally.fuzzed[name] for name in ALL_PARSERS if tally.fuzzed[name] < MIN_INPUTS} == {}


# --- end to end -----------------------------------------------------------------------------

def _break_collector_numbers(run: EditableRun, how_many: int) -> None:
    """Constructed breakage: collector numbers sent as JSON numbers, which casefile refuses to read."""
    [search] = run.entries("search")
    page = run.read(search)
    for card in page["data"][:how_many]:
        card["collector_number"] = 12
    run.write(search, page)


def test_the_first_unreadable_record_named_is_one_of_the_run_that_fails(tmp_path):
    """Two runs read in one build: the first with one record refused (under the share), the second
    with twenty. The failure names a record of the second, not the first run's refusal."""
    from pipeline.build import _collect_api, _Collected
    from pipeline.errors import SourceDataError
    from pipeline.rawstore import RawStore, read_run

    store = RawStore(tmp_path / "raw")
    runs = []
    for run_id, broken in (("20000101T000000.000000Z", 1), ("20000102T000000.000000Z", 20)):
        run = EditableRun(tmp_path / "raw" / run_id, sources=["api"])
        meta = json.loads((run.path / "run.json").read_text("utf-8"))
        (run.path / "run.json").write_text(json.dumps({**meta, "run_id": run_id}), "utf-8")
        _break_collector_numbers(run, broken)
        runs.append(read_run(run.path))
    got = _Collected()
    _collect_api(store, runs[0], got)
    assert [skip.split("/")[0] for skip in got.skipped] == ["20000101T000000.000000Z"]
    with pytest.raises(SourceDataError, match=r"run 20000102T000000\.000000Z: 20 of 260 .* First: "
                                              r"20000102T000000\.000000Z/.*collector_number is not text"):
        _collect_api(store, runs[1], got)


def test_too_many_broken_records_fail_the_run_and_change_nothing(data_dir, tmp_path, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", "--sources", "api"]) == 0
    before = fingerprints(data_dir)
    broken = EditableRun(tmp_path / "broken", sources=["api"])
    _break_collector_numbers(broken, 20)  # 20 of 260 records (107 printings, 153 rulings): 7.7 %, over 5 %
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(broken.path)]) == 65
    err = capsys.readouterr().err
    assert "20 of 260 Scryfall records are unreadable" in err and "collector_number is not text" in err
    assert fingerprints(data_dir) == before
    newest = run_dirs(data_dir)[-1]
    assert json.loads((newest / "_FAILED").read_text())["status"] == "rejected"


def test_a_few_broken_records_are_skipped_and_counted(data_dir, tmp_path, capsys):
    few = EditableRun(tmp_path / "few", sources=["api"])
    _break_collector_numbers(few, 2)  # 2 of 260 records: under the share, skipped
    assert main(["--data-dir", str(data_dir), "--log-format", "json", "sync", "--offline", str(few.path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["skipped_records"] == 2 and summary["rows"]["printing"] == 105


def test_unknown_fields_are_ignored_and_counted_in_the_summary(data_dir, tmp_path, capsys):
    extra = EditableRun(tmp_path / "extra", sources=["api"])
    [search] = extra.entries("search")
    page = extra.read(search)
    for card in page["data"]:
        card["game_changer"] = False  # a field casefile does not read
    extra.write(search, page)
    assert main(["--data-dir", str(data_dir), "--log-format", "json", "-v", "sync", "--offline", str(extra.path)]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    unknown = {k for c in page["data"] for k in c if k not in api.CARD_FIELDS_READ}
    assert set(summary["unknown_fields"]) == unknown and summary["unknown_fields"]["game_changer"] == 107
    assert summary["rows"]["card"] == 15
    logged = [json.loads(line)["message"] for line in err.splitlines() if line.startswith("{")]
    assert any("that casefile does not read" in m and "game_changer" in m for m in logged)
