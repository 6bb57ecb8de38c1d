-- A ruling's place among its card's rulings counts every ruling line of the file (read_bulk_rulings
-- numbered only the lines read again).
UPDATE ruling_object SET position = p.new_position
FROM (SELECT ord, new_position FROM d_ruling_pos SEMI JOIN (SELECT ord FROM ruling_object) USING (ord)) AS p
WHERE ruling_object.ord = p.ord;
