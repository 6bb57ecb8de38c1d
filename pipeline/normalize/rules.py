"""The Comprehensive Rules text file, as Wizards publishes it, turned into rule and glossary rows.

Sits between the raw store (the file's bytes) and the rules tables; ``diff_rules`` tells what a
new edition changed. Pure: no network, no DuckDB.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property

from pipeline.errors import ParseError

# The published file's landmarks, each alone on its line. "Contents" lists the sections and ends
# with the entries "Glossary" and "Credits"; the same two words then head the last two parts
# (layout of MagicCompRules.txt as kept by taw/magic-search-engine, edition of July 8, 2017).
CONTENTS = "Contents"
GLOSSARY = "Glossary"
CREDITS = "Credits"

_EFFECTIVE = re.compile(r"These rules are effective as of ([A-Z][a-z]+) (\d{1,2}), (\d{4})\.")
_MONTHS = {name: n for n, name in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"], start=1)}

# "7. Additional Rules", "719. Case Cards", "719.3. Case cards have …", "719.3a “To solve …".
# Sub-rule letters skip l and o in print (the CR's Introduction says so); any letter is read.
_SECTION = re.compile(r"(\d)\.\s+(\S.*)")
_RULE = re.compile(r"(\d{3})\.\s+(\S.*)")
# The full stop after a sub-rule's number is sometimes left out, and one is sometimes set after a
# letter ("719.2 The Case", "719.3a. “To solve"): either way the line opens that rule.
_SUBRULE = re.compile(r"(\d{3})\.(\d+)\.?\s+(\S.*)")
_LETTERED = re.compile(r"(\d{3})\.(\d+)([a-z])\.?\s+(\S.*)")
# A line that opens with a sub-rule's number yet opens no rule ("719.3a: …"): read as the rule
# before's next line, it would take the rule's place without a word.
_RULE_NUMBER_FIRST = re.compile(r"\d{3}\.\d")

# A heading ("Case Cards", "Solved") ends without the full stop or colon a rule sentence ends in.
_SENTENCE_END = re.compile(r"[.:;!?][\"'”’)\]]*$")


@dataclass(frozen=True)
class Rule:
    number: str  # "7", "719", "719.3", "719.3a"
    parent: str | None  # "719.3" for "719.3a", "719" for "719.3", "7" for "719"; None for a section
    title: str | None  # "Case Cards", "Solved" for a heading; None for a rule that is a sentence
    text: str  # as published, without the number; an "Example:" line stays, after a newline
    position: int  # 0-based order in the document


@dataclass(frozen=True)
class GlossaryEntry:
    term: str  # as published: "Case", "Active Player, Nonactive Player", "Summon (Obsolete)"
    text: str  # the definition lines, joined by newlines


@dataclass(frozen=True)
class RulesDocument:
    effective_date: str  # ISO date
    rules: tuple[Rule, ...]
    glossary: tuple[GlossaryEntry, ...]

    @cached_property
    def by_number(self) -> dict[str, Rule]:
        return {rule.number: rule for rule in self.rules}

    # The links of a build look the document up in caches once per text they link (105,000 texts
    # at the bench's 1×): its hash is worked out once, not from its thousands of rules each time.
    @cached_property
    def _hash(self) -> int:
        return hash((self.effective_date, self.rules, self.glossary))

    def __hash__(self) -> int:
        return self._hash


@dataclass(frozen=True)
class RuleChange:
    number: str
    kind: str  # "added", "removed" or "reworded"
    old_text: str | None  # None when added
    new_text: str | None  # None when removed


def decode_cr(data: bytes) -> str:
    """The file's text: UTF-16 where it opens with UTF-16's byte order mark, else UTF-8 (a BOM is
    dropped), else Windows-1252; every line break as ``\\n``.

    Raises UnicodeDecodeError when the bytes are none of them (Windows-1252 leaves five bytes unused).
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_cr(data: bytes, document: str) -> RulesDocument:
    """Rules and glossary of one Comprehensive Rules file. ``document`` names it in errors."""
    try:
        text = decode_cr(data)
    except UnicodeDecodeError as exc:
        said = ("not UTF-16, which its byte order mark says" if exc.encoding.startswith("utf-16")
                else "neither UTF-8 nor Windows-1252")
        raise ParseError(document, f"{said} ({exc.reason})") from None
    lines = [line.rstrip() for line in text.split("\n")]
    effective_date = _effective_date(lines, document)
    body_start, glossary_at, credits_at = _landmarks(lines, document)
    rules = _parse_rules(lines[body_start:glossary_at], document)
    glossary = _parse_glossary(lines[glossary_at + 1:credits_at])
    return RulesDocument(effective_date, tuple(rules), tuple(glossary))


def diff_rules(old: RulesDocument, new: RulesDocument) -> list[RuleChange]:
    """Rules added, removed or reworded between two editions, in rule-number order.

    Reworded: same number, different text once runs of whitespace are one space. A changed
    quote or dash counts: the published wording is what is compared.
    """
    old_rules, new_rules = old.by_number, new.by_number
    changes = []
    for number in sorted(old_rules.keys() | new_rules.keys(), key=rule_sort_key):
        before, after = old_rules.get(number), new_rules.get(number)
        if before is None:
            changes.append(RuleChange(number, "added", None, after.text))
        elif after is None:
            changes.append(RuleChange(number, "removed", before.text, None))
        elif _same_words(before.text) != _same_words(after.text):
            changes.append(RuleChange(number, "reworded", before.text, after.text))
    return changes


def rule_sort_key(number: str) -> tuple[int, int, str]:
    """Reading order of rule numbers: "7" < "702" < "702.169" < "702.169a" < "719"."""
    match = re.fullmatch(r"(\d+)(?:\.(\d+)([a-z]?))?", number)
    if match is None:
        raise ValueError(f"not a rule number: {number!r}")
    head, sub, letter = match.groups()
    if len(head) == 1:  # a section sorts before its first rule: "7" before "700"
        return (int(head) * 100, -2, "")
    return (int(head), int(sub) if sub else -1, letter or "")


def parse_rule_line(line: str) -> tuple[str, str] | None:
    """("719.3a", "“To solve — …") for a line that opens a rule or a section heading, else None."""
    if match := _LETTERED.fullmatch(line):
        head, sub, letter, text = match.groups()
        return f"{head}.{sub}{letter}", text
    if match := _SUBRULE.fullmatch(line):
        head, sub, text = match.groups()
        return f"{head}.{sub}", text
    if match := _RULE.fullmatch(line):
        return match.group(1), match.group(2)
    if (match := _SECTION.fullmatch(line)) and not _SENTENCE_END.search(line):
        return match.group(1), match.group(2)  # a section heading, never a sentence
    return None


def parent_of(number: str) -> str | None:
    if re.fullmatch(r"\d", number):
        return None
    if re.fullmatch(r"\d{3}", number):
        return number[0]
    if number[-1].isalpha():
        return number[:-1]
    return number.split(".")[0]


def _effective_date(lines: list[str], document: str) -> str:
    for line in lines:
        match = _EFFECTIVE.search(line)
        if match is None:
            continue
        month, day, year = match.groups()
        if month not in _MONTHS:
            raise ParseError(document, f"unknown month in {match.group(0)!r}")
        try:
            return date(int(year), _MONTHS[month], int(day)).isoformat()
        except ValueError:
            raise ParseError(document, f"no such day in {match.group(0)!r}") from None
    raise ParseError(document, "no line 'These rules are effective as of …'")


def _landmarks(lines: list[str], document: str) -> tuple[int, int, int]:
    """Where the rules begin, and the lines of the Glossary and Credits headings.

    The Contents end at their "Credits" entry; their numbered lines look like rules but are not.
    The headings are the last lines reading "Glossary" and "Credits" after that.
    """
    body_start = 0
    contents_at = _first_index(lines, CONTENTS)
    if contents_at is not None:
        contents_end = _first_index(lines[contents_at:], CREDITS)
        if contents_end is None:
            raise ParseError(document, "the Contents do not end with a 'Credits' entry")
        body_start = contents_at + contents_end + 1
    credits_at = _last_index(lines, CREDITS, body_start)
    if credits_at is None:
        raise ParseError(document, "no 'Credits' heading after the rules: the file looks cut short")
    glossary_at = _last_index(lines[:credits_at], GLOSSARY, body_start)
    if glossary_at is None:
        raise ParseError(document, "no 'Glossary' heading before 'Credits'")
    return body_start, glossary_at, credits_at


def _parse_rules(lines: list[str], document: str) -> list[Rule]:
    """Numbered lines start a rule; other non-blank lines (``Example: …``) continue the last one."""
    pending: list[tuple[str, list[str]]] = []
    for line in lines:
        if not line:
            continue
        parsed = parse_rule_line(line)
        if parsed is not None:
            pending.append((parsed[0], [parsed[1]]))
        elif _RULE_NUMBER_FIRST.match(line):
            raise ParseError(document, f"a line opens with a rule number but reads as no rule: {line[:80]!r}")
        elif pending:
            pending[-1][1].append(line)
    if not pending:
        raise ParseError(document, "no numbered rules between the Contents and the Glossary")
    return [_rule(number, texts, position) for position, (number, texts) in enumerate(pending)]


def _rule(number: str, texts: list[str], position: int) -> Rule:
    text = "\n".join(texts)
    titled = not number[-1].isalpha() and len(texts) == 1 and not _SENTENCE_END.search(text)
    return Rule(number, parent_of(number), text if titled else None, text, position)


def _parse_glossary(lines: list[str]) -> list[GlossaryEntry]:
    """Blank-line separated blocks: the term, then its definition lines."""
    entries, block = [], []
    for line in [*lines, ""]:
        if line:
            block.append(line)
        elif block:
            entries.append(GlossaryEntry(block[0], "\n".join(block[1:])))
            block = []
    return entries


def _same_words(text: str) -> str:
    return " ".join(text.split())


def _first_index(lines: list[str], value: str) -> int | None:
    return lines.index(value) if value in lines else None


def _last_index(lines: list[str], value: str, start: int = 0) -> int | None:
    for i in range(len(lines) - 1, start - 1, -1):
        if lines[i] == value:
            return i
    return None
