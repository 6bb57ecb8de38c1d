-- The object index of the new files (saved in the cache for the next day's delta): the old
-- index without the lines gone, with the new and changed lines, and every ruling line at its
-- place in its card's list now.
CREATE OR REPLACE TEMP TABLE n_card_line AS
SELECT * FROM old_card_line ANTI JOIN (SELECT DISTINCT h, n FROM d_card_gone) USING (h, n)
UNION ALL
SELECT h, n, hash(unnest(CASE WHEN kept AND NOT refused THEN oracle_ids ELSE [NULL] END)) AS oracle_h, kept, refused
FROM d_new_card;

CREATE OR REPLACE TEMP TABLE n_ruling_line AS
SELECT h, n, oracle_h, new_position AS position, refused FROM d_ruling_pos;

-- The ruling keys of the new view: those of the rulings kept, and those of the rulings of the
-- partitions reconciled again (d_ruling_key, index_ruling_keys.sql).
CREATE OR REPLACE TEMP TABLE n_ruling_key AS
SELECT * FROM old_ruling_key WHERE ruling_id NOT IN (SELECT ruling_id FROM scope_ruling)
UNION ALL
SELECT * FROM d_ruling_key;

-- Records read and refused, as refused.sql counts them for a full read: the card objects the
-- query keeps, and every ruling.
WITH card_lines AS (SELECT DISTINCT h, n, kept, refused FROM n_card_line)
SELECT (SELECT count(*) FILTER (WHERE kept) FROM card_lines) + (SELECT count(*) FROM n_ruling_line) AS objects,
       (SELECT count(*) FILTER (WHERE kept AND refused) FROM card_lines)
       + (SELECT count(*) FILTER (WHERE refused) FROM n_ruling_line) AS refused;
