"""The local query filter of the bulk plan: which cards of a bulk file a query selects.

Bulk files hold every card. Rather than asking the API which cards a query matches (thousands of
search pages, the cost the bulk plan avoids), casefile filters locally, and only for the queries
it can evaluate exactly like Scryfall: ``*`` (every card) and terms ``type:``/``t:`` (a word of
the type line, on any face), ``set:``/``s:``/``e:``/``edition:`` (set code), ``name:`` (part of
the name), each optionally negated with ``-``, all of them ANDed. Any other query is refused with
a usage error; sync it with ``--bulk never``. Pure: no network, no DuckDB.
"""

from __future__ import annotations

import re

from ..errors import UsageError, shown

_TERM = re.compile(r'(-?)(?:([A-Za-z_]+)([:=]))?(?:"([^"]*)"|(\S+))')
_FIELDS = {"type": "type", "t": "type", "set": "set", "s": "set", "e": "set", "edition": "set", "name": "name"}
EVERYTHING = "*"


def parse(query: str) -> list[dict] | None:
    """The query's terms as [{"field", "value", "negate"}], or None for every card. UsageError if
    the local filter cannot evaluate it."""
    query = (query or "").strip()
    if query in ("", EVERYTHING):
        return None
    terms, pos = [], 0
    for m in _TERM.finditer(query):
        if query[pos:m.start()].strip():
            break
        pos = m.end()
        negate, key, _op, quoted, bare = m.groups()
        value = quoted if quoted is not None else bare
        if key is None or key.lower() not in _FIELDS or not value:
            raise UsageError(f"--bulk: the local filter cannot evaluate {shown(m.group(0))} in {shown(query)}; it knows "
                             "'*', type:, set: and name: terms (negated with -). Use --bulk never for this query.")
        terms.append({"field": _FIELDS[key.lower()], "value": value.lower(), "negate": bool(negate)})
    if query[pos:].strip():
        raise UsageError(f"--bulk: cannot read the query {shown(query)}; use --bulk never for it")
    return terms


def matches(terms: list[dict] | None, card: dict) -> bool:
    """Whether a card object passes every term (the SQL path does the same in read_bulk_cards.sql)."""
    if terms is None:
        return True
    for term in terms:
        if _hit(term, card) == term["negate"]:
            return False
    return True


def _hit(term: dict, card: dict) -> bool:
    value = term["value"]
    if term["field"] == "type":
        lines = [card.get("type_line")] + [f.get("type_line") for f in card.get("card_faces") or []
                                           if isinstance(f, dict)]
        return any(isinstance(line, str) and value in line.lower() for line in lines)
    if term["field"] == "set":
        return isinstance(card.get("set"), str) and card["set"].lower() == value
    return value == "*" or (isinstance(card.get("name"), str) and value in card["name"].lower())
