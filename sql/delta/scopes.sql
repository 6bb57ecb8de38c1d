-- The warehouse rows a delta build answers for, per table (scope_<table>: their keys). The load
-- brings exactly these, and the staged rows, to the staged state; no other row is read or written.
-- scope_ruling is made by partitions.sql.
CREATE OR REPLACE TEMP TABLE scope_card AS SELECT oracle_id FROM d_dirty;
CREATE OR REPLACE TEMP TABLE scope_query_card AS SELECT CAST($query AS VARCHAR) AS query, oracle_id FROM d_dirty;
CREATE OR REPLACE TEMP TABLE scope_printing AS
SELECT scryfall_id FROM printing WHERE oracle_id IN (SELECT oracle_id FROM d_dirty);
CREATE OR REPLACE TEMP TABLE scope_card_ruling AS
SELECT oracle_id, ruling_id FROM card_ruling
WHERE ruling_id IN (SELECT ruling_id FROM scope_ruling) OR oracle_id IN (SELECT oracle_id FROM d_sighted);
CREATE OR REPLACE TEMP TABLE scope_ruling_sighting AS
SELECT sighting_id FROM ruling_sighting
WHERE ruling_id IN (SELECT ruling_id FROM scope_ruling) OR oracle_id IN (SELECT oracle_id FROM d_sighted);
