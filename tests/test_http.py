"""Request-level behaviour of the one HTTP client, with `responses` standing in for the server.

Timing and pacing over real sockets are tested in test_sync_live.py against a loopback server."""

import gzip
import json
import zlib

import pytest
import requests
import responses

from pipeline.errors import RateLimited, SourceDataError, SourceUnavailable, TryAgainLater
from pipeline.extract.http import (PACING_MARGIN_S, GzipCheck, HttpClient, Pacer, json_body_check,
                                   parse_retry_after)
from pipeline.wire import BodyProblem

API = "https://api.scryfall.com"
OK = {"object": "list", "has_more": False, "data": []}


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.slept = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def client(settings, clock):
    return HttpClient(settings.with_overrides(contact="ops@example.org"), clock=clock.clock, sleep=clock.sleep)


def get(client, url=f"{API}/cards/x/rulings", **kw):
    return client.get(url, pacing=[("api", 0.1)], check_body=json_body_check, **kw)


@responses.activate
def test_every_request_identifies_itself(client):
    responses.get(f"{API}/cards/x/rulings", json=OK)
    get(client)
    sent = responses.calls[0].request.headers
    assert sent["User-Agent"].startswith("casefile/") and "ops@example.org" in sent["User-Agent"]
    assert sent["Accept"] == "application/json"


@responses.activate
def test_5xx_is_retried_with_backoff_then_succeeds(client, clock):
    responses.get(f"{API}/cards/x/rulings", status=503)
    responses.get(f"{API}/cards/x/rulings", json=OK)
    r = get(client)
    assert r.status == 200 and r.attempts == 2
    assert client.traffic.requests == 2 and client.traffic.retries == 1


@responses.activate
def test_5xx_storm_ends_with_try_again_later(client):
    responses.get(f"{API}/cards/x/rulings", status=502)
    with pytest.raises(TryAgainLater) as info:
        get(client)
    assert "3 attempts" in str(info.value) and "HTTP 502" in str(info.value)
    assert len(responses.calls) == 3


@responses.activate
def test_429_waits_retry_after_at_least_the_minimum(settings, clock):
    c = HttpClient(settings.with_overrides(retry_after_min_s=2.0, retry_after_max_s=10.0), clock=clock.clock, sleep=clock.sleep)
    responses.get(f"{API}/cards/x/rulings", status=429, headers={"Retry-After": "1"})
    responses.get(f"{API}/cards/x/rulings", json=OK)
    assert get(c).status == 200
    assert ("429 Retry-After", 2.0) in c.traffic.waits  # asked 1 s, the floor is 2 s


@responses.activate
def test_429_longer_than_the_cap_stops_at_once(settings, clock):
    c = HttpClient(settings.with_overrides(retry_after_max_s=5.0), clock=clock.clock, sleep=clock.sleep)
    responses.get(f"{API}/cards/x/rulings", status=429, headers={"Retry-After": "3600"})
    with pytest.raises(RateLimited):
        get(c)
    assert len(responses.calls) == 1 and clock.slept == []


@pytest.mark.parametrize("status", [408, 425])
@responses.activate
def test_request_timeout_and_too_early_are_retried_as_a_5xx_is(client, status):
    """408 and 425 say the same request may succeed later. Before, they were returned as an
    answer: a rulings page that answered 408 once lost its card's sightings from the site."""
    responses.get(f"{API}/cards/x/rulings", status=status)
    responses.get(f"{API}/cards/x/rulings", json=OK)
    r = get(client)
    assert r.status == 200 and r.attempts == 2 and client.traffic.retries == 1


@pytest.mark.parametrize("retry_after", ["0", "Wed, 21 Oct 2015 07:28:00 GMT"])
@responses.activate
def test_a_5xx_asking_to_retry_at_once_still_waits_the_backoff(settings, clock, retry_after):
    """CONSTRUCTED: a Retry-After of 0 or a date past took the backoff's place: every attempt
    went out at the pacing's speed, and none was counted as a retry."""
    c = HttpClient(settings.with_overrides(backoff_base_s=1.0, backoff_max_s=8.0), clock=clock.clock,
                   sleep=clock.sleep)
    responses.get(f"{API}/cards/x/rulings", status=503, headers={"Retry-After": retry_after})
    with pytest.raises(TryAgainLater):
        get(c)
    assert [seconds for reason, seconds in c.traffic.waits] == [1.0, 2.0] and c.traffic.retries == 2


@responses.activate
def test_a_5xx_asking_for_longer_than_the_backoff_is_waited_as_asked(settings, clock):
    c = HttpClient(settings.with_overrides(backoff_base_s=1.0, retry_after_max_s=10.0), clock=clock.clock,
                   sleep=clock.sleep)
    responses.get(f"{API}/cards/x/rulings", status=503, headers={"Retry-After": "7"})
    responses.get(f"{API}/cards/x/rulings", json=OK)
    assert get(c).status == 200
    assert c.traffic.waits == [("Retry-After of an HTTP 503", 7.0)] and c.traffic.retries == 1


@responses.activate
def test_a_429_to_the_last_attempt_gives_up_without_waiting_first(settings, clock):
    """Before, the last 429's Retry-After was waited out (up to the cap, 120 s by default) before
    giving up, with no request after it."""
    c = HttpClient(settings.with_overrides(retry_after_min_s=3.0, retry_after_max_s=10.0), clock=clock.clock,
                   sleep=clock.sleep)
    responses.get(f"{API}/cards/x/rulings", status=429, headers={"Retry-After": "3"})
    with pytest.raises(TryAgainLater, match="HTTP 429"):
        get(c)
    assert len(responses.calls) == 3
    assert [w for w in c.traffic.waits if w[0] == "429 Retry-After"] == [("429 Retry-After", 3.0)] * 2


@responses.activate
def test_invalid_json_on_200_is_retried_then_refused_with_the_body(client):
    responses.get(f"{API}/cards/x/rulings", body=b"{not json", content_type="application/json")
    with pytest.raises(SourceDataError) as info:
        get(client)
    assert "invalid JSON" in str(info.value)
    assert info.value.bad_response.body == b"{not json"
    assert len(responses.calls) == 3


@responses.activate
def test_html_maintenance_page_on_200_is_retried(client):
    responses.get(f"{API}/cards/x/rulings", body="<html>down for maintenance</html>", content_type="text/html")
    responses.get(f"{API}/cards/x/rulings", json=OK)
    assert get(client).attempts == 2


@responses.activate
def test_a_maintenance_page_to_the_end_is_try_again_later_with_the_page(client):
    responses.get(f"{API}/cards/x/rulings", body="<html>down for maintenance</html>", content_type="text/html")
    with pytest.raises(TryAgainLater) as info:
        get(client)
    assert info.value.bad_response.body == b"<html>down for maintenance</html>"
    assert info.value.bad_reason.startswith("an HTML page")


@responses.activate
def test_json_nested_too_deep_is_an_invalid_body_not_a_crash(client):
    responses.get(f"{API}/cards/x/rulings", body=b"[" * 100_000, content_type="application/json")
    with pytest.raises(SourceDataError) as info:
        get(client)
    assert "RecursionError" in str(info.value)


@responses.activate
def test_a_redirect_to_a_url_with_credentials_is_refused_and_not_printed(client):
    responses.get(f"{API}/cards/x/rulings", status=302, headers={"Location": "https://user:hunter2@api.scryfall.com/y"})
    with pytest.raises(SourceUnavailable) as info:
        get(client)
    assert "credentials" in str(info.value) and "hunter2" not in str(info.value)


def test_a_url_with_credentials_is_never_asked(client):
    with pytest.raises(SourceDataError) as info:
        get(client, url="https://user:hunter2@api.scryfall.com/cards/x/rulings")
    assert "hunter2" not in str(info.value) and client.traffic.requests == 0


@responses.activate
def test_oversized_body_is_refused(settings, clock):
    c = HttpClient(settings.with_overrides(max_bytes=2048), clock=clock.clock, sleep=clock.sleep)
    responses.get(f"{API}/cards/x/rulings", body=json.dumps({"pad": "x" * 5000}), content_type="application/json")
    with pytest.raises(SourceDataError) as info:
        get(c)
    assert "cap" in str(info.value)


@responses.activate
@pytest.mark.parametrize("attempts, said", [(1, "gave up after 1 attempt;"), (2, "gave up after 2 attempts;")])
def test_a_give_up_counts_its_attempts_in_words_that_agree(settings, clock, attempts, said):
    """One attempt (CASEFILE_MAX_ATTEMPTS=1, doctor --online's probe) read "1 attempts"."""
    responses.get(f"{API}/cards/x/rulings", status=503)
    client = HttpClient(settings.with_overrides(max_attempts=attempts), clock=clock.clock, sleep=clock.sleep)
    with pytest.raises(TryAgainLater) as info:
        get(client)
    assert str(info.value) == f"{API}/cards/x/rulings: {said} last problem: HTTP 503"


@responses.activate
def test_connection_errors_are_retried(client):
    responses.get(f"{API}/cards/x/rulings", body=requests.ConnectionError("refused"))
    responses.get(f"{API}/cards/x/rulings", json=OK)
    assert get(client).attempts == 2


def test_a_connection_refused_says_why_in_its_last_problem(client):
    """A real connection to a loopback port nobody listens on. The message was requests' whole
    text cut at 160 characters, which stopped at "(Caused by NewConnec..." and lost the why."""
    import socket

    with socket.socket() as probe:  # a port just free: nobody listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(TryAgainLater) as caught:
        get(client, f"http://127.0.0.1:{port}/cards/x/rulings")
    assert str(caught.value).endswith("last problem: connection failed: NewConnectionError: Failed to establish a "
                                      "new connection: [Errno 111] Connection refused")


@responses.activate
def test_redirect_to_another_host_is_refused(client):
    responses.get(f"{API}/cards/x/rulings", status=302, headers={"Location": "https://evil.example/steal"})
    with pytest.raises(SourceUnavailable) as info:
        get(client)
    assert "evil.example" in str(info.value)


@responses.activate
def test_redirect_within_the_host_is_followed(client):
    responses.get(f"{API}/cards/x/rulings", status=301, headers={"Location": "/cards/y/rulings"})
    responses.get(f"{API}/cards/y/rulings", json=OK)
    r = get(client)
    assert r.final_url == f"{API}/cards/y/rulings" and r.url == f"{API}/cards/x/rulings"


@responses.activate
def test_4xx_is_returned_for_the_caller_to_read(client):
    responses.get(f"{API}/cards/x/rulings", status=404, json={"object": "error", "code": "not_found", "status": 404,
                                                               "details": "No card found"})
    r = get(client)
    assert r.status == 404 and b"No card found" in r.body


def test_pacer_keeps_the_interval_per_key(clock):
    pacer = Pacer(clock.clock, clock.sleep)
    pacer.wait([("api", 0.1), ("api:search", 0.5)])
    pacer.wait([("api", 0.1)])
    pacer.wait([("api", 0.1), ("api:search", 0.5)])
    assert clock.slept == pytest.approx([0.1 + PACING_MARGIN_S, 0.4])


@responses.activate
def test_the_interval_starts_when_the_answer_arrives_not_when_the_request_left(client, clock):
    """A request that takes 0.3 s to be answered (it left late, or the server was slow) does
    not count towards the 0.1 s before the next one: the server must see that gap."""
    def slow(request):
        clock.now += 0.3
        return 200, {"content-type": "application/json"}, json.dumps(OK)

    responses.add_callback(responses.GET, f"{API}/cards/x/rulings", callback=slow)
    get(client)
    get(client)
    assert clock.slept == pytest.approx([0.1 + PACING_MARGIN_S])


def test_retry_after_forms():
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_a_gzip_bomb_is_refused_at_the_cap_without_being_unpacked_whole():
    """CONSTRUCTED: 64 MiB of zeros packs into some 64 KiB, one chunk of the download. Before,
    zlib unpacked each chunk whole before the cap was looked at (a 1 MiB chunk of such data is
    1 GiB in memory); now it unpacks a step at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = packer.compress(bytes(64 << 20)) + packer.flush()
    check = GzipCheck("https://files.example/cards.jsonl.gz", cap=1 << 20)
    with pytest.raises(SourceDataError, match="unpacks to more than the cap"):
        check.feed(bomb)
    assert check.size <= (1 << 20) + GzipCheck.STEP


@pytest.mark.parametrize("step", [1, 7, 4096])
def test_the_gzip_check_takes_members_one_after_the_other_in_chunks_of_any_size(step):
    first, second = gzip.compress(b"a line\n" * 500), gzip.compress(b"another line\n" * 300)
    check = GzipCheck("u", cap=1 << 20)
    body = first + second
    for at in range(0, len(body), step):
        check.feed(body[at:at + step])
    check.close()
    assert (check.size, check.members) == (500 * 7 + 300 * 13, 2)


@pytest.mark.parametrize("tail, problem", [
    (b"\x1f", "cut short"), (b"\x1f\x8b", "cut short"), (b"x", "data after the end"), (b"\0", "data after the end"),
])
def test_the_gzip_check_refuses_what_follows_a_member_unless_it_is_a_whole_member(tail, problem):
    check = GzipCheck("u", cap=1 << 20)
    with pytest.raises(BodyProblem, match=problem):
        check.feed(gzip.compress(b"a line\n") + tail)
        check.close()


@pytest.mark.parametrize("said", ["410 Gone", [404], 4.5e300, True, 9999, None])
def test_an_error_object_without_an_integer_status_takes_the_http_status(said):
    """CONSTRUCTED bodies: Scryfall documents the error object's status as an integer. Before, a
    string or a list there ended the sync in a traceback (exit 1)."""
    from pipeline.extract.scryfall import scryfall_error

    body = json.dumps({"object": "error", "code": "gone", "status": said, "details": "This set is gone."}).encode()
    error = scryfall_error(f"{API}/sets/xyz", 410, body, exit_code=69)
    assert error.status == 410 and error.code == "gone" and error.exit_code == 69
    assert str(error) == f"Scryfall answered 410 (gone) for {API}/sets/xyz: This set is gone."


def test_the_backoff_of_an_attempt_past_a_thousand_is_its_cap_not_an_overflow(settings):
    """CASEFILE_MAX_ATTEMPTS has no upper bound: 2 ** 1025 is no float, and the 1026th attempt's
    backoff ended the sync in a traceback."""
    client = HttpClient(settings.with_overrides(backoff_base_s=0.0, backoff_max_s=0.0))
    assert client._backoff(1026) == 0.0
    assert HttpClient(settings.with_overrides(backoff_base_s=1.0, backoff_max_s=30.0))._backoff(5000) == 30.0
