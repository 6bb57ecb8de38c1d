-- The change events of one run ($run_id), from n_change (computed before the merge) and the
-- re-worded pairs of n_reword (old_id, new_id): a pair's removal and addition become one
-- ruling_reworded event. Numbered in a fixed order: kind, card, ruling, field, origin (together a key of
-- each kind).
INSERT INTO change_event
WITH events AS (
    SELECT kind, oracle_id, ruling_id, previous_ruling_id, field, before, after, name, cards
    FROM n_change
    WHERE NOT (kind = 'ruling_removed' AND ruling_id IN (SELECT old_id FROM n_reword))
      AND NOT (kind = 'ruling_added' AND ruling_id IN (SELECT new_id FROM n_reword))
    UNION ALL
    SELECT 'ruling_reworded', NULL, p.new_id, p.old_id, 'text', o.before, n.after, NULL, n.cards
    FROM n_reword AS p
    JOIN n_change AS o ON o.kind = 'ruling_removed' AND o.ruling_id = p.old_id
    JOIN n_change AS n ON n.kind = 'ruling_added' AND n.ruling_id = p.new_id
)
SELECT $run_id AS run_id,
       CAST(row_number() OVER (ORDER BY
           list_position(['card_added', 'card_removed', 'card_changed', 'ruling_added', 'ruling_removed',
                          'ruling_reworded', 'translation_added'], kind),
           coalesce(oracle_id, ''), coalesce(ruling_id, ''), coalesce(field, ''), coalesce(name, '')) AS INTEGER) AS seq,
       kind, oracle_id, ruling_id, previous_ruling_id, field, before, after, name, cards
FROM events;
