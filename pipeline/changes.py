"""Change events between the warehouse and a run's state: pairing removed and added rulings.

Pure. SQL finds what was added, removed or changed (sql/load/changes.sql); this module decides
which removed + added pairs are one ruling re-worded: same source and date, same cards, and texts
alike enough (difflib ratio), each ruling used once, best pairs first.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

# Two texts this alike (0..1, difflib's ratio on match keys) are one ruling re-worded rather than
# one removed and another added. WotC corrections change a few words; unrelated rulings about the
# same card score well below 0.6 in the reference data.
REWORD_MIN_RATIO = 0.6


@dataclass(frozen=True)
class Change:
    """One row of change_event (without run_id and seq), as sql/load/changes.sql returns it."""

    kind: str
    oracle_id: str | None
    ruling_id: str | None
    previous_ruling_id: str | None
    field: str | None
    before: str | None
    after: str | None
    name: str | None
    cards: tuple[str, ...] | None


def pair_rewordings(changes: list[Change], ruling_meta: dict[str, tuple]) -> list[Change]:
    """Replace removed + added ruling pairs that are one ruling re-worded by a ``ruling_reworded``.

    ``ruling_meta``: ruling_id -> (source, published_at) for both the removed and the added ones.
    """
    removed = [c for c in changes if c.kind == "ruling_removed"]
    added = [c for c in changes if c.kind == "ruling_added"]
    candidates = []
    for old in removed:
        for new in added:
            if ruling_meta.get(old.ruling_id) != ruling_meta.get(new.ruling_id) or \
                    tuple(old.cards or ()) != tuple(new.cards or ()):
                continue
            ratio = difflib.SequenceMatcher(None, (old.before or "").casefold(), (new.after or "").casefold()).ratio()
            if ratio >= REWORD_MIN_RATIO:
                candidates.append((-ratio, old.ruling_id, new.ruling_id, old, new))
    used_old, used_new, rewordings = set(), set(), []
    for _, old_id, new_id, old, new in sorted(candidates, key=lambda c: c[:3]):
        if old_id in used_old or new_id in used_new:
            continue
        used_old.add(old_id)
        used_new.add(new_id)
        rewordings.append(Change("ruling_reworded", None, new_id, old_id, "text", old.before, new.after,
                                 None, new.cards))
    kept = [c for c in changes
            if not (c.kind == "ruling_removed" and c.ruling_id in used_old)
            and not (c.kind == "ruling_added" and c.ruling_id in used_new)]
    order = {"card_added": 0, "card_removed": 1, "card_changed": 2, "ruling_added": 3, "ruling_removed": 4,
             "ruling_reworded": 5, "translation_added": 6}
    return sorted(kept + rewordings, key=lambda c: (order.get(c.kind, 9), c.oracle_id or "", c.ruling_id or "",
                                                     c.field or ""))
