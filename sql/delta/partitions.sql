-- The partitions to reconcile again: those of the new variants (n_variant: the variants of
-- d_new_sighting), and those of the rulings of the variants gone.
CREATE OR REPLACE TEMP TABLE d_partition AS
SELECT DISTINCT v.source, v.date_as_seen AS published_at, cf_symbol_free_key(v.key) AS bare
FROM n_variant AS v
UNION
SELECT r.source, CAST(r.published_at AS VARCHAR), cf_symbol_free_key(r.match_key)
FROM ruling AS r WHERE r.ruling_id IN (SELECT ruling_id FROM d_variant_gone);

-- The warehouse's rulings in those partitions, every column (the load's scope_ruling: see
-- scopes.sql): those whose match key is the partition's symbol-free key, and those the ruling
-- keys of the previous view (old_ruling_key, from the cache) put there.
CREATE OR REPLACE TEMP TABLE scope_ruling AS
SELECT r.*
FROM ruling AS r
JOIN d_partition AS p
    ON p.source = r.source AND p.published_at = CAST(r.published_at AS VARCHAR) AND p.bare = r.match_key
UNION
SELECT r.*
FROM ruling AS r
SEMI JOIN (SELECT k.ruling_id FROM old_ruling_key AS k
           JOIN d_partition AS p ON p.source = k.source AND p.published_at = k.published_at
                                AND p.bare = k.symbol_free_key) AS k USING (ruling_id);

-- The new sightings outside those partitions keep the ruling of their variant: a variant the
-- warehouse has is in the partition of its ruling, so it is outside them when its ruling is
-- not in scope_ruling.
CREATE OR REPLACE TEMP TABLE d_mapped AS
SELECT s.*, k.ruling_id, k.flags
FROM n_sighting AS s
JOIN d_variant_known AS k USING (source, date_as_seen, text_as_seen)
WHERE k.ruling_id NOT IN (SELECT ruling_id FROM scope_ruling);

DELETE FROM n_sighting AS s USING d_mapped AS m
WHERE s.oracle_id = m.oracle_id AND s.position = m.position;

-- The partitions' other sightings, those not derived again (d_partition_sighting, every column:
-- the rest of the load's scope_ruling_sighting), with the ids they have, read from today's rulings
-- file ($rulings_doc) as a full build would read them.
CREATE OR REPLACE TEMP TABLE d_partition_sighting AS
SELECT * FROM ruling_sighting
WHERE ruling_id IN (SELECT ruling_id FROM scope_ruling)
  AND sighting_id NOT IN (SELECT sighting_id FROM d_sighted_sighting);

INSERT INTO n_sighting BY NAME
SELECT s.sighting_id, $rulings_doc AS doc_id, NULL AS place, s.origin, s.oracle_id, s.position, s.text_as_seen,
       CAST(s.date_as_seen AS VARCHAR) AS date_as_seen, s.source_as_seen AS source, s.lang
FROM d_partition_sighting AS s
WHERE s.oracle_id IS NOT NULL;
