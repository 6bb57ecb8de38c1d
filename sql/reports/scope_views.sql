-- Restrict a report to the cards of one query: temporary views named like the tables shadow
-- them for the rest of this read-only connection. {db} is the warehouse's catalog name.
-- The MTG wiki's copies name no card: they are the query's when its current view holds the page
-- they were read from (query_wiki_page: raw_document.run_id names only the first run that fetched
-- a page, which another query may share byte for byte): a query that names no card type has no
-- wiki page, and so no wiki ruling or sighting.
CREATE TEMP TABLE scope_card AS SELECT DISTINCT oracle_id FROM {db}.main.query_card WHERE query = $query;
CREATE TEMP TABLE scope_page AS SELECT doc_id FROM {db}.main.query_wiki_page WHERE query = $query;
CREATE TEMP VIEW card AS SELECT * FROM {db}.main.card WHERE oracle_id IN (SELECT oracle_id FROM scope_card);
CREATE TEMP VIEW printing AS SELECT * FROM {db}.main.printing WHERE oracle_id IN (SELECT oracle_id FROM scope_card);
CREATE TEMP VIEW card_ruling AS SELECT * FROM {db}.main.card_ruling WHERE oracle_id IN (SELECT oracle_id FROM scope_card);
-- A ruling is the query's when a card of the query has it, or when the query's wiki page shows
-- it: the page's own rulings, and the WotC rulings its copies fold into, whichever cards those
-- are on.
CREATE TEMP VIEW ruling AS SELECT * FROM {db}.main.ruling
    WHERE ruling_id IN (SELECT ruling_id FROM card_ruling)
       OR ruling_id IN (SELECT ruling_id FROM {db}.main.ruling_sighting WHERE doc_id IN (SELECT doc_id FROM scope_page));
-- A sighting counts when it was seen on a card of the query, or on the query's wiki page.
CREATE TEMP VIEW ruling_sighting AS SELECT * FROM {db}.main.ruling_sighting
    WHERE ruling_id IN (SELECT ruling_id FROM ruling)
      AND (oracle_id IN (SELECT oracle_id FROM scope_card)
           OR (oracle_id IS NULL AND doc_id IN (SELECT doc_id FROM scope_page)));
CREATE TEMP VIEW ruling_translation AS SELECT * FROM {db}.main.ruling_translation WHERE ruling_id IN (SELECT ruling_id FROM ruling);
CREATE TEMP VIEW card_set AS SELECT * FROM {db}.main.card_set WHERE set_code IN (SELECT set_code FROM printing);
