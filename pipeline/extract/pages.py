"""Extract rulings pages from the web: the MTG wiki's type page, listeblanche.fr and scryfall.com card pages.

One page per Oracle card that has rulings on Scryfall's API (every printing of a card shows the
same rulings), one wiki page per query. Polite: one request per host per second, robots.txt
honoured (live runs), every answer kept in the raw store; a missing page (404) is recorded and
the run goes on. A 200 whose page shows no rulings and does not name the card (or the wiki page)
it was asked for is no answer about its rulings (a maintenance, error or login page): it is
handled as a failed answer (5xx), retried, then kept in quarantine/ as the run fails (75).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

from ..errors import ParseError, SourceUnavailable, UnrecognizedPage
from ..wire import HTML_ACCEPT, BodyProblem
from ..rawstore import RunWriter
from .fetch import fetch_and_save

if TYPE_CHECKING:
    from urllib.robotparser import RobotFileParser

log = logging.getLogger(__name__)

_TYPE_QUERY = re.compile(r'^\s*(?:type|t):(?:"([^"]+)"|(\S+))\s*$', re.IGNORECASE)
ROBOTS_ACCEPT = "text/plain,*/*;q=0.1"


def slug(name: str) -> str:
    """listeblanche.fr's card slug: ASCII, lower case, apostrophes dropped, other runs of symbols as "-"."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower().replace("'", "")).strip("-")


def wiki_page_for(query: str, wiki_url: str, override: str | None = None) -> str | None:
    """The MTG wiki page of a type query (type:"Case" -> /page/Case), or the configured page."""
    if override:
        return override
    match = _TYPE_QUERY.match(query)
    if not match:
        return None
    name = (match.group(1) or match.group(2)).strip()
    return f"{wiki_url}/page/{quote(name[:1].upper() + name[1:].replace(' ', '_'))}"


def listeblanche_url(base: str, printing: dict) -> str:
    set_code = printing["set"].lower()
    return f"{base}/carte/{set_code}/{slug(printing['name'])}-{set_code}-{printing['collector_number']}"


def scryfall_page_url(base: str, printing: dict) -> str | None:
    """The printing's scryfall_uri, on the configured host (tests point it at a loopback server)."""
    uri = printing.get("scryfall_uri")
    if not uri:
        return None
    parts = urlsplit(uri)
    return f"{base}{parts.path}"


def card_names(printing: dict) -> list[str]:
    """The names a page of the printing's card may show it by: its name and each face's, and the
    same printed in the printing's language (a page of a Japanese printing heads it in Japanese)."""
    names = []
    for whole in (printing.get("name"), printing.get("printed_name"),
                  *(face.get("printed_name") for face in printing.get("card_faces") or () if isinstance(face, dict))):
        whole = whole.strip() if isinstance(whole, str) else ""
        names += [whole, *(face.strip() for face in whole.split(" // "))] if " // " in whole else [whole]
    return [n for n in dict.fromkeys(names) if n]


def wiki_title(url: str) -> str | None:
    """The title of the wiki page at ``url`` (/page/Case, /wiki/Case, ?title=Case), or None when
    the URL does not say it."""
    parts = urlsplit(url)
    asked = parse_qs(parts.query).get("title")
    name = asked[0] if asked else unquote(parts.path.rstrip("/").rsplit("/", 1)[-1])
    name = name.replace("_", " ").strip()
    return name if name and "." not in name else None


def page_check(origin: str, url: str, expected: list[str] | str | None) -> Callable[[dict, bytes], None]:
    """The check of a 200's body for ``url``: a page that is no page of what was asked for (the
    card's names, the wiki page's title) raises BodyProblem, as a failed answer; any other page
    passes (one whose layout changed is refused by the build, which names it)."""
    warned = []

    def check(headers: dict[str, str], body: bytes) -> None:
        # imported here: the HTML parsers are needed by page sources only
        from ..normalize.pages.listeblanche import parse_listeblanche_page
        from ..normalize.pages.scryfall_page import parse_scryfall_page
        from ..normalize.pages.wiki import parse_wiki_page

        content_type = headers.get("content-type")
        try:
            if origin == "mtgwiki":
                parse_wiki_page(body, url, content_type, title=expected)
            elif origin == "listeblanche":
                parse_listeblanche_page(body, url, None, content_type, card_names=expected)
            elif origin == "scryfall-page":
                parse_scryfall_page(body, url, None, content_type, card_names=expected)
        except UnrecognizedPage as exc:
            if not warned:
                log.warning("%s answered 200 with a page that is not the one asked for (a maintenance, error or "
                            "login page?): %s; handled as a failed answer", url, exc.reason)
                warned.append(url)
            raise BodyProblem(f"not the page asked for: {exc.reason}", transient=True) from None
        except ParseError:
            return

    return check


# A page's answers that say the site refuses the client, not that the page is missing: 401 and 407
# (credentials), 403 (forbidden: a block of automated clients), 451 (refused for legal reasons).
REFUSED = (401, 403, 407, 451)


@dataclass
class PagePlan:
    """What the page sources of an API sync would request: at most, since a page is asked only
    for an Oracle card that has rulings, which the rulings lists tell after the plan is made."""

    requests: int
    pacing_s: float
    detail: list[str]


def page_plan(settings, sources: list[str], query: str, oracle_cards: int) -> PagePlan | None:
    """The requests ``run`` would make for ``oracle_cards`` cards with rulings, each host's
    robots.txt included, and the least time the pacing allows for them: the run asks one page at
    a time, each host at most one a ``page_interval_s``, so the busiest host sets the time. None
    when no page source is asked."""
    if not set(sources) - {"api"}:
        return None
    per_host: dict[str, int] = {}
    detail: list[str] = []

    def ask(url: str, n: int, what: str) -> None:
        if n:
            host = urlsplit(url).netloc
            per_host[host] = per_host.get(host, 0) + n
            detail.append(what)

    if "wiki" in sources:
        url = wiki_page_for(query, settings.wiki_url, settings.wiki_page)
        if url:
            ask(url, 1, f"1 {url} (the MTG wiki page of the query)")
        else:
            detail.append("no MTG wiki page is known for the query (set --wiki-page): none asked")
    for source, base, site in (("listeblanche", settings.listeblanche_url, "listeblanche.fr"),
                               ("scryfall-page", settings.scryfall_web_url, "scryfall.com")):
        if source in sources:
            ask(base, oracle_cards, f"at most {oracle_cards:,} {site} card pages (one per Oracle card with rulings)")
    if per_host:
        detail.append(f"{len(per_host)} robots.txt (one per host: {', '.join(per_host)})")
    # a host asked for n pages is asked n + 1 times (its robots.txt first): n waits
    pacing = max(per_host.values(), default=0) * settings.page_interval_s
    return PagePlan(sum(per_host.values()) + len(per_host), pacing, detail)


@dataclass
class PageExtract:
    fetched: int = 0
    missing: list[str] = field(default_factory=list)
    disallowed: list[str] = field(default_factory=list)


class Robots:
    """robots.txt per host, fetched once through the same transport and kept in the raw store."""

    def __init__(self, transport, writer: RunWriter, interval: float, enabled: bool, user_agent: str):
        self.transport, self.writer, self.interval = transport, writer, interval
        self.enabled, self.user_agent = enabled, user_agent
        self._parsers: dict[str, RobotFileParser | None] = {}

    def allowed(self, url: str, origin: str) -> bool:
        if not self.enabled:
            return True
        # imported here: it brings urllib.request and ssl, which a replay or a bulk sync never needs
        from urllib.robotparser import RobotFileParser

        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        if base not in self._parsers:
            robots_url = f"{base}/robots.txt"
            response, _ = fetch_and_save(self.transport, self.writer, robots_url, origin=origin, kind="robots",
                                         key=parts.netloc, pacing=[(f"host:{parts.netloc}", self.interval)],
                                         accept=ROBOTS_ACCEPT)
            parser = None
            if response.status == 200:
                parser = RobotFileParser()
                # utf-8-sig: a byte order mark left in the first line would hide its User-agent
                parser.parse(response.body.decode("utf-8-sig", "replace").splitlines())
            elif response.status in (401, 403):
                parser = RobotFileParser()
                parser.disallow_all = True
            self._parsers[base] = parser
        parser = self._parsers[base]
        return parser is None or _can_fetch(parser, self.user_agent, url)

    def host_interval(self, url: str) -> float:
        """The least time between two requests to ``url``'s host: the floor, or the Crawl-delay of
        its robots.txt when that is longer (read by ``allowed`` first)."""
        parts = urlsplit(url)
        parser = self._parsers.get(f"{parts.scheme}://{parts.netloc}") if self.enabled else None
        delay = parser.crawl_delay(self.user_agent) if parser is not None else None
        return max(self.interval, float(delay or 0))


def _can_fetch(parser: RobotFileParser, user_agent: str, url: str) -> bool:
    """Whether robots.txt lets ``user_agent`` fetch ``url``, by RFC 9309's rule: in the group that
    applies, the longest matching path decides, Allow on a tie. (The standard library lets the
    first matching line decide, so "Allow: /" before "Disallow: /carte/" allowed every page.)"""
    if parser.disallow_all:
        return False
    if parser.allow_all:
        return True
    parts = urlsplit(unquote(url))
    path = quote(urlunsplit(("", "", parts.path, parts.query, ""))) or "/"
    entry = next((e for e in parser.entries if e.applies_to(user_agent)), parser.default_entry)
    if entry is None:
        return True
    best = None
    for line in entry.rulelines:
        if line.applies_to(path) and (best is None or len(line.path) > len(best.path)
                                      or (len(line.path) == len(best.path) and line.allowance)):
            best = line
    return best is None or best.allowance


class PageExtractor:
    def __init__(self, transport, writer: RunWriter, settings, robots: bool, progress=None):
        self.transport, self.writer, self.settings, self.progress = transport, writer, settings, progress
        self.robots = Robots(transport, writer, settings.page_interval_s, robots, settings.user_agent)

    def _fetch(self, url: str, origin: str, key: str, result: PageExtract,
               expected: list[str] | str | None) -> None:
        if not self.robots.allowed(url, origin):
            log.warning("robots.txt disallows %s; not fetched", url)
            result.disallowed.append(url)
            return
        host = urlsplit(url).netloc
        response, _ = fetch_and_save(self.transport, self.writer, url, origin=origin, kind="page", key=key,
                                     pacing=[(f"host:{host}", self.robots.host_interval(url))], accept=HTML_ACCEPT,
                                     check_body=page_check(origin, url, expected))
        result.fetched += 1
        if self.progress is not None:
            self.progress(origin)
        if response.status in (404, 410):
            log.info("no page at %s (%s); recorded", url, response.status)
            result.missing.append(url)
        elif response.status in REFUSED:
            # not "this card has no rulings there": the site refuses casefile. Read as no
            # rulings, every card's sightings from the site would go until it lets us in again
            raise SourceUnavailable(f"{url} answered {response.status}: the site refuses casefile; nothing of this "
                                    f"run is loaded and the warehouse keeps its sightings (leave the site out with "
                                    f"--sources if it goes on)")
        elif response.status != 200:
            log.warning("%s answered %s; recorded, no rulings read from it", url, response.status)
            result.missing.append(url)

    def run(self, sources: list[str], query: str, printings_by_oracle: dict[str, dict]) -> PageExtract:
        """``printings_by_oracle``: for each Oracle card with rulings, the printing that stands for it."""
        s, result = self.settings, PageExtract()
        if "wiki" in sources:
            url = wiki_page_for(query, s.wiki_url, s.wiki_page)
            if url:
                self._fetch(url, "mtgwiki", query, result, wiki_title(url))
            else:
                log.info("no MTG wiki page is known for the query %s (set --wiki-page)", query)
        for oracle_id, printing in printings_by_oracle.items():
            if "listeblanche" in sources:
                self._fetch(listeblanche_url(s.listeblanche_url, printing), "listeblanche", oracle_id, result,
                            card_names(printing))
            if "scryfall-page" in sources:
                url = scryfall_page_url(s.scryfall_web_url, printing)
                if url:
                    self._fetch(url, "scryfall-page", oracle_id, result, card_names(printing))
        return result
