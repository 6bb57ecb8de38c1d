-- Rulings this run no longer has (n_change, before the merge): keep them, with the cards they
-- applied to and the runs that saw them. The last run that saw one is the latest sync before this
-- run: a rules ingest reads no card and no ruling.
INSERT INTO retired_ruling
WITH gone AS (
    SELECT ruling_id FROM n_change WHERE kind = 'ruling_removed'
)
SELECT r.ruling_id, r.source, r.published_at, r.text, r.match_key, coalesce(cr.cards, []), seen.first_run,
       (SELECT max(run_id) FROM sync_run WHERE mode IS DISTINCT FROM 'ingest'),
       $run_id
FROM old_ruling r
SEMI JOIN gone USING (ruling_id)
LEFT JOIN (SELECT ruling_id, list(oracle_id ORDER BY oracle_id) AS cards
           FROM old_card_ruling WHERE ruling_id IN (SELECT ruling_id FROM gone) GROUP BY ruling_id) AS cr USING (ruling_id)
LEFT JOIN (SELECT ruling_id, min(run_id) AS first_run FROM change_event
           WHERE kind IN ('ruling_added', 'ruling_reworded') AND ruling_id IN (SELECT ruling_id FROM gone)
           GROUP BY ruling_id) AS seen USING (ruling_id);
