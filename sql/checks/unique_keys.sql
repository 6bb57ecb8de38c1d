-- Every table's key is unique. Returns one row per duplicated key (grouped by the key's columns,
-- joined into one text only for the duplicates).
SELECT 'card_set' AS tbl, set_code AS k FROM card_set GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'card', oracle_id FROM card GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'printing', scryfall_id FROM printing GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'ruling', ruling_id FROM ruling GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'card_ruling', oracle_id || '/' || ruling_id FROM card_ruling GROUP BY oracle_id, ruling_id HAVING count(*) > 1
UNION ALL SELECT 'ruling_sighting', sighting_id FROM ruling_sighting GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'ruling_translation', ruling_id || '/' || lang || '/' || origin FROM ruling_translation GROUP BY ruling_id, lang, origin HAVING count(*) > 1
UNION ALL SELECT 'sync_run', run_id FROM sync_run GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'raw_document', doc_id FROM raw_document GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'change_event', run_id || '/' || seq FROM change_event GROUP BY run_id, seq HAVING count(*) > 1
UNION ALL SELECT 'retired_ruling', ruling_id FROM retired_ruling GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'cr_edition', CAST(effective_date AS VARCHAR) FROM cr_edition GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'cr_rule', effective_date || '/' || number FROM cr_rule GROUP BY effective_date, number HAVING count(*) > 1
UNION ALL SELECT 'cr_glossary', effective_date || '/' || term FROM cr_glossary GROUP BY effective_date, term HAVING count(*) > 1;
