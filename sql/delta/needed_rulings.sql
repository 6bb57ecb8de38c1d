-- The unchanged ruling lines to read again: those moved in their card's list (d_ruling_place
-- holds their new place), and every readable ruling of a card that appears or goes away.
CREATE OR REPLACE TEMP TABLE d_wanted AS
SELECT 'rulings' AS file, l.ord, l.off, l.len
FROM d_ruling_pos AS l
LEFT JOIN d_ruling_place AS p ON p.oracle_h = l.oracle_h AND p.position = l.new_position
WHERE l.same AND NOT l.refused
  AND (p.oracle_h IS NOT NULL OR l.oracle_h IN (SELECT hash(oracle_id) FROM d_sighted_whole))
ORDER BY l.ord;
