-- Rulings are reconciled within (source, date, symbol-free key): the rulings of two such
-- partitions never meet (60_reconcile.sql), and a partition's rulings depend only on the set of
-- distinct texts (variants) seen in it. n_sighting holds the new sightings of the cards in
-- d_sighted. A partition is reconciled again when that set may change: a variant comes that
-- these cards did not have, or one of theirs goes (partitions.sql). The other new sightings take
-- the ruling and flags the warehouse gives their variant (d_mapped). This file finds the
-- variants the warehouse has; pipeline/normalize/delta.py then works out the features of the
-- new ones only (d_new_sighting, through 55_variant.sql), for their partitions.

-- The old sightings at the places derived again (those of d_sighted_place, and every one of the
-- cards of d_sighted_whole), and their variants the new sightings have again, with their ruling
-- and flags. A variant not among them counts as new, and one of theirs not seen again as gone,
-- even if another sighting has it: its partition is then reconciled again for nothing, which
-- costs a little time and changes no row.
-- The sightings of the cards of d_sighted are read once, every column: those at the places
-- derived again are d_sighted_sighting (with d_partition_sighting of partitions.sql, the load's
-- scope_ruling_sighting: scopes.sql); the others keep their rows, and their keys
-- (d_kept_sighting) complete their cards' rulings (kept_sightings.sql).
CREATE OR REPLACE TEMP TABLE d_touched_sighting AS
SELECT s.*, (p.oracle_id IS NOT NULL OR s.oracle_id IN (SELECT oracle_id FROM d_sighted_whole)) AS derived
FROM ruling_sighting AS s
LEFT JOIN d_sighted_place AS p ON p.oracle_id = s.oracle_id AND p.position = s.position
WHERE s.oracle_id IN (SELECT oracle_id FROM d_sighted);

CREATE OR REPLACE TEMP TABLE d_sighted_sighting AS
SELECT * EXCLUDE (derived) FROM d_touched_sighting WHERE derived;

CREATE OR REPLACE TEMP TABLE d_kept_sighting AS
SELECT sighting_id, oracle_id, ruling_id, position FROM d_touched_sighting WHERE NOT derived;

DROP TABLE d_touched_sighting;

CREATE OR REPLACE TEMP VIEW d_old_sighting AS
SELECT source_as_seen AS source, CAST(date_as_seen AS VARCHAR) AS date_as_seen, text_as_seen, ruling_id, flags
FROM d_sighted_sighting;

CREATE OR REPLACE TEMP TABLE d_variant_known AS
SELECT DISTINCT o.source, o.date_as_seen, o.text_as_seen, o.ruling_id, o.flags
FROM d_old_sighting AS o
SEMI JOIN n_sighting AS n USING (source, date_as_seen, text_as_seen);

CREATE OR REPLACE TEMP TABLE d_variant_gone AS
SELECT DISTINCT o.ruling_id FROM d_old_sighting AS o ANTI JOIN n_sighting AS n USING (source, date_as_seen, text_as_seen);

-- The new sightings whose variant the cards did not have.
CREATE OR REPLACE TEMP VIEW d_new_sighting AS
SELECT * FROM n_sighting AS n ANTI JOIN d_variant_known AS k USING (source, date_as_seen, text_as_seen);
