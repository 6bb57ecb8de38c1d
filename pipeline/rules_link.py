"""Links from rulings and cards to the Comprehensive Rules, each saying how it was found.

Runs after ``normalize.rules`` has parsed a CR edition and before the links are loaded; the same
rulings give the same links for the same edition. Pure: no network, no DuckDB.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from pipeline.normalize.rules import RulesDocument, rule_sort_key
from pipeline.normalize.text import folded_text, match_key

# How a link was found, from the most to the least direct. Links sort in this order within a rule.
METHODS = ("citation", "type_line", "keyword", "wiki_quote", "glossary")


@dataclass(frozen=True)
class RuleLink:
    rule_number: str
    method: str  # one of METHODS
    evidence: str  # what in the text made the link: the citation, the reason, the term


# Keyword table: a ruling or card text that states what a rule defines links to that rule.
# Source: the texts of CR 719.3, 719.3a-c and 702.169a-d (rules effective 2024-09-20, as in
# tests/fixtures/reference/comprehensive_rules_719.json). Each pattern is searched in the text's
# match_key: quotes straight, dashes "-", one space, casefolded. "[^.]*" keeps a match within
# one sentence.
_SOLVED_ABILITY = r'"solved - \[(?:static|triggered|activated) ability\]"'
KEYWORD_PATTERNS: list[tuple[str, str, str]] = [
    # 719.3 "Case cards have two special keyword abilities that appear before a long dash …"
    (r"\btwo special keyword abilities\b", "719.3",
     "names the two special keyword abilities of Case cards"),
    # 702.169a "Solved is a keyword ability found on Case cards."
    (r"\bkeyword abilit(?:y|ies)\b[^.]*\bsolved\b", "702.169a",
     "calls solved a keyword ability"),
    # 719.3a "“To solve — [Condition]” means “At the beginning of your end step, if [condition]
    # and this Case is not solved, this Case becomes solved.”"
    (r'"to solve - \[condition\]"', "719.3a",
     'says what "To solve — [condition]" means'),
    (r'"to solve" abilit(?:y|ies)\b[^.]*\bcheck\b[^.]*\btwice\b', "719.3a",
     'says when a "to solve" ability checks its condition'),
    # 719.3b "Solved is a designation … Once a permanent becomes solved, it stays solved until it
    # leaves the battlefield. The solved designation is neither an ability nor part of the
    # permanent's copiable values."
    (r"\b(?:stays|remains) solved\b", "719.3b",
     "says a solved permanent stays solved"),
    (r"\bsolved designation\b", "719.3b",
     "speaks of the solved designation"),
    (r"\bsolved\b[^.]*\bcopiable values?\b", "719.3b",
     "says being solved is not part of the copiable values"),
    (r"\bdon't lose\b[^.]*\babilities\b[^.]*\bbecomes? solved\b", "719.3b",
     "says becoming solved takes no ability away: solved is only a designation"),
    # 719.3c "If a Case has the solved designation, “Solved — [Ability text]” is an ability
    # that may affect the game if it's a static ability, …"
    (_SOLVED_ABILITY, "719.3c",
     'says what a "Solved —" ability does'),
    # 702.169 "Solved" and its b-d: what "Solved — [Ability text]" means for each kind of ability.
    (_SOLVED_ABILITY, "702.169",
     'says what a "Solved —" ability means'),
    (r'"solved - \[static ability\]"', "702.169b",
     'says what "Solved — [static ability]" means'),
    (r'"solved - \[triggered ability\]"', "702.169c",
     'says what "Solved — [triggered ability]" means'),
    (r'"solved - \[activated ability\]"', "702.169d",
     'says what "Solved — [activated ability]" means'),
]
_KEYWORDS = [(re.compile(pattern), number, reason) for pattern, number, reason in KEYWORD_PATTERNS]

# "See rule 702.169", "rule 719", "rules 205.1a", "section 7", and a bare "702.169a"; a lettered
# rule may end a range of its sub-rules: "rules 702.103e–g" (the rules' own way of citing a run).
_RANGE_END = r"(?:(?<=[a-z])[-\u2010\u2011\u2013]([a-z])(?!\w|\.\d))?"
_CITED = re.compile(
    r"(?:\b[Ss]ee (?:also )?)?\b(?:[Rr]ules?|[Ss]ection) (\d{3}(?:\.\d+[a-z]?)?|\d)(?![\w]|\.\d)" + _RANGE_END
    + r"|(?<![\w.])(\d{3}\.\d+[a-z]?)(?!\w|\.\d)" + _RANGE_END
)
# The next rule of a list after "rules" ("See rules 614 and 615", "rules 601.2b, 601.2f, and 903",
# a title in quotes after a number: "702, “Keyword Abilities,” and 719"). A number with a full stop
# is found by _CITED on its own; a whole rule's ("615") only as an item of such a list.
_LISTED = re.compile(r"(?:,? [\"\u201c][^\"\u201c\u201d]{1,80}[\"\u201d])?(?:,? (?:and|or) |, )"
                     r"(\d{3}(?:\.\d+[a-z]?)?)(?!\w|\.\d)" + _RANGE_END)

# On a card: the lines of the Case keyword abilities, and how to tell the kind of a solved ability.
_TO_SOLVE_LINE = re.compile(r"to solve - ")
_SOLVED_LINE = re.compile(r"solved - (.+)")
_REMINDER_OR_QUOTE = re.compile(r'\([^)]*\)|"[^"]*"')
_TRIGGER_WORD = re.compile(r"(?:at|when|whenever)\b")
_KIND_SUBRULE = {"static": "702.169b", "triggered": "702.169c", "activated": "702.169d"}


def link_text(text: str, rules: RulesDocument, *,
              terms: Iterable[str] | None = None) -> list[RuleLink]:
    """Citation, keyword and glossary links of a ruling's text, one per rule and method.

    ``terms`` narrows the glossary to those terms (None: every entry; the full glossary has
    common words such as "Card" and "Target"). Rules ``rules`` lacks are left out.
    """
    key = match_key(text)
    links = [*_citations(text), *_keywords(key), *_glossary_links(key, rules, terms, text)]
    return _known_and_sorted(links, rules)


def link_card(oracle_text: str | None, type_line: str | None,
              rules: RulesDocument) -> list[RuleLink]:
    """Links of a Case card, from its type line and the lines of its keyword abilities.

    Subtype Case: 719. "To solve —": 719.3a. "Solved —": 719.3c and 702.169, and where the kind of
    the ability is clear (``solved_ability_kind``) 702.169b static, c triggered or d activated.
    """
    links = []
    if "case" in subtypes(type_line):
        links.append(RuleLink("719", "type_line", f"subtype Case: {type_line}"))
    for line in (oracle_text or "").split("\n"):
        links.extend(_ability_line_links(line))
    return _known_and_sorted(links, rules)


def link_wiki_quotes(quoted_numbers: Iterable[str], rules: RulesDocument) -> list[RuleLink]:
    """One ``wiki_quote`` link per rule the MTG wiki page quotes and ``rules`` has.

    A wiki quoting an older edition may name a rule since renumbered; such numbers are left out.
    """
    links = [RuleLink(number, "wiki_quote", f"the page quotes rule {number}")
             for number in quoted_numbers]
    return _known_and_sorted(links, rules)


def solved_ability_kind(ability_text: str) -> str | None:
    """The kind of the ability after "Solved —": static, triggered, activated, or None if unclear.

    Reminder text and quoted abilities are set aside first: a Clue's "{2}, Sacrifice …: Draw a
    card." does not make the Case's ability activated. A colon means activated, an opening
    "At", "When" or "Whenever" triggered; both at once is unclear; neither is static.
    """
    own = _REMINDER_OR_QUOTE.sub(" ", match_key(ability_text))
    activated = ":" in own
    triggered = _TRIGGER_WORD.match(own.strip()) is not None
    if activated and triggered:
        return None
    return "activated" if activated else "triggered" if triggered else "static"


def subtypes(type_line: str | None) -> set[str]:
    """Casefolded subtypes of every face: the words after the long dash."""
    found = set()
    for face in match_key(type_line or "").split("//"):
        _, dash, after = face.partition(" - ")
        if dash:
            found.update(after.split())
    return found


def unknown_keyword_rules(rules: RulesDocument) -> list[str]:
    """Rule numbers of the keyword table that ``rules`` lacks: a new edition renumbered them."""
    wanted = [number for _, number, _ in KEYWORD_PATTERNS] + ["719", *_KIND_SUBRULE.values()]
    return sorted({number for number in wanted if number not in rules.by_number}, key=rule_sort_key)


# Cheap tests that let most texts skip the patterns above (a build links every ruling of the
# warehouse): a citation names a rule or section, or has a number like 702.1; every keyword
# pattern has "solve" or "keyword" in it.
_RULE_NUMBER = re.compile(r"\d\.\d")


def _citations(text: str) -> list[RuleLink]:
    if "ule" not in text and "ection" not in text and not _RULE_NUMBER.search(text):
        return []
    return [link for match in _CITED.finditer(text) for link in _cited(text, match)]


def _cited(text: str, match: re.Match) -> Iterator[RuleLink]:
    """The links of one match of _CITED, and after "rules", of the whole rules listed after it."""
    for number in _cited_numbers(match.group(1) or match.group(3), match.group(2) or match.group(4)):
        yield RuleLink(number, "citation", match.group(0))
    if match.group(1) is None or not text.endswith(("rules ", "Rules "), 0, match.start(1)):
        return
    end = match.end()
    while item := _LISTED.match(text, end):
        end = item.end()
        if "." not in item.group(1):  # a number with a full stop is a match of _CITED of its own
            yield RuleLink(item.group(1), "citation", text[match.start():end])


def _cited_numbers(number: str, last_letter: str | None) -> list[str]:
    """The rules a citation names: ``number``, and with a range's last letter ("702.169b–d") every
    sub-rule from ``number``'s letter to it (letters the rules skip, l and o, are no rule of theirs)."""
    if last_letter is None or last_letter <= number[-1]:
        return [number]
    return [number[:-1] + chr(code) for code in range(ord(number[-1]), ord(last_letter) + 1)]


def _keywords(key: str) -> list[RuleLink]:
    if "solve" not in key and "keyword" not in key:
        return []
    return [RuleLink(number, "keyword", reason) for pattern, number, reason in _KEYWORDS
            if pattern.search(key)]


def _glossary_links(key: str, rules: RulesDocument, terms: Iterable[str] | None,
                    text: str | None = None) -> list[RuleLink]:
    """The glossary links of a text (``key``: its match key). A term the rules write capitalized
    only (a type or subtype: "Case") counts only where ``text`` writes it capitalized too: "in
    that case" is the everyday word. Without ``text``, every term counts in any case."""
    links = []
    cased = None  # the text's folded_text, worked out for the first capitalized term found
    for term, names, pattern, numbers, proper in _wanted_glossary(rules, None if terms is None else tuple(terms)):
        # the pattern matches one of the names: a text with none of them in it is skipped unsearched
        if not (any(name in key for name in names) and pattern.search(key)):
            continue
        if proper is not None and text is not None:
            cased = folded_text(text) if cased is None else cased
            if not proper.search(cased):
                continue
        evidence = f'glossary term "{term}"'
        links.extend(RuleLink(number, "glossary", evidence) for number in numbers)
    return links


# term, names, pattern, rule numbers, and for a term the rules write capitalized only, a pattern
# of its names as written (None for the others)
_GlossaryEntry = tuple[str, tuple[str, ...], re.Pattern[str], tuple[str, ...], re.Pattern[str] | None]


@lru_cache(maxsize=8)
def _wanted_glossary(rules: RulesDocument, terms: tuple[str, ...] | None) -> tuple[_GlossaryEntry, ...]:
    """The glossary patterns of ``terms`` (None: every entry), worked out once per edition and
    term list rather than once per ruling: a build links every ruling of the warehouse."""
    entries = _glossary_patterns(rules)
    if terms is None:
        return entries
    wanted = {match_key(term) for term in terms}
    return tuple(entry for entry in entries if match_key(entry[0]) in wanted)


@lru_cache(maxsize=8)
def _glossary_patterns(rules: RulesDocument) -> tuple[_GlossaryEntry, ...]:
    """Per glossary entry: its term, its names (match keys), a pattern for them, and the rules its
    definition cites.

    "Active Player, Nonactive Player" names two; "(Obsolete)" is not part of a name; a trailing
    "s" is allowed ("Cases"). An entry citing no rule gives no link. A term whose names the
    entry and the rules it cites (with their subrules) write capitalized wherever they write
    them is a proper name there (a type or subtype: "Case"), matched only capitalized.
    """
    children: dict[str, list] = {}
    for rule in rules.rules:
        children.setdefault(rule.parent or "", []).append(rule)
    compiled = []
    for entry in rules.glossary:
        numbers = tuple(dict.fromkeys(link.rule_number for link in _citations(entry.text)))
        written = [folded_text(name) for name in re.sub(r"\([^)]*\)", "", entry.term).split(",")]
        written = [name for name in written if name]
        names = [name.casefold() for name in written]
        if not numbers or not names:
            continue
        alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
        pattern = re.compile(rf"(?<!\w)(?:{alternatives})s?(?!\w)")
        compiled.append((entry.term, tuple(names), pattern, numbers,
                         _proper_pattern(written, pattern, [entry.text, *_texts_under(numbers, rules, children)])))
    return tuple(compiled)


def _texts_under(numbers: Iterable[str], rules: RulesDocument, children: dict[str, list]) -> Iterator[str]:
    """The texts and titles of the rules ``numbers`` and of every rule under them."""
    stack = [rules.by_number[number] for number in numbers if number in rules.by_number]
    while stack:
        rule = stack.pop()
        yield rule.text
        if rule.title:
            yield rule.title
        stack.extend(children.get(rule.number, ()))


def _proper_pattern(written: list[str], pattern: re.Pattern[str], texts: Iterable[str]) -> re.Pattern[str] | None:
    """A case-sensitive pattern of the names as ``written`` (folded_text), when ``texts`` hold
    them and write each with its first letter a capital; else None. ``pattern`` finds the names
    in lower case (a text whose lower case is not as long as it is left out: the places would
    not line up)."""
    if not all(name[:1].isupper() for name in written):
        return None
    seen = False
    for text in texts:
        folded = folded_text(text)
        lowered = folded.lower()
        if len(lowered) != len(folded):
            continue
        for found in pattern.finditer(lowered):
            if not folded[found.start()].isupper():
                return None
            seen = True
    if not seen:
        return None
    alternatives = "|".join(re.escape(name) for name in sorted(written, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})s?(?!\w)")


def _ability_line_links(line: str) -> list[RuleLink]:
    if "solve" not in line.casefold() and unicodedata.is_normalized("NFKC", line):
        return []  # its match key has no "solve" either: NFKC, which could make one, changes nothing
    key = match_key(line)
    if _TO_SOLVE_LINE.match(key):
        return [RuleLink("719.3a", "keyword", f"to solve ability: {line.strip()}")]
    solved = _SOLVED_LINE.match(key)
    if solved is None:
        return []
    evidence = f"solved ability: {line.strip()}"
    links = [RuleLink("719.3c", "keyword", evidence), RuleLink("702.169", "keyword", evidence)]
    kind = solved_ability_kind(solved.group(1))
    if kind is not None:
        links.append(RuleLink(_KIND_SUBRULE[kind], "keyword", f"{kind} {evidence}"))
    return links


def _known_and_sorted(links: list[RuleLink], rules: RulesDocument) -> list[RuleLink]:
    """One link per (rule, method), to rules the document has, in rule order then method order.

    When several things found the same link, its evidence lists them all, joined by "; ".
    """
    if not links:
        return []
    known = rules.by_number
    evidence: dict[tuple[str, str], list[str]] = {}
    for link in links:
        if link.rule_number in known:
            found = evidence.setdefault((link.rule_number, link.method), [])
            if link.evidence not in found:
                found.append(link.evidence)
    merged = [RuleLink(number, method, "; ".join(found)) for (number, method), found in evidence.items()]
    return sorted(merged, key=lambda link: (known[link.rule_number].position,
                                            METHODS.index(link.method)))
