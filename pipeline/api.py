"""Python API for notebooks: the warehouse's rulings and cards as pandas DataFrames.

Reads through ``reader.connect_read_only`` and closes the connection before returning; never
syncs, never writes, never opens the network. It runs casefile's own queries only, so it changes
no setting of DuckDB's: a notebook's own connection to the warehouse shares its database with the
API's (DuckDB opens a file once per process), and must keep its settings. That database is the
file as it was when it was first opened: while a notebook's connection stays open, a rebuild that
puts a new file in its place is not seen, by it or by the API, until it is closed.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from .config import Settings, from_env
from .errors import NoWarehouse, damaged_warehouse
from .reader import connect_read_only
from .resources import read_sql

__all__ = ["cards", "rulings"]


def _settings(data_dir: str | Path | None) -> Settings:
    settings = from_env()
    return settings if data_dir is None else settings.with_overrides(data_dir=Path(data_dir))


def _frame(settings: Settings, *statements: str) -> pd.DataFrame:
    """The rows of the last statement, after the others, on a connection closed before returning;
    a damaged warehouse file (met by a query, not by the opening) is a ``ConfigError``."""
    con = connect_read_only(settings.warehouse_path, settings.reader_wait_s)
    try:
        for statement in statements[:-1]:
            con.execute(statement)
        return con.execute(statements[-1]).fetchdf()
    except duckdb.CatalogException as exc:  # a DuckDB file with some of casefile's tables only
        first = str(exc).strip().splitlines()[0]
        raise NoWarehouse(f"the warehouse {settings.warehouse_path} lacks casefile's tables ({first}): "
                          "`casefile sync` or `casefile rebuild` makes them") from None
    except duckdb.Error as exc:
        damaged = damaged_warehouse(exc)
        if damaged is None:
            raise
        raise damaged from None
    finally:
        con.close()


def rulings(data_dir: str | Path | None = None) -> pd.DataFrame:
    """One row per distinct ruling, ordered by ``ruling_id``: the rows of ``casefile export rulings``.

    Columns: ``ruling_id``, ``source``, ``published_at``, ``text``, ``card_count``, ``oracle_ids``
    and ``card_names`` (the cards it applies to, by name), ``translations`` (dicts with ``lang``,
    ``origin``, ``text``, ``machine_translated``), ``origins`` (where it was seen) and
    ``sightings``. ``data_dir`` is the casefile data folder; by default ``CASEFILE_DATA_DIR`` or
    ``data/`` of the checkout (``config.from_env()``). Raises ``ConfigError`` if no warehouse exists
    or its file is damaged.
    """
    return _frame(_settings(data_dir), read_sql("export/rulings.sql"),
                  "SELECT * FROM export_rulings ORDER BY ruling_id ASC")


def cards(data_dir: str | Path | None = None) -> pd.DataFrame:
    """One row per Oracle card, ordered by name: the ``card`` table plus counts.

    Columns: ``oracle_id``, ``name``, ``mana_cost``, ``cmc``, ``colors``, ``color_identity``,
    ``type_line``, ``oracle_text``, ``layout``, then ``printings`` (rows of ``printing``, every
    language), ``languages`` and ``sets`` (sorted, as numpy arrays, the form pandas gives DuckDB's
    lists) and ``rulings`` (how many apply to it).
    ``data_dir`` as for ``rulings()``.
    """
    return _frame(_settings(data_dir), read_sql("api/cards.sql"))
