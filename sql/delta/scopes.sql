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
CREATE OR REPLACE TEMP TABLE scope_ruling_sighting AS
SELECT * FROM ruling_sighting
WHERE ruling_id IN (SELECT ruling_id FROM scope_ruling) OR oracle_id IN (SELECT oracle_id FROM d_sighted);
