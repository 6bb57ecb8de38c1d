"""Live mode over real sockets: the casefile CLI in a subprocess against a loopback Scryfall."""

import json
import re

import pytest

from support.fake_scryfall import FakeScryfall
from support.sample_data import sample_api_data
from support.warehouse_state import query as rows

ENGLISH_PRINTINGS = 19  # 15 cards + 4 alternative English printings in the sample
PAGE_SIZE = 5


@pytest.fixture
def server():
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets, page_size=PAGE_SIZE) as fake:
        yield fake


def test_live_sync_follows_every_page_and_asks_once_per_oracle_card_and_set(server, cli, data_dir):
    result = cli("sync", "--api-url", server.url, "--sources", "api", CASEFILE_CONTACT="ops@example.org")
    assert result.returncode == 0, result.stderr
    log = server.requests
    search = [r for r in log if r.path == "/cards/search"]
    rulings = [r for r in log if r.path.endswith("/rulings")]
    sets = [r for r in log if r.path.startswith("/sets/")]
    pages = -(-ENGLISH_PRINTINGS // PAGE_SIZE)
    assert len(search) == pages == 4
    assert [r.query.get("page", "1") for r in search] == ["1", "2", "3", "4"]
    assert len(rulings) == 15 and len(sets) == 4
    assert len(log) == pages + 15 + 4
    assert len({r.path for r in rulings}) == 15  # never twice for one Oracle card

    for r in log:
        assert r.headers["User-Agent"].startswith("casefile/") and "ops@example.org" in r.headers["User-Agent"]
        assert r.headers["Accept"] == "application/json"
    gaps = [b.t - a.t for a, b in zip(log, log[1:])]
    search_gaps = [b.t - a.t for a, b in zip(search, search[1:])]
    assert min(search_gaps) >= 0.5, search_gaps
    assert min(gaps) >= 0.1, gaps
    print(f"min gap {min(gaps) * 1000:.0f} ms, min search gap {min(search_gaps) * 1000:.0f} ms")

    db = data_dir / "warehouse" / "casefile.duckdb"
    assert rows(db, "SELECT count(*) FROM card") == [(15,)]
    assert rows(db, "SELECT count(*) FROM printing") == [(ENGLISH_PRINTINGS,)]
    assert rows(db, "SELECT count(*) FROM card_ruling") == [(153,)]
    assert rows(db, "SELECT mode, requests FROM sync_run") == [("live", len(log))]


def test_multilingual_sync_keeps_15_cards(server, cli, data_dir):
    server.page_size = 175
    assert cli("sync", "--api-url", server.url, "--multilingual", "--sources", "api").returncode == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    assert rows(db, "SELECT count(*) FROM card") == [(15,)]
    assert rows(db, "SELECT count(*) FROM printing") == [(107,)]
    assert server.requests[0].query["include_multilingual"] == "true"


def _warehouse_state(db):
    tables = ["card", "printing", "ruling", "card_ruling", "sync_run", "raw_document"]
    return {t: rows(db, f"SELECT * FROM {t} ORDER BY ALL") for t in tables}


def test_a_query_matching_nothing_quotes_scryfall_and_changes_nothing(server, cli, data_dir):
    assert cli("sync", "--offline").returncode == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = _warehouse_state(db)
    result = cli("sync", "--api-url", server.url, "--query", "name:nothing-like-this")
    assert result.returncode == 2
    assert "404" in result.stderr and "not_found" in result.stderr
    assert "didn’t match any cards" in result.stderr
    assert _warehouse_state(db) == before


def test_a_rejected_query_quotes_details_and_warnings(server, cli, data_dir):
    result = cli("sync", "--api-url", server.url, "--query", "badop:x")
    assert result.returncode == 2
    assert "All of your terms were ignored." in result.stderr
    assert "warning: Invalid expression “badop:x” was ignored. Unknown keyword “badop”." in result.stderr
    assert not (data_dir / "warehouse" / "casefile.duckdb").exists()
    [run] = [p for p in (data_dir / "raw").iterdir() if p.is_dir()]
    assert (run / "_FAILED").exists() and not (run / "_SUCCESS").exists()


def test_doctor_warns_of_a_query_whose_syncs_fail_while_another_s_complete(server, cli, data_dir):
    """Two cron lines on one warehouse: the Case query, whose syncs start failing (Scryfall
    answers its searches with 500), and a set's, whose syncs go on completing."""
    def runs() -> list[str]:
        return sorted(p.name for p in (data_dir / "raw").iterdir() if p.is_dir())

    def finding_of(job: str) -> dict:
        doctor = cli("doctor", "--format", "json")
        assert doctor.returncode == 0, doctor.stderr  # warnings: the install is sound, one job's syncs fail
        [found] = [f for f in json.loads(doctor.stdout) if f["area"] == "runs" and f["finding"].startswith(job)]
        return found

    fast = {"CASEFILE_MAX_ATTEMPTS": "1"}
    assert cli("sync", "--api-url", server.url, "--sources", "api").returncode == 0
    case_ok = runs()[-1]
    server.add_fault("/cards/search", "500", times=2)
    for _ in range(2):
        assert cli("sync", "--api-url", server.url, "--sources", "api", **fast).returncode == 75
    failed = runs()[-2:]
    assert cli("sync", "--api-url", server.url, "--sources", "api", "--query", "set:mkm").returncode == 0
    set_ok = runs()[-1]
    case = finding_of('sync type:"Case": ')
    assert case["level"] == "warn"
    assert re.fullmatch(rf'sync type:"Case": 2 runs did not complete, from {failed[0]}; last complete run '
                        rf"{case_ok}, \d+ minutes? ago; the newest, {failed[1]}, failed: TryAgainLater: .*500.*",
                        case["finding"])
    mkm = finding_of("sync set:mkm: ")
    assert mkm["level"] == "ok"
    assert re.fullmatch(rf"sync set:mkm: last complete run {set_ok}, \d+ minutes? ago", mkm["finding"])
    assert cli("sync", "--api-url", server.url, "--sources", "api").returncode == 0
    assert finding_of('sync type:"Case": ')["level"] == "ok"


def test_live_then_rebuild_gives_the_same_content(server, cli, data_dir):
    assert cli("sync", "--api-url", server.url, "--sources", "api").returncode == 0
    db = data_dir / "warehouse" / "casefile.duckdb"
    before = _warehouse_state(db)
    server.stop()  # rebuild needs no network
    assert cli("rebuild").returncode == 0
    after = _warehouse_state(db)
    assert {k: v for k, v in after.items() if k != "sync_run"} == {k: v for k, v in before.items() if k != "sync_run"}


def test_api_url_must_be_http(cli):
    result = cli("sync", "--api-url", "file:///etc/passwd")
    assert result.returncode == 78 and "http(s)" in result.stderr


def test_no_network_beyond_loopback(cli):
    result = cli("sync", "--api-url", "https://api.scryfall.com", "--sources", "api",
                 CASEFILE_BACKOFF_BASE="0.01", CASEFILE_BACKOFF_MAX="0.05")  # retried, without 15 s of backoff
    assert result.returncode == 75
    assert "blocked" in result.stderr or "connection failed" in result.stderr


def test_pages_are_fetched_politely_and_a_missing_page_is_recorded(server, cli, data_dir):
    """Pages from a second loopback host: robots.txt first, 1 s apart, 404 kept, disallowed skipped."""
    from conftest import FIXTURES

    cards, rulings, sets = sample_api_data()
    with FakeScryfall([], {}, {}) as pages:
        pages.add_page("/robots.txt", b"User-agent: *\nDisallow: /card/\n", content_type="text/plain")
        lb = "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html"
        pages.add_page("/carte/mkc/case-of-the-shifting-visage-mkc-19", (FIXTURES / "pages" / lb).read_bytes())
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc",
                     "--sources", "api,wiki,listeblanche,scryfall-page", "--wiki-page", f"{pages.url}/page/Case",
                     CASEFILE_LISTEBLANCHE_URL=pages.url, CASEFILE_SCRYFALL_WEB_URL=pages.url)
        assert result.returncode == 0, result.stderr
        log = pages.requests
    assert [r.path for r in log] == ["/robots.txt", "/page/Case", "/carte/mkc/case-of-the-shifting-visage-mkc-19"]
    gaps = [b.t - a.t for a, b in zip(log, log[1:])]
    assert min(gaps) >= 1.0, gaps
    assert all(r.headers["Accept"].startswith("text/html") or r.path == "/robots.txt" for r in log)
    assert rows(data_dir / "warehouse" / "casefile.duckdb",
                "SELECT origin, http_status, count(*) FROM raw_document WHERE origin <> 'scryfall-api' GROUP BY ALL ORDER BY ALL") == [
        ("listeblanche", 200, 1), ("mtgwiki", 200, 1), ("mtgwiki", 404, 1)]
    assert rows(data_dir / "warehouse" / "casefile.duckdb",
                "SELECT origin, count(*) FROM ruling_sighting GROUP BY ALL ORDER BY ALL") == [
        ("listeblanche", 16), ("scryfall-api", 16)]


def test_plan_counts_the_page_requests_a_sync_then_makes(server, cli, data_dir):
    """The plan of a sync with page sources lists their requests (at most one page per Oracle card,
    the wiki page, each host's robots.txt) and their pacing; every card of set:mkc has rulings and
    every page is allowed, so the sync makes exactly as many, no quicker than the plan says."""
    import json

    with FakeScryfall([], {}, {}) as pages:
        args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,wiki,listeblanche",
                "--wiki-page", f"{pages.url}/page/Case"]
        env = {"CASEFILE_LISTEBLANCHE_URL": pages.url}
        plan = cli("--log-format", "json", *args, "--plan", **env)
        assert plan.returncode == 0, plan.stderr
        assert pages.requests == []  # planning asks no page
        plan = json.loads(plan.stdout)
        text = cli(*args, "--plan", **env)
        assert text.returncode == 0, text.stderr
        result = cli(*args, **env)
        assert result.returncode == 0, result.stderr
        log = pages.requests
    assert plan["chosen"] == "api" and plan["pages"] is not None
    assert plan["pages"]["requests"] == len(log) > 2
    assert [r.path for r in log][:2] == ["/robots.txt", "/page/Case"]
    assert plan["pages"]["pacing_s"] == len(log) - 1  # one host, a page a second
    assert log[-1].t - log[0].t >= plan["pages"]["pacing_s"]
    assert f"then the pages (wiki, listeblanche): at most {len(log)} requests" in text.stdout
    assert f"at most {len(log) - 2} listeblanche.fr card pages" in text.stdout


class _ResultsMoveAfterPageOne(FakeScryfall):
    """Plays a search whose results change while they are paged: once page 1 has been served, the
    second English printing of the sample moves to the end of the list (as a new or renamed card
    moves Scryfall's name order), so page 2 starts one printing later. Constructed behaviour."""

    move = False

    def _search(self, query):
        answer = super()._search(query)
        if self.move and query.get("page", "1") == "1":
            self.move = False
            english = [c for c in self.cards if c.get("lang", "en") == "en"]
            self.cards.remove(english[1])
            self.cards.append(english[1])
        return answer


def test_results_that_change_while_paged_fail_the_run_instead_of_dropping_a_printing(cli, data_dir):
    cards, rulings, sets = sample_api_data()
    db = data_dir / "warehouse" / "casefile.duckdb"
    with _ResultsMoveAfterPageOne(cards, rulings, sets, page_size=PAGE_SIZE) as server:
        assert cli("sync", "--api-url", server.url, "--sources", "api").returncode == 0
        before = _warehouse_state(db)
        server.move = True  # the printing that moves to page 1 would be read on no page
        result = cli("sync", "--api-url", server.url, "--sources", "api")
        assert result.returncode == 75, result.stdout + result.stderr
        assert "changed while casefile paged" in result.stderr
        assert _warehouse_state(db) == before
        assert rows(db, "SELECT count(*) FROM printing") == [(ENGLISH_PRINTINGS,)]
        assert cli("sync", "--api-url", server.url, "--sources", "api").returncode == 0  # the list holds still
    assert rows(db, "SELECT count(*) FROM printing") == [(ENGLISH_PRINTINGS,)]


def test_a_robots_txt_starting_with_a_byte_order_mark_is_obeyed(server, cli, data_dir):
    """A robots.txt saved by an editor that writes a UTF-8 byte order mark (constructed file)."""
    with FakeScryfall([], {}, {}) as pages:
        pages.add_page("/robots.txt", "\ufeffUser-agent: *\nDisallow: /carte/\n".encode("utf-8"),
                       content_type="text/plain")
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche",
                     CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == 0, result.stderr
        log = pages.requests
    assert [r.path for r in log] == ["/robots.txt"]
    assert rows(data_dir / "warehouse" / "casefile.duckdb",
                "SELECT origin, kind FROM raw_document WHERE origin <> 'scryfall-api'") == [("listeblanche", "robots")]


def _sync_mkc_pages(server, cli, robots: bytes) -> list:
    """A sync of set:mkc with the wiki and listeblanche.fr served by one loopback host whose
    robots.txt is ``robots`` and whose one card page is the Shifting Visage fixture; the
    requests that host saw."""
    from conftest import FIXTURES

    with FakeScryfall([], {}, {}) as pages:
        pages.add_page("/robots.txt", robots, content_type="text/plain")
        lb = "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html"
        pages.add_page("/carte/mkc/case-of-the-shifting-visage-mkc-19", (FIXTURES / "pages" / lb).read_bytes())
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,wiki,listeblanche",
                     "--wiki-page", f"{pages.url}/page/Case", CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == 0, result.stderr
        return pages.requests


def test_the_crawl_delay_of_robots_txt_paces_the_pages_of_its_host(server, cli, data_dir):
    """A robots.txt asking for 2 s between requests (constructed file), over the 1 s floor."""
    log = _sync_mkc_pages(server, cli, b"User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n")
    assert [r.path for r in log] == ["/robots.txt", "/page/Case", "/carte/mkc/case-of-the-shifting-visage-mkc-19"]
    gaps = [b.t - a.t for a, b in zip(log, log[1:])]
    assert min(gaps) >= 2.0, gaps


def test_a_crawl_delay_over_the_cap_leaves_the_host_alone_for_the_run(server, cli, data_dir):
    """A robots.txt asking for a day between requests (constructed file): waiting would hold a
    scheduled sync for a day per page, so none of its pages is asked, with one warning, and the
    run ends at once (the cap: CASEFILE_MAX_CRAWL_DELAY, 60 s by default)."""
    with FakeScryfall([], {}, {}) as pages:
        pages.add_page("/robots.txt", b"User-agent: *\nCrawl-delay: 86400\n", content_type="text/plain")
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,wiki,listeblanche",
                     "--wiki-page", f"{pages.url}/page/Case", CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == 0, result.stderr
        log, host = pages.requests, pages.url.split("//", 1)[1]
    assert [r.path for r in log] == ["/robots.txt"]
    [warning] = [line for line in result.stderr.splitlines() if "Crawl-delay" in line]
    assert f"robots.txt of {host} asks for 86400 s between requests" in warning and "60 s" in warning
    assert "disallows" not in result.stderr
    assert rows(data_dir / "warehouse" / "casefile.duckdb", "SELECT sources FROM sync_run") == [("api",)]


@pytest.mark.parametrize("robots", [b"User-agent: *\nCrawl-delay: 86400\n", b"User-agent: *\nDisallow: /carte/\n"])
def test_a_source_robots_txt_now_keeps_casefile_from_keeps_its_rulings(server, cli, data_dir, robots):
    """listeblanche.fr's rulings of an earlier sync stay when its robots.txt (constructed) now
    disallows its pages or asks a Crawl-delay over the cap: the run is no view of that source."""
    from conftest import FIXTURES

    db = data_dir / "warehouse" / "casefile.duckdb"
    args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche"]
    sightings = "SELECT origin, count(*) FROM ruling_sighting GROUP BY ALL ORDER BY ALL"
    with FakeScryfall([], {}, {}) as pages:
        lb = "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html"
        pages.add_page("/carte/mkc/case-of-the-shifting-visage-mkc-19", (FIXTURES / "pages" / lb).read_bytes())
        assert cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url).returncode == 0  # robots.txt: 404
        before = rows(db, sightings)
        assert before == [("listeblanche", 16), ("scryfall-api", 16)]
        pages.add_page("/robots.txt", robots, content_type="text/plain")
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == 0, result.stderr
        assert [r.path for r in pages.requests][-1] == "/robots.txt"
    assert "robots.txt let no page of listeblanche be fetched" in result.stderr
    assert rows(db, sightings) == before
    assert cli("rebuild").returncode == 0  # a rebuild reads the views alike
    assert rows(db, sightings) == before


@pytest.mark.parametrize("fault", [{"kind": "status", "status": 503}, {"kind": "reset"}, {"kind": "redirect"}])
def test_a_robots_txt_that_cannot_be_read_keeps_casefile_from_its_host_and_the_run_goes_on(
        server, cli, data_dir, fault):
    """robots.txt answers 503, or the connection is reset, after every attempt, or it redirects to
    another host, which casefile does not follow: RFC 9309 has a crawler take an unreachable
    robots.txt for a complete disallow. No page of the host is asked, the source is left out of the
    run (its earlier rulings stay) and the API's data loads (before: the run failed, 75 for the
    first two, 69 for the redirect)."""
    from conftest import FIXTURES

    db = data_dir / "warehouse" / "casefile.duckdb"
    args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche"]
    env = {"CASEFILE_MAX_ATTEMPTS": "2", "CASEFILE_BACKOFF_BASE": "0.01", "CASEFILE_BACKOFF_MAX": "0.05"}
    sightings = "SELECT origin, count(*) FROM ruling_sighting GROUP BY ALL ORDER BY ALL"
    with FakeScryfall([], {}, {}) as pages:
        lb = "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html"
        pages.add_page("/carte/mkc/case-of-the-shifting-visage-mkc-19", (FIXTURES / "pages" / lb).read_bytes())
        assert cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url, **env).returncode == 0  # robots.txt: 404
        before = rows(db, sightings)
        pages.clear_log()
        params = {k: v for k, v in fault.items() if k != "kind"}
        if fault["kind"] == "redirect":  # localhost is another host than 127.0.0.1
            params["location"] = pages.url.replace("127.0.0.1", "localhost") + "/robots.txt"
        pages.add_fault("/robots.txt", fault["kind"], times=None, **params)
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url, **env)
        asked = [r.path for r in pages.requests]
    assert result.returncode == 0, result.stderr
    assert asked == ["/robots.txt"] * (1 if fault["kind"] == "redirect" else 2)
    assert "robots.txt of 127.0.0.1" in result.stderr and "could not be read" in result.stderr
    assert "disallows" not in result.stderr  # the host's one warning, not one a page (each said "disallows")
    assert "no page of listeblanche was fetched (robots.txt of 127.0.0.1" in result.stderr
    assert "robots.txt let no page" not in result.stderr  # robots.txt said nothing: it was not read
    assert rows(db, sightings) == before
    assert rows(db, "SELECT sources FROM sync_run ORDER BY run_id") == [("api,listeblanche",), ("api",)]


@pytest.mark.parametrize("site", ["unreachable", "refusing", "disallowing"])
def test_doctor_tells_a_robots_txt_that_could_not_be_read_from_one_that_disallows_the_pages(
        server, cli, data_dir, site):
    """listeblanche.fr could not be reached (a loopback port nobody listens on, as a name that does
    not resolve): doctor said "listeblanche left out … (robots.txt let none of its pages be
    fetched)", which reads as the site keeping casefile out. The run now records why (run.json's
    left_out), and doctor says it: robots.txt could not be read, with the error, or was refused
    (403); the words of a robots.txt that disallows the pages stay."""
    import socket

    args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche"]
    with FakeScryfall([], {}, {}) as pages:
        if site == "unreachable":
            with socket.socket() as probe:  # a port just free: nobody listens there
                probe.bind(("127.0.0.1", 0))
                site_url = f"http://127.0.0.1:{probe.getsockname()[1]}"
        else:
            site_url = pages.url
            if site == "refusing":
                pages.add_fault("/robots.txt", "status", times=None, status=403, body=b"Forbidden")
            else:
                pages.add_page("/robots.txt", b"User-agent: *\nDisallow: /carte/\n", content_type="text/plain")
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=site_url, CASEFILE_MAX_ATTEMPTS="1")
    assert result.returncode == 0, result.stderr
    host = site_url.split("//", 1)[1]
    why = {"unreachable": f"robots.txt of {host} could not be read: gave up after 1 attempt; last problem: "
                          "connection failed: NewConnectionError: Failed to establish a new connection: "
                          "[Errno 111] Connection refused",
           "refusing": f"robots.txt of {host} refuses casefile (HTTP 403)",
           "disallowing": "robots.txt let none of its pages be fetched"}[site]
    [run] = [p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists()]
    assert json.loads((run / "run.json").read_text())["left_out"] == {"listeblanche": why}
    doctor = cli("doctor", "--format", "json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    [warning] = [f for f in json.loads(doctor.stdout) if "left out" in f["finding"]]
    assert (warning["level"], warning["finding"]) == (
        "warn", f"sync set:mkc: listeblanche left out of the newest complete run, {run.name} ({why}); "
                "no complete run brought its rulings")


def test_a_page_that_redirects_to_a_path_robots_txt_disallows_is_not_followed_there(server, cli, data_dir):
    """CONSTRUCTED: the card's listeblanche.fr page answers 301 to /private/…, which robots.txt
    disallows. Before, only the URL asked for was checked against robots.txt, and the redirect was
    followed into the disallowed path. Now the page is handled as one robots.txt disallows: not
    fetched, named in run.json's not_fetched, with a warning; the run goes on."""
    from conftest import FIXTURES

    page = "/carte/mkc/case-of-the-shifting-visage-mkc-19"
    args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche"]
    with FakeScryfall([], {}, {}) as pages:
        lb = "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html"
        pages.add_page("/private/visage", (FIXTURES / "pages" / lb).read_bytes())
        pages.add_page("/robots.txt", b"User-agent: *\nDisallow: /private/\n", content_type="text/plain")
        pages.add_fault(page, "redirect", times=None, location="/private/visage", status=301)
        site = pages.url
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=site)
        asked = [r.path for r in pages.requests]
    assert result.returncode == 0, result.stderr
    assert asked == ["/robots.txt", page]
    assert f"{site}{page} not fetched: it redirects to {site}/private/visage, which robots.txt disallows" \
        in result.stderr
    newest = max(p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists())
    assert json.loads((newest / "run.json").read_text())["not_fetched"] == [site + page]


def test_pages_that_redirect_to_paths_robots_txt_disallows_are_warned_of_once_a_host(server, cli, data_dir):
    """CONSTRUCTED: two listeblanche.fr pages answer 302 to /login, which robots.txt disallows: one
    warning for the host, where each page had its own (-v still names each)."""
    with FakeScryfall([], {}, {}) as pages:
        pages.add_page("/robots.txt", b"User-agent: *\nDisallow: /login\n", content_type="text/plain")
        for card in ("case-of-the-burning-masks-mkm-113", "case-of-the-filched-falcon-mkm-44"):
            pages.add_fault(f"/carte/mkm/{card}", "redirect", times=None, location="/login", status=302)
        args = ["sync", "--api-url", server.url, "--sources", "api,listeblanche"]
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url)
        verbose = cli("-v", *args, CASEFILE_LISTEBLANCHE_URL=pages.url)
    assert result.returncode == 0 and verbose.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "redirects to" in line]
    assert len(said) == 1 and said[0].endswith("robots.txt disallows: -v names each)")
    assert sum("redirects to" in line for line in verbose.stderr.splitlines()) == 2


@pytest.mark.parametrize("content_type, meta", [
    ("text/html; charset=windows-1252", ""),  # the header alone says how the bytes read
    ("text/html", '<meta charset="iso-8859-1">\n'),  # browsers read this label as windows-1252
])
def test_a_page_in_windows_1252_is_read_as_its_header_or_meta_declares(server, cli, data_dir, content_type, meta):
    """The scryfall.com fixture page re-encoded as windows-1252 (constructed): its rulings' em dashes
    are the byte 0x97, which a guess or ISO-8859-1 reads as another character."""
    from urllib.parse import urlsplit

    from conftest import FIXTURES

    page = (FIXTURES / "pages" / "scryfall_case-of-the-burning-masks.html").read_text(encoding="utf-8")
    body = page.replace('<meta charset="utf-8">\n', meta).encode("windows-1252")
    cards, _, _ = sample_api_data()
    with FakeScryfall([], {}, {}) as pages:
        for card in cards:
            if card["name"] == "Case of the Burning Masks" and card.get("scryfall_uri"):
                pages.add_page(urlsplit(card["scryfall_uri"]).path, body, content_type=content_type)
        result = cli("sync", "--api-url", server.url, "--query", 'name:"Case of the Burning Masks"',
                     "--sources", "api,scryfall-page", CASEFILE_SCRYFALL_WEB_URL=pages.url)
        assert result.returncode == 0, result.stderr
    db = data_dir / "warehouse" / "casefile.duckdb"
    copies = rows(db, "SELECT text_as_seen FROM ruling_sighting WHERE origin = 'scryfall-page' ORDER BY position")
    assert copies and any("Solved —" in text for text, in copies)
    assert rows(db, """SELECT count(*) FROM ruling_sighting WHERE origin = 'scryfall-page'
                       AND ruling_id NOT IN (SELECT ruling_id FROM ruling_sighting WHERE origin = 'scryfall-api')""") == [(0,)]


def test_a_page_hosts_429_does_not_stop_the_next_syncs_from_asking_scryfall(server, cli, data_dir):
    """A rulings site that rate-limits casefile for an hour (a constructed answer): the run stops
    (75) naming that site, and the cool-down it asks is no reason to leave Scryfall's API alone."""
    with FakeScryfall([], {}, {}) as pages:
        pages.add_fault("/carte/", "429", times=None, retry_after=3600)
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche",
                     CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == 75, result.stderr
        assert "/carte/" in result.stderr and "Scryfall" not in result.stderr
    result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api")
    assert result.returncode == 0, result.stderr
    assert not (data_dir / "cooldown.json").exists()


def test_robots_txt_rules_are_matched_longest_path_first(server, cli, data_dir):
    """A robots.txt that allows the site, then disallows the card pages (a constructed file in a
    common shape): the longer Disallow decides for /carte/ pages (RFC 9309), whatever the order."""
    log = _sync_mkc_pages(server, cli, b"User-agent: *\nAllow: /\nDisallow: /carte/\n")
    assert [r.path for r in log] == ["/robots.txt", "/page/Case"]  # allowed by "Allow: /", the only rule that matches


def test_robots_txt_wildcards_and_end_anchors_are_obeyed(server, cli, data_dir):
    """A robots.txt whose rules use "*" and "$" (RFC 9309; a constructed file): the card pages are
    disallowed through a wildcard, and "Allow: /page/*$" cannot save them."""
    log = _sync_mkc_pages(server, cli, b"User-agent: *\nDisallow: /carte/*/case-of-\nDisallow: /*.php$\n"
                                       b"Allow: /page/*$\n")
    assert [r.path for r in log] == ["/robots.txt", "/page/Case"]


class _WarnsOnSearch(FakeScryfall):
    """Answers a search as Scryfall answers one with a term it ignored: 200, the cards of the other
    terms, and a warning (constructed; the fake server refuses such a query with 400 instead)."""

    def _search(self, query):
        import json

        answer = super()._search(query)
        if answer.status == 200:
            body = json.loads(answer.body)
            body["warnings"] = ["Invalid expression “frm:modern” was ignored. Unknown keyword “frm”."]
            answer.body = json.dumps(body).encode()
        return answer


def test_scryfall_s_warnings_on_a_search_it_answered_reach_the_user(cli, data_dir):
    cards, rulings, sets = sample_api_data()
    with _WarnsOnSearch(cards, rulings, sets, page_size=PAGE_SIZE) as server:
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("Invalid expression “frm:modern” was ignored. Unknown keyword “frm”.") == 1


def test_the_plan_of_a_search_scryfall_warns_about_says_so(cli, data_dir):
    cards, rulings, sets = sample_api_data()
    with _WarnsOnSearch(cards, rulings, sets, page_size=PAGE_SIZE) as server:
        result = cli("sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api", "--plan")
    assert result.returncode == 0, result.stderr
    assert "  note: Scryfall warns: Invalid expression “frm:modern” was ignored. Unknown keyword “frm”.\n" \
        in result.stdout


@pytest.mark.parametrize("source, origin, fixture, stand_in", [
    ("listeblanche", "listeblanche", "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html", "maintenance_fr.html"),
    ("scryfall-page", "scryfall-page", "scryfall_case-of-the-shifting-visage.html", "error_en.html"),
    ("wiki", "mtgwiki", "mtgwiki_case.html", "error_en.html"),
])
def test_a_page_that_is_no_card_page_fails_like_a_failed_answer_and_keeps_the_sightings(
        server, cli, data_dir, source, origin, fixture, stand_in):
    """A rulings site that answers 200 with a maintenance or error page (constructed, see
    tests/fixtures/not_card_pages/) instead of the card's page: not "no rulings" but a failed answer,
    as a 5xx is: retried, kept in quarantine/, the run fails (75) naming the URL, and the warehouse
    keeps the card's sightings from that source."""
    from urllib.parse import urlsplit

    from conftest import FIXTURES

    cards, _, _ = sample_api_data()
    visage = next(c for c in cards if c["name"] == "Case of the Shifting Visage" and c["set"] == "mkc")
    path = {"listeblanche": "/carte/mkc/case-of-the-shifting-visage-mkc-19", "wiki": "/page/Case",
            "scryfall-page": urlsplit(visage["scryfall_uri"]).path}[source]
    db = data_dir / "warehouse" / "casefile.duckdb"
    sightings = f"SELECT count(*) FROM ruling_sighting WHERE origin = '{origin}'"
    with FakeScryfall([], {}, {}) as pages:
        args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", f"api,{source}",
                "--wiki-page", f"{pages.url}/page/Case"]
        env = {"CASEFILE_LISTEBLANCHE_URL": pages.url, "CASEFILE_SCRYFALL_WEB_URL": pages.url,
               "CASEFILE_MAX_ATTEMPTS": "2", "CASEFILE_BACKOFF_BASE": "0.01", "CASEFILE_BACKOFF_MAX": "0.05"}
        pages.add_page(path, (FIXTURES / "pages" / fixture).read_bytes())
        result = cli(*args, **env)
        assert result.returncode == 0, result.stderr
        [(before,)] = rows(db, sightings)
        assert before > 0
        state = _warehouse_state(db)

        stand_in_body = (FIXTURES / "not_card_pages" / stand_in).read_bytes()
        pages.add_page(path, stand_in_body)
        pages.clear_log()
        result = cli(*args, **env)
        asked = [r.path for r in pages.requests if r.path == path]
        url = f"{pages.url}{path}"
    assert result.returncode == 75, result.stdout + result.stderr
    assert url in result.stderr and "not the page asked for" in result.stderr
    assert len(asked) == 2  # retried as a 5xx is
    assert rows(db, sightings) == [(before,)]
    assert _warehouse_state(db) == state
    run = max(p for p in (data_dir / "raw").iterdir() if p.is_dir())
    assert (run / "_FAILED").exists() and not (run / "_SUCCESS").exists()
    kept = [p.read_bytes() for p in (run / "quarantine").iterdir()]
    assert kept == [stand_in_body]


@pytest.mark.parametrize("status, code", [(403, 69), (401, 69), (410, 0)])
def test_a_page_the_site_refuses_fails_the_run_and_a_gone_page_is_missing(server, cli, data_dir, status, code):
    """A rulings site that answers 403 (a block of automated clients) or 401 refuses casefile: that is
    no word on the card's rulings, so the run fails (69) naming the URL and the warehouse keeps the
    card's sightings from the site (before, every such page read as "no rulings" and the sightings
    went). 410 says the page is gone for good, as 404 does: recorded, and the sightings go."""
    from conftest import FIXTURES

    path = "/carte/mkc/case-of-the-shifting-visage-mkc-19"
    db = data_dir / "warehouse" / "casefile.duckdb"
    sightings = "SELECT count(*) FROM ruling_sighting WHERE origin = 'listeblanche'"
    with FakeScryfall([], {}, {}) as pages:
        args = ["sync", "--api-url", server.url, "--query", "set:mkc", "--sources", "api,listeblanche"]
        page = (FIXTURES / "pages" / "listeblanche_mkc_case-of-the-shifting-visage-mkc-19.html").read_bytes()
        pages.add_page(path, page)
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == 0, result.stderr
        [(before,)] = rows(db, sightings)
        assert before > 0
        state = _warehouse_state(db)
        pages.add_page(path, b"<html><body><h1>Forbidden</h1></body></html>", status=status)
        result = cli(*args, CASEFILE_LISTEBLANCHE_URL=pages.url)
        url = f"{pages.url}{path}"
    assert result.returncode == code, result.stdout + result.stderr
    if code:
        assert f"{url} answered {status}" in result.stderr
        assert rows(db, sightings) == [(before,)]
        assert _warehouse_state(db) == state
    else:
        assert rows(db, sightings) == [(0,)]


def _serve_two_listeblanche_pages(pages) -> None:
    """The constructed listeblanche.fr pages of the Filched Falcon and the Burning Masks, at their paths."""
    from conftest import FIXTURES

    for name in ("listeblanche_mkm_case-of-the-filched-falcon-mkm-44.html",
                 "listeblanche_mkm_case-of-the-burning-masks-mkm-113.html"):
        path = "/carte/mkm/" + name.removeprefix("listeblanche_mkm_").removesuffix(".html")
        pages.add_page(path, (FIXTURES / "pages" / name).read_bytes())


def test_a_live_run_robots_txt_kept_from_a_page_replays_offline(server, cli, data_dir):
    """robots.txt disallows one card's listeblanche.fr page and lets the others be fetched: the run
    records the page it did not fetch, and `sync --offline` of that run skips it as the run did
    (before, the replay asked the recording for it and failed, exit 2: "holds no response")."""
    import json

    with FakeScryfall([], {}, {}) as pages:
        pages.add_page("/robots.txt", b"User-agent: *\nDisallow: /carte/mkm/case-of-the-burning-masks\n",
                       content_type="text/plain")
        _serve_two_listeblanche_pages(pages)
        result = cli("sync", "--api-url", server.url, "--sources", "api,listeblanche",
                     CASEFILE_LISTEBLANCHE_URL=pages.url)
        asked = [r.path for r in pages.requests]
        site = pages.url
        skipped = f"{site}/carte/mkm/case-of-the-burning-masks-mkm-113"
    assert result.returncode == 0, result.stderr
    assert "/carte/mkm/case-of-the-filched-falcon-mkm-44" in asked
    assert not any("burning-masks" in path for path in asked)
    [run] = [p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists()]
    assert json.loads((run / "run.json").read_text())["not_fetched"] == [skipped]
    live = rows(data_dir / "warehouse" / "casefile.duckdb",
                "SELECT origin, count(*) FROM ruling_sighting GROUP BY ALL ORDER BY ALL")

    replay = cli("sync", "--offline", str(run), CASEFILE_LISTEBLANCHE_URL=site)  # the run's options, no network
    assert replay.returncode == 0, replay.stderr
    assert rows(data_dir / "warehouse" / "casefile.duckdb",
                "SELECT origin, count(*) FROM ruling_sighting GROUP BY ALL ORDER BY ALL") == live
    [replayed] = [p for p in (data_dir / "raw").iterdir() if p != run and (p / "run.json").exists()]
    assert json.loads((replayed / "run.json").read_text())["not_fetched"] == [skipped]


@pytest.mark.parametrize("robots, said", [
    (b"User-agent: *\nDisallow: /carte/mkm/case-of-the-burning-masks\nDisallow: /carte/mkm/case-of-the-crimson\n",
     "robots.txt disallows {site}/carte/mkm/case-of-the-burning-masks-mkm-113; not fetched (nor any other page of "
     "{host} it disallows: -v names each)"),
    (403, "robots.txt of {host} refuses casefile (HTTP 403): none of its pages is fetched in this run"),
])
def test_the_pages_robots_txt_keeps_casefile_from_are_warned_of_once_a_host(server, cli, data_dir, robots, said):
    """robots.txt (constructed) disallows two pages of a host, or refuses casefile: one warning line
    for the host, in every cron mail, where each page had its own line (-v still names each)."""
    from urllib.parse import urlsplit

    with FakeScryfall([], {}, {}) as pages:
        if isinstance(robots, int):
            pages.add_fault("/robots.txt", "status", times=None, status=robots)
        else:
            pages.add_page("/robots.txt", robots, content_type="text/plain")
        _serve_two_listeblanche_pages(pages)
        result = cli("sync", "--api-url", server.url, "--sources", "api,listeblanche",
                     CASEFILE_LISTEBLANCHE_URL=pages.url)
        verbose = cli("-v", "sync", "--api-url", server.url, "--sources", "api,listeblanche",
                      CASEFILE_LISTEBLANCHE_URL=pages.url)
        site, host = pages.url, urlsplit(pages.url).netloc
    assert result.returncode == 0 and verbose.returncode == 0, result.stderr
    robots_lines = [line for line in result.stderr.splitlines()  # the source's summary line apart
                    if "robots.txt" in line and "left out of this run" not in line]
    assert robots_lines == ["casefile: " + said.format(site=site, host=host)]
    if not isinstance(robots, int):
        assert "robots.txt disallows " + site + "/carte/mkm/case-of-the-crimson-pulse-mkm-114; not fetched" \
            in verbose.stderr


def test_a_page_robots_txt_keeps_casefile_from_is_stood_in_for_by_its_earlier_copy(server, cli, data_dir, tmp_path):
    """A page robots.txt disallows, of a source whose other pages are fetched: before, the card lost
    its sightings from that site until a run fetched the page again. Now its newest earlier copy is
    linked into the run and read as it was fetched then; a replay carries it as the run did; a page
    whose newest answer was a 404 is not brought back."""
    from conftest import FIXTURES, run_cli

    falcon, masks = "/carte/mkm/case-of-the-filched-falcon-mkm-44", "/carte/mkm/case-of-the-burning-masks-mkm-113"
    db = data_dir / "warehouse" / "casefile.duckdb"
    kept = """SELECT c.name, s.sighting_id, s.doc_id FROM ruling_sighting s JOIN card c USING (oracle_id)
              WHERE s.origin = 'listeblanche' ORDER BY ALL"""

    def runs() -> list:
        return sorted(p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists())

    with FakeScryfall([], {}, {}) as pages:
        for path in (falcon, masks):
            name = "listeblanche_mkm_" + path.removeprefix("/carte/mkm/") + ".html"
            pages.add_page(path, (FIXTURES / "pages" / name).read_bytes())

        def sync(*allowed: str) -> list[str]:
            """A live sync in which robots.txt lets casefile fetch ``allowed`` only; robots.txt asked
            first, then the set of paths asked."""
            rules = "".join(f"Allow: {path}\n" for path in allowed)
            pages.add_page("/robots.txt", f"User-agent: *\n{rules}Disallow: /carte/\n".encode(),
                           content_type="text/plain")
            before = len(pages.requests)
            result = cli("sync", "--api-url", server.url, "--sources", "api,listeblanche",
                         CASEFILE_LISTEBLANCHE_URL=pages.url)
            assert result.returncode == 0, result.stderr
            return [r.path for r in pages.requests[before:]]

        assert sync(falcon, masks) == ["/robots.txt", masks, falcon]
        both = rows(db, kept)
        assert {name for name, *_ in both} == {"Case of the Filched Falcon", "Case of the Burning Masks"}

        assert sync(falcon) == ["/robots.txt", falcon]
        assert rows(db, kept) == both  # the same sightings, read from the same document
        first, second = runs()
        [carried] = [line for line in map(json.loads, (second / "manifest.jsonl").read_text().splitlines())
                     if line.get("carried")]
        [fetched] = [line for line in map(json.loads, (first / "manifest.jsonl").read_text().splitlines())
                     if line["url"] == carried["url"]]
        assert carried["carried"] == "robots.txt disallows it" and carried["url"].endswith(masks)
        assert carried["reused_from"] == f"{first.name}/{fetched['path']}"
        assert {k: carried[k] for k in ("doc_id", "fetched_at", "status", "sha256")} == \
            {k: fetched[k] for k in ("doc_id", "fetched_at", "status", "sha256")}
        assert (second / carried["path"]).read_bytes() == (first / fetched["path"]).read_bytes()
        doctor = cli("doctor", "--format", "json")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        [stale] = [f["finding"] for f in json.loads(doctor.stdout) if "earlier copies" in f["finding"]]
        assert re.fullmatch(re.escape(f'sync type:"Case": 1 page(s) the newest complete run, {second.name}, did not '
                                      "fetch (robots.txt) are read from their earlier copies, the oldest fetched ")
                            + r"\d+ minutes? ago", stale), stale
        assert cli("prune", "--keep-days", "0").returncode == 0 and runs() == [second]  # the copy is the run's own
        assert cli("rebuild").returncode == 0
        assert rows(db, kept) == both

        elsewhere = tmp_path / "elsewhere"  # the recorded run replayed where no earlier run exists
        elsewhere.mkdir()
        replay = run_cli(["sync", "--offline", str(second)], elsewhere, CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert replay.returncode == 0, replay.stderr
        assert rows(elsewhere / "warehouse" / "casefile.duckdb", kept) == both

        pages.add_page(masks, b"", status=404)
        assert sync(falcon, masks) == ["/robots.txt", masks, falcon]
        assert sync(falcon) == ["/robots.txt", falcon]  # the newest answer for the page is its 404
        assert {name for name, *_ in rows(db, kept)} == {"Case of the Filched Falcon"}
        assert not [line for line in map(json.loads, (runs()[-1] / "manifest.jsonl").read_text().splitlines())
                    if line.get("carried")]


LISTEBLANCHE_SIGHTINGS = """SELECT c.name, s.sighting_id, s.doc_id FROM ruling_sighting s JOIN card c USING (oracle_id)
                            WHERE s.origin = 'listeblanche' ORDER BY ALL"""


def _two_listeblanche_pages(cli, server, pages):
    """Serve two listeblanche.fr pages (the recorded ones of the Filched Falcon and the Burning Masks)
    from ``pages``, robots.txt keeping casefile from the others so that the runs stay short; returns
    ``sync(falcon=404, ...)``, a live sync with each page answering the status given (200 if none),
    which must exit ``expect`` (0 if not given)."""
    from conftest import FIXTURES

    falcon, masks = "/carte/mkm/case-of-the-filched-falcon-mkm-44", "/carte/mkm/case-of-the-burning-masks-mkm-113"
    body = {path: (FIXTURES / "pages" / ("listeblanche_mkm_" + path.removeprefix("/carte/mkm/") + ".html")).read_bytes()
            for path in (falcon, masks)}
    pages.add_page("/robots.txt", f"User-agent: *\nAllow: {falcon}\nAllow: {masks}\nDisallow: /carte/\n".encode(),
                   content_type="text/plain")

    def sync(expect: int = 0, **status: int):
        for path, name in ((falcon, "falcon"), (masks, "masks")):
            code = status.get(name, 200)
            pages.add_page(path, body[path] if code == 200 else b"<html><body>Not found</body></html>", status=code)
        result = cli("sync", "--api-url", server.url, "--sources", "api,listeblanche",
                     CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert result.returncode == expect, result.stderr
        return result

    return sync


def test_a_source_whose_pages_all_vanish_at_once_is_left_out_and_keeps_its_sightings(server, cli, data_dir,
                                                                                          tmp_path):
    """Every listeblanche.fr page of the run answers 404 where the run before found them (the site
    moved its pages): before, every card lost its sightings from the site, exit 0. Now the source is
    left out of the run, with a warning, and the warehouse keeps them; one page gone while another
    is found is taken as the site says. (Two pages asked, the others kept away by robots.txt, so
    the runs stay short.)"""
    from conftest import run_cli

    db = data_dir / "warehouse" / "casefile.duckdb"
    with FakeScryfall([], {}, {}) as pages:
        sync = _two_listeblanche_pages(cli, server, pages)
        kept = LISTEBLANCHE_SIGHTINGS
        assert "none of the" not in sync().stderr
        both = rows(db, kept)
        assert {name for name, *_ in both} == {"Case of the Filched Falcon", "Case of the Burning Masks"}

        moved = sync(falcon=404, masks=404)
        assert "none of the 2 pages of listeblanche asked in this run answered with the page" in moved.stderr
        assert "robots.txt let no page" not in moved.stderr
        assert rows(db, kept) == both
        newest = max(p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists())
        meta = json.loads((newest / "run.json").read_text())
        assert meta["sources"] == ["api"] and list(meta["left_out"]) == ["listeblanche"]
        doctor = cli("doctor", "--format", "json")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        [warning] = [f for f in json.loads(doctor.stdout) if "left out" in f["finding"]]
        assert warning["level"] == "warn" and warning["finding"].startswith(
            f'sync type:"Case": listeblanche left out of the newest complete run, {newest.name} (none of its pages')
        elsewhere = tmp_path / "elsewhere"  # its replay leaves the source out as it did, and says why
        elsewhere.mkdir()
        assert run_cli(["sync", "--offline", str(newest)], elsewhere).returncode == 0
        [replayed] = [p for p in (elsewhere / "raw").iterdir() if (p / "run.json").exists()]
        assert json.loads((replayed / "run.json").read_text())["left_out"] == meta["left_out"]

        again = sync(falcon=404, masks=404)  # the runs that found the pages are older than the one left out
        assert "none of the 2 pages" in again.stderr and rows(db, kept) == both

        one_gone = sync(falcon=404)
        assert "none of the" not in one_gone.stderr and "left out" not in cli("doctor", "--format", "json").stdout
        assert rows(db, kept) == [row for row in both if row[0] == "Case of the Burning Masks"]


def test_a_page_gone_since_the_run_before_is_warned_of_once_by_the_sync_and_by_doctor(server, cli, data_dir,
                                                                                         tmp_path):
    """A card's listeblanche.fr page answers 404 where the run before found it: the card's sightings
    from the site go (a page removed cannot be told from one moved), which no change event records.
    Before, the sync said so at INFO only and exited 0; now it warns, names the page in run.json
    (``gone``), and doctor warns of it until a later run; a replay keeps the record. The next run,
    the page still gone, warns of nothing."""
    from conftest import run_cli

    with FakeScryfall([], {}, {}) as pages:
        sync = _two_listeblanche_pages(cli, server, pages)
        assert "answered without the page" not in sync().stderr
        falcon = pages.url + "/carte/mkm/case-of-the-filched-falcon-mkm-44"
        db = data_dir / "warehouse" / "casefile.duckdb"

        gone = sync(falcon=404)
        assert ("1 page(s) of listeblanche answered without the page where the last run to ask for them found it: "
                "their cards' rulings from listeblanche go from the warehouse") in gone.stderr
        assert f"{falcon} (404)" in gone.stderr
        assert {name for name, *_ in rows(db, LISTEBLANCHE_SIGHTINGS)} == {"Case of the Burning Masks"}
        newest = max(p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists())
        meta = json.loads((newest / "run.json").read_text())
        assert meta["gone"] == {"listeblanche": [falcon]} and meta["sources"] == ["api", "listeblanche"]
        doctor = cli("doctor", "--format", "json")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        [warning] = [f for f in json.loads(doctor.stdout) if "without the page" in f["finding"]]
        assert warning["level"] == "warn" and warning["finding"] == (
            f'sync type:"Case": 1 page(s) of listeblanche answered without the page in the newest complete run, '
            f"{newest.name}, where the last run to ask for them found the page: their cards' rulings from "
            f"listeblanche are no longer served ({falcon})")
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        replay = run_cli(["sync", "--offline", str(newest)], elsewhere, CASEFILE_LISTEBLANCHE_URL=pages.url)
        assert replay.returncode == 0, replay.stderr
        [replayed] = [p for p in (elsewhere / "raw").iterdir() if (p / "run.json").exists()]
        assert json.loads((replayed / "run.json").read_text())["gone"] == meta["gone"]

        still = sync(falcon=404)
        assert "answered without the page" not in still.stderr
        assert "without the page" not in cli("doctor", "--format", "json").stdout
        newest = max(p for p in (data_dir / "raw").iterdir() if (p / "run.json").exists())
        assert "gone" not in json.loads((newest / "run.json").read_text())


def test_a_page_answering_408_fails_the_run_and_one_answering_400_is_warned_of_as_gone(server, cli, data_dir):
    """CONSTRUCTED statuses: 408 (Request Timeout) says the same request may succeed later. Before,
    a card page that answered it was read as no page: the card lost its sightings from the site,
    exit 0, with no warning. Now it is retried as a 5xx is, then the run fails (75) and the
    warehouse keeps the sightings. A 400, which no retry changes, is warned of as a page gone."""
    db = data_dir / "warehouse" / "casefile.duckdb"
    with FakeScryfall([], {}, {}) as pages:
        sync = _two_listeblanche_pages(cli, server, pages)
        falcon = pages.url + "/carte/mkm/case-of-the-filched-falcon-mkm-44"
        sync()
        both = rows(db, LISTEBLANCHE_SIGHTINGS)
        assert {name for name, *_ in both} == {"Case of the Filched Falcon", "Case of the Burning Masks"}

        timed_out = sync(expect=75, falcon=408)
        assert "HTTP 408" in timed_out.stderr and falcon in timed_out.stderr
        assert rows(db, LISTEBLANCHE_SIGHTINGS) == both

        refused = sync(falcon=400)
        assert ("1 page(s) of listeblanche answered without the page where the last run to ask for them found it"
                in refused.stderr) and f"{falcon} (400)" in refused.stderr
        assert {name for name, *_ in rows(db, LISTEBLANCHE_SIGHTINGS)} == {"Case of the Burning Masks"}


class _RulingsListGoesOn(FakeScryfall):
    """Answers one card's rulings as a list object whose has_more is true, its other rulings on a
    next_page (constructed from Scryfall's list object format: a list may be paginated)."""

    def _rulings(self, card_or_oracle_id):
        import json

        answer = super()._rulings(card_or_oracle_id)
        body = json.loads(answer.body)
        if answer.status == 200 and len(body["data"]) > 1 and "?page=2" not in card_or_oracle_id:
            body.update(has_more=True, next_page=f"{self.url}/cards/{card_or_oracle_id}/rulings?page=2",
                        data=body["data"][:1])
            answer.body = json.dumps(body).encode()
        return answer


def test_a_rulings_list_with_more_pages_fails_the_run_instead_of_dropping_rulings(cli, data_dir):
    """Before, only the first page of a rulings list was read: the card kept one of its rulings
    and the run loaded as if Scryfall had no others."""
    cards, rulings, sets = sample_api_data()
    with _RulingsListGoesOn(cards, rulings, sets, page_size=PAGE_SIZE) as server:
        result = cli("sync", "--api-url", server.url, "--sources", "api")
    assert result.returncode == 65, result.stderr
    assert "has_more" in result.stderr and "Traceback" not in result.stderr
    assert not (data_dir / "warehouse" / "casefile.duckdb").exists()


class _NextPageElsewhere(FakeScryfall):
    """A search page whose next_page keeps the API's host name but not its scheme or port
    (constructed: Scryfall's next_page is a URL of the same API)."""

    other = "other-port"

    def _search(self, query):
        import json
        from urllib.parse import urlsplit

        answer = super()._search(query)
        body = json.loads(answer.body)
        if body.get("next_page"):
            parts = urlsplit(body["next_page"])
            where = {"other-port": f"http://127.0.0.1:{parts.port + 1}",
                     "https": f"https://127.0.0.1:{parts.port}"}[self.other]
            body["next_page"] = f"{where}{parts.path}?{parts.query}"
            answer.body = json.dumps(body).encode()
        return answer


@pytest.mark.parametrize("other", ["other-port", "https"])
def test_a_next_page_on_another_port_or_scheme_is_not_followed(cli, data_dir, other):
    cards, rulings, sets = sample_api_data()
    with _NextPageElsewhere(cards, rulings, sets, page_size=PAGE_SIZE) as server:
        server.other = other
        result = cli("sync", "--api-url", server.url, "--sources", "api", CASEFILE_BACKOFF_BASE="0.05",
                     CASEFILE_BACKOFF_MAX="0.1")
        assert [r.query.get("page", "1") for r in server.requests if r.path == "/cards/search"] == ["1"]
    assert result.returncode == 65, result.stderr
    assert "next_page leads off the API" in result.stderr
