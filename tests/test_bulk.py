"""The bulk plan over real sockets: index, streamed files, conditional GET, --bulk and --plan.

The bulk files are made from the bundled sample's cards and rulings (as FakeScryfall serves
them), in the format Scryfall documents for bulk data (https://scryfall.com/docs/api/bulk-data):
a JSON array of card objects, a JSON array of ruling objects, or gzipped JSON lines."""

import gzip
import hashlib
import json
import time
import uuid

import pytest

from pipeline.errors import ParseError, SourceDataError, TryAgainLater
from pipeline.extract.http import HttpClient
from pipeline.normalize.scryfall import iter_bulk_items
from pipeline.rawstore import RawStore, read_manifest

from support.fake_scryfall import FakeScryfall
from support.sample_data import sample_api_data
from support.warehouse_state import query as rows

ETAG = '"v1"'
LAST_MODIFIED = "Mon, 01 Jan 2024 09:00:00 GMT"


def _array(items) -> bytes:
    return ("[\n" + ",\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n]\n").encode("utf-8")


def _descriptor(kind, url, size, jsonl=False):
    d = {"object": "bulk_data", "type": kind, "updated_at": "2024-01-01T09:00:00.000+00:00", "size": size,
         "content_type": "application/json", "content_encoding": "gzip"}
    d["jsonl_download_uri" if jsonl else "download_uri"] = url
    return d


@pytest.fixture
def bulk_server():
    cards, rulings, sets = sample_api_data()
    english = [c for c in cards if c.get("lang") == "en"]
    ruling_items = [{"object": "ruling", "oracle_id": oid, **r} for oid, rs in rulings.items() for r in rs]
    with FakeScryfall(cards, rulings, sets) as fake:
        files = {"default_cards": _array(english), "all_cards": _array(cards), "rulings": _array(ruling_items)}
        index = []
        for kind, body in files.items():
            path = f"/files/{kind}.json"
            fake.add_file(path, body, etag=ETAG, last_modified=LAST_MODIFIED)
            index.append(_descriptor(kind, fake.url + path, len(body)))
        fake.add_page("/bulk-data", json.dumps({"object": "list", "has_more": False, "data": index}).encode(),
                      content_type="application/json")
        fake.add_page("/sets", json.dumps({"object": "list", "has_more": False,
                                           "data": [{"object": "set", **s} for s in sets.values()]}).encode(),
                      content_type="application/json")
        fake.files = files
        fake.index = index
        yield fake


def test_bulk_sync_makes_four_requests_and_loads_every_card(bulk_server, cli, data_dir):
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert [r.path for r in bulk_server.requests] == ["/bulk-data", "/files/default_cards.json",
                                                      "/files/rulings.json", "/sets"]
    db = data_dir / "warehouse" / "casefile.duckdb"
    assert rows(db, "SELECT count(*) FROM card") == [(15,)]
    assert rows(db, "SELECT count(*) FROM printing") == [(19,)]
    assert rows(db, "SELECT count(*) FROM card_ruling") == [(153,)]
    assert rows(db, "SELECT count(*) FROM ruling") == [(40,)]
    assert rows(db, "SELECT count(*) FROM card_set") == [(4,)]


def test_an_unchanged_file_is_not_downloaded_again(bulk_server, cli, data_dir):
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    bulk_server.clear_log()
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert "no changes" in result.stdout
    files = [r for r in bulk_server.requests if r.path.startswith("/files/")]
    assert [r.headers.get("If-None-Match") for r in files] == [ETAG, ETAG]
    runs = RawStore(data_dir / "raw").complete_runs()
    entries = [json.loads(line) for line in (runs[-1].path / "manifest.jsonl").read_text().splitlines()]
    reused = [e for e in entries if e["kind"] in ("bulk-cards", "bulk-rulings")]
    assert [e["status"] for e in reused] == [304, 304]
    assert all(e["reused_from"].startswith(runs[0].run_id) for e in reused)
    assert all((runs[-1].path / e["path"]).stat().st_size == e["bytes"] > 0 for e in reused)


def test_a_new_rulings_file_keeps_the_sighting_ids_of_the_rulings_it_did_not_change(bulk_server, cli, data_dir):
    """Scryfall publishes a new rulings file every day; a sighting is the n-th ruling of a card in
    it, whichever day's file showed it, so only what a file changes is touched in the warehouse."""
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = dict(rows(db, "SELECT sighting_id, text_as_seen FROM ruling_sighting"))
    items = json.loads(bulk_server.files["rulings"])
    old_text = items[0]["comment"]
    items[0]["comment"] = old_text.rstrip(".") + ", as the rules say."  # one copy re-worded
    bulk_server.add_file("/files/rulings.json", _array(items), etag='"v2"', last_modified=LAST_MODIFIED)
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert "~1 " in result.stdout.splitlines()[-1]  # the one sighting; no other sighting row is touched
    after = dict(rows(db, "SELECT sighting_id, text_as_seen FROM ruling_sighting"))
    assert after.keys() == before.keys()
    [changed] = [k for k in after if after[k] != before[k]]
    assert after[changed].endswith(", as the rules say.")
    # each sighting names the file it was first read from as it is now
    first, newest = [d for (d,) in rows(db, "SELECT doc_id FROM raw_document WHERE kind = 'bulk-rulings' ORDER BY run_id")]
    assert dict(rows(db, "SELECT doc_id, count(*) FROM ruling_sighting GROUP BY doc_id")) == {first: len(after) - 1, newest: 1}
    assert rows(db, f"SELECT doc_id FROM ruling_sighting WHERE sighting_id = '{changed}'") == [(newest,)]


@pytest.mark.parametrize("kind", ["default_cards", "rulings"])
def test_an_empty_bulk_file_is_refused_and_the_warehouse_keeps_the_day_before(bulk_server, cli, data_dir, kind):
    """A file that holds no object is a broken download, not a day without cards: loaded, it
    would empty the warehouse with exit 0. The run is rejected (65); the next good day loads."""
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = rows(db, "SELECT (SELECT count(*) FROM card), (SELECT count(*) FROM card_ruling)")
    bulk_server.add_file(f"/files/{kind}.json", b"[]\n", etag='"empty"', last_modified=LAST_MODIFIED)
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 65, result.stderr
    assert "holds no object" in result.stderr
    assert rows(db, "SELECT (SELECT count(*) FROM card), (SELECT count(*) FROM card_ruling)") == before == [(15, 153)]
    assert [r.status for r in RawStore(data_dir / "raw").runs()] == ["complete", "rejected"]
    bulk_server.add_file(f"/files/{kind}.json", bulk_server.files[kind], etag='"v3"', last_modified=LAST_MODIFIED)
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert rows(db, "SELECT (SELECT count(*) FROM card), (SELECT count(*) FROM card_ruling)") == before


def test_a_query_that_keeps_no_card_of_the_bulk_file_is_exit_2_and_changes_nothing(bulk_server, cli, data_dir):
    """The API path hears "no cards found" from Scryfall's search (exit 2); the bulk path used to
    load an empty view of the query with exit 0. The run is rejected; the next sync loads."""
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = rows(db, "SELECT (SELECT count(*) FROM card), (SELECT count(*) FROM sync_run)")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "name:zzz", "--bulk", "always")
    assert result.returncode == 2, result.stderr
    assert "matches no card of the bulk file" in result.stderr and "Traceback" not in result.stderr
    assert rows(db, "SELECT (SELECT count(*) FROM card), (SELECT count(*) FROM sync_run)") == before == [(15, 1)]
    assert rows(db, "SELECT count(*) FROM query_card WHERE query = 'name:zzz'") == [(0,)]
    assert [r.status for r in RawStore(data_dir / "raw").runs()] == ["complete", "rejected"]
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr


def test_multilingual_takes_all_cards_and_a_local_filter_keeps_the_query(bulk_server, cli, data_dir):
    result = cli("sync", "--api-url", bulk_server.url, "--query", "set:mkc", "--bulk", "always", "--multilingual")
    assert result.returncode == 0, result.stderr
    assert "/files/all_cards.json" in [r.path for r in bulk_server.requests]
    db = data_dir / "warehouse" / "casefile.duckdb"
    assert rows(db, "SELECT DISTINCT set_code FROM printing") == [("MKC",)]
    assert rows(db, "SELECT count(*) FROM card") == [(1,)]
    assert rows(db, "SELECT count(*) FROM card_ruling") == [(16,)]


def test_gzipped_json_lines_are_preferred_when_offered(bulk_server, cli, data_dir):
    index = []
    for kind, body in bulk_server.files.items():
        lines = b"".join(json.dumps(i, ensure_ascii=False).encode() + b"\n" for i in json.loads(body))
        path = f"/files/{kind}.jsonl.gz"
        bulk_server.add_file(path, gzip.compress(lines), content_type="application/gzip")
        index.append({**_descriptor(kind, bulk_server.url + f"/files/{kind}.json", len(body)),
                      "jsonl_download_uri": bulk_server.url + path})
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": index}).encode(), "application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert "/files/default_cards.jsonl.gz" in [r.path for r in bulk_server.requests]
    assert rows(data_dir / "warehouse" / "casefile.duckdb", "SELECT count(*) FROM card_ruling") == [(153,)]


def test_a_descriptor_without_download_uris_fails_naming_them(bulk_server, cli):
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": [
        {"object": "bulk_data", "type": "default_cards", "size": 1}]}).encode(), "application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 65
    assert "neither jsonl_download_uri nor download_uri" in result.stderr


@pytest.mark.parametrize("change, named", [
    (lambda d: d.pop("type"), "no string field 'type' (missing)"),
    (lambda d: d.update(type=3), "no string field 'type' (a number)"),
    (lambda d: d.update(download_uri={"href": d["download_uri"]}), "download_uri is an object"),
    (lambda d: d.update(jsonl_download_uri=["x"]), "jsonl_download_uri is an array"),
    (lambda d: d.update(size=str(d["size"])), "size is a string"),
])
def test_an_index_field_that_is_missing_or_of_another_type_fails_naming_it(bulk_server, cli, data_dir, change, named):
    """A format change of /bulk-data is said, not read around: before, an entry whose ``type`` was
    missing gave "no 'default_cards' entry (types: )", a ``jsonl_download_uri`` of another type
    fell back to ``download_uri`` and a ``size`` of another type was taken for unknown."""
    index = json.loads(json.dumps(bulk_server.index))
    for entry in index:
        change(entry)
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": index}).encode(), "application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 65, result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    assert [r.path for r in bulk_server.requests] == ["/bulk-data"]
    assert not (data_dir / "warehouse" / "casefile.duckdb").exists()


def test_fields_the_index_adds_are_ignored(bulk_server, cli):
    index = json.loads(json.dumps(bulk_server.index))
    for entry in index:
        entry.update(compressed_size=123, mirrors={"eu": entry["download_uri"]}, updated_at=None)
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": index}).encode(), "application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr


def test_a_query_the_local_filter_cannot_evaluate_is_refused(bulk_server, cli, data_dir):
    result = cli("sync", "--api-url", bulk_server.url, "--query", "cmc>3", "--bulk", "always")
    assert result.returncode == 2 and "--bulk never" in result.stderr
    assert bulk_server.requests == []


def test_auto_takes_the_api_for_the_case_query_without_asking_for_the_index(bulk_server, cli):
    assert cli("sync", "--api-url", bulk_server.url, "--sources", "api").returncode == 0
    paths = [r.path for r in bulk_server.requests]
    assert "/bulk-data" not in paths and len(paths) == 1 + 15 + 4


def test_plan_fetches_only_what_it_needs(bulk_server, cli, data_dir):
    result = cli("sync", "--api-url", bulk_server.url, "--plan")
    assert result.returncode == 0, result.stderr
    assert "api: 20 requests" in result.stdout
    assert [r.path for r in bulk_server.requests] == ["/cards/search"]
    assert not (data_dir / "raw").exists()
    bulk_server.clear_log()
    result = cli("--log-format", "json", "sync", "--api-url", bulk_server.url, "--plan", "--bulk", "always",
                 "--query", "*")
    plan = json.loads(result.stdout)
    assert plan["chosen"] == "bulk" and plan["plans"]["bulk"]["requests"] == 4
    assert (plan["level"], plan["event"]) == ("info", "plan") and "ts" in plan  # dated, as every result line
    assert [r.path for r in bulk_server.requests] == ["/bulk-data"]
    # the live default sources name pages, which the bulk plan does not ask
    assert plan["pages"] is None
    assert "the page sources (wiki, listeblanche) are skipped" in " ".join(plan["notes"])


def _many_cards(bulk_server) -> None:
    """260 made-up cards (the sample's, renamed, each its own Oracle card), in the search and the
    bulk file: enough for --bulk auto to ask for the index."""
    english = [c for c in bulk_server.cards if c.get("lang") == "en"]
    cards = [{**english[i % len(english)], "id": str(uuid.UUID(int=i + 1)), "oracle_id": str(uuid.UUID(int=10**6 + i)),
              "name": f"{english[i % len(english)]['name']} {i}"} for i in range(260)]
    bulk_server.cards[:] = cards
    bulk_server.add_file("/files/default_cards.json", _array(cards), etag=ETAG, last_modified=LAST_MODIFIED)


def test_plan_with_auto_counts_the_requests_the_sync_then_makes(bulk_server, cli):
    """260 made-up cards (the sample's, renamed, each its own Oracle card): the API plan reaches 200
    requests, so --bulk auto asks for the index and takes the bulk files. The sync asks the first
    search page to choose, then the 4 requests of the bulk plan; the plan used to say 4."""
    _many_cards(bulk_server)
    plan = cli("--log-format", "json", "sync", "--api-url", bulk_server.url, "--query", "t:case", "--plan")
    assert plan.returncode == 0, plan.stderr
    plan = json.loads(plan.stdout)
    assert plan["chosen"] == "bulk"
    bulk_server.clear_log()
    result = cli("sync", "--api-url", bulk_server.url, "--query", "t:case", "--sources", "api")
    assert result.returncode == 0, result.stderr
    asked = [r.path for r in bulk_server.requests]
    assert asked == ["/cards/search", "/bulk-data", "/files/default_cards.json", "/files/rulings.json", "/sets"]
    assert f"a sync with --bulk auto makes {len(asked)} requests" in " ".join(plan["notes"])


def test_download_caps_and_retries(bulk_server, settings, tmp_path):
    store = RawStore(tmp_path / "raw")
    writer = store.new_run({"mode": "live"})
    client = HttpClient(settings.with_overrides(max_bulk_bytes=1024))  # the smallest cap a setting may give
    sink = writer.body_file("scryfall-api", bulk_server.url + "/files/rulings.json", ".json")
    with pytest.raises(SourceDataError, match="cap"):
        client.download(bulk_server.url + "/files/rulings.json", sink, pacing=[])
    sink.discard()
    bulk_server.add_fault("/files/rulings.json", "truncated", times=None)
    client = HttpClient(settings)
    sink = writer.body_file("scryfall-api", bulk_server.url + "/files/rulings.json", ".json")
    with pytest.raises(TryAgainLater):
        client.download(bulk_server.url + "/files/rulings.json", sink, pacing=[])
    sink.discard()
    assert len(bulk_server.requests_to("/files/rulings.json")) == 1 + settings.max_attempts


def test_a_prune_after_a_304_keeps_the_linked_files_and_points_the_warehouse_at_them(bulk_server, cli, data_dir):
    for _ in range(2):
        assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    first, second = RawStore(data_dir / "raw").complete_runs()
    db = data_dir / "warehouse" / "casefile.duckdb"
    bulk_docs = "SELECT path FROM raw_document WHERE kind IN ('bulk-cards', 'bulk-rulings') ORDER BY kind"
    assert all(path.startswith(first.run_id) for (path,) in rows(db, bulk_docs))

    result = cli("--log-format", "json", "prune", "--keep-days", "0")

    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["deleted"] == [first.run_id]
    # the two bulk files are hard links in the kept run: deleting the first run frees none of their bytes
    assert summary["bytes_freed"] < len(bulk_server.files["default_cards"])
    paths = [path for (path,) in rows(db, bulk_docs)]
    assert len(paths) == 2 and all(path.startswith(second.run_id) for path in paths)
    kept_docs = [json.loads(line)["doc_id"] for line in (second.path / "manifest.jsonl").read_text().splitlines()]
    kept_paths = rows(db, "SELECT path FROM raw_document WHERE list_contains($ids, doc_id)", {"ids": kept_docs})
    assert len(kept_paths) == len(set(kept_docs))
    assert all((data_dir / "raw" / path).is_file() for (path,) in kept_paths)
    assert cli("doctor").returncode == 0


def test_a_prune_points_the_sightings_of_a_deleted_rulings_file_at_the_kept_one_a_rebuild_reads(
        bulk_server, cli, data_dir):
    """The second day's rulings file re-words one ruling: the other sightings keep naming the
    first day's file, which the prune deletes. They are pointed at the kept run's file, the one a
    rebuild from the kept runs reads them from, so every sighting's document can still be opened
    and the rebuild gives the warehouse's sightings, document ids included."""
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    items = json.loads(bulk_server.files["rulings"])
    items[0]["comment"] = items[0]["comment"].rstrip(".") + ", as the rules say."
    bulk_server.add_file("/files/rulings.json", _array(items), etag='"v2"', last_modified=LAST_MODIFIED)
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    first, second = RawStore(data_dir / "raw").complete_runs()
    db = data_dir / "warehouse" / "casefile.duckdb"
    sightings = "SELECT * FROM ruling_sighting ORDER BY sighting_id"
    newest = rows(db, "SELECT doc_id FROM raw_document WHERE kind = 'bulk-rulings' AND run_id = $r", {"r": second.run_id})
    [(total,)] = rows(db, "SELECT count(*) FROM ruling_sighting")

    result = cli("--log-format", "json", "prune", "--keep-days", "0")

    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["deleted"] == [first.run_id]
    opened = rows(db, "SELECT DISTINCT d.path FROM ruling_sighting JOIN raw_document d USING (doc_id)")
    assert opened and all((data_dir / "raw" / path).is_file() for (path,) in opened), opened
    assert rows(db, "SELECT DISTINCT doc_id FROM ruling_sighting") == newest
    assert summary["sightings_repointed"] == total - 1
    assert cli("doctor").returncode == 0
    pruned = rows(db, sightings)
    assert cli("rebuild").returncode == 0
    assert rows(db, sightings) == pruned


def test_a_prune_points_the_sightings_of_a_query_at_its_own_kept_file_when_another_query_keeps_the_deleted_one(
        bulk_server, cli, data_dir):
    """Two bulk queries synced the same day read the same rulings file (one document). The next
    day `*` alone is synced with a re-worded ruling; a prune deletes the first `*` run, whose file
    the kept `set:mkc` run still holds. The sightings of `*` that named it are pointed at the file
    of the kept `*` run (the one a rebuild reads them from first), those of `set:mkc` stay: the
    rebuild gives the warehouse's sightings, document ids included."""
    for query in ("*", "set:mkc"):
        assert cli("sync", "--api-url", bulk_server.url, "--query", query, "--bulk", "always").returncode == 0
    items = json.loads(bulk_server.files["rulings"])
    items[0]["comment"] = items[0]["comment"].rstrip(".") + ", as the rules say."
    bulk_server.add_file("/files/rulings.json", _array(items), etag='"v2"', last_modified=LAST_MODIFIED)
    assert cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always").returncode == 0
    first, other, newest = RawStore(data_dir / "raw").complete_runs()
    db = data_dir / "warehouse" / "casefile.duckdb"
    sightings = "SELECT * FROM ruling_sighting ORDER BY sighting_id"

    result = cli("--log-format", "json", "prune", "--keep-days", "0")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["deleted"] == [first.run_id]
    pruned = rows(db, sightings)
    assert cli("rebuild").returncode == 0
    assert rows(db, sightings) == pruned


@pytest.mark.parametrize("bulk", ["auto", "never"])
def test_a_first_search_page_that_is_not_an_object_is_refused_and_kept(bulk_server, cli, data_dir, bulk):
    """Valid JSON that is not a list object (``[]``): the same clean 65 whichever --bulk, the page kept."""
    bulk_server.add_page("/cards/search", b"[]", content_type="application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--sources", "api", "--bulk", bulk)
    assert result.returncode == 65, result.stderr
    assert "Traceback" not in result.stderr and "list object" in result.stderr
    [run] = RawStore(data_dir / "raw").runs()
    assert run.status == "failed"
    kept = [json.loads(line) for line in (run.path / "manifest.jsonl").read_text().splitlines()]
    assert [(e["kind"], (run.path / e["path"]).read_bytes()) for e in kept] == [("search", b"[]")]


def test_plan_refuses_a_first_search_page_that_is_not_an_object(bulk_server, cli, data_dir):
    bulk_server.add_page("/cards/search", b"[]", content_type="application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--plan")
    assert result.returncode == 65, result.stderr
    assert "Traceback" not in result.stderr and "list object" in result.stderr
    assert not (data_dir / "raw").exists()


def _no_secret_written(data_dir, secret: bytes) -> None:
    """Nothing casefile writes of its own (manifest, run.json, _FAILED) holds the secret; the bodies
    kept are the source's, as it sent them."""
    for path in (data_dir / "raw").rglob("*"):
        if path.is_file() and "docs" not in path.parts:
            assert secret not in path.read_bytes(), path


def test_a_bulk_download_uri_with_credentials_is_never_asked(bulk_server, cli, data_dir):
    index = [_descriptor(kind, bulk_server.url.replace("://", "://casefile:hunter2@") + f"/files/{kind}.json",
                         len(body)) for kind, body in bulk_server.files.items()]
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": index}).encode(), "application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 65, result.stderr
    assert "credentials" in result.stderr and "hunter2" not in result.stdout + result.stderr
    assert [r.path for r in bulk_server.requests] == ["/bulk-data"]
    _no_secret_written(data_dir, b"hunter2")


def test_a_bulk_download_redirected_to_a_url_with_credentials_is_refused(bulk_server, cli, data_dir):
    host = bulk_server.url.split("//")[1]
    bulk_server.add_fault("/files/default_cards.json", "redirect",
                          location=f"http://casefile:hunter2@{host}/files/default_cards.json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 69, result.stderr
    assert "credentials" in result.stderr and "hunter2" not in result.stdout + result.stderr
    asked = bulk_server.requests_to("/files/default_cards.json")
    assert len(asked) == 1 and "Authorization" not in asked[0].headers
    _no_secret_written(data_dir, b"hunter2")


@pytest.mark.parametrize("fault, reason", [("maintenance_html", "not a JSON bulk file"),
                                           ("truncated", "truncated body")])
def test_a_bulk_file_given_up_on_is_kept_in_quarantine_with_its_reason(bulk_server, cli, data_dir, fault, reason):
    bulk_server.add_fault("/files/default_cards.json", fault, times=None)
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always",
                 CASEFILE_BACKOFF_BASE="0.05", CASEFILE_BACKOFF_MAX="0.1")
    assert result.returncode == 75, result.stderr
    [run] = RawStore(data_dir / "raw").runs()
    assert run.status == "failed"
    entries = [json.loads(line) for line in (run.path / "manifest.jsonl").read_text().splitlines()]
    [kept] = [e for e in entries if e.get("quarantined")]
    assert kept["kind"] == "bulk-cards" and kept["quarantined"].startswith(reason)
    assert kept["url"] == bulk_server.url + "/files/default_cards.json" and kept["path"].startswith("quarantine/")
    body = (run.path / kept["path"]).read_bytes()
    assert len(body) == kept["bytes"] and hashlib.sha256(body).hexdigest() == kept["sha256"]
    if fault == "maintenance_html":
        assert body.startswith(b"<") and b"maintenance" in body.lower()
    assert not list((run.path / "docs").rglob(".*.tmp-*"))


def _jsonl_index(bulk_server, path_of, body_of, content_type):
    index = []
    for kind, body in bulk_server.files.items():
        lines = b"".join(json.dumps(i, ensure_ascii=False).encode() + b"\n" for i in json.loads(body))
        path = path_of(kind)
        bulk_server.add_file(path, body_of(lines), content_type=content_type)
        index.append({**_descriptor(kind, bulk_server.url + f"/files/{kind}.json", len(body)),
                      "jsonl_download_uri": bulk_server.url + path})
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": index}).encode(), "application/json")


@pytest.mark.parametrize("path_of, body_of", [
    (lambda kind: f"/files/{kind}.jsonl", gzip.compress),  # gzip whose URL does not say so
    (lambda kind: f"/files/{kind}-20240101", gzip.compress),
    (lambda kind: f"/files/{kind}.jsonl.gz", lambda lines: lines),  # a .gz URL whose body came unpacked
])
def test_a_json_lines_file_is_read_as_gzip_or_not_by_its_bytes_not_its_url(bulk_server, cli, data_dir, path_of, body_of):
    """CONSTRUCTED: Scryfall documents the bulk file as gzipped JSON lines and says how it is
    sent (content_encoding), not what its URL ends with; a host may also send a .gz file with
    Content-Encoding: gzip, which the HTTP client undoes. Before, the URL's suffix decided: a gzip
    body at a URL without .gz failed as "line 1 is not JSON", and a .gz URL whose body arrived
    unpacked was retried as "broken gzip data" and given up on."""
    _jsonl_index(bulk_server, path_of, body_of, "application/gzip")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always",
                 CASEFILE_BACKOFF_BASE="0.05", CASEFILE_BACKOFF_MAX="0.1")
    assert result.returncode == 0, result.stderr
    assert rows(data_dir / "warehouse" / "casefile.duckdb", "SELECT count(*) FROM card_ruling") == [(153,)]
    [run] = RawStore(data_dir / "raw").complete_runs()
    for entry in read_manifest(run):
        if entry.kind.startswith("bulk-") and entry.kind != "bulk-index":
            gzipped = (run.path / entry.path).read_bytes()[:2] == b"\x1f\x8b"
            assert entry.path.endswith(".gz") == gzipped, entry.path


def test_a_cut_gzip_body_at_a_url_without_gz_is_given_up_on(bulk_server, cli, data_dir):
    """CONSTRUCTED: gzip data cut short is refused whatever the URL's name; before, only a URL
    ending in .gz was unpacked as it streamed, and a cut body elsewhere was kept."""
    _jsonl_index(bulk_server, lambda kind: f"/files/{kind}.jsonl", lambda lines: gzip.compress(lines)[:-20],
                 "application/gzip")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always",
                 CASEFILE_BACKOFF_BASE="0.05", CASEFILE_BACKOFF_MAX="0.1")
    assert result.returncode == 75, result.stderr
    assert "gzip data cut short" in result.stderr


def _two_members(lines: bytes) -> tuple[bytes, bytes]:
    """``lines`` as two gzip members, split at a line's end (RFC 1952 lets a file hold several)."""
    half = lines.index(b"\n", len(lines) // 2) + 1
    return gzip.compress(lines[:half]), gzip.compress(lines[half:])


def test_a_gzip_body_of_two_members_is_taken_whole(bulk_server, cli, data_dir):
    """CONSTRUCTED: gzip files written in parts (pigz, or appended to) hold one member per part,
    which Python's gzip module and DuckDB both read as one stream."""
    _jsonl_index(bulk_server, lambda kind: f"/files/{kind}.jsonl.gz", lambda lines: b"".join(_two_members(lines)),
                 "application/gzip")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert rows(data_dir / "warehouse" / "casefile.duckdb", "SELECT count(*) FROM card_ruling") == [(153,)]


@pytest.mark.parametrize("body_of, problem", [
    (lambda lines: _two_members(lines)[0] + _two_members(lines)[1][:len(_two_members(lines)[1]) // 2],
     "gzip data cut short"),
    (lambda lines: gzip.compress(lines) + b"<html><body>Service unavailable</body></html>",
     "data after the end of the gzip stream"),
    (lambda lines: gzip.compress(lines) + b"\0" * 16, "data after the end of the gzip stream"),  # DuckDB refuses it
])
def test_a_gzip_body_whole_only_to_the_end_of_its_first_member_is_given_up_on(bulk_server, cli, data_dir,
                                                                            body_of, problem):
    """CONSTRUCTED: the download's check stopped at the end of the first gzip member, so a second
    member cut short, or an error page after the first, passed: the run was kept as complete, and
    the build's reader then failed on the file (exit 130, "interrupted", for the cut member; 1 for
    the page), in that sync and in every later one, which loaded that run first."""
    _jsonl_index(bulk_server, lambda kind: f"/files/{kind}.jsonl.gz", body_of, "application/gzip")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always",
                 CASEFILE_BACKOFF_BASE="0.05", CASEFILE_BACKOFF_MAX="0.1")
    assert result.returncode == 75, result.stderr
    assert problem in result.stderr
    assert not RawStore(data_dir / "raw").complete_runs()
    _jsonl_index(bulk_server, lambda kind: f"/files/{kind}.jsonl.gz", gzip.compress, "application/gzip")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr  # the next day's good files load
    assert rows(data_dir / "warehouse" / "casefile.duckdb", "SELECT count(*) FROM card_ruling") == [(153,)]


@pytest.mark.parametrize("tail", [b"<html></html>", b"\x1f\x8b\x08\x00"])
def test_a_kept_bulk_file_whose_gzip_breaks_after_its_first_member_is_a_parse_error(tmp_path, tail):
    """CONSTRUCTED: such a file, kept before the download's check saw past the first member, is
    refused by the reader as bad data (the run is rejected, 65) instead of raising EOFError or
    BadGzipFile, which a sync took for an interruption (130) or a bug (1)."""
    path = tmp_path / "cards.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"object": "card"}\n') + tail)
    items = iter_bulk_items(path, "run/cards.jsonl.gz")
    assert next(items) == {"object": "card"}
    with pytest.raises(ParseError, match="broken gzip data"):
        next(items)


def test_an_empty_jsonl_download_uri_is_taken_for_absent(bulk_server, cli, data_dir):
    """CONSTRUCTED: an index whose jsonl_download_uri is an empty string beside a download_uri.
    Before, the JSON array of download_uri was fetched but read as JSON lines ("line 1 is not JSON")."""
    index = [{**entry, "jsonl_download_uri": ""} for entry in bulk_server.index]
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "data": index}).encode(), "application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 0, result.stderr
    assert "/files/default_cards.json" in [r.path for r in bulk_server.requests]
    assert rows(data_dir / "warehouse" / "casefile.duckdb", "SELECT count(*) FROM card_ruling") == [(153,)]


@pytest.mark.parametrize("url, problem", [
    ("https:///files/rulings.json", "names no host"),
    ("http://[::1/files/rulings.json", "cannot be read"),
    ("https://files example/rulings.json", "names a host casefile cannot ask"),
    ("https://files.example:99999/rulings.json", "cannot be read"),
    ("ftp://bob:s3cret@files.example/rulings.json", "is not an HTTP URL"),
])
def test_a_bulk_url_that_cannot_be_asked_is_bad_data_not_a_crash(bulk_server, cli, url, problem):
    """CONSTRUCTED index entries. Before, a URL without a host, or whose IPv6 address or port does
    not parse, reached the HTTP library and ended in a traceback (exit 1); a non-HTTP one was
    printed with its credentials."""
    index = [d for d in bulk_server.index if d["type"] != "rulings"] + [_descriptor("rulings", url, 10)]
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "has_more": False, "data": index}).encode(),
                         content_type="application/json")
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always")
    assert result.returncode == 65, result.stderr
    assert f"the 'rulings' bulk entry's URL {problem}" in result.stderr
    assert "Traceback" not in result.stderr and "s3cret" not in result.stderr
    plan = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always", "--plan")
    assert f"rulings: its URL {problem}" in plan.stdout and "s3cret" not in plan.stdout


def test_auto_does_not_take_a_bulk_plan_the_index_cannot_serve(bulk_server, cli):
    """CONSTRUCTED: an index without its rulings entry. --bulk auto compared the plans' costs only
    and took the bulk plan it had just found would fail: a large query then failed with 65 every
    day, where the API plan works."""
    _many_cards(bulk_server)
    index = [d for d in bulk_server.index if d["type"] != "rulings"]
    bulk_server.add_page("/bulk-data", json.dumps({"object": "list", "has_more": False, "data": index}).encode(),
                         content_type="application/json")
    result = cli("--log-format", "json", "sync", "--api-url", bulk_server.url, "--query", "t:case", "--plan")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["chosen"] == "api"
    assert "the bulk data index cannot serve a bulk sync (rulings: missing from the index)" in result.stderr


def test_a_json_array_cut_after_one_of_its_objects_is_retried_then_given_up_on(bulk_server, cli, data_dir):
    """CONSTRUCTED: the array of a download_uri cut just after an object's closing brace. Its end
    looked like JSON to the download's check, so it was kept at the first answer and the build
    refused it (65, the run rejected); it is now retried, kept in quarantine/, and the run fails
    with 75 as for any cut body."""
    body = bulk_server.files["default_cards"]
    cut = body[:body.rindex(b"}", 0, len(body) // 2) + 1]
    bulk_server.add_file("/files/default_cards.json", cut, etag=ETAG, last_modified=LAST_MODIFIED)
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always",
                 CASEFILE_BACKOFF_BASE="0.05", CASEFILE_BACKOFF_MAX="0.1")
    assert result.returncode == 75, result.stderr
    assert "not a JSON bulk file" in result.stderr
    assert len(bulk_server.requests_to("/files/default_cards.json")) > 1
    [run] = RawStore(data_dir / "raw").runs()
    entries = [json.loads(line) for line in (run.path / "manifest.jsonl").read_text().splitlines()]
    [kept] = [e for e in entries if e.get("quarantined")]
    assert kept["kind"] == "bulk-cards" and kept["quarantined"].startswith("not a JSON bulk file")
    assert (run.path / kept["path"]).read_bytes() == cut


def test_a_bulk_file_that_trickles_in_is_given_up_on_once_the_read_timeout_is_spent(bulk_server, cli, data_dir):
    """CONSTRUCTED: the rulings file a byte every 50 ms, each byte well within the read timeout.
    The read timeout bounded each wait for bytes of a bulk download, not the whole: such a server
    held the sync, and its lock, until the file's last byte (or the 8 GiB cap)."""
    bulk_server.add_page("/files/rulings.json", bulk_server.files["rulings"], "application/json")
    bulk_server.add_fault("/files/rulings.json", "trickle", times=None, interval=0.05, chunk=1)
    started = time.monotonic()
    result = cli("sync", "--api-url", bulk_server.url, "--query", "*", "--bulk", "always",
                 CASEFILE_READ_TIMEOUT="1", CASEFILE_MAX_ATTEMPTS="2", CASEFILE_BACKOFF_BASE="0.05",
                 CASEFILE_BACKOFF_MAX="0.1")
    took = time.monotonic() - started
    assert result.returncode == 75, result.stderr
    assert "body too slow" in result.stderr and "under 64 KiB/s once the read timeout of 1 s is spent" in result.stderr
    assert len(bulk_server.requests_to("/files/rulings.json")) == 2
    assert took < 30, took  # the file's 49 kB at 20 bytes a second would take 41 minutes



def test_a_long_query_the_local_filter_refuses_is_cut_in_the_message():
    """The query of `--bulk always` was repeated whole, twice for a term the filter does not know."""
    from pipeline.errors import UsageError
    from pipeline.normalize.query import parse

    with pytest.raises(UsageError) as refused:
        parse("o:" + "x" * 30_000)
    message = str(refused.value)
    cut = repr("o:" + "x" * 78 + "…")
    assert f"cannot evaluate {cut} in {cut}" in message and len(message) < 400, message[:300]
