"""parse_cr, decode_cr and diff_rules on the constructed Comprehensive Rules excerpt."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import ParseError
from pipeline.normalize.rules import (
    GlossaryEntry,
    RuleChange,
    decode_cr,
    diff_rules,
    parent_of,
    parse_cr,
    rule_sort_key,
)

FIXTURES = Path(__file__).parent / "fixtures"
EXCERPT = FIXTURES / "rules" / "cr_case_excerpt.txt"
REFERENCE = json.loads((FIXTURES / "reference" / "comprehensive_rules_719.json").read_text("utf-8"))

EXPECTED_NUMBERS = [
    "7", "702", "702.169", "702.169a", "702.169b", "702.169c", "702.169d",
    "719", "719.1", "719.2", "719.3", "719.3a", "719.3b", "719.3c",
]


@pytest.fixture(scope="module")
def excerpt_bytes() -> bytes:
    return EXCERPT.read_bytes()


@pytest.fixture(scope="module")
def excerpt(excerpt_bytes):
    return parse_cr(excerpt_bytes, EXCERPT.name)


def reference_paragraphs(rule_key: str) -> dict[str, str]:
    """Rule number -> text without its number, from the JSON the excerpt was built from."""
    paragraphs = {}
    for paragraph in REFERENCE[rule_key]["text"].split("\n\n"):
        number, text = paragraph.split(" ", 1)
        paragraphs[number.rstrip(".")] = text.rstrip()
    return paragraphs


def test_effective_date(excerpt):
    assert excerpt.effective_date == REFERENCE["effective_date_as_seen"] == "2024-09-20"


def test_rules_in_order_and_contents_not_taken_as_rules(excerpt):
    assert [rule.number for rule in excerpt.rules] == EXPECTED_NUMBERS
    assert [rule.position for rule in excerpt.rules] == list(range(len(EXPECTED_NUMBERS)))


def test_parents(excerpt):
    parents = {rule.number: rule.parent for rule in excerpt.rules}
    assert parents["719.3a"] == "719.3"
    assert parents["719.3"] == "719"
    assert parents["719"] == "7"
    assert parents["702.169"] == "702"
    assert parents["702"] == "7"
    assert parents["7"] is None


def test_titles_only_on_headings(excerpt):
    titles = {rule.number: rule.title for rule in excerpt.rules if rule.title}
    assert titles == {
        "7": "Additional Rules",
        "702": "Keyword Abilities",
        "702.169": "Solved",
        "719": "Case Cards",
    }


def test_texts_are_the_published_ones(excerpt):
    expected = reference_paragraphs("rule_719") | reference_paragraphs("rule_702_169")
    texts = {rule.number: rule.text for rule in excerpt.rules if rule.number in expected}
    assert texts == expected


def test_trailing_whitespace_stripped(excerpt):
    # The official 719.3 and 719.3a end with a space; the excerpt keeps it, the rows do not.
    assert " \n" in EXCERPT.read_text("utf-8")
    assert all(rule.text == rule.text.rstrip() for rule in excerpt.rules)
    assert excerpt.by_number["719.3"].text.endswith("or activated.")


def test_glossary(excerpt):
    assert excerpt.glossary == (
        GlossaryEntry("Case", REFERENCE["glossary"]["Case"].split("\n", 1)[1].rstrip()),
        GlossaryEntry("Solved", REFERENCE["glossary"]["Solved"].split("\n", 1)[1]),
    )


def test_windows_1252_with_bare_cr_parses_to_equal_rows(excerpt, excerpt_bytes):
    legacy = excerpt_bytes.decode("utf-8").replace("\n", "\r").encode("cp1252")
    assert b"\x93" in legacy  # a curly quote, as Windows-1252 writes it
    assert parse_cr(legacy, "legacy.txt") == excerpt


def test_utf8_bom_with_crlf_parses_to_equal_rows(excerpt, excerpt_bytes):
    bom_crlf = b"\xef\xbb\xbf" + excerpt_bytes.replace(b"\n", b"\r\n")
    assert parse_cr(bom_crlf, "bom.txt") == excerpt


@settings(max_examples=50, deadline=None)
@given(
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "cp1252"]),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    trailing=st.lists(st.sampled_from(["", " ", "\t", "  "]), min_size=1, max_size=5),
)
def test_encoding_line_breaks_and_trailing_blanks_never_change_the_rows(encoding, newline, trailing):
    text = EXCERPT.read_text("utf-8")
    lines = [line + trailing[i % len(trailing)] for i, line in enumerate(text.split("\n"))]
    data = newline.join(lines).encode(encoding)
    assert parse_cr(data, "variant.txt") == parse_cr(EXCERPT.read_bytes(), EXCERPT.name)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_its_byte_order_mark_parses_to_equal_rows(excerpt, excerpt_bytes, codec):
    # a constructed UTF-16 copy of the excerpt: read as Windows-1252 before ("þÿ\x00M\x00a…"), it was
    # refused for want of an effective date, as if it were no Comprehensive Rules
    text = excerpt_bytes.decode("utf-8").replace("\n", "\r\n")
    bom = b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff"
    assert parse_cr(bom + text.encode(codec), "utf16.txt") == excerpt


def test_utf16_that_is_not_is_a_parse_error_naming_its_byte_order_mark():
    with pytest.raises(ParseError, match="not UTF-16, which its byte order mark says"):
        parse_cr(b"\xff\xfe\x00\xd8 rules", "odd.txt")


@pytest.mark.parametrize("typed, number", [("719.2. The Case", "719.2 The Case"),
                                           ("719.3a “To solve", "719.3a. “To solve")])
def test_a_rule_number_without_or_with_an_extra_full_stop_still_opens_its_rule(excerpt, excerpt_bytes,
                                                                                typed, number):
    # constructed edits of the excerpt: the line was read as the rule before's next line, and the
    # rule was gone without a word
    edited = parse_cr(excerpt_bytes.replace(typed.encode(), number.encode()), "typo.txt")
    assert edited == excerpt


@pytest.mark.parametrize("line", ["719.3a: “To solve", "719.3a—“To solve", "719.3-“To solve"])
def test_a_line_opening_with_a_rule_number_that_opens_no_rule_is_a_parse_error(excerpt_bytes, line):
    with pytest.raises(ParseError, match="opens with a rule number but reads as no rule: '719.3"):
        parse_cr(excerpt_bytes.replace("719.3a “To solve".encode(), line.encode()), "typo.txt")


def test_decode_cr():
    assert decode_cr(b"\xef\xbb\xbfa\r\nb\rc\n") == "a\nb\nc\n"
    assert decode_cr("“Solved — x”".encode("cp1252")) == "“Solved — x”"


def test_example_lines_continue_their_rule():
    # Real text of rule 101.2 (Comprehensive Rules effective July 8, 2017): its Example follows
    # on the next line, with no blank line between.
    data = (
        "Magic: The Gathering Comprehensive Rules\n\n"
        "These rules are effective as of July 8, 2017.\n\n"
        "101. The Magic Golden Rules\n\n"
        "101.2. When a rule or effect allows or directs something to happen, and another effect "
        "states that it can’t happen, the “can’t” effect takes precedence.\n"
        "Example: If one effect reads “You may play an additional land this turn” and another reads "
        "“You can’t play land cards this turn,” the effect that precludes you from playing lands wins.\n\n"
        "Glossary\n\nCredits\n"
    ).encode("utf-8")
    rules = parse_cr(data, "golden.txt").rules
    assert [rule.number for rule in rules] == ["101", "101.2"]
    assert rules[1].title is None
    assert rules[1].text.endswith("takes precedence.\nExample: If one effect reads “You may play "
                                  "an additional land this turn” and another reads “You can’t play "
                                  "land cards this turn,” the effect that precludes you from playing "
                                  "lands wins.")


def test_no_effective_date_is_a_parse_error(excerpt_bytes):
    data = excerpt_bytes.replace(REFERENCE["effective_line_verbatim"].encode(), b"")
    with pytest.raises(ParseError) as raised:
        parse_cr(data, "undated.txt")
    assert raised.value.document == "undated.txt"
    assert "effective" in raised.value.reason


def test_file_cut_short_is_a_parse_error(excerpt_bytes):
    cut = excerpt_bytes[: excerpt_bytes.index(b"719.3b")]
    with pytest.raises(ParseError, match="cut short"):
        parse_cr(cut, "cut.txt")


def test_undecodable_bytes_are_a_parse_error():
    with pytest.raises(ParseError, match="neither UTF-8 nor Windows-1252"):
        parse_cr(b"\xff\x81 rules", "binary.txt")


def test_no_rules_is_a_parse_error():
    data = b"These rules are effective as of September 20, 2024.\n\nGlossary\n\nCredits\n"
    with pytest.raises(ParseError, match="no numbered rules"):
        parse_cr(data, "empty.txt")


def test_diff_finds_exactly_the_reworded_rule(excerpt, excerpt_bytes):
    # A constructed next edition: one sentence of 719.2 changed, nothing else.
    old_sentence = "The Case frame has no additional rules meaning."
    new_sentence = "The Case frame has no rules meaning of its own."
    edited = excerpt_bytes.replace(old_sentence.encode(), new_sentence.encode())
    assert edited != excerpt_bytes
    changes = diff_rules(excerpt, parse_cr(edited, "next.txt"))
    assert changes == [RuleChange("719.2", "reworded", old_sentence, new_sentence)]


def test_diff_ignores_whitespace_only_changes(excerpt, excerpt_bytes):
    respaced = excerpt_bytes.replace(b"has no additional", b"has  no\tadditional")
    assert diff_rules(excerpt, parse_cr(respaced, "respaced.txt")) == []
    assert diff_rules(excerpt, excerpt) == []


def test_diff_added_and_removed(excerpt):
    without_719_3c = replace(excerpt, rules=tuple(r for r in excerpt.rules if r.number != "719.3c"))
    assert diff_rules(without_719_3c, excerpt) == [
        RuleChange("719.3c", "added", None, excerpt.by_number["719.3c"].text)]
    assert diff_rules(excerpt, without_719_3c) == [
        RuleChange("719.3c", "removed", excerpt.by_number["719.3c"].text, None)]


def test_rule_number_helpers():
    numbers = ["719.3c", "7", "702.169", "719", "702.169a", "700", "719.3", "8", "702.20", "702.3"]
    assert sorted(numbers, key=rule_sort_key) == [
        "7", "700", "702.3", "702.20", "702.169", "702.169a", "719", "719.3", "719.3c", "8"]
    assert [parent_of(n) for n in ["7", "719", "719.3", "719.3a"]] == [None, "7", "719", "719.3"]
