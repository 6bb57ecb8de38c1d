-- The new sightings outside the partitions reconciled again (partitions.sql d_mapped), with the
-- ruling and flags of their variant.
INSERT INTO n_ruling_sighting BY NAME
SELECT cf_sighting_id(coalesce(place, doc_id), oracle_id, position, lang) AS sighting_id,
       ruling_id, doc_id, origin, oracle_id, position, lang, text_as_seen, date_as_seen,
       source AS source_as_seen, flags
FROM d_mapped;
