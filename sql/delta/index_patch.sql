-- What the load changes in the line index (sql/load/line_index_patch.sql): lines gone, lines
-- new or changed, and ruling lines that moved within their card's list.
CREATE OR REPLACE TEMP TABLE n_card_line_gone AS SELECT DISTINCT h, n FROM d_card_gone;
CREATE OR REPLACE TEMP TABLE n_card_line_new AS
SELECT h, n, hash(unnest(CASE WHEN kept AND NOT refused THEN oracle_ids ELSE [NULL] END)) AS oracle_h, kept, refused
FROM d_new_card;
CREATE OR REPLACE TEMP TABLE n_ruling_line_gone AS SELECT h, n FROM d_ruling_gone;
CREATE OR REPLACE TEMP TABLE n_ruling_line_new AS
SELECT h, n, oracle_h, new_position AS position, refused FROM d_ruling_pos WHERE NOT same;
CREATE OR REPLACE TEMP TABLE n_ruling_line_moved AS
SELECT h, n, new_position AS position FROM d_ruling_pos WHERE same AND new_position IS DISTINCT FROM old_position;

-- Records read and refused, as refused.sql counts them for a full read: the card objects the
-- query keeps, and every ruling.
WITH card_lines AS (
    SELECT DISTINCT h, n, kept, refused FROM line_index.card_line ANTI JOIN n_card_line_gone USING (h, n)
    UNION ALL
    SELECT h, n, kept, refused FROM d_new_card
)
SELECT (SELECT count(*) FILTER (WHERE kept) FROM card_lines) + (SELECT count(*) FROM d_ruling_pos) AS objects,
       (SELECT count(*) FILTER (WHERE kept AND refused) FROM card_lines)
       + (SELECT count(*) FILTER (WHERE refused) FROM d_ruling_pos) AS refused;
