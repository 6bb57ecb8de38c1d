-- Rulings are reconciled within (source, date, symbol-free key): the rulings of two such
-- partitions never meet (60_reconcile.sql), and a partition's rulings depend only on the set of
-- distinct texts (variants) seen in it. n_sighting holds the new sightings of the cards in
-- d_sighted, n_variant their variants. A partition is reconciled again when that set may
-- change: a variant comes that these cards did not have, or one of theirs goes. The other new
-- sightings take the ruling and flags the warehouse gives their variant (d_mapped).

-- The cards' old sightings, and their variants the new sightings have again, with their ruling
-- and flags. A variant not among them counts as new, and one of theirs not seen again as gone,
-- even if another card has it: its partition is then reconciled again for nothing, which costs a
-- little time and changes no row.
CREATE OR REPLACE TEMP TABLE d_old_sighting AS
SELECT source_as_seen AS source, CAST(date_as_seen AS VARCHAR) AS date_as_seen, text_as_seen, ruling_id, flags
FROM ruling_sighting WHERE oracle_id IN (SELECT oracle_id FROM d_sighted);

CREATE OR REPLACE TEMP TABLE d_variant_known AS
SELECT DISTINCT o.source, o.date_as_seen, o.text_as_seen, o.ruling_id, o.flags
FROM d_old_sighting AS o
SEMI JOIN n_sighting AS n USING (source, date_as_seen, text_as_seen);

CREATE OR REPLACE TEMP TABLE d_variant_gone AS
SELECT DISTINCT o.ruling_id FROM d_old_sighting AS o ANTI JOIN n_sighting AS n USING (source, date_as_seen, text_as_seen);

CREATE OR REPLACE TEMP TABLE d_partition AS
SELECT DISTINCT v.source, v.date_as_seen AS published_at, cf_symbol_free_key(v.key) AS bare
FROM n_variant AS v
ANTI JOIN d_variant_known AS k USING (source, date_as_seen, text_as_seen)
UNION
SELECT r.source, CAST(r.published_at AS VARCHAR), cf_symbol_free_key(r.match_key)
FROM ruling AS r WHERE r.ruling_id IN (SELECT ruling_id FROM d_variant_gone);

-- The warehouse's rulings in those partitions (a match key is its own symbol-free key unless it
-- holds a symbol or a space before punctuation: the cheap test first).
CREATE OR REPLACE TEMP TABLE scope_ruling AS
SELECT r.ruling_id
FROM ruling AS r
JOIN d_partition AS p
    ON p.source = r.source AND p.published_at = CAST(r.published_at AS VARCHAR) AND p.bare = r.match_key
UNION
SELECT r.ruling_id
FROM (SELECT * FROM ruling WHERE contains(match_key, '{') OR regexp_matches(match_key, ' [.,;:!?)\]]')) AS r
JOIN d_partition AS p
    ON p.source = r.source AND p.published_at = CAST(r.published_at AS VARCHAR)
   AND p.bare = cf_symbol_free_key(r.match_key);

-- The new sightings outside those partitions keep the ruling of their variant.
CREATE OR REPLACE TEMP TABLE d_mapped AS
SELECT s.*, k.ruling_id, k.flags
FROM n_sighting AS s
JOIN d_variant_known AS k USING (source, date_as_seen, text_as_seen)
JOIN n_variant AS v USING (source, date_as_seen, text_as_seen)
ANTI JOIN d_partition AS p
    ON p.source = s.source AND p.published_at = s.date_as_seen AND p.bare = cf_symbol_free_key(v.key);

DELETE FROM n_sighting AS s USING d_mapped AS m
WHERE s.oracle_id = m.oracle_id AND s.position = m.position;

-- The partitions' sightings of the other cards, with the ids they have, read from today's rulings
-- file ($rulings_doc) as a full build would read them.
INSERT INTO n_sighting BY NAME
SELECT s.sighting_id, $rulings_doc AS doc_id, NULL AS place, s.origin, s.oracle_id, s.position, s.text_as_seen,
       CAST(s.date_as_seen AS VARCHAR) AS date_as_seen, s.source_as_seen AS source, s.lang
FROM ruling_sighting AS s
WHERE s.ruling_id IN (SELECT ruling_id FROM scope_ruling)
  AND s.oracle_id NOT IN (SELECT oracle_id FROM d_sighted);
