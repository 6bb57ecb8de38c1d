"""Python API for notebooks: the warehouse's rulings and cards as pandas DataFrames.

Reads through ``reader.connect_read_only`` and closes the connection before returning; never
syncs, never writes, never opens the network. It runs casefile's own queries only, so it changes
no setting of DuckDB's: a notebook's own connection to the warehouse shares its database with the
API's (DuckDB opens a file once per process), and must keep its settings.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .config import Settings, from_env
from .reader import connect_read_only
from .resources import read_sql

__all__ = ["cards", "rulings"]


def _settings(data_dir: str | Path | None) -> Settings:
    settings = from_env()
    return settings if data_dir is None else settings.with_overrides(data_dir=Path(data_dir))


def rulings(data_dir: str | Path | None = None) -> pd.DataFrame:
    """One row per distinct ruling, ordered by ``ruling_id``: the rows of ``casefile export rulings``.

    Columns: ``ruling_id``, ``source``, ``published_at``, ``text``, ``card_count``, ``oracle_ids``
    and ``card_names`` (the cards it applies to, by name), ``translations`` (dicts with ``lang``,
    ``origin``, ``text``, ``machine_translated``), ``origins`` (where it was seen) and
    ``sightings``. ``data_dir`` is the casefile data folder; by default ``CASEFILE_DATA_DIR`` or
    ``data/`` of the checkout (``config.from_env()``). Raises ``ConfigError`` if no warehouse exists.
    """
    settings = _settings(data_dir)
    con = connect_read_only(settings.warehouse_path, settings.reader_wait_s)
    try:
        con.execute(read_sql("export/rulings.sql"))
        return con.execute("SELECT * FROM export_rulings ORDER BY ruling_id").fetchdf()
    finally:
        con.close()


def cards(data_dir: str | Path | None = None) -> pd.DataFrame:
    """One row per Oracle card, ordered by name: the ``card`` table plus counts.

    Columns: ``oracle_id``, ``name``, ``mana_cost``, ``cmc``, ``colors``, ``color_identity``,
    ``type_line``, ``oracle_text``, ``layout``, then ``printings`` (rows of ``printing``, every
    language), ``languages`` and ``sets`` (sorted lists) and ``rulings`` (how many apply to it).
    ``data_dir`` as for ``rulings()``.
    """
    settings = _settings(data_dir)
    con = connect_read_only(settings.warehouse_path, settings.reader_wait_s)
    try:
        return con.execute(read_sql("api/cards.sql")).fetchdf()
    finally:
        con.close()
