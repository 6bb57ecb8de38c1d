-- A bulk card file ($file: a JSON array or JSON lines, gzipped or not), in file order, kept to
-- the cards the view's query selects ($terms: see pipeline/normalize/query.py; NULL keeps all).
-- line_place (i, ord): empty for a bulk file read whole; for a file of lines copied out of one
-- (pipeline/normalize/delta.py), the place in the bulk file of line i of $file (from 0), which
-- its object takes; an object beyond those lines gets no place (ord NULL). The places come as
-- one list, made once.
INSERT INTO card_object BY NAME
SELECT * EXCLUDE (haystack)
FROM (
    SELECT $file_seq AS file_seq,
        CASE WHEN l.ords IS NULL THEN row_number() OVER () - 1 ELSE l.ords[row_number() OVER ()] END AS ord,
        $run_id AS run_id, c.*,
        lower(concat_ws(chr(10), c.type_line,
                        array_to_string(list_transform(c.card_faces, lambda f: f.type_line), chr(10)))) AS haystack
    FROM read_json($file, format = $format, columns = $columns) AS c
    CROSS JOIN (SELECT list(ord ORDER BY i) AS ords FROM line_place) AS l
) AS c
WHERE $terms IS NULL OR NOT EXISTS (
    SELECT 1 FROM (SELECT unnest($terms) AS t) AS q
    WHERE (CASE q.t.field
               WHEN 'type' THEN contains(c.haystack, q.t.value)
               WHEN 'set' THEN lower(coalesce(c."set", '')) = q.t.value
               WHEN 'name' THEN q.t.value = '*' OR contains(lower(coalesce(c.name, '')), q.t.value)
           END) = q.t.negate
);
