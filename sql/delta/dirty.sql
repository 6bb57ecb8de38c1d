-- After the new and changed lines are read: what the index will say of them, every ruling line's
-- place among its card's rulings, and the Oracle cards to derive again:
--   d_dirty          card and printing rows: the cards of card lines gone, new or changed;
--   d_ruling_dirty   sightings: the cards of ruling lines gone, new or changed, or moved in
--                    their card's list (the place is part of a sighting). cards.sql adds the
--                    cards of d_dirty that appear or go away (their rulings come or go with them);
--   d_ruling_place   the places in those lists (oracle_h, position) whose sighting may change:
--                    where a line gone or moved was, and where a line new, changed or moved is.
--                    A line unchanged in its place keeps its sighting: no other line was or is there.
-- The index names cards by hash(oracle_id); the warehouse's tables give the Oracle ids back (a
-- card a line gave is in card; a card a ruling line concerns matters only if it is there too).
CREATE OR REPLACE TEMP TABLE d_new_card AS
SELECT l.ord, l.h, l.n, o.id AS scryfall_id,
       CASE WHEN o.skip_reason IS NULL THEN o.oracle_ids ELSE []::VARCHAR[] END AS oracle_ids,
       o.ord IS NOT NULL AS kept, coalesce(o.skip_reason IS NOT NULL, false) AS refused
FROM d_card_new AS l
LEFT JOIN (SELECT ord, id, oracle_ids, skip_reason FROM n_object WHERE file_seq = $cards_seq) AS o USING (ord);

CREATE OR REPLACE TEMP TABLE d_ruling_pos AS
SELECT *, CAST(row_number() OVER (PARTITION BY oracle_h ORDER BY ord) - 1 AS INTEGER) AS new_position
FROM (
    SELECT l.ord, l.h, l.n, l.off, l.len, l.same, l.position AS old_position,
           CASE WHEN l.same THEN l.oracle_h ELSE hash(r.oracle_id) END AS oracle_h,
           CASE WHEN l.same THEN l.refused ELSE coalesce(r.skip_reason IS NOT NULL, true) END AS refused
    FROM d_ruling_line AS l
    LEFT JOIN (SELECT ord, oracle_id, skip_reason FROM ruling_object WHERE file_seq = $rulings_seq) AS r
        ON NOT l.same AND r.ord = l.ord
);

CREATE OR REPLACE TEMP TABLE d_dirty AS
SELECT DISTINCT unnest(oracle_ids) AS oracle_id FROM d_new_card WHERE kept AND NOT refused
UNION
SELECT oracle_id FROM card
WHERE hash(oracle_id) IN (SELECT oracle_h FROM d_card_gone WHERE kept AND NOT refused);

CREATE OR REPLACE TEMP TABLE d_ruling_place AS
SELECT oracle_h, position FROM d_ruling_gone
UNION SELECT oracle_h, new_position FROM d_ruling_pos WHERE NOT same OR new_position IS DISTINCT FROM old_position
UNION SELECT oracle_h, old_position FROM d_ruling_pos WHERE same AND new_position IS DISTINCT FROM old_position;

CREATE OR REPLACE TEMP TABLE d_ruling_dirty AS
SELECT oracle_id FROM card WHERE hash(oracle_id) IN (SELECT oracle_h FROM d_ruling_place)
UNION
SELECT DISTINCT oracle_id FROM ruling_object WHERE oracle_id IS NOT NULL;

-- A Scryfall id on two lines: its printing depends on the order of its copies (not delta-able).
-- The new lines' ids against each other, and against the printings of cards not derived again
-- (the unchanged lines of the cards of d_dirty are read again and checked in needed_cards.sql).
SELECT (SELECT count(*) FROM (SELECT scryfall_id FROM d_new_card WHERE kept AND NOT refused
                              GROUP BY scryfall_id HAVING count(*) > 1))
     + (SELECT count(*) FROM d_new_card AS c JOIN printing AS p USING (scryfall_id)
        WHERE c.kept AND NOT c.refused AND p.oracle_id NOT IN (SELECT oracle_id FROM d_dirty)) AS repeated_ids;
