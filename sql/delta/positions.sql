-- A ruling's place among its card's rulings counts every ruling line of the file (read_bulk_rulings
-- numbered only the lines read again). The places of the lines read are picked out first: an
-- UPDATE joined to all of d_ruling_pos (every line of the file) takes several times as long.
CREATE OR REPLACE TEMP TABLE d_read_position AS
SELECT ord, new_position FROM d_ruling_pos SEMI JOIN ruling_object USING (ord);

UPDATE ruling_object SET position = p.new_position
FROM d_read_position AS p
WHERE ruling_object.ord = p.ord;

DROP TABLE d_read_position;
