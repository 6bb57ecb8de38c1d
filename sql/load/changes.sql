-- What the staged state changes compared with the warehouse, before the merge (n_change), from
-- old_card, old_ruling and old_card_ruling: the warehouse rows the build answers for (all of
-- them, or a delta build's scope; pipeline/load/warehouse.py _before_views). A ruling that stays
-- but leaves or joins a card that stays is one ruling_cards_changed event (before: the cards it
-- left, after: the cards it joined). A translation is compared whole (the builds stage every
-- translation): one whose text changes is translation_changed; one that goes while its ruling
-- stays is translation_removed (a ruling that goes takes its translations with it, and its own
-- event tells). A ruling that stays (its match key the same) but whose stored text changes (its
-- case, quotes, dashes or spaces; or another copy is now the best) is ruling_text_changed.
-- Columns: kind, oracle_id, ruling_id, previous_ruling_id, field, before, after, name, cards.
CREATE OR REPLACE TEMP TABLE n_change AS
WITH added AS (
    SELECT s.ruling_id, s.text FROM stage_ruling s ANTI JOIN old_ruling r USING (ruling_id)
), gone AS (
    SELECT r.ruling_id, r.text FROM old_ruling r ANTI JOIN stage_ruling s USING (ruling_id)
), retyped AS (
    SELECT s.ruling_id, r.text AS before, s.text AS after
    FROM old_ruling r JOIN stage_ruling s USING (ruling_id)
    WHERE r.text IS DISTINCT FROM s.text
), card_in_or_out AS (  -- the cards this run adds or removes: their links are told by those events
    SELECT oracle_id FROM stage_card ANTI JOIN old_card USING (oracle_id)
    UNION ALL
    SELECT oracle_id FROM old_card ANTI JOIN stage_card USING (oracle_id)
), relinked AS (
    -- the links made or undone between a ruling and a card that both stay: one full join of the
    -- links before and after (only the links in scope, after a delta build)
    SELECT coalesce(o.ruling_id, s.ruling_id) AS ruling_id, coalesce(o.oracle_id, s.oracle_id) AS oracle_id,
           s.oracle_id IS NULL AS undone
    FROM old_card_ruling AS o
    FULL JOIN stage_card_ruling AS s ON o.oracle_id = s.oracle_id AND o.ruling_id = s.ruling_id
    WHERE o.oracle_id IS NULL OR s.oracle_id IS NULL
), moved AS (
    -- names as this run gives them (stage_card), else as the warehouse holds them before the
    -- merge: a card that stays is there, and a delta build stages only the cards that changed
    SELECT l.ruling_id,
           string_agg(l.name, '; ' ORDER BY l.name) FILTER (WHERE l.undone) AS left_cards,
           string_agg(l.name, '; ' ORDER BY l.name) FILTER (WHERE NOT l.undone) AS joined_cards,
           list(l.oracle_id ORDER BY l.oracle_id) AS cards
    FROM (SELECT r.*, coalesce(s.name, c.name) AS name
          FROM relinked AS r
          JOIN card AS c USING (oracle_id)
          LEFT JOIN stage_card AS s USING (oracle_id)
          WHERE r.ruling_id NOT IN (SELECT ruling_id FROM added UNION ALL SELECT ruling_id FROM gone)
            AND r.oracle_id NOT IN (SELECT oracle_id FROM card_in_or_out)) AS l
    GROUP BY l.ruling_id
)
SELECT 'card_added' AS kind, s.oracle_id, NULL::VARCHAR AS ruling_id, NULL::VARCHAR AS previous_ruling_id,
       NULL::VARCHAR AS field, NULL::VARCHAR AS before, s.oracle_text AS after, s.name AS name, NULL::VARCHAR[] AS cards
FROM stage_card s ANTI JOIN old_card c USING (oracle_id)
UNION ALL
SELECT 'card_removed', c.oracle_id, NULL, NULL, NULL, c.oracle_text, NULL, c.name, NULL
FROM old_card c ANTI JOIN stage_card s USING (oracle_id)
UNION ALL
SELECT 'card_changed', d.oracle_id, NULL, NULL, f.field, f.before, f.after, d.name, NULL
FROM (  -- the cards whose fields differ, before their fields are spread out one per row
    SELECT c.oracle_id, s.name,
           [ {'field': 'name', 'before': c.name, 'after': s.name},
             {'field': 'mana_cost', 'before': c.mana_cost, 'after': s.mana_cost},
             {'field': 'cmc', 'before': CAST(c.cmc AS VARCHAR), 'after': CAST(s.cmc AS VARCHAR)},
             {'field': 'colors', 'before': CAST(c.colors AS VARCHAR), 'after': CAST(s.colors AS VARCHAR)},
             {'field': 'color_identity', 'before': CAST(c.color_identity AS VARCHAR), 'after': CAST(s.color_identity AS VARCHAR)},
             {'field': 'type_line', 'before': c.type_line, 'after': s.type_line},
             {'field': 'oracle_text', 'before': c.oracle_text, 'after': s.oracle_text},
             {'field': 'layout', 'before': c.layout, 'after': s.layout} ] AS fields
    FROM old_card c
    JOIN stage_card s USING (oracle_id)
    WHERE (c.name, c.mana_cost, c.cmc, c.colors, c.color_identity, c.type_line, c.oracle_text, c.layout)
          IS DISTINCT FROM (s.name, s.mana_cost, s.cmc, s.colors, s.color_identity, s.type_line, s.oracle_text, s.layout)
) AS d,
unnest(d.fields) AS t(f)
WHERE f.before IS DISTINCT FROM f.after
UNION ALL
SELECT 'ruling_added', NULL, a.ruling_id, NULL, NULL, NULL, a.text, NULL, coalesce(cr.cards, [])
FROM added a
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards
           FROM stage_card_ruling GROUP BY ruling_id) AS cr USING (ruling_id)
UNION ALL
SELECT 'ruling_removed', NULL, g.ruling_id, NULL, NULL, g.text, NULL, NULL, coalesce(cr.cards, [])
FROM gone g
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards
           FROM old_card_ruling WHERE ruling_id IN (SELECT ruling_id FROM gone) GROUP BY ruling_id) AS cr
    USING (ruling_id)
UNION ALL
SELECT 'ruling_text_changed', NULL, t.ruling_id, NULL, 'text', t.before, t.after, NULL, coalesce(cr.cards, [])
FROM retyped t
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards
           FROM stage_card_ruling WHERE ruling_id IN (SELECT ruling_id FROM retyped) GROUP BY ruling_id) AS cr
    USING (ruling_id)
UNION ALL
SELECT 'ruling_cards_changed', NULL, m.ruling_id, NULL, 'cards', m.left_cards, m.joined_cards, NULL, m.cards
FROM moved AS m
UNION ALL
SELECT 'translation_added', NULL, s.ruling_id, NULL, s.lang, NULL, s.text, s.origin, coalesce(cr.cards, [])
FROM (SELECT * FROM stage_ruling_translation ANTI JOIN ruling_translation USING (ruling_id, lang, origin)) AS s
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards
           FROM stage_card_ruling WHERE ruling_id IN (SELECT ruling_id FROM stage_ruling_translation)
           GROUP BY ruling_id) AS cr USING (ruling_id)
UNION ALL
SELECT 'translation_changed', NULL, s.ruling_id, NULL, s.lang, t.text, s.text, s.origin, coalesce(cr.cards, [])
FROM stage_ruling_translation AS s
JOIN ruling_translation AS t USING (ruling_id, lang, origin)
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards
           FROM stage_card_ruling WHERE ruling_id IN (SELECT ruling_id FROM stage_ruling_translation)
           GROUP BY ruling_id) AS cr USING (ruling_id)
WHERE s.text IS DISTINCT FROM t.text
UNION ALL
SELECT 'translation_removed', NULL, t.ruling_id, NULL, t.lang, t.text, NULL, t.origin, coalesce(cr.cards, [])
FROM (SELECT * FROM ruling_translation ANTI JOIN stage_ruling_translation USING (ruling_id, lang, origin)) AS t
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards  -- the links before the merge
           FROM card_ruling WHERE ruling_id IN (SELECT ruling_id FROM ruling_translation)
           GROUP BY ruling_id) AS cr USING (ruling_id)
WHERE t.ruling_id NOT IN (SELECT ruling_id FROM gone);
