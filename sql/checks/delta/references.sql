-- sql/checks/references.sql for a delta load. A reference can break only where a row was
-- written (its staged copy must point at a row that exists now) or where the row it points at
-- was deleted (apply_action_<table> action 'DELETE'; the sets the card_set merge removes,
-- apply_gone_card_set; a load deletes no raw_document); every other row pointed at a row that
-- existed when the last load checked it, and still does. Tables merged whole are checked whole.
SELECT 'printing.oracle_id' AS ref, p.scryfall_id AS k FROM stage_printing p ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'printing.oracle_id', p.scryfall_id FROM printing p
    SEMI JOIN (SELECT oracle_id FROM apply_action_card WHERE action = 'DELETE') USING (oracle_id) ANTI JOIN card USING (oracle_id)
UNION ALL SELECT 'printing.set_code', p.scryfall_id FROM stage_printing p ANTI JOIN card_set s USING (set_code)
UNION ALL SELECT 'printing.set_code', p.scryfall_id FROM printing p
    SEMI JOIN apply_gone_card_set USING (set_code) ANTI JOIN card_set USING (set_code)
UNION ALL SELECT 'card_ruling.oracle_id', cr.ruling_id FROM stage_card_ruling cr ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'card_ruling.oracle_id', cr.ruling_id FROM card_ruling cr
    SEMI JOIN (SELECT oracle_id FROM apply_action_card WHERE action = 'DELETE') USING (oracle_id) ANTI JOIN card USING (oracle_id)
UNION ALL SELECT 'card_ruling.ruling_id', cr.ruling_id FROM stage_card_ruling cr ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'card_ruling.ruling_id', cr.ruling_id FROM card_ruling cr
    SEMI JOIN (SELECT ruling_id FROM apply_action_ruling WHERE action = 'DELETE') USING (ruling_id) ANTI JOIN ruling USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.ruling_id', s.sighting_id FROM stage_ruling_sighting s ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.ruling_id', s.sighting_id FROM ruling_sighting s
    SEMI JOIN (SELECT ruling_id FROM apply_action_ruling WHERE action = 'DELETE') USING (ruling_id) ANTI JOIN ruling USING (ruling_id)
UNION ALL SELECT 'ruling_sighting.doc_id', s.sighting_id FROM stage_ruling_sighting s ANTI JOIN raw_document d USING (doc_id)
UNION ALL SELECT 'ruling_translation.ruling_id', t.ruling_id FROM ruling_translation t ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'raw_document.run_id', d.doc_id FROM raw_document d ANTI JOIN sync_run r USING (run_id)
UNION ALL SELECT 'cr_edition.doc_id', CAST(e.effective_date AS VARCHAR) FROM cr_edition e ANTI JOIN raw_document d USING (doc_id)
UNION ALL SELECT 'query_card.oracle_id', q.oracle_id FROM stage_query_card q ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'query_card.oracle_id', q.oracle_id FROM query_card q
    SEMI JOIN (SELECT oracle_id FROM apply_action_card WHERE action = 'DELETE') USING (oracle_id) ANTI JOIN card USING (oracle_id)
UNION ALL SELECT 'card.query', c.oracle_id FROM stage_card c ANTI JOIN query_card q USING (oracle_id)
UNION ALL SELECT 'card.query', c.oracle_id FROM card c
    SEMI JOIN (SELECT oracle_id FROM apply_action_query_card WHERE action = 'DELETE') USING (oracle_id) ANTI JOIN query_card USING (oracle_id);
