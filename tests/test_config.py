"""Settings from the environment: what is refused, with exit 78, before anything runs."""

from __future__ import annotations

import pytest

from pipeline import config
from pipeline.cli import main
from pipeline.config import from_env
from pipeline.errors import ConfigError
from pipeline.rawstore import RawStore

from support.fake_scryfall import FakeScryfall
from support.sample_data import sample_api_data
from support.warehouse_state import loaded_runs

CARDS, RULINGS, SETS = sample_api_data()


@pytest.mark.parametrize("name,value,message", [
    ("CASEFILE_READ_TIMEOUT", "nan", "must be a finite number"),
    ("CASEFILE_BACKOFF_MAX", "inf", "must be a finite number"),
    ("CASEFILE_READER_WAIT", "-1", "CASEFILE_READER_WAIT may not be negative"),
    ("CASEFILE_CONNECT_TIMEOUT", "-0.5", "CASEFILE_CONNECT_TIMEOUT may not be negative"),
    ("CASEFILE_MEMORY_LIMIT_MB", "1", "CASEFILE_MEMORY_LIMIT_MB must be 0"),
    ("CASEFILE_MEMORY_LIMIT_MB", "-5", "CASEFILE_MEMORY_LIMIT_MB must be 0"),
    ("CASEFILE_MAX_BULK_BYTES", "10", "CASEFILE_MAX_BULK_BYTES must be at least 1024, got 10"),
    ("CASEFILE_CONTACT", "ops@example.org\r\nX-Injected: 1", r"the contact \(CASEFILE_CONTACT\) may not hold control characters"),
    ("CASEFILE_MAX_ATTEMPTS", "five", "must be a number"),
    ("CASEFILE_CONTACT", "Zoë — ops@example.org", "CASEFILE_CONTACT"),
    ("CASEFILE_CONTACT", "山田 <ops@example.org>", "CASEFILE_CONTACT"),
    ("CASEFILE_READ_TIMEOUT", "0", "CASEFILE_READ_TIMEOUT must be more than 0"),
    ("CASEFILE_CONNECT_TIMEOUT", "0", "CASEFILE_CONNECT_TIMEOUT must be more than 0"),
    ("CASEFILE_API_URL", "https://api.scryfall.com ", r"the API URL \(CASEFILE_API_URL or --api-url\) is not a URL"),
    ("CASEFILE_API_URL", " https://api.scryfall.com", r"the API URL \(CASEFILE_API_URL or --api-url\) is not a URL"),
    ("CASEFILE_WIKI_URL", "http://bad host", "CASEFILE_WIKI_URL is not a URL"),
    ("CASEFILE_LISTEBLANCHE_URL", "http://a..b", "CASEFILE_LISTEBLANCHE_URL is not a URL"),
    ("CASEFILE_SCRYFALL_WEB_URL", "https://-scryfall.com", "CASEFILE_SCRYFALL_WEB_URL is not a URL"),
    ("CASEFILE_API_URL", "https://api-.scryfall.com", r"the API URL \(CASEFILE_API_URL or --api-url\) is not a URL"),
    ("CASEFILE_DATA_DIR", "/tmp/caf\udce9", "data folder"),
    ("CASEFILE_SCRYFALL_WEB_URL", "https://scryfall.com/\t", "CASEFILE_SCRYFALL_WEB_URL is not a URL"),
    ("CASEFILE_SCRYFALL_WEB_URL", "https://scryfäll.com", "CASEFILE_SCRYFALL_WEB_URL is not a URL"),
    ("CASEFILE_WIKI_PAGE", "https://mtg.wiki/page/Case File", r"the wiki page \(CASEFILE_WIKI_PAGE or --wiki-page\) is not a URL"),
    ("CASEFILE_MAX_ATTEMPTS", "2.7", "CASEFILE_MAX_ATTEMPTS must be a whole number"),
    ("CASEFILE_COMPACT_EVERY", "0.5", "CASEFILE_COMPACT_EVERY must be a whole number"),
    ("CASEFILE_MEMORY_LIMIT_MB", "1e15", "CASEFILE_MEMORY_LIMIT_MB may not be over"),  # DuckDB cannot read the limit
    ("CASEFILE_BACKOFF_MAX", "1e12", "CASEFILE_BACKOFF_MAX may not be over 86400 s"),  # Python cannot sleep so long
    ("CASEFILE_RETRY_AFTER_MAX", "100000", "CASEFILE_RETRY_AFTER_MAX may not be over"),
    ("CASEFILE_READER_WAIT", "1e10", "CASEFILE_READER_WAIT may not be over"),
    ("CASEFILE_MAX_CRAWL_DELAY", "-1", "CASEFILE_MAX_CRAWL_DELAY may not be negative"),
    ("CASEFILE_MAX_CRAWL_DELAY", "1e6", "CASEFILE_MAX_CRAWL_DELAY may not be over"),
    ("CASEFILE_MAX_ATTEMPTS", "0", "CASEFILE_MAX_ATTEMPTS must be at least 1, got 0"),
    ("CASEFILE_COMPACT_EVERY", "0", "CASEFILE_COMPACT_EVERY must be at least 1"),
    ("CASEFILE_RETRY_AFTER_MIN", "200", "CASEFILE_RETRY_AFTER_MIN may not be negative nor over "
                                        "CASEFILE_RETRY_AFTER_MAX [(]got 200 and 120[)]"),
    # casefile appends paths to these: a query or a fragment sent every request to the base's path
    ("CASEFILE_API_URL", "http://127.0.0.1:8080/#x", r"the API URL \(CASEFILE_API_URL or --api-url\) must be a base URL"),
    ("CASEFILE_API_URL", "https://api.scryfall.com/?v=2", r"the API URL \(CASEFILE_API_URL or --api-url\) must be a base URL"),
    ("CASEFILE_API_URL", "https://api.scryfall.com/?", r"the API URL \(CASEFILE_API_URL or --api-url\) must be a base URL"),
    ("CASEFILE_API_URL", "https://api.scryfall.com:0", r"the API URL \(CASEFILE_API_URL or --api-url\) must be a base URL"),
    ("CASEFILE_LISTEBLANCHE_URL", "https://listeblanche.fr#", "CASEFILE_LISTEBLANCHE_URL must be a base URL"),
    ("CASEFILE_WIKI_URL", "https://mtg.wiki/?lang=en", "CASEFILE_WIKI_URL must be a base URL"),
])
def test_a_bad_setting_is_refused_by_name(tmp_path, name, value, message):
    with pytest.raises(ConfigError, match=message):
        from_env({"CASEFILE_DATA_DIR": str(tmp_path), name: value})


def test_a_whole_number_written_as_a_float_is_a_count(tmp_path):
    settings = from_env({"CASEFILE_DATA_DIR": str(tmp_path), "CASEFILE_MAX_ATTEMPTS": "3.0",
                         "CASEFILE_MEMORY_LIMIT_MB": "1e3", "CASEFILE_READER_WAIT": "86400"})
    assert (settings.max_attempts, settings.memory_limit_mb, settings.reader_wait_s) == (3, 1000, 86400.0)


def test_an_empty_data_dir_option_is_a_usage_error_not_the_current_folder(tmp_path, monkeypatch, capsys):
    # an unset shell variable in a cron line: `casefile --data-dir "$DATA" sync`
    monkeypatch.chdir(tmp_path)
    assert main(["--data-dir", "", "sync", "--offline"]) == 2
    assert "give a path, not an empty string" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("blank", [" ", "\t", "  \n"])
def test_a_blank_setting_counts_as_unset_as_an_empty_one_does(tmp_path, blank):
    """A variable holding only spaces (``CASEFILE_DATA_DIR=" "`` in an env file, a CI variable
    left blank) was taken as a value: a data folder named " " made in the current folder, where
    `status` then showed "raw store:  /raw"; a contact of spaces sent to Scryfall; a URL, a number
    or the log format refused (78) where an empty one is unset."""
    home = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    default = from_env(home)
    names = ["CASEFILE_DATA_DIR", "CASEFILE_API_URL", "CASEFILE_CONTACT", *config.URL_VARS.values(),
             *config.NUMBER_VARS.values(), *config.COUNT_VARS.values()]
    assert from_env({**home, **{name: blank for name in names}}) == default


def test_spaces_around_the_log_format_and_the_contact_are_not_part_of_them(tmp_path, monkeypatch, capsys):
    """As around a number (`" 5 "` is 5): `"json "` was refused (78), `" ops@example.org "` sent so."""
    settings = from_env({"CASEFILE_DATA_DIR": str(tmp_path), "CASEFILE_CONTACT": " ops@example.org "})
    assert settings.user_agent.endswith("(+ops@example.org)")
    monkeypatch.setenv("CASEFILE_LOG_FORMAT", " JSON ")
    assert main(["--data-dir", str(tmp_path / "data"), "status", "--format", "csv"]) == 0
    monkeypatch.setenv("CASEFILE_LOG_FORMAT", "  ")
    assert main(["--data-dir", str(tmp_path / "data"), "--version"]) == 0
    assert main(["--data-dir", str(tmp_path / "data"), "status", "--format", "csv"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_a_data_dir_option_of_spaces_is_a_usage_error_not_a_folder_named_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["--data-dir", " ", "sync", "--offline"]) == 2
    assert "give a path, not an empty string" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_settings_the_readme_shows_are_accepted(tmp_path):
    settings = from_env({"CASEFILE_DATA_DIR": str(tmp_path), "CASEFILE_MEMORY_LIMIT_MB": "0",
                         "CASEFILE_CONTACT": "ops@example.org", "CASEFILE_READER_WAIT": "0"})
    assert settings.memory_limit_mb == 0 and settings.user_agent.endswith("(+ops@example.org)")


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://[::1]:9/", "https://api.scryfall.com./",
                                 "http://localhost", "https://xn--bcher-kva.example/a%20b"])
def test_well_formed_urls_and_a_latin_1_contact_are_accepted(tmp_path, url):
    settings = from_env({"CASEFILE_DATA_DIR": str(tmp_path), "CASEFILE_API_URL": url,
                         "CASEFILE_CONTACT": "Zoë Ménard <ops@example.org>",
                         "CASEFILE_WIKI_PAGE": "https://mtg.wiki/index.php?title=Case"})  # a page, not a base
    assert settings.api_url == url.rstrip("/") and settings.user_agent.encode("latin-1")
    assert settings.wiki_page == "https://mtg.wiki/index.php?title=Case"


@pytest.mark.parametrize("args,env", [
    (["sync", "--plan", "--api-url", "http://bad host"], {}),
    (["sync", "--plan"], {"CASEFILE_API_URL": "https://api.scryfall.com "}),
    (["sync", "--plan"], {"CASEFILE_READ_TIMEOUT": "0"}),
    (["doctor", "--online"], {"CASEFILE_WIKI_URL": "http://a..b"}),
    (["rules", "ingest", "https://media.wizards.com/MagicCompRules.txt"], {"CASEFILE_CONNECT_TIMEOUT": "0"}),
])
def test_a_setting_no_request_could_be_made_with_is_exit_78_before_any_request(
        data_dir, capsys, monkeypatch, args, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["--data-dir", str(data_dir), *args]) == 78
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: ") and "Traceback" not in err
    assert not (data_dir / "raw").exists()


def test_a_contact_a_request_header_cannot_carry_is_exit_78_before_any_request(data_dir, capsys, monkeypatch):
    monkeypatch.setenv("CASEFILE_CONTACT", "Zoë — ops@example.org")
    with FakeScryfall(CARDS, RULINGS, SETS) as server:
        assert main(["--data-dir", str(data_dir), "sync", "--api-url", server.url, "--sources", "api"]) == 78
        assert server.requests == []
    err = capsys.readouterr().err
    assert "CASEFILE_CONTACT" in err and "User-Agent" in err and "Traceback" not in err


@pytest.mark.parametrize("url", ["http://bad host/MagicCompRules.txt", "http://a..b/MagicCompRules.txt",
                                 "http://[bad/MagicCompRules.txt",
                                 # before, these two ended in a traceback (exit 1) and left a failed run
                                 "http://127.0.0.1:abc/MagicCompRules.txt", "http://127.0.0.1:99999/MagicCompRules.txt"])
def test_rules_from_a_url_without_a_valid_host_are_a_usage_error(data_dir, capsys, url):
    assert main(["--data-dir", str(data_dir), "rules", "ingest", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: ") and "Traceback" not in err
    assert RawStore(data_dir / "raw").runs() == []


def test_rules_from_a_url_with_credentials_are_refused_before_a_run_records_them(data_dir, capsys):
    """Before, the run was made first, its run.json holding the password, then the request refused."""
    assert main(["--data-dir", str(data_dir), "rules", "ingest", "http://user:s3cret@127.0.0.1:1/cr.txt"]) == 2
    err = capsys.readouterr().err
    assert "casefile sends no credentials" in err and "s3cret" not in err
    assert RawStore(data_dir / "raw").runs() == []


def test_running_out_of_memory_is_exit_78_and_the_fetched_run_is_loaded_by_the_next_sync(
        data_dir, capsys, monkeypatch):
    monkeypatch.setattr(config, "MIN_MEMORY_LIMIT_MB", 0)  # a limit no load fits in
    monkeypatch.setenv("CASEFILE_MEMORY_LIMIT_MB", "1")
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 78
    err = capsys.readouterr().err
    assert "ran out of memory" in err and "CASEFILE_MEMORY_LIMIT_MB" in err and "Traceback" not in err
    [run] = RawStore(data_dir / "raw").complete_runs()

    monkeypatch.delenv("CASEFILE_MEMORY_LIMIT_MB")
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert run.run_id in {row[0] for row in loaded_runs(data_dir)}


def test_the_crawl_delay_cap_is_a_setting(tmp_path):
    assert from_env({"CASEFILE_DATA_DIR": str(tmp_path)}).max_crawl_delay_s == config.MAX_CRAWL_DELAY_S == 60
    assert from_env({"CASEFILE_DATA_DIR": str(tmp_path), "CASEFILE_MAX_CRAWL_DELAY": "300"}).max_crawl_delay_s == 300


def _no_checkout(monkeypatch, tmp_path):
    """As an installed casefile: no source checkout's data/ to default to."""
    monkeypatch.setattr(config, "_package_root", lambda: tmp_path / "site-packages")
    for name in ("CASEFILE_DATA_DIR", "XDG_DATA_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_home_folder_the_default_data_folder_is_exit_78_naming_the_setting(
        tmp_path, monkeypatch, capsys):
    """A container run under a uid the system does not know, with no HOME: Path.home() raised
    RuntimeError, a traceback and exit 1, for a setting to give."""
    import pwd

    _no_checkout(monkeypatch, tmp_path)

    def unknown_uid(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", unknown_uid)
    assert main(["status"]) == 78
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: no data folder") and "CASEFILE_DATA_DIR" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    # "~/data" has no home to stand for either
    assert main(["--data-dir", "~/data", "status"]) == 78
    err = capsys.readouterr().err
    assert "write the path in full" in err and "Traceback" not in err
    # nor has a "~" in a command's own path (quoted, so the shell left it): a usage error, no traceback
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    for args in (["rules", "ingest", "~/cr.txt"], ["export", "rulings", "--out", "~/out"],
                 ["report", "colors", "--out", "~/colors.txt"]):
        code = main(["--data-dir", str(data), *args])
        err = capsys.readouterr().err
        assert code == 2 and "write the path in full" in err and "Traceback" not in err, (args, code, err)


def test_a_tilde_of_a_user_the_system_does_not_know_names_the_user_not_home(tmp_path, monkeypatch, capsys):
    """``~nouser/q.sql`` (quoted, so the shell left it) stands for no folder because the system
    knows no user nouser: the message said HOME was not set, which it is, and setting it does not help."""
    import pwd

    real = pwd.getpwnam

    def no_such_user(name):
        if name == "nouser":
            raise KeyError(f"getpwnam(): name not found: {name!r}")
        return real(name)

    monkeypatch.setattr(pwd, "getpwnam", no_such_user)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    capsys.readouterr()
    for args in (["sql", "--file", "~nouser/q.sql"], ["rules", "ingest", "~nouser/cr.txt"],
                 ["export", "rulings", "--out", "~nouser/out"], ["report", "colors", "--out", "~nouser/colors.txt"]):
        code = main(["--data-dir", str(data), *args])
        err = capsys.readouterr().err
        assert code == 2, (args, code, err)
        assert "'~nouser/" in err and "~nouser names a user the system does not know ('nouser')" in err, (args, err)
        assert "HOME" not in err and "Traceback" not in err and len(err.splitlines()) == 1, (args, err)
    assert main(["--data-dir", "~nouser/data", "status"]) == 78
    err = capsys.readouterr().err
    assert "cannot use the data folder '~nouser/data'" in err and "user the system does not know" in err
    assert "HOME" not in err


def test_a_relative_xdg_data_home_is_ignored_as_the_xdg_specification_asks(tmp_path, monkeypatch):
    """Relative to the current folder, a cron job's data would move with the folder it started in."""
    _no_checkout(monkeypatch, tmp_path)
    home = tmp_path / "home"
    assert from_env({"XDG_DATA_HOME": "share", "HOME": str(home)}).data_dir == home / ".local/share/casefile"
    assert from_env({"XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": str(home)}).data_dir == tmp_path / "xdg/casefile"
