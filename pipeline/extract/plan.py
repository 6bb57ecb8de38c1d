"""``casefile sync --plan``: what a sync would request, and the time the pacing alone requires.

Asks only what planning needs (the first search page, the ``/bulk-data`` index) and writes
nothing: no run, no warehouse. Like a sync, it asks nothing inside a remembered 429 cool-down,
and remembers a 429 it gets (``data/cooldown.json``).
"""

from __future__ import annotations


from .. import cooldown
from ..config import DEFAULT_QUERY, LIVE_DEFAULT_SOURCES, Settings, check_sources
from ..errors import EXIT_UNAVAILABLE, EXIT_USAGE, UsageError
from .http import JSON_ACCEPT, HttpClient, json_body_check
from ..normalize import query as query_filter
from ..normalize.scryfall import search_page, search_warnings
from . import bulk as bulk_plans
from .pages import page_plan
from .scryfall import refused_or, scryfall_error, search_url



def plan(settings: Settings, *, query: str | None = None, include_multilingual: bool = False,
         bulk: str = "auto", sources: list[str] | None = None) -> dict:
    """What a sync would request, without syncing. Fetches only: the first search page (unless
    ``bulk`` is always) and the ``/bulk-data`` index (with ``always``, or with ``auto`` when the
    API plan needs AUTO_API_BELOW requests or more). Writes nothing but a 429's cool-down.
    ``sources``: as for a live sync (default LIVE_DEFAULT_SOURCES); the page sources' requests
    follow the API plan's, and a bulk plan skips them."""
    query = query or DEFAULT_QUERY
    sources = list(sources or LIVE_DEFAULT_SOURCES)
    check_sources(sources)
    cooldown.check(settings.cooldown_path, reanchor=False)  # 75 inside Scryfall's cool-down; no lock held
    client = HttpClient(settings, on_rate_limited=lambda url, wait: cooldown.remember_if_possible(settings.cooldown_path, url, wait))
    fetched: list[str] = []
    warnings: tuple[str, ...] = ()
    by_api = by_bulk = None
    try:
        local = True
        try:
            query_filter.parse(query)
        except UsageError as exc:
            local = False
            if bulk == "always":
                raise
            reason = str(exc)
        if bulk != "always":
            url = search_url(settings.api_url, query, include_multilingual)
            pacing = [("api", settings.api_interval_s), ("api:search", settings.search_interval_s)]
            response = client.get(url, pacing=pacing, accept=JSON_ACCEPT, check_body=json_body_check)
            fetched.append(url)
            if response.status != 200:
                raise scryfall_error(url, response.status, response.body, refused_or(EXIT_USAGE, response.status))
            first_page = search_page(response.body, url)
            warnings = search_warnings(first_page)  # terms Scryfall ignored: the plan is for the rest
            by_api = bulk_plans.api_plan(settings, first_page)
        if local and (bulk == "always" or (bulk == "auto" and by_api.requests >= bulk_plans.AUTO_API_BELOW)):
            url = f"{settings.api_url}/bulk-data"
            response = client.get(url, pacing=[("api", settings.api_interval_s)], accept=JSON_ACCEPT,
                                  check_body=json_body_check)
            fetched.append(url)
            if response.status != 200:
                raise scryfall_error(url, response.status, response.body, EXIT_UNAVAILABLE)
            by_bulk = bulk_plans.bulk_plan(settings, bulk_plans.read_index(response.body, url), include_multilingual)
    finally:
        client.close()
    chosen = by_bulk if bulk == "always" else by_api if bulk == "never" or by_bulk is None else \
        bulk_plans.choose(by_api, by_bulk)
    pages = page_plan(settings, sources, query, chosen.oracle_cards) if chosen.name == "api" else None
    page_sources = [s for s in sources if s != "api"]
    notes = [f"Scryfall warns: {w}" for w in warnings]
    if page_sources and chosen.name == "bulk":
        notes.append(f"the bulk plan reads Scryfall's files only: the page sources ({', '.join(page_sources)}) "
                     "are skipped")
    if not local and bulk == "auto":
        notes.append(f"bulk plan not possible: {reason}")
    elif bulk == "auto" and by_bulk is None:
        notes.append(f"API plan under {bulk_plans.AUTO_API_BELOW} requests: taken without asking for the bulk index")
    elif bulk == "auto":  # a sync asks what planning asked too: the search page, or the index, is one more
        extra = "the first search page" if chosen is by_bulk else "/bulk-data"
        word = "at most " if pages else "" if chosen.exact else "about "
        total = chosen.requests + 1 + (pages.requests if pages else 0)
        notes.append(f"a sync with --bulk auto makes {word}{total:,} requests: {extra} too, which it asks to choose")
    return {"query": query, "bulk": bulk, "sources": sources, "chosen": chosen.name, "fetched": fetched,
            "notes": notes,
            "plans": {p.name: {"requests": p.requests, "bytes": p.bytes, "pacing_s": round(p.pacing_s, 3),
                               "exact": p.exact, "detail": p.detail} for p in (by_api, by_bulk) if p is not None},
            "pages": None if pages is None else {"requests": pages.requests, "pacing_s": round(pages.pacing_s, 3),
                                                 "detail": pages.detail}}
