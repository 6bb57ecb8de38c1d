-- The lines of d_wanted of one file ($file: 'cards' or 'rulings') as line_place: i numbers them
-- in file order from 0, the place in the copy copy_lines writes (pipeline/normalize/lines.py);
-- read_bulk_cards.sql and read_bulk_rulings.sql put each object back at its ord.
CREATE OR REPLACE TEMP TABLE line_place AS
SELECT CAST(row_number() OVER (ORDER BY ord) - 1 AS BIGINT) AS i, ord, off, len
FROM d_wanted WHERE file = $file;
