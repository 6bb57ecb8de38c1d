-- A bulk card file ($file: a JSON array or JSON lines, gzipped or not), in file order, kept to
-- the cards the view's query selects ($terms: see pipeline/normalize/query.py; NULL keeps all).
-- $ords: NULL, or the place in the bulk file of each line of $file, a file of lines copied out of
-- it (pipeline/normalize/delta.py); an object beyond them gets no place (ord NULL).
INSERT INTO card_object BY NAME
SELECT * EXCLUDE (haystack)
FROM (
    SELECT $file_seq AS file_seq,
        CASE WHEN $ords IS NULL THEN row_number() OVER () - 1 ELSE $ords[row_number() OVER ()] END AS ord,
        $run_id AS run_id, c.*,
        lower(concat_ws(chr(10), c.type_line,
                        array_to_string(list_transform(c.card_faces, lambda f: f.type_line), chr(10)))) AS haystack
    FROM read_json($file, format = $format, columns = $columns) AS c
) AS c
WHERE $terms IS NULL OR NOT EXISTS (
    SELECT 1 FROM (SELECT unnest($terms) AS t) AS q
    WHERE (CASE q.t.field
               WHEN 'type' THEN contains(c.haystack, q.t.value)
               WHEN 'set' THEN lower(coalesce(c."set", '')) = q.t.value
               WHEN 'name' THEN q.t.value = '*' OR contains(lower(coalesce(c.name, '')), q.t.value)
           END) = q.t.negate
);
