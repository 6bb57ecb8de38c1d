"""Extract rulings pages from the web: the MTG wiki's type page, listeblanche.fr and scryfall.com card pages.

One page per Oracle card that has rulings on Scryfall's API (every printing of a card shows the
same rulings), one wiki page per query. Polite: one request per host per second, robots.txt
honoured (live runs), every answer kept in the raw store; a missing page (404) is recorded and
the run goes on. A 200 whose page shows no rulings and does not name the card (or the wiki page)
it was asked for is no answer about its rulings (a maintenance, error or login page): it is
handled as a failed answer (5xx), retried, then kept in quarantine/ as the run fails (75).
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import Callable
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

from ..errors import Aborted, LockBusy, ParseError, SourceUnavailable, TryAgainLater, UnrecognizedPage
from ..wire import HTML_ACCEPT, BodyProblem
from ..rawstore import EarlierPages, RunWriter
from .fetch import fetch_and_save

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
    # not fetched: robots.txt disallows them, or asks a Crawl-delay over max_crawl_delay_s
    disallowed: list[str] = field(default_factory=list)
    # the page sources the run leaves out, so that the warehouse keeps what earlier runs brought
    # from them, each with why: robots.txt let none of their pages be fetched, or none of them
    # answered with the page where earlier runs found them
    left_out: dict[str, str] = field(default_factory=dict)
    # of the pages not fetched, of the sources the run keeps: those whose newest earlier copy (a
    # 200) stands in for them, linked into the run (``RunWriter.save_carried``)
    carried: list[str] = field(default_factory=list)
    # of the sources the run keeps, the pages that answered without the page (404, 410, 400...)
    # where the newest earlier answer was the page: their cards lose their sightings from the site
    # (run.json's ``gone``)
    gone: dict[str, list[str]] = field(default_factory=dict)


class RedirectDisallowed(Exception):
    """A page redirects to one robots.txt disallows: the redirect is not followed."""


class Robots:
    """robots.txt per host, fetched once through the same transport and kept in the raw store."""

    def __init__(self, transport, writer: RunWriter, interval: float, enabled: bool, user_agent: str):
        self.transport, self.writer, self.interval = transport, writer, interval
        self.enabled, self.user_agent = enabled, user_agent
        self._parsers: dict[str, RobotsRules | None] = {}
        # of the hosts whose robots.txt lets no page be fetched without saying so, why: it could
        # not be read (the error), or it was refused (the status)
        self._shut_why: dict[str, str] = {}

    def allowed(self, url: str, origin: str) -> bool:
        if not self.enabled:
            return True
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        if base not in self._parsers:
            robots_url = f"{base}/robots.txt"
            try:
                response, _ = fetch_and_save(self.transport, self.writer, robots_url, origin=origin, kind="robots",
                                             key=parts.netloc, pacing=[(f"host:{parts.netloc}", self.interval)],
                                             accept=ROBOTS_ACCEPT)
            except (TryAgainLater, SourceUnavailable) as exc:
                if isinstance(exc, (Aborted, LockBusy)):
                    raise
                # 5xx, 429 or no connection after every attempt, or a redirect casefile does not
                # follow (to another host, or too many): RFC 9309 (2.3.1.4) has a crawler take an
                # unreachable robots.txt for a complete disallow; the run goes on without the
                # host's pages, and a source with none fetched keeps its earlier rulings
                log.warning("robots.txt of %s could not be read (%s): none of its pages is fetched in this run",
                            parts.netloc, exc)
                problem = str(exc).removeprefix(f"{robots_url}: ")  # the client's errors name the URL first
                self._shut_why[base] = f"robots.txt of {parts.netloc} could not be read: {problem}"
                response = None
            parser = None  # no robots.txt (404 and the like): every page may be fetched
            if response is not None and response.status == 200:
                # utf-8-sig: a byte order mark left in the first line would hide its User-agent
                parser = read_robots(response.body.decode("utf-8-sig", "replace"))
            elif response is None or response.status in (401, 403):  # unreadable, or refused: nothing
                if response is not None:
                    log.warning("robots.txt of %s refuses casefile (HTTP %d): none of its pages is fetched in this "
                                "run", parts.netloc, response.status)
                    self._shut_why[base] = f"robots.txt of {parts.netloc} refuses casefile (HTTP {response.status})"
                parser = RobotsRules(disallow_all=True)
            self._parsers[base] = parser
        parser = self._parsers[base]
        return parser is None or _can_fetch(parser, self.user_agent, url)

    def shut(self, url: str) -> bool:
        """Whether no page of ``url``'s host is fetched because its robots.txt could not be read or
        was refused (read by ``allowed`` first): said once, for the host."""
        parts = urlsplit(url)
        parser = self._parsers.get(f"{parts.scheme}://{parts.netloc}") if self.enabled else None
        return parser is not None and parser.disallow_all

    def shut_why(self, url: str) -> str | None:
        """Why no page of ``url``'s host is fetched when its robots.txt could not be read (the
        error) or was refused (the status), or None (its rules say which pages may be fetched)."""
        parts = urlsplit(url)
        return self._shut_why.get(f"{parts.scheme}://{parts.netloc}") if self.shut(url) else None

    def crawl_delay(self, url: str) -> float:
        """The Crawl-delay the robots.txt of ``url``'s host asks (read by ``allowed`` first), or 0."""
        parts = urlsplit(url)
        parser = self._parsers.get(f"{parts.scheme}://{parts.netloc}") if self.enabled else None
        return crawl_delay(parser, self.user_agent) if parser is not None else 0.0

    def host_interval(self, url: str) -> float:
        """The least time between two requests to ``url``'s host: the floor, or the Crawl-delay of
        its robots.txt when that is longer (read by ``allowed`` first)."""
        return max(self.interval, self.crawl_delay(url))


_DELAY_VALUE = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)$")
# A Crawl-delay beyond any wait casefile takes: longer ones are read as this (Python reads no
# integer of over 4,300 digits, nor a float of over some 300).
_LONGEST_DELAY_S = 10 ** 12


@dataclass(frozen=True)
class _Group:
    agents: tuple[str, ...]  # product tokens, lower case, or "*"
    rules: tuple[tuple[str, bool], ...]  # (path as written, allow)
    delay: float | None  # Crawl-delay, whole seconds


@dataclass(frozen=True)
class RobotsRules:
    """A robots.txt as RFC 9309 reads it (``read_robots``), or nothing to be fetched
    (``disallow_all``: a robots.txt that could not be read, or that the site refused)."""

    groups: tuple[_Group, ...] = ()
    disallow_all: bool = False

    def applying(self, user_agent: str) -> tuple[list[tuple[str, bool]], float]:
        """The rules and the Crawl-delay of the groups that apply to ``user_agent``: every group
        that names its product token (the name before "/", in any case), merged, or else every
        "*" group, merged (RFC 9309, 2.2.1); the longest delay of them."""
        token = user_agent.split("/", 1)[0].strip().lower()
        chosen = [g for g in self.groups if token in g.agents] or [g for g in self.groups if "*" in g.agents]
        delays = [g.delay for g in chosen if g.delay is not None]
        return [rule for g in chosen for rule in g.rules], max(delays, default=0.0)


def _delay_seconds(value: str) -> float | None:
    """A Crawl-delay's seconds, rounded up to whole ones (never quicker than asked), or None when
    it is no number of seconds."""
    if not _DELAY_VALUE.match(value):
        return None
    whole = value.split(".")[0].lstrip("0")
    if len(whole) > 12:
        return float(_LONGEST_DELAY_S)
    return float(Decimal(value).to_integral_value(rounding=ROUND_CEILING))


def read_robots(text: str) -> RobotsRules:
    """A robots.txt's groups (RFC 9309, 2.1-2.2): one or more User-agent lines, then their rules;
    a User-agent line after a rule starts the next group. Lines are ``key: value``, in any case,
    "#" starting a comment; rules before any User-agent line, and other keys (Sitemap), are
    ignored; an empty Disallow allows everything. Paths are kept as written: "*" a wildcard,
    "$" at the end an anchor, "%2A" and "%24" those characters (``_Pattern``)."""
    groups: list[_Group] = []
    agents: list[str] = []
    rules: list[tuple[str, bool]] = []
    delay: float | None = None
    in_rules = False
    for raw in text.splitlines():
        key, colon, value = raw.split("#", 1)[0].partition(":")
        if not colon:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "user-agent":
            if in_rules:
                groups.append(_Group(tuple(agents), tuple(rules), delay))
                agents, rules, delay, in_rules = [], [], None, False
            token = value.split("/", 1)[0].strip().lower()
            if token:
                agents.append(token)
        elif key in ("allow", "disallow", "crawl-delay") and agents:
            in_rules = True
            if key == "crawl-delay":
                seconds = _delay_seconds(value)
                if seconds is not None:
                    delay = seconds if delay is None else max(delay, seconds)
            elif value:
                rules.append((value, key == "allow"))
    if agents:
        groups.append(_Group(tuple(agents), tuple(rules), delay))
    return RobotsRules(tuple(groups))


def crawl_delay(parser: RobotsRules, user_agent: str) -> float:
    """The Crawl-delay (s) a robots.txt read by ``read_robots`` asks of ``user_agent``, or 0; a
    decimal one rounded up to whole seconds."""
    return parser.applying(user_agent)[1]


@dataclass(frozen=True)
class _Pattern:
    """A rule's path as RFC 9309 reads it: the literal text between its "*" wildcards (decoded),
    whether a final "$" anchors it to the end of the URL's path, and its length in octets."""

    pieces: tuple[str, ...]
    anchored: bool
    octets: int

    @classmethod
    def of(cls, rule_path: str) -> "_Pattern":
        """From the path as the robots.txt writes it: "*" and a final "$" are read before the
        percent-escapes are decoded, so "%2A" and "%24" stay the characters."""
        anchored = rule_path.endswith("$")
        text = rule_path[:-1] if anchored else rule_path
        pieces = tuple(unquote(piece) for piece in text.split("*"))
        return cls(pieces, anchored, sum(len(p.encode("utf-8")) for p in pieces) + len(pieces) - 1 + anchored)

    def matches(self, path: str) -> bool:
        """Whether the pattern matches ``path`` from its start: each piece at the earliest place
        after the one before (taking the earliest never loses a match), the last at the end
        when anchored. No backtracking, however many wildcards a rule has."""
        first, *rest = self.pieces
        if not path.startswith(first):
            return False
        if not rest:
            return not self.anchored or len(path) == len(first)
        position = len(first)
        *middle, last = rest
        for piece in middle:
            found = path.find(piece, position)
            if found < 0:
                return False
            position = found + len(piece)
        if self.anchored:
            return len(path) - len(last) >= position and path.endswith(last)
        return path.find(last, position) >= 0


# a robots.txt's rules are read once, not once for every page they are checked against
_pattern = functools.lru_cache(maxsize=4096)(_Pattern.of)


def _can_fetch(parser: RobotsRules, user_agent: str, url: str) -> bool:
    """Whether robots.txt lets ``user_agent`` fetch ``url``, by RFC 9309's rules: in the groups that
    apply, the rule whose path matches with the most octets decides, Allow on a tie; "*" in a
    path matches any characters, and "$" at its end the end of the URL's path. (Not Python's
    urllib.robotparser: it lets the first matching line decide, reads "*" and "$" as the
    characters themselves, keeps only the first "*" group, matches user agents by substring, and
    takes "/*?" for "/*".) ``parser``: from ``read_robots``."""
    if parser.disallow_all:
        return False
    rules, _ = parser.applying(user_agent)
    parts = urlsplit(url)
    path = unquote(urlunsplit(("", "", parts.path, parts.query, ""))) or "/"
    best: tuple[int, bool] | None = None  # (octets, allowance) of the rule that decides so far
    for rule_path, allow in rules:
        pattern = _pattern(rule_path)
        if pattern.matches(path) and (best is None or (pattern.octets, allow) > best):
            best = (pattern.octets, allow)
    return best is None or best[1]


# A page source none of whose pages answered with the page, where earlier runs found some of
# them, is left out of the run when it asked at least this many: every card's page gone at once
# is the site's doing (its pages moved, or an outage behind 404s), not each card's. One page
# missing (a query of one card, the wiki's page) is taken as the site says.
VANISHED_MIN_PAGES = 2
# why a run left a page source out (its run.json's ``left_out``); a source whose robots.txt could
# not be read (no connection, 5xx) or refused casefile (401, 403) is left out with that instead
# (``Robots.shut_why``): "robots.txt of mtg.wiki could not be read: gave up after 5 attempts; …"
LEFT_OUT_ROBOTS = "robots.txt let none of its pages be fetched"
LEFT_OUT_VANISHED = "none of its pages answered with the page, where earlier runs found them"
# of the pages a run finds gone, how many its warning names (the others are counted)
GONE_SHOWN = 3


class PageExtractor:
    def __init__(self, transport, writer: RunWriter, settings, robots: bool, progress=None,
                 not_fetched: Collection[str] = (), earlier: Callable[[], EarlierPages] | None = None):
        """``not_fetched`` (a replay): the pages the recorded run did not fetch because robots.txt
        kept it from them (its ``not_fetched``); the replay skips them as the run did.
        ``earlier``: called once, when a page is not fetched or answers 404 or 410, for what
        earlier runs got of the pages (``RawStore.earlier_pages``; a replay: the recorded run's
        carried pages, and no source found before, as its run.json already leaves out the sources
        the run left out)."""
        self.transport, self.writer, self.settings, self.progress = transport, writer, settings, progress
        self.robots = Robots(transport, writer, settings.page_interval_s, robots, settings.user_agent)
        self.not_fetched = frozenset(not_fetched)
        self._earlier, self._earlier_pages = earlier, None
        self._too_slow: set[str] = set()  # the hosts whose Crawl-delay is over the cap, warned about
        self._disallowing: set[str] = set()  # the hosts whose robots.txt disallows a page, warned about

    def _why_not(self, url: str, origin: str) -> str | None:
        """Why ``url`` is not to be fetched (robots.txt), or None."""
        if url in self.not_fetched:
            log.info("%s was not fetched by the recorded run (robots.txt); not replayed", url)
            return "not fetched by the recorded run"
        host = urlsplit(url).netloc
        if not self.robots.allowed(url, origin):
            if self.robots.shut(url) or host in self._disallowing:  # its host's warning is said
                log.info("robots.txt disallows %s; not fetched", url)
            else:
                self._disallowing.add(host)
                log.warning("robots.txt disallows %s; not fetched (nor any other page of %s it disallows: -v "
                            "names each)", url, host)
            return "robots.txt disallows it"
        delay, cap = self.robots.crawl_delay(url), self.settings.max_crawl_delay_s
        if delay > cap:  # waiting so long between pages would hold a scheduled sync for hours
            if host not in self._too_slow:
                self._too_slow.add(host)
                log.warning("robots.txt of %s asks for %g s between requests (Crawl-delay), more than the %g s "
                            "casefile waits (CASEFILE_MAX_CRAWL_DELAY): none of its pages is fetched in this run",
                            host, delay, cap)
            return f"robots.txt asks a Crawl-delay of {delay:g} s, over the {cap:g} s casefile waits"
        return None

    def _earlier_runs(self) -> EarlierPages:
        if self._earlier_pages is None:
            self._earlier_pages = self._earlier() if self._earlier is not None else EarlierPages({})
        return self._earlier_pages

    def _carry(self, url: str, origin: str, key: str, reason: str, result: PageExtract) -> None:
        """Let the newest earlier copy of a page not fetched stand in for it, if it was a page (200)."""
        found = self._earlier_runs().newest.get((origin, key))
        if found is None or found[1].status != 200:
            log.info("no earlier copy of %s stands in for it: the card has no sightings from %s in this run",
                     url, origin)
            return
        run, entry = found
        if url in self.not_fetched and entry.carried:  # a replay: the recording carried it, and said why
            reason = entry.carried
        self.writer.save_carried(run, entry, reason)
        result.carried.append(url)
        log.info("the copy of %s fetched at %s (run %s) stands in for it", url, entry.fetched_at, run.run_id)

    def _fetch(self, url: str, origin: str, key: str, result: PageExtract,
               expected: list[str] | str | None) -> int:
        """Fetch ``url`` (which robots.txt lets casefile fetch: ``_why_not``); the status it
        answered with (200: the page). ``expected``: the card's names (or the wiki page's title)
        the page must show (``page_check``)."""
        host = urlsplit(url).netloc

        def check_redirect(target: str) -> None:  # robots.txt's rules hold for the page a redirect leads to
            if not self.robots.allowed(target, origin):
                raise RedirectDisallowed(f"it redirects to {target}, which robots.txt disallows")

        response, _ = fetch_and_save(self.transport, self.writer, url, origin=origin, kind="page", key=key,
                                     pacing=[(f"host:{host}", self.robots.host_interval(url))], accept=HTML_ACCEPT,
                                     check_body=page_check(origin, url, expected), check_redirect=check_redirect)
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
        return response.status

    def run(self, sources: list[str], query: str, printings_by_oracle: dict[str, dict]) -> PageExtract:
        """``printings_by_oracle``: for each Oracle card with rulings, the printing that stands for it.
        A page source whose pages robots.txt all kept casefile from is in ``left_out``, and so is one
        none of whose pages (``VANISHED_MIN_PAGES`` or more) answered with the page where earlier
        runs got some of the same pages (the site moved them, or is down behind 404s: read as "no
        rulings", every card would lose its sightings from the site). Of the other sources, each
        page robots.txt kept casefile from is stood in for by its newest earlier copy, if there is
        one (``carried``), so that the card keeps its sightings from that site; and each page that
        answers without the page (404, 410 or another status) where the newest earlier answer was
        the page is in ``gone``, with a warning, as its card loses its sightings from the site."""
        s, result = self.settings, PageExtract()
        asked: dict[str, int] = {}
        fetched: dict[str, list[tuple[str, str]]] = {}  # (origin, key) of each page fetched
        found: dict[str, int] = {}  # of those, the pages that answered with the page (200)
        not_found: dict[str, list[tuple[str, str, str, int]]] = {}  # (url, origin, key, status) of the others
        skipped: list[tuple[str, str, str, str, str]] = []  # (source, url, origin, key, why)
        # of the pages skipped, per source, why their host's robots.txt let none be fetched (it could
        # not be read, or was refused), or None for a page its rules (or the recorded run) kept out
        shut: dict[str, set[str | None]] = {}

        def fetch(source: str, url: str, origin: str, key: str, expected: list[str] | str | None) -> None:
            asked[source] = asked.get(source, 0) + 1
            why = self._why_not(url, origin)
            if why is not None:
                result.disallowed.append(url)
                skipped.append((source, url, origin, key, why))
                shut.setdefault(source, set()).add(self.robots.shut_why(url))
                return
            try:
                status = self._fetch(url, origin, key, result, expected)
            except RedirectDisallowed as exc:  # as a page robots.txt disallows: not read, stood in for
                host = urlsplit(url).netloc
                if host in self._disallowing:  # its host's warning is said
                    log.info("%s not fetched: %s", url, exc)
                else:
                    self._disallowing.add(host)
                    log.warning("%s not fetched: %s (nor any other page of %s robots.txt disallows: -v names each)",
                                url, exc, host)
                result.disallowed.append(url)
                skipped.append((source, url, origin, key, "robots.txt disallows the page it redirects to"))
                shut.setdefault(source, set()).add(None)
                return
            found[source] = found.get(source, 0) + (status == 200)
            fetched.setdefault(source, []).append((origin, key))
            if status != 200:
                not_found.setdefault(source, []).append((url, origin, key, status))

        if "wiki" in sources:
            url = wiki_page_for(query, s.wiki_url, s.wiki_page)
            if url:
                fetch("wiki", url, "mtgwiki", query, wiki_title(url))
            else:
                log.info("no MTG wiki page is known for the query %s (set --wiki-page)", query)
        for oracle_id, printing in printings_by_oracle.items():
            if "listeblanche" in sources:
                fetch("listeblanche", listeblanche_url(s.listeblanche_url, printing), "listeblanche", oracle_id,
                      card_names(printing))
            if "scryfall-page" in sources:
                url = scryfall_page_url(s.scryfall_web_url, printing)
                if url:
                    fetch("scryfall-page", url, "scryfall-page", oracle_id, card_names(printing))
        for source in sources:
            if asked.get(source) and not fetched.get(source):
                whys = shut.get(source, {None})
                # the site could not be reached (or refused casefile): not what its robots.txt says
                result.left_out[source] = LEFT_OUT_ROBOTS if None in whys else "; ".join(sorted(whys))
        disallowed = [source for source, why in result.left_out.items() if why == LEFT_OUT_ROBOTS]
        if disallowed:
            log.warning("robots.txt let no page of %s be fetched: left out of this run, its rulings from earlier "
                        "runs are kept", ", ".join(disallowed))
        for source, why in result.left_out.items():
            if why != LEFT_OUT_ROBOTS:
                log.warning("no page of %s was fetched (%s): left out of this run, its rulings from earlier runs "
                            "are kept", source, why)
        for source, pages in fetched.items():
            if len(pages) >= VANISHED_MIN_PAGES and not found[source] and \
                    not self._earlier_runs().found.isdisjoint(pages):
                log.warning("none of the %d pages of %s asked in this run answered with the page (404 or another "
                            "answer), where earlier runs found some of them: %s is left out of this run and its "
                            "rulings from earlier runs are kept. If the site moved its pages, its address setting "
                            "(CASEFILE_LISTEBLANCHE_URL, CASEFILE_SCRYFALL_WEB_URL) needs a change",
                            len(pages), source, source)
                result.left_out[source] = LEFT_OUT_VANISHED
        for source, url, origin, key, why in skipped:
            if source not in result.left_out:
                self._carry(url, origin, key, why, result)
        for source, pages in not_found.items():
            if source not in result.left_out:
                self._gone(source, pages, result)
        return result

    def _gone(self, source: str, pages: list[tuple[str, str, str, int]], result: PageExtract) -> None:
        """Warn of the pages of ``source`` (url, origin, key, status) that answered without the
        page (404, 410, or another status no retry changed, such as 400) where the newest earlier
        answer was the page: the warehouse then drops their cards' sightings from the site, which
        no change event records. A page still gone in the next run is not warned of again."""
        newest = self._earlier_runs().newest
        gone = [(url, status) for url, origin, key, status in pages
                if (origin, key) in newest and newest[origin, key][1].status == 200]
        if not gone:
            return
        result.gone[source] = [url for url, _ in gone]
        shown = ", ".join(f"{url} ({status})" for url, status in gone[:GONE_SHOWN]) \
            + (f" and {len(gone) - GONE_SHOWN} more" if len(gone) > GONE_SHOWN else "")
        log.warning("%d page(s) of %s answered without the page where the last run to ask for them found it: their "
                    "cards' rulings from %s go from the warehouse (if the site moved them, its address setting needs "
                    "a change): %s", len(gone), source, source, shown)
