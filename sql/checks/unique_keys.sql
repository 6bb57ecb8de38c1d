-- The keys of the tables a delta load answers for by scope, of the change events and of the
-- retired rulings are unique
-- (the tables every load merges whole: unique_keys_merged.sql). Returns one row per duplicated
-- key (grouped by the key's columns, joined into one text only for the duplicates). A delta
-- load runs sql/checks/delta/unique_keys.sql instead.
SELECT 'card' AS tbl, oracle_id AS k FROM card GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'query_card', query || '/' || oracle_id FROM query_card GROUP BY query, oracle_id HAVING count(*) > 1
UNION ALL SELECT 'printing', scryfall_id FROM printing GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'ruling', ruling_id FROM ruling GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'card_ruling', oracle_id || '/' || ruling_id FROM card_ruling GROUP BY oracle_id, ruling_id HAVING count(*) > 1
UNION ALL SELECT 'ruling_sighting', sighting_id FROM ruling_sighting GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'change_event', run_id || '/' || seq FROM change_event GROUP BY run_id, seq HAVING count(*) > 1
UNION ALL SELECT 'retired_ruling', ruling_id FROM retired_ruling GROUP BY ALL HAVING count(*) > 1;
