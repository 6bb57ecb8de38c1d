"""The CLI surface: help everywhere, exit codes, output formats, read-only SQL."""

import errno
import itertools
import json
import os
import re
import shutil
from pathlib import Path

import click
import duckdb
import pytest

from pipeline.cli import main, main_group
from pipeline.rawstore import RawStore

from conftest import ROOT
from support.warehouse_state import run_dirs, run_status


def commands():
    return sorted(main_group.commands.items())


@pytest.mark.parametrize("name,command", commands())
def test_every_command_and_option_has_help(name, command):
    assert command.help and len(command.help.strip()) > 20, name
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{name} {param.opts}"


def test_group_options_have_help():
    for param in main_group.params:
        if isinstance(param, click.Option) and param.name != "version":
            assert param.help, param.opts


@pytest.mark.parametrize("name", sorted(main_group.commands))
def test_help_runs(name, capsys):
    assert main([name, "--help"]) == 0
    assert "Usage: casefile " + name in capsys.readouterr().out


@pytest.mark.parametrize("name", ["search", "card"])
def test_the_help_examples_of_the_lookups_find_something_on_the_sample(sample_warehouse, capsys, name):
    """`search --help` showed `casefile search "resolue" --format json`, which prints [] on the
    sample (it holds no translation): each example shows what it does on the sample."""
    import shlex

    examples = [line.strip() for line in main_group.commands[name].help.splitlines()
                if line.strip().startswith(f"casefile {name} ")]
    assert examples
    for example in examples:
        assert main(["--data-dir", str(sample_warehouse), *shlex.split(example, comments=True)[1:]]) == 0, example
        out = capsys.readouterr().out
        assert out.strip() != "[]" and "(0 rows)" not in out, example


def test_unknown_option_is_a_usage_error(capsys):
    assert main(["sync", "--no-such-option"]) == 2
    assert "No such option" in capsys.readouterr().err


@pytest.mark.parametrize("args,hint", [
    (["status", "--data-dir", "/x"], "No such option '--data-dir'. --data-dir goes before the command: "
                                     "casefile --data-dir DIR status"),
    (["status", "--data-dir=/x"], "--data-dir goes before the command: casefile --data-dir DIR status"),
    (["sync", "-q", "--offline"], "No such option '-q'. -q goes before the command: casefile -q sync"),
    (["sync", "--offline", "--quiet"], "--quiet goes before the command: casefile --quiet sync"),
    (["report", "colors", "-vv"], "-v goes before the command: casefile -v report"),
    (["changes", "--verbose"], "--verbose goes before the command: casefile --verbose changes"),
    (["rules", "ingest", "cr.txt", "--log-format", "json"],
     "--log-format goes before the command: casefile --log-format FORMAT rules ingest"),
    (["rules", "--quiet", "ingest", "cr.txt"], "--quiet goes before the command: casefile --quiet rules COMMAND"),
    (["sql", "SELECT 1", "-q"], "Got unexpected extra argument (-q). -q goes before the command: casefile -q sql"),
])
def test_a_global_option_after_the_command_says_where_it_goes(data_dir, capsys, args, hint):
    """click said only "No such option '--data-dir'" for `casefile status --data-dir /x`."""
    assert main(["--data-dir", str(data_dir), *args]) == 2
    assert hint in capsys.readouterr().err
    assert not (data_dir / "raw").exists()


@pytest.mark.parametrize("args", [["status", "--nope"], ["sync", "-x"], ["sql", "SELECT 1", "extra"]])
def test_another_unknown_option_gets_no_hint(data_dir, capsys, args):
    assert main(["--data-dir", str(data_dir), *args]) == 2
    assert "goes before the command" not in capsys.readouterr().err


def test_the_hint_knows_every_option_of_the_group():
    """GLOBAL_OPTIONS is kept by hand: it must name each option of the group but --version."""
    from pipeline.cli import GLOBAL_OPTIONS

    names = {name for p in main_group.params if isinstance(p, click.Option) and p.name != "version"
             for name in p.opts + p.secondary_opts}
    assert set(GLOBAL_OPTIONS) == names


def test_unknown_source_is_a_usage_error(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "sync", "--offline", "--sources", "api,ftp"]) == 2
    assert "ftp" in capsys.readouterr().err


@pytest.mark.parametrize("sources", ["", ",", " , "])
def test_an_empty_list_of_sources_is_a_usage_error(data_dir, capsys, sources):
    """`--sources "$SOURCES"` with the variable unset ran with the default sources."""
    assert main(["--data-dir", str(data_dir), "sync", "--offline", "--sources", sources]) == 2
    assert "--sources" in capsys.readouterr().err
    assert not (data_dir / "raw").exists()


@pytest.mark.parametrize("args", [["--offline"], ["--plan"], ["--bulk", "always"]])
def test_an_empty_query_is_a_usage_error(data_dir, capsys, args):
    """`--query "$QUERY"` with the variable unset synced the default query (type:"Case"), live
    or from the bundled sample, as if no --query had been given."""
    assert main(["--data-dir", str(data_dir), "sync", "--query", " ", *args]) == 2
    assert "--query" in capsys.readouterr().err
    assert not (data_dir / "raw").exists()


@pytest.mark.parametrize("args", [["--offline", ""], ["--offline="], ["--offline", "", "--sources", "api"]])
def test_an_empty_offline_run_is_a_usage_error(data_dir, capsys, args):
    """`--offline "$RUN"` with the variable unset replayed the bundled sample, as `--offline`
    alone does."""
    assert main(["--data-dir", str(data_dir), "sync", *args]) == 2
    assert "Invalid value for '--offline': give a run folder, not an empty string" in capsys.readouterr().err
    assert not (data_dir / "raw").exists()


def test_offline_alone_replays_the_sample_before_another_option(data_dir, capsys):
    """The empty run folder refused, `--offline` alone still means the bundled sample, also when
    an option follows it."""
    assert main(["--data-dir", str(data_dir), "sync", "--offline", "--sources", "api"]) == 0
    assert "(offline)" in capsys.readouterr().out


LONG = "x" * 30_000


@pytest.mark.parametrize("args,said", [
    (["rule", LONG], "'xxx…' is not a rule number"),
    (["rule", "719", "--edition", LONG], "'xxx…' is not an edition's effective date"),
    (["rules", "diff", LONG, "2024-09-20"], "'xxx…' is not an edition's effective date"),
    (["changes", "--since", LONG], "or a date (YYYY-MM-DD), not 'xxx…'"),
    (["report", "colors", "--query", LONG], "--query xxx…: the warehouse holds no cards of that query"),
    (["sync", "--offline", "--sources", LONG], "unknown source(s) xxx…; choose from"),
    (["sql", "SELECT 1", "--param", LONG], "'xxx…' is not NAME=VALUE"),
    (["sql", "SELECT 1", "--param", "$" + LONG + "=1"], "write the NAME without its $ (xxx…)"),
])
def test_a_long_argument_is_cut_in_the_error_that_repeats_it(sample_warehouse, capsys, args, said):
    """A pasted 30,000-character argument was repeated whole (about 60 KB of stderr) by these
    errors; `card` cut it at 80 characters with "…", and so do they, with the same helper."""
    assert main(["--data-dir", str(sample_warehouse), *args]) == 2
    err = capsys.readouterr().err
    assert said.replace("xxx…", "x" * 80 + "…") in err and len(err) < 500, err[:300]


def test_sql_without_a_warehouse_says_what_to_do(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "sql", "SELECT 1"]) == 78
    assert "casefile sync" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["sql", "SELECT 1"], ["card", "Case"], ["search", "solved"], ["changes"],
                                     ["rule", "719"], ["rules", "diff", "2024-09-20", "2024-11-08"],
                                     ["report", "sets"], ["export", "rulings", "--out", "exported"]])
def test_a_warehouse_file_without_tables_is_no_warehouse_yet(data_dir, capsys, command):
    """A DuckDB file with no tables where the warehouse belongs (constructed: `duckdb FILE` opened
    before the first sync makes one) is not a warehouse yet: exit 78 and what to do, as with no
    file, not a usage error about a missing table."""
    (data_dir / "warehouse").mkdir()
    duckdb.connect(str(data_dir / "warehouse" / "casefile.duckdb")).close()
    command = [str(data_dir / part) if part == "exported" else part for part in command]
    assert main(["--data-dir", str(data_dir), *command]) == 78
    err = capsys.readouterr().err
    assert "no warehouse" in err and "casefile sync" in err and "Catalog Error" not in err


def test_status_doctor_and_prune_take_a_warehouse_file_without_tables_for_none(data_dir, capsys):
    """The constructed file of the test above: status says "not built yet", doctor warns as it
    does with no file, prune plans without it; none of them stops on the missing tables."""
    (data_dir / "warehouse").mkdir()
    duckdb.connect(str(data_dir / "warehouse" / "casefile.duckdb")).close()
    assert main(["--data-dir", str(data_dir), "status"]) == 0
    assert "(not built yet)" in capsys.readouterr().out
    assert main(["--data-dir", str(data_dir), "doctor"]) == 0
    assert "no warehouse at" in capsys.readouterr().out
    assert main(["--data-dir", str(data_dir), "prune", "--dry-run"]) == 0
    assert "deleted" not in capsys.readouterr().err


@pytest.fixture
def synced(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    capsys.readouterr()
    return data_dir


def test_sql_formats(synced, capsys):
    q = "SELECT set_code, name FROM card_set WHERE set_code IN ('MKC', 'MKM') ORDER BY set_code"
    assert main(["--data-dir", str(synced), "sql", q, "--format", "csv"]) == 0
    assert capsys.readouterr().out == "set_code,name\nMKC,Murders at Karlov Manor Commander\nMKM,Murders at Karlov Manor\n"
    assert main(["--data-dir", str(synced), "sql", q, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"set_code": "MKC", "name": "Murders at Karlov Manor Commander"},
        {"set_code": "MKM", "name": "Murders at Karlov Manor"}]
    assert main(["--data-dir", str(synced), "sql", q, "--format", "markdown"]) == 0
    assert capsys.readouterr().out == ("| set_code | name |\n| --- | --- |\n"
                                       "| MKC | Murders at Karlov Manor Commander |\n| MKM | Murders at Karlov Manor |\n")
    assert main(["--data-dir", str(synced), "sql", q]) == 0
    assert capsys.readouterr().out == ("set_code  name\n--------  ---------------------------------\n"
                                       "MKC       Murders at Karlov Manor Commander\n"
                                       "MKM       Murders at Karlov Manor\n(2 rows)\n")


def test_sql_csv_tells_null_from_an_empty_string(sample_warehouse, tmp_path, capsys):
    """In CSV a NULL is an empty field and '' a quoted empty field, as DuckDB's COPY ... (FORMAT csv)
    writes them; they were both an empty field. A row of a single NULL stays ``""``: an empty line
    is skipped by pandas' and R's readers, which would lose the row."""
    q = "SELECT NULL AS a, '' AS b"
    assert main(["--data-dir", str(sample_warehouse), "sql", q, "--format", "csv"]) == 0
    assert capsys.readouterr().out == 'a,b\n,""\n'
    q = ("SELECT a, b, c FROM (VALUES (1, NULL, '', 'x'), (2, '', NULL, NULL), (3, 'a,b', 'say \"hi\"', NULL),"
         " (4, NULL, NULL, 'line\nbreak'), (5, '', '', '')) AS t(i, a, b, c) ORDER BY i")
    assert main(["--data-dir", str(sample_warehouse), "sql", q, "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out == 'a,b,c\n,"",x\n"",,\n"a,b","say ""hi""",\n,,"line\nbreak"\n"","",""\n'
    one = "SELECT a FROM (VALUES (1, NULL), (2, ''), (3, 'x')) AS t(i, a) ORDER BY i"
    assert main(["--data-dir", str(sample_warehouse), "sql", one, "--format", "csv"]) == 0
    assert capsys.readouterr().out == 'a\n""\n""\nx\n'
    path = tmp_path / "copy.csv"  # byte for byte what DuckDB writes
    duckdb.connect().execute(f"COPY ({q}) TO '{path}' (FORMAT csv, HEADER true)")
    assert path.read_bytes().decode() == out


def test_sql_table_lines_up_the_printed_names_of_every_language(synced, capsys):
    """Printed names in Japanese and Chinese (the sample's own printings) take two columns of a
    terminal per character: the next column starts at the same place on every line."""
    q = ("SELECT printed_name, lang FROM printing JOIN card USING (oracle_id) "
         "WHERE card.name = 'Case of the Crimson Pulse' AND printed_name IS NOT NULL ORDER BY lang")
    assert main(["--data-dir", str(synced), "sql", q]) == 0
    lines = capsys.readouterr().out.splitlines()[:-1]
    assert {"ja", "zhs"} <= {line.split()[-1] for line in lines[2:]}
    starts = {_columns_before(line, line.rindex(line.split()[-1])) for line in lines}
    assert starts == {len("Affaire de la pulsation pourpre  ")}


def _columns_before(line: str, index: int) -> int:
    """The terminal columns ``line[:index]`` takes: two for a wide (CJK) character, one for others."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in line[:index])


def test_sql_prints_intervals_and_uuids_as_json(synced, capsys):
    statement = "SELECT run_id, finished_at - started_at AS took, uuid() AS u FROM sync_run"
    assert main(["--data-dir", str(synced), "sql", statement, "--format", "json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert re.fullmatch(r"PT(\d+M)?[\d.]+S", row["took"]) and re.fullmatch(r"[0-9a-f-]{36}", row["u"])


def test_sql_keeps_columns_of_the_same_name(synced, capsys):
    statement = ("SELECT c.name, s.name FROM card c JOIN printing p USING (oracle_id) JOIN card_set s USING (set_code) "
                 "WHERE p.set_code = 'MKC' LIMIT 1")
    assert main(["--data-dir", str(synced), "sql", statement, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"name": "Case of the Shifting Visage", "name_2": "Murders at Karlov Manor Commander"}]


@pytest.mark.parametrize("statement", [
    "DROP TABLE card",
    "DELETE FROM ruling",
    "CREATE TABLE x AS SELECT 1",
    "ATTACH '/tmp/casefile-other.duckdb' AS other",
    "COPY card TO '/tmp/casefile-leak.csv'",
    "SET enable_external_access = true",
])
def test_sql_cannot_write_or_reach_outside(synced, capsys, statement):
    assert main(["--data-dir", str(synced), "sql", statement]) == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: the query failed:") and "Traceback" not in err
    assert main(["--data-dir", str(synced), "sql", "SELECT count(*) FROM card", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "count_star()\n15\n"


def test_bad_sql_is_a_usage_error(synced, capsys):
    assert main(["--data-dir", str(synced), "sql", "SELEC nonsense"]) == 2
    assert "syntax error" in capsys.readouterr().err.lower()


def test_status_reports_runs_and_rows(synced, capsys):
    assert main(["--data-dir", str(synced), "status", "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["runs"]["complete"] == 1 and info["warehouse"]["tables"]["card"] == 15
    assert info["recent_runs"][0]["loaded"] is True
    [run] = (synced / "raw").iterdir()
    assert info["runs"]["bytes"] == sum(p.stat().st_size for p in run.rglob("*") if p.is_file()) > 0


def test_status_counts_a_body_linked_into_two_runs_once(synced, capsys):
    [run] = (synced / "raw").iterdir()
    assert main(["--data-dir", str(synced), "status", "--format", "json"]) == 0
    one_run = json.loads(capsys.readouterr().out)["runs"]["bytes"]
    twin = synced / "raw" / "20000101T000000.000000Z"  # the same run again, every file hard-linked
    shutil.copytree(run, twin, copy_function=os.link)
    meta = json.loads((twin / "run.json").read_text("utf-8"))  # but its own run.json, naming it
    (twin / "run.json").unlink()
    (twin / "run.json").write_text(json.dumps({**meta, "run_id": twin.name}), "utf-8")
    assert main(["--data-dir", str(synced), "status", "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["runs"]["complete"] == 2
    assert info["runs"]["bytes"] == one_run + (twin / "run.json").stat().st_size
    assert main(["--data-dir", str(synced), "status"]) == 0
    assert "2 complete, 0 failed, 0 incomplete; " in capsys.readouterr().out


def test_json_log_format_prints_one_object_per_line(data_dir, cli):
    result = cli("--log-format", "json", "-v", "sync", "--offline")
    assert result.returncode == 0, result.stderr
    lines = [l for l in (result.stdout + result.stderr).splitlines() if l.strip()]
    parsed = [json.loads(l) for l in lines]
    summary = [p for p in parsed if p.get("event") == "summary"]
    assert len(summary) == 1 and summary[0]["rows"]["card"] == 15 and summary[0]["outcome"] == "ok"


def test_the_log_format_of_the_environment_is_read_in_any_case(data_dir, cli):
    """CASEFILE_LOG_FORMAT=JSON, as a crontab may spell it, is json (it was exit 2)."""
    result = cli("status", CASEFILE_LOG_FORMAT="JSON")
    assert result.returncode == 0, result.stderr
    assert "paths" in json.loads(result.stdout)


def test_errors_in_json_mode_are_json(data_dir, cli):
    result = cli("--log-format", "json", "sql", "SELECT 1")
    assert result.returncode == 78
    assert json.loads(result.stderr.strip().splitlines()[-1])["exit_code"] == 78


@pytest.mark.parametrize("statement, fmt", [("SELECT to_days(2000000000) AS s", "table"),
                                            ("SELECT INTERVAL 3000000 YEAR AS s", "csv"),
                                            ("SELECT [INTERVAL 100000000 YEAR] AS s", "json"),
                                            ("SELECT i, CASE WHEN i = 20000 THEN to_days(2000000000) END AS s "
                                             "FROM range(30000) AS t(i)", "csv")])
def test_a_value_python_cannot_hold_is_a_failed_query_not_a_bug(synced, capsys, statement, fmt):
    # DuckDB raises OverflowError handing Python an interval of over 999,999,999 days: exit 1, a traceback
    assert main(["--data-dir", str(synced), "sql", statement, "--format", fmt]) == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: the query failed: a value does not fit Python's types (")
    assert "CAST(… AS VARCHAR)" in err and "Traceback" not in err


def test_a_statement_may_open_with_a_comment(synced, capsys):
    # click took "-- …" for an option it does not know: "No such option", exit 2
    statement = "-- the first two cards, a = b\nSELECT name FROM card WHERE $n = '2' ORDER BY name LIMIT 2"
    assert main(["--data-dir", str(synced), "sql", statement, "--param", "n=2", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "name\nCase of the Burning Masks\nCase of the Crimson Pulse\n"
    assert main(["--data-dir", str(synced), "sql", "SELECT 1", "--formt", "json"]) == 2  # still a usage error
    assert "unexpected extra argument" in capsys.readouterr().err


@pytest.mark.parametrize("statement", ["", "   ", ";"])
def test_an_empty_sql_statement_is_a_usage_error(synced, capsys, statement):
    assert main(["--data-dir", str(synced), "sql", statement]) == 2
    assert capsys.readouterr().err == "casefile: error: give a SQL statement\n"


@pytest.mark.parametrize("args", [["report", "sets", "--out"], ["export", "rulings", "--out"]])
def test_an_out_path_that_cannot_be_written_is_a_usage_error(synced, capsys, tmp_path, args):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(["--data-dir", str(synced), *args, str(blocker / "inside" / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: --out ") and "Traceback" not in err
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("command", [["sync", "--offline"], ["rebuild"], ["prune"], ["status"], ["doctor"]])
def test_a_data_folder_that_cannot_be_made_is_a_configuration_error(tmp_path, capsys, command):
    """A data folder whose path runs through a file (made here): status and doctor gave a
    traceback (NotADirectoryError on the lock file)."""
    (tmp_path / "a-file").write_text("not a folder")
    assert main(["--data-dir", str(tmp_path / "a-file" / "data"), *command]) == 78
    err = capsys.readouterr().err
    assert err == (f"casefile: error: cannot use the data folder {tmp_path / 'a-file' / 'data'}: "
                   f"{tmp_path / 'a-file'} is not a folder\n")


@pytest.mark.parametrize("command", [["sync", "--offline"], ["rebuild"], ["prune"], ["status"], ["doctor"]])
def test_a_data_folder_inside_a_folder_the_user_may_not_enter_is_a_configuration_error(
        tmp_path, capsys, monkeypatch, command):
    """A data folder in another user's home (mode 700), as a cron job of a service user meets it:
    every command gave a traceback (PermissionError from checking whether the folder exists)."""
    closed = tmp_path / "home-700"
    closed.mkdir()
    data = closed / "casefile" / "data"
    real_stat = os.stat

    def stat(path, *args, **kwargs):  # as `chmod 700` of another user would (even for root)
        if Path(path).is_relative_to(closed) and Path(path) != closed:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    assert main(["--data-dir", str(data), *command]) == 78
    assert capsys.readouterr().err == f"casefile: error: cannot use the data folder {data}: Permission denied ({data})\n"


def _not_writable(monkeypatch, folder: Path) -> None:
    """os.access says ``folder`` may not be written, as `chmod 555` would (even for root)."""
    real_access = os.access

    def access(path, mode, *args, **kwargs):
        return False if Path(path) == folder and mode & os.W_OK else real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)


def test_doctor_fails_a_data_folder_that_does_not_exist_and_cannot_be_made(tmp_path, capsys, monkeypatch):
    """The folder a data folder would be made in is not writable (another user's, read-only):
    a sync exits 78, and doctor said "ok config" with exit 0."""
    parent = tmp_path / "read-only"
    parent.mkdir()
    data = parent / "data"
    _not_writable(monkeypatch, parent)
    assert main(["--data-dir", str(data), "doctor", "--format", "json"]) == 78
    failing = [f for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert [(f["area"], f["finding"]) for f in failing] == [
        ("config", f"the data folder {data} does not exist, and cannot be made: {parent} is not writable")]
    assert not data.exists()


@pytest.mark.parametrize("fmt", ["json", "table"])
@pytest.mark.parametrize("setting", ["CASEFILE_MAX_ATTEMPTS", "data folder", "CASEFILE_LOG_FORMAT"])
def test_doctor_reports_a_setting_that_cannot_be_used_as_a_failing_finding_in_its_format(
        tmp_path, capsys, monkeypatch, setting, fmt):
    """A monitor reading `doctor --format json` got nothing on stdout (only stderr's error, exit
    78) for a setting that cannot be used: now a list of one failing finding of area config, and
    the same error on stderr and exit code."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    data, message = tmp_path / "data", {
        "CASEFILE_MAX_ATTEMPTS": "CASEFILE_MAX_ATTEMPTS must be a number, got 'abc'",
        "data folder": f"cannot use the data folder {a_file}: it is not a folder",
        "CASEFILE_LOG_FORMAT": "CASEFILE_LOG_FORMAT must be text or json, got 'xml'"}[setting]
    if setting == "data folder":
        data = a_file
    else:
        monkeypatch.setenv(setting, {"CASEFILE_MAX_ATTEMPTS": "abc", "CASEFILE_LOG_FORMAT": "xml"}[setting])
    assert main(["--data-dir", str(data), "doctor", "--format", fmt]) == 78
    out, err = capsys.readouterr()
    assert err == f"casefile: error: {message}\n"
    if fmt == "json":
        assert json.loads(out) == [{"level": "fail", "area": "config", "finding": message}]
    else:
        assert out.startswith("level ") and f"fail config {message} (1 row)" in " ".join(out.split()), out
    assert not (tmp_path / "data").exists()


def test_doctor_warns_of_a_data_folder_that_does_not_exist_yet(tmp_path, capsys):
    """A mistyped --data-dir: doctor said "ok config data folder …" with exit 0, while every read
    finds no warehouse there; a warning now (exit 0 still: a first sync makes the folder)."""
    data = tmp_path / "nonexistent" / "typo"
    assert main(["--data-dir", str(data), "doctor", "--format", "json"]) == 0
    findings = json.loads(capsys.readouterr().out)
    assert [(f["level"], f["finding"]) for f in findings if f["area"] == "config"][0] == (
        "warn", f"the data folder {data} does not exist yet; the first sync makes it")
    assert not [f for f in findings if f["level"] == "fail"]
    assert not (tmp_path / "nonexistent").exists()


def test_doctor_fails_a_damaged_block_of_a_table_no_check_reads(synced, capsys):
    """Bytes overwritten in the middle of the warehouse file, in a block of ruling_card_names,
    which no check reads: every sync exits 78 on it, and doctor said "6 checks pass" with exit 0."""
    path = synced / "warehouse" / "casefile.duckdb"
    con = duckdb.connect(str(path), read_only=True)
    try:
        block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
        block, offset = con.execute("SELECT block_id, block_offset FROM pragma_storage_info('ruling_card_names') "
                                    "WHERE block_id >= 0 ORDER BY block_id, block_offset LIMIT 1").fetchone()
    finally:
        con.close()
    assert not any("ruling_card_names" in check.read_text() for check in (ROOT / "sql" / "checks").rglob("*.sql"))
    with open(path, "r+b") as fh:  # after the file's three 4 KiB headers; 8 bytes of each block are its checksum
        fh.seek(3 * 4096 + block * block_size + 8 + offset)
        fh.write(b"\xff" * 64)
    assert main(["--data-dir", str(synced), "doctor", "--format", "json"]) == 78
    failing = [f for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert [f["area"] for f in failing] == ["warehouse"]
    assert failing[0]["finding"].startswith("the warehouse file is damaged: `casefile rebuild` makes it again from "
                                            "data/raw/ (Corrupt database file: computed checksum")


def test_doctor_warns_of_a_cool_down_file_that_cannot_be_read(synced, capsys):
    (synced / "cooldown.json").write_text('{"until_epoch": 1')  # cut short
    assert main(["--data-dir", str(synced), "doctor", "--format", "json"]) == 0
    captured = capsys.readouterr()
    [finding] = [f for f in json.loads(captured.out) if f["area"] == "cool-down"]
    assert finding["level"] == "warn" and finding["finding"].startswith(
        f"the cool-down file {synced / 'cooldown.json'} cannot be read (not a cool-down: JSONDecodeError")
    assert "cooldown" not in captured.err  # said once, as a finding


def test_doctor_fails_a_warehouse_no_writer_may_write(synced, capsys, monkeypatch):
    """The warehouse folder made read-only (a read-only mount, `chmod 555`): every sync exits 78,
    and doctor said the next sync loads the runs, with exit 0."""
    folder = synced / "warehouse"
    _not_writable(monkeypatch, folder)
    assert main(["--data-dir", str(synced), "doctor", "--format", "json"]) == 78
    failing = [f for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert [(f["area"], f["finding"]) for f in failing] == [
        ("warehouse", f"{folder} may not be written by this user (permissions): no sync, rebuild or rules ingest "
                      "can load a run (make it writable again)")]


def test_doctor_fails_a_raw_store_no_sync_may_write(synced, capsys, monkeypatch):
    """data/raw made read-only (`chmod 555`, as os.access and os.mkdir say here, even for root):
    every sync exits 78 "cannot write to the raw store", and doctor said "ok raw" with exit 0."""
    raw = synced / "raw"
    _not_writable(monkeypatch, raw)
    real_mkdir = os.mkdir

    def mkdir(path, *args, **kwargs):
        if Path(path).parent == raw:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    assert main(["--data-dir", str(synced), "sync", "--offline"]) == 78
    assert "cannot write to the raw store: Permission denied" in capsys.readouterr().err
    assert main(["--data-dir", str(synced), "doctor", "--format", "json"]) == 78
    findings = json.loads(capsys.readouterr().out)
    assert [(f["area"], f["finding"]) for f in findings if f["level"] == "fail"] == [
        ("raw", f"{raw} may not be written by this user (permissions): no sync run by this user can keep a run "
                "there (make it writable again, for the syncs' user)")]
    assert not [f for f in findings if f["area"] == "raw" and f["level"] == "ok"]


def test_doctor_fails_a_file_where_the_raw_store_should_be_and_status_says_so(data_dir, capsys):
    """`touch data/raw` in a fresh data folder: every sync exits 78 (File exists), and doctor
    said "ok raw 0 run(s)" with exit 0, status "0 complete" and nothing more."""
    raw = data_dir / "raw"
    raw.write_text("")
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 78
    assert "cannot write to the raw store" in capsys.readouterr().err
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 78
    findings = json.loads(capsys.readouterr().out)
    assert [(f["level"], f["finding"]) for f in findings if f["area"] == "raw"] == [
        ("fail", f"{raw} is not a folder: no sync or rules ingest can keep a run there "
                 "(move it away: the next sync makes the folder)")]
    assert main(["--data-dir", str(data_dir), "status"]) == 0
    assert f"raw store:  {raw} (0 complete, 0 failed, 0 incomplete; 0 B); it is not a folder: no sync or rules " \
           "ingest can keep a run there (see casefile doctor)\n" in capsys.readouterr().out
    assert main(["--data-dir", str(data_dir), "status", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"]["problem"] == \
        "it is not a folder: no sync or rules ingest can keep a run there"
    assert raw.read_text() == ""


@pytest.mark.parametrize("command", [["sync", "--offline"], ["rebuild"], ["doctor", "--format", "json"]])
def test_a_file_where_the_warehouse_folder_should_be_is_a_configuration_error(data_dir, capsys, command):
    """`cp casefile.duckdb data/warehouse` after the folder was removed makes a file of that
    name (a test-only file here): sync and rebuild gave a traceback, doctor passed."""
    (data_dir / "warehouse").write_text("a copy meant to go into the folder")
    assert main(["--data-dir", str(data_dir), *command]) == 78
    out, err = capsys.readouterr()
    message = f"cannot use the warehouse folder {data_dir / 'warehouse'}: it is not a folder"
    if command[0] == "doctor":
        assert [f["finding"] for f in json.loads(out) if f["level"] == "fail"] == [message]
    else:
        assert err == f"casefile: error: {message}\n"
    assert (data_dir / "warehouse").read_text() == "a copy meant to go into the folder"
    if command[0] == "sync":  # the run it fetched waits for the next sync
        assert [run.status for run in RawStore(data_dir / "raw").runs()] == ["complete"]


@pytest.mark.parametrize("command", [["sync", "--offline"], ["rebuild"], ["prune"], ["status"], ["sql", "SELECT 1"],
                                     ["doctor"]])
def test_a_data_folder_that_is_a_file_is_a_configuration_error(tmp_path, capsys, monkeypatch, command):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    assert main(["--data-dir", str(a_file), *command]) == 78
    assert capsys.readouterr().err == f"casefile: error: cannot use the data folder {a_file}: it is not a folder\n"
    monkeypatch.setenv("CASEFILE_DATA_DIR", str(a_file))
    assert main(command) == 78
    assert capsys.readouterr().err == f"casefile: error: cannot use the data folder {a_file}: it is not a folder\n"
    assert a_file.read_text() == "not a folder"


def test_the_data_dir_option_wins_over_a_data_folder_setting_that_is_a_file(tmp_path, data_dir, monkeypatch):
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("CASEFILE_DATA_DIR", str(tmp_path / "a-file"))
    assert main(["--data-dir", str(data_dir), "-q", "status"]) == 0


def test_a_raw_store_that_cannot_be_written_is_a_configuration_error(data_dir, capsys, monkeypatch):
    raw = data_dir / "raw"
    real_mkdir = os.mkdir

    def mkdir(path, *args, **kwargs):  # as `chmod 555 raw` or `chattr +i raw` would (even for root)
        if Path(path).parent == raw:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 78
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: cannot write to the raw store: Permission denied") and str(raw) in err
    assert "Traceback" not in err and run_dirs(data_dir) == []


class _FullDisk:
    """A file whose every write fails as on a full disk."""

    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


@pytest.mark.parametrize("full,status", [
    (lambda path: "docs" in path.parts, "failed"),  # the bodies: the run is marked failed
    (lambda path: not path.name.startswith((".run.json.", "manifest.jsonl")), "incomplete"),  # _FAILED too
    (lambda path: True, None),  # run.json: no run at all
])
def test_a_full_disk_while_writing_the_raw_store_is_try_again_later_and_leaves_no_partial_file(
        data_dir, capsys, monkeypatch, full, status):
    import builtins

    from pipeline import rawstore

    def full_disk_open(file, mode="r", *args, **kwargs):
        fh = builtins.open(file, mode, *args, **kwargs)
        return _FullDisk(fh) if set(mode) & set("wa") and full(Path(file)) else fh

    monkeypatch.setattr(rawstore, "open", full_disk_open, raising=False)
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 75
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("casefile: error: cannot write to the raw store: No space left on device")
    assert str(data_dir / "raw") in err and "Traceback" not in err
    assert [run_status(run) for run in run_dirs(data_dir)] == ([status] if status else [])
    assert not [p for p in (data_dir / "raw").rglob("*") if ".tmp-" in p.name]


def test_a_damaged_warehouse_says_rebuild_and_a_rebuild_mends_it(synced, capsys):
    db = synced / "warehouse" / "casefile.duckdb"
    db.write_bytes(b"not a DuckDB file at all")
    for command in (["sync", "--offline"], ["status"], ["sql", "SELECT 1"]):
        assert main(["--data-dir", str(synced), *command]) == 78, command
        err = capsys.readouterr().err
        assert "cannot open the warehouse" in err and "`casefile rebuild`" in err and "Traceback" not in err
    assert main(["--data-dir", str(synced), "rebuild"]) == 0
    # which runs the old file held is not known: the rebuild says so, once
    assert capsys.readouterr().err.count(f"the old warehouse {db} cannot be read") == 1
    assert main(["--data-dir", str(synced), "sql", "SELECT count(*) FROM card", "--format", "csv"]) == 0
    assert capsys.readouterr().out.endswith("count_star()\n15\n")


def test_a_folder_where_the_warehouse_file_goes_is_named_by_every_command_and_not_sent_to_a_rebuild(tmp_path, capsys):
    # a rebuild could not replace a folder: it failed with a traceback (1), while the other commands
    # told the user to run it
    (tmp_path / "warehouse" / "casefile.duckdb").mkdir(parents=True)
    for command in (["sync", "--offline"], ["rebuild"], ["status"], ["sql", "SELECT 1"], ["search", "case"]):
        assert main(["--data-dir", str(tmp_path), *command]) == 78, command
        err = capsys.readouterr().err
        assert f"the warehouse {tmp_path / 'warehouse' / 'casefile.duckdb'} is a folder, not a DuckDB file" in err
        assert "`casefile rebuild`" not in err and "Traceback" not in err, command
    assert [p.name for p in (tmp_path / "warehouse").iterdir()] == ["casefile.duckdb"]


def test_a_warehouse_cut_short_says_rebuild_and_the_run_it_fetched_is_loaded_by_the_rebuild(synced, capsys):
    """The warehouse of the bundled sample cut to half its size (made here, as a copy or a disk
    that lost its end leaves it): DuckDB opens it and fails when a query reaches the lost part.
    Every command says so with 78 and what to do (they printed a traceback, or "the query
    failed" with 2); the sync keeps the run it fetched, and a rebuild loads it."""
    db = synced / "warehouse" / "casefile.duckdb"
    with open(db, "r+b") as fh:
        fh.truncate(db.stat().st_size // 2)
    for command in (["sync", "--offline"], ["status"], ["doctor"], ["prune"], ["changes"]):
        assert main(["--data-dir", str(synced), *command]) == 78, command
        captured = capsys.readouterr()
        assert "the warehouse file is damaged" in captured.out + captured.err, command
        assert "`casefile rebuild`" in captured.out + captured.err and "Traceback" not in captured.err, command
    assert main(["--data-dir", str(synced), "-q", "rebuild"]) == 0
    assert main(["--data-dir", str(synced), "sql", "SELECT count(*) FROM sync_run", "--format", "csv"]) == 0
    assert capsys.readouterr().out.endswith("count_star()\n2\n")


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_sql_prints_a_listing_of_several_batches_as_a_whole(synced, capsys, fmt):
    from pipeline.formats import render

    statement = "SELECT range AS n, 'card ' || range AS name, range % 7 = 0 AS seventh FROM range(25003)"
    assert main(["--data-dir", str(synced), "sql", statement, "--format", fmt]) == 0
    con = duckdb.connect()
    cursor = con.execute(statement)
    expected = render([d[0] for d in cursor.description], cursor.fetchall(), fmt)
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_statements_before_the_last_run_once_even_when_a_table_reads_its_rows_twice(synced, capsys, fmt):
    """A table of more than one batch reads its rows twice (once for the widths): a temp table made
    before the query must not be made again (it was: "Table with name t already exists")."""
    statement = "CREATE TEMP TABLE t AS SELECT range AS n FROM range(25003); SELECT n FROM t ORDER BY n"
    assert main(["--data-dir", str(synced), "sql", statement, "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == ("(25003 rows)" if fmt == "table" else "25002")
    assert main(["--data-dir", str(synced), "sql", "SELECT 1 AS a; SELECT 2 AS b;", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "b\n2\n"  # the last statement's rows
    assert main(["--data-dir", str(synced), "sql", "SELECT 1; SELEC 2"]) == 2
    assert "the query failed: Parser Error" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_a_query_that_fails_while_its_rows_stream_is_a_usage_error(synced, capsys, fmt):
    statement = "SELECT CAST(CASE WHEN range < 50000 THEN '1' ELSE 'x' END AS INTEGER) AS v FROM range(60000)"
    assert main(["--data-dir", str(synced), "sql", statement, "--format", fmt]) == 2
    captured = capsys.readouterr()
    assert "the query failed: Conversion Error" in captured.err and "Traceback" not in captured.err
    if fmt == "table":  # its first pass, for the widths, meets the error before a line is printed
        assert captured.out == ""


@pytest.mark.parametrize("statement,rows", [("SELECT 42 AS answer", 1), ("SELECT range FROM range(25000)", 25000)])
def test_a_table_runs_the_statement_once_whatever_its_length(synced, capsys, monkeypatch, statement, rows):
    import pipeline.reader

    calls = []
    real = pipeline.reader.query_batches
    monkeypatch.setattr(pipeline.reader, "query_batches", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert main(["--data-dir", str(synced), "sql", statement]) == 0
    assert len(calls) == 1
    assert capsys.readouterr().out.endswith(f"({rows} row{'' if rows == 1 else 's'})\n")


@pytest.mark.parametrize("statement", [
    "CREATE TEMP SEQUENCE s; SELECT nextval('s') AS n FROM range(20000)",
    "CREATE TEMP TABLE t (i INTEGER PRIMARY KEY); INSERT INTO t SELECT range + 1 FROM range(20000) RETURNING i AS n",
])
def test_a_table_longer_than_a_batch_prints_the_rows_of_one_run_of_the_statement(synced, capsys, statement):
    """Before, a table of more than one batch ran the statement again for its rows, after a first
    run for the widths: a sequence then printed 20001 on, and an insert failed on its key (exit 2)."""
    assert main(["--data-dir", str(synced), "sql", statement]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.strip() for line in lines[2:4]] == ["1", "2"] and lines[-2].strip() == "20000"
    assert lines[-1] == "(20000 rows)"


@pytest.mark.parametrize("args", [["report", "colors", "--out"], ["export", "rulings", "--out"]])
def test_an_empty_out_is_a_usage_error(synced, capsys, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)  # an empty --out (an unset shell variable) must not mean this folder
    assert main(["--data-dir", str(synced), *args, ""]) == 2
    err = capsys.readouterr().err
    assert "Invalid value for '--out': give a path, not an empty string" in err and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["data"]


@pytest.mark.parametrize("name", ["new/..", ".", "new/.", "new/", "new/sub/"])
def test_a_report_out_that_names_a_folder_is_a_usage_error_and_leaves_nothing(synced, capsys, tmp_path, name):
    folder = tmp_path / "reports"
    folder.mkdir()
    assert main(["--data-dir", str(synced), "report", "colors", "--out", f"{folder}/{name}"]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and ("names a folder" in err or "is a directory" in err) and "Traceback" not in err
    assert list(folder.iterdir()) == []


def test_status_in_csv_is_one_csv_table_of_row_counts(synced, capsys):
    import csv
    import io

    assert main(["--data-dir", str(synced), "status", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["table", "rows"] and ["card", "15"] in rows and ["ruling", "45"] in rows
    assert all(len(row) == 2 and row[1].isdigit() for row in rows[1:])
    con = duckdb.connect(str(synced / "warehouse" / "casefile.duckdb"), read_only=True)
    tables = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE NOT temporary").fetchall()}
    counted = {table: int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]) for table in tables}
    con.close()
    assert {row[0]: int(row[1]) for row in rows[1:]} == counted  # every table of the warehouse, each its rows
    (synced / "warehouse" / "casefile.duckdb").unlink()  # not built: the header alone
    assert main(["--data-dir", str(synced), "status", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "table,rows\n"


def test_status_in_markdown_lists_the_facts_before_its_tables(synced, capsys):
    assert main(["--data-dir", str(synced), "status", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"- data dir: {synced}" and "| card | 15 |" in lines
    assert all(line.startswith(("- ", "| ")) for line in lines if line)


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_output_to_a_pipe_its_reader_closed_ends_quietly_with_exit_0(synced, fmt):
    # `casefile sql … | head -1`: the reader stops after one line, long before the rows end. Click
    # exited 1 (a bug, by the README) with nothing said; an output that fitted in the pipe exited 0.
    import subprocess
    import sys

    from conftest import subprocess_env

    process = subprocess.Popen([sys.executable, "-m", "pipeline", "sql", "SELECT * FROM range(300000)",
                                "--format", fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=subprocess_env(synced))
    assert process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""
    process.stderr.close()


def test_status_with_json_logs_prints_one_object_on_one_line(synced, capsys):
    # --log-format json prints "one JSON object per line" (README): status printed its object
    # indented over some eighty lines, which a reader of JSON lines cannot parse
    assert main(["--data-dir", str(synced), "--log-format", "json", "status"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["warehouse"]["tables"]["card"] == 15
    assert {k: json.loads(line)[k] for k in ("level", "event")} == {"level": "info", "event": "status"}
    assert "ts" in json.loads(line)  # dated, as every result line
    assert main(["--data-dir", str(synced), "status", "--format", "json"]) == 0  # for a person: indented
    out = capsys.readouterr().out
    assert len(out.splitlines()) > 1 and json.loads(out)["warehouse"]["tables"]["card"] == 15


def test_quiet_prints_errors_but_no_warnings(synced, capsys):
    # -q is "only errors on stderr" (README, --help): it logged warnings as a plain run does
    unknown = "20200101T000000.000000Z"
    assert main(["--data-dir", str(synced), "changes", "--since", unknown]) == 0
    assert "holds no run" in capsys.readouterr().err
    assert main(["--data-dir", str(synced), "-q", "changes", "--since", unknown]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out  # the result still prints
    assert main(["--data-dir", str(synced), "-q", "sql", "SELEC 1"]) == 2
    assert "casefile: error:" in capsys.readouterr().err


@pytest.mark.parametrize("args,env", [
    (["--log-format", "json", "sync", "--query", ""], {}),  # an unset shell variable in a crontab
    (["--log-format", "json", "prune", "--keep-days", "-1"], {}),
    (["--log-format=json", "--no-such-option", "status"], {}),  # before the group has read its options
    (["--log-format", "json", "no-such-command"], {}),
    (["sync", "--sources", ""], {"CASEFILE_LOG_FORMAT": "json"}),
    (["--log-format", "xml", "sync"], {"CASEFILE_LOG_FORMAT": "json"}),  # a value that is none leaves the setting
])
def test_a_usage_error_in_json_mode_is_one_json_line(cli, args, env):
    """A cron line appending stdout and stderr to a log of JSON lines (README "Scheduling") got
    click's four lines of usage text there."""
    result = cli(*args, **env)
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    error = json.loads(line)
    assert error["event"] == "error" and error["exit_code"] == 2 and error["message"]
    assert error["level"] == "error" and error["ts"].endswith("+00:00")  # dated, as log lines are
    assert result.stdout == ""


def test_json_result_lines_are_dated_as_log_lines_are(synced, cli):
    result = cli("--log-format", "json", "prune", "--dry-run")
    assert result.returncode == 0, result.stderr
    [line] = result.stdout.splitlines()
    summary = json.loads(line)
    assert (summary["level"], summary["event"]) == ("info", "prune") and summary["ts"].endswith("+00:00")


@pytest.mark.parametrize("folder, args, code", [("data_dir", ["sync", "--offline"], 75),
                                                ("synced", ["sql", "SELECT 1"], 75)])
def test_an_output_on_a_full_disk_is_try_again_later_not_a_bug(request, folder, args, code):
    """/dev/full answers every write with ENOSPC, as a log on a full disk does: the result line's
    write failed, and the command exited 1, "a bug", after its run was loaded."""
    import subprocess
    import sys

    from conftest import subprocess_env

    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "pipeline", "--log-format", "json", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=subprocess_env(request.getfixturevalue(folder)),
                              timeout=120)
    assert done.returncode == code, done.stderr
    [line] = done.stderr.splitlines()
    assert json.loads(line)["message"] == ("cannot write the output (No space left on device); free some space and "
                                           "run again")


def test_an_error_that_cannot_be_written_keeps_its_exit_code(synced):
    import subprocess
    import sys

    from conftest import subprocess_env

    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "pipeline", "--log-format", "json", "sql", "SELEC 1"],
                              stdout=subprocess.PIPE, stderr=full, text=True, env=subprocess_env(synced), timeout=120)
    assert (done.returncode, done.stdout) == (2, "")  # a usage error, where the failed write made it 1


def test_a_report_out_named_with_bytes_that_are_not_utf8_is_a_json_result_line(synced, capsys, tmp_path):
    import os

    out = os.fsdecode(os.fsencode(str(tmp_path)) + b"/o\xff.txt")
    assert main(["--data-dir", str(synced), "--log-format", "json", "report", "sets", "--out", out]) == 0
    line = capsys.readouterr().out
    assert line.encode("utf-8") and json.loads(line)["out"] == str(tmp_path) + "/o\ufffd.txt"


def test_a_usage_error_in_text_mode_still_shows_the_usage(cli):
    result = cli("prune", "--keep-days", "-1")
    assert result.returncode == 2 and result.stderr.startswith("Usage: casefile prune")


def test_a_bug_in_json_mode_is_one_json_line_holding_the_traceback(data_dir, capsys, monkeypatch):
    from pipeline import status

    def broken(settings):
        raise ValueError("boom")

    monkeypatch.setattr(status, "collect_status", broken)
    assert main(["--data-dir", str(data_dir), "--log-format", "json", "status"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    error = json.loads(line)
    assert error["exit_code"] == 1 and error["error"] == "ValueError" and "boom" in error["message"]
    assert "Traceback" in error["traceback"] and "broken" in error["traceback"]


@pytest.mark.parametrize("value", ["xml", "jsonl", "yes"])
def test_a_bad_log_format_in_the_environment_is_a_setting_exit_78_naming_it(cli, value):
    """It was exit 2 with click's usage text about --log-format, an option the crontab never gave."""
    result = cli("status", CASEFILE_LOG_FORMAT=value)
    assert result.returncode == 78
    assert result.stderr == f"casefile: error: CASEFILE_LOG_FORMAT must be text or json, got {value!r}\n"
    assert result.stdout == ""


def test_the_log_format_option_wins_over_the_environment_and_a_bad_one_is_usage(cli):
    assert cli("--log-format", "text", "status", "--format", "csv", CASEFILE_LOG_FORMAT="xml").returncode == 0
    result = cli("--log-format", "xml", "status")
    assert result.returncode == 2 and "--log-format" in result.stderr


def test_status_says_when_a_sync_holds_the_lock(synced, capsys):
    """The text of `status` says a sync (or a rebuild, a prune) runs, as its JSON does
    (sync_running_pid): the counts it shows may change under it."""
    import subprocess
    import sys

    assert main(["--data-dir", str(synced), "status"]) == 0
    assert "running:" not in capsys.readouterr().out
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pipeline.lock import SyncLock\n"
         "with SyncLock(sys.argv[1]):\n    print('held', flush=True); time.sleep(60)", str(synced / "sync.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert main(["--data-dir", str(synced), "status"]) == 0
        out = capsys.readouterr().out
    finally:
        holder.kill()
        holder.wait()
    assert f"running:    a sync, rebuild, prune or rules ingest holds the lock (pid {holder.pid})\n" in out


@pytest.mark.parametrize("command", [["sync", "--offline"], ["rebuild"], ["prune"],
                                     ["rules", "ingest", "tests/fixtures/rules/cr_case_excerpt.txt"]])
def test_a_command_turned_away_by_the_lock_names_every_command_that_may_hold_it(synced, capsys, command):
    """The message said "another casefile sync is running" whichever command held the lock (a
    rebuild, a prune, a rules ingest): it names them all, as `status` does."""
    from pipeline.lock import SyncLock

    capsys.readouterr()
    with SyncLock(synced / "sync.lock"):  # another open file: the lock is refused in this process too
        assert main(["--data-dir", str(synced), *[str(ROOT / a) if a.startswith("tests/") else a
                                                  for a in command]]) == 75
    err = capsys.readouterr().err
    assert f"another casefile sync, rebuild, prune or rules ingest holds the lock (pid {os.getpid()}, " in err
    assert "is running" not in err


def test_doctor_names_every_command_that_may_hold_the_lock(synced, capsys):
    from pipeline.lock import SyncLock

    def lock_finding() -> str:
        main(["--data-dir", str(synced), "doctor", "--format", "json"])
        return next(f["finding"] for f in json.loads(capsys.readouterr().out) if f["area"] == "lock")

    assert lock_finding() == "no sync, rebuild, prune or rules ingest holds the lock"
    with SyncLock(synced / "sync.lock"):
        assert lock_finding() == f"a sync, rebuild, prune or rules ingest holds the lock (pid {os.getpid()})"


# --- casefile sql: the SQL from a file or stdin, values given with --param ---------------------


def _sql(data: Path, *args: str) -> int:
    return main(["--data-dir", str(data), "sql", *args])


GORGON = "Case of the Gorgon's Kiss"
RULINGS_OF = "SELECT count(*) AS rulings FROM card JOIN card_ruling USING (oracle_id) WHERE name = $card"


def test_sql_reads_its_statements_from_a_file(sample_warehouse, tmp_path, capsys):
    query = tmp_path / "q.sql"
    query.write_text("-- the rulings of a card\nCREATE TEMP TABLE t AS SELECT 'Case of the Gorgon''s Kiss' AS n;\n"
                     f"{RULINGS_OF.replace('$card', '(SELECT n FROM t)')};\n", "utf-8")
    assert _sql(sample_warehouse, "--file", str(query), "--format", "csv") == 0
    assert capsys.readouterr().out == "rulings\n11\n"
    assert _sql(sample_warehouse, "-f", str(query), "--format", "csv") == 0
    assert capsys.readouterr().out == "rulings\n11\n"
    query.write_bytes("\ufeffSELECT 'Gorgon’s Kiss' AS s".encode("utf-8"))  # a BOM, as some editors write it
    assert _sql(sample_warehouse, "--file", str(query), "--format", "csv") == 0
    assert capsys.readouterr().out == "s\nGorgon’s Kiss\n"


def test_sql_reads_its_statements_from_stdin(sample_warehouse, capsys, monkeypatch):
    import io

    for args in (["-"], ["--file", "-"]):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"SELECT 1 AS a;\nSELECT 2 AS b\n")))
        assert _sql(sample_warehouse, *args, "--format", "csv") == 0
        assert capsys.readouterr().out == "b\n2\n"


def test_sql_reads_stdin_redirected_from_a_file_as_a_shell_does(sample_warehouse, tmp_path):
    from conftest import run_cli

    query = tmp_path / "rulings-of.sql"
    query.write_text(RULINGS_OF + "\n", "utf-8")
    with query.open("rb") as stdin:  # casefile sql - --param "card=…" --format csv < rulings-of.sql
        result = run_cli(["sql", "-", "--param", f"card={GORGON}", "--format", "csv"], sample_warehouse, stdin=stdin)
    assert (result.returncode, result.stdout, result.stderr) == (0, "rulings\n11\n", "")
    with query.open("rb") as stdin:
        result = run_cli(["sql", "-", "--format", "csv"], sample_warehouse, stdin=stdin)
    assert result.returncode == 2
    assert result.stderr == "casefile: error: the SQL names $card, which no --param gives: add --param card=VALUE\n"


def test_a_query_file_that_cannot_be_read_is_a_usage_error_naming_it(sample_warehouse, tmp_path, capsys,
                                                                     monkeypatch):
    import pathlib

    missing = tmp_path / "no-such.sql"
    not_utf8 = tmp_path / "latin1.sql"
    not_utf8.write_bytes("SELECT 'Gorgon’s' AS s".encode("cp1252"))
    a_file = tmp_path / "a-file"
    a_file.write_text("SELECT 1", "utf-8")
    locked = tmp_path / "locked.sql"
    locked.write_text("SELECT 1", "utf-8")
    real = pathlib.Path.read_bytes

    def read_bytes(path):  # the tests run as root, whom a chmod does not stop
        if path == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(pathlib.Path, "read_bytes", read_bytes)
    for path, says in [(missing, "no such file"), (tmp_path, "a folder, not a file"),
                       (not_utf8, "not UTF-8 text (byte 0x92 at offset 14)"),
                       (a_file / "q.sql", "cannot read it (Not a directory)"),
                       (locked, "cannot read it (Permission denied)")]:
        assert _sql(sample_warehouse, "--file", str(path)) == 2
        assert capsys.readouterr().err == f"casefile: error: --file {path}: {says}\n"
    assert _sql(sample_warehouse, "--file", "") == 2
    assert "give a path, not an empty string" in capsys.readouterr().err


def test_stdin_that_is_not_utf8_is_a_usage_error(sample_warehouse, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"SELECT '\xe9' AS s")))
    assert _sql(sample_warehouse, "-") == 2
    assert capsys.readouterr().err == "casefile: error: stdin: not UTF-8 text (byte 0xe9 at offset 8)\n"


def test_a_query_file_without_a_statement_is_a_usage_error(sample_warehouse, tmp_path, capsys):
    query = tmp_path / "empty.sql"
    query.write_text("-- nothing yet\n;\n", "utf-8")
    assert _sql(sample_warehouse, "--file", str(query)) == 2
    assert capsys.readouterr().err == f"casefile: error: --file {query} holds no SQL statement\n"


@pytest.mark.parametrize("args,says", [
    (["SELECT 1", "--file", "q.sql"], "give the SQL as STATEMENT or with --file, not both"),
    (["-", "--file", "q.sql"], "give the SQL as STATEMENT or with --file, not both"),
    ([], "give the SQL as STATEMENT, as - to read it from stdin, or with --file PATH"),
    (["--param", "year=2024"], "give the SQL as STATEMENT, as - to read it from stdin, or with --file PATH"),
])
def test_sql_takes_its_statements_from_one_place(sample_warehouse, tmp_path, capsys, monkeypatch, args, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.sql").write_text("SELECT 1", "utf-8")
    assert _sql(sample_warehouse, *args) == 2
    captured = capsys.readouterr()
    assert f"Error: {says}" in captured.err and captured.out == ""


def test_a_param_binds_its_value_as_text_which_the_sql_casts(sample_warehouse, capsys):
    assert _sql(sample_warehouse, RULINGS_OF, "--param", f"card={GORGON}", "--format", "csv") == 0
    assert capsys.readouterr().out == "rulings\n11\n"
    # a value is never SQL: the quote of an injection is part of the name looked for
    assert _sql(sample_warehouse, RULINGS_OF, "--param", "card=x' OR name <> '", "--format", "csv") == 0
    assert capsys.readouterr().out == "rulings\n0\n"
    statement = ("SELECT $year::INTEGER + 1 AS next, $s AS s, typeof($s) AS t, $eq AS eq, $empty = '' AS empty, "
                 "$Year AS same")
    assert _sql(sample_warehouse, statement, "--param", "year=2024", "--param", "s=007", "--param", "eq=a=b",
                "--param", "empty=", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out) == [
        {"next": 2025, "s": "007", "t": "VARCHAR", "eq": "a=b", "empty": True, "same": "2024"}]


def test_each_statement_takes_the_params_it_names(sample_warehouse, capsys):
    """DuckDB binds parameters in the last statement of a string only ("Prepared parameters are
    only supported for the last statement"): each statement is run with those it names."""
    statement = ("CREATE TEMP TABLE t AS SELECT $n::INTEGER AS n; SET VARIABLE card = $card; SELECT 1 AS one; "
                 "SELECT count(*) + (SELECT n FROM t) * $times::INTEGER AS total "
                 "FROM card JOIN card_ruling USING (oracle_id) WHERE name = getvariable('card')")
    assert _sql(sample_warehouse, statement, "--param", "n=2", "--param", f"card={GORGON}", "--param", "times=3",
                "--format", "csv") == 0
    assert capsys.readouterr().out == "total\n17\n"
    assert _sql(sample_warehouse, "SET VARIABLE y = $year::INTEGER; SELECT getvariable('y') AS y", "--param",
                "year=2024", "--format", "csv") == 0
    assert capsys.readouterr().out == "y\n2024\n"


def test_a_table_of_several_batches_binds_its_params_on_both_runs(sample_warehouse, capsys):
    assert _sql(sample_warehouse, "SELECT range AS n FROM range($rows::INTEGER)", "--param", "rows=25003") == 0
    assert capsys.readouterr().out.endswith("(25003 rows)\n")


@pytest.mark.parametrize("statement,args,says", [
    ("SELECT $year::INTEGER", ["--param", "year"], "Invalid value for '--param': 'year' is not NAME=VALUE"),
    ("SELECT $year::INTEGER", ["--param", "=2024"], "Invalid value for '--param': '=2024' has no NAME before its ="),
    ("SELECT $year::INTEGER", ["--param", "$year=2024"],
     "Invalid value for '--param': '$year=2024': write the NAME without its $ (year=2024)"),
    ("SELECT $year::INTEGER", ["--param", "year=2024", "--param", "year=2025"],
     "Invalid value for '--param': year is given twice"),
    ("SELECT $year::INTEGER", ["--param", "year=2024", "--param", "YEAR=2025"],
     "Invalid value for '--param': YEAR is given twice"),
])
def test_a_malformed_param_is_a_usage_error_naming_it(sample_warehouse, capsys, statement, args, says):
    assert _sql(sample_warehouse, statement, *args) == 2
    captured = capsys.readouterr()
    assert f"Error: {says}" in captured.err and captured.out == ""


@pytest.mark.parametrize("statement,args,says", [
    ("SELECT $year::INTEGER", [], "the SQL names $year, which no --param gives: add --param year=VALUE"),
    ("SELECT $a; SELECT $b, $c", ["--param", "b=1"],
     "the SQL names $a, $c, which no --param gives: add --param a=VALUE"),
    ("SELECT 1", ["--param", "limit=10"], "--param limit is given, but the SQL names no $limit"),
    ("SELECT $a", ["--param", "a=1", "--param", "b=2", "--param", "c=3"],
     "--param b, c is given, but the SQL names no $b, $c"),
    # '$year' in a string or a comment is no parameter
    ("SELECT '$year' AS s -- $year", ["--param", "year=1"], "--param year is given, but the SQL names no $year"),
])
def test_a_param_missing_or_unused_is_a_usage_error_naming_it(sample_warehouse, capsys, statement, args, says):
    assert _sql(sample_warehouse, "CREATE TEMP TABLE ran AS SELECT 1; " + statement, *args) == 2
    assert capsys.readouterr().err == f"casefile: error: {says}\n"


def test_a_query_file_cannot_make_duckdb_read_other_files(sample_warehouse, tmp_path, capsys):
    query = tmp_path / "q.sql"
    query.write_text("SELECT content FROM read_text($path)", "utf-8")
    assert _sql(sample_warehouse, "--file", str(query), "--param", f"path={query}") == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: the query failed:") and "Permission Error" in err
    query.write_text("COPY card TO $path", "utf-8")
    assert _sql(sample_warehouse, "--file", str(query), "--param", f"path={tmp_path / 'leak.csv'}") == 2
    assert capsys.readouterr().err.startswith("casefile: error: the query failed:")
    assert not (tmp_path / "leak.csv").exists()


@pytest.mark.parametrize("statement,says", [
    ("SELECT ?", "the SQL has a positional parameter (? or $1) with no value: give it with --param 1=VALUE "
                 "(each ? is numbered by its place in its statement), or name it $NAME and give --param NAME=VALUE"),
    ("SELECT $1 || $2", "the SQL has positional parameters (? or $1, $2) with no value: give them with --param "
                        "1=VALUE, --param 2=VALUE (each ? is numbered by its place in its statement), or name "
                        "them $NAME and give --param NAME=VALUE"),
])
def test_a_positional_param_without_a_value_says_how_to_give_one(sample_warehouse, capsys, statement, says):
    """A ? or $1 is no $NAME: the message says that its number is the NAME of its --param (or that
    it may be named), not that the SQL 'names $1'."""
    assert _sql(sample_warehouse, statement) == 2
    assert capsys.readouterr().err == f"casefile: error: {says}\n"
    values = ["--param", "1=a"] + (["--param", "2=b"] if "$2" in statement else [])
    assert _sql(sample_warehouse, statement, *values, "--format", "csv") == 0
    assert capsys.readouterr().out.splitlines()[1] == ("a" if "$2" not in statement else "ab")


def test_named_and_positional_params_missing_together_are_both_said(sample_warehouse, capsys):
    assert _sql(sample_warehouse, "SELECT $card; SELECT ?") == 2
    assert capsys.readouterr().err == (
        "casefile: error: the SQL names $card, which no --param gives: add --param card=VALUE; and it has a "
        "positional parameter (? or $1) with no value: give it with --param 1=VALUE (each ? is numbered by its "
        "place in its statement), or name it $NAME and give --param NAME=VALUE\n")


def test_a_statement_or_param_that_is_not_utf8_is_a_usage_error(sample_warehouse, capsys):
    """Bytes that are not UTF-8 in the arguments (a shell in Latin-1: Python keeps them as
    surrogate escapes) are a usage error naming where, as in a --file or stdin; not a traceback."""
    latin1 = b"SELECT '\xe9t\xe9' AS s".decode("utf-8", "surrogateescape")
    assert _sql(sample_warehouse, latin1) == 2
    assert capsys.readouterr().err == "casefile: error: STATEMENT: not UTF-8 text (byte 0xe9 at offset 8)\n"
    value = b"card=Gorgon\x92s Kiss".decode("utf-8", "surrogateescape")
    assert _sql(sample_warehouse, RULINGS_OF, "--param", value) == 2
    captured = capsys.readouterr()
    assert "Error: Invalid value for '--param': card: not UTF-8 text (byte 0x92 at offset 6)" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


@pytest.mark.parametrize("args, named", [
    (["sync", "--offline", "--query", "type:\udce9"], "'--query'"),
    (["sync", "--plan", "--query", "type:\udce9"], "'--query'"),
    (["search", "r\udce9sum\udce9"], "'TEXT'"),
    (["card", "Case of the \udce9"], "'NAME'"),
    (["rule", "719\udce9"], "'NUMBER'"),
    (["changes", "--since", "2024\udce9"], "'--since'"),
    (["report", "sets", "--query", "type:\udce9"], "'--query'"),
    (["rules", "diff", "2024-02-02", "2024\udce9"], "'NEW'"),
])
def test_a_text_argument_that_is_not_utf8_is_a_usage_error_naming_it(data_dir, capsys, args, named):
    """A query, words, a name or a date typed in a Latin-1 terminal (Python keeps the bytes as
    surrogate escapes, which DuckDB and the JSON writer cannot take) is exit 2 naming the
    argument; a sync stopped with a traceback, search and card printed DuckDB's message."""
    assert main(["--data-dir", str(data_dir), *args]) == 2
    err = capsys.readouterr().err
    assert f"Invalid value for {named}: not UTF-8 text (byte 0xe9 at offset" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_an_end_of_file_error_is_a_failure_with_its_traceback_not_an_interruption(data_dir, capsys, monkeypatch,
                                                                                 log_format):
    """click turns an EOFError raised inside a command into Abort, its word for Ctrl-C: a gzip
    file cut short made a sync say "interrupted" and exit 130, which a scheduler takes for a stop
    someone asked for."""
    import pipeline.status

    def cut(settings):
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")

    monkeypatch.setattr(pipeline.status, "collect_status", cut)
    assert main(["--data-dir", str(data_dir), "--log-format", log_format, "status"]) == 1
    err = capsys.readouterr().err
    assert "interrupted" not in err
    assert "internal error" in err and "EOFError: Compressed file ended" in err


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_escape_sequences_inside_values_print_whole_to_a_pipe(synced, capsys, fmt):
    """click.echo takes ANSI escape sequences out of what goes to a pipe or a file: a value
    holding one printed shorter than it is (6 characters as "AB"), where the README says values
    print whole. JSON spells the character out."""
    assert main(["--data-dir", str(synced), "sql", "SELECT 'A' || chr(27) || '[1mB' AS v", "--format", fmt]) == 0
    printed = capsys.readouterr().out
    assert ("A\\u001b[1mB" if fmt == "json" else "A\x1b[1mB") in printed


def test_doctor_s_table_shows_a_long_finding_whole_on_lines_of_its_own(tmp_path, capsys):
    """A table cuts its cells at 80 characters: doctor's finding of runs gone from data/raw/ lost the
    run's id and the remedy ("restore … or run `casefile rebuild`") past its first 80, readable only
    with --format csv or json."""
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    [run] = [p for p in (data / "raw").iterdir() if (p / "run.json").exists()]
    shutil.rmtree(run)
    capsys.readouterr()
    assert main(["--data-dir", str(data), "doctor"]) == 78
    table = capsys.readouterr().out
    assert main(["--data-dir", str(data), "doctor", "--format", "json"]) == 78
    [failing] = [f["finding"] for f in json.loads(capsys.readouterr().out) if f["level"] == "fail"]
    assert len(failing) > 200 and "…" not in table
    lines = table.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("fail "))
    column = lines[0].index("finding")
    wrapped = [lines[start][column:]] + [line[column:] for line in itertools.takewhile(
        lambda line: line.startswith(" " * column), lines[start + 1:])]
    assert all(len(line) <= 80 for line in wrapped) and " ".join(wrapped) == failing
    assert lines[-1] == f"({len(lines) - 2 - len(wrapped)} rows)"


@pytest.mark.parametrize("command", [["report", "colors", "--out"], ["export", "rulings", "--out"]])
def test_an_out_name_as_long_as_a_file_name_may_be_is_written(synced, capsys, tmp_path, command):
    """The temporary name beside ``--out`` added 13 to 20 bytes to its name: a name of 240 bytes or
    more, which a file may have, failed with "File name too long". The siblings of a name that long
    are named by its hash; a second export still finds the one a killed export left."""
    out = tmp_path / "out" / ("r" * 250)
    assert main(["--data-dir", str(synced), *command, str(out)]) == 0, capsys.readouterr().err
    assert out.exists() and [p.name for p in out.parent.iterdir()] == [out.name]
    if command[0] == "export":
        from pipeline.export import clear_leftovers, sibling_stem

        left = out.parent / f".{sibling_stem(out.name)}.4194304-0123abcd.tmp"
        left.mkdir()
        assert clear_leftovers(out) == [left] and not left.exists()


@pytest.mark.parametrize("tail", [("r" * 256,), ("r" * 256, "x.txt")])
def test_a_report_out_name_longer_than_a_file_name_may_be_is_a_usage_error(synced, capsys, tmp_path, tail):
    # path.is_symlink() raised "File name too long": a traceback, exit 1
    (tmp_path / "out").mkdir()
    out = tmp_path.joinpath("out", *tail)
    assert main(["--data-dir", str(synced), "report", "colors", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"casefile: error: --out {out}: cannot write it (File name too long")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_report_out_on_a_full_disk_exits_75(synced, capsys, tmp_path, monkeypatch):
    """The OSError is raised here, as Python's write of the temporary file raises it on a full disk."""
    import errno
    import os

    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "report.csv"
    out.write_text("the report before\n")
    real_write_text = Path.write_text

    def full(self, *args, **kwargs):
        if self.parent == out.parent and self.name.endswith(".tmp"):
            real_write_text(self, "half")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["--data-dir", str(synced), "report", "colors", "--format", "csv", "--out", str(out)]) == 75
    err = capsys.readouterr().err
    assert err == (f"casefile: error: --out {out}: cannot write it (No space left on device); free some space "
                   "and run again (the file there before, if any, is unchanged)\n")
    assert [p.name for p in out.parent.iterdir()] == ["report.csv"] and out.read_text() == "the report before\n"


@pytest.mark.parametrize("under", ["x", "new/x"])
def test_a_report_out_under_a_file_says_the_file_is_not_a_folder(synced, capsys, tmp_path, monkeypatch, under):
    """`report --out README.md/x` said "cannot write it (File exists)", where export says
    "README.md is a file, not a folder"."""
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    Path("README.md").write_text("a file\n")
    assert main(["--data-dir", str(synced), "report", "colors", "--out", f"README.md/{under}"]) == 2
    assert capsys.readouterr().err == f"casefile: error: --out README.md/{under}: README.md is a file, not a folder\n"
    assert Path("README.md").read_text() == "a file\n" and sorted(os.listdir()) == ["README.md"]


def test_a_report_out_makes_the_folders_on_its_way_as_export_does_and_removes_them_if_it_fails(
        synced, capsys, tmp_path, monkeypatch):
    """The folders on the way to --out are made, as `export --out` makes them (README); a write
    that fails leaves none of them behind, as a failed export does not."""
    import errno

    out = tmp_path / "new" / "deeper" / "report.csv"
    assert main(["--data-dir", str(synced), "report", "colors", "--format", "csv", "--out", str(out)]) == 0
    assert out.read_text().startswith("statistics,")
    shutil.rmtree(tmp_path / "new")
    real_write_text = Path.write_text

    def full(self, *args, **kwargs):
        if self.name.endswith(".tmp"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["--data-dir", str(synced), "report", "colors", "--format", "csv", "--out", str(out)]) == 75
    assert "No space left on device" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_a_report_out_that_replaces_a_file_keeps_its_permissions(synced, capsys, tmp_path):
    import stat

    out = tmp_path / "report.csv"
    out.write_text("the report before\n")
    out.chmod(0o600)
    assert main(["--data-dir", str(synced), "report", "colors", "--format", "csv", "--out", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text() != "the report before\n"


def test_a_report_out_that_replaces_a_file_keeps_its_group(synced, capsys, tmp_path):
    """A report shared with a group: the file written in its place had the writer's group."""
    from conftest import other_group

    out = tmp_path / "report.csv"
    out.write_text("the report before\n")
    group = other_group()
    os.chown(out, -1, group)
    assert main(["--data-dir", str(synced), "report", "colors", "--format", "csv", "--out", str(out)]) == 0
    assert out.stat().st_gid == group and out.read_text() != "the report before\n"


def test_an_empty_report_query_is_a_usage_error_that_says_so(synced, capsys):
    """An unset shell variable: before, the report said the warehouse holds no cards of the query ''."""
    assert main(["--data-dir", str(synced), "report", "colors", "--query", " "]) == 2
    err = capsys.readouterr().err
    assert "Invalid value for --query: give a sync query, not an empty string" in err


def _leave_a_wal(db: Path) -> None:
    """A committed write that lives only in the warehouse's WAL, as a writer killed after its
    commit leaves one (DuckDB told not to checkpoint at the close)."""
    con = duckdb.connect(str(db))
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    con.execute("CREATE TABLE scratch AS SELECT 1 AS n")
    con.close()
    assert Path(f"{db}.wal").stat().st_size > 0


@pytest.mark.parametrize("harm", ["file damaged", "wal not duckdb's", "file deleted"])
def test_a_rebuild_mends_a_warehouse_whose_wal_no_checkpoint_can_fold_in(synced, capsys, harm):
    """CONSTRUCTED harm. Before, a rebuild checkpointed the old file to fold its WAL in, and gave up
    when it could not: a damaged file beside a WAL made rebuild exit 78 with the very message that
    sends the user to rebuild, and a WAL that is not DuckDB's, or a file deleted by hand beside its
    WAL, exit 1. The WAL is now moved aside, never left beside the new file."""
    db = synced / "warehouse" / "casefile.duckdb"
    if harm == "wal not duckdb's":
        Path(f"{db}.wal").write_bytes(b"\x00not a write-ahead log" * 100)
    else:
        _leave_a_wal(db)
        if harm == "file damaged":
            db.write_bytes(b"not a DuckDB file at all")
        else:
            db.unlink()
    assert main(["--data-dir", str(synced), "rebuild"]) == 0, capsys.readouterr().err
    assert "moved aside to" in capsys.readouterr().err
    assert not Path(f"{db}.wal").exists() and len(list(db.parent.glob("casefile.duckdb.wal.stale-*"))) == 1
    assert main(["--data-dir", str(synced), "sql", "SELECT count(*) FROM card", "--format", "csv"]) == 0
    assert capsys.readouterr().out.endswith("count_star()\n15\n")
    assert main(["--data-dir", str(synced), "doctor", "--format", "json"]) == 0


def test_a_warehouse_the_system_refuses_to_open_for_writing_is_not_called_damaged():
    """A read-only mount: the sync's 78 said "If the file is damaged, `casefile rebuild` makes it
    again", which fails the same way; the message now says what to mend. (DuckDB's message as it
    words an open the system refuses.)"""
    from pipeline.errors import unopenable_warehouse

    refused = duckdb.IOException('IO Error: Cannot open file "/srv/data/warehouse/casefile.duckdb": '
                                 "Read-only file system")
    message = str(unopenable_warehouse("/srv/data/warehouse/casefile.duckdb", refused))
    assert "Read-only file system. Make the file and its folder writable" in message and "rebuild" not in message
    denied = duckdb.IOException('IO Error: Cannot open file "/srv/w.duckdb": Permission denied')
    reading = str(unopenable_warehouse("/srv/w.duckdb", denied, writer=False))
    assert "Permission denied. Make the file readable by this user" in reading and "writable" not in reading
    damaged = duckdb.IOException("IO Error: Could not read enough bytes from file: the header is cut short")
    assert "`casefile rebuild` makes it again" in str(unopenable_warehouse("/srv/w.duckdb", damaged))
