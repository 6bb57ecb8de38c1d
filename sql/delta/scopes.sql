-- The warehouse rows a delta build answers for, per table (scope_<table>: the rows themselves,
-- every column, read once here). The load brings exactly these, and the staged rows, to the
-- staged state, compares them with the staged rows and keeps what it deletes from them; no other
-- row is read or written. scope_ruling is made by partitions.sql.
CREATE OR REPLACE TEMP TABLE scope_card AS SELECT * FROM card WHERE oracle_id IN (SELECT oracle_id FROM d_dirty);
CREATE OR REPLACE TEMP TABLE scope_query_card AS
SELECT * FROM query_card WHERE query = $query AND oracle_id IN (SELECT oracle_id FROM d_dirty);
CREATE OR REPLACE TEMP TABLE scope_printing AS
SELECT * FROM printing WHERE oracle_id IN (SELECT oracle_id FROM d_dirty);
CREATE OR REPLACE TEMP TABLE scope_card_ruling AS
SELECT * FROM card_ruling
WHERE ruling_id IN (SELECT ruling_id FROM scope_ruling) OR oracle_id IN (SELECT oracle_id FROM d_sighted);
-- The sightings of the cards in d_sighted and those of the partitions reconciled again, which
-- partitions_known.sql and partitions.sql read.
CREATE OR REPLACE TEMP TABLE scope_ruling_sighting AS
SELECT * FROM d_sighted_sighting UNION ALL SELECT * FROM d_partition_sighting;
