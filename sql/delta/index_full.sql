-- Whether a full build's bulk files can have an object index: their lines (lines_cards,
-- lines_rulings from scan_lines.sql) and the objects the build read are the same things: as
-- many ruling lines as rulings, no card object beyond the last line (all of them when no query
-- filter leaves some out), and no Scryfall id on two lines (a repeated id's printing depends on
-- the order of its copies).
SELECT (SELECT count(*) FROM lines_rulings) = (SELECT count(*) FROM ruling_object WHERE file_seq = $rulings_seq)
   AND coalesce((SELECT max(ord) FROM card_object WHERE file_seq = $cards_seq), -1) < (SELECT count(*) FROM lines_cards)
   AND (NOT $whole OR (SELECT count(*) FROM lines_cards) = (SELECT count(*) FROM card_object WHERE file_seq = $cards_seq))
   AND NOT EXISTS (SELECT 1 FROM card_object WHERE file_seq = $cards_seq AND id IS NOT NULL GROUP BY id HAVING count(*) > 1)
   AS usable;
