-- The change events of one run ($run_id), from n_change (computed before the merge) and the
-- re-worded pairs of n_reword (old_id, new_id): a pair's removal and addition become one
-- ruling_reworded event. Numbered in a fixed order: kind, card, ruling, field, origin (together a key of
-- each kind, so each event meets its own number only; the check of (run_id, seq) in
-- sql/checks/unique_keys.sql and sql/checks/delta/unique_keys.sql would refuse a run whose
-- events shared one).
-- The numbering sorts the keys alone and is joined back to the events: a window over the events
-- themselves sorts their texts with them, which took 0.59-0.84 s of a 1x full build's 105,000
-- events where this takes 0.42-0.56 s (bench/FINDINGS.md, "Machine K, a second session").
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
), numbered AS (
    SELECT kind, oracle_id, ruling_id, field, name,
           CAST(row_number() OVER (ORDER BY
               list_position(['card_added', 'card_removed', 'card_changed', 'ruling_added', 'ruling_removed',
                              'ruling_reworded', 'ruling_text_changed', 'ruling_cards_changed', 'translation_added',
                              'translation_changed', 'translation_removed'], kind),
               coalesce(oracle_id, ''), coalesce(ruling_id, ''), coalesce(field, ''), coalesce(name, '')) AS INTEGER) AS seq
    FROM events
)
SELECT $run_id AS run_id, n.seq, e.kind, e.oracle_id, e.ruling_id, e.previous_ruling_id, e.field, e.before, e.after,
       e.name, e.cards
FROM events AS e
JOIN numbered AS n
    ON n.kind = e.kind AND n.oracle_id IS NOT DISTINCT FROM e.oracle_id AND n.ruling_id IS NOT DISTINCT FROM e.ruling_id
   AND n.field IS NOT DISTINCT FROM e.field AND n.name IS NOT DISTINCT FROM e.name;
