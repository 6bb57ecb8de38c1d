-- The new day's object lines (lines_cards, lines_rulings) matched to the object index of the
-- files the warehouse was built from (old_card_line, old_ruling_line), by (h, n): a line found
-- there is the same object, and the index says what it gave; a line not found is new or changed; an index line not found in the new file
-- is gone. Card lines: only the new ones are kept (d_card_new); ruling lines: all of them, for
-- the places of rulings in their card's list (dirty.sql).
CREATE OR REPLACE TEMP TABLE d_card_new AS
SELECT l.ord, l.h, l.n, l.off, l.len FROM lines_cards AS l ANTI JOIN old_card_line AS i USING (h, n);

CREATE OR REPLACE TEMP TABLE d_card_gone AS
SELECT i.* FROM old_card_line AS i ANTI JOIN lines_cards AS l USING (h, n);

CREATE OR REPLACE TEMP TABLE d_ruling_line AS
SELECT l.ord, l.h, l.n, l.off, l.len, i.h IS NOT NULL AS same, i.oracle_h, i.position, i.refused
FROM lines_rulings AS l LEFT JOIN old_ruling_line AS i USING (h, n);

CREATE OR REPLACE TEMP TABLE d_ruling_gone AS
SELECT i.* FROM old_ruling_line AS i ANTI JOIN lines_rulings AS l USING (h, n);

SELECT (SELECT count(*) FROM d_card_new) AS cards_new,
       (SELECT count(DISTINCT (h, n)) FROM d_card_gone) AS cards_gone,
       (SELECT count(*) FROM lines_cards) AS cards,
       (SELECT count(*) FILTER (WHERE NOT same) FROM d_ruling_line) AS rulings_new,
       (SELECT count(*) FROM d_ruling_gone) AS rulings_gone,
       (SELECT count(*) FROM d_ruling_line) AS rulings;
