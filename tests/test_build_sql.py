"""The SQL build path gives the tables the Python reference path gives.

On the bundled sample (API-shaped run), on constructed edge-case card objects, and on a small
SYNTHETIC bulk run from bench/generate.py (labelled as such; never real card data)."""

import functools
import json
import re
import shutil

import duckdb
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.build import build_state, build_state_sql, document_rows, run_row
from pipeline.load.warehouse import load_run, open_writer
from pipeline.normalize import duck
from pipeline.rawstore import RawStore, read_run

from conftest import ROOT
from test_normalize_scryfall import REVERSIBLE

STATE_TABLES = ("card_set", "card", "query_card", "query_wiki_page", "printing", "ruling", "card_ruling",
                "ruling_sighting", "ruling_translation")


def _warehouse(path, store, runs, engine, tables=STATE_TABLES):
    con = open_writer(path)
    try:
        for i, run in enumerate(runs):
            upto = runs[: i + 1]
            state = build_state(store, upto) if engine == "python" else build_state_sql(con, store, upto, min_bytes=0)
            assert state.engine == engine
            load_run(con, run_row(run), state.tables, document_rows(run))
        return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}
    finally:
        con.close()


def both(tmp_path, store, runs, tables=STATE_TABLES):
    py = _warehouse(tmp_path / "py.duckdb", store, runs, "python", tables)
    sql = _warehouse(tmp_path / "sql.duckdb", store, runs, "sql", tables)
    return py, sql


def store_with_sample(tmp_path, sources=("api",)):
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copytree(ROOT / "data" / "raw" / "sample", raw / "20260101T000000.000000Z")
    meta = raw / "20260101T000000.000000Z" / "run.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "run_id": "20260101T000000.000000Z", "mode": "offline",
                                "sources": list(sources)}))
    return RawStore(raw)


def test_sample_gives_identical_tables(tmp_path):
    store = store_with_sample(tmp_path)
    py, sql = both(tmp_path, store, store.complete_runs())
    assert py == sql
    assert len(sql["card"]) == 15 and len(sql["card_ruling"]) == 153 and len(sql["ruling"]) == 40


def test_sample_with_its_page_sources_gives_identical_tables(tmp_path):
    store = store_with_sample(tmp_path, sources=("api", "wiki", "listeblanche", "scryfall-page"))
    py, sql = both(tmp_path, store, store.complete_runs())
    assert py == sql
    origins = {origin for origin in ("mtgwiki", "listeblanche", "scryfall-page")
               if any(f"'{origin}'" in row for row in sql["ruling_sighting"])}
    assert origins == {"mtgwiki", "listeblanche", "scryfall-page"}


def test_pages_behind_a_re_wording_on_the_api_give_identical_tables(tmp_path):
    """CONSTRUCTED: the sample with one ruling of Case of the Shifting Visage re-worded in its API
    rulings list, its pages and the wiki as recorded: the pages' copies join the API's ruling on
    both paths (the SQL path hands the API's rulings of the pages' cards to the reconciliation)."""
    from support.runs import EditableRun

    raw = tmp_path / "raw"
    raw.mkdir()
    run = EditableRun(raw / "20260101T000000.000000Z", sources=["api", "wiki", "listeblanche", "scryfall-page"])
    run.edit_rulings("Case of the Shifting Visage", lambda rulings: [
        r.update(comment=r["comment"].replace("won’t cause", "doesn’t cause")) for r in rulings])
    meta = raw / "20260101T000000.000000Z" / "run.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "run_id": "20260101T000000.000000Z",
                                "mode": "offline"}))
    store = RawStore(raw)
    py, sql = both(tmp_path, store, store.complete_runs())
    assert py == sql
    assert len(sql["ruling"]) == 45
    reworded = [row for row in sql["ruling_sighting"] if "other_wording" in row]
    assert len(reworded) == 2 and all("won’t cause" in row for row in reworded)
    assert {origin for origin in ("listeblanche", "scryfall-page") for row in reworded if f"'{origin}'" in row} == {
        "listeblanche", "scryfall-page"}


def test_a_wiki_page_two_queries_fetched_is_each_querys_on_both_paths(tmp_path):
    """The sample (type:"Case", with its page sources) and a copy of it CONSTRUCTED as a run of
    t:case (support.runs.recorded_as: query and search URLs rewritten, every page byte-identical):
    one wiki document in two current views. Both paths give it to both queries, and its sightings
    and rulings once, as either run alone gives them."""
    from support.runs import recorded_as

    store = store_with_sample(tmp_path, sources=("api", "wiki", "listeblanche", "scryfall-page"))
    second = recorded_as(tmp_path / "raw" / "20260102T000000.000000Z", "t:case",
                         source=tmp_path / "raw" / "20260101T000000.000000Z")
    meta = second / "run.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "run_id": second.name}))
    runs = store.complete_runs()
    assert [r.meta["query"] for r in runs] == ['type:"Case"', "t:case"]
    py, sql = both(tmp_path, store, runs)
    assert py == sql
    [page] = {row[1] for row in map(eval, sql["query_wiki_page"])}
    assert sorted(q for q, _ in map(eval, sql["query_wiki_page"])) == ["t:case", 'type:"Case"']
    alone = _warehouse(tmp_path / "alone.duckdb", store, runs[1:], "python")
    for table in ("ruling", "card_ruling", "ruling_sighting"):
        assert sql[table] == alone[table], table
    assert sum(f"'{page}'" in row for row in sql["ruling_sighting"]) == 14


def _page(cards):
    return json.dumps({"object": "list", "has_more": False, "total_cards": len(cards), "data": cards},
                      ensure_ascii=False).encode()


# Constructed from Scryfall's documented card format, one object per rule of card_records and
# printing_record: faces without top-level fields, empty costs, missing fields, refused objects.
EDGE_CARDS = [
    REVERSIBLE,
    {"object": "card", "id": "00000000-0000-4000-8000-000000000002", "oracle_id": "00000000-0000-4000-8000-0000000000bb",
     "name": "Front // Back", "lang": "en", "layout": "transform", "cmc": 2.0, "set": "tst", "collector_number": "2",
     "color_identity": ["G", "W"], "released_at": "2024-02-09",
     "card_faces": [{"name": "Front", "mana_cost": "{1}{G}", "type_line": "Creature", "oracle_text": "A.", "colors": ["G"]},
                    {"name": "Back", "mana_cost": "", "type_line": "Creature", "oracle_text": "B.", "colors": ["W", "G"],
                     "printed_name": "Dos"}]},
    {"object": "card", "id": "00000000-0000-4000-8000-000000000003", "oracle_id": "00000000-0000-4000-8000-0000000000cc",
     "name": "Land", "layout": "", "set": "tst", "collector_number": "3", "mana_cost": "", "released_at": "soon"},
    {"object": "card", "id": "00000000-0000-4000-8000-000000000004", "oracle_id": "00000000-0000-4000-8000-0000000000cc",
     "name": "Land", "lang": "fr", "set": "tst", "collector_number": "3", "printed_name": "Terrain", "digital": True},
    {"object": "card", "id": "00000000-0000-4000-8000-000000000005", "name": "No oracle", "set": "tst",
     "collector_number": "5"},
    {"object": "card", "id": "00000000-0000-4000-8000-000000000006", "oracle_id": "00000000-0000-4000-8000-0000000000dd",
     "name": "", "set": "tst", "collector_number": "6"},
    {"object": "card", "id": "00000000-0000-4000-8000-000000000007", "oracle_id": "00000000-0000-4000-8000-0000000000ee",
     "name": "No number", "set": "tst"},
]
EDGE_RULINGS = [  # symbols kept and lost, curly and straight quotes, odd spaces, non-ASCII text
    {"source": "wotc", "published_at": "2024-02-02", "comment": "It costs {1} less to cast."},
    {"source": "wotc", "published_at": "2024-02-02", "comment": "It costs less to cast."},
    {"source": "wotc", "published_at": "2024-02-02", "comment": "Cases don\u2019t lose their abilities."},
    {"source": "wotc", "published_at": "2024-02-02", "comment": "Cases  don't lose their abilities. "},
    {"source": "scryfall", "published_at": "2024-03-01", "comment": "\u00c6ther\u00a0counts \uff0d and \u00df."},
    {"source": "scryfall", "published_at": "2024-03-01", "comment": "   "},
    {"source": "scryfall", "published_at": "not a date", "comment": "Undated."},
]


def _edge_run(store, run_id, cards, rulings_by_card):
    from pipeline.wire import Response

    writer = store.new_run({"mode": "offline", "query": "edge", "sources": ["api"]}, run_id=run_id)
    url = "https://api.scryfall.com/cards/search?q=edge"
    writer.save(Response(url, url, 200, {"content-type": "application/json"}, _page(cards), None), "scryfall-api", "search", "1")
    for oracle_id, rulings in rulings_by_card.items():
        url = f"https://api.scryfall.com/cards/{oracle_id}/rulings"
        body = _page([{"object": "ruling", **r} for r in rulings])
        writer.save(Response(url, url, 200, {"content-type": "application/json"}, body, None), "scryfall-api", "rulings", oracle_id)
    url = "https://api.scryfall.com/sets/tst"
    body = json.dumps({"object": "set", "code": "tst", "name": "Test", "card_count": 3, "released_at": "2024-01-01"}).encode()
    writer.save(Response(url, url, 200, {"content-type": "application/json"}, body, None), "scryfall-api", "set", "tst")
    writer.finish({"requests": 0, "bytes": 0})
    return read_run(writer.path)


def test_edge_cases_give_identical_tables(tmp_path):
    store = RawStore(tmp_path / "raw")
    # more objects than refusals allow would reject the run: pad with the sample's good cards
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    repeated = {**sample[0], "collector_number": "999"}  # the same Scryfall id again, later on the page: it wins
    first = _edge_run(store, "20260101T000000.000000Z", EDGE_CARDS + sample + [repeated],
                      {"00000000-0000-4000-8000-0000000000bb": EDGE_RULINGS,
                       "00000000-0000-4000-8000-0000000000cc": EDGE_RULINGS[:3]})
    second = _edge_run(store, "20260102T000000.000000Z", EDGE_CARDS[:3] + sample,
                       {"00000000-0000-4000-8000-0000000000bb": EDGE_RULINGS[2:]})
    py, sql = both(tmp_path, store, [first, second])
    assert py == sql
    py_first, sql_first = both(tmp_path / "first", store, [first])
    assert py_first == sql_first
    [row] = [row for row in sql_first["printing"] if repeated["id"] in row]  # rows are reprs of tuples
    assert "'999'" in row
    assert any("Front // Back" in row for row in sql["card"])


def _card_rows(store, runs, tmp_path) -> dict[str, tuple]:
    """The card table of both paths (asserted equal), by Oracle id."""
    py, sql = both(tmp_path, store, runs, tables=("card",))
    assert py == sql
    return {row[0]: row for row in map(eval, sql["card"])}


def test_null_oracle_text_and_colors_of_a_multi_faced_card_are_read_from_its_faces(tmp_path):
    """Scryfall documents ``oracle_text`` and ``colors`` as nullable, and a multi-faced card's as
    given on its faces. The inputs are constructed from the transform object of EDGE_CARDS
    (placeholder texts) with those fields null; the sample's cards pad the page."""
    transform = EDGE_CARDS[1]
    oracle = "00000000-0000-4000-8000-0000000001%02x"
    cards = [{**transform, "id": f"00000000-0000-4000-8000-0000000001{i:02x}", "oracle_id": oracle % i, **change}
             for i, change in enumerate([
                 {"oracle_text": None},
                 {"colors": None},
                 {"card_faces": [{**face, "colors": None} for face in transform["card_faces"]]},
             ])]
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    store = RawStore(tmp_path / "raw")
    rows = _card_rows(store, [_edge_run(store, "20260101T000000.000000Z", cards + sample, {})], tmp_path)
    # oracle_id, name, mana_cost, cmc, colors, color_identity, type_line, oracle_text, layout
    assert rows[oracle % 0][7] == "A.\n//\nB."
    assert rows[oracle % 1][4] == ["W", "G"]  # in WUBRG order
    assert rows[oracle % 2][4] is None  # no face says its colors: unknown, not colorless


def _reversible_of(card: dict, scryfall_id: str) -> dict:
    """A reversible_card printing of ``card`` as Scryfall gives one: no top-level oracle_id,
    cmc, mana_cost, type_line, oracle_text or colors; each face carries them, and its layout."""
    face = {"object": "card_face", "layout": card["layout"],
            **{k: card[k] for k in ("oracle_id", "name", "mana_cost", "cmc", "type_line", "oracle_text", "colors")}}
    top = {k: v for k, v in card.items()
           if k not in ("oracle_id", "mana_cost", "cmc", "type_line", "oracle_text", "colors")}
    return {**top, "id": scryfall_id, "layout": "reversible_card", "name": f"{card['name']} // {card['name']}",
            "set": "sld", "collector_number": "1500", "card_faces": [face, dict(face)]}


def test_a_card_seen_on_a_reversible_printing_keeps_the_layout_its_faces_give(tmp_path):
    """Scryfall documents a card face's ``layout`` as "the layout of this card face, if the card
    is reversible": ``reversible_card`` is the printing's, not the Oracle card's. Constructed: the
    sample's Case of the Burning Masks also printed as a reversible card (its faces two copies of
    its own fields), with the smallest Scryfall id, so its faces are the card's row."""
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    masks = sample[0]
    reversible = _reversible_of(masks, "00000000-0000-4000-8000-000000000001")
    store = RawStore(tmp_path / "raw")
    alone = _card_rows(store, [_edge_run(store, "20260101T000000.000000Z", sample, {})], tmp_path / "alone")
    with_reversible = _card_rows(store, [_edge_run(store, "20260102T000000.000000Z", [reversible] + sample, {})],
                                 tmp_path / "both")
    assert with_reversible[masks["oracle_id"]] == alone[masks["oracle_id"]]
    assert with_reversible[masks["oracle_id"]][8] == "case"


def test_a_reversible_printing_over_two_cards_does_not_give_them_its_color_identity(tmp_path):
    """A reversible card's color_identity is the printing's, over both faces; a face that is an
    Oracle card of its own takes its fields from a printing of its own where there is one.
    Constructed: the sample's Case of the Burning Masks (red) and Case of the Filched Falcon
    (blue) as the two faces of one reversible printing, with the smallest Scryfall id."""
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    masks = next(c for c in sample if c["name"] == "Case of the Burning Masks" and c["lang"] == "en")
    falcon = next(c for c in sample if c["name"] == "Case of the Filched Falcon" and c["lang"] == "en")
    reversible = _reversible_of(masks, "00000000-0000-4000-8000-000000000001")
    reversible["card_faces"][1] = _reversible_of(falcon, reversible["id"])["card_faces"][0]
    reversible["name"] = f"{masks['name']} // {falcon['name']}"
    reversible["color_identity"] = ["U", "R"]
    store = RawStore(tmp_path / "raw")
    alone = _card_rows(store, [_edge_run(store, "20260101T000000.000000Z", sample, {})], tmp_path / "alone")
    with_reversible = _card_rows(store, [_edge_run(store, "20260102T000000.000000Z", [reversible] + sample, {})],
                                 tmp_path / "both")
    assert with_reversible == alone
    assert with_reversible[masks["oracle_id"]][5] == ["R"] and with_reversible[falcon["oracle_id"]][5] == ["U"]


def test_a_scryfall_id_read_twice_in_a_run_gives_its_card_and_printing_from_the_same_copy(tmp_path):
    """A search whose pages shift while it is read can show a printing twice; the later copy is
    the printing's row, and its card's row too. Constructed: the sample's first object again at
    the end of the page, with a placeholder Oracle text and another collector number."""
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    later = {**sample[0], "oracle_text": "Placeholder Oracle text of a later copy.", "collector_number": "999"}
    store = RawStore(tmp_path / "raw")
    run = _edge_run(store, "20260101T000000.000000Z", sample + [later], {})
    py, sql = both(tmp_path, store, [run], tables=("card", "printing"))
    assert py == sql
    [card] = [row for row in map(eval, sql["card"]) if row[0] == later["oracle_id"]]
    [printing] = [row for row in map(eval, sql["printing"]) if row[0] == later["id"]]
    assert printing[3] == "999" and card[7] == later["oracle_text"]


@pytest.mark.parametrize("date", ["2024-02-30", "0000-01-01", "2024-02-09\n", "\uff12\uff10\uff12\uff14-\uff10\uff12-\uff10\uff19"])
def test_a_date_that_is_no_calendar_date_is_unknown_on_both_paths(tmp_path, date):
    """Scryfall documents released_at and published_at as dates. A text of their shape that is no
    date (30 February, year 0, a line break after it, full-width digits) is an unknown date, or a refused
    ruling, as other malformed dates are; the warehouse's DATE columns could not hold it.
    Constructed: the sample's first object with that released_at, and one ruling of it dated so."""
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    first = {**sample[0], "released_at": date}
    store = RawStore(tmp_path / "raw")
    rulings = {first["oracle_id"]: [EDGE_RULINGS[0], {**EDGE_RULINGS[2], "published_at": date}]}
    run = _edge_run(store, "20260101T000000.000000Z", [first] + sample[1:], rulings)
    py, sql = both(tmp_path, store, [run], tables=("printing", "ruling"))
    assert py == sql
    [printing] = [row for row in map(eval, sql["printing"]) if row[0] == first["id"]]
    assert printing[6] is None
    assert len(sql["ruling"]) == 1


def test_a_ruling_with_an_empty_source_is_reconciled_as_the_python_path_does(tmp_path, monkeypatch):
    """reconcile.py takes a copy whose source is "" for one that shows no source: it joins the
    ruling of its date and text. The SQL reconciliation, which works on anchors only, leaves such
    a build to the Python path instead of making a ruling of source "".
    Constructed: Scryfall documents source as "wotc" or "scryfall", never empty."""
    import pipeline.build
    from pipeline.sync import _build

    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    store = RawStore(tmp_path / "raw")
    first, second = sorted({card["oracle_id"] for card in sample})[:2]
    rulings = {first: [{**EDGE_RULINGS[0], "source": ""}], second: [EDGE_RULINGS[0]]}
    run = _edge_run(store, "20260101T000000.000000Z", sample, rulings)
    con = open_writer(tmp_path / "sql.duckdb")
    try:
        with pytest.raises(duck.SqlPathUnavailable):
            build_state_sql(con, store, [run], min_bytes=0)
        monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 1)
        state = _build(con, store, [run], None, use_delta=True)
    finally:
        con.close()
    assert state.engine == "python"
    reference = build_state(store, [run])
    assert list(reference.tables["ruling"]["source"]) == ["wotc"]
    assert len(reference.tables["card_ruling"]) == 2


def test_synthetic_bulk_run_gives_identical_tables(tmp_path):
    from bench.generate import generate

    runs = generate(0.004, tmp_path / "raw")
    store = RawStore(tmp_path / "raw")
    chosen = [read_run(runs["base"]), read_run(runs["changed"])]
    for run in chosen:  # a bulk run replayed offline is an offline run
        meta = json.loads((run.path / "run.json").read_text())
        (run.path / "run.json").write_text(json.dumps({**meta, "mode": "offline"}))
    chosen = [read_run(r.path) for r in chosen]
    py, sql = both(tmp_path, store, chosen)
    assert py == sql
    assert len(sql["card"]) == 140 and len(sql["printing"]) == 400


def _register_functions(con: duckdb.DuckDBPyConnection) -> None:
    """The SQL macros of 00_text.sql and the Python text functions they fall back on, both at once
    (a build registers the Python ones only when a text needs them: ``duck.variants``)."""
    duck._register_python_functions(con)
    duck.register_macros(con)


@pytest.mark.parametrize("text", [
    "plain", "  two  spaces\tand tab ", "curly \u2019 \u201c \u201d quotes \u2014 dash \u2212 minus",
    "{1}{W/U} symbols {T}", "{ } {toolongsymbol1} {a b}", "space before , punct .", "\u00c6ther \u00df \ufb01",
    "nbsp\u00a0here", "prime \u2033 acute \u00b4", "\x1c\x1dcontrol\x0b", "fullwidth \uff0d \ufe58",
    " it\u2019s  \u201cspaced\u201d\u2014twice ", "double -- hyphen --- and \u2014-- mixed", "-- {1}--",
    "soft\u00adhyphen zero\u200bwidth\ufeff",
    "Cases don`t lose", "a `grave` quote and don\u2019t",  # the backtick: ASCII, yet folded as a quote
    "with \u201c{T}\u201d in its cost", "pay '{2/W}' or ({C}).", "a{1}b \"{W}{U}\" {T}",  # symbols between non-spaces
])
def test_sql_text_functions_match_python(text):
    from pipeline.normalize.text import canonical_text, has_symbols, match_key, symbol_free_key, typographic_score

    con = duckdb.connect()
    _register_functions(con)
    row = con.execute("SELECT cf_match_key($t), cf_canonical($t), cf_has_symbols($t), "
                      "cf_symbol_free_key(cf_match_key($t)), cf_typographic_score(cf_canonical($t))", {"t": text}).fetchone()
    assert row == (match_key(text), canonical_text(text), has_symbols(text), symbol_free_key(text),
                   typographic_score(canonical_text(text)))
    # the features of n_variant (sql/normalize/55_variant.sql spells the macros out, and leaves
    # the texts that are not plain to the Python functions), on a connection that has only the macros
    con = duckdb.connect()
    duck.register_macros(con)
    con.execute("CREATE TEMP TABLE n_sighting AS SELECT 'wotc' AS source, '2024-02-02' AS date_as_seen, "
                "CAST($t AS VARCHAR) AS text_as_seen", {"t": text})
    duck.variants(con)
    assert con.execute("SELECT key, canon, has_symbols, score FROM n_variant").fetchall() == [
        (match_key(text), canonical_text(text), has_symbols(text), typographic_score(canonical_text(text)))]


# Constructed: a ruling quoting a lone symbol, and its page copies once the icon is dropped (the
# symbol vanishes, its quotes stay: curly on scryfall.com, straight on the MTG wiki).
QUOTED = "An ability with \u201c{T}\u201d in its cost can\u2019t be activated unless its creature has been under your control continuously."
QUOTED_PAGE = QUOTED.replace("{T}", "")
QUOTED_WIKI = QUOTED_PAGE.translate(str.maketrans("\u201c\u201d\u2019", "\"\"'"))


def test_the_sql_symbol_free_key_of_a_quoted_lone_symbol_is_its_page_copies_key():
    from pipeline.normalize.text import symbol_free_key

    con = duckdb.connect()
    _register_functions(con)
    keys = [con.execute("SELECT cf_symbol_free_key(cf_match_key($t))", {"t": t}).fetchone()[0]
            for t in (QUOTED, QUOTED_PAGE, QUOTED_WIKI, QUOTED_PAGE.replace("in its cost", "in its effect"))]
    assert keys[0] == keys[1] == keys[2] == symbol_free_key(QUOTED) != keys[3]
    assert keys[3] == symbol_free_key(QUOTED_PAGE.replace("in its cost", "in its effect"))


@functools.cache
def _text_connection() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    _register_functions(con)
    return con


_SYMBOL_TEXT = st.lists(st.sampled_from(["{T}", "{2/W}", "{1}", "\u201c", "\u201d", "'", "\"", "(", ")", ".", ",", ":",
                                          " ", "  ", "a", "Pay", "\u2014", "-", "{", "}", "{a b}"]), max_size=12).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(_SYMBOL_TEXT, min_size=1, max_size=20))
def test_the_sql_symbol_free_key_is_the_python_one_on_texts_of_symbols_quotes_and_punctuation(texts):
    from pipeline.normalize.text import symbol_free_key

    got = _text_connection().execute("SELECT list_transform($t::VARCHAR[], lambda x: cf_symbol_free_key(cf_match_key(x)))",
                      {"t": texts}).fetchone()[0]
    assert got == [symbol_free_key(t) for t in texts]


def test_api_copies_of_a_quoted_lone_symbol_fold_alike_on_both_paths(tmp_path):
    """Three API copies on one date (constructed): the ruling quoting {T}, a copy that lost the
    symbol (it folds into it, flagged), and a copy that lost it and differs by other words (a
    ruling of its own). The SQL path reconciles them in SQL (60_reconcile.sql)."""
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    store = RawStore(tmp_path / "raw")
    oracle_id = sample[0]["oracle_id"]
    texts = (QUOTED, QUOTED_PAGE, QUOTED_PAGE.replace("in its cost", "in its effect"))
    run = _edge_run(store, "20260101T000000.000000Z", sample,
                    {oracle_id: [{"source": "wotc", "published_at": "2024-02-02", "comment": t} for t in texts]})
    py, sql = both(tmp_path, store, [run])
    assert py == sql
    assert sorted(r[3] for r in _rows(sql["ruling"])) == sorted([QUOTED, texts[2]])
    assert sum("symbols_lost" in row for row in sql["ruling_sighting"]) == 1


def test_api_copies_without_symbols_beside_two_symbol_versions_stay_a_ruling_of_their_own_on_both_paths(tmp_path):
    """Three cards' API copies on one date (constructed): two rulings that differ only by their
    symbol, and the same words with none. The symbol-less copy cannot tell which one it lost: it is
    a ruling of its own on both paths, not folded into either."""
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    store = RawStore(tmp_path / "raw")
    a, b, c = sorted({card["oracle_id"] for card in sample})[:3]
    texts = {a: "Add {G}.", b: "Add {U}.", c: "Add."}
    run = _edge_run(store, "20260101T000000.000000Z", sample,
                    {oid: [{"source": "wotc", "published_at": "2024-02-02", "comment": t}] for oid, t in texts.items()})
    py, sql = both(tmp_path, store, [run])
    assert py == sql
    assert sorted(r[3] for r in _rows(sql["ruling"])) == sorted(texts.values())
    assert not any("symbols_lost" in row for row in sql["ruling_sighting"])


def test_page_copies_of_a_quoted_lone_symbol_join_its_ruling_on_both_paths(tmp_path):
    """The sample with its page sources, edited (constructed): Case of the Burning Masks' API list
    gains a ruling quoting {T}, and its scryfall.com page shows that ruling without the symbol, its
    quotes left empty, and one more that differs by other words. The SQL path hands the page copies
    to reconcile.py with the Scryfall sightings whose symbol-free key a page copy has."""
    import hashlib

    from pipeline.rawstore import doc_id_for
    from support.runs import EditableRun

    run = EditableRun(tmp_path / "raw" / "20260101T000000.000000Z",
                      sources=["api", "wiki", "listeblanche", "scryfall-page"])
    meta = run.path / "run.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "run_id": "20260101T000000.000000Z", "mode": "offline"}))
    name = "Case of the Burning Masks"
    run.edit_rulings(name, lambda rulings: rulings.append(
        {"object": "ruling", "oracle_id": rulings[0]["oracle_id"], "source": "wotc", "published_at": "2024-02-02",
         "comment": QUOTED}))
    other = QUOTED_WIKI.replace("in its cost", "in its effect")
    [page] = [e for e in run.entries("page", run.oracle_id(name)) if e["origin"] == "scryfall-page"]
    html = (run.path / page["path"]).read_text("utf-8")
    added = "".join(f'<li>\n<p>{t}</p>\n<p class="ruling-meta">(2024-02-02)</p>\n</li>\n' for t in (QUOTED_WIKI, other))
    body = html.replace('<ul class="rulings-list">\n', '<ul class="rulings-list">\n' + added, 1).encode("utf-8")
    assert body != html.encode("utf-8")
    (run.path / page["path"]).write_bytes(body)
    page.update(doc_id=doc_id_for(page["url"], body), sha256=hashlib.sha256(body).hexdigest(), bytes=len(body))
    page["headers"]["content-length"] = str(len(body))
    run._save()
    store = RawStore(tmp_path / "raw")
    py, sql = both(tmp_path, store, store.complete_runs())
    assert py == sql
    texts = {r[0]: r[3] for r in _rows(sql["ruling"])}
    seen = {r[7]: (texts[r[1]], r[10]) for r in _rows(sql["ruling_sighting"]) if r[3] == "scryfall-page"}
    assert seen[QUOTED_WIKI] == (QUOTED, ["symbols_lost"])
    assert seen[other] == (other, [])


def _rows(reprs: list[str]) -> list[tuple]:
    import datetime

    return [eval(row, {"datetime": datetime}) for row in reprs]


def test_a_python_built_list_column_empty_in_its_first_rows_still_loads(tmp_path):
    """The Python path hands the loader DataFrames. DuckDB types their object columns from 1,000
    sampled rows: ruling_sighting.flags, empty on all but a few sightings of a large build, read
    as a list of NULL and the load failed on the first flag (seen at the benchmark's 1x scale).
    Constructed rows: 3,000 sightings, one flagged, the last."""
    import pandas as pd

    from pipeline.load.warehouse import _stage

    n = 3000
    frame = pd.DataFrame({
        "sighting_id": [f"s{i}" for i in range(n)], "ruling_id": [f"r{i}" for i in range(n)],
        "doc_id": ["d"] * n, "origin": ["scryfall-api"] * n, "oracle_id": [f"o{i}" for i in range(n)],
        "position": list(range(n)), "lang": ["en"] * n, "text_as_seen": ["text"] * n,
        "date_as_seen": ["2024-01-01"] * n, "source_as_seen": ["wotc"] * n,
        "flags": [[] for _ in range(n - 1)] + [["matched_without_date"]],
    })
    con = open_writer(tmp_path / "w.duckdb")
    try:
        _stage(con, "ruling_sighting", frame)
        assert con.execute("SELECT sighting_id, flags FROM stage_ruling_sighting WHERE len(flags) > 0").fetchall() == \
            [(f"s{n - 1}", ["matched_without_date"])]
        assert con.execute("SELECT count(*) FROM stage_ruling_sighting").fetchone()[0] == n
        assert con.execute("SELECT current_setting('pandas_analyze_sample')").fetchone()[0] == 1000
    finally:
        con.close()


def _sample_objects() -> tuple[list[dict], list[dict]]:
    """The card objects and the rulings (each with its oracle_id) of the bundled sample's API view."""
    docs = ROOT / "data" / "raw" / "sample"
    manifest = [json.loads(line) for line in (docs / "manifest.jsonl").read_text("utf-8").splitlines()]
    cards, rulings = [], []
    for entry in manifest:
        if entry["origin"] != "scryfall-api" or entry["status"] != 200:
            continue
        body = json.loads((docs / entry["path"]).read_bytes())
        if entry["kind"] == "search":
            cards.extend(body["data"])
        elif entry["kind"] == "rulings":
            rulings.extend({**r, "oracle_id": entry["key"]} for r in body["data"])
    return cards, rulings


def _bulk_run(store, run_id, cards, rulings):
    """A bulk '*' run (bulk card file, bulk rulings file) holding ``cards`` and ``rulings``."""
    from pipeline.wire import Response

    writer = store.new_run({"mode": "offline", "query": "*", "plan": "bulk", "sources": ["api"]}, run_id=run_id)
    for kind, key, items in (("bulk-cards", "default_cards", cards), ("bulk-rulings", "rulings", rulings)):
        url = f"https://data.scryfall.io/{key}/{key}-{run_id[:8]}.json"
        body = ("[\n" + ",\n".join(json.dumps(item, ensure_ascii=False) for item in items) + "\n]\n").encode()
        writer.save(Response(url, url, 200, {"content-type": "application/json"}, body, None),
                    "scryfall-api", kind, key)
    writer.finish({"requests": 0, "bytes": 0})
    return read_run(writer.path)


def test_a_bulk_view_beside_a_query_with_page_sources_gives_identical_tables(tmp_path):
    """A bulk '*' view beside the sample's type:"Case" views (Scryfall's API and three page
    sources): two queries and page copies, on the SQL path, against the Python reference.

    The bulk files are CONSTRUCTED: the sample's own card objects and rulings (a Case ruling now
    sighted in two Scryfall documents and on the pages), a synthetic card, and three rulings on it
    made from a sample ruling that page copies reach: the same text on another date (an undated
    wiki copy then has two rulings to choose from), the text without its mana symbols on the same
    date (it folds into the ruling with them), and a text no page shows."""
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copytree(ROOT / "data" / "raw" / "sample", raw / "20260101T000000.000000Z")
    meta = raw / "20260101T000000.000000Z" / "run.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "run_id": "20260101T000000.000000Z",
                                "mode": "offline"}))
    store = RawStore(raw)
    sample = read_run(raw / "20260101T000000.000000Z")
    cards, rulings = _sample_objects()
    with_symbols = next(r for r in rulings if "{" in r["comment"] and r["source"] == "wotc")
    synthetic = "00000000-0000-4000-8000-00000000aaaa"
    cards.append({"object": "card", "id": "00000000-0000-4000-8000-00000000a001", "oracle_id": synthetic,
                  "name": "Synthetic Case", "lang": "en", "layout": "normal", "set": "tst", "collector_number": "1",
                  "type_line": "Enchantment \u2014 Case", "oracle_text": "Constructed.", "released_at": "2024-02-09"})
    rulings += [
        {**with_symbols, "oracle_id": synthetic, "published_at": "2030-01-01"},
        {**with_symbols, "oracle_id": synthetic, "comment": re.sub(r"\{[^{}]+\}", "", with_symbols["comment"])},
        {"object": "ruling", "oracle_id": synthetic, "source": "wotc", "published_at": "2024-02-02",
         "comment": "A constructed ruling no page shows."},
    ]
    bulk = _bulk_run(store, "20260102T000000.000000Z", cards, rulings)
    py, sql = both(tmp_path, store, [sample, bulk])
    assert py == sql
    assert sorted(q for q, _ in map(eval, sql["query_card"])) == ["*"] * 16 + ['type:"Case"'] * 15
    # the page copies did meet the constructed rulings: a wiki copy chose between two dates
    flagged = [row for row in sql["ruling_sighting"] if "ambiguous_match" in row]
    assert flagged and all("mtgwiki" in row or "listeblanche" in row or "scryfall-page" in row for row in flagged)
    assert any("symbols_lost" in row and synthetic in row for row in sql["ruling_sighting"])


def test_a_large_input_duckdb_cannot_read_is_built_in_python_with_a_warning(tmp_path, caplog, monkeypatch):
    """A value DuckDB cannot cast (constructed: a card whose cmc is a word) sends the build to the
    Python path, which refuses that one record; at bulk sizes that costs many times the SQL
    build, so it is a warning, not an info line."""
    import logging

    import pipeline.build
    from pipeline.sync import _build

    store = RawStore(tmp_path / "raw")
    sample = json.loads((ROOT / "data/raw/sample/docs/scryfall-api/00001-search.json").read_text("utf-8"))["data"]
    bad = {**sample[0], "id": "00000000-0000-4000-8000-00000000b001", "cmc": "not a number"}
    run = _edge_run(store, "20260101T000000.000000Z", sample + [bad], {})
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 1)
    con = open_writer(tmp_path / "w.duckdb")
    try:
        with caplog.at_level(logging.INFO, logger="pipeline"):
            state = _build(con, store, [run], None, use_delta=True)
    finally:
        con.close()
    assert state.engine == "python" and state.skipped_count == 1
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.getMessage().startswith("building in Python: Invalid Input Error")
    assert "many times the SQL build" in warning.getMessage()


def test_two_bulk_views_of_the_same_files_give_identical_tables(tmp_path):
    """Two bulk queries ('*' and type:enchantment) whose runs hold the same SYNTHETIC files (a
    304 links yesterday's file into a new run the same way): one rulings document, two views."""
    from bench.generate import generate

    runs = generate(0.004, tmp_path / "raw")
    everything, enchantments = runs["base"], tmp_path / "raw" / "20000109T000000.000000Z"  # a run id no day has
    assert enchantments not in runs.values()
    shutil.copytree(everything, enchantments)
    for path, query in ((everything, "*"), (enchantments, "type:enchantment")):
        meta = json.loads((path / "run.json").read_text())
        (path / "run.json").write_text(json.dumps({**meta, "run_id": path.name, "query": query, "mode": "offline"}))
    store = RawStore(tmp_path / "raw")
    py, sql = both(tmp_path, store, [read_run(everything), read_run(enchantments)])
    assert py == sql
    queries = [q for q, _ in map(eval, sql["query_card"])]
    assert queries.count("*") == len(sql["card"]) and 0 < queries.count("type:enchantment") < len(sql["card"])


def test_both_paths_count_the_same_unread_fields_of_search_pages(tmp_path):
    """unknown_fields in a sync's summary shows a change of Scryfall's format; the SQL path counts
    it from the search pages as the Python reader does."""
    store = store_with_sample(tmp_path, sources=("api", "wiki", "listeblanche", "scryfall-page"))
    runs = store.complete_runs()
    python = build_state(store, runs).unknown_fields
    con = open_writer(tmp_path / "w.duckdb")
    try:
        sql = build_state_sql(con, store, runs, min_bytes=0).unknown_fields
    finally:
        con.close()
    assert sql == python
    assert python["arena_id"] == 14 and python["artist"] == 107


def test_the_relevant_glossary_terms_are_worked_out_once_per_build(monkeypatch):
    """relevant_terms reads every card (0.12 s at the benchmark's 1x); it ran once per glossary
    entry, which an edition of hundreds of entries turns into minutes."""
    from pipeline import rules_tables
    from pipeline.normalize.rules import parse_cr
    from pipeline.records import Card

    doc = parse_cr((ROOT / "tests/fixtures/rules/cr_case_excerpt.txt").read_bytes(), "excerpt")
    assert len(doc.glossary) >= 2
    cards = [Card(oracle_id=f"o{i}", name=f"Case {i}", mana_cost=None, cmc=None, colors=None, color_identity=(),
                  type_line="Enchantment \u2014 Case", oracle_text="To solve \u2014 Constructed.", layout="normal")
             for i in range(3)]
    calls = []
    real = rules_tables.relevant_terms
    monkeypatch.setattr(rules_tables, "relevant_terms", lambda c: calls.append(len(c)) or real(c))
    tables = rules_tables.rules_tables({doc.effective_date: ("doc", doc)}, [], cards, [])
    assert calls == [3]
    assert len(tables["card_rule"]) > 0


LINKED = STATE_TABLES + ("ruling_rule", "card_rule", "cr_edition")


def _rules_run(store, run_id):
    """A run that ingests the CR excerpt of the tests, as ``casefile rules ingest`` writes it."""
    from pipeline.extract.rules import fetch_rules

    writer = store.new_run({"mode": "ingest", "query": None, "sources": ["rules"]}, run_id=run_id)
    fetch_rules(str(ROOT / "tests" / "fixtures" / "rules" / "cr_case_excerpt.txt"), None, writer, None)
    writer.finish({"requests": 0, "bytes": 0})
    return read_run(writer.path)


def _linked(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("rules links:")]


def test_full_builds_keep_the_links_of_the_texts_the_warehouse_holds(tmp_path, caplog):
    """With an edition ingested, a full SQL build links only the rulings and cards whose texts
    the warehouse does not hold yet and keeps the others' links; the Python path links every one
    on every build. Runs: the sample with its page sources (the wiki page quotes rules: wiki_quote
    links of every Case), the excerpt, then two bulk '*' views beside them made of the sample's own
    objects (CONSTRUCTED: the second rewords one ruling and adds a synthetic Case)."""
    import logging

    caplog.set_level(logging.DEBUG, logger="pipeline.rules_tables")
    store = store_with_sample(tmp_path, sources=("api", "wiki", "listeblanche", "scryfall-page"))
    cards, rulings = _sample_objects()
    runs = [*store.complete_runs(), _rules_run(store, "20260101T120000.000000Z"),
            _bulk_run(store, "20260102T000000.000000Z", cards, rulings)]
    synthetic = "00000000-0000-4000-8000-00000000aaaa"
    cards = [*cards, {"object": "card", "id": "00000000-0000-4000-8000-00000000a001", "oracle_id": synthetic,
                      "name": "Synthetic Case", "lang": "en", "layout": "normal", "set": "tst",
                      "collector_number": "1", "type_line": "Enchantment \u2014 Case",
                      "oracle_text": "Constructed.", "released_at": "2024-02-09"}]
    rulings = [*rulings[:5], {**rulings[5], "comment": rulings[5]["comment"] + " See rule 702.169a."}, *rulings[6:]]
    runs.append(_bulk_run(store, "20260103T000000.000000Z", cards, rulings))
    py, sql = both(tmp_path, store, runs, LINKED)
    assert py == sql
    assert _linked(caplog) == ["rules links: 0 ruling(s) and 0 card(s) linked, the links of the others kept",
                               "rules links: 1 ruling(s) and 1 card(s) linked, the links of the others kept"]
    assert any("'wiki_quote'" in row for row in sql["card_rule"])
    assert any(synthetic in row and "'719', " in row and "'type_line'" in row for row in sql["card_rule"])
    assert any(synthetic in row and "'wiki_quote'" in row for row in sql["card_rule"])
    assert any("'702.169a', " in row and "'citation'" in row for row in sql["ruling_rule"])


def test_a_full_build_whose_cards_change_the_glossary_terms_links_every_text_again(tmp_path, caplog, monkeypatch):
    """A bulk view whose Cases are CONSTRUCTED into "Riddles" without a "Solved —" line makes no
    glossary term worth linking; the next view, the sample's own objects, makes "Case" and
    "Solved" worth it: every ruling that names them gains links, and the build links all again.
    The texts and links go through DuckDB 7 rows at a time here, to cross many batches."""
    import logging

    from pipeline import rules_tables

    monkeypatch.setattr(rules_tables, "BATCH_ROWS", 7)
    caplog.set_level(logging.DEBUG, logger="pipeline.rules_tables")
    store = RawStore(tmp_path / "raw")
    cards, rulings = _sample_objects()
    riddles = [json.loads(json.dumps(c, ensure_ascii=False).replace("Solved \u2014 ", "Closed \u2014 ")
                          .replace("Case", "Riddle")) for c in cards]
    runs = [_bulk_run(store, "20260101T000000.000000Z", riddles, rulings),
            _rules_run(store, "20260101T120000.000000Z"),
            _bulk_run(store, "20260102T000000.000000Z", cards, rulings)]
    py, sql = both(tmp_path, store, runs, LINKED)
    assert py == sql
    assert _linked(caplog) == []  # the ingest links everything; then the terms changed
    glossary = [row for row in sql["ruling_rule"] if "'glossary'" in row]
    assert len(glossary) > 10
