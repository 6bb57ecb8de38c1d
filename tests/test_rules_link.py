"""Links from rulings, cards and the MTG wiki page to the rules of the constructed CR excerpt."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pages_support import WIKI_PAGE as WIKI_HTML, page
from pipeline.normalize.pages.wiki import parse_wiki_page
from pipeline.normalize.rules import parse_cr
from pipeline.normalize.text import match_key
from pipeline.rules_link import (
    METHODS,
    RuleLink,
    link_card,
    link_text,
    link_wiki_quotes,
    solved_ability_kind,
    subtypes,
    unknown_keyword_rules,
)

FIXTURES = Path(__file__).parent / "fixtures"
REFERENCE = json.loads((FIXTURES / "reference" / "comprehensive_rules_719.json").read_text("utf-8"))
CARDS = json.loads((FIXTURES / "reference" / "case_cards.json").read_text("utf-8"))
WIKI_PAGE = (FIXTURES / "seeds" / "000_8bff36ab184ebabf.txt").read_text("utf-8")
PAIRS = REFERENCE["case_generic_rulings"]["pairs"]
FORMS = ("straight_as_in_MTGJSON_MKM", "curly_as_in_MTGJSON_MKC")
CASE_RULES = {"719.3a", "719.3b", "719.3c"}

# The 9 general Case rulings: the rules each one's text warrants, found by keyword, and why.
EXPECTED_KEYWORD_LINKS = [
    ("Each Case has two special keyword abilities", {"719.3", "702.169a"},
     "719.3 introduces the two keyword abilities; 702.169a says Solved is a keyword ability"),
    ('"To Solve — [condition]" means', {"719.3a"},
     "restates 719.3a, the meaning of To solve"),
    ('The meaning of "solved" differs', {"719.3c", "702.169", "702.169d"},
     "Solved — [activated ability]: 719.3c, and 702.169d for an activated ability"),
    ('"Solved — [Triggered ability]" means', {"719.3c", "702.169", "702.169c"},
     "Solved — [triggered ability]: 719.3c, and 702.169c for a triggered ability"),
    ('"Solved — [static ability]" means', {"719.3c", "702.169", "702.169b"},
     "Solved — [static ability]: 719.3c, and 702.169b for a static ability"),
    ('"To solve" abilities will check', {"719.3a"},
     "the condition of 719.3a is checked as the ability triggers and as it resolves"),
    ("Once a Case becomes solved, it stays solved", {"719.3b"},
     "719.3b: once solved, it stays solved until it leaves the battlefield"),
    ("Cases don't lose their other abilities", {"719.3b"},
     "719.3b: solved is only a designation, with no rules meaning beyond a marker"),
    ("Being solved is not part of a permanent's copiable values", {"719.3b"},
     "719.3b: the solved designation is not part of the copiable values"),
]

# Kind of each card's "Solved —" ability, read from its Oracle text, and the sub-rule of 702.169.
EXPECTED_SOLVED_KIND = {
    "Case of the Shattered Pact": ("triggered", "702.169c"),   # At the beginning of combat …
    "Case of the Gateway Express": ("static", "702.169b"),     # Creatures you control get +1/+0.
    "Case of the Pilfered Proof": ("static", "702.169b"),      # the colon is in the Clue's reminder
    "Case of the Uneaten Feast": ("activated", "702.169d"),    # Sacrifice this Case: …
    "Case of the Filched Falcon": ("activated", "702.169d"),   # {2}{U}, Sacrifice this Case: …
    "Case of the Ransacked Lab": ("triggered", "702.169c"),    # Whenever you cast …
    "Case of the Gorgon's Kiss": ("static", "702.169b"),       # This Case is a 4/4 Gorgon …
    "Case of the Stashed Skeleton": ("activated", "702.169d"), # {1}{B}, Sacrifice this Case: …
    "Case of the Burning Masks": ("activated", "702.169d"),    # Sacrifice this Case: …
    "Case of the Crimson Pulse": ("triggered", "702.169c"),    # At the beginning of your upkeep …
    "Case of the Locked Hothouse": ("static", "702.169b"),     # You may look at the top card …
    "Case of the Trampled Garden": ("triggered", "702.169c"),  # Whenever you attack …
    "Case of the Shifting Visage": ("triggered", "702.169c"),  # Whenever you cast …
    "Case of the Lost Witness": ("static", "702.169b"),        # You may look at the top card …
    "Case of the Market Melee": ("triggered", "702.169c"),     # Whenever you attack …
}


@pytest.fixture(scope="module")
def rules():
    path = FIXTURES / "rules" / "cr_case_excerpt.txt"
    return parse_cr(path.read_bytes(), path.name)


def keyword_numbers(links: list[RuleLink]) -> set[str]:
    return {link.rule_number for link in links if link.method == "keyword"}


def wiki_quoted_numbers() -> list[str]:
    """The rules the constructed MTG wiki page quotes, as the build takes them (glossary entries aside)."""
    quoted = parse_wiki_page(page(WIKI_HTML), "doc-000").rules_quoted
    return [number for number, _ in quoted if not number.startswith("glossary:")]


def generic_text(prefix: str, form: str) -> str:
    matches = [pair[form] for pair in PAIRS if match_key(pair[FORMS[0]]).startswith(match_key(prefix))]
    assert len(matches) == 1, prefix
    return matches[0]


def test_the_table_covers_the_nine_general_rulings():
    assert len(PAIRS) == len(EXPECTED_KEYWORD_LINKS) == 9
    assert {generic_text(prefix, FORMS[0]) for prefix, _, _ in EXPECTED_KEYWORD_LINKS} == {
        pair[FORMS[0]] for pair in PAIRS}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("prefix, expected, reason", EXPECTED_KEYWORD_LINKS,
                         ids=[prefix for prefix, _, _ in EXPECTED_KEYWORD_LINKS])
def test_general_ruling_links_to_the_rules_its_text_warrants(rules, form, prefix, expected, reason):
    links = link_text(generic_text(prefix, form), rules)
    assert keyword_numbers(links) == expected, reason
    assert expected & (CASE_RULES | {"702.169", "702.169a", "702.169b", "702.169c", "702.169d"})


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair[FORMS[0]][:40])
def test_both_typographic_forms_link_alike(rules, pair):
    assert link_text(pair[FORMS[0]], rules) == link_text(pair[FORMS[1]], rules)


def test_card_specific_rulings_get_no_case_rule_keyword_links(rules):
    general = {match_key(pair[FORMS[0]]) for pair in PAIRS}
    rows = [ruling["text"] for card in CARDS for ruling in card["rulings"]]
    specific = [text for text in rows if match_key(text) not in general]
    assert (len(rows), len(specific)) == (153, 36)  # 13 paper Cases x 9 general rulings = 117
    for text in specific:
        assert keyword_numbers(link_text(text, rules)) == set(), text


def test_a_copiable_value_that_is_not_solved_is_not_719_3b(rules):
    text = next(r["text"] for card in CARDS for r in card["rulings"] if "suspected" in r["text"])
    assert text.startswith("Being suspected isn't a copiable value.")
    assert keyword_numbers(link_text(text, rules)) == set()


def test_wiki_rulings(rules):
    remains = "A Case remains solved even if another player gains control of it."
    assert remains in WIKI_PAGE
    assert keyword_numbers(link_text(remains, rules)) == {"719.3b"}


def test_every_link_carries_a_method_and_evidence(rules):
    links = [link for card in CARDS for ruling in card["rulings"]
             for link in link_text(ruling["text"], rules)]
    links += [link for card in CARDS
              for link in link_card(card["oracle_text"], card["type_line"], rules)]
    links += link_wiki_quotes(wiki_quoted_numbers(), rules)
    assert {link.method for link in links} == {"keyword", "glossary", "type_line", "wiki_quote"}
    assert all(link.method in METHODS and link.evidence for link in links)


def test_several_reasons_make_one_link_with_all_the_evidence(rules):
    text = generic_text("Being solved is not part", FORMS[1])
    [link] = [link for link in link_text(text, rules) if link.method == "keyword"]
    assert link == RuleLink("719.3b", "keyword", "says a solved permanent stays solved; "
                                                 "says being solved is not part of the copiable values")


def test_citations(rules):
    links = link_text("See rule 702.169, “Solved.” Compare rule 719.3a and 702.169b; see section 7. "
                      "Rule 999.1 and 123.4 are not in this edition.", rules)
    assert [(link.rule_number, link.evidence) for link in links if link.method == "citation"] == [
        ("7", "see section 7"),
        ("702.169", "See rule 702.169"),
        ("702.169b", "702.169b"),
        ("719.3a", "rule 719.3a"),
    ]


def test_a_range_of_lettered_rules_cites_each_rule_of_it(rules):
    """The rules write a run of sub-rules as a range ("see rules 702.103e–g", "See rules
    205.1a–b"); a text citing 702.169b–d cites 702.169b, c and d. The texts below are test-only
    inputs in that style, linked against the rules of the excerpt."""
    def cited(text):
        return [(link.rule_number, link.evidence) for link in link_text(text, rules) if link.method == "citation"]

    assert cited("See rules 702.169b–d.") == [("702.169b", "See rules 702.169b–d"), ("702.169c", "See rules 702.169b–d"),
                                              ("702.169d", "See rules 702.169b–d")]
    assert cited("(see 719.3a-c)") == [("719.3a", "719.3a-c"), ("719.3b", "719.3a-c"), ("719.3c", "719.3a-c")]
    # a letter after a dash that is no range end, and a range the wrong way round, cite the first rule only
    assert cited("rule 719.3a-based effects") == [("719.3a", "rule 719.3a")]
    assert cited("rules 719.3c–a") == [("719.3c", "rules 719.3c–a")]


def test_every_rule_of_a_list_after_rules_is_cited(rules):
    """The rules list whole rules after one "rules" ("See rules 614 and 615.", rule 609.6); a
    whole rule has no full stop in its number, so only the word "rules" says it is one. The texts
    below are test-only inputs in that style, linked against the rules of the excerpt."""
    def cited(text):
        return [(link.rule_number, link.evidence) for link in link_text(text, rules) if link.method == "citation"]

    assert cited("See rules 702 and 719.") == [("702", "See rules 702"), ("719", "See rules 702 and 719")]
    assert cited("rules 702.169b, 702.169c, and 719") == [
        ("702.169b", "rules 702.169b"), ("702.169c", "702.169c"), ("719", "rules 702.169b, 702.169c, and 719")]
    assert cited("See rules 702, “Keyword Abilities,” and 719, “Case Cards.”") == [
        ("702", "See rules 702"), ("719", "See rules 702, “Keyword Abilities,” and 719")]
    # a number after a citation that is not in a list of rules is no citation
    assert cited("See rule 702. 719 cards") == [("702", "See rule 702")]


def test_glossary_terms(rules):
    def glossary(text, **kwargs):
        return [(link.rule_number, link.evidence) for link in link_text(text, rules, **kwargs)
                if link.method == "glossary"]

    assert glossary("Cases don’t lose their other abilities.") == [("719", 'glossary term "Case"')]
    assert glossary("The “SOLVED” ability.") == [("702.169", 'glossary term "Solved"'),
                                                 ("719", 'glossary term "Solved"')]
    assert glossary("An unsolved mystery in a suitcase or showcase.") == []
    assert glossary("Once a Case becomes solved", terms=["case"]) == [("719", 'glossary term "Case"')]


def test_a_subtype_is_a_glossary_term_only_where_it_is_capitalized(rules):
    """The rules write the subtype "Case" capitalized only (719, its glossary entry), and "solved"
    in lower case too: "in that case" is the everyday word, not rule 719, and "solved" is linked
    however it is written. Constructed sentences."""
    def glossary(text):
        return sorted({evidence for link in link_text(text, rules, terms=["Case", "Solved"])
                       if link.method == "glossary" for evidence in link.evidence.split("; ")})

    assert glossary("In that case, the ability does nothing.") == []
    assert glossary("If that happens, in any case the spell resolves.") == []
    assert glossary("In that case, the Case stays solved.") == ['glossary term "Case"', 'glossary term "Solved"']
    assert glossary("In that case, it stays solved.") == ['glossary term "Solved"']
    assert glossary("Two Cases on the battlefield.") == ['glossary term "Case"']


def test_every_card_links_to_719_and_its_keyword_abilities(rules):
    assert len(CARDS) == len(EXPECTED_SOLVED_KIND) == 15
    for card in CARDS:
        links = link_card(card["oracle_text"], card["type_line"], rules)
        kind, subrule = EXPECTED_SOLVED_KIND[card["name"]]
        assert {(link.rule_number, link.method) for link in links} == {
            ("719", "type_line"), ("719.3a", "keyword"), ("719.3c", "keyword"),
            ("702.169", "keyword"), (subrule, "keyword"),
        }, card["name"]
        [kind_link] = [link for link in links if link.rule_number == subrule]
        assert kind_link.evidence.startswith(f"{kind} solved ability: Solved — ")


def test_card_without_the_case_subtype(rules):
    links = link_card("Flying", "Enchantment Creature — Case Study", rules)  # subtypes Case, Study
    assert [link.rule_number for link in links] == ["719"]
    assert link_card("Flying", "Enchantment — Class", rules) == []
    assert link_card(None, None, rules) == []


def test_solved_ability_kind():
    assert solved_ability_kind("At the beginning of your upkeep, draw a card.") == "triggered"
    assert solved_ability_kind("{T}: Add {G}.") == "activated"
    assert solved_ability_kind('Creatures you control have "{T}: Add {G}."') == "static"
    assert solved_ability_kind("Creatures you control get +1/+0. (Reminder: none.)") == "static"
    assert solved_ability_kind("When you do this: draw a card.") is None  # both signs: unclear


def test_subtypes():
    assert subtypes("Enchantment — Case") == {"case"}
    assert subtypes("Artifact Creature — Assembly-Worker") == {"assembly-worker"}
    assert subtypes("Enchantment — Case // Creature — Detective") == {"case", "detective"}
    assert subtypes("Legendary Enchantment") == set()


def test_wiki_quotes(rules):
    quoted = wiki_quoted_numbers()
    assert quoted == ["719", "719.1", "719.2", "719.3", "719.3a", "719.3b", "719.3c"]
    links = link_wiki_quotes([*quoted, "719.4"], rules)  # 719.4 is not in this edition
    assert [link.rule_number for link in links] == quoted
    assert {link.method for link in links} == {"wiki_quote"}


def test_unknown_keyword_rules(rules):
    assert unknown_keyword_rules(rules) == []
    older = replace(rules, rules=tuple(rule for rule in rules.rules if rule.number != "719.3c"))
    assert unknown_keyword_rules(older) == ["719.3c"]


@given(st.text(max_size=300))
def test_any_text_links_only_to_rules_of_the_document(text):
    path = FIXTURES / "rules" / "cr_case_excerpt.txt"
    rules = parse_cr(path.read_bytes(), path.name)
    for link in link_text(text, rules):
        assert link.rule_number in rules.by_number
        assert link.method in METHODS


def test_the_glossary_terms_are_keyed_once_per_term_list_not_once_per_ruling(rules, monkeypatch):
    """A build links every ruling of the warehouse (70,000 at the benchmark's 1x): the match keys
    of the glossary and of the terms are worked out once per edition and term list, and each
    ruling costs one match key of its own text."""
    import pipeline.rules_link as rules_link

    calls = []
    monkeypatch.setattr(rules_link, "match_key", lambda text: calls.append(text) or match_key(text))
    rules_link._wanted_glossary.cache_clear()
    texts = [f"Once a Case becomes solved, it stays solved ({i})." for i in range(300)]
    terms = ("Case", "Solved")
    links = [link_text(text, rules, terms=terms) for text in texts]
    assert all({link.rule_number for link in found if link.method == "glossary"} for found in links)
    assert len(calls) <= len(texts) + 2 * len(rules.glossary) + len(terms)


WORDS = ["See", "see also", "rule", "Rules", "section", "Section", "702.169a", "719.3", "7", "205.1a", "1.5", "–d", "702", "and",
         "solved", "Solved", "to solve", "keyword", "keyword abilities", "stays", "designation", "copiable values",
         "don't lose", "abilities", "becomes", "twice", "check", "—", "-", ".", ",", '"', "[condition]", "Case",
         "\u00bd", "\uff53olve", "ＲＵＬＥ", "case", "the", "a", "x"]


@given(st.lists(st.sampled_from(WORDS), max_size=14), st.sampled_from([" ", "", "  "]))
def test_the_quick_tests_skip_only_texts_the_patterns_do_not_match(rules, words, sep):
    """_citations, _keywords and the glossary skip a text on a cheap test first; they find what
    the patterns alone find."""
    import unicodedata

    import pipeline.rules_link as rules_link

    text = sep.join(words)
    key = match_key(text)
    cited = [link for m in rules_link._CITED.finditer(text) for link in rules_link._cited(text, m)]
    assert rules_link._citations(text) == cited
    keyed = [number for pattern, number, _ in rules_link._KEYWORDS if pattern.search(key)]
    assert [link.rule_number for link in rules_link._keywords(key)] == keyed
    glossary = rules_link._wanted_glossary(rules, None)
    found = [number for _, _, pattern, numbers, _ in glossary if pattern.search(key) for number in numbers]
    assert [link.rule_number for link in rules_link._glossary_links(key, rules, None)] == found
    if "solve" not in text.casefold() and unicodedata.is_normalized("NFKC", text):  # what _ability_line_links skips
        assert not rules_link._TO_SOLVE_LINE.match(key) and not rules_link._SOLVED_LINE.match(key)
        assert rules_link._ability_line_links(text) == []


def test_an_edition_is_hashed_from_its_rules_once_however_many_texts_look_it_up(rules):
    """Every text a build links looks the edition up in a cache; a full edition has thousands of
    rules, and hashing them all on each lookup cost 0.5 ms a text (a minute for 105,000 texts)."""
    from dataclasses import dataclass

    from pipeline.normalize.rules import Rule, RulesDocument
    from pipeline.rules_link import link_text

    hashed = []

    @dataclass(frozen=True)
    class CountedRule(Rule):
        def __hash__(self) -> int:
            hashed.append(self.number)
            return hash(self.number)

    edition = RulesDocument(rules.effective_date, tuple(CountedRule(**vars(r)) for r in rules.rules), rules.glossary)
    texts = ["A Case is solved once its condition is met.", "To solve — nothing.", "Solved Cases stay solved."]
    assert [link_text(t, edition) for t in texts * 20] == [link_text(t, rules) for t in texts * 20]
    assert len(hashed) <= len(rules.rules)  # once, not once per text
