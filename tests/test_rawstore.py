import errno
import json

import pytest

from pipeline import rawstore
from pipeline.errors import SourceDataError, TryAgainLater
from pipeline.wire import Response
from pipeline.rawstore import RawStore, doc_id_for, read_manifest, read_run


def response(url="https://api.scryfall.com/cards/search?q=x", body=b'{"object":"list","data":[]}', status=200):
    return Response(url=url, final_url=url, status=status, headers={"content-type": "application/json"},
                    body=body, fetched_at="2026-11-30T00:00:00Z")


def test_a_run_keeps_exact_bytes_and_a_manifest(tmp_path):
    store = RawStore(tmp_path)
    writer = store.new_run({"mode": "live", "query": "q"})
    body = '{"object":"list","data":["é"]}'.encode()
    entry = writer.save(response(body=body), "scryfall-api", "search", key="1")
    writer.finish({"requests": 1, "bytes": len(body)})
    run = read_run(writer.path)
    assert run.complete and run.status == "complete"
    [line] = read_manifest(run)
    assert line == entry
    assert (writer.path / entry.path).read_bytes() == body
    assert entry.doc_id == doc_id_for(entry.url, body)
    assert json.loads((writer.path / "_SUCCESS").read_text())["documents"] == 1


def test_same_bytes_at_two_urls_are_two_documents():
    empty = b'{"object":"list","has_more":false,"data":[]}'
    assert doc_id_for("https://a/1", empty) != doc_id_for("https://a/2", empty)


def test_incomplete_and_failed_runs_are_not_complete(tmp_path):
    store = RawStore(tmp_path)
    a = store.new_run({"query": "q"})
    a.save(response(), "scryfall-api", "search")
    b = store.new_run({"query": "q"})
    b.fail("boom")
    c = store.new_run({"query": "q"})
    c.finish({})
    assert [r.status for r in store.runs()] == ["incomplete", "failed", "complete"]
    assert [r.run_id for r in store.complete_runs()] == [c.run_id]


def test_a_failure_whose_reason_holds_a_lone_surrogate_still_marks_the_run_failed(tmp_path):
    # a server's error text with "\ud800" in it: the mark's UTF-8 encoding failed, the sync
    # exited 1 (a bug) and left its run incomplete
    store = RawStore(tmp_path)
    run = store.new_run({"query": "q"})
    run.fail("Scryfall answered 400: bad \ud800 term")
    assert [r.status for r in store.runs()] == ["failed"]
    assert json.loads((run.path / "_FAILED").read_bytes())["reason"] == "Scryfall answered 400: bad \ufffd\ufffd\ufffd term"


def test_folders_that_are_not_runs_are_ignored(tmp_path):
    (tmp_path / "sample").mkdir()
    (tmp_path / "sample" / "run.json").write_text("{}")
    assert RawStore(tmp_path).runs() == []


def test_file_names_never_come_from_the_url(tmp_path):
    store = RawStore(tmp_path)
    writer = store.new_run({})
    entry = writer.save(response(url="https://x.test/../../../../etc/passwd%00.json"), "scryfall-api", "search")
    target = (writer.path / entry.path).resolve()
    assert writer.path.resolve() in target.parents
    assert ".." not in entry.path and "/" not in entry.path.split("/", 2)[-1]


def test_a_half_written_last_manifest_line_of_a_killed_run_is_ignored(tmp_path):
    store = RawStore(tmp_path)
    writer = store.new_run({})
    writer.save(response(), "scryfall-api", "search")
    with open(writer.path / "manifest.jsonl", "ab") as fh:
        fh.write(b'{"doc_id": "abc", "ori')
    assert len(read_manifest(read_run(writer.path))) == 1


def test_a_damaged_manifest_of_a_complete_run_is_an_error(tmp_path):
    store = RawStore(tmp_path)
    writer = store.new_run({})
    writer.save(response(), "scryfall-api", "search")
    writer.finish({})
    with open(writer.path / "manifest.jsonl", "ab") as fh:
        fh.write(b"garbage\n")
    with pytest.raises(SourceDataError):
        read_manifest(read_run(writer.path))


def test_earlier_pages_give_each_page_s_newest_answer_and_pass_over_a_manifest_that_cannot_be_read(tmp_path):
    """What a sync looks up when a page is not fetched or a source answers no page (constructed
    runs and bodies): the newest answer, whatever its status; the pages ever found; and a damaged
    manifest of an old run does not fail the sync that asks (doctor reports it)."""
    store = RawStore(tmp_path)
    page = "https://listeblanche.fr/carte/x"
    writers = [store.new_run({"query": "q"}, run_id=f"2026120{day}T000000.000000Z") for day in (1, 2, 3)]
    writers[0].save(response(page, b"<html>x</html>"), "listeblanche", "page", key="x")
    other = writers[0].save(response(page.replace("x", "y"), b"<html>y</html>"), "listeblanche", "page", key="y")
    gone = writers[1].save(response(page, b"gone", status=404), "listeblanche", "page", key="x")
    writers[2].save(response(page, b"<html>x again</html>"), "listeblanche", "page", key="x")
    for writer in writers:
        writer.finish({})
    with open(writers[2].path / "manifest.jsonl", "ab") as fh:
        fh.write(b"garbage\n")
    earlier = store.earlier_pages()  # the third run's manifest cannot be read: the 404 is the newest
    assert {key: (run.run_id, entry) for key, (run, entry) in earlier.newest.items()} == {
        ("listeblanche", "x"): (writers[1].run_id, gone), ("listeblanche", "y"): (writers[0].run_id, other)}
    assert earlier.found == {("listeblanche", "x"), ("listeblanche", "y")}


def test_no_temporary_files_are_left_behind(tmp_path):
    store = RawStore(tmp_path)
    writer = store.new_run({})
    for _ in range(3):
        writer.save(response(), "scryfall-api", "search")
    writer.finish({})
    assert not [p for p in writer.path.rglob("*") if ".tmp-" in p.name]


def test_a_full_disk_while_a_body_streams_in_is_try_again_later_and_leaves_no_partial_file(tmp_path, monkeypatch):
    writer = RawStore(tmp_path).new_run({})
    body = writer.body_file("scryfall-api", "https://data.scryfall.io/all-cards.json", ".json")
    body.write(b"[")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rawstore.os, "fsync", full)
    with pytest.raises(TryAgainLater, match="No space left on device"):
        body.commit()
    body.discard()
    writer.fail("full disk")
    assert not [p for p in writer.path.rglob("*") if ".tmp-" in p.name]
