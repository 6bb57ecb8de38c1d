"""Canonical text and match keys for rulings.

Pure. The same ruling reaches us with curly or straight quotes, different dashes (or "--"),
doubled or non-breaking spaces, trailing blanks, invisible soft hyphens or zero-width spaces, and
sometimes without its mana symbols. ``canonical_text``
tidies one copy without changing what it says; ``match_key`` folds every difference that is
typography rather than wording, so equal keys mean "the same sentence".
"""

from __future__ import annotations

import re
import unicodedata

# Characters that are the same quote or dash to a reader. Seen in the wild: Scryfall's API and
# scryfall.com use ’ “ ”; MTGJSON's MKM file and the MTG wiki use ' and ".
_QUOTES = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'", "`": "'",
    "\u02bc": "'",  # the modifier letter apostrophe, which French typesetting uses for one
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
}
_DASHES = {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"}
# Characters a reader does not see, which web pages put into words: the soft hyphen, zero-width
# spaces and joiners, direction marks, the word joiner and invisible operators, the byte order mark.
_INVISIBLE = {c: "" for c in ("\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                              "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff")}
_FOLDED = {**_QUOTES, **_DASHES, **_INVISIBLE}
# The quotes and dashes match keys fold, as the two strings of SQL's translate(): the SQL that
# folds text for a lookup (the search's translation keys, a card's name) takes them as $fold_from
# and $fold_to. The invisible characters come last in $fold_from, with nothing for them in
# $fold_to: translate() deletes them.
FOLD_PARAMS = {"fold_from": "".join({**_QUOTES, **_DASHES}) + "".join(_INVISIBLE),
               "fold_to": "".join({**_QUOTES, **_DASHES}.values())}
# One pattern for the characters to fold: str.translate looks every character of a non-ASCII
# text up in the table (8 µs for a ruling), the pattern only the few it finds (match keys are
# made for every ruling and card line a build links to the rules).
_TO_FOLD = re.compile("[" + "".join(re.escape(c) for c in _FOLDED) + "]")
# The two quotes NFKC would change into something else first: the acute accent ´ into a space and a
# combining accent, the double prime ″ into two primes (two apostrophes once folded). They are
# folded before NFKC.
_BEFORE_NFKC = {"\u00b4": "'", "\u2033": '"'}

# The characters of a text whose lower case SQL folds as ``search_fold`` folds it, but for spaces
# and punctuation: ASCII, the Latin letters of Latin-1 and Latin Extended-A that neither NFKC nor
# casefold() change beyond lower() (not ß, ĳ, ŀ, ŉ, ſ), the quotes and dashes folded, the ellipsis
# and the no-break spaces. A text with any other character may need Python's fold to be found by
# the words the search folds (pipeline/load/warehouse.py _refold_translation_keys); this pattern
# finds such texts, in SQL's regular expressions and in Python's.
SQL_FOLD_SUFFICES = ("\x00-\x7f\u00a0\u00ab\u00bb\u00c0-\u00d6\u00d8-\u00de\u00e0-\u00f6\u00f8-\u0131"
                     "\u0134-\u013e\u0141-\u0148\u014a-\u017e\u2009\u2013\u2014\u2018-\u201f\u2026\u202f")
BEYOND_SQL_FOLD = "[^" + SQL_FOLD_SUFFICES + "]"

_HYPHENS = re.compile("-{2,}")  # "--" typed for a dash, or a dash beside a hyphen, once folded
_SYMBOL = re.compile(r"\{[^{}\s]{1,12}\}")  # {1}, {W/U}, {T}, {10}: Scryfall's mana and tap symbols
_SPACE_BEFORE_PUNCT = re.compile(r" +([.,;:!?)\]])")


def canonical_text(text: str) -> str:
    """One copy, tidied: NFC, every kind of space as one plain space, no leading/trailing blanks.

    Quotes, dashes, case and symbols are kept as the source wrote them.
    """
    return _one_space(unicodedata.normalize("NFC", text))


def match_key(text: str) -> str:
    """The key two copies of one ruling share: ``folded_text``, casefolded."""
    return folded_text(text).casefold()


def folded_text(text: str) -> str:
    """``match_key`` before its casefold: NFKC, folded quotes and dashes (a run of them one "-"),
    no invisible characters, one space; the letters' case kept."""
    if not text.isascii():
        for char, folded in _BEFORE_NFKC.items():
            if char in text:
                text = text.replace(char, folded)
    text = _TO_FOLD.sub(lambda found: _FOLDED[found.group()], unicodedata.normalize("NFKC", text))
    if "--" in text:
        text = _HYPHENS.sub("-", text)
    return _one_space(text)


def _one_space(text: str) -> str:
    """Every run of whitespace as one space, none at the ends. str.split() splits on the
    characters ``\\s`` matches (str.isspace): 2.3 µs a ruling against 8.3 µs for the pattern."""
    return " ".join(text.split())


def symbol_free_key(text: str) -> str:
    """``match_key`` with the ``{…}`` symbols removed, as page text shows them when icons are dropped:
    a symbol leaves nothing in its place, then whitespace is one space and none stands before
    closing punctuation.

    "cost {1} less to cast" and "cost less to cast" share this key, "Add {G}." with "Add ." and
    "Add.", and "with “{T}” in its cost" with "with “” in its cost" (the quotes left empty).
    """
    key = _one_space(_SYMBOL.sub("", match_key(text)))
    return _SPACE_BEFORE_PUNCT.sub(r"\1", key)


def has_symbols(text: str) -> bool:
    return _SYMBOL.search(text) is not None


def search_fold(text: str) -> str:
    """Accent- and case-insensitive form for word search: "Résolue" and "resolue" fold alike."""
    decomposed = unicodedata.normalize("NFKD", match_key(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def typographic_score(text: str) -> int:
    """How much of the typesetting a copy kept: symbols and curly quotes are the better copy."""
    score = 0
    if has_symbols(text):
        score += 2
    if any(c in text for c in "\u2019\u201c\u201d"):
        score += 1
    return score
