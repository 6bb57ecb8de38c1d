-- sql/checks/unique_keys.sql for a delta load (pipeline/load/warehouse.py run_checks). A table
-- the delta answers for by scope holds, for the keys it touched, exactly its staged rows, and
-- the other rows as they were when the last load checked them (sql/load/apply_scoped.sql): its
-- keys are unique if the staged keys are. The change events are new only for this run ($run_id),
-- and so are the retired rulings it appends (removed_in_run; a load only deletes the others):
-- a key can be doubled only where this run wrote one of its rows.
SELECT 'card' AS tbl, oracle_id AS k FROM stage_card GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'query_card', query || '/' || oracle_id FROM stage_query_card GROUP BY query, oracle_id HAVING count(*) > 1
UNION ALL SELECT 'printing', scryfall_id FROM stage_printing GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'ruling', ruling_id FROM stage_ruling GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'card_ruling', oracle_id || '/' || ruling_id FROM stage_card_ruling GROUP BY oracle_id, ruling_id HAVING count(*) > 1
UNION ALL SELECT 'ruling_sighting', sighting_id FROM stage_ruling_sighting GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'change_event', run_id || '/' || seq FROM change_event WHERE run_id = $run_id GROUP BY run_id, seq HAVING count(*) > 1
UNION ALL SELECT 'retired_ruling', ruling_id FROM retired_ruling
    WHERE ruling_id IN (SELECT ruling_id FROM retired_ruling WHERE removed_in_run = $run_id)
    GROUP BY ALL HAVING count(*) > 1;
