"""casefile search on a small warehouse written here: the three ways a ruling can match.

The rows are constructed for the test (a ruling found by its English key, one whose key holds an
accent, one found only through its French translation); see tests/golden/ for the search of the
bundled sample.
"""

import duckdb
import pytest

from pipeline.load.warehouse import apply_schema
from pipeline.lookup import search

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


@pytest.fixture
def con(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    apply_schema(con)
    con.executemany("INSERT INTO ruling VALUES (?, 'wotc', DATE '2024-02-02', ?, ?)", RULINGS)
    con.executemany("INSERT INTO ruling_translation VALUES (?, 'fr', 'listeblanche', ?, true)", TRANSLATIONS)
    yield con
    con.close()


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
