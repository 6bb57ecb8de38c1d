-- Every reference points at a row that exists. Returns one row per dangling reference.
SELECT 'printing.oracle_id' AS ref, p.scryfall_id AS k FROM printing p ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'printing.set_code', p.scryfall_id FROM printing p ANTI JOIN card_set s USING (set_code)
UNION ALL SELECT 'card_ruling.oracle_id', cr.ruling_id FROM card_ruling cr ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'card_ruling.ruling_id', cr.ruling_id FROM card_ruling cr ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.ruling_id', s.sighting_id FROM ruling_sighting s ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.doc_id', s.sighting_id FROM ruling_sighting s ANTI JOIN raw_document d USING (doc_id)
UNION ALL SELECT 'ruling_translation.ruling_id', t.ruling_id FROM ruling_translation t ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'raw_document.run_id', d.doc_id FROM raw_document d ANTI JOIN sync_run r USING (run_id)
UNION ALL SELECT 'cr_edition.doc_id', CAST(e.effective_date AS VARCHAR) FROM cr_edition e ANTI JOIN raw_document d USING (doc_id)
UNION ALL SELECT 'query_card.oracle_id', q.oracle_id FROM query_card q ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'card.query', c.oracle_id FROM card c ANTI JOIN query_card q USING (oracle_id);
