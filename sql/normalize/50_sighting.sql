-- Ruling sightings (ruling_sightings of pipeline/normalize/scryfall.py) of the cards kept, with
-- the text features reconcile needs, computed once per distinct text.
CREATE OR REPLACE TEMP TABLE n_sighting AS
SELECT
    doc_id, 'scryfall-api' AS origin, oracle_id, position, comment AS text_as_seen,
    published_at AS date_as_seen, source, 'en' AS lang, file_seq
FROM ruling_object
WHERE skip_reason IS NULL AND oracle_id IN (SELECT oracle_id FROM n_card)
-- one sighting per (document, card, position, language), as reconcile's _unique keeps it
QUALIFY row_number() OVER (PARTITION BY doc_id, oracle_id, position, lang
                           ORDER BY text_as_seen, date_as_seen, source) = 1;

CREATE OR REPLACE TEMP TABLE n_text AS
SELECT t AS text_as_seen, cf_match_key(t) AS key, cf_canonical(t) AS canon, cf_has_symbols(t) AS has_symbols
FROM (SELECT DISTINCT text_as_seen AS t FROM n_sighting);
