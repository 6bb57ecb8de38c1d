"""pipeline.api: rulings() and cards() as DataFrames, from a read-only connection."""

import json

import duckdb
import pandas as pd
import pytest

from pipeline import api
from pipeline.errors import ConfigError

from conftest import FIXTURES

REFERENCE = json.loads((FIXTURES / "reference" / "case_cards.json").read_text("utf-8"))


def test_rulings_one_row_per_distinct_ruling(sample_data_dir):
    frame = api.rulings(sample_data_dir)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["ruling_id", "source", "published_at", "text", "card_count", "oracle_ids",
                                   "card_names", "translations", "origins", "sightings"]
    assert len(frame) == 40 and frame["ruling_id"].is_unique
    assert list(frame["ruling_id"]) == sorted(frame["ruling_id"])
    assert frame["card_count"].sum() == 153
    assert sorted(frame["card_count"].value_counts().items()) == [(1, 26), (2, 5), (13, 9)]
    falcon = frame[frame["card_names"].map(lambda names: "Case of the Filched Falcon" in list(names))]
    assert len(falcon) == next(c["rulings_count"] for c in REFERENCE if c["name"] == "Case of the Filched Falcon")


def test_cards_one_row_per_oracle_card(sample_data_dir):
    frame = api.cards(sample_data_dir)
    assert len(frame) == 15 and frame["oracle_id"].is_unique
    assert list(frame["name"]) == sorted(c["name"] for c in REFERENCE)
    by_name = frame.set_index("name")
    for card in REFERENCE:
        row = by_name.loc[card["name"]]
        assert row["rulings"] == card["rulings_count"], card["name"]
        assert row["cmc"] == card["mana_value"] and list(row["colors"]) == card["colors"]
        assert set(row["sets"]) >= {p["set_code"] for p in card["printings"]}
    assert frame["printings"].sum() == 107
    assert list(by_name.loc["Case of the Shifting Visage", "languages"]) == ["de", "en", "fr", "it", "ja"]


def test_default_data_dir_comes_from_the_environment(sample_data_dir, monkeypatch):
    monkeypatch.setenv("CASEFILE_DATA_DIR", str(sample_data_dir))
    assert len(api.cards()) == 15 and len(api.rulings()) == 40


def test_no_warehouse_raises_a_config_error(data_dir):
    with pytest.raises(ConfigError, match="casefile sync"):
        api.rulings(data_dir)


def test_the_connection_is_closed_before_returning(warehouse_copy):
    data = warehouse_copy()
    before = (data / "warehouse" / "casefile.duckdb").read_bytes()
    api.rulings(data)
    api.cards(data)
    assert (data / "warehouse" / "casefile.duckdb").read_bytes() == before
    # DuckDB refuses a second configuration of a file still open in this process: a writer opens
    # at once only if no connection of the API is left open
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"))
    con.close()


def test_a_connection_of_your_own_to_the_warehouse_keeps_its_settings_and_the_api_keeps_working(sample_data_dir):
    """A notebook that holds its own read-only connection to the warehouse: DuckDB gives the API the
    same database, whose settings are the notebook's as much as the API's. Before, the first call
    switched external access off and locked the configuration under the notebook's connection (it
    could no longer read a file), and the second call failed on DuckDB's locked configuration."""
    mine = duckdb.connect(str(sample_data_dir / "warehouse" / "casefile.duckdb"), read_only=True)
    try:
        assert len(api.rulings(sample_data_dir)) == 40
        assert len(api.cards(sample_data_dir)) == 15 and len(api.rulings(sample_data_dir)) == 40
        settings = "SELECT current_setting('enable_external_access'), current_setting('lock_configuration')"
        assert mine.execute(settings).fetchone() == (True, False)
        reference = FIXTURES / "reference" / "case_cards.json"
        assert mine.execute("SELECT count(*) FROM read_json_auto($path)", {"path": str(reference)}).fetchone() == (15,)
    finally:
        mine.close()


def test_a_damaged_warehouse_raises_a_config_error_that_says_rebuild(warehouse_copy):
    """The warehouse cut to half its size (made here, as a copy or a disk that lost its end leaves
    it): DuckDB opens it and fails when a query reaches the lost part. The API says what every
    command says, as a ConfigError; before, DuckDB's IOException came out of the API's query."""
    data = warehouse_copy()
    db = data / "warehouse" / "casefile.duckdb"
    with open(db, "r+b") as fh:
        fh.truncate(db.stat().st_size // 2)
    with pytest.raises(ConfigError, match="the warehouse file is damaged: `casefile rebuild`"):
        api.rulings(data)


def test_a_notebook_s_default_order_and_locked_configuration_change_nothing(warehouse_copy):
    """A notebook's own connection shares its database's settings with the API's: with
    `SET GLOBAL default_order = 'DESC'` the cards came in reverse order, their languages too; with
    the configuration locked, the API's first statement failed with DuckDB's error."""
    data = warehouse_copy()
    before = api.cards(data), api.rulings(data)
    mine = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"), read_only=True)
    try:
        mine.execute("SET GLOBAL default_order = 'DESC'")
        mine.execute("SET lock_configuration = true")
        cards, rulings = api.cards(data), api.rulings(data)
    finally:
        mine.close()
    assert list(cards.name) == list(before[0].name) == sorted(cards.name)
    assert [list(x) for x in cards.languages] == [sorted(x) for x in cards.languages]
    assert list(rulings.ruling_id) == sorted(rulings.ruling_id) == list(before[1].ruling_id)


def test_a_file_with_some_of_casefile_s_tables_raises_a_config_error(data_dir):
    """A DuckDB file holding a sync_run table and nothing else (made here): DuckDB's CatalogException
    came out of the API."""
    (data_dir / "warehouse").mkdir()
    con = duckdb.connect(str(data_dir / "warehouse" / "casefile.duckdb"))
    con.execute("CREATE TABLE sync_run (x INTEGER)")
    con.close()
    with pytest.raises(ConfigError, match="lacks casefile's tables"):
        api.rulings(data_dir)


def test_a_warehouse_a_notebook_opened_with_another_configuration_raises_a_config_error(warehouse_copy):
    data = warehouse_copy()
    mine = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"), read_only=True, config={"threads": 1})
    try:
        with pytest.raises(ConfigError, match="open in this process with another configuration"):
            api.cards(data)
    finally:
        mine.close()
