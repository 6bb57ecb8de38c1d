"""casefile run as a scheduler starts it: another locale, output encoding or environment than a
login shell's. Each test runs the command in a subprocess with the environment given."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import subprocess_env

SHIFTING_VISAGE = "Case of the Shifting Visage"
CURLY = "If the spell that’s copied"  # a ruling of the card, with its curly apostrophe


def run(args: list[str], data_dir: Path, stdout=subprocess.PIPE, cwd: Path | None = None,
        **env: str) -> subprocess.CompletedProcess:
    """``python -m pipeline --data-dir DATA ARGS`` with ``env`` over the suite's environment, in
    ``cwd`` (default: the folder holding DATA); its output as bytes, to be decoded by the test."""
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data_dir), *args], stdout=stdout,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=subprocess_env(data_dir, **env),
                          timeout=120, cwd=str(cwd or data_dir.parent))


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "ascii"])
@pytest.mark.parametrize("args", [["card", SHIFTING_VISAGE], ["card", SHIFTING_VISAGE, "--format", "json"],
                                  ["search", "spell that’s copied"],
                                  ["sql", "SELECT text FROM ruling WHERE text LIKE '%that’s copied%'",
                                   "--format", "csv"]])
def test_output_to_a_pipe_is_utf8_whatever_the_locale(sample_warehouse, encoding, args):
    """A locale (or PYTHONIOENCODING) in Latin-1 or Windows-1252 made every command that prints a
    ruling's curly apostrophe stop with a traceback (exit 1), its output cut; what goes to a pipe or
    a file is UTF-8, as the exports are."""
    done = run(args, sample_warehouse, PYTHONIOENCODING=encoding)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert "that’s copied" in done.stdout.decode("utf-8")
    assert done.stderr == b""


def test_an_error_to_a_pipe_is_utf8_whatever_the_locale(sample_warehouse):
    """stderr as stdout: a log file that takes both (``>> log 2>&1``) holds one encoding."""
    done = run(["--log-format", "json", "card", "Affaire inconnue de l’été"], sample_warehouse,
               PYTHONIOENCODING="latin-1")
    assert done.returncode == 2
    assert "Affaire inconnue de l’été" in done.stderr.decode("utf-8")


def test_output_to_a_terminal_keeps_its_encoding_and_escapes_what_it_cannot_show(sample_warehouse):
    """On a Latin-1 terminal the accents show as the terminal writes them; a character it has no
    byte for is written as ``\\u2019``, as Python writes it on stderr, not a traceback."""
    import pty

    parent, child = pty.openpty()
    try:
        done = run(["sql", "SELECT 'été' AS a, 'that’s' AS b", "--format", "csv"], sample_warehouse,
                   stdout=child, PYTHONIOENCODING="latin-1")
        os.close(child)
        child = None
        out = b""
        while True:
            try:
                chunk = os.read(parent, 4096)
            except OSError:  # the terminal's other end is closed: everything was read
                break
            if not chunk:
                break
            out += chunk
    finally:
        if child is not None:
            os.close(child)
        os.close(parent)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert out.replace(b"\r\n", b"\n") == "a,b\nété,that\\u2019s\n".encode("latin-1")


ASCII_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0"}  # Python without its UTF-8 mode: arguments read as ASCII


@pytest.mark.parametrize("args, shown", [
    (["sql", "SELECT 'été’' AS a", "--format", "csv"], "a\nété’\n"),
    (["sql", "SELECT $a AS a", "--param", "a=été’", "--format", "csv"], "a\nété’\n"),
    (["search", "COPIABLE valués", "--format", "csv"], "permanent’s copiable values"),
    (["card", "Affaire du Pacte fracassé", "--format", "text"], "Case of the Shattered Pact"),
])
def test_utf8_arguments_under_an_ascii_locale_are_read_as_utf8(sample_warehouse, args, shown):
    """Under LC_ALL=C with PYTHONUTF8=0 Python keeps an argument's UTF-8 bytes as surrogate
    escapes: the statement reached DuckDB so (a traceback, exit 1), a search looked for other words
    (two rulings for one), a card's French name matched nothing."""
    done = run(args, sample_warehouse, **ASCII_LOCALE)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert shown in done.stdout.decode("utf-8")
    if args[0] == "search":
        assert done.stdout.decode("utf-8").count("\n") == 2  # the header and the one ruling


def test_a_data_folder_with_accents_under_a_locale_that_is_not_utf8_says_so(tmp_path):
    """DuckDB takes paths as UTF-8; Python reads a path's bytes in the locale's encoding. Under an
    ASCII locale a UTF-8 path was refused as "not UTF-8"; under a Latin-1 one DuckDB was handed
    another path than the folder made, and every sync fetched a run, then failed to open the
    warehouse (78, "No such file or directory"). It is refused before anything is made, naming
    the locale and the way out; under a UTF-8 locale the same folder works."""
    data = tmp_path / "données" / "data"
    done = run(["sync", "--offline"], data, cwd=tmp_path, **ASCII_LOCALE)
    assert done.returncode == 78
    err = done.stderr.decode("utf-8")
    assert "is not UTF-8" not in err.replace("encoding (ascii) is not UTF-8", "")
    assert "the locale's encoding (ascii) is not UTF-8" in err and "LC_ALL=C.UTF-8" in err
    assert not (tmp_path / "données").exists()
    assert run(["-q", "sync", "--offline"], data, cwd=tmp_path).returncode == 0


def test_an_export_folder_with_accents_under_a_locale_that_is_not_utf8_says_so(sample_warehouse, tmp_path):
    out = tmp_path / "exports" / "données"
    done = run(["export", "rulings", "--out", str(out)], sample_warehouse, **ASCII_LOCALE)
    assert done.returncode == 2
    err = done.stderr.decode("utf-8")
    assert "the locale's encoding (ascii) is not UTF-8" in err and "not valid UTF-8" not in err
    assert not out.exists()


@pytest.mark.parametrize("setting", [{"CASEFILE_MAX_ATTEMPTS": "abc"}, {"CASEFILE_LOG_FORMAT": "xml"},
                                     {"CASEFILE_API_URL": "ftp://example.org"}])
@pytest.mark.parametrize("args", [["sync", "--help"], ["rules", "ingest", "--help"], ["export", "--help"],
                                  ["status", "-h"]])
def test_a_command_s_help_shows_whatever_the_settings_hold(data_dir, setting, args):
    """A scheduler's environment with a setting that cannot be used (or, for a package installed
    outside a checkout, no home folder for the default data folder) made `casefile sync --help` exit
    78 with the setting's error instead of the help the user looked for to fix it; the command
    itself still stops on the setting."""
    done = run(args, data_dir, **setting)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert done.stdout.decode("utf-8").startswith("Usage: ")
    done = run(args[:-1] + (["/nonexistent"] if args[:2] == ["rules", "ingest"] else
                            ["rulings", "--out", str(data_dir.parent / "out")] if args[0] == "export" else []),
               data_dir, **setting)
    assert done.returncode == 78
    assert f"{next(iter(setting))}" in done.stderr.decode("utf-8")
