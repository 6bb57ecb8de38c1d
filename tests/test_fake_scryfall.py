"""The FakeScryfall test double, checked from a real client (requests) over real sockets.

Card data is built from the recorded facts in fixtures/reference, so the double is exercised
with the same ids, names and rulings the project's other tests use.
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.support.fake_scryfall import FakeScryfall

REFERENCE = Path(__file__).parent / "fixtures" / "reference"
TIMEOUT = 5  # seconds; no test should wait on the server longer than this
USER_AGENT = "casefile-tests/0.1"

NO_MATCH = (
    "Your query didn’t match any cards. Adjust your search terms or refer to the syntax guide "
    "at https://scryfall.com/docs/syntax"
)


def _load(name: str):
    return json.loads((REFERENCE / name).read_text(encoding="utf-8"))


def reference_cards() -> list[dict]:
    """The 15 Case cards as English card objects, one per card, from their first printing."""
    cards = []
    for fact in _load("case_cards.json"):
        printing = fact["printings"][0]
        cards.append(
            {
                "id": fact["identifiers"]["scryfall_id"],
                "oracle_id": fact["identifiers"]["oracle_id"],
                "name": fact["name"],
                "lang": "en",
                "set": printing["set_code"].lower(),
                "set_name": printing["set_name"],
                "collector_number": printing["collector_number"],
                "type_line": fact["type_line"],
                "oracle_text": fact["oracle_text"],
                "layout": fact["layout"],
                "rarity": fact["rarity"],
            }
        )
    return cards


def french_cards(english: list[dict]) -> list[dict]:
    """French printings for the cards that have a French name.

    The fixture records no Scryfall ids for French printings, so the ids here are constructed
    (uuid5 of the English id); names, oracle ids and sets are the recorded ones.
    """
    by_key = {(c["set"], c["collector_number"]): c for c in english}
    cards = []
    for fact in _load("case_translations.json")["cards"]:
        french_name = fact["printed_names"].get("fr")
        if not french_name:
            continue
        en = by_key[(fact["set_code"].lower(), fact["collector_number"])]
        made_up_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"casefile-test:fr:{en['id']}"))
        cards.append({**en, "id": made_up_id, "lang": "fr", "printed_name": french_name})
    return cards


def reference_rulings() -> dict[str, list[dict]]:
    """Rulings keyed by oracle_id, with Scryfall's field names (the fixture says "text")."""
    return {
        fact["identifiers"]["oracle_id"]: [
            {"source": r["source"], "published_at": r["published_at"], "comment": r["text"]}
            for r in fact["rulings"]
        ]
        for fact in _load("case_cards.json")
        if fact["rulings"]
    }


def reference_sets() -> dict[str, dict]:
    sets = {}
    for fact in _load("case_cards.json"):
        printing = fact["printings"][0]
        code = printing["set_code"].lower()
        sets[code] = {"code": code, "name": printing["set_name"]}
    return sets


ENGLISH = reference_cards()
FRENCH = french_cards(ENGLISH)
RULINGS = reference_rulings()
SETS = reference_sets()
VISAGE = next(c for c in ENGLISH if c["name"] == "Case of the Shifting Visage")
LOST_WITNESS = next(c for c in ENGLISH if c["name"] == "Case of the Lost Witness")


@pytest.fixture
def fake():
    with FakeScryfall(ENGLISH + FRENCH, RULINGS, SETS) as server:
        yield server


@pytest.fixture
def http():
    with requests.Session() as session:
        session.headers["User-Agent"] = USER_AGENT
        session.headers["Accept"] = "application/json"
        yield session


def search(http, fake, q, **params):
    return http.get(f"{fake.url}/cards/search", params={"q": q, **params}, timeout=TIMEOUT)


def get(http, fake, path, **kwargs):
    return http.get(fake.url + path, timeout=TIMEOUT, **kwargs)


# --- the fixture data itself -----------------------------------------------------------------


def test_reference_data_has_the_expected_shape():
    assert len(ENGLISH) == 15
    assert len(FRENCH) == 13  # the two YMKM cards have no French printing
    assert len(RULINGS) == 13  # the two YMKM cards have no rulings
    assert set(SETS) == {"mkm", "mkc", "ymkm"}


# --- /cards/search ---------------------------------------------------------------------------


def test_search_pages_follow_next_page(http):
    with FakeScryfall(ENGLISH, RULINGS, SETS, page_size=5) as fake:
        url = f"{fake.url}/cards/search?q=type%3A%22Case%22&unique=prints"
        pages = []
        while url:
            body = http.get(url, timeout=TIMEOUT).json()
            pages.append(body)
            url = body.get("next_page")

    assert len(pages) == 3
    assert [p["has_more"] for p in pages] == [True, True, False]
    assert all(p["object"] == "list" and p["total_cards"] == 15 for p in pages)
    assert "next_page" not in pages[-1]
    names = [card["name"] for p in pages for card in p["data"]]
    assert names == [c["name"] for c in ENGLISH]  # input order, no card twice
    assert all(card["object"] == "card" for p in pages for card in p["data"])


def test_next_page_is_absolute_and_keeps_the_parameters(http, fake):
    fake.page_size = 4
    body = search(http, fake, "t:case", unique="prints", include_multilingual="true").json()
    split = urlsplit(body["next_page"])
    assert f"{split.scheme}://{split.netloc}" == fake.url
    assert split.path == "/cards/search"
    assert parse_qs(split.query) == {
        "q": ["t:case"],
        "unique": ["prints"],
        "include_multilingual": ["true"],
        "page": ["2"],
    }


def test_a_page_past_the_last_is_not_found(http, fake):
    r = search(http, fake, "t:case", unique="prints", page=2)
    assert r.status_code == 404
    assert r.json()["code"] == "not_found"


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ('type:"Case"', 15),
        ("type:case", 15),
        ("t:CASE", 15),
        ("t:enchantment", 15),
        ("set:mkm", 12),
        ("e:MKC", 1),
        ("e:ymkm", 2),
        ('name:"Case of the Shifting Visage"', 1),
        ("visage", 1),
        ('"gorgon\'s kiss"', 1),
        ("*", 15),
        ("", 15),
        ("t:case e:ymkm", 2),  # terms are ANDed
        ("t:case -e:mkm", 3),  # "-" negates a term
        ("-e:mkm t:case", 3),
        ("-e:mkm -e:ymkm", 1),
    ],
)
def test_search_query_forms(http, fake, q, expected):
    body = search(http, fake, q, unique="prints").json()
    assert body["total_cards"] == expected


def test_search_is_english_unless_multilingual(http, fake):
    english = search(http, fake, "t:case", unique="prints").json()
    assert {c["lang"] for c in english["data"]} == {"en"}
    assert english["total_cards"] == 15

    everything = search(http, fake, "t:case", unique="prints", include_multilingual="true").json()
    assert everything["total_cards"] == 28
    french = [c for c in everything["data"] if c["lang"] == "fr"]
    assert {c["printed_name"] for c in french} >= {"Affaire du Pacte fracassé"}


def test_unique_cards_keeps_one_printing_per_oracle_id(http, fake):
    body = search(http, fake, "t:case", unique="cards", include_multilingual="true").json()
    assert body["total_cards"] == 15
    assert len({c["oracle_id"] for c in body["data"]}) == 15


def test_search_without_a_match_is_scryfalls_404(http, fake):
    r = search(http, fake, 'name:"Case of the Missing Fixture"', unique="prints")
    assert r.status_code == 404
    assert r.json() == {"object": "error", "code": "not_found", "status": 404, "details": NO_MATCH}


def test_search_with_an_unknown_keyword_is_scryfalls_400(http, fake):
    r = search(http, fake, "badop:x", unique="prints")
    assert r.status_code == 400
    assert r.json() == {
        "object": "error",
        "code": "bad_request",
        "status": 400,
        "details": "All of your terms were ignored.",
        "warnings": ["Invalid expression “badop:x” was ignored. Unknown keyword “badop”."],
    }


# --- /cards/{id}/rulings ---------------------------------------------------------------------


def test_rulings_by_card_id(http, fake):
    body = get(http, fake, f"/cards/{VISAGE['id']}/rulings").json()
    assert body["object"] == "list" and body["has_more"] is False
    assert len(body["data"]) == 16
    first = body["data"][0]
    assert set(first) == {"object", "oracle_id", "source", "published_at", "comment"}
    assert first["object"] == "ruling"
    assert first["oracle_id"] == VISAGE["oracle_id"]
    assert first["comment"] == RULINGS[VISAGE["oracle_id"]][0]["comment"]


def test_rulings_by_oracle_id_and_by_a_translated_printing(http, fake):
    by_oracle = get(http, fake, f"/cards/{VISAGE['oracle_id']}/rulings").json()
    french = next(c for c in FRENCH if c["oracle_id"] == VISAGE["oracle_id"])
    by_french_id = get(http, fake, f"/cards/{french['id']}/rulings").json()
    assert by_oracle == by_french_id
    assert len(by_oracle["data"]) == 16


def test_a_known_card_without_rulings_has_an_empty_list(http, fake):
    body = get(http, fake, f"/cards/{LOST_WITNESS['id']}/rulings").json()
    assert body == {"object": "list", "has_more": False, "data": []}


def test_rulings_of_an_unknown_id_is_scryfalls_404(http, fake):
    r = get(http, fake, f"/cards/{uuid.UUID(int=0)}/rulings")
    assert r.status_code == 404
    assert r.json() == {
        "object": "error",
        "code": "not_found",
        "status": 404,
        "details": "No card found with the given ID or set code and collector number.",
    }


def test_data_changed_between_requests_is_served(http, fake):
    oracle_id = LOST_WITNESS["oracle_id"]
    fake.rulings = {
        **RULINGS,
        oracle_id: [
            {"source": "wotc", "published_at": "2024-03-01", "comment": "A ruling published later."}
        ],
    }
    body = get(http, fake, f"/cards/{oracle_id}/rulings").json()
    assert [r["comment"] for r in body["data"]] == ["A ruling published later."]


# --- /sets/{code} ----------------------------------------------------------------------------


def test_sets_by_code_any_case(http, fake):
    for code in ("mkm", "MKM"):
        assert get(http, fake, f"/sets/{code}").json() == {
            "object": "set",
            "code": "mkm",
            "name": "Murders at Karlov Manor",
        }


def test_unknown_set_is_a_404_error_object(http, fake):
    r = get(http, fake, "/sets/zzz")
    assert r.status_code == 404
    assert r.json()["object"] == "error" and r.json()["code"] == "not_found"


# --- pages and HTTP behaviour ----------------------------------------------------------------


def test_static_pages_and_robots_txt(http, fake):
    assert get(http, fake, "/robots.txt").status_code == 404
    fake.add_page("/robots.txt", b"User-agent: *\nDisallow:\n", "text/plain; charset=utf-8")
    fake.add_page("/wiki/Affaire_du_Pacte_fracassé", b"<p>Affaire</p>", status=200)

    robots = get(http, fake, "/robots.txt")
    assert robots.status_code == 200 and robots.text.startswith("User-agent: *")
    assert robots.headers["Content-Type"] == "text/plain; charset=utf-8"
    page = get(http, fake, "/wiki/Affaire_du_Pacte_fracassé", params={"oldid": "1"})
    assert page.text == "<p>Affaire</p>"
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert fake.requests[-1].path == "/wiki/Affaire_du_Pacte_fracassé"


@pytest.mark.parametrize(
    "path",
    ["/cards/search?q=t:case", "/cards/search?q=nothing", "/sets/mkm", "/sets/zzz", "/nowhere"],
)
def test_json_answers_carry_type_and_length(http, fake, path):
    r = get(http, fake, path)
    assert r.headers["Content-Type"] == "application/json; charset=utf-8"
    assert int(r.headers["Content-Length"]) == len(r.content)
    json.loads(r.content)


def test_a_session_keeps_one_connection_alive(http, fake):
    for path in ("/sets/mkm", "/sets/zzz", "/cards/search?q=visage"):
        get(http, fake, path)
    assert len({r.client for r in fake.requests}) == 1


def test_answers_on_a_kept_alive_connection_are_sent_without_nagle_s_delay(http, fake, monkeypatch):
    # Pacing tests read gaps between requests from the log; the server must not add its own.
    # With Nagle's algorithm on, an answer's body, written after its headers, waited ~40 ms for a
    # delayed ACK on a kept-alive connection: every connection the double answers on has it off.
    from tests.support import fake_scryfall

    seen = []
    handle = fake_scryfall._Handler.handle

    def noting(self):
        seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        return handle(self)

    monkeypatch.setattr(fake_scryfall._Handler, "handle", noting)
    for _ in range(3):
        assert get(http, fake, "/sets/mkm").ok
    assert seen and all(seen)


def test_url_needs_a_started_server_and_stop_closes_it(http):
    fake = FakeScryfall(ENGLISH, RULINGS, SETS)
    with pytest.raises(RuntimeError):
        _ = fake.url
    fake.start()
    url = fake.url
    assert url.startswith("http://127.0.0.1:")
    assert get(http, fake, "/sets/mkm").ok
    fake.stop()
    fake.stop()  # a second stop does nothing
    with pytest.raises(requests.ConnectionError):
        requests.get(url + "/sets/mkm", timeout=TIMEOUT)


# --- the request log -------------------------------------------------------------------------


def test_the_log_records_time_path_query_and_headers(http, fake):
    before = time.monotonic()
    search(http, fake, "t:case", unique="prints")
    time.sleep(0.1)
    get(http, fake, "/sets/mkm")
    after = time.monotonic()

    first, second = fake.requests
    assert before <= first.t < second.t <= after
    assert second.t - first.t >= 0.1
    assert (first.method, first.path, first.query) == (
        "GET",
        "/cards/search",
        {"q": "t:case", "unique": "prints"},
    )
    assert first.headers["User-Agent"] == USER_AGENT
    assert first.headers["Accept"] == "application/json"
    assert first.fault is None
    assert [r.path for r in fake.requests_to("/sets/")] == ["/sets/mkm"]

    fake.clear_log()
    assert fake.requests == []


# --- faults ----------------------------------------------------------------------------------


def test_429_with_retry_after_then_normal_service(http, fake):
    fake.add_fault("/cards/search", "429", retry_after=2)
    limited = search(http, fake, "t:case")
    assert limited.status_code == 429
    assert limited.headers["Retry-After"] == "2"
    assert limited.headers["Content-Type"] == "application/json; charset=utf-8"
    assert limited.json()["object"] == "error"
    assert limited.json()["code"] == "rate_limited"
    assert limited.json()["status"] == 429

    assert search(http, fake, "t:case").status_code == 200
    assert [r.fault for r in fake.requests] == ["429", None]


def test_5xx_as_error_object_or_html(http, fake):
    fake.add_fault("/sets/", "503", retry_after=7)
    fake.add_fault("/sets/", "500", html=True)
    unavailable = get(http, fake, "/sets/mkm")
    assert unavailable.status_code == 503
    assert unavailable.headers["Retry-After"] == "7"
    assert unavailable.json()["object"] == "error" and unavailable.json()["status"] == 503
    broken = get(http, fake, "/sets/mkm")
    assert broken.status_code == 500
    assert broken.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "500 Internal Server Error" in broken.text


def test_truncated_body_is_seen_as_an_incomplete_read(http, fake):
    fake.add_fault("/sets/", "truncated")
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        get(http, fake, "/sets/mkm")
    assert get(http, fake, "/sets/mkm").json()["code"] == "mkm"  # a new connection is fine


def test_truncated_body_sends_half_then_closes(fake):
    fake.add_fault("/sets/", "truncated")
    port = int(fake.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(b"GET /sets/mkm HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):  # ends when the server closes
            received += chunk
    head, body = received.split(b"\r\n\r\n", 1)
    status_line, *header_lines = head.split(b"\r\n")
    headers = dict(line.split(b": ", 1) for line in header_lines)
    length = int(headers[b"Content-Length"])
    assert status_line.startswith(b"HTTP/1.1 200")
    assert len(body) == length // 2 < length


def test_invalid_json_and_maintenance_page(http, fake):
    fake.add_fault("/cards/search", "invalid_json")
    fake.add_fault("/cards/search", "maintenance_html")
    bad = search(http, fake, "t:case")
    assert bad.status_code == 200
    assert bad.headers["Content-Type"] == "application/json; charset=utf-8"
    with pytest.raises(requests.JSONDecodeError):
        bad.json()
    maintenance = search(http, fake, "t:case")
    assert maintenance.status_code == 200
    assert maintenance.headers["Content-Type"].startswith("text/html")
    assert "maintenance" in maintenance.text


def test_slow_answers_late_but_normally(http, fake):
    fake.add_fault("/sets/", "slow", delay=0.3)
    started = time.monotonic()
    r = get(http, fake, "/sets/mkm")
    assert time.monotonic() - started >= 0.3
    assert r.json()["code"] == "mkm"

    fake.add_fault("/sets/", "slow", delay=2)
    with pytest.raises(requests.exceptions.ReadTimeout):
        http.get(f"{fake.url}/sets/mkm", timeout=0.2)


def test_oversized_body_has_the_requested_size(http, fake):
    fake.add_fault("/cards/search", "oversized", size=200_000)
    r = search(http, fake, "t:case")
    assert len(r.content) == int(r.headers["Content-Length"]) == 200_000
    assert r.json()["object"] == "list"


def test_redirect_off_host_and_on_host(http, fake):
    fake.add_fault("/cards/", "redirect", location="http://example.invalid/x")
    off_host = get(http, fake, f"/cards/{VISAGE['id']}/rulings", allow_redirects=False)
    assert off_host.status_code == 302
    assert off_host.headers["Location"] == "http://example.invalid/x"

    fake.add_fault("/sets/old", "redirect", location="/sets/mkm", status=301)
    followed = get(http, fake, "/sets/old")
    assert [h.status_code for h in followed.history] == [301]
    assert followed.json()["code"] == "mkm"
    assert [r.path for r in fake.requests][-2:] == ["/sets/old", "/sets/mkm"]


def test_reset_is_a_connection_error(http, fake):
    fake.add_fault("/cards/search", "reset")
    with pytest.raises(requests.ConnectionError):
        search(http, fake, "t:case")
    assert fake.requests[-1].fault == "reset"
    assert search(http, fake, "t:case").ok


def test_hang_times_out_and_stop_releases_it(http):
    fake = FakeScryfall(ENGLISH, RULINGS, SETS).start()
    fake.add_fault("/", "hang", delay=60)
    with pytest.raises(requests.exceptions.ReadTimeout):
        http.get(f"{fake.url}/sets/mkm", timeout=0.2)
    started = time.monotonic()
    fake.stop()
    assert time.monotonic() - started < 2


def test_trickle_sends_the_body_a_little_at_a_time(http, fake):
    fake.add_fault("/sets/", "trickle", interval=0.02, chunk=8)
    started = time.monotonic()
    r = http.get(f"{fake.url}/sets/mkm", timeout=0.2, stream=True)
    pieces = list(iter(lambda: r.raw.read1(1 << 16), b""))
    body = b"".join(pieces)
    assert len(body) == int(r.headers["Content-Length"]) and json.loads(body)["code"] == "mkm"
    assert len(pieces) > 1  # the body came in pieces, each read returning what had arrived
    assert time.monotonic() - started >= 0.02 * (-(-len(body) // 8))
    assert fake.requests[-1].fault == "trickle"


def test_status_fault_sends_any_status_and_body(http, fake):
    fake.add_fault("/sets/", "status", status=418, body={"object": "error", "code": "teapot"})
    fake.add_fault(
        "/sets/",
        "status",
        status=502,
        body="<h1>Bad gateway</h1>",
        content_type="text/html; charset=utf-8",
    )
    teapot = get(http, fake, "/sets/mkm")
    assert teapot.status_code == 418 and teapot.json()["code"] == "teapot"
    gateway = get(http, fake, "/sets/mkm")
    assert gateway.status_code == 502 and gateway.text == "<h1>Bad gateway</h1>"


def test_faults_expire_after_times_and_apply_in_order(http, fake):
    fake.add_fault("/sets/", "429", times=2)
    fake.add_fault("/sets/", "503")
    statuses = [get(http, fake, "/sets/mkm").status_code for _ in range(4)]
    assert statuses == [429, 429, 503, 200]
    assert [r.fault for r in fake.requests] == ["429", "429", "503", None]


def test_a_fault_forever_until_cleared_and_only_under_its_prefix(http, fake):
    fake.add_fault("/sets/", "503", times=None)
    assert [get(http, fake, "/sets/mkm").status_code for _ in range(3)] == [503, 503, 503]
    assert search(http, fake, "t:case").status_code == 200
    fake.clear_faults()
    assert get(http, fake, "/sets/mkm").status_code == 200


def test_concurrent_requests_share_out_faults_exactly(fake):
    fake.add_fault("/sets/", "503", times=5)

    def fetch(_):
        return requests.get(f"{fake.url}/sets/mkm", timeout=TIMEOUT).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(fetch, range(20)))
    assert sorted(statuses) == [200] * 15 + [503] * 5
    assert len(fake.requests) == 20
    assert sum(r.fault == "503" for r in fake.requests) == 5


@pytest.mark.parametrize(
    ("kind", "times", "params"),
    [
        ("teapot", 1, {}),  # no such kind
        ("slow", 1, {"delays": 1}),  # a misspelt parameter
        ("429", 0, {}),  # times must be positive
        ("oversized", 1, {"size": 10}),  # smaller than any padded body
    ],
)
def test_add_fault_rejects_what_it_cannot_do(fake, kind, times, params):
    with pytest.raises(ValueError):
        fake.add_fault("/", kind, times=times, **params)
