-- Ruling sightings (ruling_sightings of pipeline/normalize/scryfall.py) of the cards kept
-- (n_known_card: those of n_card, or after a delta build's cards, those the warehouse keeps too).
-- One sighting per (document, card, position, language), as reconcile's _unique keeps them, by
-- construction: build.py stages each rulings document once, and a document numbers its rulings
-- (a list in its order, a bulk file per card). sighting_id is computed in 60_reconcile.sql; a
-- delta build (pipeline/normalize/delta.py) adds sightings of the warehouse that carry theirs.
CREATE OR REPLACE TEMP TABLE n_sighting AS
SELECT NULL::VARCHAR AS sighting_id, doc_id, place, 'scryfall-api' AS origin, oracle_id, position,
       comment AS text_as_seen, published_at AS date_as_seen, source, 'en' AS lang
FROM ruling_object
WHERE skip_reason IS NULL AND oracle_id IN (SELECT oracle_id FROM n_known_card);
