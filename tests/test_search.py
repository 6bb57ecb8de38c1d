"""casefile search on a small warehouse written here: the three ways a ruling can match.

The rows are constructed for the test (a ruling found by its English key, one whose key holds an
accent, one found only through its French translation); see tests/golden/ for the search of the
bundled sample.
"""

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.errors import UsageError
from pipeline.load.warehouse import _derive_translation_keys, apply_schema
from pipeline.lookup import _search_rows, scan_needle, search, search_words
from pipeline.resources import read_sql

RULINGS = [  # ruling_id, text, match_key
    ("r-english", "Each Case has a to solve condition.", "each case has a to solve condition."),
    ("r-accent", "Séance counts as a card name here.", "séance counts as a card name here."),
    ("r-foreign", "The second ability triggers once.", "the second ability triggers once."),
    ("r-both", "A Case is solved once; solve twice does nothing.", "a case is solved once; solve twice does nothing."),
]
TRANSLATIONS = [  # ruling_id, text: French copies (constructed)
    ("r-foreign", "La deuxième capacité se déclenche une fois."),
    ("r-both", "Une Enquête résolue le reste."),
]


@pytest.fixture(params=["keys", "folded"])
def con(tmp_path, request):
    """The warehouse as a load leaves it, with its translations folded in ruling_translation_key
    (``keys``), and as one made before that table (``folded``: the search folds them itself)."""
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    apply_schema(con)
    con.executemany("INSERT INTO ruling VALUES (?, 'wotc', DATE '2024-02-02', ?, ?)", RULINGS)
    for ruling_id, text in TRANSLATIONS:
        add_translation(con, ruling_id, text)
    if request.param == "folded":
        con.execute("DROP TABLE ruling_translation_key")
    yield con
    con.close()


def add_translation(con, ruling_id, text):
    """A French copy of the ruling, and its key where the warehouse keeps them, as a load does."""
    con.execute("INSERT INTO ruling_translation VALUES (?, 'fr', 'listeblanche', ?, true)", [ruling_id, text])
    if con.execute(read_sql("read/has_table.sql"), {"name": "ruling_translation_key"}).fetchone()[0]:
        _derive_translation_keys(con, None)  # every ruling's key, as a load derives them


def ids(con, words):
    return [row[-1] for row in search(con, words)[1]]


def test_english_words_match_the_key_and_rank_the_whole_phrase_first(con):
    assert ids(con, "solve") == ["r-both", "r-english"]  # "solve" twice in r-both ("solved", "solve")
    assert ids(con, "case") == ["r-english", "r-both"]  # once each: the shorter text first
    assert ids(con, "solved once") == ["r-both"]


def test_accents_do_not_matter_on_either_side(con):
    assert ids(con, "seance") == ["r-accent"]
    assert ids(con, "Séance") == ["r-accent"]


def test_a_ruling_is_found_through_its_translation_once(con):
    assert ids(con, "declenche") == ["r-foreign"]
    assert ids(con, "deuxième capacité") == ["r-foreign"]
    assert ids(con, "enquete solved") == ["r-both"]  # one word in French, one in English
    assert ids(con, "nothing-here") == []


def test_a_translation_is_searched_with_its_quotes_folded_as_the_words_are(con):
    # "´" typed for an apostrophe, as search_fold folds it in the words: the translation's copy
    # was folded for ’ ‘ “ ” « » – — only, so "l'ecart" missed "l´écart" (a constructed row)
    add_translation(con, "r-english", "Une Affaire garde l´écart, „classée‟.")
    assert ids(con, "l'ecart") == ["r-english"]
    assert ids(con, '"classee"') == ids(con, "classée") == ["r-english"]


def test_a_translation_is_searched_without_the_invisible_characters_of_web_pages(con):
    # a soft hyphen or a zero-width space inside a word of a French copy (constructed rows), as
    # match keys drop them from the English: "copiables" missed "co\u00adpiables"
    add_translation(con, "r-english", "Les valeurs co\u00adpiables d\u200b’une Affaire.")
    assert ids(con, "copiables") == ids(con, "valeurs copiables") == ["r-english"]
    assert ids(con, "d'une") == ["r-english"]


@pytest.mark.parametrize("text, words", [
    ("La ﬁn du tour, l’Affaire est résolue.", "fin du tour"),  # a ligature
    ("Le 1ᵉʳ joueur résout l’Affaire.", "1er joueur"),  # letters set as superscripts
    ("Le pion ＳＹＮＴＨＥＴＩＱＵＥ reste.", "synthetique"),  # full-width letters
    ("Die Straße des Falls", "strasse"),  # a letter casefold() changes beyond lower()
])
def test_a_translation_with_characters_sql_cannot_fold_is_found_as_the_words_are_folded(tmp_path, text, words):
    # constructed rows, in a warehouse as a load leaves it: the SQL fold (lower case, accents
    # stripped) left "ﬁn" and "1ᵉʳ" as they are, where the words are folded with NFKC and
    # casefold(): such a translation could not be found
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    apply_schema(con)
    con.executemany("INSERT INTO ruling VALUES (?, 'wotc', DATE '2024-02-02', ?, ?)", RULINGS)
    for ruling_id, translated in [*TRANSLATIONS, ("r-english", text)]:
        add_translation(con, ruling_id, translated)
    assert ids(con, words) == ["r-english"]
    assert ids(con, "declenche") == ["r-foreign"]  # the other keys as SQL folds them
    con.close()


def test_quotes_around_words_are_not_part_of_them(con):
    # a word is letters and digits, with apostrophes inside it only ("don't"): a quoted phrase,
    # in straight or curly quotes, finds what the bare words find
    assert ids(con, "'to solve'") == ids(con, "\u2018to solve\u2019") == ids(con, "to solve") == ["r-english"]
    assert search_words("don't 'solve' case's")[0] == ["case's", "don't", "solve"]
    for nothing in ("'", "' \u2019 ''"):
        with pytest.raises(UsageError, match="at least one word"):
            search_words(nothing)


def test_a_mana_or_tap_symbol_is_searched_as_the_symbol(con):
    # "{T}" was the word "t", which nearly every ruling holds: the search listed rulings without
    # the symbol. Constructed rows, their keys as match_key makes them (symbols kept, case folded).
    con.executemany("INSERT INTO ruling VALUES (?, 'wotc', DATE '2024-02-02', ?, ?)", [
        ("r-tap", "{T}: Add {C}. Activate only if this Case is solved.",
         "{t}: add {c}. activate only if this case is solved."),
        ("r-hybrid", "{2/W} can be paid with {W} or with two generic mana.",
         "{2/w} can be paid with {w} or with two generic mana."),
    ])
    assert search_words("{T} solved")[0] == ["solved", "{t}"]
    assert ids(con, "{T}") == ids(con, "{t}") == ["r-tap"]
    assert ids(con, "{2/W}") == ["r-hybrid"]
    assert ids(con, "{W} two") == ["r-hybrid"]
    assert ids(con, "{T} once") == []  # every word and symbol must appear
    assert "r-english" in ids(con, "t")  # a bare letter is still a word


@pytest.mark.parametrize("punctuation", ["_", "__ _", "_'_", "—_…"])
def test_underscores_are_punctuation_not_a_word(punctuation):
    # Python's \w counts "_" as a letter: a search for "_" ran and found nothing instead of
    # asking for a word, as any other punctuation does
    with pytest.raises(UsageError, match="at least one word"):
        search_words(punctuation)


def test_an_underscore_between_words_separates_them():
    assert search_words("to_solve")[0] == ["solve", "to"]


def test_the_scan_looks_first_for_a_piece_of_a_word_from_its_rarest_letter():
    assert scan_needle(["trample"]) == "mple"  # "m" is rarer than "t", "r" and "a"; four letters at least
    assert scan_needle(["ruling", "004"]) == "004"  # a digit is rarer than any letter
    assert scan_needle(["case"]) == "case"  # a word of four letters or fewer is looked for whole
    assert scan_needle(["to", "x"]) == "x"


@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789'", min_size=1, max_size=12),
                min_size=1, max_size=4))
def test_the_scan_needle_is_always_a_piece_of_a_searched_word(words):
    needle = scan_needle(words)
    assert any(needle in word and len(needle) >= min(4, len(word)) for word in words)


@pytest.mark.parametrize("text", ["solve", "case", "solved once", "seance", "declenche", "deuxième capacité",
                                  "enquete solved", "nothing-here", "counts", "a"])
def test_the_needle_finds_what_the_longest_word_finds(con, text):
    words, phrase = search_words(text)
    params = {"words": words, "phrase": phrase, "limit": 20}
    assert _search_rows(con, {**params, "first": scan_needle(words)}) \
        == _search_rows(con, {**params, "first": words[0]})
