"""Security: `casefile sql` only reads, raw files stay in the raw store, URL settings are http(s)
without credentials, and no credential is ever printed or written down. There is no HTML output in
this tree (no pipeline/html_report.py), so nothing to escape yet.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.rawstore import _safe_name, read_manifest, read_run

from conftest import ROOT, subprocess_env
from support.fake_scryfall import FakeScryfall
from support.sample_data import sample_api_data
from support.warehouse_state import fingerprints, run_dirs, warehouse_of

pytestmark = pytest.mark.reliability

SAFE_NAME = re.compile(r"^\d{5}-[A-Za-z0-9._-]+\.(json|html|txt|bin)$")
MANIFEST_PATH = re.compile(r"^(docs/[a-z-]+|quarantine)/\d{5}-[A-Za-z0-9._-]+\.(json|html|txt|bin)$")
CARDS, RULINGS, SETS = sample_api_data()
ENGLISH = [c for c in CARDS if c.get("lang", "en") == "en"]
SECRET = "hunter2-s3cret"


def _everything_under(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --- casefile sql -----------------------------------------------------------------------------

@pytest.mark.parametrize("statement", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM read_csv('http://example.org/cards.csv')",
    "COPY card FROM '/etc/passwd'",
    "COPY (SELECT * FROM ruling) TO '/tmp/casefile-leak.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '/tmp/casefile-export'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "CREATE SECRET leak (TYPE s3, KEY_ID 'a', SECRET 'b')",
    "SELECT 1; DROP TABLE card",
    "SET lock_configuration = false",
])
def test_sql_can_neither_write_nor_read_other_files(sample_warehouse, capsys, statement):
    db = warehouse_of(sample_warehouse)
    before, digest = fingerprints(sample_warehouse), hashlib.sha256(db.read_bytes()).hexdigest()
    assert main(["--data-dir", str(sample_warehouse), "sql", statement]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("casefile: error: the query failed:")
    assert "root:" not in err
    assert not Path("/tmp/casefile-leak.parquet").exists() and not Path("/tmp/casefile-export").exists()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest and fingerprints(sample_warehouse) == before


# --- URLs -------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://api.scryfall.com", "javascript:alert(1)",
                                 "api.scryfall.com", "http://", "http://127.0.0.1:notaport", "gopher://x/"])
def test_the_api_url_is_http_or_https_only(data_dir, capsys, url):
    assert main(["--data-dir", str(data_dir), "sync", "--api-url", url, "--sources", "api"]) == 78
    err = capsys.readouterr().err
    assert "http(s) URL" in err or "not a URL" in err
    assert run_dirs(data_dir) == []


@pytest.mark.parametrize("variable", ["CASEFILE_API_URL", "CASEFILE_WIKI_URL", "CASEFILE_LISTEBLANCHE_URL",
                                      "CASEFILE_SCRYFALL_WEB_URL", "CASEFILE_WIKI_PAGE"])
@pytest.mark.parametrize("url", ["file:///etc/passwd", f"https://casefile:{SECRET}@api.scryfall.com"])
def test_every_url_setting_is_http_only_and_without_credentials(data_dir, capsys, monkeypatch, variable, url):
    monkeypatch.setenv(variable, url)
    for log_format in ("text", "json"):
        assert main(["--data-dir", str(data_dir), "--log-format", log_format, "status"]) == 78
        out, err = capsys.readouterr()
        assert SECRET not in out + err
        assert ("credentials" in err) == (SECRET in url)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=120), st.sampled_from(["application/json", "text/html", "text/plain", "", "x/y"]))
def test_raw_file_names_are_made_here_whatever_the_url(url, content_type):
    name = _safe_name(7, url, content_type)
    assert SAFE_NAME.match(name), name
    folder = Path("/srv/data/raw/20260101T000000.000000Z/docs/scryfall-api")
    assert (folder / name).resolve().parent == folder


def _hostile_run(data_dir: Path, server: FakeScryfall) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "sync", "--api-url", server.url, "--sources", "api"],
                          capture_output=True, text=True, timeout=60,
                          env=subprocess_env(data_dir, CASEFILE_MAX_ATTEMPTS="1"))


@pytest.mark.parametrize("hostile", ["next_page", "card_id"])
def test_urls_from_a_hostile_server_cannot_place_files_outside_the_run(tmp_path, hostile):
    data_dir = tmp_path / "data"
    escape = "../../../../../../../../tmp/casefile-escaped"
    cards = [dict(c) for c in ENGLISH]
    with FakeScryfall(cards, RULINGS, SETS) as server:
        if hostile == "next_page":
            page = {"object": "list", "total_cards": 2 * len(cards), "has_more": True, "data": cards,
                    "next_page": f"{server.url}/cards/search/{escape}?page=2"}
            server.add_fault("/cards/search", "status", status=200, body=page)
        else:
            cards[0]["id"] = escape
            cards[1]["id"] = "..%2F..%2F..%2F..%2Ftmp%2Fcasefile-escaped"
            cards[2]["id"] = "..\\..\\..\\tmp\\casefile-escaped"
        result = _hostile_run(data_dir, server)
    assert result.returncode in (0, 65), result.stderr
    assert "Traceback" not in result.stderr
    written = _everything_under(tmp_path)
    [run] = run_dirs(data_dir)
    outside = [p for p in written if not p.startswith(f"data/raw/{run.name}/")
               and p not in ("data/sync.lock", "data/cooldown.json")
               and not p.startswith("data/warehouse/")]
    assert outside == []
    assert not Path("/tmp/casefile-escaped").exists()
    for entry in read_manifest(read_run(run), include_quarantined=True):
        assert MANIFEST_PATH.match(entry.path), entry.path


# --- secrets ----------------------------------------------------------------------------------

def test_credentials_in_the_api_url_are_refused_and_never_printed(data_dir, capsys):
    for log_format in ("text", "json"):
        code = main(["--data-dir", str(data_dir), "--log-format", log_format, "-vv", "sync",
                     "--api-url", f"http://casefile:{SECRET}@127.0.0.1:9", "--sources", "api"])
        out, err = capsys.readouterr()
        assert code == 78 and "credentials" in err and SECRET not in out + err
    assert run_dirs(data_dir) == []


def test_no_secret_from_a_server_reaches_the_manifest_or_the_logs(tmp_path):
    """Secret-bearing response headers are not kept; a redirect carrying credentials is refused."""
    data_dir = tmp_path / "data"
    secret_headers = {"Set-Cookie": f"session={SECRET}", "Authorization": f"Bearer {SECRET}",
                      "WWW-Authenticate": f'Basic realm="{SECRET}"', "X-Api-Key": SECRET}
    with FakeScryfall(ENGLISH, RULINGS, SETS) as server:
        server.add_fault("/sets/mkm", "status", status=200, body={"object": "set", **SETS["mkm"]},
                         headers=secret_headers)
        ok = subprocess.run([sys.executable, "-m", "pipeline", "--log-format", "json", "-vv", "sync",
                             "--api-url", server.url, "--sources", "api"], capture_output=True, text=True,
                            timeout=60, env=subprocess_env(data_dir))
        host = server.url.split("//")[1]
        server.add_fault("/cards/search", "redirect", location=f"http://casefile:{SECRET}@{host}/cards/search")
        refused = subprocess.run([sys.executable, "-m", "pipeline", "-vv", "sync", "--api-url", server.url,
                                  "--sources", "api"], capture_output=True, text=True, timeout=60,
                                 env=subprocess_env(data_dir))
    assert ok.returncode == 0, ok.stderr
    assert refused.returncode == 69 and "credentials" in refused.stderr
    for output in (ok.stdout, ok.stderr, refused.stdout, refused.stderr):
        assert SECRET not in output
    for path, body in _everything_under(data_dir).items():
        if not path.startswith("warehouse/"):
            assert SECRET.encode() not in body, path
    manifest = [json.loads(line) for run in run_dirs(data_dir)
                for line in (run / "manifest.jsonl").read_text().splitlines()]
    assert all(set(e["headers"]) <= {"content-type", "content-length", "etag", "last-modified", "date",
                                     "retry-after", "cache-control", "x-robots-tag"} for e in manifest)


# --- recorded runs -----------------------------------------------------------------------------

def test_a_recorded_run_whose_manifest_points_outside_it_is_refused_and_nothing_is_read_from_there(tmp_path, capsys):
    """A copy of the sample whose search page is moved out of the run, its manifest line pointing
    at it with "../" (constructed): replaying the run would read, and copy into the raw store, a
    file the run does not hold. It is refused (65, named), no warehouse is made, and the file's
    bytes are nowhere in the data folder."""
    run = tmp_path / "run"
    shutil.copytree(ROOT / "data" / "raw" / "sample", run)
    lines = [json.loads(line) for line in (run / "manifest.jsonl").read_text("utf-8").splitlines()]
    [search] = [e for e in lines if e["kind"] == "search"]
    (tmp_path / "outside").mkdir()
    outside = tmp_path / "outside" / "search.json"
    (run / search["path"]).rename(outside)
    search["path"] = "../outside/search.json"
    (run / "manifest.jsonl").write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in lines), "utf-8")
    data_dir = tmp_path / "data"
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run)]) == 65
    assert "points outside its run: ../outside/search.json" in capsys.readouterr().err
    assert not (data_dir / "warehouse" / "casefile.duckdb").exists()
    body = outside.read_bytes()
    assert [p for p, b in _everything_under(data_dir).items() if b == body] == []
