-- The new day's object lines (lines_cards, lines_rulings) matched to the object index of the
-- files the warehouse was built from (old_card_line, old_ruling_line), by (h, n): a line found
-- there is the same object, and the index says what it gave; a line not found is new or
-- changed; an index line not found in the new file is gone. Card lines: only the new ones are
-- kept (d_card_new); ruling lines: all of them, for the places of rulings in their card's list
-- (dirty.sql). One FULL JOIN per file gives both sides (a line with no ord is an index line
-- gone): one hash table of the file's lines instead of two, the longest step of a delta at
-- scale (bench/FINDINGS.md); the views keep the names and columns of the two sides.
CREATE OR REPLACE TEMP TABLE d_card_match AS
SELECT l.ord, l.h AS new_h, l.n AS new_n, l.off, l.len, i.h, i.n, i.oracle_h, i.kept, i.refused
FROM lines_cards AS l FULL JOIN old_card_line AS i ON l.h = i.h AND l.n = i.n
WHERE l.h IS NULL OR i.h IS NULL;

CREATE OR REPLACE TEMP VIEW d_card_new AS
SELECT ord, new_h AS h, new_n AS n, off, len FROM d_card_match WHERE ord IS NOT NULL;

CREATE OR REPLACE TEMP VIEW d_card_gone AS
SELECT h, n, oracle_h, kept, refused FROM d_card_match WHERE ord IS NULL;

CREATE OR REPLACE TEMP TABLE d_ruling_match AS
SELECT l.ord, coalesce(l.h, i.h) AS h, coalesce(l.n, i.n) AS n, l.off, l.len, i.h IS NOT NULL AS same,
       i.oracle_h, i.position, i.refused
FROM lines_rulings AS l FULL JOIN old_ruling_line AS i ON l.h = i.h AND l.n = i.n;

CREATE OR REPLACE TEMP VIEW d_ruling_line AS
SELECT ord, h, n, off, len, same, oracle_h, position, refused FROM d_ruling_match WHERE ord IS NOT NULL;

CREATE OR REPLACE TEMP VIEW d_ruling_gone AS
SELECT h, n, oracle_h, position, refused FROM d_ruling_match WHERE ord IS NULL;

SELECT (SELECT count(*) FROM d_card_new) AS cards_new,
       (SELECT count(DISTINCT (h, n)) FROM d_card_gone) AS cards_gone,
       (SELECT count(*) FROM lines_cards) AS cards,
       (SELECT count(*) FILTER (WHERE NOT same) FROM d_ruling_line) AS rulings_new,
       (SELECT count(*) FROM d_ruling_gone) AS rulings_gone,
       (SELECT count(*) FROM d_ruling_line) AS rulings;
