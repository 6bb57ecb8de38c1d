-- The keys of the tables every load merges whole are unique (the others, and the retired
-- rulings, which every load appends to: unique_keys.sql).
-- Returns one row per duplicated key. A delta load runs this file as it is.
SELECT 'card_set' AS tbl, set_code AS k FROM card_set GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'query_wiki_page', query || '/' || doc_id FROM query_wiki_page GROUP BY query, doc_id HAVING count(*) > 1
UNION ALL SELECT 'ruling_translation', ruling_id || '/' || lang || '/' || origin FROM ruling_translation GROUP BY ruling_id, lang, origin HAVING count(*) > 1
UNION ALL SELECT 'sync_run', run_id FROM sync_run GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'raw_document', doc_id FROM raw_document GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'cr_edition', CAST(effective_date AS VARCHAR) FROM cr_edition GROUP BY ALL HAVING count(*) > 1
UNION ALL SELECT 'cr_rule', effective_date || '/' || number FROM cr_rule GROUP BY effective_date, number HAVING count(*) > 1
UNION ALL SELECT 'cr_glossary', effective_date || '/' || term FROM cr_glossary GROUP BY effective_date, term HAVING count(*) > 1;
