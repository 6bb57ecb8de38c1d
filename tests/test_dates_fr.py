"""parse_french_date: every month in full and abbreviated, the typography of French pages, refusals."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.normalize.dates_fr import parse_french_date, starts_with_french_date

# (month number, full name as printed, abbreviations as printed, dot included)
MONTHS = [
    (1, "janvier", ["janv."]),
    (2, "février", ["févr.", "fév."]),
    (3, "mars", []),
    (4, "avril", ["avr."]),
    (5, "mai", []),
    (6, "juin", []),
    (7, "juillet", ["juil.", "juill."]),
    (8, "août", []),
    (9, "septembre", ["sept."]),
    (10, "octobre", ["oct."]),
    (11, "novembre", ["nov."]),
    (12, "décembre", ["déc."]),
]

FULL_NAMES = [(number, full) for number, full, _ in MONTHS]
ABBREVIATIONS = [(number, abbr) for number, _, abbrs in MONTHS for abbr in abbrs]


def _without_accents(word: str) -> str:
    return word.replace("é", "e").replace("û", "u")


@pytest.mark.parametrize("number, name", FULL_NAMES)
def test_every_full_month_name(number, name):
    assert parse_french_date(f"12 {name} 2024") == date(2024, number, 12)


@pytest.mark.parametrize("number, name", FULL_NAMES)
def test_full_month_names_in_any_case_and_without_accents(number, name):
    assert parse_french_date(f"12 {name.upper()} 2024") == date(2024, number, 12)
    assert parse_french_date(f"12 {name.capitalize()} 2024") == date(2024, number, 12)
    assert parse_french_date(f"12 {_without_accents(name)} 2024") == date(2024, number, 12)


@pytest.mark.parametrize("number, abbreviation", ABBREVIATIONS)
def test_every_abbreviation_with_and_without_its_dot(number, abbreviation):
    assert parse_french_date(f"3 {abbreviation} 2023") == date(2023, number, 3)
    assert parse_french_date(f"3 {abbreviation.rstrip('.')} 2023") == date(2023, number, 3)


@pytest.mark.parametrize("number, abbreviation", ABBREVIATIONS)
def test_abbreviations_in_any_case_and_without_accents(number, abbreviation):
    assert parse_french_date(f"3 {abbreviation.upper()} 2023") == date(2023, number, 3)
    assert parse_french_date(f"3 {_without_accents(abbreviation)} 2023") == date(2023, number, 3)


def test_the_listeblanche_date_line_form():
    assert parse_french_date("02 février 2024") == date(2024, 2, 2)


@pytest.mark.parametrize("text", ["1er janvier 2024", "1ER janvier 2024", "1ᵉʳ janvier 2024", "01 janvier 2024"])
def test_the_first_of_the_month(text):
    assert parse_french_date(text) == date(2024, 1, 1)


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2007", "  ", "\t"])
def test_non_breaking_narrow_and_repeated_spaces(space):
    assert parse_french_date(f"02{space}février{space}2024") == date(2024, 2, 2)
    assert parse_french_date(f"1er{space}déc.{space}2024") == date(2024, 12, 1)


def test_decomposed_accents_are_the_same_letters():
    assert parse_french_date("2 fe\u0301vrier 2024") == date(2024, 2, 2)


def test_surrounding_blanks_are_ignored():
    assert parse_french_date("  02 février 2024 \n") == date(2024, 2, 2)


def test_the_last_day_of_a_leap_february():
    assert parse_french_date("29 février 2024") == date(2024, 2, 29)


@pytest.mark.parametrize("text", [
    "",
    "février 2024",
    "02 février",
    "2024-02-02",
    "02/02/2024",
    "2 feb 2024",          # English abbreviation
    "2 sep 2024",          # not a French abbreviation
    "2 jan. 2024",         # not a French abbreviation
    "2 juin. 2024",        # a dot after a full month name
    "2 février. 2024",
    "2er février 2024",    # "er" belongs to the first only
    "01er février 2024",
    "1 er février 2024",
    "2 février 24",
    "le 2 février 2024",
    "vendredi 2 février 2024",
    "2 février 2024 · source : wotc",
    "123 février 2024",
])
def test_unknown_forms_raise_value_error_with_the_text(text):
    with pytest.raises(ValueError) as caught:
        parse_french_date(text)
    assert repr(text) in str(caught.value)


@pytest.mark.parametrize("text", ["30 février 2024", "29 février 2023", "31 avril 2024", "0 mai 2024", "32 mai 2024"])
def test_impossible_days_raise_value_error_with_the_text(text):
    with pytest.raises(ValueError) as caught:
        parse_french_date(text)
    assert repr(text) in str(caught.value)


def test_only_text_is_read():
    with pytest.raises(TypeError):
        parse_french_date(b"02 f\xc3\xa9vrier 2024")


@pytest.mark.parametrize("text", ["02 février 2024 · WotC", "02 février 2024", "1ᵉʳ mars 2024 : wotc",
                                  "  2 févr. 2024, wotc", "02 FÉVRIER 2024 - wotc"])
def test_a_text_opening_with_a_date(text):
    assert starts_with_french_date(text)


@pytest.mark.parametrize("text", ["2 000 cartes", "02 février 20245", "02 février 2024x", "31 février 2024 · wotc",
                                  "2 feb 2024 · wotc", "Sortie : 02 février 2024", "02 févrierx 2024", ""])
def test_a_text_opening_with_no_date(text):
    assert not starts_with_french_date(text)
