-- Rulings this run no longer has: keep them, with the cards they applied to and the runs that saw them.
INSERT INTO retired_ruling
SELECT r.ruling_id, r.source, r.published_at, r.text, r.match_key,
       (SELECT list(DISTINCT cr.oracle_id ORDER BY cr.oracle_id) FROM card_ruling cr WHERE cr.ruling_id = r.ruling_id),
       (SELECT min(e.run_id) FROM change_event e WHERE e.ruling_id = r.ruling_id AND e.kind IN ('ruling_added', 'ruling_reworded')),
       $previous_run,
       $run_id
FROM ruling r ANTI JOIN stage_ruling s USING (ruling_id);
