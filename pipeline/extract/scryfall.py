"""Extract from Scryfall's API: the search pages of a query, then rulings and sets.

Requests per sync = search pages + one rulings list per distinct Oracle card (rulings belong
to the Oracle card, so one printing stands for all of them) + one ``/sets/{code}`` per set seen.
Responses go to the raw store as they arrive; nothing is parsed here beyond the links to follow.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from ..errors import (EXIT_DATAERR, EXIT_UNAVAILABLE, EXIT_USAGE, CasefileError, ScryfallError, SourceDataError,
                      TryAgainLater)
from ..config import redact_url
from ..wire import JSON_ACCEPT, json_body_check
from ..normalize.scryfall import rulings_list, search_page_links
from ..rawstore import RunWriter
from .fetch import fetch_and_save, quarantine

log = logging.getLogger(__name__)
ORIGIN = "scryfall-api"


@dataclass
class ApiExtract:
    search_pages: int = 0
    total_cards: int | None = None
    rulings_for: dict[str, str] = field(default_factory=dict)  # oracle_id -> scryfall id asked
    stands_for: dict[str, dict] = field(default_factory=dict)  # oracle_id -> the printing asked for
    with_rulings: list[str] = field(default_factory=list)  # oracle ids whose rulings list is not empty
    sets: list[str] = field(default_factory=list)


def search_url(api_url: str, query: str, include_multilingual: bool = False) -> str:
    params = {"q": query, "unique": "prints"}
    if include_multilingual:
        params["include_multilingual"] = "true"
    return f"{api_url}/cards/search?{urlencode(params)}"


def scryfall_error(url: str, status: int, body: bytes, exit_code: int) -> ScryfallError:
    """Scryfall's error object (status, code, details, warnings) as an exception, or a plain one."""
    try:
        obj = json.loads(body)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and obj.get("object") == "error":
        warnings = obj.get("warnings") if isinstance(obj.get("warnings"), list) else []
        said = obj.get("status")  # documented as an integer; the HTTP status where it is not one
        said = said if isinstance(said, int) and not isinstance(said, bool) and 100 <= said <= 599 else status
        return ScryfallError(url, said, obj.get("code"), obj.get("details"),
                             [str(w) for w in warnings], exit_code=exit_code)
    snippet = body[:200].decode("utf-8", "replace").strip()
    return ScryfallError(url, status, None, f"unexpected answer: {snippet!r}", exit_code=exit_code)


def refused_or(code: int, status: int) -> int:
    """401 and 403 mean the source refused us (exit 69); other unexpected answers keep ``code``."""
    return EXIT_UNAVAILABLE if status in (401, 403) else code


def _origin(url: str) -> tuple:
    """Scheme, host and port of a URL (the port a scheme implies when none is written)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is no number
        port = -1
    return scheme, parts.hostname, port if port is not None else {"http": 80, "https": 443}.get(scheme)


def _check_unchanged(result: ApiExtract, links, seen: set[str], doc: str) -> None:
    """Stop when the search's results changed while they were paged: a printing on two pages, or
    another total, means the pages no longer split one list, and a printing may have been missed
    (it moved to a page already read), which would remove it from the warehouse."""
    again = [p["id"] for p in links.printings if p["id"] in seen]
    total = links.total_cards
    if again or (total is not None and result.total_cards is not None and total != result.total_cards):
        what = (f"printing {again[0]} came again on page {result.search_pages}" if again else
                f"total_cards went from {result.total_cards} to {total} on page {result.search_pages}")
        raise TryAgainLater(f"{doc}: Scryfall's results for the query changed while casefile paged through "
                            f"them ({what}); nothing loaded, try again later")
    seen.update(p["id"] for p in links.printings)


class ScryfallExtractor:
    def __init__(self, transport, writer: RunWriter, settings, progress=None):
        self.transport = transport
        self.writer = writer
        self.settings = settings
        self.api_origin = _origin(settings.api_url)
        self.progress = progress

    def _get(self, url: str, kind: str, key: str):
        """The answer and its raw-store entry; a body given up on is quarantined first."""
        s = self.settings
        pacing = self._search_pacing() if kind == "search" else [("api", s.api_interval_s)]
        return fetch_and_save(self.transport, self.writer, url, origin=ORIGIN, kind=kind, key=key,
                              pacing=pacing, accept=JSON_ACCEPT, check_body=json_body_check)

    def _tick(self, label: str) -> None:
        if self.progress is not None:
            self.progress(label)

    def _search_pacing(self) -> list[tuple[str, float]]:
        return [("api", self.settings.api_interval_s), ("api:search", self.settings.search_interval_s)]

    def first_page(self, query: str, include_multilingual: bool = False):
        """The first search page, not yet saved (``--bulk auto`` reads it first to choose the plan).

        A body given up on is still quarantined in the run.
        """
        url = search_url(self.settings.api_url, query, include_multilingual)
        try:
            return self.transport.get(url, pacing=self._search_pacing(), accept=JSON_ACCEPT,
                                      check_body=json_body_check)
        except CasefileError as exc:
            quarantine(self.writer, exc, ORIGIN, "search", "1")
            raise

    def run(self, query: str, include_multilingual: bool = False, first=None) -> ApiExtract:
        """Every search page, then rulings and sets. ``first``: the first page, already fetched."""
        result = ApiExtract()
        seen: set[str] = set()  # the printings of the pages read so far
        url: str | None = search_url(self.settings.api_url, query, include_multilingual)
        while url:
            if first is not None and result.search_pages == 0:  # read already, to choose the plan
                response, entry = first, self.writer.save(first, ORIGIN, "search", key="1")
            else:
                response, entry = self._get(url, "search", str(result.search_pages + 1))
            result.search_pages += 1
            self._tick("search")
            if response.status != 200:
                is_first = result.search_pages == 1
                raise scryfall_error(url, response.status, response.body,
                                     EXIT_USAGE if is_first and response.status in (400, 404)
                                     else refused_or(EXIT_DATAERR, response.status))
            links = search_page_links(response.body, entry.path)
            if result.total_cards is None:
                result.total_cards = links.total_cards
                for warning in links.warnings:  # terms Scryfall ignored: the cards are not the ones asked for
                    log.warning("Scryfall searched %r with a warning: %s", query, warning)
            _check_unchanged(result, links, seen, entry.path)
            for printing in links.printings:
                for oracle_id in printing["oracle_ids"]:
                    # one printing stands for the Oracle card: the first English one seen
                    current = result.stands_for.get(oracle_id)
                    if current is None or (current.get("lang") != "en" and printing.get("lang") == "en"):
                        result.stands_for[oracle_id] = printing
                        result.rulings_for[oracle_id] = printing["id"]
                if printing["set"] not in result.sets:
                    result.sets.append(printing["set"])
            url = links.next_page if links.has_more else None
            if url and (urlsplit(url).username is not None or urlsplit(url).password is not None):
                raise SourceDataError(f"{entry.path}: next_page carries credentials: {redact_url(url)}")
            if url and _origin(url) != self.api_origin:  # another scheme or port is another server
                raise SourceDataError(f"{entry.path}: next_page leads off the API ({self.settings.api_url}): {url}")
            if links.has_more and not url:
                raise SourceDataError(f"{entry.path}: has_more is true but there is no next_page")

        for oracle_id, card_id in result.rulings_for.items():
            url = f"{self.settings.api_url}/cards/{card_id}/rulings"
            response, entry = self._get(url, "rulings", oracle_id)
            self._tick("rulings")
            if response.status != 200:
                raise scryfall_error(url, response.status, response.body, refused_or(EXIT_DATAERR, response.status))
            count, more = rulings_list(response.body, entry.path)
            if more:  # the rest would be missed, and read as rulings Scryfall no longer has
                raise SourceDataError(f"{entry.path}: the rulings list of Oracle card {oracle_id} says has_more: "
                                      "casefile reads a card's rulings from one list; nothing loaded")
            if count:
                result.with_rulings.append(oracle_id)

        for code in result.sets:
            url = f"{self.settings.api_url}/sets/{code}"
            response, _ = self._get(url, "set", code)
            self._tick("sets")
            if response.status == 404:
                log.warning("Scryfall has no set %r (404); its printings keep the code only", code)
            elif response.status != 200:
                raise scryfall_error(url, response.status, response.body, EXIT_UNAVAILABLE)
        return result
