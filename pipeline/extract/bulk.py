"""Extract through Scryfall's bulk data: a handful of requests instead of thousands.

Requests of a bulk sync: ``/bulk-data`` (the index), the cards file (``default_cards``, or
``all_cards`` with ``--multilingual``), the ``rulings`` file, and ``/sets`` (every set in one
list). Files are streamed to the raw store, never held in memory, with a conditional GET
(If-None-Match / If-Modified-Since from the newest run that holds the same URL): a 304 reuses
that run's file. The descriptor's fields are read defensively (https://scryfall.com/docs/api/bulk-data):
``jsonl_download_uri`` (gzipped JSON lines) when present, else ``download_uri`` (a JSON array).

Also here: ``Plan``, ``api_plan`` and ``bulk_plan``, what a sync by each plan would request
(``extract/plan.py``'s ``plan`` and the sync's ``--bulk auto`` use them), and ``choose``, the
``--bulk auto`` rule.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from dataclasses import dataclass, field

from ..config import redact_url, url_problem
from ..errors import CasefileError, SourceDataError, EXIT_UNAVAILABLE
from ..wire import GZIP_MAGIC, JSON_ACCEPT, BodyProblem, json_body_check
from ..normalize import query as query_filter
from ..rawstore import RawStore, RunWriter
from .scryfall import ORIGIN, scryfall_error

log = logging.getLogger(__name__)

# Scryfall's search pages hold 175 cards (docs, "Search Cards", as of 2026).
PAGE_SIZE = 175
# --bulk auto: below this many API requests (about 20 s of pacing) the API plan is taken without
# asking for the bulk index: the bulk files are hundreds of MB, 200 API answers a few MB.
AUTO_API_BELOW = 200
# --bulk auto weighs bytes against requests at this rate: 10 MB take as long as one second of
# pacing (a modest line; the comparison only has to be right by orders of magnitude).
BYTES_PER_SECOND = 10_000_000
# A rulings list or a set object, for estimates (the sample's average, 2026).
RULINGS_BYTES = 4_000
SET_BYTES = 500


@dataclass
class Descriptor:
    type: str
    url: str
    size: int | None
    updated_at: str | None
    jsonl: bool
    problem: str | None = None  # fields of another type than documented, e.g. "size is a string"


def read_index(body: bytes, doc: str) -> dict[str, Descriptor]:
    """The bulk_data objects of the ``/bulk-data`` list, by type."""
    try:
        obj = json.loads(body)
    except ValueError:
        raise SourceDataError(f"{doc}: the bulk data index is not JSON") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("data"), list):
        raise SourceDataError(f"{doc}: the bulk data index is not a list object with a data array")
    found = {}
    for n, item in enumerate(obj["data"], 1):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            got = _json_type(item.get("type")) if isinstance(item, dict) else f"{_json_type(item)} instead of an object"
            raise SourceDataError(f"{doc}: entry {n} of the bulk data index has no string field 'type' ({got})")
        # a field read here that changed type is a format change: said, not taken for absent
        wrong = [f"{name} is {_json_type(item[name])}" for name, ok in _FIELD_TYPES
                 if item.get(name) is not None and not ok(item[name])]
        # an empty URL is no URL: the other one is taken, and read in its own format
        url = item.get("jsonl_download_uri") if isinstance(item.get("jsonl_download_uri"), str) else None
        jsonl = bool(url)
        url = url or (item.get("download_uri") if isinstance(item.get("download_uri"), str) else None)
        size = item.get("size") if isinstance(item.get("size"), int) and not isinstance(item.get("size"), bool) else None
        found[item["type"]] = Descriptor(item["type"], url or "", size, item.get("updated_at"), jsonl,
                                         "; ".join(wrong) or None)
    return found


# The fields of a bulk_data object casefile reads, and the JSON type Scryfall documents for each.
_FIELD_TYPES = (("jsonl_download_uri", lambda v: isinstance(v, str)), ("download_uri", lambda v: isinstance(v, str)),
                ("size", lambda v: isinstance(v, int) and not isinstance(v, bool)))


def _json_type(value) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
             dict: "an object", type(None): "missing"}
    return names.get(type(value), type(value).__name__)


def descriptor(index: dict[str, Descriptor], kind: str, doc: str) -> Descriptor:
    d = index.get(kind)
    if d is None:
        raise SourceDataError(f"{doc}: the bulk data index has no {kind!r} entry (types: {', '.join(sorted(index))})")
    if d.problem:
        raise SourceDataError(f"{doc}: the {kind!r} bulk entry has a field of another type than documented: {d.problem}")
    if not d.url:
        raise SourceDataError(f"{doc}: the {kind!r} bulk entry has neither jsonl_download_uri nor download_uri")
    problem = url_problem(d.url)
    if problem:
        raise SourceDataError(f"{doc}: the {kind!r} bulk entry's URL {problem}: {redact_url(d.url)}")
    return d


def cards_type(include_multilingual: bool) -> str:
    return "all_cards" if include_multilingual else "default_cards"


def check_bulk_file(sink, array: bool = False) -> None:
    """A bulk body must look like JSON (an array or JSON lines) or gzip from its first bytes on,
    and end like JSON: a cut file or an HTML page is retried, then refused. ``array``: the file
    of a ``download_uri``, a JSON array, which a cut after one of its objects leaves without its
    closing bracket."""
    head, tail = sink.head_and_tail()
    if head.startswith(GZIP_MAGIC):
        return  # gzip: checked whole as it streamed (http.GzipCheck)
    first, last = head.lstrip()[:1], tail.rstrip()[-1:]
    if first not in (b"[", b"{") or last not in (b"]", b"}") or (array and (first, last) != (b"[", b"]")):
        raise BodyProblem(f"not a JSON bulk file (starts {head[:20]!r}, ends {tail[-20:]!r})")


def _name_by_content(sink) -> None:
    """End the file's name in .gz exactly when its bytes are gzip: the readers (the build's,
    DuckDB's) unpack by the name, and the URL's name is no promise (a .gz file may come unpacked,
    Content-Encoding undone; gzip may sit at a URL without .gz)."""
    gzipped = sink.head_and_tail(len(GZIP_MAGIC))[0] == GZIP_MAGIC
    if gzipped and not sink.name.endswith(".gz"):
        sink.name += ".gz"
    elif not gzipped and sink.name.endswith(".gz"):
        sink.name = sink.name.removesuffix(".gz")


class BulkExtractor:
    def __init__(self, transport, writer: RunWriter, settings, store: RawStore, progress=None):
        self.transport = transport
        self.writer = writer
        self.settings = settings
        self.store = store
        self.progress = progress

    def _pacing(self):
        return [("api", self.settings.api_interval_s)]

    def _get_json(self, url: str, kind: str):
        response = self.transport.get(url, pacing=self._pacing(), accept=JSON_ACCEPT, check_body=json_body_check)
        entry = self.writer.save(response, ORIGIN, kind)
        if response.status != 200:
            raise scryfall_error(url, response.status, response.body, EXIT_UNAVAILABLE)
        if self.progress is not None:
            self.progress(kind)
        return response, entry

    def index(self) -> dict[str, Descriptor]:
        response, entry = self._get_json(f"{self.settings.api_url}/bulk-data", "bulk-index")
        return read_index(response.body, f"{self.writer.run_id}/{entry.path}")

    def run(self, query: str, include_multilingual: bool, index: dict[str, Descriptor] | None = None) -> None:
        query_filter.parse(query)  # refuse what the local filter cannot evaluate, before any download
        if index is None:
            index = self.index()
        doc = f"{self.writer.run_id}/bulk-data"
        for kind, bulk_type in (("bulk-cards", cards_type(include_multilingual)), ("bulk-rulings", "rulings")):
            d = descriptor(index, bulk_type, doc)
            self._download(d, kind)
        self._get_json(f"{self.settings.api_url}/sets", "sets")

    def _download(self, d: Descriptor, kind: str) -> None:
        previous = self.store.latest_entry(d.url, ORIGIN, kind)
        validators = None
        if previous is not None:
            run, entry = previous
            validators = {k: entry.headers[k] for k in ("etag", "last-modified") if entry.headers.get(k)}
        sink = self.writer.body_file(ORIGIN, d.url, ".jsonl" if d.jsonl else ".json")  # .gz added by its bytes
        try:
            try:
                response = self.transport.download(d.url, sink, pacing=self._pacing(), validators=validators,
                                                   check_file=functools.partial(check_bulk_file,
                                                                                array=not d.jsonl))
            except CasefileError as exc:
                bad = getattr(exc, "bad_response", None)
                if bad is not None:  # the body given up on: kept in quarantine/ with its reason
                    self.writer.save_file(bad, sink, ORIGIN, kind, key=d.type, quarantined=exc.bad_reason)
                raise
            if response.status == 304 and previous is not None:
                sink.discard()
                self.writer.save_reused(response, previous[0], previous[1], ORIGIN, kind, key=d.type)
                log.info("%s not modified since run %s: reused", d.url, previous[0].run_id)
            elif response.status == 200:
                _name_by_content(sink)
                self.writer.save_file(response, sink, ORIGIN, kind, key=d.type)
            else:
                sink.discard()
                raise scryfall_error(d.url, response.status, response.body, EXIT_UNAVAILABLE)
        except BaseException:
            sink.discard()
            raise
        if self.progress is not None:
            self.progress(kind)


# -- planning ---------------------------------------------------------------------------------

@dataclass
class Plan:
    """What a sync would request, and the least time Scryfall's pacing allows for it."""

    name: str  # api | bulk
    requests: int
    bytes: int | None
    pacing_s: float
    detail: list[str]
    exact: bool = False
    oracle_cards: int = 0  # the API plan's Oracle cards (estimated unless exact): the page sources' upper bound
    problems: list[str] = field(default_factory=list)  # why a sync by this plan would fail (the index's entries)

    @property
    def cost_s(self) -> float:
        return self.pacing_s + (self.bytes or 0) / BYTES_PER_SECOND


def api_plan(settings, first_page: dict) -> Plan:
    """The API plan from the first search page: pages = ceil(total / 175); one rulings list per
    Oracle card and one request per set, known exactly when the page holds every card, else
    estimated (one Oracle card per printing at most; the sets seen on the first page)."""
    total = first_page.get("total_cards") if isinstance(first_page.get("total_cards"), int) else 0
    data = [c for c in first_page.get("data") or [] if isinstance(c, dict)]
    pages = max(1, math.ceil(total / PAGE_SIZE))
    exact = first_page.get("has_more") is not True
    oracle = {c.get("oracle_id") or ((c.get("card_faces") or [{}])[0] or {}).get("oracle_id") for c in data} - {None}
    sets = {c.get("set") for c in data if isinstance(c.get("set"), str)}
    n_oracle = len(oracle) if exact else total
    n_sets = len(sets)
    page_bytes = len(json.dumps(first_page).encode("utf-8"))
    size = page_bytes * pages + n_oracle * RULINGS_BYTES + n_sets * SET_BYTES
    pacing = (pages - 1) * max(settings.search_interval_s, settings.api_interval_s) + (n_oracle + n_sets) * settings.api_interval_s
    word = "" if exact else "about "
    detail = [f"{pages} search page(s) of /cards/search ({total:,} printings)",
              f"{word}{n_oracle:,} /cards/{{id}}/rulings (one per Oracle card)",
              f"{word if not exact else ''}{n_sets:,} /sets/{{code}}" + ("" if exact else " (sets seen on page 1; more may follow)")]
    return Plan("api", pages + n_oracle + n_sets, size, pacing, detail, exact, n_oracle)


def bulk_plan(settings, index: dict[str, Descriptor], include_multilingual: bool) -> Plan:
    cards = index.get(cards_type(include_multilingual))
    rulings = index.get("rulings")
    sizes = [d.size for d in (cards, rulings) if d is not None and d.size is not None]
    detail, problems = ["1 /bulk-data (the index)"], []
    for label, d in ((cards_type(include_multilingual), cards), ("rulings", rulings)):
        if d is None or not d.url:
            problem = d.problem if d is not None and d.problem else "missing from the index"
        else:
            bad_url = url_problem(d.url)
            problem = d.problem or (f"its URL {bad_url}" if bad_url else None)
        if problem:
            problems.append(f"{label}: {problem}")
            detail.append(f"{label}: {problem} (a bulk sync would fail)")
        else:
            size = f"{d.size:,} bytes" if d.size is not None else "size unknown"
            detail.append(f"1 {redact_url(d.url)} ({size}, {'JSON lines' if d.jsonl else 'JSON array'}; "
                          "conditional GET: an unchanged file is not downloaded again)")
    detail.append("1 /sets (every set)")
    return Plan("bulk", 4, sum(sizes) if sizes else None, 3 * settings.api_interval_s, detail, True,
                problems=problems)


def choose(api: Plan | None, bulk: Plan | None) -> Plan:
    """--bulk auto: the plan that costs less, pacing time plus transfer time. A bulk plan the
    index cannot serve (an entry missing, or of a type or URL casefile cannot read) is not taken:
    the API plan still works when Scryfall changes its index."""
    if api is None:
        return bulk
    if bulk is None:
        return api
    if bulk.problems:
        log.warning("the bulk data index cannot serve a bulk sync (%s): --bulk auto takes the API plan",
                    "; ".join(bulk.problems))
        return api
    return bulk if bulk.cost_s < api.cost_s else api

