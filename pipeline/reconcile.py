"""Reconciliation: many sightings of a ruling become one ruling, with its provenance.

Pure (no network, no DuckDB), idempotent and independent of input order: the output is a
function of the *set* of sightings. The rules, in order:

1. A sighting with a date and a source is an *anchor*; anchors that share (source, date,
   match_key) are one ruling. An anchor whose text lost its ``{…}`` symbols joins the anchor that
   has them when exactly one such anchor exists (flag ``symbols_lost``).
   A page copy (not the API's) that lost its symbols and matches several such anchors joins the
   one its own card has, when exactly one has it.
2. A sighting without a date or source (the MTG wiki, some card pages) attaches to the anchored
   ruling with the same key — or the same key without symbols, when unique (flag ``symbols_lost``).
   Dates and sources it does show must agree. A copy from a card's page that matches several
   rulings takes the one its card has, when exactly one has it; else the latest (flag
   ``ambiguous_match``). A copy from a card's page whose key only other cards' rulings have, and
   that has no symbols, takes its own card's ruling of the same words with symbols, when exactly
   one is (flag ``symbols_lost``).
3. What still matches nothing is a ruling of its own: a wiki-only ruling has source ``mtgwiki``
   and no date. But a card page's copy in other words than the API's ruling of its card (a site
   behind a re-wording), or a ruling only pages show, joins that ruling when exactly one fits
   (flag ``other_wording``; ``_ApiWordings.home`` says what fits), and the loose copies of the
   words so folded follow them.
4. A copy in another language is a translation of the English copy it sits beside on the same
   document (``translates`` = that copy's position), never a ruling.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from .changes import REWORD_MIN_RATIO, similarity
from .normalize.text import canonical_text, has_symbols, match_key, symbol_free_key, typographic_score
from .records import CardRuling, Ruling, RulingSighting, SightingRow, Translation

# Which copy of a text is the best: Scryfall's API first (curly quotes, mana symbols in braces).
ORIGIN_RANK = {"scryfall-api": 0, "scryfall-page": 1, "listeblanche": 2, "mtgwiki": 3}
# Origins whose translations are machine-made (listeblanche.fr says its French text is AI-generated).
MACHINE_TRANSLATED_ORIGINS = frozenset({"listeblanche"})

SYMBOLS_LOST = "symbols_lost"
AMBIGUOUS = "ambiguous_match"
UNDATED_MATCH = "matched_without_date"
OTHER_WORDING = "other_wording"
API_ORIGIN = "scryfall-api"


@dataclass
class Reconciled:
    rulings: list[Ruling] = field(default_factory=list)
    card_rulings: list[CardRuling] = field(default_factory=list)
    sightings: list[SightingRow] = field(default_factory=list)
    translations: list[Translation] = field(default_factory=list)
    unmatched_translations: list[RulingSighting] = field(default_factory=list)


def ruling_id_for(source: str, published_at: str | None, key: str) -> str:
    raw = "\x1f".join([source, published_at or "", key]).encode("utf-8")
    return "r" + hashlib.sha256(raw).hexdigest()[:15]


def _sighting_identity(s: RulingSighting) -> tuple:
    return (s.doc_id, s.oracle_id or "", s.position, s.lang)


def _sort_key(s: RulingSighting) -> tuple:
    return (s.doc_id, s.oracle_id or "", s.position, s.lang, s.text_as_seen, s.date_as_seen or "",
            s.source or "", s.translates if s.translates is not None else -1, s.flags)


def _unique(sightings: Iterable[RulingSighting]) -> list[RulingSighting]:
    """One sighting per (document, card, position, language): duplicated inputs change nothing."""
    chosen: dict[tuple, RulingSighting] = {}
    for s in sorted(sightings, key=_sort_key):
        chosen.setdefault(_sighting_identity(s), s)
    return list(chosen.values())


@dataclass
class _Group:
    source: str
    published_at: str | None
    key: str
    members: list[tuple[RulingSighting, tuple[str, ...]]] = field(default_factory=list)

    @property
    def has_symbols(self) -> bool:
        return any(has_symbols(s.text_as_seen) for s, _ in self.members)


def _best_copy(group: _Group) -> str:
    english = [(s, flags) for s, flags in group.members if s.lang == "en"]

    def rank(item):
        s, flags = item
        text = canonical_text(s.text_as_seen)
        return (SYMBOLS_LOST in flags or OTHER_WORDING in flags, ORIGIN_RANK.get(s.origin, 9),
                -typographic_score(text), text)

    return canonical_text(min(english, key=rank)[0].text_as_seen)


def reconcile(sightings: Iterable[RulingSighting]) -> Reconciled:
    unique = _unique(sightings)
    english = [s for s in unique if s.lang == "en"]
    foreign = [s for s in unique if s.lang != "en"]

    # 1. anchors
    groups: dict[tuple, _Group] = {}
    loose: list[RulingSighting] = []
    for s in english:
        if s.date_as_seen and s.source:
            ident = (s.source, s.date_as_seen, match_key(s.text_as_seen))
            groups.setdefault(ident, _Group(*ident)).members.append((s, ()))
        else:
            loose.append(s)
    _fold_symbol_less_anchors(groups)
    wordings = _ApiWordings(groups, english)
    aliases = _fold_other_wordings(groups, wordings)

    # 2. attach loose sightings to anchors
    by_key: dict[str, list[_Group]] = defaultdict(list)
    by_bare_key: dict[str, list[_Group]] = defaultdict(list)
    for group in groups.values():
        by_key[group.key].append(group)
        if group.has_symbols:
            by_bare_key[symbol_free_key(group.key)].append(group)
    # the cards of each anchored ruling, before any loose copy joins: a loose copy's choice never
    # depends on the copies handled before it
    cards = {id(group): {m.oracle_id for m, _ in group.members} for group in groups.values()}
    orphans: dict[tuple, _Group] = {}
    for s in loose:
        flags: tuple[str, ...] = ()
        candidates = _agreeing(by_key.get(match_key(s.text_as_seen), []), s)
        if not candidates and not has_symbols(s.text_as_seen):
            # only a copy without symbols lost them: one with other symbols is another text
            candidates = _agreeing(by_bare_key.get(symbol_free_key(s.text_as_seen), []), s)
            flags = (SYMBOLS_LOST,) if candidates else ()
        elif candidates and s.oracle_id is not None and not has_symbols(s.text_as_seen) \
                and not any(s.oracle_id in cards[id(g)] for g in candidates):
            # the same words without symbols are another card's ruling; a card's page shows its own
            # card's, which lost its symbols here, when exactly one of them has the same words
            own = [g for g in _agreeing(by_bare_key.get(symbol_free_key(s.text_as_seen), []), s)
                   if s.oracle_id in cards[id(g)]]
            if len(own) == 1:
                candidates, flags = own, (SYMBOLS_LOST,)
        if len(candidates) > 1 and s.oracle_id is not None:
            on_card = [g for g in candidates if s.oracle_id in cards[id(g)]]
            if len(on_card) == 1:  # the card's page shows the card's ruling
                candidates = on_card
        if not candidates:  # the words of a ruling that only pages showed, folded into the API's (rule 3)
            homes, lost = aliases.homes(s, wordings)
            candidates = _agreeing(homes, s)
            flags = (OTHER_WORDING,) + ((SYMBOLS_LOST,) if lost else ()) if candidates else ()
        if candidates:
            if len(candidates) > 1:
                flags += (AMBIGUOUS,)
            target = max(candidates, key=lambda g: (g.published_at or "", g.source))
            if not s.date_as_seen:
                flags += (UNDATED_MATCH,)
            target.members.append((s, flags))
            continue
        # 3. a ruling of its own, unless it is another wording of one the API shows for its card
        source = s.source or ("mtgwiki" if s.origin == "mtgwiki" else s.origin)
        ident = (source, s.date_as_seen, match_key(s.text_as_seen))
        orphans.setdefault(ident, _Group(*ident)).members.append((s, ()))
    _fold_other_wording_orphans(orphans, wordings)

    result = Reconciled()
    english_ruling: dict[tuple, str] = {}  # (doc, oracle, position) -> ruling_id
    for group in sorted([*groups.values(), *orphans.values()], key=lambda g: (g.source, g.published_at or "", g.key)):
        rid = ruling_id_for(group.source, group.published_at, group.key)
        result.rulings.append(Ruling(rid, group.source, group.published_at, _best_copy(group), group.key))
        positions: dict[str, tuple] = {}
        for s, flags in group.members:
            english_ruling[(s.doc_id, s.oracle_id, s.position)] = rid
            result.sightings.append(_row(rid, s, flags))
            if s.oracle_id is not None:
                rank = (ORIGIN_RANK.get(s.origin, 9), s.position, s.doc_id)
                positions[s.oracle_id] = min(positions.get(s.oracle_id, rank), rank)
        for oracle_id, rank in positions.items():
            result.card_rulings.append(CardRuling(oracle_id, rid, rank[1]))

    # 4. translations, paired by document structure
    translated: dict[tuple, list[RulingSighting]] = defaultdict(list)
    for s in foreign:
        rid = english_ruling.get((s.doc_id, s.oracle_id, s.translates)) if s.translates is not None else None
        if rid is None:
            result.unmatched_translations.append(s)
            continue
        result.sightings.append(_row(rid, s, ()))
        translated[(rid, s.lang, s.origin)].append(s)
    for (rid, lang, origin), copies in sorted(translated.items()):
        counts = Counter(canonical_text(s.text_as_seen) for s in copies)
        text = min(counts, key=lambda t: (-counts[t], t))
        result.translations.append(Translation(rid, lang, origin, text, origin in MACHINE_TRANSLATED_ORIGINS))

    result.sightings.sort(key=lambda r: (r.ruling_id, r.doc_id, r.oracle_id or "", r.position, r.lang))
    result.card_rulings.sort(key=lambda c: (c.oracle_id, c.position, c.ruling_id))
    return result


def _agreeing(groups: list[_Group], s: RulingSighting) -> list[_Group]:
    """Groups a loose sighting may join: whatever date or source it does show must agree."""
    return [g for g in groups
            if (not s.date_as_seen or g.published_at == s.date_as_seen)
            and (not s.source or g.source == s.source)]


def _fold_symbol_less_anchors(groups: dict[tuple, _Group]) -> None:
    with_symbols: dict[tuple, list[tuple]] = defaultdict(list)
    for ident, group in groups.items():
        if group.has_symbols:
            with_symbols[(group.source, group.published_at, symbol_free_key(group.key))].append(ident)
    for ident in sorted(groups):
        group = groups[ident]
        if group.has_symbols:
            continue
        targets = with_symbols.get((group.source, group.published_at, symbol_free_key(group.key)), [])
        if len(targets) == 1 and targets[0] != ident:
            groups[targets[0]].members.extend((s, flags + (SYMBOLS_LOST,)) for s, flags in group.members)
            del groups[ident]
        elif len(targets) > 1:
            _place_by_card(group, [groups[t] for t in targets])
            if not group.members:
                del groups[ident]


class _ApiWordings:
    """The API's rulings of each card, as anchored in step 1, and the wordings each page shows for
    each card (symbol-free keys), for finding the ruling a page copy words otherwise."""

    def __init__(self, groups: dict[tuple, _Group], english: list[RulingSighting]):
        self.by_card: dict[str, list[_Group]] = defaultdict(list)
        self.cards: dict[int, frozenset[str]] = {}
        for ident in sorted(groups):
            group = groups[ident]
            self.cards[id(group)] = frozenset(s.oracle_id for s, _ in group.members
                                              if s.origin == API_ORIGIN and s.oracle_id is not None)
            for card in sorted(self.cards[id(group)]):
                self.by_card[card].append(group)
        self.bare = {id(group): symbol_free_key(group.key) for group in groups.values()}
        self.shown: dict[tuple[str, str], set[str]] = defaultdict(set)
        for s in english:
            if s.oracle_id is not None:
                self.shown[(s.doc_id, s.oracle_id)].add(symbol_free_key(s.text_as_seen))

    def may_join(self, s: RulingSighting, group: _Group) -> bool:
        """Whether ``s``, a card page's copy, may be another wording of the API's ``group``: the API
        shows ``group`` for its card, and its page does not show ``group``'s words for that card."""
        return (s.oracle_id in self.cards.get(id(group), ())
                and self.bare[id(group)] not in self.shown.get((s.doc_id, s.oracle_id), set()))

    def home(self, s: RulingSighting, key: str, source: str | None, published_at: str | None) -> _Group | None:
        """The one API ruling of ``s``'s card that ``s`` (a page's copy, of match key ``key``) is
        another wording of: the same source and date where ``s`` shows them, a text as alike as a
        re-wording (``changes.REWORD_MIN_RATIO``), and a wording ``s``'s page does not show for
        that card. None when there is no such ruling or more than one."""
        if s.origin == API_ORIGIN or s.oracle_id is None:
            return None
        found = [group for group in self.by_card.get(s.oracle_id, ())
                 if self.may_join(s, group)
                 and (published_at is None or group.published_at == published_at)
                 and (source is None or group.source == source)
                 and similarity(key, group.key) >= REWORD_MIN_RATIO]
        return found[0] if len(found) == 1 else None


@dataclass
class _Aliases:
    """The words of the rulings only pages showed that were folded into an API ruling (rule 3),
    by match key and, for words with symbols, by the key without them: their loose copies (the
    wiki's, a card page's without a source) follow them there."""

    by_key: dict[str, list[_Group]] = field(default_factory=lambda: defaultdict(list))
    by_bare: dict[str, list[_Group]] = field(default_factory=lambda: defaultdict(list))

    def homes(self, s: RulingSighting, wordings: _ApiWordings) -> tuple[list[_Group], bool]:
        """The rulings ``s`` may join so, and whether by the key without symbols. A card page's copy
        joins one only for its own card, and not where its page shows that ruling's words too."""
        homes, lost = self.by_key.get(match_key(s.text_as_seen), []), False
        if not homes and not has_symbols(s.text_as_seen):
            homes, lost = self.by_bare.get(symbol_free_key(s.text_as_seen), []), True
        if s.oracle_id is not None:
            homes = [home for home in homes if wordings.may_join(s, home)]
        return homes, lost


def _fold_other_wordings(groups: dict[tuple, _Group], wordings: _ApiWordings) -> _Aliases:
    """A ruling that only pages show, anchored by their dates and sources, whose every copy is
    another wording of one and the same ruling the API shows for the copy's card, joins that ruling
    (flag ``other_wording``): a page that has not caught up with a re-wording (or is ahead of
    it). Returns the folded words, for their loose copies."""
    aliases = _Aliases()
    for ident in sorted(groups):
        group = groups[ident]
        home = _one_home(group, wordings, lambda s: (group.source, group.published_at))
        if home is None:
            continue
        if group.has_symbols:
            _add_once(aliases.by_bare[symbol_free_key(group.key)], home)
        home.members.extend((s, flags + (OTHER_WORDING,)) for s, flags in group.members)
        del groups[ident]
        _add_once(aliases.by_key[group.key], home)
    return aliases


def _add_once(homes: list[_Group], home: _Group) -> None:
    if not any(known is home for known in homes):
        homes.append(home)


def _fold_other_wording_orphans(orphans: dict[tuple, _Group], wordings: _ApiWordings) -> None:
    """The same for copies that would be a ruling of their own: a card page's list item (dated or
    not, with no source) in a wording the API no longer shows for the card."""
    for ident in sorted(orphans, key=lambda i: (i[0], i[1] or "", i[2])):  # an undated one's date: None
        group = orphans[ident]
        home = _one_home(group, wordings, lambda s: (s.source, s.date_as_seen))
        if home is None:
            continue
        home.members.extend((s, flags + (OTHER_WORDING,) + (() if s.date_as_seen else (UNDATED_MATCH,)))
                            for s, flags in group.members)
        del orphans[ident]


def _one_home(group: _Group, wordings: _ApiWordings, shows) -> _Group | None:
    if any(s.origin == API_ORIGIN for s, _ in group.members):
        return None
    homes = [wordings.home(s, group.key, *shows(s)) for s, _ in group.members]
    if not homes or any(home is None for home in homes) or len({id(home) for home in homes}) != 1:
        return None
    return homes[0]


def _place_by_card(group: _Group, targets: list[_Group]) -> None:
    """A symbol-less anchor that several anchors with symbols match (the same words, other
    symbols on other cards): each page copy in it joins the one target its own card has. API
    copies stay where they are, as the SQL path (sql/normalize/60_reconcile.sql) leaves them."""
    cards = [{s.oracle_id for s, _ in target.members} for target in targets]
    kept = []
    for s, flags in group.members:
        homes = [t for t, on in zip(targets, cards) if s.oracle_id is not None and s.oracle_id in on]
        if s.origin != API_ORIGIN and len(homes) == 1:
            homes[0].members.append((s, flags + (SYMBOLS_LOST,)))
        else:
            kept.append((s, flags))
    group.members = kept


def _row(rid: str, s: RulingSighting, flags: tuple[str, ...]) -> SightingRow:
    return SightingRow(ruling_id=rid, doc_id=s.doc_id, origin=s.origin, oracle_id=s.oracle_id,
                       position=s.position, lang=s.lang, text_as_seen=s.text_as_seen,
                       date_as_seen=s.date_as_seen, source_as_seen=s.source,
                       flags=tuple(sorted(set(s.flags) | set(flags))), place=s.place)
