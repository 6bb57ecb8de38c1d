"""Where the project's own files are: the SQL in ``sql/`` and the bundled offline sample.

They sit at the top of the repository and are mapped into the installed package as
``pipeline._sql`` and ``pipeline._sample``; a source checkout uses them in place.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _locate(checkout_dir: str, package: str) -> Path:
    here = _ROOT / checkout_dir
    if here.is_dir():
        return here
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:
        spec = None
    # the folders are namespace packages (no __init__.py): their one search location is the folder
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise FileNotFoundError(f"cannot find casefile's {checkout_dir}/ (package {package})")
    return Path(locations[0])


def sql_dir() -> Path:
    return _locate("sql", "pipeline._sql")


def sample_dir() -> Path:
    return _locate("data/raw/sample", "pipeline._sample")


@lru_cache(maxsize=None)
def read_sql(relative: str) -> str:
    """The text of ``sql/<relative>``; the file name is chosen by code, never by user input."""
    return (sql_dir() / relative).read_text("utf-8")


def sql_files(folder: str) -> list[Path]:
    return sorted((sql_dir() / folder).glob("*.sql"))
