"""Where the project's own files are: the SQL in ``sql/`` and the bundled offline sample.

They sit at the top of the repository and are mapped into the installed package as
``pipeline._sql`` and ``pipeline._sample``; a source checkout uses them in place.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

from .errors import ConfigError

_ROOT = Path(__file__).resolve().parent.parent


def _locate(checkout_dir: str, package: str, missing: str) -> Path:
    """The folder, in the checkout or the installed package; ConfigError (78) saying ``missing``
    when the installation lacks it (a checkout without it, a package installed without its data)."""
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
        raise ConfigError(f"this installation of casefile lacks its {checkout_dir}/ (looked in {_ROOT} and for "
                          f"the package {package}): {missing}")
    return Path(locations[0])


def sql_dir() -> Path:
    return _locate("sql", "pipeline._sql", "reinstall casefile, or restore the folder in the checkout")


def sample_dir() -> Path:
    return _locate("data/raw/sample", "pipeline._sample",
                   "restore it (`git checkout -- data/raw/sample`) or reinstall casefile, or give --offline "
                   "a recorded run folder")


@lru_cache(maxsize=None)
def read_sql(relative: str) -> str:
    """The text of ``sql/<relative>``; the file name is chosen by code, never by user input."""
    return (sql_dir() / relative).read_text("utf-8")


def sql_files(folder: str) -> list[Path]:
    return sorted((sql_dir() / folder).glob("*.sql"))
