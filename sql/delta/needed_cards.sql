-- The unchanged card lines to read again: every printing of a card in d_dirty (a card's row is
-- chosen among all its printings).
CREATE OR REPLACE TEMP TABLE d_wanted AS
SELECT DISTINCT 'cards' AS file, l.ord, l.off, l.len
FROM lines_cards AS l
SEMI JOIN (SELECT h, n FROM old_card_line
           WHERE kept AND NOT refused AND oracle_h IN (SELECT hash(oracle_id) FROM d_dirty)) AS i USING (h, n)
ANTI JOIN d_card_new AS c USING (ord)
ORDER BY l.ord;
