"""Reachability of the sources, for ``casefile doctor --online``: one small request to each.

Like a sync, it asks Scryfall's API nothing inside a remembered 429 cool-down, and remembers a
429 it gets (``data/cooldown.json``) instead of waiting it out.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .. import cooldown
from ..config import Settings
from ..errors import EXIT_OK, EXIT_UNAVAILABLE, CasefileError, RateLimited
from .http import HTML_ACCEPT, JSON_ACCEPT, HttpClient


def _remember(settings: Settings, url: str, wait_s: float) -> None:
    """A 429 of the API: kept for the next sync (where the folder can be written), and the probe
    stops there rather than sleeping the Retry-After for one question."""
    cooldown.remember_if_possible(settings.cooldown_path, url, wait_s)
    raise RateLimited(f"answered 429 and asks for a pause of {wait_s:.0f} s; try again later")


def _paused(url: str, wait_s: float) -> None:
    """A site's 429: the probe stops there (75) rather than sleep the Retry-After for one question."""
    raise RateLimited(f"answered 429 and asks for a pause of {wait_s:.0f} s; try again later")


def probe(settings: Settings) -> list[tuple[str, int, str]]:
    """(what, exit code: 0 when the source answers (the API with a 2xx), 75 when it asked for a
    pause, else 69, detail) for the API and each rulings site; never raises for a failed source."""
    quick = settings.with_overrides(max_attempts=1, read_timeout_s=min(settings.read_timeout_s, 15.0))
    api_client = HttpClient(quick, on_rate_limited=lambda url, wait: _remember(settings, url, wait))
    client = HttpClient(quick, on_rate_limited=_paused)
    checks = [("Scryfall API", f"{settings.api_url}/bulk-data", JSON_ACCEPT, True),
              ("MTG wiki", f"{settings.wiki_url}/robots.txt", HTML_ACCEPT, False),
              ("listeblanche.fr", f"{settings.listeblanche_url}/robots.txt", HTML_ACCEPT, False)]
    results = []
    try:
        for what, url, accept, is_api in checks:
            host = urlsplit(url).netloc
            if is_api:
                try:
                    cooldown.check(settings.cooldown_path, reanchor=False)
                except RateLimited as exc:
                    results.append((what, exc.exit_code, f"not asked: {exc}"))
                    continue
            try:
                response = (api_client if is_api else client).get(
                    url, pacing=[(f"host:{host}", settings.page_interval_s)], accept=accept)
            except RateLimited as exc:
                results.append((what, exc.exit_code, _naming(url, exc)))
                continue
            except CasefileError as exc:
                results.append((what, EXIT_UNAVAILABLE, _naming(url, exc)))
                continue
            # the API must answer its question (a 401 or 403 there is a sync's 69); a site answers
            # whatever robots.txt it has, or none (404)
            ok = 200 <= response.status < 300 if is_api else \
                response.status < 500 and response.status != 429
            results.append((what, EXIT_OK if ok else EXIT_UNAVAILABLE, f"{url}: HTTP {response.status}"))
    finally:
        api_client.close()
        client.close()
    return results


def _naming(url: str, exc: CasefileError) -> str:
    """The error, naming the URL asked once: the HTTP client's errors start with it already."""
    text = str(exc)
    return text if text.startswith(f"{url}:") else f"{url}: {text}"
