-- Restrict a report to the cards of one query: temporary views named like the tables shadow
-- them for the rest of this read-only connection. {db} is the warehouse's catalog name.
CREATE TEMP TABLE scope_card AS SELECT DISTINCT oracle_id FROM {db}.main.query_card WHERE query = $query;
CREATE TEMP VIEW card AS SELECT * FROM {db}.main.card WHERE oracle_id IN (SELECT oracle_id FROM scope_card);
CREATE TEMP VIEW printing AS SELECT * FROM {db}.main.printing WHERE oracle_id IN (SELECT oracle_id FROM scope_card);
CREATE TEMP VIEW card_ruling AS SELECT * FROM {db}.main.card_ruling WHERE oracle_id IN (SELECT oracle_id FROM scope_card);
CREATE TEMP VIEW ruling AS SELECT * FROM {db}.main.ruling
    WHERE ruling_id IN (SELECT ruling_id FROM card_ruling) OR source = 'mtgwiki';
-- A sighting on a card page counts when the card is the query's (the wiki's name no card).
CREATE TEMP VIEW ruling_sighting AS SELECT * FROM {db}.main.ruling_sighting
    WHERE ruling_id IN (SELECT ruling_id FROM ruling)
      AND (oracle_id IS NULL OR oracle_id IN (SELECT oracle_id FROM scope_card));
CREATE TEMP VIEW ruling_translation AS SELECT * FROM {db}.main.ruling_translation WHERE ruling_id IN (SELECT ruling_id FROM ruling);
CREATE TEMP VIEW card_set AS SELECT * FROM {db}.main.card_set WHERE set_code IN (SELECT set_code FROM printing);
