-- How many Scryfall ids the card objects read again (n_object) hold more than once; a delta build
-- with any falls back to a full build (a repeated id's printing depends on the order of its copies).
SELECT count(*) FROM (SELECT id FROM n_object WHERE skip_reason IS NULL GROUP BY id HAVING count(*) > 1);
