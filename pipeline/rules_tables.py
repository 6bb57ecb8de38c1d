"""The rules tables of a build: the ingested editions of the Comprehensive Rules, and the links
of cards and rulings to the newest one (``rules_link.py`` finds them).

A link is a function of a text, the edition and the glossary terms linked: those the synced
cards make worth linking (``relevant_terms``). The warehouse's links were all made against its
newest edition, so a SQL build whose edition and terms are those of the warehouse links only
the texts the warehouse does not hold yet (``sql_rules_tables``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import islice

from .normalize.rules import RulesDocument
from .records import Card
from .resources import read_sql
from .rules_link import link_card, link_text, link_wiki_quotes, subtypes
from .sqlexec import insert_rows, run_script

log = logging.getLogger(__name__)

# The ingested editions by effective date: (doc_id, document); links go to the newest.
Editions = dict[str, tuple[str, RulesDocument]]
# The rules the MTG wiki's type pages quote: (page title, rule numbers).
WikiQuotes = list[tuple[str, list[str]]]
# The links to the rules: a delta build stages them for its scope when the linked terms stand.
LINK_TABLES = ("ruling_rule", "card_rule")
# Link rows written to DuckDB at a time: a build that links every text of a large warehouse
# (a million links at the benchmark's 4x) does not hold them all in memory.
BATCH_ROWS = 20_000


def relevant_terms(cards: list[Card]) -> set[str]:
    """Glossary terms worth linking: the cards' subtypes and the keywords before "—" on their lines.

    The whole glossary would link most rulings to "Card" or "Target"; these are the terms the
    synced cards are about (for Cases: "Case" and "Solved").
    """
    heads = [line.partition(" — ")[0] for card in cards for line in (card.oracle_text or "").split("\n")
             if " — " in line]
    return terms_of([card.type_line for card in cards], heads)


def terms_of(type_lines: Iterable[str | None], heads: Iterable[str]) -> set[str]:
    """``relevant_terms`` from the cards' type lines and the text before " — " of their lines."""
    terms: set[str] = set()
    for type_line in type_lines:
        terms |= {t.casefold() for t in subtypes(type_line)}
    terms |= {head.strip().casefold() for head in heads if len(head.split()) <= 3}
    return terms


def linked_terms(doc: RulesDocument, relevant: set[str]) -> tuple[str, ...]:
    """The glossary terms of ``doc`` that rulings are linked by."""
    return tuple(e.term for e in doc.glossary if e.term.casefold() in relevant)


def rules_tables(editions: Editions, wiki_quotes: WikiQuotes, cards: list[Card], rulings: list
                 ) -> dict[str, list[dict]]:
    """The edition tables and the links of ``cards`` and ``rulings`` (records) to the newest
    edition, as rows: the Python build."""
    tables = {**_edition_rows(editions), "ruling_rule": [], "card_rule": []}
    if editions:
        date, (_, doc) = max(editions.items())
        terms = linked_terms(doc, relevant_terms(cards))  # once: it reads every card
        tables["ruling_rule"] = list(_ruling_links(doc, date, terms, ((r.ruling_id, r.text) for r in rulings)))
        tables["card_rule"] = list(_card_links(doc, date, wiki_quotes,
                                               ((c.oracle_id, c.type_line, c.oracle_text) for c in cards)))
    return tables


def sql_rules_tables(con, editions: Editions, wiki_quotes: WikiQuotes, delta_built: bool
                     ) -> tuple[dict[str, list[dict] | str], bool]:
    """The rules tables of a SQL build (its cards and rulings in n_card and n_ruling), the links
    in TEMP tables n_ruling_rule and n_card_rule; and whether the links are staged for a delta's
    scope.

    When the glossary terms linked are the ones the warehouse's cards give, only the texts the
    warehouse does not hold yet are linked: a delta links the cards and rulings it derived again
    and stages those links for its scope (the others stand); a full build keeps the warehouse's
    links of the texts it holds, if the warehouse's newest edition is the one linked now (not
    after an ingest), and links the rest. Otherwise every card and ruling of the new state is
    linked, staged whole.
    """
    if not editions:
        return {**_edition_rows(editions), "ruling_rule": [], "card_rule": []}, False
    _, (doc_id, doc) = max(editions.items())
    run_script(con, read_sql("delta/link_texts.sql" if delta_built else "normalize/link_texts.sql"))
    parts: dict[tuple[str, str], list[str]] = {}
    for state, part, value in con.execute(read_sql("normalize/card_terms.sql")).fetchall():
        parts.setdefault((state, part), []).append(value)
    old, relevant = (terms_of(parts.get((state, "type_line"), []), parts.get((state, "head"), []))
                     for state in ("old", "new"))
    same_terms = linked_terms(doc, old) == linked_terms(doc, relevant)
    newest = con.execute(read_sql("normalize/newest_edition.sql")).fetchone()
    keep = not delta_built and same_terms and newest is not None and newest[0] == doc_id
    run_script(con, read_sql("normalize/link_tables.sql"))
    if keep:
        run_script(con, read_sql("normalize/kept_links.sql"))
    scoped = delta_built and same_terms
    if scoped:
        run_script(con, read_sql("delta/scope_links.sql"))
        rulings, cards, wiki_only = "n_ruling", "n_card", None
    elif delta_built:
        log.info("delta build: the glossary terms linked change; every ruling and card is linked again")
        rulings, cards, wiki_only = "d_ruling_text_new", "d_card_text_new", None
    elif keep:  # views of normalize/link_texts.sql
        rulings, cards, wiki_only = "d_ruling_unlinked", "d_card_unlinked", "d_card_kept"
    else:
        rulings, cards, wiki_only = "n_ruling", "n_card", None
    date = max(editions)
    terms = linked_terms(doc, relevant)
    n_rulings, texts = _texts(con, "ruling_id, text", rulings)
    _insert_batches(con, "n_ruling_rule", _ruling_links(doc, date, terms, texts))
    n_cards, texts = _texts(con, "oracle_id, type_line, oracle_text", cards)
    _insert_batches(con, "n_card_rule", _card_links(doc, date, wiki_quotes, texts))
    if wiki_only is not None:
        log.debug("rules links: %d ruling(s) and %d card(s) linked, the links of the others kept", n_rulings,
                  n_cards)
        _, texts = _texts(con, "oracle_id, type_line, NULL", wiki_only)
        _insert_batches(con, "n_card_rule", _card_links(doc, date, wiki_quotes, texts, text_links=False))
    con.execute("DROP TABLE IF EXISTS link_source")
    return {**_edition_rows(editions), "ruling_rule": "n_ruling_rule", "card_rule": "n_card_rule"}, scoped


def _texts(con, columns: str, source: str) -> tuple[int, Iterator[tuple]]:
    """How many rows ``source`` has, and its ``columns``, BATCH_ROWS rows at a time. ``source``
    is a TEMP table or view chosen by the code above, never input. The rows are copied to a TEMP
    table and read back by rowid ranges: the connection is free for the inserts in between, and
    the texts of a large warehouse are never all in memory."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE link_source AS SELECT {columns} FROM {source}")
    total = con.execute("SELECT count(*) FROM link_source").fetchone()[0]

    def rows() -> Iterator[tuple]:
        for start in range(0, total, BATCH_ROWS):
            yield from con.execute("SELECT * FROM link_source WHERE rowid >= $start AND rowid < $end",
                                   {"start": start, "end": start + BATCH_ROWS}).fetchall()

    return total, rows()


def _insert_batches(con, table: str, rows: Iterator[dict]) -> None:
    while batch := list(islice(rows, BATCH_ROWS)):
        insert_rows(con, table, batch)


def _edition_rows(editions: Editions) -> dict[str, list[dict]]:
    ordered = sorted(editions.items())
    return {
        "cr_edition": [{"effective_date": date, "doc_id": doc_id, "rules": len(doc.rules),
                        "glossary_terms": len(doc.glossary)} for date, (doc_id, doc) in ordered],
        "cr_rule": [{"effective_date": date, **rule.__dict__} for date, (_, doc) in ordered for rule in doc.rules],
        "cr_glossary": [{"effective_date": date, **entry.__dict__} for date, (_, doc) in ordered
                        for entry in doc.glossary],
    }


def _ruling_links(doc: RulesDocument, date: str, terms: tuple[str, ...],
                  rulings: Iterable[tuple[str, str]]) -> Iterator[dict]:
    """ruling_rule rows of (ruling_id, text) pairs: one per (ruling, rule, method)."""
    for ruling_id, text in rulings:
        for link in link_text(text, doc, terms=terms):
            yield {"ruling_id": ruling_id, "effective_date": date, **link.__dict__}


def _card_links(doc: RulesDocument, date: str, wiki_quotes: WikiQuotes,
                cards: Iterable[tuple[str, str | None, str | None]], text_links: bool = True) -> Iterator[dict]:
    """card_rule rows of (oracle_id, type_line, oracle_text) triples, one per (card, rule,
    method): the links of the card's text (``text_links``) and those of the wiki's quotes."""
    for oracle_id, type_line, oracle_text in cards:
        links = link_card(oracle_text, type_line, doc) if text_links else []
        if wiki_quotes:
            kinds = _subtypes(type_line)
            for title, numbers in wiki_quotes:
                if title.casefold() in kinds:
                    links += link_wiki_quotes(numbers, doc)
        rows = {(link.rule_number, link.method): link for link in links}
        for link in rows.values():
            yield {"oracle_id": oracle_id, "effective_date": date, **link.__dict__}


@lru_cache(maxsize=4096)
def _subtypes(type_line: str | None) -> frozenset[str]:
    """A type line's subtypes, casefolded: worked out once per type line (cards share them),
    not once per card and wiki page."""
    return frozenset(t.casefold() for t in subtypes(type_line))
