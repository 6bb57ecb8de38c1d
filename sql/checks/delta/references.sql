-- sql/checks/references.sql for a delta load. A reference can break only where a row was
-- written (its staged copy must point at a row that exists now) or where the row it points at
-- was deleted (apply_action_<table> action 'DELETE'; the sets the card_set merge removes,
-- apply_gone_card_set; a load deletes no raw_document); every other row pointed at a row that
-- existed when the last load checked it, and still does. Tables merged whole are checked whole.
-- The keys deleted and not there now (gone_*) are found first, once each: the large tables are
-- then scanned for those few keys, instead of joined to the tables the keys came from.
WITH gone_card AS MATERIALIZED (
    SELECT a.oracle_id FROM apply_action_card AS a LEFT JOIN card AS c USING (oracle_id)
    WHERE a.action = 'DELETE' AND c.oracle_id IS NULL
), gone_ruling AS MATERIALIZED (
    SELECT a.ruling_id FROM apply_action_ruling AS a LEFT JOIN ruling AS r USING (ruling_id)
    WHERE a.action = 'DELETE' AND r.ruling_id IS NULL
), gone_query_card AS (
    SELECT a.oracle_id FROM apply_action_query_card AS a LEFT JOIN query_card AS q USING (oracle_id)
    WHERE a.action = 'DELETE' AND q.oracle_id IS NULL
), gone_card_set AS (
    SELECT g.set_code FROM apply_gone_card_set AS g LEFT JOIN card_set AS s USING (set_code) WHERE s.set_code IS NULL
)
SELECT 'printing.oracle_id' AS ref, p.scryfall_id AS k FROM stage_printing p ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'printing.oracle_id', p.scryfall_id FROM printing p SEMI JOIN gone_card USING (oracle_id)
UNION ALL SELECT 'printing.set_code', p.scryfall_id FROM stage_printing p ANTI JOIN card_set s USING (set_code)
UNION ALL SELECT 'printing.set_code', p.scryfall_id FROM printing p SEMI JOIN gone_card_set USING (set_code)
UNION ALL SELECT 'card_ruling.oracle_id', cr.ruling_id FROM stage_card_ruling cr ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'card_ruling.oracle_id', cr.ruling_id FROM card_ruling cr SEMI JOIN gone_card USING (oracle_id)
UNION ALL SELECT 'card_ruling.ruling_id', cr.ruling_id FROM stage_card_ruling cr ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'card_ruling.ruling_id', cr.ruling_id FROM card_ruling cr SEMI JOIN gone_ruling USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.ruling_id', s.sighting_id FROM stage_ruling_sighting s ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.ruling_id', s.sighting_id FROM ruling_sighting s SEMI JOIN gone_ruling USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.doc_id', s.sighting_id FROM stage_ruling_sighting s ANTI JOIN raw_document d USING (doc_id)
UNION ALL SELECT 'ruling_translation.ruling_id', t.ruling_id FROM ruling_translation t ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'raw_document.run_id', d.doc_id FROM raw_document d ANTI JOIN sync_run r USING (run_id)
UNION ALL SELECT 'cr_edition.doc_id', CAST(e.effective_date AS VARCHAR) FROM cr_edition e ANTI JOIN raw_document d USING (doc_id)
UNION ALL SELECT 'query_card.oracle_id', q.oracle_id FROM stage_query_card q ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'query_card.oracle_id', q.oracle_id FROM query_card q SEMI JOIN gone_card USING (oracle_id)
UNION ALL SELECT 'card.query', c.oracle_id FROM stage_card c ANTI JOIN query_card q USING (oracle_id)
UNION ALL SELECT 'card.query', c.oracle_id FROM card c SEMI JOIN gone_query_card USING (oracle_id);
