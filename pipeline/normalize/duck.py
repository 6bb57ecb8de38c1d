"""The SQL build path: raw Scryfall documents to table rows inside DuckDB, for large runs.

Same rules as ``normalize/scryfall.py`` and ``reconcile.py`` (which stay the reference: a test
checks both give identical tables), but DuckDB's ``read_json`` parses the files on every core
and the rules run as the SQL of ``sql/normalize/``. It reads raw files and creates TEMP tables on
the connection it is given; it never touches the warehouse's own tables, and never the network.

Known difference: ``read_json`` casts a value of another type than Scryfall documents where it
can (the number 1500 as collector number "1500") where the Python reader refuses the record. A
document DuckDB cannot read at all raises ``SqlPathUnavailable`` and the build uses the Python
path for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..errors import ParseError
from ..resources import read_sql, sql_files
from ..sqlexec import insert_rows, run_script
from . import text

log = logging.getLogger(__name__)

# Types of the card object fields casefile reads (Scryfall's documented types,
# https://scryfall.com/docs/api/cards). Fields not named here are not read at all.
FACE_TYPE = ("STRUCT(oracle_id VARCHAR, name VARCHAR, mana_cost VARCHAR, cmc DOUBLE, colors VARCHAR[], "
             "type_line VARCHAR, oracle_text VARCHAR, printed_name VARCHAR, printed_text VARCHAR, layout VARCHAR)")
CARD_COLUMNS = {
    "id": "VARCHAR", "oracle_id": "VARCHAR", "name": "VARCHAR", "lang": "VARCHAR", "released_at": "VARCHAR",
    "layout": "VARCHAR", "mana_cost": "VARCHAR", "cmc": "DOUBLE", "type_line": "VARCHAR",
    "oracle_text": "VARCHAR", "colors": "VARCHAR[]", "color_identity": "VARCHAR[]", "set": "VARCHAR",
    "collector_number": "VARCHAR", "rarity": "VARCHAR", "digital": "BOOLEAN", "printed_name": "VARCHAR",
    "printed_text": "VARCHAR", "scryfall_uri": "VARCHAR", "card_faces": FACE_TYPE + "[]",
}
CARD_TYPE = "STRUCT(" + ", ".join(f'"{k}" {v}' for k, v in CARD_COLUMNS.items()) + ")"
RULING_COLUMNS = {"object": "VARCHAR", "oracle_id": "VARCHAR", "source": "VARCHAR", "published_at": "VARCHAR",
                  "comment": "VARCHAR"}
RULING_TYPE = "STRUCT(" + ", ".join(f'"{k}" {v}' for k, v in RULING_COLUMNS.items()) + ")"
SET_COLUMNS = {"object": "VARCHAR", "code": "VARCHAR", "name": "VARCHAR", "set_type": "VARCHAR",
               "released_at": "VARCHAR", "card_count": "BIGINT", "digital": "BOOLEAN"}
SET_TYPE = "STRUCT(" + ", ".join(f'"{k}" {v}' for k, v in SET_COLUMNS.items()) + ")"
# The order SQL files of sql/normalize/ produce; n_<table> holds each table's rows.
TABLES = ("card_set", "card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation")


class SqlPathUnavailable(Exception):
    """The SQL path does not apply: the input is small, DuckDB cannot read a document or a bulk
    ruling has no date or source. The Python path handles it (and names what is wrong).

    ``large``: the input is of the size the SQL path is for (pipeline/build.py
    SQL_PATH_MIN_BYTES), so the Python build will be slow and hold it all in memory."""

    def __init__(self, reason: str, large: bool = False):
        super().__init__(reason)
        self.large = large


@dataclass
class Doc:
    """One raw document to read: where it is, and where it sits in the order of the build."""

    file_seq: int
    run_id: str
    doc_id: str
    kind: str  # search | rulings | set | sets | bulk-cards | bulk-rulings
    key: str | None
    path: Path
    name: str  # "<run_id>/<path>", as messages name documents
    terms: list[dict] | None = None  # the local query filter of a bulk view (see normalize/query.py)
    place: str | None = None  # a bulk rulings file's place (see RulingSighting.place)
    sha256: str | None = None  # of the body (names its line index in the cache, see lines.py)


@dataclass
class Counts:
    objects: int = 0
    refused: int = 0
    examples: list[str] = field(default_factory=list)  # the first refusals, "doc#index: reason"


# Refusals named per document in messages; the count is always exact.
EXAMPLES = 5


def register_macros(con: duckdb.DuckDBPyConnection) -> None:
    """The SQL macros of 00_text.sql. The Python functions are registered when a text needs them
    (``variants``): DuckDB imports numpy to register one, which costs some 30 ms."""
    con.execute(read_sql("normalize/00_text.sql"))


def _register_python_functions(con: duckdb.DuckDBPyConnection) -> None:
    for name, func, ret in (("py_match_key", text.match_key, "VARCHAR"),
                            ("py_canonical_text", text.canonical_text, "VARCHAR"),
                            ("py_has_symbols", text.has_symbols, "BOOLEAN")):
        try:
            con.create_function(name, func, ["VARCHAR"], ret, side_effects=False)
        except duckdb.NotImplementedException:  # registered by an earlier build on this connection
            pass


def variants(con: duckdb.DuckDBPyConnection, sightings: str = "n_sighting") -> None:
    """n_variant from ``sightings`` (a table or view of n_sighting's columns, named by code;
    55_variant.sql); the texts that are not plain get their features from the Python functions
    (variant_python.sql), registered now if there are any."""
    con.execute(read_sql("normalize/55_variant.sql").format(sightings=sightings))
    if con.execute("SELECT count(*) FROM n_variant WHERE NOT plain").fetchall()[0][0]:
        _register_python_functions(con)
        con.execute(read_sql("normalize/variant_python.sql"))


def _json_format(path: Path) -> str:
    name = path.name.removesuffix(".gz")
    return "newline_delimited" if name.endswith((".jsonl", ".ndjson")) else "array"


def stage_documents(con: duckdb.DuckDBPyConnection, docs: list[Doc]) -> None:
    """Read every document into card_object, ruling_object and set_object (TEMP tables)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE card_object (file_seq INTEGER, ord BIGINT, run_id VARCHAR, "
                f"{', '.join(f'{_q(k)} {v}' for k, v in CARD_COLUMNS.items())})")
    # ruling_object, set_object, and line_place: the lines a delta build reads again (none here)
    run_script(con, read_sql("normalize/object_tables.sql"))
    by_kind: dict[str, list[Doc]] = {}
    for doc in docs:
        by_kind.setdefault(doc.kind, []).append(doc)
    try:
        if by_kind.get("search"):
            _stage_lists(con, by_kind["search"], CARD_TYPE, "card")
        for doc in by_kind.get("bulk-cards", []):
            stage_bulk_cards(con, doc)
        if by_kind.get("rulings"):
            _stage_lists(con, by_kind["rulings"], RULING_TYPE, "ruling")
        for doc in by_kind.get("bulk-rulings", []):
            stage_bulk_rulings(con, doc)
        if by_kind.get("set"):
            _stage_sets(con, by_kind["set"])
        if by_kind.get("sets"):
            _stage_lists(con, by_kind["sets"], SET_TYPE, "set")
    except duckdb.Error as exc:
        if isinstance(exc, (duckdb.InvalidInputException, duckdb.ConversionException, duckdb.IOException)):
            raise SqlPathUnavailable(str(exc).splitlines()[0], large=True) from None
        raise


def _q(name: str) -> str:
    return f'"{name}"'


def _register_docs(con: duckdb.DuckDBPyConnection, docs: list[Doc]) -> None:
    con.execute(read_sql("normalize/doc_input.sql"))
    insert_rows(con, "doc_input", [{"file_seq": d.file_seq, "run_id": d.run_id, "doc_id": d.doc_id, "key": d.key,
                                    "path": str(d.path), "doc_name": d.name} for d in docs])


def _stage_lists(con: duckdb.DuckDBPyConnection, docs: list[Doc], item_type: str, what: str) -> None:
    """Scryfall list objects (search pages, rulings lists, the sets list): check, then unnest."""
    _register_docs(con, docs)
    con.execute(read_sql("normalize/read_list.sql"),
                {"files": [str(d.path) for d in docs], "columns": {"object": "VARCHAR", "data": item_type + "[]"}})
    bad = con.execute(read_sql("normalize/bad_list_page.sql")).fetchone()
    if bad:
        raise ParseError(bad[0], "expected a Scryfall list object with a data array")
    con.execute(read_sql(f"normalize/read_list_{what}.sql"))


def stage_bulk_cards(con: duckdb.DuckDBPyConnection, doc: Doc) -> None:
    """The card objects of a bulk file, numbered by their place in it; or, when TEMP table
    line_place lists places (a delta build, normalize/delta.py), of a file of lines copied out of
    one, each at its line's place in the bulk file."""
    con.execute(read_sql("normalize/read_bulk_cards.sql"),
                {"file": str(doc.path), "format": _json_format(doc.path), "columns": CARD_COLUMNS,
                 "file_seq": doc.file_seq, "run_id": doc.run_id, "terms": doc.terms})


def stage_bulk_rulings(con: duckdb.DuckDBPyConnection, doc: Doc) -> None:
    """The ruling objects of a bulk file (placed as in ``stage_bulk_cards``)."""
    con.execute(read_sql("normalize/read_bulk_rulings.sql"),
                {"file": str(doc.path), "format": _json_format(doc.path), "columns": RULING_COLUMNS,
                 "file_seq": doc.file_seq, "doc_id": doc.doc_id, "place": doc.place})


def _stage_sets(con: duckdb.DuckDBPyConnection, docs: list[Doc]) -> None:
    _register_docs(con, docs)
    con.execute(read_sql("normalize/read_set.sql"), {"files": [str(d.path) for d in docs], "columns": SET_COLUMNS})
    bad = con.execute(read_sql("normalize/bad_set.sql")).fetchone()
    if bad:
        raise ParseError(bad[0], "expected a Scryfall set object with a code")
    con.execute(read_sql("normalize/read_set_object.sql"))


def unknown_fields(con: duckdb.DuckDBPyConnection, docs: list[Doc]) -> dict[str, int]:
    """Fields of the search pages' card objects that casefile does not read, with how many
    objects carry each (what ``scryfall.search_page_records`` counts). Bulk files are not
    counted, on either path."""
    from .scryfall import CARD_FIELDS_READ

    files = [str(d.path) for d in docs if d.kind == "search"]
    if not files:
        return {}
    rows = con.execute(read_sql("normalize/unknown_fields.sql"),
                       {"files": files, "read": sorted(CARD_FIELDS_READ)}).fetchall()
    return {key: int(n) for key, n in rows}


def refusals(con: duckdb.DuckDBPyConnection, docs: list[Doc]) -> dict[str, Counts]:
    """Records read and refused per run (the share refused decides whether a run may load)."""
    run_of = {d.file_seq: d.run_id for d in docs}
    name_of = {d.file_seq: d.name for d in docs}
    counts: dict[str, Counts] = {}
    for file_seq, objects, refused in con.execute(read_sql("normalize/refused.sql")).fetchall():
        got = counts.setdefault(run_of[file_seq], Counts())
        got.objects += objects
        got.refused += len(refused or [])
        room = EXAMPLES - len(got.examples)
        got.examples.extend(f"{name_of[file_seq]}#{r['ord']}: {r['reason']}" for r in (refused or [])[:max(0, room)])
    return counts


def derive_records(con: duckdb.DuckDBPyConnection) -> None:
    """sql/normalize/[1-5]*.sql: staged objects to printings, cards, sets, sightings and their
    variants (55_variant.sql through ``variants``)."""
    for path in sql_files("normalize"):
        if path.name == "55_variant.sql":
            variants(con)
        elif path.name[0] in "12345":
            con.execute(path.read_text("utf-8"))


def release_objects(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the staged objects once records and refusals are derived: TEMP tables live in DuckDB's
    memory, and a load that keeps them spills the later steps to disk."""
    con.execute("DROP VIEW IF EXISTS n_object")
    for table in ("card_object", "ruling_object", "set_object", "list_page", "set_doc"):
        con.execute(f"DROP TABLE IF EXISTS {table}")


def all_anchors(con: duckdb.DuckDBPyConnection) -> bool:
    """True when the SQL reconcile applies: every sighting dated, sourced and in English. An empty
    source is none: reconcile.py takes such a copy for one that shows no source."""
    return not con.execute("SELECT count(*) FROM n_sighting WHERE date_as_seen IS NULL OR source IS NULL "
                           "OR source = '' OR lang <> 'en'").fetchone()[0]


def reconcile(con: duckdb.DuckDBPyConnection) -> None:
    """sql/normalize/6*.sql: sightings to rulings, card links and sighting rows."""
    for path in sql_files("normalize"):
        if path.name[0] == "6":
            con.execute(path.read_text("utf-8"))
