"""Reading the Comprehensive Rules in the warehouse: one rule with its links, and edition diffs.

Read-only: takes a reader connection, runs the SQL of sql/read/, returns text or rows.
"""

from __future__ import annotations

import re
import textwrap
from datetime import date

from .errors import UsageError
from .normalize.rules import Rule, RulesDocument, diff_rules
from .reader import query
from .resources import read_sql

_NUMBER = re.compile(r"^\d{1,3}(\.\d+[a-z]?)?$")


def _editions(con) -> list[str]:
    """The effective dates of the ingested editions, oldest first."""
    _, rows = query(con, read_sql("read/editions.sql"))
    dates = [r[0].isoformat() for r in rows]
    if not dates:
        raise UsageError("no Comprehensive Rules in the warehouse yet: run `casefile rules ingest FILE_OR_URL`")
    return dates


def _edition(con, edition: str | None) -> str:
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


def show_rule(con, number: str, edition: str | None = None, limit: int = 0) -> str:
    """A rule as a page: its text, its parent and children, then the rulings and cards linked to
    it, at most ``limit`` of each (0: all; a warehouse of every card links thousands to a rule)."""
    number = number.strip().rstrip(".").lower()  # "719.3A" is 719.3a
    if not _NUMBER.match(number):
        raise UsageError(f"{number!r} is not a rule number (like 719, 719.3 or 719.3a)")
    edition = _edition(con, edition)
    columns, rows = query(con, read_sql("read/rule.sql"), {"number": number, "edition": edition})
    if not rows:
        raise UsageError(f"rule {number} is not in the edition effective {edition}")
    rule = dict(zip(columns, rows[0]))
    out = [f"{rule['number']}  {rule['title'] or ''}".rstrip() + f"  (Comprehensive Rules effective {edition})"]
    if not rule["title"]:
        out += _wrap(rule["text"])
    out.append("")
    if rule["parent"]:
        out += _wrap(f"{rule['parent']}  {rule['parent_title'] or rule['parent_text']}", " " * 10, first="Parent:   ")
    _, children = query(con, read_sql("read/rule_children.sql"), {"number": number, "edition": edition})
    out.append(f"Children: {', '.join(c[0] for c in children) if children else 'none'}")
    newest = _editions(con)[-1]
    if edition != newest:  # links are made to the newest edition only: "none" here would mislead
        _, there = query(con, read_sql("read/rule.sql"), {"number": number, "edition": newest})
        out += ["", f"Rulings and cards are linked to the newest edition only (effective {newest}):",
                f"  casefile rule {number} --edition {newest}" if there else f"  it has no rule {number}."]
        return "\n".join(out) + "\n"
    columns, links = query(con, read_sql("read/rule_links.sql"), {"number": number, "edition": edition,
                                                                  "limit": limit})
    rulings = _by_id([dict(zip(columns, l)) for l in links if l[0] == "ruling"])
    cards = _by_id([dict(zip(columns, l)) for l in links if l[0] == "card"])
    out += ["", f"Rulings linked ({_total(rulings)}):" if rulings else "Rulings linked: none"]
    for ruling in rulings:  # a line for each of its links, then its text once
        for link in ruling:
            when = link["published_at"].isoformat() if link["published_at"] else "undated"
            out.append(f"  {when} · {link['source']} · {link['method']}: {link['evidence']}")
        out += _wrap(ruling[0]["text"], "    ")
    out += _more(rulings)
    out += ["", f"Cards linked ({_total(cards)}):" if cards else "Cards linked: none"]
    for card in cards:
        out += [f"  {link['text']} · {link['method']}: {link['evidence']}" for link in card]
    out += _more(cards)
    return "\n".join(out) + "\n"


def _by_id(links: list[dict]) -> list[list[dict]]:
    """The links of each ruling or card, in the order shown (rule_links.sql gives them one after the other)."""
    grouped: list[list[dict]] = []
    for link in links:
        if grouped and grouped[-1][0]["id"] == link["id"]:
            grouped[-1].append(link)
        else:
            grouped.append([link])
    return grouped


def _total(shown: list[list[dict]]) -> int:
    """How many rulings (or cards) are linked: each counted once, however many links it has."""
    return shown[0][0]["total"] if shown else 0


def _more(shown: list[list[dict]]) -> list[str]:
    left = _total(shown) - len(shown)
    return [f"  … and {left} more (--limit 0 shows them all)"] if left > 0 else []


def _document(con, edition: str) -> RulesDocument:
    columns, rows = query(con, read_sql("read/edition_rules.sql"), {"edition": edition})
    return RulesDocument(edition, tuple(Rule(**dict(zip(columns, row))) for row in rows), ())


def diff_editions(con, old: str, new: str) -> tuple[list[str], list[tuple]]:
    """Rules added, removed or re-worded between two ingested editions (by effective date)."""
    for value in (old, new):
        try:
            date.fromisoformat(value)
        except ValueError:
            raise UsageError(f"{value!r} is not an edition's effective date (YYYY-MM-DD)") from None
    old, new = _edition(con, old), _edition(con, new)
    changes = diff_rules(_document(con, old), _document(con, new))
    return ["number", "change", "old_text", "new_text"], [(c.number, c.kind, c.old_text, c.new_text) for c in changes]
