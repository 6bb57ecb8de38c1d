"""The project's own files are found in a checkout and in an installed package alike."""

import sys

from pipeline import resources


def test_sql_and_sample_are_found_in_the_checkout():
    assert (resources.sql_dir() / "schema" / "001_tables.sql").is_file()
    assert (resources.sample_dir() / "_SUCCESS").is_file()


def test_an_installed_namespace_folder_is_found_by_its_package_name(tmp_path, monkeypatch):
    # how an installed casefile holds sql/: a folder without __init__.py inside the package
    folder = tmp_path / "casefile_probe_sql"
    (folder / "schema").mkdir(parents=True)
    (folder / "schema" / "x.sql").write_text("SELECT 1;")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("casefile_probe_sql", None)
    found = resources._locate("no-such-checkout-folder", "casefile_probe_sql", "reinstall")
    assert found == folder and (found / "schema" / "x.sql").is_file()


def test_a_checkout_without_its_sample_is_a_configuration_error_not_a_bug(tmp_path, monkeypatch, capsys):
    """A clone whose data/raw/sample/ was deleted: `sync --offline` ended in a traceback (exit 1)."""
    from pipeline.cli import main

    monkeypatch.setattr(resources, "_ROOT", tmp_path / "checkout")
    assert main(["--data-dir", str(tmp_path / "data"), "sync", "--offline"]) == 78
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: this installation of casefile lacks its data/raw/sample/")
    assert "git checkout -- data/raw/sample" in err and "Traceback" not in err


def test_every_sql_folder_is_shipped_in_the_package():
    """setuptools ships only the folders pyproject.toml lists: a new folder under sql/ must be there."""
    import tomllib

    config = tomllib.loads((resources._ROOT / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    sql = resources.sql_dir()
    folders = {"pipeline._sql" + "".join(f".{part}" for part in path.relative_to(sql).parts)
               for path in [sql, *sql.rglob("*")] if path.is_dir() and any(path.glob("*.sql"))}
    assert folders <= listed, sorted(folders - listed)
