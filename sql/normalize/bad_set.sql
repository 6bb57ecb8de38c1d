-- The first document of set_doc (read_set.sql) that is not a Scryfall set object with a code, by
-- name; none when all are (pipeline/normalize/duck.py _stage_sets).
SELECT doc_name FROM set_doc JOIN doc_input USING (path)
WHERE object IS DISTINCT FROM 'set' OR code IS NULL
ORDER BY file_seq LIMIT 1;
