-- A bulk rulings file: ruling objects of every Oracle card. A card's rulings keep the order of
-- the file, and position counts them per card as a /cards/{id}/rulings list would. $place: what
-- stays the same from one bulk file to the next (see RulingSighting.place in pipeline/records.py).
-- line_place: as in read_bulk_cards.sql.
INSERT INTO ruling_object
SELECT $file_seq, ord, $doc_id, $place, oracle_id,
    CAST(row_number() OVER (PARTITION BY oracle_id ORDER BY ord) - 1 AS INTEGER), source, published_at, comment,
    CASE WHEN oracle_id IS NULL THEN 'ruling without an oracle_id'
         WHEN comment IS NULL OR cf_blank(comment) THEN 'ruling without a comment'
         WHEN cf_iso_date(published_at) IS NULL THEN 'ruling without an ISO published_at' END
FROM (SELECT CASE WHEN l.ords IS NULL THEN row_number() OVER () - 1 ELSE l.ords[row_number() OVER ()] END AS ord, c.*
      FROM read_json($file, format = $format, columns = $columns) AS c
      CROSS JOIN (SELECT list(ord ORDER BY i) AS ords FROM line_place) AS l);
