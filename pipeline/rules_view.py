"""Reading the Comprehensive Rules in the warehouse: one rule with its links, and edition diffs.

Read-only: takes a reader connection, runs the SQL of sql/read/, returns text, lines or rows.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from datetime import date
from typing import Iterator

from .errors import UsageError, shown
from .normalize.rules import Rule, RulesDocument, diff_rules
from .reader import query, query_batches
from .resources import read_sql

_NUMBER = re.compile(r"^\d{1,3}(\.\d+[a-z]?)?$")
# How many rows of rule_links.sql are read from DuckDB at a time: a row holds a ruling's whole
# text: batches of 10,000 held some 35 MB more than batches of 1,000 (every link of 702.169 at
# the benchmark's 4×), and took no less time.
LINK_BATCH = 1_000


def _editions(con) -> list[str]:
    """The effective dates of the ingested editions, oldest first."""
    _, rows = query(con, read_sql("read/editions.sql"))
    dates = [r[0].isoformat() for r in rows]
    if not dates:
        raise UsageError("no Comprehensive Rules in the warehouse yet: run `casefile rules ingest FILE_OR_URL`")
    return dates


def _effective_date(value: str) -> str:
    """``value`` if it is a date written YYYY-MM-DD, as the editions' dates are; else a usage error
    (fromisoformat alone also takes 20240920, and says nothing of an empty value)."""
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError
        date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{shown(value)} is not an edition's effective date (YYYY-MM-DD)") from None
    return value


def _edition(con, edition: str | None) -> str:
    if edition is not None:
        _effective_date(edition)
    dates = _editions(con)
    if edition is None:
        return dates[-1]
    if edition not in dates:
        raise UsageError(f"no edition effective {edition}; ingested: {', '.join(dates)}")
    return edition


def _wrap(text: str, indent: str = "", width: int = 100, first: str | None = None) -> list[str]:
    """Wrapped paragraphs; ``first`` replaces the indent on the very first line (a label)."""
    lines = []
    for paragraph in text.split("\n"):
        lead = first if first is not None and not lines else indent
        lines += textwrap.wrap(paragraph, width=width, initial_indent=lead, subsequent_indent=indent) or [lead]
    return lines


def rule_page(con, number: str, edition: str | None = None, limit: int = 0) -> Iterator[str]:
    """A rule as a page, line by line (each line ending in a newline): its text, its parent and
    children, then the rulings and cards linked to it, at most ``limit`` of each (0: all; a
    warehouse of every card links hundreds of thousands to a rule).

    The rule is looked up here, so a number that names no rule is refused before any line is
    given; the links are then read from DuckDB in batches as the lines are taken, so the page
    holds no more in Python for every link than for 50 (DuckDB still sorts every link shown).
    The connection must stay open, and run nothing else, until the last line is taken."""
    number = number.strip().rstrip(".").lower()  # "719.3A" is 719.3a
    if not _NUMBER.match(number):
        raise UsageError(f"{shown(number)} is not a rule number (like 719, 719.3 or 719.3a)")
    edition = _edition(con, edition)
    columns, rows = query(con, read_sql("read/rule.sql"), {"number": number, "edition": edition})
    if not rows:
        raise UsageError(f"rule {number} is not in the edition effective {edition}")
    rule = dict(zip(columns, rows[0]))
    head = [f"{rule['number']}  {rule['title'] or ''}".rstrip() + f"  (Comprehensive Rules effective {edition})"]
    if not rule["title"]:
        head += _wrap(rule["text"])
    head.append("")
    if rule["parent"]:
        head += _wrap(f"{rule['parent']}  {rule['parent_title'] or rule['parent_text']}", " " * 10, first="Parent:   ")
    _, children = query(con, read_sql("read/rule_children.sql"), {"number": number, "edition": edition})
    head.append(f"Children: {', '.join(c[0] for c in children) if children else 'none'}")
    newest = _editions(con)[-1]
    if edition != newest:  # links are made to the newest edition only: "none" here would mislead
        _, there = query(con, read_sql("read/rule.sql"), {"number": number, "edition": newest})
        head += ["", f"Rulings and cards are linked to the newest edition only (effective {newest}):",
                 f"  casefile rule {number} --edition {newest}" if there else f"  it has no rule {number}."]
        return iter([line + "\n" for line in head])
    columns, batches = query_batches(con, read_sql("read/rule_links.sql"),
                                     {"number": number, "edition": edition, "limit": limit}, LINK_BATCH)
    links = (dict(zip(columns, row)) for batch in batches for row in batch)
    return itertools.chain((line + "\n" for line in head), _linked(links))


def _linked(links: Iterator[dict]) -> Iterator[str]:
    """The rulings, then the cards, of the rows of rule_links.sql (rulings first), as they come."""
    kinds = itertools.groupby(links, key=lambda link: link["what"])
    what, rows = next(kinds, (None, iter(())))
    yield from _section("Rulings", rows if what == "ruling" else iter(()), _ruling_lines)
    if what == "ruling":
        what, rows = next(kinds, (None, iter(())))
    yield from _section("Cards", rows if what == "card" else iter(()), _card_lines)


def _section(heading: str, links: Iterator[dict], lines_of) -> Iterator[str]:
    """A heading with how many rulings (or cards) are linked, then the lines of each one's links
    (rule_links.sql gives them one after the other), then how many more there are. Every row
    carries the count (``total``: each ruling or card counted once), so the first one tells it."""
    first = next(links, None)
    if first is None:
        yield f"\n{heading} linked: none\n"
        return
    yield f"\n{heading} linked ({first['total']}):\n"
    shown = 0
    for _, group in itertools.groupby(itertools.chain([first], links), key=lambda link: link["id"]):
        shown += 1
        yield from lines_of(list(group))
    left = first["total"] - shown
    if left > 0:
        yield f"  … and {left} more (--limit 0 shows them all)\n"


def _ruling_lines(links: list[dict]) -> Iterator[str]:
    """A line for each of a ruling's links, then its text once."""
    for link in links:
        when = link["published_at"].isoformat() if link["published_at"] else "undated"
        yield f"  {when} · {link['source']} · {link['method']}: {link['evidence']}\n"
    for line in _wrap(links[0]["text"], "    "):
        yield line + "\n"


def _card_lines(links: list[dict]) -> Iterator[str]:
    for link in links:
        yield f"  {link['text']} · {link['method']}: {link['evidence']}\n"


def _document(con, edition: str) -> RulesDocument:
    columns, rows = query(con, read_sql("read/edition_rules.sql"), {"edition": edition})
    return RulesDocument(edition, tuple(Rule(**dict(zip(columns, row))) for row in rows), ())


def diff_editions(con, old: str, new: str) -> tuple[list[str], list[tuple]]:
    """Rules added, removed or re-worded between two ingested editions (by effective date)."""
    for value in (old, new):
        _effective_date(value)
    old, new = _edition(con, old), _edition(con, new)
    changes = diff_rules(_document(con, old), _document(con, new))
    return ["number", "change", "old_text", "new_text"], [(c.number, c.kind, c.old_text, c.new_text) for c in changes]
