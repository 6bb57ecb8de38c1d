"""pipeline/changes.py: which removed + added rulings are one ruling re-worded (pure)."""

import itertools
import json

from pipeline.changes import REWORD_MIN_RATIO, choose_rewordings, similarity

from conftest import ROOT

OLD = "Creating the copy won’t cause the Case to be solved."
NEW = "Creating the copy doesn’t cause the Case to be solved."
OTHER = "If the Case leaves the battlefield, its ability still resolves."


def test_a_correction_of_a_few_words_is_a_rewording_and_an_unrelated_ruling_is_not():
    assert similarity(OLD, NEW) >= REWORD_MIN_RATIO > similarity(OLD, OTHER)
    assert choose_rewordings([("r-old", "r-new", OLD, NEW)]) == [("r-old", "r-new")]
    assert choose_rewordings([("r-old", "r-other", OLD, OTHER)]) == []


def test_each_ruling_is_paired_once_the_most_alike_first():
    spelled_out = OLD.replace("won’t", "will not")
    assert similarity(OLD, NEW) > similarity(OLD, spelled_out) > similarity(NEW, spelled_out) >= REWORD_MIN_RATIO
    # r-old goes with its closest wording; r-new is taken, so r-old2 gets the one left
    pairs = choose_rewordings([("r-old", "r-spelled", OLD, spelled_out), ("r-old", "r-new", OLD, NEW),
                               ("r-old2", "r-new", NEW, NEW), ("r-old2", "r-spelled", NEW, spelled_out)])
    assert pairs == [("r-old2", "r-new"), ("r-old", "r-spelled")]  # identical texts (ratio 1) first


def test_the_choice_does_not_depend_on_the_order_of_the_candidates():
    candidates = [("a", "x", OLD, NEW), ("a", "y", OLD, NEW), ("b", "x", OLD, NEW), ("b", "y", OLD, NEW)]
    assert choose_rewordings(candidates) == choose_rewordings(list(reversed(candidates))) == [("a", "x"), ("b", "y")]
    assert choose_rewordings([]) == []


def test_no_two_rulings_of_one_card_in_the_sample_pass_for_a_rewording():
    lists = sorted((ROOT / "data" / "raw" / "sample" / "docs" / "scryfall-api").glob("*rulings*"))
    pairs = [(a["comment"], b["comment"]) for path in lists
             for a, b in itertools.combinations(json.loads(path.read_text("utf-8"))["data"], 2)]
    assert len(lists) == 15 and len(pairs) > 800
    highest = max(similarity(a, b) for a, b in pairs)
    assert 0.5 < highest < REWORD_MIN_RATIO


def test_a_rewording_between_0_7_and_0_8_alike_is_still_a_rewording():
    """A constructed correction that names the card otherwise and changes its verb scores between
    0.7 and 0.8: still one ruling re-worded. The bounds are written out so that a stricter
    threshold (0.8 would call it a ruling removed and another added) fails here."""
    before = "If Case of the Shifting Visage leaves the battlefield, the copy remains on the stack."
    after = "If the Case leaves the battlefield, the copy is still on the stack."
    assert 0.7 <= similarity(before, after) < 0.8
    assert choose_rewordings([("r-old", "r-new", before, after)]) == [("r-old", "r-new")]
