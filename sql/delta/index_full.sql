-- The line index of a full build's bulk files (lines_cards, lines_rulings from scan_lines.sql),
-- joined to what the build read from each object (card_object through n_object, ruling_object)
-- by its place in the file. Run before the staged objects are dropped.
CREATE OR REPLACE TEMP TABLE n_card_line AS
SELECT l.h, l.n, hash(unnest(CASE WHEN o.skip_reason IS NULL THEN o.oracle_ids ELSE [NULL] END)) AS oracle_h,
       true AS kept, o.skip_reason IS NOT NULL AS refused
FROM lines_cards AS l
JOIN (SELECT ord, oracle_ids, skip_reason FROM n_object WHERE file_seq = $cards_seq) AS o USING (ord)
UNION ALL
SELECT l.h, l.n, NULL, false, false
FROM lines_cards AS l
ANTI JOIN (SELECT ord FROM card_object WHERE file_seq = $cards_seq) AS o USING (ord);

CREATE OR REPLACE TEMP TABLE n_ruling_line AS
SELECT l.h, l.n, hash(r.oracle_id) AS oracle_h, r.position, coalesce(r.skip_reason IS NOT NULL, true) AS refused
FROM lines_rulings AS l
LEFT JOIN (SELECT ord, oracle_id, position, skip_reason FROM ruling_object WHERE file_seq = $rulings_seq) AS r USING (ord);

-- Whether the lines and the objects read are the same things: as many ruling lines as rulings,
-- no card object beyond the last line (all of them when no query filter leaves some out), and
-- no Scryfall id on two lines (a repeated id's printing depends on the order of its copies).
SELECT (SELECT count(*) FROM lines_rulings) = (SELECT count(*) FROM ruling_object WHERE file_seq = $rulings_seq)
   AND coalesce((SELECT max(ord) FROM card_object WHERE file_seq = $cards_seq), -1) < (SELECT count(*) FROM lines_cards)
   AND (NOT $whole OR (SELECT count(*) FROM lines_cards) = (SELECT count(*) FROM card_object WHERE file_seq = $cards_seq))
   AND NOT EXISTS (SELECT 1 FROM card_object WHERE file_seq = $cards_seq AND id IS NOT NULL GROUP BY id HAVING count(*) > 1)
   AS usable;
