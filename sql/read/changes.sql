-- Change events of the runs in $runs, oldest first, with card names for ruling events.
SELECT e.run_id, e.seq, e.kind,
       coalesce(e.name, (SELECT string_agg(c.name, '; ' ORDER BY c.name) FROM card c
                          WHERE list_contains(e.cards, c.oracle_id))) AS card,
       e.field, e.before, e.after,
       coalesce(e.ruling_id, e.oracle_id) AS id,
       e.previous_ruling_id
FROM change_event e
WHERE list_contains($runs, e.run_id)
ORDER BY e.run_id, e.seq;
