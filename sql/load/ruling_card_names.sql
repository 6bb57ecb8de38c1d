-- ruling_card_names brought up to date with card_ruling and card, inside the load's transaction,
-- after the merges (pipeline/load/warehouse.py). $whole: every ruling is derived again (a load
-- that merged whole tables, or a table to fill); else only those of names_touched, which
-- the caller makes (names_touched.sql). Only the rows that differ are written.
CREATE OR REPLACE TEMP TABLE names_fresh AS
SELECT cr.ruling_id, array_to_string(list_sort(list(c.name)), '; ') AS cards  -- string_agg(... ORDER BY) took half again as long
FROM card_ruling AS cr
JOIN card AS c USING (oracle_id)
WHERE $whole OR cr.ruling_id IN (SELECT ruling_id FROM names_touched)
GROUP BY cr.ruling_id;

DELETE FROM ruling_card_names AS t
WHERE ($whole OR t.ruling_id IN (SELECT ruling_id FROM names_touched))
  AND NOT EXISTS (SELECT 1 FROM names_fresh AS f WHERE f.ruling_id = t.ruling_id AND f.cards = t.cards);

INSERT INTO ruling_card_names
SELECT f.ruling_id, f.cards FROM names_fresh AS f
ANTI JOIN ruling_card_names AS t ON t.ruling_id = f.ruling_id AND t.cards = f.cards;

DROP TABLE names_fresh;
