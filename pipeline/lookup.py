"""Reading the knowledge base as a reader wants it: one card with its rulings, and ruling search.

Read-only: takes an open reader connection, runs the SQL of sql/read/, returns rows or text.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter

import duckdb

from .errors import ConfigError, UsageError, shown
from .formats import render
from .normalize.text import FOLD_PARAMS, folded_text, search_fold
from .reader import query
from .resources import read_sql

# A word: letters and digits, with apostrophes inside it ("don't", "card's"); quotes around a
# word or a phrase are not part of it, nor is "_" (which \w counts as a letter). search_fold has
# made every apostrophe and quote straight. A mana or tap symbol as Scryfall writes it ({T},
# {2/W}, {10}: normalize/text.py's symbols) is one word, braces included, as match keys keep it:
# "{T}" looks for the symbol, not for every "t".
_WORD = re.compile(r"\{[^{}\s]{1,12}\}|[^\W_]+(?:'[^\W_]+)*")


# The names a lookup matching several cards lists: "Case" in a warehouse of every card matches hundreds.
_CANDIDATES_SHOWN = 10


def find_card(con, name: str) -> str:
    """The oracle id of the card called ``name`` (or whose Oracle id ``name`` is): exact match,
    else the only close one; a name that matches nothing as typed is matched again with accents
    and quote styles folded."""
    if not search_fold(name).strip():  # blank, or only characters folding takes out (U+200B, a lone accent),
        raise UsageError("give a card name")  # which would be found in every name
    _, rows = query(con, read_sql("read/card_by_name.sql"), {"name": name.strip()})
    if not rows:  # as typed it matches nothing: try again with accents and quote styles folded, and
        # the forms NFKC folds (a no-break space copied from a web page, full-width letters) as plain ones
        _, rows = query(con, read_sql("read/card_by_name_folded.sql"), {"name": folded_text(name), **FOLD_PARAMS})
    if not rows:
        raise UsageError(f"no card named {shown(name)} in the warehouse")
    best = [r for r in rows if r[2] == rows[0][2]]
    if len(best) > 1:
        named = Counter(r[1] for r in best)
        # a name two cards share (an Un-set's variants) is listed with each card's Oracle id, to ask for it by
        candidates = sorted({f"{r[1]} ({r[0]})" if named[r[1]] > 1 else r[1] for r in best})
        names = ", ".join(candidates[:_CANDIDATES_SHOWN])
        more = len(candidates) - _CANDIDATES_SHOWN
        raise UsageError(f"{shown(name)} matches several cards: {names}"
                         + (f" … and {more} more" if more > 0 else "")
                         + ("; give the Oracle id of the one you want" if len(named) < len(best) else ""))
    return best[0][0]


def card_rows(con, oracle_id: str) -> tuple[dict, list[str], list[tuple]]:
    columns, rows = query(con, read_sql("read/card.sql"), {"oracle_id": oracle_id})
    card = dict(zip(columns, rows[0]))
    columns, rulings = query(con, read_sql("read/card_rulings.sql"), {"oracle_id": oracle_id})
    return card, columns, rulings


def card_text(card: dict, columns: list[str], rulings: list[tuple], width: int = 100) -> str:
    """The card as a page: cost, type, Oracle text, then each ruling with date, source and provenance."""
    wrap = textwrap.TextWrapper(width=width, initial_indent="   ", subsequent_indent="   ")
    lines = [f"{card['name']}  {card['mana_cost'] or ''}".rstrip(), card["type_line"] or "", ""]
    lines += (card["oracle_text"] or "").splitlines()
    lines += ["", f"Printings: {card['printings'] or '-'} (languages: {card['languages'] or '-'})", ""]
    lines.append(f"Rulings ({len(rulings)}):" if rulings else "Rulings: none")
    for row in rulings:
        r = dict(zip(columns, row))
        date = r["published_at"].isoformat() if r["published_at"] else "undated"
        lines.append(f"{r['n']:>2}. {date} · {r['source']} · seen on {r['seen_on'] or '-'}")
        lines += wrap.wrap(r["text"])
        for translation in (r["translations"] or "").split(" | ") if r["translations"] else []:
            lines += wrap.wrap(translation)
        if r.get("rules"):
            lines += wrap.wrap(f"rules: {r['rules']}")
    return "\n".join(lines) + "\n"


def show_card(con, name: str, fmt: str = "text") -> str:
    card, columns, rulings = card_rows(con, find_card(con, name))
    if fmt == "text":
        return card_text(card, columns, rulings)
    return render(columns, rulings, fmt)


def search_words(text: str) -> tuple[list[str], str]:
    folded = search_fold(text)
    words = sorted(set(_WORD.findall(folded)), key=lambda w: (-len(w), w))
    if not words:
        raise UsageError("give at least one word to search for")
    return words, " ".join(_WORD.findall(folded))


# English letters from the most to the least frequent in running text. DuckDB finds a substring
# by looking for its first character and comparing from there; a common first letter ("t",
# "a") stops the search at nearly every word of every ruling, a rare one seldom.
_LETTERS_BY_FREQUENCY = "etaoinshrdlcumwfgypbvkjxqz"
# The shortest piece of a word the first scan looks for: shorter pieces let through more rulings
# that hold none of the words, which the second step must then read and drop.
_NEEDLE_MIN = 4


def scan_needle(words: list[str]) -> str:
    """What the scan of every match key looks for first (``$first`` of search_rulings.sql): the
    end of one of the words, from its rarest letter on, of ``_NEEDLE_MIN`` characters at least
    (a shorter word whole). Any piece of a searched word will do, since each match is checked
    for every whole word after the scan; the rarer its first character, the faster the scan."""
    def rarity(char: str) -> int:
        found = _LETTERS_BY_FREQUENCY.find(char)
        return len(_LETTERS_BY_FREQUENCY) if found < 0 else found

    best, best_key = words[0], (-1, 0)
    for word in words:
        last = max(0, len(word) - _NEEDLE_MIN)
        start = max(range(last + 1), key=lambda i: (rarity(word[i]), -i))
        key = (rarity(word[start]), len(word) - start)
        if key > best_key:
            best, best_key = word[start:], key
    return best


def _cards_of_rulings(con, ids: list[str]) -> dict[str, str]:
    """The names of each ruling's cards, joined by "; " (a ruling with none is not a key)."""
    try:
        rows = con.execute(read_sql("read/cards_of_rulings.sql"), {"ruling_ids": ids}).fetchall()
    except duckdb.CatalogException:  # a warehouse that no writer of this version has opened yet
        rows = query(con, read_sql("read/cards_of_rulings_links.sql"), {"ruling_ids": ids})[1]
    return dict(rows)


def _search_rows(con, params: dict) -> tuple[list[str], list[tuple]]:
    """search_rulings.sql on the translation keys every load keeps (ruling_translation_key), or,
    on a warehouse made before that table, on the same keys folded by the query itself."""
    sql = read_sql("read/search_rulings.sql")
    try:
        return query(con, sql.replace("{translation_keys}", "ruling_translation_key"), params)
    except (UsageError, ConfigError):  # the table missing is a ConfigError (reader.older_warehouse)
        if con.execute(read_sql("read/has_table.sql"), {"name": "ruling_translation_key"}).fetchone()[0]:
            raise
    folded = read_sql("read/translation_keys_folded.sql").strip()
    return query(con, sql.replace("{translation_keys}", folded), {**params, **FOLD_PARAMS})


def search(con, text: str, limit: int = 20) -> tuple[list[str], list[tuple]]:
    words, phrase = search_words(text)
    columns, rows = _search_rows(con, {"words": words, "first": scan_needle(words), "phrase": phrase, "limit": limit})
    ids = [row[-1] for row in rows]
    cards = _cards_of_rulings(con, ids) if ids else {}
    return ([*columns[:-1], "cards", columns[-1]],
            [(*row[:-1], cards.get(row[-1], ""), row[-1]) for row in rows])
