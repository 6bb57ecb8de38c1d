-- Change events of the runs in $runs, oldest first, with card names for ruling events: the
-- cards the event names, sorted and joined with '; '. The names are found by one join on the
-- unnested Oracle ids (a subquery per event scanned every card for every event: 18 s for the
-- 105,000 events of a first sync of 35,000 cards), from the events' keys and cards only, so that
-- their texts are read once. A card the warehouse no longer holds is named as its card_removed
-- event named it (the rulings that went with it, and their history, keep its name).
-- A translation is listed under its ruling's cards (its name column holds the origin).
WITH event_card AS (
    SELECT DISTINCT run_id, seq, unnest(cards) AS oracle_id
    FROM change_event WHERE list_contains($runs, run_id) AND kind NOT LIKE 'card%'
),
gone_card AS (
    SELECT oracle_id, arg_max(name, run_id) AS name
    FROM change_event
    WHERE kind = 'card_removed'
      AND oracle_id IN (SELECT oracle_id FROM event_card ANTI JOIN card USING (oracle_id))
    GROUP BY oracle_id
),
card_names AS (
    SELECT ec.run_id, ec.seq, string_agg(c.name, '; ' ORDER BY c.name) AS names
    FROM event_card AS ec
    JOIN (SELECT oracle_id, name FROM card UNION ALL SELECT oracle_id, name FROM gone_card) AS c USING (oracle_id)
    GROUP BY ec.run_id, ec.seq
)
SELECT e.run_id, e.seq, e.kind,
       CASE WHEN e.kind LIKE 'card%' THEN e.name ELSE n.names END AS card,
       e.field, e.before, e.after,
       coalesce(e.ruling_id, e.oracle_id) AS id,
       e.previous_ruling_id
FROM change_event AS e
LEFT JOIN card_names AS n USING (run_id, seq)
WHERE list_contains($runs, e.run_id)
ORDER BY e.run_id, e.seq;
