"""Extract the Comprehensive Rules: Wizards' published text file, from a URL or a local path.

Either way the bytes go to the raw store as they came, so ``rebuild`` can re-read every edition.
A local file is read here too: it is a source like any other, and nothing else reads sources.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from ..clock import utc_now_iso
from ..config import expand_home, redact_url, url_problem
from ..errors import SourceDataError, SourceUnavailable, UsageError, printable
from ..wire import Response
from ..rawstore import RunWriter
from ..records import RULES_ORIGIN as ORIGIN

TEXT_ACCEPT = "text/plain,*/*;q=0.1"
# The full Comprehensive Rules file is about 1 MiB (2024); 16 MiB leaves room and refuses junk.
MAX_CR_BYTES = 16 * 1024 * 1024


def is_url(source: str) -> bool:
    try:
        return urlsplit(source).scheme in ("http", "https")
    except ValueError:  # "http://[...": meant as a URL, if not a well-formed one (check_url says why)
        return True


def check_url(url: str) -> None:
    """Refuse a URL no request could be made to, before a run is made for it. A space in its path
    is fine (it is sent as %20; Wizards' file names hold one)."""
    problem = url_problem(url)  # credentials too: refused before the run records the URL
    if problem:
        raise UsageError(f"{redact_url(url)} {problem}")


def check_path(source: str) -> Path:
    """The local file ``source`` names; a path that names no file is refused, before a run is made
    for it (a mistyped name would leave a failed run in the raw store)."""
    if not source.strip():  # an unset shell variable
        raise UsageError("give a file or an http(s) URL")
    path = expand_home(source)
    try:
        if path.is_file():
            return path
        folder = path.is_dir()
    except OSError as exc:  # a name too long, a folder on the way that may not be searched
        raise UsageError(f"{printable(source)}: cannot read it ({exc.strerror or exc})") from None
    if folder:
        raise UsageError(f"{printable(source)} is a folder, not a file")
    raise UsageError(f"{printable(source)} is neither an http(s) URL nor a readable file")


def fetch_rules(source: str, transport, writer: RunWriter, settings) -> None:
    """Save the CR file named by ``source`` (http(s) URL or local path) into the run."""
    if is_url(source):
        host = urlsplit(source).netloc
        response = transport.get(source, pacing=[(f"host:{host}", settings.page_interval_s)], accept=TEXT_ACCEPT)
        writer.save(response, ORIGIN, "rules", key=source)
        if response.status != 200:
            raise SourceUnavailable(f"{source} answered HTTP {response.status}")
        return
    path = check_path(source)
    size = path.stat().st_size
    if size > MAX_CR_BYTES:
        raise SourceDataError(f"{printable(source)}: {size:,} bytes is too large for a Comprehensive Rules file")
    body = path.read_bytes()
    uri = path.resolve().as_uri()  # percent-encoded: the name's exact bytes, UTF-8 or not
    writer.save(Response(url=uri, final_url=uri, status=200, headers={"content-type": "text/plain"},
                         body=body, fetched_at=utc_now_iso()), ORIGIN, "rules", key=printable(path.name))
