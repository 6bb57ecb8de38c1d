-- sql/checks/unique_keys.sql for a delta load (pipeline/load/warehouse.py run_checks). A table
-- the delta answers for by scope holds, for the keys it touched, exactly its staged rows, and
-- the other rows as they were when the last load checked them (sql/load/apply_scoped.sql): its
-- keys are unique if the staged keys are. The change events are new only for this run ($run_id).
SELECT 'card' AS tbl, oracle_id AS k FROM stage_card GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'printing', scryfall_id FROM stage_printing GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'ruling', ruling_id FROM stage_ruling GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'card_ruling', oracle_id || '/' || ruling_id FROM stage_card_ruling GROUP BY oracle_id, ruling_id HAVING count(*) > 1
UNION ALL SELECT 'ruling_sighting', sighting_id FROM stage_ruling_sighting GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'change_event', run_id || '/' || seq FROM change_event WHERE run_id = $run_id GROUP BY run_id, seq HAVING count(*) > 1;
