-- The new and changed lines to read first (match_lines.sql): every new card line, and the ruling
-- lines not at the same place as in the index. Read by pipeline/normalize/delta.py _read_again.
CREATE OR REPLACE TEMP TABLE d_wanted AS
SELECT 'cards' AS file, ord, off, len FROM d_card_new
UNION ALL
SELECT 'rulings', ord, off, len FROM d_ruling_line WHERE NOT same;
