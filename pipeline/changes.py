"""Which removed + added rulings are one ruling re-worded.

Pure. SQL finds what was added, removed or changed (sql/load/changes.sql) and the removed + added
pairs that could be one ruling (sql/load/reword_candidates.sql: same source, date and cards);
this module decides which of them are: texts alike enough (rapidfuzz's normalized Indel
similarity), each ruling used once, best pairs first.
"""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz.fuzz import ratio

# Two texts this alike (0..1: twice their longest common subsequence over their summed lengths,
# on case-folded texts) are one ruling re-worded rather than one removed and another added. WotC
# corrections change a few words (0.9 and up); two different rulings of one card in the bundled
# sample score 0.61 at most (tests/test_changes.py checks every such pair).
REWORD_MIN_RATIO = 0.7


def similarity(before: str | None, after: str | None) -> float:
    return ratio((before or "").casefold(), (after or "").casefold()) / 100


def choose_rewordings(candidates: Iterable[tuple[str, str, str | None, str | None]]) -> list[tuple[str, str]]:
    """``candidates``: (removed ruling_id, added ruling_id, old text, new text). Returns the pairs
    (removed, added) that are one ruling re-worded: the most alike first, ties by ids, each ruling
    in one pair at most."""
    scored = []
    for old_id, new_id, before, after in candidates:
        alike = similarity(before, after)
        if alike >= REWORD_MIN_RATIO:
            scored.append((-alike, old_id, new_id))
    used_old, used_new, pairs = set(), set(), []
    for _, old_id, new_id in sorted(scored):
        if old_id in used_old or new_id in used_new:
            continue
        used_old.add(old_id)
        used_new.add(new_id)
        pairs.append((old_id, new_id))
    return pairs
