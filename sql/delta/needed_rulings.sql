-- The unchanged ruling lines to read again: every readable ruling of a card in d_sighted (its
-- sightings are derived again as a whole).
CREATE OR REPLACE TEMP TABLE d_wanted AS
SELECT 'rulings' AS file, ord, off, len
FROM d_ruling_pos
WHERE same AND NOT refused AND oracle_h IN (SELECT hash(oracle_id) FROM d_sighted)
ORDER BY ord;
