-- query_wiki_page of a warehouse made before the table (pipeline/load/warehouse.py): each wiki
-- page its sightings were read from, as the query of the first run that fetched it.
INSERT INTO query_wiki_page
SELECT DISTINCT r.query, d.doc_id
FROM raw_document AS d
JOIN sync_run AS r USING (run_id)
WHERE d.origin = 'mtgwiki'
  AND r.query IS NOT NULL
  AND d.doc_id IN (SELECT doc_id FROM ruling_sighting WHERE origin = 'mtgwiki');
