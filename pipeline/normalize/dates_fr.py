"""French calendar dates as French pages print them: "02 février 2024", "1er janv. 2024".

Used by the page parsers (listeblanche.fr dates its rulings this way). Pure: no network, no
DuckDB. It reads only forms it knows; anything else is a ValueError, never a guessed date.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

# Month names after accent folding and casefolding, without the abbreviation dot. Full names,
# the abbreviations of the Imprimerie nationale and of CLDR's "fr" locale ("janv.", "févr.",
# "juil."/"juill.", "sept." …), and "fév.", which French sites also print.
_FULL_MONTHS = {
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6,
    "juillet": 7, "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
}
_ABBREVIATED_MONTHS = {
    "janv": 1, "fevr": 2, "fev": 2, "avr": 4, "juil": 7, "juill": 7,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

# day ("02", "2", "1er"), month word, optional abbreviation dot, four-digit year
_FRENCH_DATE = re.compile(r"(?P<day>\d{1,2})(?P<first>er)? (?P<month>[a-z]+)(?P<dot>\.)? (?P<year>\d{4})")


def parse_french_date(text: str) -> date:
    """The date a French date line shows; ValueError naming the text for any unknown form."""
    if not isinstance(text, str):
        raise TypeError(f"a French date is text, not {type(text).__name__}")
    match = _FRENCH_DATE.fullmatch(_fold(text))
    if match is None:
        raise ValueError(f"not a French date: {text!r}")
    month = _month_number(match["month"], dotted=match["dot"] is not None)
    day = int(match["day"])
    if month is None or (match["first"] and match["day"] != "1"):
        raise ValueError(f"not a French date: {text!r}")
    try:
        return date(int(match["year"]), month, day)
    except ValueError:
        raise ValueError(f"no such day: {text!r}") from None


# The same date at the start of a text, ended by anything but a letter or digit ("02 février 2024 · WotC").
_FRENCH_DATE_FIRST = re.compile(_FRENCH_DATE.pattern + r"(?![a-z0-9])")


def starts_with_french_date(text: str) -> bool:
    """Whether ``text`` opens with a date ``parse_french_date`` reads (a month it knows, a day of it)."""
    match = _FRENCH_DATE_FIRST.match(_fold(text))
    if match is None:
        return False
    try:
        parse_french_date(match.group())
    except ValueError:
        return False
    return True


def _fold(text: str) -> str:
    """Compatibility forms ("1ᵉʳ", no-break spaces) made plain, accents dropped, casefolded, one space."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", bare).strip().casefold()


def _month_number(word: str, dotted: bool) -> int | None:
    """The month a word names; a dot is allowed after an abbreviation only."""
    if word in _ABBREVIATED_MONTHS:
        return _ABBREVIATED_MONTHS[word]
    if word in _FULL_MONTHS and not dotted:
        return _FULL_MONTHS[word]
    return None
