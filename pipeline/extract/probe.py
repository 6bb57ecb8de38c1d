"""Reachability of the sources, for ``casefile doctor --online``: one small request to each."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..config import Settings
from ..errors import CasefileError
from .http import HTML_ACCEPT, JSON_ACCEPT, HttpClient


def probe(settings: Settings) -> list[tuple[str, bool, str]]:
    """(what, ok, detail) for the API and each rulings site; never raises for a failed source."""
    quick = settings.with_overrides(max_attempts=1, read_timeout_s=min(settings.read_timeout_s, 15.0))
    client = HttpClient(quick)
    checks = [("Scryfall API", f"{settings.api_url}/bulk-data", JSON_ACCEPT),
              ("MTG wiki", f"{settings.wiki_url}/robots.txt", HTML_ACCEPT),
              ("listeblanche.fr", f"{settings.listeblanche_url}/robots.txt", HTML_ACCEPT)]
    results = []
    try:
        for what, url, accept in checks:
            host = urlsplit(url).netloc
            try:
                response = client.get(url, pacing=[(f"host:{host}", settings.page_interval_s)], accept=accept)
            except CasefileError as exc:
                results.append((what, False, f"{url}: {exc}"))
                continue
            ok = response.status < 500 and response.status != 429
            results.append((what, ok, f"{url}: HTTP {response.status}"))
    finally:
        client.close()
    return results
